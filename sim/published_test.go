package sim

import (
	"context"
	"math"
	"sync"
	"testing"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/topo"
)

var (
	traceOnce  sync.Map // path -> *Trace
	traceMutex sync.Mutex
)

func loadTrace(t testing.TB, path string) *Trace {
	t.Helper()
	traceMutex.Lock()
	defer traceMutex.Unlock()
	if tr, ok := traceOnce.Load(path); ok {
		return tr.(*Trace)
	}
	tr, err := ReadTraceFile(path, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	traceOnce.Store(path, tr)
	return tr
}

// published are the mean total pairwise L1 distances of Johnson et al. 2010: Fig. 18
// (LLNL-T3D on a 16x16 mesh, FCFS), the KTH-SP2 rows of Fig. 8 (10x10 mesh, FCFS), the
// LLNL-T3D rows of Fig. 15 (FCFS) and the KTH-SP2 and LLNL-T3D rows of Fig. 16 (EASY).
var published = []struct {
	trace, mesh, alloc string
	want               float64
	sched              string // "" = fcfs
}{
	{"testdata/LLNL-T3D-1996-2.converted.txt.gz", "mesh:16x16", "mc1x1:tb=3,9,3,2", 5224.970, ""},
	{"testdata/LLNL-T3D-1996-2.converted.txt.gz", "mesh:16x16", "bf:hilbert", 5232.127, ""},
	{"testdata/LLNL-T3D-1996-2.converted.txt.gz", "mesh:16x16", "mc1x1", 5309.586, ""},
	{"testdata/LLNL-T3D-1996-2.converted.txt.gz", "mesh:16x16", "mm", 5382.295, ""},
	{"testdata/LLNL-T3D-1996-2.converted.txt.gz", "mesh:16x16", "genalg", 5386.368, ""},
	{"testdata/LLNL-T3D-1996-2.converted.txt.gz", "mesh:16x16", "bf:snake", 5683.268, ""},
	{"testdata/KTH-SP2-1996-2.converted.txt.gz", "mesh:10x10", "mc1x1", 575.399, ""},
	{"testdata/KTH-SP2-1996-2.converted.txt.gz", "mesh:10x10", "mc1x1:tb=2,13,20,6", 564.865, ""},
	// Fig. 15: (SR,13,20,6) on LLNL-T3D for scan radii 2, 3 (a fifth of the width) and 4.
	{"testdata/LLNL-T3D-1996-2.converted.txt.gz", "mesh:16x16", "mc1x1:tb=2,13,20,6", 5247.661, ""},
	{"testdata/LLNL-T3D-1996-2.converted.txt.gz", "mesh:16x16", "mc1x1:tb=3,13,20,6", 5255.086, ""},
	{"testdata/LLNL-T3D-1996-2.converted.txt.gz", "mesh:16x16", "mc1x1:tb=4,13,20,6", 5242.902, ""},
	// Fig. 16: EASY backfilling.
	{"testdata/KTH-SP2-1996-2.converted.txt.gz", "mesh:10x10", "mc1x1", 575.399, "easy"},
	{"testdata/KTH-SP2-1996-2.converted.txt.gz", "mesh:10x10", "mc1x1:tb=2,13,20,6", 559.623, "easy"},
	{"testdata/LLNL-T3D-1996-2.converted.txt.gz", "mesh:16x16", "mc1x1", 5260.370, "easy"},
	{"testdata/LLNL-T3D-1996-2.converted.txt.gz", "mesh:16x16", "mc1x1:tb=3,9,3,2", 5167.365, "easy"},
	// Not in the paper: PReMAS's later default MC1x1, with its greedy outer shell
	// (GreedyLInfPointCollector), run by us on 2026-11-24 (java simulator.Main
	// machine=mesh[16,16,1] scheduler=pqueue[fifo] allocator=MC1x1, PReMAS as in
	// long1710/Network-Topology 855d5b1): 5344.034986 (docs/alloc.md).
	{"testdata/LLNL-T3D-1996-2.converted.txt.gz", "mesh:16x16", "mc1x1-greedy", 5344.035, ""},
}

// TestPublishedTables replays the published runs with --compat premas. The paper
// prints three decimals; every value agrees to within one unit of the third decimal
// (all but KTH-SP2 MC1x1 under FCFS round to the printed value: it is 575.399768,
// printed 575.399 — truncated; the paper's own 1.8309 % improvement for (2,13,20,6)
// needs a baseline >= 575.3994, so the printed figure is the truncation of ours).
func TestPublishedTables(t *testing.T) {
	for _, p := range published {
		sched := p.sched
		if sched == "" {
			sched = "fcfs"
		}
		t.Run(p.alloc+"@"+p.mesh+"/"+sched, func(t *testing.T) {
			t.Parallel()
			tr := loadTrace(t, p.trace)
			g, err := topo.ParseSpec(p.mesh)
			if err != nil {
				t.Fatal(err)
			}
			a, err := alloc.Parse(p.alloc, g, alloc.Options{Compat: alloc.CompatPReMAS})
			if err != nil {
				t.Fatal(err)
			}
			r, err := Run(context.Background(), tr.Jobs, Config{Machine: g, Alloc: a, Sched: Sched(sched), Compat: alloc.CompatPReMAS})
			if err != nil {
				t.Fatal(err)
			}
			if r.Jobs != len(tr.Jobs) {
				t.Fatalf("%d jobs replayed, trace has %d", r.Jobs, len(tr.Jobs))
			}
			if d := math.Abs(r.MeanTotalPairwiseL1 - p.want); d >= 0.001 {
				t.Errorf("%s on %s, %s: mean total pairwise L1 %.6f, published %.3f", p.alloc, p.mesh, sched, r.MeanTotalPairwiseL1, p.want)
			} else {
				t.Logf("%s on %s, %s: %.6f (published %.3f)", p.alloc, p.mesh, sched, r.MeanTotalPairwiseL1, p.want)
			}
		})
	}
}
