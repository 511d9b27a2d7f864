package sim

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/topo"
)

// DropNodes forgets the node lists of finished jobs and changes nothing else.
func TestDropNodesKeepsTheSummary(t *testing.T) {
	g := topo.Mesh(8, 8)
	jobs := randomJobs(rand.New(rand.NewPCG(5, 6)), 200, g.N())
	run := func(drop bool) *Result {
		a, err := alloc.Parse("mc1x1", g, alloc.Options{Compat: alloc.CompatPReMAS})
		if err != nil {
			t.Fatal(err)
		}
		r, err := Run(context.Background(), jobs, Config{Machine: g, Alloc: a, Sched: "fcfs", Compat: alloc.CompatPReMAS, DropNodes: drop})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	keep, drop := run(false), run(true)
	if keep.Summary.MeanTotalPairwiseL1 != drop.Summary.MeanTotalPairwiseL1 || keep.Summary.MeanWait != drop.Summary.MeanWait {
		t.Fatalf("summaries differ: %+v and %+v", keep.Summary, drop.Summary)
	}
	for i := range drop.PerJob {
		if drop.PerJob[i].Nodes != nil {
			t.Fatalf("job %d still holds its nodes", drop.PerJob[i].ID)
		}
		if len(keep.PerJob[i].Nodes) != keep.PerJob[i].Procs || drop.PerJob[i].TotalL1 != keep.PerJob[i].TotalL1 {
			t.Fatalf("job %d: kept %d nodes of %d, total %d vs %d", keep.PerJob[i].ID, len(keep.PerJob[i].Nodes), keep.PerJob[i].Procs, drop.PerJob[i].TotalL1, keep.PerJob[i].TotalL1)
		}
	}
}
