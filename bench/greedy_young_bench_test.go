package bench

import (
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/topo"
)

// BenchmarkGreedyYoungFreeSet is issue 34 item 5 on young free sets: the first 30
// jobs of `procalloc bench`'s synthetic stream (seed 1) with mc1x1-greedy, on a
// mesh and the torus of the same sides. The torus should cost what the mesh does;
// the few decisions whose balls nearly all hold a busy node dominate (max-ms). It
// reports the CPU time of the replaying thread per replay (cpu-ms/op) and the
// slowest decision's wall time.
func BenchmarkGreedyYoungFreeSet(b *testing.B) {
	for _, spec := range youngFreeSetMachines {
		b.Run(spec, func(b *testing.B) {
			m, err := topo.ParseMachine(spec)
			if err != nil {
				b.Fatal(err)
			}
			w, err := SyntheticWorkload(m.N(), 30, 1)
			if err != nil {
				b.Fatal(err)
			}
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			var cpu, worst time.Duration
			for b.Loop() {
				a, err := alloc.Parse("mc1x1-greedy", m, alloc.Options{})
				if err != nil {
					b.Fatal(err)
				}
				held := make([][]int, w.Jobs)
				var ru0, ru1 syscall.Rusage
				_ = syscall.Getrusage(syscall.RUSAGE_THREAD, &ru0)
				for _, op := range w.Ops {
					if op.Release {
						if err := a.Release(held[op.Job]); err != nil {
							b.Fatal(err)
						}
						continue
					}
					t0 := time.Now()
					nodes, err := a.Allocate(int(op.Procs))
					worst = max(worst, time.Since(t0))
					if err != nil {
						b.Fatal(err)
					}
					held[op.Job] = nodes
				}
				_ = syscall.Getrusage(syscall.RUSAGE_THREAD, &ru1)
				cpu += time.Duration(ru1.Utime.Nano() + ru1.Stime.Nano() - ru0.Utime.Nano() - ru0.Stime.Nano())
			}
			b.ReportMetric(float64(cpu.Nanoseconds())/1e6/float64(b.N), "cpu-ms/op")
			b.ReportMetric(float64(worst.Nanoseconds())/1e6, "max-ms")
		})
	}
}
