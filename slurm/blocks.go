package slurm

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/procalloc/procalloc/internal/textin"
	"github.com/procalloc/procalloc/topo/hostlist"
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
// model; ReadTopologyConf, which builds a network graph, does not keep it. Package
// alloc's slurm:block emulates the selection on it.
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

// ParseBlocks reads a block topology.conf: lines "BlockName=B [Nodes=HOSTLIST]" and
// at most one "BlockSizes=S1,S2,...", keys in any case, '#' comments. Errors name
// the line; they are what slurmctld refuses at startup (fatal): a block defined
// twice or without a name, a BlockSizes value that is not a positive integer, not a
// multiple of the first value, not a power-of-two multiple of it or more than 2^15
// times it, no block at all, no node in any block and no BlockSizes; and keys the
// block plugin's parser does not know (SwitchName= lines are topology/tree).
// procalloc is stricter than Slurm in two places, to catch typos: a BlockSizes value
// with trailing characters (Slurm's atoi reads "8x" as 8) and a second BlockSizes=
// line are errors. Hostlists are read as Slurm reads them (topo/hostlist). A node in
// two blocks is accepted, as Slurm accepts it.
func ParseBlocks(r io.Reader) (*Blocks, error) {
	b := &Blocks{}
	seen := map[string]int{}
	ls := textin.NewLines(r)
	for ls.Next() {
		line, fields := ls.Line(), ls.Fields()
		var blk Block
		blk.Line = line
		named, hasNodes, sizes := false, false, false
		for _, f := range fields {
			k, v, ok := strings.Cut(f, "=")
			if !ok {
				return nil, fmt.Errorf("topology.conf line %d: %q is not KEY=VALUE", line, f)
			}
			switch strings.ToLower(k) {
			case "blockname":
				if named {
					return nil, fmt.Errorf("topology.conf line %d: two BlockName= on one line", line)
				}
				named, blk.Name = true, v
			case "nodes":
				if hasNodes {
					return nil, fmt.Errorf("topology.conf line %d: two Nodes= on one line", line)
				}
				hasNodes = true
				if v == "" {
					continue
				}
				var err error
				if blk.Nodes, err = hostlist.Expand(v); err != nil {
					return nil, fmt.Errorf("topology.conf line %d: Nodes=%s: %w", line, v, err)
				}
			case "blocksizes":
				if b.SizesLine != 0 || sizes {
					first := b.SizesLine
					if first == 0 {
						first = line
					}
					return nil, fmt.Errorf("topology.conf line %d: BlockSizes= given again (first on line %d)", line, first)
				}
				sizes = true
				vals, err := parseBlockSizes(v)
				if err != nil {
					return nil, fmt.Errorf("topology.conf line %d: BlockSizes=%s: %w", line, v, err)
				}
				b.Sizes, b.SizesLine = vals, line
			case "switchname", "switches", "linkspeed":
				return nil, fmt.Errorf("topology.conf line %d: %s= is topology/tree, not topology/block", line, k)
			default:
				return nil, fmt.Errorf("topology.conf line %d: unknown key %q (want BlockName, Nodes, BlockSizes)", line, k)
			}
		}
		switch {
		case sizes && (named || hasNodes):
			return nil, fmt.Errorf("topology.conf line %d: BlockSizes= on a block's line (give it a line of its own)", line)
		case sizes:
			continue
		case !named:
			return nil, fmt.Errorf("topology.conf line %d: Nodes= without BlockName=", line)
		case blk.Name == "":
			return nil, fmt.Errorf("topology.conf line %d: a block without a name (BlockName=)", line)
		}
		if prev, dup := seen[blk.Name]; dup {
			return nil, fmt.Errorf("topology.conf line %d: block %s already defined on line %d", line, blk.Name, prev)
		}
		seen[blk.Name] = line
		b.Blocks = append(b.Blocks, blk)
	}
	if err := ls.Err(); err != nil {
		return nil, fmt.Errorf("topology.conf: %w", err)
	}
	if len(b.Blocks) == 0 {
		return nil, fmt.Errorf("topology.conf: no BlockName= lines (Slurm: no blocks configured)")
	}
	if b.Sizes != nil {
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
			return nil, fmt.Errorf("topology.conf: no block has nodes and there is no BlockSizes= (Slurm cannot size the base block)")
		}
	}
	return b, nil
}

// parseBlockSizes checks BlockSizes as block_record.c's _read_topo_file does: every
// value a positive integer, a multiple of the first, a power-of-two multiple, at most
// 2^15 times the first.
func parseBlockSizes(v string) ([]int, error) {
	var out []int
	for _, s := range strings.Split(v, ",") {
		if s == "" {
			continue // strtok skips empty fields
		}
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("%q is not a positive integer", s)
		}
		if len(out) > 0 {
			base := out[0]
			if n%base != 0 {
				return nil, fmt.Errorf("%d is not a multiple of the base block size %d (the first value)", n, base)
			}
			r := n / base
			if r&(r-1) != 0 {
				return nil, fmt.Errorf("%d is not a power-of-two multiple of the base block size %d", n, base)
			}
			if blockLevel(r) > MaxBlockLevel {
				return nil, fmt.Errorf("%d is more than 2^%d base blocks of %d", n, MaxBlockLevel, base)
			}
		}
		out = append(out, n)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no sizes")
	}
	return out, nil
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
