package bench

import (
	"context"
	"fmt"
	"syscall"
	"testing"

	"github.com/procalloc/procalloc/internal/shared"
	"github.com/procalloc/procalloc/sim"
)

// dragonfly10k is issue 21's 10,240-host dragonfly.
const dragonfly10k = "dragonfly:hosts_per_router=4,routers_per_group=32,intergroup_links=3,num_groups=80"

// BenchmarkDragonflyMillion replays LANL-CM5 replicated to at least 1,000,000 jobs
// (the smallest factor that gives as many: 9, 1,098,513 jobs) on the 10,240-host
// dragonfly with bf:rcm, FCFS, default metrics, as "procalloc sim --replicate 9"
// does (goal: at most 60 s CPU and 1 GB peak); x1 is the whole trace once. Run it
// alone (-run '^$' -bench DragonflyMillion -benchtime 1x): peak-MB is the process's
// peak resident size so far.
func BenchmarkDragonflyMillion(b *testing.B) {
	path, err := shared.Find(lanl)
	if err != nil {
		b.Skipf("the LANL-CM5 trace is needed: %v", err)
	}
	tr, err := sim.ReadTraceFile(path, sim.ReadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	million := (1_000_000 + len(tr.Jobs) - 1) / len(tr.Jobs)
	for _, rep := range []int{1, million} {
		b.Run(fmt.Sprintf("x%d", rep), func(b *testing.B) {
			s := sim.DefaultSpec()
			s.Trace, s.MachineSpec, s.Alloc = path, dragonfly10k, "bf:rcm"
			s.Scale.Replicate = rep
			for b.Loop() {
				r, err := s.Run(context.Background())
				if err != nil {
					b.Fatal(err)
				}
				if rep == million && r.Jobs < 1_000_000 {
					b.Fatalf("%d jobs", r.Jobs)
				}
				b.ReportMetric(float64(r.Jobs), "jobs")
			}
			var ru syscall.Rusage
			if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
				b.ReportMetric(float64(ru.Maxrss)/1024, "peak-MB")
				b.ReportMetric(processCPU(), "process-cpu-s")
			}
		})
	}
}
