package bench

import (
	"context"
	"testing"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/netsim"
	"github.com/procalloc/procalloc/sim"
	"github.com/procalloc/procalloc/topo"
)

// BenchmarkCommReplayFlitSDSC16x16 is one replay of the first two weeks of
// Bunde et al. 2004's window (Oct 1-15 1996) on the 16x16 mesh, n-body, load 1,
// Hilbert Best Fit, on the flit engine with BookSim2's defaults (docs/comm.md,
// "Replays on the flit engine"); BenchmarkCommReplayMessageSDSC16x16 is the same
// replay on the message engine, for the ratio.
func BenchmarkCommReplayFlitSDSC16x16(b *testing.B)    { benchCommReplayDays(b, sim.EngineFlit, 14) }
func BenchmarkCommReplayMessageSDSC16x16(b *testing.B) { benchCommReplayDays(b, sim.EngineMessage, 14) }

// BenchmarkCommReplayFlitSDSC16x16ThreeDays is the same replay over the first three
// days only (Oct 1-4 1996, about a fifth of the work): the one to iterate with when
// tuning the flit engine.
func BenchmarkCommReplayFlitSDSC16x16ThreeDays(b *testing.B) {
	benchCommReplayDays(b, sim.EngineFlit, 3)
}

func benchCommReplayDays(b *testing.B, engine sim.Engine, days int64) {
	tr := readTrace(b, sdsc)
	jobs, err := sim.Window(tr, sdscOct96, sdscOct96+days*86400)
	if err != nil {
		b.Fatal(err)
	}
	jobs, _ = sim.DropLarger(jobs, 256)
	g := topo.Mesh(16, 16)
	pat, _ := netsim.ParsePattern("n-body")
	var flitHops int64
	for range b.N {
		a, err := alloc.Parse("bf:hilbert", g, alloc.Options{})
		if err != nil {
			b.Fatal(err)
		}
		c := &sim.Comm{Pattern: pat, Params: netsim.DefaultParams(), MessagesPerSecond: 1, CycleSeconds: sim.DefaultCycleSeconds, Seed: 1}
		if engine == sim.EngineFlit {
			c.Engine, c.Flit = engine, netsim.DefaultFlitConfig(g)
		}
		res, err := sim.Run(context.Background(), jobs, sim.Config{Machine: g, Alloc: a, Sched: "fcfs", Comm: c})
		if err != nil {
			b.Fatal(err)
		}
		if f := res.Comm.Flit; f != nil {
			flitHops += f.FlitHops
		}
	}
	if flitHops > 0 {
		b.ReportMetric(float64(flitHops)/b.Elapsed().Seconds()/1e6, "Mflit-hops/s")
	}
}
