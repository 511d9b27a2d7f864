package order

import (
	"context"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/qap"
	"github.com/procalloc/procalloc/topo"
)

// checkScalable asserts the scalable path's contract on a result: a valid ordering
// whose F is the verifier's, at most every candidate's, above the bound.
func checkScalable(t *testing.T, m topo.Machine, w curves.Weights, ring bool, res *OrderResult) {
	t.Helper()
	if !res.Scalable {
		t.Fatalf("%s: not solved by the scalable path", m.Spec())
	}
	f, err := curves.Objective(m, res.Order, w, ring)
	if err != nil {
		t.Fatal(err)
	}
	if f != res.Objective {
		t.Fatalf("%s: reported F %g, verifier %g", m.Spec(), res.Objective, f)
	}
	if len(res.Candidates) == 0 {
		t.Fatalf("%s: no candidates", m.Spec())
	}
	for name, cf := range res.Candidates {
		if res.Objective > cf {
			t.Errorf("%s: F %g worse than candidate %s (%g)", m.Spec(), res.Objective, name, cf)
		}
	}
	if res.Bound > res.Objective {
		t.Errorf("%s: bound %g above F %g", m.Spec(), res.Bound, res.Objective)
	}
	if res.Status == qap.StatusOptimal && res.Bound != res.Objective {
		t.Errorf("%s: optimal with bound %g, F %g", m.Spec(), res.Bound, res.Objective)
	}
}

// Above ScalableMinNodes the result is never worse than a candidate, on grids (line and
// ring) and on a fat tree with groups; the search improves on the best curve of a
// 24x12 mesh with exp:2:3 weights.
func TestScalableNeverWorseThanCandidates(t *testing.T) {
	ft, err := topo.ParseMachine("fattree:4,4:4,4:20")
	if err != nil {
		t.Fatal(err)
	}
	w := curves.Weights{1, 0.5, 0.25}
	for _, c := range []struct {
		m    topo.Machine
		ring bool
	}{{topo.Mesh(24, 12), false}, {topo.Torus(10, 9, 3), true}, {ft, false}} {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		res, err := SolveOrdering(ctx, c.m, w, OrderOptions{Ring: c.ring})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		checkScalable(t, c.m, w, c.ring, res)
		// A start proven optimal by an exact structural bound (the fat tree's nested
		// order) ends the solve before the multilevel scheme runs.
		if _, ok := res.Candidates["multilevel"]; !ok && res.Status != qap.StatusOptimal {
			t.Errorf("%s: no multilevel candidate: %v", c.m.Spec(), res.Notes)
		}
		if c.m.Spec() == "mesh:24x12" {
			best := res.Candidates["strips2"]
			if res.Objective >= best {
				t.Errorf("mesh:24x12: F %g, no better than strips2 (%g)", res.Objective, best)
			}
		}
	}
}

// w = (1): a Hamiltonian path (cycle) meets the pairs bound, which is exact: optimal.
func TestScalableProvesHamiltonian(t *testing.T) {
	for _, c := range []struct {
		spec string
		ring bool
		want float64
	}{{"mesh:20x15", false, 299}, {"torus:20x15", true, 300}, {"mesh:7x7x7", false, 342}} {
		m, _ := topo.ParseSpec(c.spec)
		res, err := SolveOrdering(context.Background(), m, curves.Weights{1}, OrderOptions{Ring: c.ring})
		if err != nil {
			t.Fatal(err)
		}
		checkScalable(t, m, curves.Weights{1}, c.ring, res)
		if res.Status != qap.StatusOptimal || res.Objective != c.want || res.BoundSource != "pairs" {
			t.Errorf("%s ring=%v: %s F %g bound %g (%s)", c.spec, c.ring, res.Status, res.Objective, res.Bound, res.BoundSource)
		}
	}
}

