package bench

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/sim"
	"github.com/procalloc/procalloc/topo"
)

// timedAlloc passes allocations through and adds up the time spent in Allocate.
type timedAlloc struct {
	alloc.Allocator
	alloc.TieReporter // so that the replay counts ties, as it does for MC1x1 itself
	spent             time.Duration
	decisions         int
}

func (t *timedAlloc) Allocate(k int) ([]int, error) {
	start := time.Now()
	nodes, err := t.Allocator.Allocate(k)
	t.spent += time.Since(start)
	t.decisions++
	return nodes, err
}

// BenchmarkMC1x1Decision times MC1x1's allocation decision (tie statistics on, as
// in a replay; no decision memo, so that every decision is searched) on the free
// sets of today's sizes: the first 2,000 jobs of LANL-CM5 (a 1,024-node CM-5) with
// job sizes scaled to the machine (x1, x4, x16), FCFS, on 32x32, 64x64 and 128x128
// meshes. ns/decision is the time inside Allocate per decision; replay-ns/decision
// the whole replay's (the allocation metrics too). docs/sim.md, "Replay speed at
// today's sizes" and "MC1x1's tie statistics from counts", has the figures.
func BenchmarkMC1x1Decision(b *testing.B) {
	trace := readTrace(b, lanl)
	trace = trace[:min(len(trace), 2000)]
	for _, side := range []int{32, 64, 128} {
		b.Run(fmt.Sprintf("%dx%d", side, side), func(b *testing.B) {
			scale := side * side / 1024
			jobs := make([]sim.Job, len(trace))
			for i, j := range trace {
				j.Procs *= scale
				jobs[i] = j
			}
			g := topo.Mesh(side, side)
			var spent time.Duration
			decisions := 0
			for b.Loop() {
				a, err := alloc.Parse("mc1x1", g, alloc.Options{NoMemo: true})
				if err != nil {
					b.Fatal(err)
				}
				ta := &timedAlloc{Allocator: a, TieReporter: a.(alloc.TieReporter)}
				if _, err := sim.Run(context.Background(), jobs, sim.Config{Machine: g, Alloc: ta, Sched: "fcfs", DropNodes: true}); err != nil {
					b.Fatal(err)
				}
				spent += ta.spent
				decisions += ta.decisions
			}
			b.ReportMetric(float64(spent.Nanoseconds())/float64(decisions), "ns/decision")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(decisions), "replay-ns/decision")
		})
	}
}
