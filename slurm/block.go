package slurm

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/internal/timelimit"
	"github.com/procalloc/procalloc/topo/hostlist"
)

// BlockSizes returns Slurm's BlockSizes for n nodes cut into blocks of base nodes:
// base, 2 base, 4 base, ... up to the largest power-of-two multiple of base that n
// holds, at most 2^15 base (Slurm's block_record.c refuses BlockSizes of more than
// 2^15 blocks: "Invalid BlockSizes value").
func BlockSizes(n, base int) []int {
	var out []int
	for s, level := base, 0; s <= n && s > 0 && level <= 15; s, level = s*2, level+1 {
		out = append(out, s)
	}
	return out
}

// WriteBlock writes a topology.conf for topology/block whose blocks are the
// ordering's consecutive runs of size nodes (block i holds ranks i*size ..
// (i+1)*size-1, nodes in rank order), one BlockName line per block in ordering order,
// then BlockSizes (BlockSizes). Slurm's block plugin (block_record.c, 26.11-rc)
// aggregates blocks by their line order, 2^k consecutive blocks aligned on their
// index, and puts a job in the smallest allowed aggregation that holds it, so blocks
// in ordering order make those aggregations runs of the ordering. Inside a block
// Slurm takes nodes in its own node order, not the order written.
// hosts names the nodes (nil: node indices). n must be a multiple of size: Slurm
// wants every block to hold at least the base size.
func WriteBlock(w io.Writer, o curves.Order, hosts []string, size int) error {
	return writeBlock(context.Background(), w, o, hosts, size, false)
}

// WriteBlockContext is WriteBlock looking at ctx every few thousand nodes and
// blocks (a block size of 2 at 196,608 nodes: 98,304 blocks, 0.5-1.1 s under
// load): a cancelled ctx returns its cause, and what was written to w is partial.
func WriteBlockContext(ctx context.Context, w io.Writer, o curves.Order, hosts []string, size int) error {
	return writeBlock(ctx, w, o, hosts, size, false)
}

// WriteBlockLevels is WriteBlock for Slurm 23.11, which knows BlockLevels= and not
// BlockSizes= (24.05 on the other way round; both refuse the other's key, fatal):
// the same blocks, then BlockLevels= listing the levels of the same sizes (level l
// is 2^l blocks).
func WriteBlockLevels(w io.Writer, o curves.Order, hosts []string, size int) error {
	return writeBlock(context.Background(), w, o, hosts, size, true)
}

// WriteBlockLevelsContext is WriteBlockLevels looking at ctx as WriteBlockContext
// does.
func WriteBlockLevelsContext(ctx context.Context, w io.Writer, o curves.Order, hosts []string, size int) error {
	return writeBlock(ctx, w, o, hosts, size, true)
}

func writeBlock(ctx context.Context, w io.Writer, o curves.Order, hosts []string, size int, levels bool) error {
	look := timelimit.NewLooker(ctx)
	if err := look.Stopped(0); err != nil {
		return err
	}
	n := len(o)
	if err := o.Validate(n); err != nil {
		return err
	}
	if hosts != nil && len(hosts) != n {
		return fmt.Errorf("%d host names for %d nodes", len(hosts), n)
	}
	if size < 1 || size > n || n%size != 0 {
		return fmt.Errorf("block size %d: want a divisor of the %d nodes (every block holds the base size)", size, n)
	}
	var recs []blockRec
	for b := 0; b < n/size; b++ {
		if err := look.Stopped(1 + size); err != nil {
			return err
		}
		r := blockRec{name: fmt.Sprintf("b%d", b+1), line: b + 1}
		for j := range size {
			r.nodes = append(r.nodes, curves.HostName(hosts, o[b*size+j]))
		}
		recs = append(recs, r)
	}
	sizes := BlockSizes(n, size)
	if err := checkBlockSizes(sizes); err != nil {
		return fmt.Errorf("procalloc would write BlockSizes Slurm refuses: %w", err)
	}
	var blocks *Blocks
	var err error
	if levels {
		blocks, err = newBlocks2311(recs, uint16(1)<<len(sizes)-1, len(recs)+1, look)
	} else {
		blocks, err = newBlocks(recs, sizes, len(recs)+1, LineRef("", len(recs)+1), 0, 0, "", func(string) {}, look)
	}
	if err != nil && ctx.Err() != nil {
		return context.Cause(ctx)
	}
	if err != nil {
		return fmt.Errorf("procalloc would write a topology.conf Slurm refuses: %w", err)
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "# topology.conf (topology/block) written by procalloc: blocks are consecutive runs of the ordering.")
	fmt.Fprintln(bw, "# In slurm.conf: TopologyPlugin=topology/block.")
	if err := blocks.writeConf(bw, look); err != nil {
		return err
	}
	return bw.Flush()
}

// writeConf writes the BlockName lines in block order (Nodes= as a hostlist keeping
// the order of the names; none for an empty block), then BlockSizes= when the blocks
// have sizes, or BlockLevels= when they were read from it. It looks at look's
// context every few thousand blocks and names.
func (b *Blocks) writeConf(w io.Writer, look *timelimit.Looker) error {
	for _, blk := range b.Blocks {
		if err := look.Stopped(1 + len(blk.Nodes)); err != nil {
			return err
		}
		if len(blk.Nodes) == 0 {
			if err := writeConfLine(w, ConfPair{Key: "BlockName", Value: blk.Name}); err != nil {
				return err
			}
			continue
		}
		hl, err := hostlist.Compress(blk.Nodes)
		if err != nil {
			return err
		}
		if err := writeConfLine(w, ConfPair{Key: "BlockName", Value: blk.Name}, ConfPair{Key: "Nodes", Value: hl}); err != nil {
			return err
		}
	}
	if b.LevelsLine != 0 {
		// A file read with Slurm 23.11's key is written for 23.11.
		if _, err := fmt.Fprintf(w, "BlockLevels=%s\n", formatLevels(b.Levels)); err != nil {
			return err
		}
	}
	if b.Sizes != nil {
		s := make([]string, len(b.Sizes))
		for i, v := range b.Sizes {
			s[i] = fmt.Sprint(v)
		}
		if _, err := fmt.Fprintf(w, "BlockSizes=%s\n", strings.Join(s, ",")); err != nil {
			return err
		}
	}
	return nil
}
