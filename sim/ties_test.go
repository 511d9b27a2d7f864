package sim

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"slices"
	"testing"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/topo"
)

// TestTieStatisticsFig4 compares MC1x1's tie statistics with Johnson et al. 2010
// Fig. 4 (number of allocation decisions with a tie, and the average number of tied
// potential allocations). Counting distinct node sets, the EASY replays give the
// figure exactly; the FCFS replays give one tied decision fewer than the figure for
// both traces (and the same averages to the printed precision); the test pins that.
func TestTieStatisticsFig4(t *testing.T) {
	cases := []struct {
		trace   string
		side    int
		sched   string
		offset  int64   // tied decisions replayed minus Fig. 4's
		tied    int64   // Fig. 4
		pct     float64 // Fig. 4
		avgTied float64 // Fig. 4
	}{
		{"testdata/KTH-SP2-1996-2.converted.txt.gz", 10, "fcfs", -1, 17611, 61.8, 16.7},
		{"testdata/LLNL-T3D-1996-2.converted.txt.gz", 16, "fcfs", -1, 14839, 69.6, 66.7},
		{"testdata/KTH-SP2-1996-2.converted.txt.gz", 10, "easy", 0, 17590, 61.7, 22.7},
		{"testdata/LLNL-T3D-1996-2.converted.txt.gz", 16, "easy", 0, 15778, 74.0, 74.6},
	}
	for _, c := range cases {
		t.Run(c.trace+"/"+c.sched, func(t *testing.T) {
			t.Parallel()
			tr := loadTrace(t, c.trace)
			g := topo.Mesh(c.side, c.side)
			a, err := alloc.Parse("mc1x1", g, alloc.Options{Compat: alloc.CompatPReMAS})
			if err != nil {
				t.Fatal(err)
			}
			r, err := Run(context.Background(), tr.Jobs, Config{Machine: g, Alloc: a, Sched: Sched(c.sched), Compat: alloc.CompatPReMAS})
			if err != nil {
				t.Fatal(err)
			}
			ts := r.Ties
			if ts == nil || ts.Decisions != int64(len(tr.Jobs)) {
				t.Fatalf("tie statistics %+v, want one decision per job", ts)
			}
			if ts.Tied != c.tied+c.offset || math.Abs(ts.PctTied-c.pct) > 0.05 || math.Abs(ts.AvgNumTied-c.avgTied) > 0.05 {
				t.Errorf("ties %+v; Fig. 4: %d tied (%.1f%%), %.1f on average", *ts, c.tied, c.pct, c.avgTied)
			}
		})
	}
}

// TestTiesOffSamePlacements replays the first KTH-SP2 jobs with the MC1x1 family
// with and without the tie statistics (MetricsTies) and requires every job to get
// the same nodes at the same time: tie counting is a report, and its absence turns
// on the allocators' fast paths (mc1x1:tb's bounds, mc1x1-greedy's orbits on an
// empty torus), which must choose what the counting paths choose. Without the group
// the summary has no tie statistics (no JSON key) and no job a tie count.
func TestTiesOffSamePlacements(t *testing.T) {
	tr := loadTrace(t, "testdata/KTH-SP2-1996-2.converted.txt.gz")
	jobs := tr.Jobs[:1000]
	cases := []struct {
		machine string
		compat  alloc.Compat
		sched   Sched
	}{
		{"mesh:10x10", alloc.CompatPReMAS, SchedFCFS},
		{"mesh:12x9", alloc.CompatSST, SchedEASY},
		{"torus:5x5x4", alloc.CompatDefault, SchedFCFS},
		{"torus:10x10", alloc.CompatSST, SchedEASY},
	}
	for _, c := range cases {
		for _, spec := range []string{"mc1x1", "mc1x1:tb=3,9,3,2", "mc1x1-greedy"} {
			t.Run(c.machine+"/"+spec, func(t *testing.T) {
				g, err := topo.ParseSpec(c.machine)
				if err != nil {
					t.Fatal(err)
				}
				run := func(metrics MetricSet) *Result {
					a, err := alloc.Parse(spec, g, alloc.Options{Compat: c.compat})
					if err != nil {
						t.Fatal(err)
					}
					if _, ok := a.(alloc.TieReporter); !ok {
						t.Fatalf("%s counts no ties", spec)
					}
					r, err := Run(context.Background(), jobs, Config{Machine: g, Alloc: a, Sched: c.sched, Compat: c.compat, Metrics: metrics})
					if err != nil {
						t.Fatal(err)
					}
					return r
				}
				with := run(MetricsAll)
				if with.Ties == nil || with.Ties.Tied == 0 {
					t.Fatalf("with ties counted: %+v, want tied decisions", with.Ties)
				}
				for _, metrics := range []MetricSet{MetricsSched, MetricsAll &^ MetricsTies} {
					without := run(metrics)
					if without.Ties != nil {
						t.Errorf("%v: tie statistics %+v", metrics, *without.Ties)
					}
					b, err := json.Marshal(without)
					if err != nil {
						t.Fatal(err)
					}
					if bytes.Contains(b, []byte(`"ties":`)) || bytes.Contains(b, []byte(`"pct_tied"`)) {
						t.Errorf("%v: tie statistics in the JSON", metrics)
					}
					if len(without.PerJob) != len(with.PerJob) {
						t.Fatalf("%v: %d jobs, %d with ties", metrics, len(without.PerJob), len(with.PerJob))
					}
					for i, w := range without.PerJob {
						v := with.PerJob[i]
						if w.Ties != 0 {
							t.Fatalf("%v: job %d has a tie count %d", metrics, w.ID, w.Ties)
						}
						if w.ID != v.ID || w.Start != v.Start || !slices.Equal(w.Nodes, v.Nodes) {
							t.Fatalf("%v: job %d (%d procs) started at %d on %v; with ties counted job %d at %d on %v", metrics, w.ID, w.Procs, w.Start, w.Nodes, v.ID, v.Start, v.Nodes)
						}
					}
				}
			})
		}
	}
}
