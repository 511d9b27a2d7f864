package slurm

import (
	"fmt"
	"math"
	"strings"

	"github.com/procalloc/procalloc/internal/textin"
	"github.com/procalloc/procalloc/internal/timelimit"
)

// MaxBlockLevel is the highest aggregation level BlockSizes may name: a block of
// 2^15 base blocks (Slurm's MAX_BLOCK_LEVELS is 16; block_record.c refuses more).
const MaxBlockLevel = 15

// Blocks is a topology.conf of Slurm's topology/block plugin (Slurm >= 23.11) the way
// slurmctld holds it (src/plugins/topology/block/block_record.c of Slurm 26.05,
// _read_topo_file and block_record_validate; for a file with 23.11's BlockLevels=,
// 23.11's topology_block.c, _read_topo_file and _validate_blocks): the base blocks in
// file order, the base block size and the allowed aggregation levels. Slurm aggregates base blocks
// by their index, never by name or node: the aggregated block of level l number j
// is base blocks j*2^l .. (j+1)*2^l-1, so the order of the lines is part of the
// model. Package alloc's slurm:block emulates the selection on it.
type Blocks struct {
	// Blocks are the BlockName= lines in file order (Slurm's block index).
	Blocks []Block
	// Sizes are the BlockSizes= values as written (node counts); nil when the file
	// has no BlockSizes= line. SizesLine is its line.
	Sizes     []int
	SizesLine int // line of BlockSizes=, 0 when the file has none
	// LevelsLine is the line of BlockLevels= (Slurm 23.11's key, which 24.05
	// replaced with BlockSizes=), 0 when the file has none.
	LevelsLine int
	// Base is Slurm's base block node count (bblock_node_cnt): the first BlockSizes
	// value, else the node count of the first block that has Nodes= (with
	// BlockLevels=, Slurm 23.11: every block's node count). It need not be
	// the size of any block (topology.conf(5)'s example has blocks of 32 nodes and
	// BlockSizes=30,120); it only turns job sizes into levels.
	Base int
	// Levels has bit l set when aggregation level l (2^l base blocks, 2^l*Base
	// nodes) is allowed: the levels of Sizes, or the levels BlockLevels= lists, or
	// levels 0 to 4 without either.
	Levels uint16
}

// Block is one BlockName= line.
type Block struct {
	Name string // the BlockName= value
	Line int    // its 1-based line in the file
	// File is the included file of its line (ParseTopologyConfIncluding); "" for
	// the file itself.
	File string
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
	file  string // the included file of its line, "" for the file itself
	nodes []string
}

