package sim

import (
	"context"
	"testing"

	"github.com/procalloc/procalloc/netsim"
	"github.com/procalloc/procalloc/topo"
)

func liuBatch(t testing.TB, machine, spec string, comm, runs int) *Batch {
	t.Helper()
	g, err := topo.ParseSpec(machine)
	if err != nil {
		t.Fatal(err)
	}
	pat, err := netsim.ParsePattern("all-to-all")
	if err != nil {
		t.Fatal(err)
	}
	return &Batch{Machine: g, Alloc: spec, Tasks: 16, MeanSize: 16, CommPerIO: comm, Pattern: pat,
		Params: netsim.DefaultParams(), IO: netsim.LiuIOParams(), Runs: runs, Seed: 1}
}

func TestBatchSmoke(t *testing.T) {
	for _, spec := range []string{"dbt:1/4", "d-dbt:1/4", "mbs", "plas", "bt", "scbt"} {
		for _, comm := range []int{0, 4} {
			b := liuBatch(t, "mesh:16x16:io=left", spec, comm, 20)
			res, err := b.Run(context.Background())
			if err != nil {
				t.Fatalf("%s: %v", spec, err)
			}
			t.Logf("%-10s comm %d: mean %.4f s ± %.4f, D %.2f, compact %.2f, waiting %.2f, msgs %.0f", spec, comm, res.MeanCompletion, res.CI95, res.MeanSquares, res.SpatiallyCompact, res.MeanWaitingTasks, res.MessagesPerRun)
		}
	}
}