// A cancelled solve returns the best ordering so far with status interrupted.
func TestScalableInterrupt(t *testing.T) {
	m := topo.Torus(40, 40, 10)
	w := curves.Weights{1, 0.5, 0.25, 0.125}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	res, err := SolveOrdering(ctx, m, w, OrderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkScalable(t, m, w, false, res)
	if res.Status != qap.StatusInterrupted {
		t.Errorf("status %s", res.Status)
	}
}

// Inputs the scalable path refuses or accepts.
func TestScalableInputs(t *testing.T) {
	m := topo.Mesh(20, 20)
	_, err := SolveOrdering(context.Background(), m, curves.Weights{1}, OrderOptions{MaxBytes: 1 << 10})
	if err == nil || !strings.Contains(err.Error(), "bytes") || !strings.Contains(err.Error(), "400 nodes") {
		t.Errorf("memory limit: %v", err)
	}
	if _, err := SolveOrdering(context.Background(), m, curves.Weights{0}, OrderOptions{}); err == nil {
		t.Error("zero weight accepted")
	}
	disc, _ := topo.NewGraphFromEdges(300, [][2]int{{0, 1}})
	if _, err := SolveOrdering(context.Background(), disc, curves.Weights{1}, OrderOptions{}); err == nil || !strings.Contains(err.Error(), "disconnected") {
		t.Errorf("disconnected: %v", err)
	}
	bad := OrderOptions{Starts: []Start{{"short", []int{0, 1}}}}
	if _, err := SolveOrdering(context.Background(), m, curves.Weights{1}, bad); err == nil {
		t.Error("a start that is not an ordering accepted")
	}
	// K >= n: the weights beyond the largest rank difference are unused.
	small := topo.Mesh(17, 16)
	long := make(curves.Weights, 300)
	long[0] = 1
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	res, err := SolveOrdering(ctx, small, long, OrderOptions{})
	if err != nil || res.Objective != float64(small.N()-1) || res.Status != qap.StatusOptimal {
		t.Errorf("K > n: %v %v", res, err)
	}
	cctx, ccancel := context.WithCancel(context.Background())
	ccancel()
	res, err = SolveOrdering(cctx, m, curves.Weights{1, 0.5}, OrderOptions{})
	if err != nil || res.Status != qap.StatusInterrupted || curves.Order(res.Order).Validate(m.N()) != nil {
		t.Errorf("cancelled before any candidate: %v %v", res, err)
	}
}

// Issue 31 minor: the MIP's settings given to a solve on the scalable path are
// named in a note (they were ignored in silence).
func TestScalableNotesUnusedMIPSettings(t *testing.T) {
	m := topo.Mesh(20, 20)
	w := curves.Weights{1}
	res, err := SolveOrdering(context.Background(), m, w, OrderOptions{Options: Options{Method: MethodAuto, RelGap: 0.1, Threads: 2, Log: io.Discard}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(res.Notes, func(n string) bool {
		return strings.Contains(n, "the MIP gap, HiGHS threads, HiGHS's log given: settings of the MIP, unused")
	}) {
		t.Errorf("notes %q", res.Notes)
	}
	res, _ = SolveOrdering(context.Background(), m, w, OrderOptions{Options: Options{Method: MethodAuto}})
	for _, n := range res.Notes {
		if strings.Contains(n, "unused") {
			t.Errorf("note without MIP settings: %q", n)
		}
	}
}

// Issue 31 minor: with list:4e305 on mesh:20x20 the optimum (399 unit steps) fits
// in float64 though orderings with long steps (morton) overflow: those are left out
// with a note instead of failing the solve.
func TestScalableSkipsOverflowingStarts(t *testing.T) {
	m := topo.Mesh(20, 20)
	w := curves.Weights{4e305}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	res, err := SolveOrdering(ctx, m, w, OrderOptions{Options: Options{Method: MethodAuto}})
	if err != nil {
		t.Fatal(err)
	}
	if f, err := curves.Objective(m, res.Order, w, false); err != nil || f != res.Objective || f != 399*4e305 {
		t.Errorf("F %g (recomputed %g, %v), want 399 x 4e305", res.Objective, f, err)
	}
	if !slices.ContainsFunc(res.Notes, func(n string) bool { return strings.Contains(n, "start morton left out: its F overflows") }) {
		t.Errorf("notes %q", res.Notes)
	}
}
