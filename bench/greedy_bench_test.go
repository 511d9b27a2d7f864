package bench

import (
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/topo"
)

// BenchmarkGreedyEmptyMachine is issue 34 item 5: one 256-node job on an empty
// machine with PReMAS's greedy MC1x1 (mc1x1-greedy), tie statistics on as in a
// replay; every center ties on an empty torus, so every center's collector runs.
// Tori should cost what meshes do (before the wrapped paths: 25.7 s on torus:64x64
// against 0.25 s on mesh:64x64, 42.2 s on torus:16x16x16 against 3.9 s). Besides
// wall time per allocation it reports the CPU time of the allocating thread
// (cpu-ms/op), which a loaded machine inflates far less.
func BenchmarkGreedyEmptyMachine(b *testing.B) {
	for _, spec := range []string{"mesh:64x64", "torus:64x64", "mesh:16x16x16", "torus:16x16x16"} {
		b.Run(spec, func(b *testing.B) {
			m, err := topo.ParseMachine(spec)
			if err != nil {
				b.Fatal(err)
			}
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			var cpu time.Duration
			for b.Loop() {
				a, err := alloc.Parse("mc1x1-greedy", m, alloc.Options{Compat: alloc.CompatPReMAS, NoMemo: true})
				if err != nil {
					b.Fatal(err)
				}
				a.(alloc.TieReporter).CountTies(true)
				var ru0, ru1 syscall.Rusage
				_ = syscall.Getrusage(syscall.RUSAGE_THREAD, &ru0)
				if _, err := a.Allocate(256); err != nil {
					b.Fatal(err)
				}
				_ = syscall.Getrusage(syscall.RUSAGE_THREAD, &ru1)
				cpu += time.Duration(ru1.Utime.Nano() + ru1.Stime.Nano() - ru0.Utime.Nano() - ru0.Stime.Nano())
			}
			b.ReportMetric(float64(cpu.Nanoseconds())/1e6/float64(b.N), "cpu-ms/op")
		})
	}
}
