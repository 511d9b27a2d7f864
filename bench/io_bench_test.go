package bench

import (
	"context"
	"testing"

	"github.com/procalloc/procalloc/netsim"
	"github.com/procalloc/procalloc/sim"
	"github.com/procalloc/procalloc/topo"
)

// BenchmarkBatchLiu1000 is issue 10's speed goal: 1000 runs of Liu et al.'s batch
// experiment (16 tasks of mean size 16 on mesh:16x16:io=left, dbt:1/4, 16
// all-to-all communications per I/O phase), on all cores. Goal: under 10 s on 2
// cores.
func BenchmarkBatchLiu1000(b *testing.B) {
	g, err := topo.ParseSpec("mesh:16x16:io=left")
	if err != nil {
		b.Fatal(err)
	}
	pat, _ := netsim.ParsePattern("all-to-all")
	var msgs float64
	for range b.N {
		bt := &sim.Batch{Machine: g, Alloc: "dbt:1/4", Tasks: 16, MeanSize: 16, CommPerIO: 16, Pattern: pat,
			Params: netsim.DefaultParams(), IO: netsim.LiuIOParams(), Runs: benchRuns, Seed: 1}
		res, err := bt.Run(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		msgs = res.MessagesPerRun * float64(res.Runs)
	}
	b.ReportMetric(msgs, "messages/op")
}

// benchRuns is 1000 (the goal); profiling sessions may lower it.
var benchRuns = 1000
