package sim

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/exact"
	"github.com/procalloc/procalloc/geom"
	"github.com/procalloc/procalloc/topo"
)

func replayWithBaseline(t *testing.T, g *topo.Grid, spec string, jobs []Job, limit time.Duration) *Result {
	t.Helper()
	a, err := alloc.Parse(spec, g, alloc.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := Run(context.Background(), jobs, Config{Machine: g, Alloc: a, Baseline: &Baseline{TimeLimit: limit}})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// Every proven decision: the optimum is at most the allocator's total, and against
// the opt allocator (exact at every decision) the ratio is exactly 1.
func TestBaselineRatios(t *testing.T) {
	g := topo.Mesh(6, 6)
	jobs := randomJobs(rand.New(rand.NewPCG(11, 12)), 80, 20)
	for _, spec := range []string{"mc1x1", "bf:snake", "opt"} {
		r := replayWithBaseline(t, g, spec, jobs, 5*time.Second)
		proven := 0
		for _, j := range r.PerJob {
			if j.OptTotalL1 > j.TotalL1 {
				t.Fatalf("%s job %d: optimum %d above the allocator's %d", spec, j.ID, j.OptTotalL1, j.TotalL1)
			}
			if j.OptProven {
				proven++
				if j.RatioToOptimal < 1 || (spec == "opt" && j.RatioToOptimal != 1) {
					t.Fatalf("%s job %d (k %d): ratio %v (total %d, optimum %d)", spec, j.ID, j.Procs, j.RatioToOptimal, j.TotalL1, j.OptTotalL1)
				}
			}
		}
		if r.BaselineProven == nil || *r.BaselineProven != float64(proven)/float64(len(jobs)) || *r.MeanRatioToOptimal < 1 {
			t.Fatalf("%s: summary %v %v, %d of %d proven", spec, r.BaselineProven, r.MeanRatioToOptimal, proven, len(jobs))
		}
		if proven < len(jobs)*9/10 {
			t.Errorf("%s: only %d of %d decisions proven on a 6x6 mesh", spec, proven, len(jobs))
		}
		n := 0
		for _, s := range r.BySize {
			n += s.Jobs
			if s.BaselineProven == nil || s.MeanRatioToOptimal == nil {
				t.Fatalf("%s: size %d without baseline", spec, s.Procs)
			}
		}
		if n != len(jobs) {
			t.Fatalf("by size covers %d jobs", n)
		}
		t.Logf("%s: mean ratio %.4f, %.0f%% proven", spec, *r.MeanRatioToOptimal, 100**r.BaselineProven)
	}
}

// The baseline's shortcuts (k = 2, lattice bound, every free node) and its memo
// agree with a plain exact.Subset on the same free sets.
func TestBaselineSolveMatchesSubset(t *testing.T) {
	g := topo.Mesh(5, 5)
	bl, err := newBaseline(context.Background(), Config{Machine: g, Baseline: &Baseline{TimeLimit: 10 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(2, 9))
	for trial := 0; trial < 60; trial++ {
		for v := range bl.free {
			bl.free[v] = rng.IntN(3) != 0
		}
		bl.nfree = 0
		var free []int
		for v, f := range bl.free {
			if f {
				bl.nfree++
				free = append(free, v)
			}
		}
		if len(free) < 2 {
			continue
		}
		k := 1 + rng.IntN(min(len(free), 8))
		rng.Shuffle(len(free), func(i, j int) { free[i], free[j] = free[j], free[i] })
		chosen := slices.Clone(free[:k])
		pts := make([]geom.PointF, 0, len(free))
		var all []geom.PointF
		for v, f := range bl.free {
			if f {
				all = append(all, bl.grid.pts[v])
			}
		}
		for _, v := range chosen {
			pts = append(pts, bl.grid.pts[v])
		}
		total := int64(geom.PairwiseL1(pts))
		got, err := bl.solve(context.Background(), k, chosen, total)
		if err != nil {
			t.Fatal(err)
		}
		want, err := exact.Subset(context.Background(), all, k, exact.SubsetOptions{})
		if err != nil || !want.Optimal {
			t.Fatal(err)
		}
		if !got.proven || got.total != int64(want.Total) {
			t.Fatalf("trial %d k %d: baseline %+v, Subset %v", trial, k, got, want.Total)
		}
	}
}

// A zero Baseline (TimeLimit zero: no limit, as everywhere in procalloc; it was an
// error) searches every decision to its end: all proven, the same ratios as under
// a limit long enough to prove them all; negative is none too.
func TestBaselineZeroTimeLimitIsNone(t *testing.T) {
	g := topo.Mesh(6, 6)
	jobs := randomJobs(rand.New(rand.NewPCG(30, 31)), 25, 12)
	var want *Result
	for _, limit := range []time.Duration{time.Hour, 0, -time.Second} {
		a, err := alloc.Parse("mm", g, alloc.Options{})
		if err != nil {
			t.Fatal(err)
		}
		r, err := Run(context.Background(), jobs, Config{Machine: g, Alloc: a, Baseline: &Baseline{TimeLimit: limit}})
		if err != nil {
			t.Fatalf("limit %v: %v", limit, err)
		}
		if r.BaselineDecisions == nil || r.BaselineProvenDecisions == nil || *r.BaselineDecisions == 0 ||
			*r.BaselineProvenDecisions != *r.BaselineDecisions {
			t.Fatalf("limit %v: decisions %v, proven %v: want every decision proven", limit, r.BaselineDecisions, r.BaselineProvenDecisions)
		}
		if want == nil {
			want = r
		} else if *r.MeanRatioToOptimal != *want.MeanRatioToOptimal {
			t.Fatalf("limit %v: mean ratio %v, want %v", limit, *r.MeanRatioToOptimal, *want.MeanRatioToOptimal)
		}
	}
}

func TestBaselineBadInput(t *testing.T) {
	jobs := []Job{{ID: 1, Procs: 2, Runtime: 1}}
	// A machine without node coordinates.
	gr, err := topo.NewGraphFromEdges(4, [][2]int{{0, 1}, {1, 2}, {2, 3}})
	if err != nil {
		t.Fatal(err)
	}
	a, err := alloc.Parse("bf:bfs", gr, alloc.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(context.Background(), jobs, Config{Machine: gr, Alloc: a, Baseline: &Baseline{TimeLimit: time.Second}})
	if err == nil || !strings.Contains(err.Error(), "coordinates") {
		t.Errorf("graph machine: %v", err)
	}
}

// opt's decisions depend on its node budget only: two replays agree, and a tiny
// budget falls back (counted) but still allocates k distinct free nodes.
func TestOptDeterministic(t *testing.T) {
	g := topo.Mesh(8, 8)
	jobs := randomJobs(rand.New(rand.NewPCG(4, 4)), 60, 40)
	var runs [][]int
	for _, spec := range []string{"opt:nodes=2000", "opt:nodes=2000", "opt:nodes=1"} {
		a, err := alloc.Parse(spec, g, alloc.Options{})
		if err != nil {
			t.Fatal(err)
		}
		c := &checked{Allocator: a, t: t, owner: make([]int, g.N())}
		r, err := Run(context.Background(), jobs, Config{Machine: g, Alloc: c})
		if err != nil {
			t.Fatal(err)
		}
		var all []int
		for _, j := range r.PerJob {
			all = append(all, j.Nodes...)
		}
		runs = append(runs, all)
		d, f := a.(alloc.FallbackCounter).Fallbacks()
		if d != int64(len(jobs)) || (spec == "opt:nodes=1" && f == 0) {
			t.Errorf("%s: %d decisions, %d fallbacks", spec, d, f)
		}
	}
	if !slices.Equal(runs[0], runs[1]) {
		t.Error("two replays with the same budget differ")
	}
}
