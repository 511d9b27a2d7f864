package bench

import (
	"context"
	"testing"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/netsim"
	"github.com/procalloc/procalloc/sim"
	"github.com/procalloc/procalloc/topo"
)

// sdsc is a path in the shared directory (internal/shared).
const sdsc = "traces/SDSC-Par-1996-3.1-cln.swf.gz"

// The SDSC Paragon log's last three months of 1996 (Bunde et al. 2004 §3.1), in
// seconds from its UnixStartTime (1995-12-27 10:53:57 US/Pacific): 1996-10-01 to
// 1997-01-01 local time.
const sdscOct96, sdscJan97 = 24062763, 32015163

// BenchmarkCommReplaySDSC16x16 is one replay of Bunde et al. 2004: 16x16 mesh, FCFS,
// all-to-all, load factor 1, Hilbert Best Fit, 6,610 jobs. Goal: under 60 s.
func BenchmarkCommReplaySDSC16x16(b *testing.B) {
	tr := readTrace(b, sdsc)
	jobs, err := sim.Window(tr, sdscOct96, sdscJan97)
	if err != nil {
		b.Fatal(err)
	}
	jobs, _ = sim.DropLarger(jobs, 256)
	g := topo.Mesh(16, 16)
	pat, _ := netsim.ParsePattern("all-to-all")
	var msgs, hops int64
	for range b.N {
		a, err := alloc.Parse("bf:hilbert", g, alloc.Options{})
		if err != nil {
			b.Fatal(err)
		}
		res, err := sim.Run(context.Background(), jobs, sim.Config{Machine: g, Alloc: a, Sched: "fcfs",
			Comm: &sim.Comm{Pattern: pat, Params: netsim.DefaultParams(), MessagesPerSecond: 1, CycleSeconds: sim.DefaultCycleSeconds, Seed: 1}})
		if err != nil {
			b.Fatal(err)
		}
		msgs += res.Comm.Messages
		for _, r := range res.PerJob {
			hops += r.MessageHops
		}
	}
	b.ReportMetric(float64(msgs)/b.Elapsed().Seconds()/1e6, "Mmsgs/s")
	b.ReportMetric(float64(hops)/b.Elapsed().Seconds()/1e6, "Mhops/s")
}