// newBlocks applies Slurm's rules (block_record.c of Slurm 26.05,
// block_record_validate) to the blocks and block sizes read from a file: sizes nil
// when the file gives none. A file with 23.11's BlockLevels= (levelsLine > 0, the
// levels in levels) gets 23.11's rules instead (topology_block.c of 23.11.11,
// _parse_block and _validate_blocks): every block has Nodes= and as many nodes as
// the first, which is the base block size. Errors are what slurmctld refuses at startup (fatal): no
// block, a block without a name or defined twice, no node in any block and no
// BlockSizes (Slurm cannot size the base block). No node in any block with
// BlockSizes is accepted with Slurm's warning, through warn: slurmctld starts
// ("Blocks do not contain any nodes") and, as no job's candidate nodes then meet a
// block, topology_block.c's topology_p_eval_nodes skips eval_nodes_block for every
// job and the common selection places it (alloc's slurm:block does the same: every
// job as slurm:consec places it). It looks at look's context every few thousand
// blocks and names, returning its cause when it has ended.
func newBlocks(recs []blockRec, sizes []int, sizesLine int, sizesAt string, levels uint16, levelsLine int, levelsAt string, warn func(string), look *timelimit.Looker) (*Blocks, error) {
	if len(recs) == 0 {
		return nil, fmt.Errorf("no BlockName= lines (Slurm: \"No blocks configured\")")
	}
	if levelsLine > 0 {
		if sizes != nil {
			return nil, fmt.Errorf("%s: BlockLevels= (Slurm 23.11) and BlockSizes= (%s; Slurm 24.05 on) in one file: no Slurm reads both (23.11 does not know BlockSizes, 24.05 on do not know BlockLevels: \"Parsing error at unrecognized key\", fatal)", levelsAt, sizesAt)
		}
		return newBlocks2311(recs, levels, levelsLine, look)
	}
	b := &Blocks{Sizes: sizes, SizesLine: sizesLine}
	seen := map[string]string{}
	for _, r := range recs {
		if err := look.Stopped(1); err != nil {
			return nil, err
		}
		if err := checkBlockName(r, seen); err != nil {
			return nil, err
		}
		b.Blocks = append(b.Blocks, Block{Name: r.name, Line: r.line, File: r.file, Nodes: r.nodes})
	}
	anyNodes := false
	for _, blk := range b.Blocks {
		anyNodes = anyNodes || len(blk.Nodes) > 0
	}
	if b.Sizes != nil {
		if !anyNodes {
			// block_record.c, block_record_validate: warning("Blocks do not contain any nodes").
			warn(fmt.Sprintf("%s: no block has nodes (Nodes=); Slurm accepts it (\"Blocks do not contain any nodes\") and places every job without the blocks, as slurm:consec does", sizesAt))
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

// checkBlockName refuses a block without a name or with the name of a block before
// it (seen: the names so far and where their lines are, to which r's is added); every
// release's block plugin does.
func checkBlockName(r blockRec, seen map[string]string) error {
	if r.name == "" {
		return fmt.Errorf("%s: a block without a name", LineRef(r.file, r.line))
	}
	if prev, dup := seen[r.name]; dup {
		return fmt.Errorf("%s: block %s already defined on %s", LineRef(r.file, r.line), r.name, prev)
	}
	seen[r.name] = LineRef(r.file, r.line)
	return nil
}

// newBlocks2311 applies Slurm 23.11's rules to a file with BlockLevels=
// (src/plugins/topology/block/topology_block.c of 23.11.11: _parse_block refuses a
// block without Nodes=, _validate_blocks a name given twice and a block whose node
// count is not the first block's, bblock_node_cnt). Node counts are of distinct
// names: Slurm counts the names slurm.conf defines, which procalloc does not know here.
func newBlocks2311(recs []blockRec, levels uint16, levelsLine int, look *timelimit.Looker) (*Blocks, error) {
	b := &Blocks{Levels: levels, LevelsLine: levelsLine}
	seen := map[string]string{}
	for _, r := range recs {
		if err := look.Stopped(1 + len(r.nodes)); err != nil { // distinctCount goes over the nodes
			return nil, err
		}
		if err := checkBlockName(r, seen); err != nil {
			return nil, err
		}
		if len(r.nodes) == 0 {
			return nil, fmt.Errorf("%s: block %s has no Nodes=; Slurm 23.11, which reads BlockLevels=, needs them (\"block %s hasn't got nodes\", fatal)", LineRef(r.file, r.line), r.name, r.name)
		}
		n := distinctCount(r.nodes)
		if b.Base == 0 {
			b.Base = n
		} else if n != b.Base {
			return nil, fmt.Errorf("%s: block %s has %d nodes, the first block %s %d; Slurm 23.11, which reads BlockLevels=, needs every block of the first one's size (\"children count no equal bblock_node_cnt\", fatal)", LineRef(r.file, r.line), r.name, n, recs[0].name, b.Base)
		}
		b.Blocks = append(b.Blocks, Block{Name: r.name, Line: r.line, File: r.file, Nodes: r.nodes})
	}
	return b, nil
}

// parseBlockLevels reads Slurm 23.11's BlockLevels= as topology_block.c does:
// bit_unfmt into a bitmap of 16 levels (src/common/bitstring.c of 23.11.11,
// bitfmt2int and inx2bitstr). Without ':' the value is ranges "A-B" and single levels
// joined by commas; any other character is skipped (odd reports one was), a field
// ends at ',' and an empty field is level 0, except that a leading ',' ends the list
// (no levels); a range whose end is below its start sets nothing. With ':' it is
// "A-B:S", levels A, A+S, ... up to but not including B (the loop's "i <
// end_task_id"), read with strtol; B < A or S <= 0 is invalid. A level above 15
// makes the whole value invalid ("Invalid BlockLevels", fatal); so does a number too
// long for Slurm's int32 (procalloc does not model C's overflow). Level 0 missing
// is refused too: slurmctld 23.11 starts, but its selection (select/cons_tres
// job_test.c, eval_nodes_block) then finds no lower level for a job of more than
// one base block (bit_fls_from_bit gives -1, which it asserts against and shifts
// by), so procalloc cannot say what Slurm does.
func parseBlockLevels(v string) (levels uint16, odd bool, err error) {
	if i := strings.IndexByte(v, 0); i >= 0 {
		v = v[:i] // a C string
	}
	set := func(a, b int) error {
		if a > MaxBlockLevel || b > MaxBlockLevel {
			return fmt.Errorf("level %d is more than %d (16 levels)", max(a, b), MaxBlockLevel)
		}
		for l := a; l <= b; l++ {
			levels |= 1 << l
		}
		return nil
	}
	const tooBig = 1 << 31
	if !strings.Contains(v, ":") {
		sum, start := 0, -1
	scan:
		for i := 0; i <= len(v); i++ {
			switch {
			case i < len(v) && v[i] >= '0' && v[i] <= '9':
				if sum < tooBig {
					sum = sum*10 + int(v[i]-'0')
				}
			case i < len(v) && v[i] == '-':
				start, sum = sum, 0
			case i == len(v) || v[i] == ',':
				if i == 0 {
					break scan
				}
				if start == -1 {
					start = sum
				}
				if err := set(start, sum); err != nil {
					return 0, false, err
				}
				start, sum = -1, 0
			default:
				odd = true
			}
		}
	} else {
		a, rest, ok := strtol(v)
		if !ok || !strings.HasPrefix(rest, "-") {
			return 0, false, fmt.Errorf("want A-B:STEP")
		}
		b, rest, ok := strtol(rest[1:])
		if !ok || !strings.HasPrefix(rest, ":") {
			return 0, false, fmt.Errorf("want A-B:STEP")
		}
		step, rest, ok := strtol(rest[1:])
		if !ok || rest != "" {
			return 0, false, fmt.Errorf("want A-B:STEP")
		}
		if b < a || step <= 0 {
			return 0, false, fmt.Errorf("the end %d is below the start %d or the step %d is not positive", b, a, step)
		}
		if max(a, b, step) >= tooBig || min(a, b) <= -tooBig {
			return 0, false, fmt.Errorf("a number out of Slurm's int32 range")
		}
		for l := a; l < b; l += step {
			if l == -1 {
				break // inx2bitstr's end marker
			}
			if l < 0 {
				return 0, false, fmt.Errorf("level %d is negative", l)
			}
			if err := set(l, l); err != nil {
				return 0, false, err
			}
		}
	}
	if levels&1 == 0 {
		have := formatLevels(levels)
		if have == "" {
			have = "none"
		}
		return 0, false, fmt.Errorf("level 0 (one base block) is not set (levels: %s); Slurm 23.11 starts, but its block selection then finds no lower level for a job of more than one base block (bit_fls_from_bit gives -1), so procalloc refuses it", have)
	}
	return levels, odd, nil
}

// strtol is C's strtol in base 10 on s (a 64-bit long): leading white space, a
// sign, digits (saturating at math.MaxInt64 and math.MinInt64, as strtol does on
// overflow); rest is what follows, ok false when there is no digit (rest is then
// s, as C sets endptr).
func strtol(s string) (n int, rest string, ok bool) {
	i := 0
	for i < len(s) && isConfSpace(s[i]) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	start := i
	over := false
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		d := int(s[i] - '0')
		if n > (math.MaxInt64-d)/10 {
			over = true
		} else {
			n = n*10 + d
		}
		i++
	}
	if i == start {
		return 0, s, false
	}
	switch {
	case over && neg:
		n = math.MinInt64
	case over:
		n = math.MaxInt64
	case neg:
		n = -n
	}
	return n, s[i:], true
}

// formatLevels writes a level set as Slurm's bit_fmt does ("0-2,5"); "" for none.
func formatLevels(levels uint16) string {
	var parts []string
	for l := 0; l <= MaxBlockLevel; l++ {
		if levels&(1<<l) == 0 {
			continue
		}
		e := l
		for e < MaxBlockLevel && levels&(1<<(e+1)) != 0 {
			e++
		}
		if e == l {
			parts = append(parts, fmt.Sprint(l))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", l, e))
		}
		l = e
	}
	return strings.Join(parts, ",")
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
			return nil, nil, fmt.Errorf("%q is not a positive integer", textin.Clip(s))
		}
		vals = append(vals, n)
	}
	if err := checkBlockSizes(vals); err != nil {
		return nil, nil, err
	}
	return vals, odd, nil
}

// atoi is glibc's atoi on s: (int) strtol(s, NULL, 10), strtol saturating at the
// 64-bit long's limits and the cast keeping the low 32 bits (GCC), so that
// "4294967297" is 1 and a number past 2^63 is -1, as slurmctld reads them. exact
// reports that s is nothing but the number (no white space, no sign) and that the
// cast kept it.
func atoi(s string) (n int, exact bool) {
	l, rest, ok := strtol(s)
	n = int(int32(l))
	return n, ok && rest == "" && s[0] >= '0' && s[0] <= '9' && n == l
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
