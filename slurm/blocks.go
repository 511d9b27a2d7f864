package slurm

import (
	"fmt"
	"strings"
)

// MaxBlockLevel is the highest aggregation level BlockSizes may name: a block of
// 2^15 base blocks (Slurm's MAX_BLOCK_LEVELS is 16; block_record.c refuses more).
const MaxBlockLevel = 15

// Blocks is a topology.conf of Slurm's topology/block plugin (Slurm >= 23.11) the way
// slurmctld holds it (src/plugins/topology/block/block_record.c of Slurm 26.05,
// _read_topo_file and block_record_validate): the base blocks in file order, the
// base block size and the allowed aggregation levels. Slurm aggregates base blocks
// by their index, never by name or node: the aggregated block of level l number j
// is base blocks j*2^l .. (j+1)*2^l-1, so the order of the lines is part of the
// model. Package alloc's slurm:block emulates the selection on it.
type Blocks struct {
	// Blocks are the BlockName= lines in file order (Slurm's block index).
	Blocks []Block
	// Sizes are the BlockSizes= values as written (node counts); nil when the file
	// has no BlockSizes= line. SizesLine is its line.
	Sizes     []int
	SizesLine int
	// Base is Slurm's base block node count (bblock_node_cnt): the first BlockSizes
	// value, else the node count of the first block that has Nodes=. It need not be
	// the size of any block (topology.conf(5)'s example has blocks of 32 nodes and
	// BlockSizes=30,120); it only turns job sizes into levels.
	Base int
	// Levels has bit l set when aggregation level l (2^l base blocks, 2^l*Base
	// nodes) is allowed: the levels of Sizes, or levels 0 to 4 without BlockSizes=.
	Levels uint16
}

// Block is one BlockName= line.
type Block struct {
	Name string
	Line int
	// Nodes are the expanded Nodes= in the file's order (Slurm keeps only the set: a
	// block's nodes are taken in node-index order); empty for a block without Nodes=
	// (Slurm accepts it as an empty block).
	Nodes []string
}

// LevelAllowed reports whether aggregation level l is allowed (Levels).
func (b *Blocks) LevelAllowed(l int) bool {
	return l >= 0 && l <= MaxBlockLevel && b.Levels&(1<<l) != 0
}

// blockRec is a block as read, before Slurm's rules resolve it.
type blockRec struct {
	name  string
	line  int
	nodes []string
}

// newBlocks applies Slurm's rules (block_record.c of Slurm 26.05,
// block_record_validate) to the blocks and block sizes read from a file: sizes nil
// when the file gives none. Errors are what slurmctld refuses at startup (fatal): no
// block, a block without a name or defined twice, no node in any block and no
// BlockSizes (Slurm cannot size the base block). No node in any block with
// BlockSizes is accepted with Slurm's warning, through warn: slurmctld starts
// ("Blocks do not contain any nodes") and, as no job's candidate nodes then meet a
// block, topology_block.c's topology_p_eval_nodes skips eval_nodes_block for every
// job and the common selection places it (alloc's slurm:block does the same: every
// job as slurm:consec places it).
func newBlocks(recs []blockRec, sizes []int, sizesLine int, warn func(string)) (*Blocks, error) {
	if len(recs) == 0 {
		return nil, fmt.Errorf("no BlockName= lines (Slurm: \"No blocks configured\")")
	}
	b := &Blocks{Sizes: sizes, SizesLine: sizesLine}
	seen := map[string]int{}
	for _, r := range recs {
		if r.name == "" {
			return nil, fmt.Errorf("line %d: a block without a name", r.line)
		}
		if prev, dup := seen[r.name]; dup {
			return nil, fmt.Errorf("line %d: block %s already defined on line %d", r.line, r.name, prev)
		}
		seen[r.name] = r.line
		b.Blocks = append(b.Blocks, Block{Name: r.name, Line: r.line, Nodes: r.nodes})
	}
	anyNodes := false
	for _, blk := range b.Blocks {
		anyNodes = anyNodes || len(blk.Nodes) > 0
	}
	if b.Sizes != nil {
		if !anyNodes {
			// block_record.c, block_record_validate: warning("Blocks do not contain any nodes").
			warn(fmt.Sprintf("line %d: no block has nodes (Nodes=); Slurm accepts it (\"Blocks do not contain any nodes\") and places every job without the blocks, as slurm:consec does", sizesLine))
		}
		b.Base = b.Sizes[0]
		for _, s := range b.Sizes {
			b.Levels |= 1 << blockLevel(s/b.Base)
		}
	} else {
		b.Levels = 1<<5 - 1 // levels 0-4: bit_nset(block_levels, 0, 4)
		for _, blk := range b.Blocks {
			if len(blk.Nodes) > 0 {
				b.Base = distinctCount(blk.Nodes)
				break
			}
		}
		if b.Base == 0 {
			return nil, fmt.Errorf("no block has nodes and there is no BlockSizes= (Slurm: \"Blocks do not contain any nodes and the BlockSizes are not set\")")
		}
	}
	return b, nil
}

// checkBlockSizes checks block sizes as block_record.c does (_read_topo_file for
// topology.conf, _list_to_bitmap for topology.yaml): every value positive, a
// multiple of the first (the base block size), a power-of-two multiple of it, at most
// 2^15 times it; at least one value.
func checkBlockSizes(vals []int) error {
	if len(vals) == 0 {
		return fmt.Errorf("no sizes")
	}
	base := vals[0]
	for _, n := range vals {
		if n <= 0 {
			return fmt.Errorf("%d is not a positive integer", n)
		}
		if n%base != 0 {
			return fmt.Errorf("%d is not a multiple of the base block size %d (the first value)", n, base)
		}
		r := n / base
		if r&(r-1) != 0 {
			return fmt.Errorf("%d is not a power-of-two multiple of the base block size %d", n, base)
		}
		if blockLevel(r) > MaxBlockLevel {
			return fmt.Errorf("%d is more than 2^%d base blocks of %d", n, MaxBlockLevel, base)
		}
	}
	return nil
}

// parseBlockSizes reads topology.conf's BlockSizes=S1,S2,... as Slurm does: fields
// split at commas, empty fields skipped (strtok), each read with C's atoi (leading
// blanks, a sign, the leading digits; "8x" is 8 and "x" is 0). A value whose text is
// more than its number is returned in odd for a warning.
func parseBlockSizes(v string) (vals []int, odd []string, err error) {
	for _, s := range strings.Split(v, ",") {
		if s == "" {
			continue
		}
		n, exact := atoi(s)
		if !exact {
			odd = append(odd, s)
		}
		if n <= 0 {
			return nil, nil, fmt.Errorf("%q is not a positive integer", s)
		}
		vals = append(vals, n)
	}
	if err := checkBlockSizes(vals); err != nil {
		return nil, nil, err
	}
	return vals, odd, nil
}

// atoi is C's atoi on s, saturating instead of overflowing; exact reports that s is
// nothing but the number.
func atoi(s string) (n int, exact bool) {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	start := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		if n < 1<<40 {
			n = n*10 + int(s[i]-'0')
		}
		i++
	}
	if neg {
		n = -n
	}
	return n, i == len(s) && i > start && start == 0
}

// blockLevel returns log2(r) for a power of two r.
func blockLevel(r int) int {
	l := 0
	for r > 1 {
		r >>= 1
		l++
	}
	return l
}

func distinctCount(names []string) int {
	set := make(map[string]struct{}, len(names))
	for _, n := range names {
		set[n] = struct{}{}
	}
	return len(set)
}
