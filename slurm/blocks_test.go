package slurm

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/internal/timelimit"
)

func TestParseBlocks(t *testing.T) {
	conf := `# blocks
BlockName=b1 Nodes=node[01-04]
blockname=b2   nodes=node08,node[05-07]  # out of order
BlockName=empty
BlockName=b3 Nodes=node[09-12]
BlockSizes=4,16,8
`
	b, err := ParseBlocks(strings.NewReader(conf))
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Blocks) != 4 || b.Blocks[1].Name != "b2" || b.Blocks[1].Line != 3 || b.Blocks[2].Name != "empty" || len(b.Blocks[2].Nodes) != 0 {
		t.Fatalf("blocks: %+v", b.Blocks)
	}
	if !slices.Equal(b.Blocks[1].Nodes, []string{"node08", "node05", "node06", "node07"}) {
		t.Errorf("b2 nodes %v: want the file's order", b.Blocks[1].Nodes)
	}
	if !slices.Equal(b.Sizes, []int{4, 16, 8}) || b.SizesLine != 6 || b.Base != 4 {
		t.Errorf("sizes %v line %d base %d", b.Sizes, b.SizesLine, b.Base)
	}
	// 4, 8, 16 nodes: levels 0, 1, 2 (the order of BlockSizes after the first does not
	// matter).
	for l := -1; l <= MaxBlockLevel+1; l++ {
		if want := l >= 0 && l <= 2; b.LevelAllowed(l) != want {
			t.Errorf("level %d allowed: %v, want %v", l, b.LevelAllowed(l), want)
		}
	}

	// Without BlockSizes: levels 0-4 (bit_nset(0, 4)), the base from the first block
	// that has nodes; topology.conf(5)'s example: a base (30) that is no block's size.
	b, err = ParseBlocks(strings.NewReader("BlockName=e\nBlockName=a Nodes=n[1-3],n2\nBlockName=b Nodes=n[4-9]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if b.Sizes != nil || b.Base != 3 || b.Levels != 0x1f {
		t.Errorf("default: sizes %v base %d levels %#x, want nil 3 0x1f", b.Sizes, b.Base, b.Levels)
	}
	b, err = ParseBlocks(strings.NewReader("BlockName=block1 Nodes=node[01-32]\nBlockName=block2 Nodes=node[33-64]\nBlockSizes=30,120\n"))
	if err != nil {
		t.Fatal(err)
	}
	if b.Base != 30 || b.Levels != 1|1<<2 {
		t.Errorf("30,120: base %d levels %#x, want 30 0x5", b.Base, b.Levels)
	}
}

func TestParseBlocksErrors(t *testing.T) {
	cases := []struct{ conf, want string }{
		{"", "no SwitchName=, BlockName= or RingName= lines"},
		{"# nothing\n\n", "no SwitchName=, BlockName= or RingName= lines"},
		{"BlockSizes=4\nBlockName=a Nodes=n1\nBlockSizes=4x\nBlockSizes=x\n", "line 4: BlockSizes=x: \"x\" is not a positive integer"},
		{"BlockSizes=4\n", "no BlockName"},
		{"BlockName=a Nodes=n[1-4]\nBlockName=a Nodes=n[5-8]\n", "line 2: block a already defined on line 1"},
		// Slurm's pattern allows spaces after '=': a block named "Nodes=n1", no nodes.
		{"BlockName= Nodes=n1\n", "no block has nodes"},
		{"Nodes=n1\n", "line 1: a line starts with SwitchName= (topology/tree), BlockName= or BlockSizes= (topology/block; BlockLevels= in Slurm 23.11) or RingName= (topology/ring, Slurm 26.05), not Nodes="},
		{"BlockName=a Nodes=n[1-4]\nBlockSizes=4,12\n", "line 2: BlockSizes=4,12: 12 is not a power-of-two multiple"},
		{"BlockName=a Nodes=n[1-4]\nBlockSizes=4,6\n", "line 2: BlockSizes=4,6: 6 is not a multiple"},
		{"BlockName=a Nodes=n[1-4]\nBlockSizes=8,4\n", "4 is not a multiple of the base block size 8"},
		{"BlockName=a Nodes=n[1-4]\nBlockSizes=4,0\n", "\"0\" is not a positive integer"},
		{"BlockName=a Nodes=n[1-4]\nBlockSizes=4,-8\n", "is not a positive integer"},
		{"BlockName=a Nodes=n[1-4]\nBlockSizes=x4\n", "\"x4\" is not a positive integer"},
		{"BlockName=a Nodes=n[1-4]\nBlockSizes=\n", "line 2: BlockSizes= has no value"},
		{"BlockName=a Nodes=n[1-4]\nBlockSizes=,\n", "line 2: BlockSizes=,: no sizes"},
		{"BlockName=a Nodes=n[1-4]\nBlockSizes=1,65536\n", "more than 2^15"},

		{"BlockName=a Nodes=n[1-4] BlockSizes=4\n", "line 1: BlockSizes= on a block's line"},
		{"BlockName=a\nBlockName=b\n", "no block has nodes"},
		{"BlockName=a\nBlockName=b Nodes=\n", "line 2: Nodes= has no value"},
		{"BlockName=a Nodes=n[1-\n", "line 1: Nodes=n[1-"},

		{"BlockName=a BlockName=b\n", "line 1: two BlockName="},
		{"SwitchName=s Nodes=n1\n", "a topology/tree configuration, not topology/block"},
		{"BlockName=a Nodes=n1\nSwitchName=s Nodes=n1\n", "line 2: SwitchName lines mixed with BlockName/BlockSizes (line 1 is topology/block)"},
		{"BlockName=a Nodes=n1 LinkSpeed=4\n", "topology/tree"},
		{"BlockName=a Nodes=n1 Weight=4\n", "line 1: unknown key \"Weight\""},
		{"BlockSizes=4 BlockName=a\n", "line 1: BlockName= after BlockSizes="},
		{"BlockName=a Nodes=n1 x\n", "line 1: \"x\" is not KEY=VALUE"},
	}
	for _, c := range cases {
		_, err := ParseBlocks(strings.NewReader(c.conf))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want an error containing %q", c.conf, err, c.want)
		}
	}
	// 2^15 base blocks is the largest level.
	b, err := ParseBlocks(strings.NewReader("BlockName=a Nodes=n1\nBlockSizes=1,32768\n"))
	if err != nil || !b.LevelAllowed(15) {
		t.Errorf("BlockSizes=1,32768: %v", err)
	}
}

