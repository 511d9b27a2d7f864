package bench

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/procalloc/procalloc/sim"
)

// dragonfly100k is issue 34's 102,400-host dragonfly.
const dragonfly100k = "dragonfly:hosts_per_router=8,routers_per_group=64,intergroup_links=4,num_groups=200"

// BenchmarkDragonfly100kSDSC replays the first 100 and the first 3,000 jobs of the
// SDSC Paragon log, sizes scaled from its 400 nodes to the 102,400-host dragonfly
// (k -> round(k x 256)), with freelist:rcm under FCFS, computing the scheduling
// metrics only (--metrics sched), with the pairwise distances (sched,dist: closed
// form, topo/structdist.go) and every metric (all: the route metrics too). Issue
// 34's goals: 100 jobs in at most 5 s of CPU, 3,000 in at most 60 s (with sched).
func BenchmarkDragonfly100kSDSC(b *testing.B) {
	all := readTrace(b, sdsc)
	for _, n := range []int{100, 3000} {
		jobs := append([]sim.Job(nil), all[:n]...)
		for i := range jobs {
			jobs[i].Procs = max(1, min(102400, int(math.Round(float64(jobs[i].Procs)*102400/400))))
		}
		for _, set := range []sim.MetricSet{sim.MetricsSched, sim.MetricsSched | sim.MetricsDist, sim.MetricsAll} {
			b.Run(fmt.Sprintf("jobs=%d/metrics=%s", n, set), func(b *testing.B) {
				s := sim.DefaultSpec()
				s.Trace, s.TraceData = "SDSC-Par scaled", &sim.Trace{Jobs: jobs, Format: sim.FormatSWF}
				s.MachineSpec, s.Alloc, s.Metrics = dragonfly100k, "freelist:rcm", set
				for b.Loop() {
					if _, err := s.Run(context.Background()); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
