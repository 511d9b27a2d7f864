package sim

import (
	"context"
	"math"
	"testing"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/internal/shared"
	"github.com/procalloc/procalloc/topo"
)

// closeToPublished are the runs of docs/sim.md's "Close but not exact" table: Johnson
// et al. 2010 figures that procalloc gets near but not to the printed decimals,
// because the Parallel Workloads Archive now has later versions of these logs than
// the paper used (SDSC-Par96 3.1 for 2.1, LANL-CM5 4.1 for 3.1). Each is pinned to
// the published value within the relative difference the page states, so that a
// change in the replay that moves away from the paper fails.
var closeToPublished = []struct {
	trace, mesh, alloc, sched string
	published                 float64 // Johnson et al. 2010
	tol                       float64 // relative
	long                      bool    // skipped with -short (LANL-CM5: 122,057 jobs)
}{
	// Fig. 15, SDSC-Par96: within 0.3 %.
	{"SDSC-Par-1996-3.1-cln.swf.gz", "mesh:20x20", "mc1x1:tb=2,13,20,6", "fcfs", 3377.613, 0.003, false},
	{"SDSC-Par-1996-3.1-cln.swf.gz", "mesh:20x20", "mc1x1:tb=3,13,20,6", "fcfs", 3353.929, 0.003, false},
	{"SDSC-Par-1996-3.1-cln.swf.gz", "mesh:20x20", "mc1x1:tb=4,13,20,6", "fcfs", 3353.731, 0.003, false},
	// Fig. 15, LANL-CM5: within 0.006 %.
	{"LANL-CM5-1994-4.1-cln.swf.gz", "mesh:32x32", "mc1x1:tb=2,13,20,6", "fcfs", 206426.347, 0.00006, true},
	{"LANL-CM5-1994-4.1-cln.swf.gz", "mesh:32x32", "mc1x1:tb=3,13,20,6", "fcfs", 206373.745, 0.00006, true},
	{"LANL-CM5-1994-4.1-cln.swf.gz", "mesh:32x32", "mc1x1:tb=6,13,20,6", "fcfs", 206011.123, 0.00006, true},
	{"LANL-CM5-1994-4.1-cln.swf.gz", "mesh:32x32", "mc1x1:tb=7,13,20,6", "fcfs", 206031.378, 0.00006, true},
	// Fig. 8 (FCFS) and Fig. 16 (EASY), LANL-CM5: within 0.01 % and 0.03 %.
	{"LANL-CM5-1994-4.1-cln.swf.gz", "mesh:32x32", "mc1x1", "fcfs", 210310.843, 0.0001, true},
	{"LANL-CM5-1994-4.1-cln.swf.gz", "mesh:32x32", "mc1x1:tb=12,42,41,15", "fcfs", 205386.282, 0.0001, true},
	{"LANL-CM5-1994-4.1-cln.swf.gz", "mesh:32x32", "mc1x1", "easy", 214790.442, 0.0003, true},
}

// TestPublishedClose replays docs/sim.md's "Close but not exact" rows from the
// archive's SWF files in ../shared/traces (skipped, saying so, when they are absent).
func TestPublishedClose(t *testing.T) {
	for _, p := range closeToPublished {
		t.Run(p.alloc+"@"+p.trace+"/"+p.sched, func(t *testing.T) {
			if p.long && testing.Short() {
				t.Skip("LANL-CM5 (122,057 jobs, about 4 s of CPU per replay) runs without -short")
			}
			path, err := shared.Find("traces/" + p.trace)
			if err != nil {
				t.Skipf("the trace is needed: %v", err)
			}
			t.Parallel()
			tr := loadTrace(t, path)
			g, err := topo.ParseSpec(p.mesh)
			if err != nil {
				t.Fatal(err)
			}
			a, err := alloc.Parse(p.alloc, g, alloc.Options{Compat: alloc.CompatPReMAS})
			if err != nil {
				t.Fatal(err)
			}
			r, err := Run(context.Background(), tr.Jobs, Config{Machine: g, Alloc: a, Sched: Sched(p.sched), Compat: alloc.CompatPReMAS})
			if err != nil {
				t.Fatal(err)
			}
			d := r.MeanTotalPairwiseL1/p.published - 1
			if math.Abs(d) > p.tol {
				t.Errorf("%s on %s, %s: mean total pairwise L1 %.3f, published %.3f (%+.4f %%, tolerance %.4f %%)", p.alloc, p.mesh, p.sched, r.MeanTotalPairwiseL1, p.published, 100*d, 100*p.tol)
			} else {
				t.Logf("%s on %s, %s: %.3f, published %.3f (%+.4f %%)", p.alloc, p.mesh, p.sched, r.MeanTotalPairwiseL1, p.published, 100*d)
			}
		})
	}
}