// WriteBlock's output reads back as blocks in ordering order, BlockSizes doubling.
func TestParseBlocksWriteBlock(t *testing.T) {
	o := curves.Order{5, 2, 7, 0, 1, 3, 6, 4}
	var buf bytes.Buffer
	if err := WriteBlock(&buf, o, nil, 2); err != nil {
		t.Fatal(err)
	}
	b, err := ParseBlocks(&buf)
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	if len(b.Blocks) != 4 || b.Base != 2 || b.Levels != 0b111 {
		t.Fatalf("%d blocks, base %d, levels %#b", len(b.Blocks), b.Base, b.Levels)
	}
	for i, blk := range b.Blocks {
		want := []string{fmt.Sprint(o[2*i]), fmt.Sprint(o[2*i+1])}
		got := slices.Clone(blk.Nodes)
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("block %d: %v, want %v", i, got, want)
		}
	}
}

func FuzzParseBlocks(f *testing.F) {
	f.Add("BlockName=b1 Nodes=n[1-4]\nBlockName=b2 Nodes=n[5-8]\nBlockSizes=4,8\n")
	f.Add("BlockName=b1 Nodes=n[1-3]\nBlockName=e\n")
	f.Add("BlockName=b1 Nodes=n1\nBlockSizes=30,120,60\n")
	f.Add("blockname=x nodes=a,b # c\nBLOCKSIZES=,2,,4\n")
	f.Add("BlockName=b1 Nodes=n[1-4]\nBlockName=b2 Nodes=n[5-8]\nBlockLevels=0-1,3\n")
	f.Add("BlockName=b1 Nodes=n[1-2]\nBlockLevels=0-9:3\nblocklevels=x,,2-1\n")
	f.Fuzz(func(t *testing.T, conf string) {
		b, err := ParseBlocks(strings.NewReader(conf))
		if err != nil {
			if b != nil {
				t.Fatal("a result with an error")
			}
			return
		}
		if len(b.Blocks) == 0 || b.Base < 1 || !b.LevelAllowed(0) {
			t.Fatalf("%d blocks, base %d, levels %#x", len(b.Blocks), b.Base, b.Levels)
		}
		names := map[string]bool{}
		for _, blk := range b.Blocks {
			if blk.Name == "" || names[blk.Name] || blk.Line < 1 {
				t.Fatalf("block %+v", blk)
			}
			names[blk.Name] = true
		}
		if b.Sizes != nil {
			if b.Sizes[0] != b.Base || b.SizesLine < 1 {
				t.Fatalf("sizes %v base %d line %d", b.Sizes, b.Base, b.SizesLine)
			}
			for _, s := range b.Sizes {
				r := s / b.Base
				if s%b.Base != 0 || r&(r-1) != 0 || !b.LevelAllowed(blockLevel(r)) {
					t.Fatalf("size %d of %v not an allowed level", s, b.Sizes)
				}
			}
		} else if b.LevelsLine > 0 {
			// Slurm 23.11: every block has the first one's node count.
			for _, blk := range b.Blocks {
				if distinctCount(blk.Nodes) != b.Base {
					t.Fatalf("BlockLevels: block %+v, base %d", blk, b.Base)
				}
			}
		} else if b.Levels != 0x1f {
			t.Fatalf("no BlockSizes or BlockLevels, levels %#x", b.Levels)
		}
		// What was read is written back (writeConf, as WriteBlock writes) as a file
		// that reads as the same blocks, sizes, base and levels.
		var buf bytes.Buffer
		if err := b.writeConf(&buf, &timelimit.Looker{Ctx: context.Background()}); err != nil {
			t.Fatalf("%q parsed but not written: %v", conf, err)
		}
		written := buf.String()
		back, err := ParseBlocks(&buf)
		if err != nil {
			t.Fatalf("%q written as %q, which does not read back: %v", conf, written, err)
		}
		if len(back.Blocks) != len(b.Blocks) || !slices.Equal(back.Sizes, b.Sizes) || back.Base != b.Base || back.Levels != b.Levels || (back.LevelsLine > 0) != (b.LevelsLine > 0) {
			t.Fatalf("%q written as %q reads back as %+v, want %+v", conf, written, back, b)
		}
		for i, blk := range b.Blocks {
			if back.Blocks[i].Name != blk.Name || !slices.Equal(back.Blocks[i].Nodes, blk.Nodes) {
				t.Fatalf("%q written as %q: block %d reads back as %+v, want %+v", conf, written, i, back.Blocks[i], blk)
			}
		}
	})
}

