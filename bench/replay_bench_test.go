package bench

import (
	"context"
	"math/bits"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/internal/shared"
	"github.com/procalloc/procalloc/sim"
	"github.com/procalloc/procalloc/topo"
)

// replay runs one whole trace replay with a fresh allocator.
func replay(b *testing.B, jobs []sim.Job, mesh, spec string, compat alloc.Compat) *sim.Result {
	b.Helper()
	g, err := topo.ParseSpec(mesh)
	if err != nil {
		b.Fatal(err)
	}
	a, err := alloc.Parse(spec, g, alloc.Options{Compat: compat})
	if err != nil {
		b.Fatal(err)
	}
	r, err := sim.Run(context.Background(), jobs, sim.Config{Machine: g, Alloc: a, Sched: "fcfs", Compat: compat})
	if err != nil {
		b.Fatal(err)
	}
	return r
}

func readTrace(b *testing.B, path string) []sim.Job {
	b.Helper()
	if !strings.HasPrefix(path, "..") {
		// A path in the shared directory (internal/shared), not in the repository.
		found, err := shared.Find(path)
		if err != nil {
			b.Skipf("a shared trace is needed: %v", err)
		}
		path = found
	}
	tr, err := sim.ReadTraceFile(path, sim.ReadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	return tr.Jobs
}

// fig18 are the allocators of Johnson et al. 2010 Fig. 18 (LLNL-T3D, 16x16, FCFS).
var fig18 = []string{"mc1x1:tb=3,9,3,2", "bf:hilbert", "mc1x1", "mm", "genalg", "bf:snake"}

// BenchmarkFig18 replays the six runs of Fig. 18 together, as "procalloc compare"
// does: one goroutine per run, all at once (goal: under 5 s on 2 cores).
func BenchmarkFig18(b *testing.B) {
	jobs := readTrace(b, "../sim/testdata/LLNL-T3D-1996-2.converted.txt.gz")
	for b.Loop() {
		var wg sync.WaitGroup
		for _, spec := range fig18 {
			wg.Go(func() { replay(b, jobs, "mesh:16x16", spec, alloc.CompatPReMAS) })
		}
		wg.Wait()
	}
}

// BenchmarkFig18Each replays each Fig. 18 run on its own, and PReMAS's later
// default MC1x1 (mc1x1-greedy); ns/decision is the replay's time per allocation
// decision (allocator and the replay's own measurements), to set against
// BenchmarkReadFreeNodes.
func BenchmarkFig18Each(b *testing.B) {
	jobs := readTrace(b, "../sim/testdata/LLNL-T3D-1996-2.converted.txt.gz")
	for _, spec := range append(slices.Clone(fig18), "mc1x1-greedy") {
		b.Run(spec, func(b *testing.B) {
			for b.Loop() {
				replay(b, jobs, "mesh:16x16", spec, alloc.CompatPReMAS)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(jobs)), "ns/decision")
		})
	}
}

// lanl is a path in the shared directory (internal/shared).
const lanl = "traces/LANL-CM5-1994-4.1-cln.swf.gz"

// BenchmarkLANLCM5 replays LANL-CM5 (122,057 jobs after conversion) on a 32x32 mesh
// with MC1x1, plain and with the tie-breaking Johnson et al. 2010 found best for it
// (12,42,41,15) (goal: under 60 s).
func BenchmarkLANLCM5(b *testing.B) {
	jobs := readTrace(b, lanl)
	for _, spec := range []string{"mc1x1", "mc1x1:tb=12,42,41,15"} {
		b.Run(spec, func(b *testing.B) {
			for b.Loop() {
				r := replay(b, jobs, "mesh:32x32", spec, alloc.CompatPReMAS)
				b.ReportMetric(r.MeanTotalPairwiseL1, "meanL1")
			}
		})
	}
}

// recorder passes allocations through and keeps, for each decision, the free nodes
// of that moment (as a bitset).
type recorder struct {
	alloc.Allocator
	st    *alloc.State
	snaps [][]uint64
}

func (r *recorder) Allocate(k int) ([]int, error) {
	n := r.Machine().N()
	words := make([]uint64, (n+63)/64)
	for i := range n {
		if r.st.IsFree(i) {
			words[i>>6] |= 1 << (i & 63)
		}
	}
	r.snaps = append(r.snaps, words)
	nodes, err := r.Allocator.Allocate(k)
	if err == nil {
		err = r.st.Take(nodes)
	}
	return nodes, err
}

func (r *recorder) Release(nodes []int) error {
	if err := r.st.Release(nodes); err != nil {
		return err
	}
	return r.Allocator.Release(nodes)
}

// BenchmarkReadFreeNodes is the physical limit of an allocation decision on the
// LLNL-T3D 16x16 FCFS replay: reading its input, the free nodes, once. It lists the
// free nodes of every decision of the replay (set bits of the free map, in node
// order) and reports ns per decision; the free sets are the same for every allocator
// (FCFS starts jobs whatever nodes they get).
func BenchmarkReadFreeNodes(b *testing.B) {
	jobs := readTrace(b, "../sim/testdata/LLNL-T3D-1996-2.converted.txt.gz")
	g, err := topo.ParseSpec("mesh:16x16")
	if err != nil {
		b.Fatal(err)
	}
	a, err := alloc.Parse("bf:hilbert", g, alloc.Options{Compat: alloc.CompatPReMAS})
	if err != nil {
		b.Fatal(err)
	}
	rec := &recorder{Allocator: a, st: alloc.NewState(g.N())}
	if _, err := sim.Run(context.Background(), jobs, sim.Config{Machine: g, Alloc: rec, Sched: "fcfs", Compat: alloc.CompatPReMAS}); err != nil {
		b.Fatal(err)
	}
	buf := make([]int, 0, g.N())
	sum := 0
	b.ResetTimer()
	runtime.LockOSThread() // so that the thread's CPU time is the loop's
	defer runtime.UnlockOSThread()
	var ru0, ru1 syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_THREAD, &ru0)
	for b.Loop() {
		for _, w := range rec.snaps {
			buf = buf[:0]
			for i, word := range w {
				for ; word != 0; word &= word - 1 {
					buf = append(buf, i<<6+bits.TrailingZeros64(word))
				}
			}
			sum += len(buf)
		}
	}
	_ = syscall.Getrusage(syscall.RUSAGE_THREAD, &ru1)
	cpu := ru1.Utime.Nano() + ru1.Stime.Nano() - ru0.Utime.Nano() - ru0.Stime.Nano()
	decisions := float64(b.N) * float64(len(rec.snaps))
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/decisions, "ns/decision")
	// CPU time of this thread (the loop does not allocate): the fair figure on a
	// loaded machine
	b.ReportMetric(float64(cpu)/decisions, "cpu-ns/decision")
	b.ReportMetric(float64(len(rec.snaps)), "decisions")
	if sum == 0 {
		b.Fatal("no free nodes read")
	}
}