// Slurm 23.11's BlockLevels= (topology_block.c of 23.11.11, read with bit_unfmt)
// lists aggregation levels where 24.05 on list sizes: level l is 2^l base blocks,
// the base block being the first block's node count. Levels 0-2 on blocks of 4
// nodes are sizes 4, 8, 16: the same Base and Levels as BlockSizes=4,8,16.
func TestParseBlockLevels(t *testing.T) {
	const blocks = "BlockName=b1 Nodes=node[01-04]\nblockname=b2 nodes=node[05-08]\n"
	b, err := ParseBlocks(strings.NewReader(blocks + "BlockLevels=0-2\n"))
	if err != nil {
		t.Fatal(err)
	}
	var sizes []int
	for l := 0; l <= MaxBlockLevel; l++ {
		if b.LevelAllowed(l) {
			sizes = append(sizes, b.Base<<l)
		}
	}
	if !slices.Equal(sizes, []int{4, 8, 16}) || b.Sizes != nil || b.LevelsLine != 3 {
		t.Errorf("BlockLevels=0-2 on blocks of 4: sizes %v (Sizes %v, line %d), want 4, 8, 16", sizes, b.Sizes, b.LevelsLine)
	}
	b2405, err := ParseBlocks(strings.NewReader(blocks + "BlockSizes=4,8,16\n"))
	if err != nil {
		t.Fatal(err)
	}
	if b.Base != b2405.Base || b.Levels != b2405.Levels {
		t.Errorf("BlockLevels=0-2: base %d levels %#x; BlockSizes=4,8,16: base %d levels %#x", b.Base, b.Levels, b2405.Base, b2405.Levels)
	}

	// bit_unfmt's reading (bitstring.c of 23.11.11, bitfmt2int and inx2bitstr).
	cases := []struct {
		v      string
		levels uint16
		odd    bool
	}{
		{"0", 0x1, false},
		{"0-1,2", 0x7, false}, // topology.conf(5) of 23.11's example
		{"0,2,4", 0x15, false},
		{"0-15", 0xffff, false},
		{"2,0-1,1", 0x7, false},
		{"0,4-2", 0x1, false},    // a range whose end is below its start sets nothing
		{"3,,1", 0xb, false},     // an empty field is level 0
		{"0,", 0x1, false},       // the final ',' ends a field of 0: level 0 again
		{"1-2-3,0", 0xd, false},  // a second '-' starts the range again: 2-3
		{"0-x2", 0x7, true},      // other characters are skipped
		{`"0 - 3"`, 0xf, true},   // blanks too (a quoted value)
		{"0-6:2", 0x15, false},   // A-B:S: A, A+S, ... below B
		{"0-1:1", 0x1, false},    // B itself excluded
		{" +0-3:2", 0x5, false},  // strtol: blanks and a sign
		{"0-16:8", 0x101, false}, // 0, 8 (0-17:8 reaches 16: refused)
	}
	for _, c := range cases {
		b, err := ParseTopologyConf(strings.NewReader(blocks + "BlockLevels=" + c.v + "\n"))
		if err != nil {
			t.Errorf("BlockLevels=%s: %v", c.v, err)
			continue
		}
		if b.Blocks.Levels != c.levels || b.Blocks.Base != 4 || (len(b.Warnings) > 0) != c.odd {
			t.Errorf("BlockLevels=%s: levels %#x base %d warnings %q, want %#x, 4, a warning %v", c.v, b.Blocks.Levels, b.Blocks.Base, b.Warnings, c.levels, c.odd)
		}
	}

	// Given twice: Slurm uses the last, even when the first is invalid.
	top, err := ParseTopologyConf(strings.NewReader(blocks + "BlockLevels=0-20\nBlockLevels=0,3\n"))
	if err != nil || top.Blocks.Levels != 0x9 || len(top.Warnings) != 1 || !strings.Contains(top.Warnings[0], "line 4: BlockLevels= given again (first on line 3)") {
		t.Errorf("BlockLevels twice: %v %+v", err, top)
	}
}

func TestParseBlockLevelsErrors(t *testing.T) {
	const blocks = "BlockName=a Nodes=n[1-4]\nBlockName=b Nodes=n[5-8]\n"
	cases := []struct{ conf, want string }{
		{blocks + "BlockLevels=0-16\n", `line 3: BlockLevels=0-16: level 16 is more than 15 (16 levels) (Slurm 23.11: "Invalid BlockLevels", fatal)`},
		{blocks + "BlockLevels=0,99999999999999\n", "line 3: BlockLevels=0,99999999999999: level"},
		{blocks + "BlockLevels=1-3\n", "line 3: BlockLevels=1-3: level 0 (one base block) is not set (levels: 1-3)"},
		{blocks + "BlockLevels=,0\n", "line 3: BlockLevels=,0: level 0 (one base block) is not set (levels: none)"},
		{blocks + "BlockLevels=2-1\n", "level 0 (one base block) is not set"},
		{blocks + "BlockLevels=0-4:0\n", "line 3: BlockLevels=0-4:0: the end 4 is below the start 0 or the step 0 is not positive"},
		{blocks + "BlockLevels=4-0:1\n", "the end 0 is below the start 4"},
		{blocks + "BlockLevels=0-x:1\n", "line 3: BlockLevels=0-x:1: want A-B:STEP"},
		{blocks + "BlockLevels=0-4:1x\n", "want A-B:STEP"},
		{blocks + "BlockLevels=0:1\n", "want A-B:STEP"},
		{blocks + "BlockLevels=0-17:1\n", "level 16 is more than 15"},
		{blocks + "BlockLevels=0-17:8\n", "level 16 is more than 15"},
		{blocks + "BlockLevels=-3-2:1\n", "level -3 is negative"},
		{blocks + "BlockLevels=-1-2:1\n", "level 0 (one base block) is not set"}, // -1 ends inx2bitstr's list
		{blocks + "BlockLevels=\n", "line 3: BlockLevels= has no value"},
		{blocks + "BlockLevels=0-2\nBlockSizes=4,8\n", "line 3: BlockLevels= (Slurm 23.11) and BlockSizes= (line 4; Slurm 24.05 on) in one file: no Slurm reads both"},
		{"BlockSizes=4\n" + blocks + "BlockLevels=0\n", "line 4: BlockLevels= (Slurm 23.11) and BlockSizes= (line 1"},
		{"BlockName=a Nodes=n[1-4]\nBlockName=e\nBlockLevels=0\n", `line 2: block e has no Nodes=; Slurm 23.11, which reads BlockLevels=, needs them ("block e hasn't got nodes", fatal)`},
		{"BlockName=a Nodes=n[1-4]\nBlockName=b Nodes=n[5-7],n5\nBlockLevels=0\n", "line 2: block b has 3 nodes, the first block a 4; Slurm 23.11"},
		{"BlockName=a Nodes=n1\nBlockName=a Nodes=n2\nBlockLevels=0\n", "line 2: block a already defined on line 1"},
		{"BlockLevels=0\n", "no BlockName"},
		{"BlockName=a Nodes=n1 BlockLevels=0\n", "line 1: BlockLevels= on a block's line"},
		{"BlockLevels=0 Nodes=n1\n", "line 1: Nodes= after BlockLevels= (BlockLevels= takes a line of its own)"},
		{"SwitchName=s Nodes=n1 BlockLevels=0\n", "line 1: BlockLevels= is topology/block, not topology/tree"},
		{"BlockLevel=0\n", "did you mean BlockLevels?"},
	}
	for _, c := range cases {
		_, err := ParseBlocks(strings.NewReader(c.conf))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want an error containing %q", c.conf, err, c.want)
		}
	}
}
