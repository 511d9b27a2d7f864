//go:build highs

package highs

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"
	"time"
)

// max 5a + 4b + 3c s.t. 2a + 3b + c <= 5, 4a + b + 2c <= 11, 3a + 4b + 2c <= 8, a,b,c >= 0
// integer: the optimum is 13 at (2, 0, 1) (checked by enumerating a, b, c in 0..5 below).
func smallMIP() *Model {
	m := &Model{Maximize: true}
	for _, c := range []float64{5, 4, 3} {
		m.AddCol(c, 0, Inf, true)
	}
	m.AddRow(math.Inf(-1), 5, []int{0, 1, 2}, []float64{2, 3, 1})
	m.AddRow(math.Inf(-1), 11, []int{0, 1, 2}, []float64{4, 1, 2})
	m.AddRow(math.Inf(-1), 8, []int{0, 1, 2}, []float64{3, 4, 2})
	return m
}

func TestSolveSmallMIPMatchesEnumeration(t *testing.T) {
	best := math.Inf(-1)
	for a := 0; a <= 5; a++ {
		for b := 0; b <= 5; b++ {
			for c := 0; c <= 5; c++ {
				if 2*a+3*b+c <= 5 && 4*a+b+2*c <= 11 && 3*a+4*b+2*c <= 8 {
					best = max(best, float64(5*a+4*b+3*c))
				}
			}
		}
	}
	var log bytes.Buffer
	res, err := Solve(context.Background(), smallMIP(), nil, Options{Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != StatusOptimal || res.Objective != best || math.Abs(res.DualBound-best) > 1e-6 {
		t.Fatalf("got %+v, want optimum %g", res, best)
	}
	if !strings.Contains(log.String(), "Solving report") {
		t.Errorf("log did not reach the writer: %q", log.String())
	}
	// The LP relaxation is at least as good as the integer optimum (maximizing).
	lp, err := Solve(context.Background(), smallMIP(), nil, Options{Relax: true})
	if err != nil {
		t.Fatal(err)
	}
	if lp.Status != StatusOptimal || lp.Objective < best-1e-9 {
		t.Fatalf("LP relaxation %+v below integer optimum %g", lp, best)
	}
}

func TestSolveInfeasible(t *testing.T) {
	m := &Model{}
	m.AddCol(1, 0, 1, true)
	m.AddRow(2, 3, []int{0}, []float64{1})
	res, err := Solve(context.Background(), m, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != StatusInfeasible || res.X != nil {
		t.Fatalf("got %+v", res)
	}
}

func TestSolveRejectsBadModel(t *testing.T) {
	m := &Model{}
	m.AddCol(1, 2, 1, false)
	if _, err := Solve(context.Background(), m, nil, Options{}); err == nil {
		t.Fatal("inverted bounds accepted")
	}
	m = smallMIP()
	if _, err := Solve(context.Background(), m, []float64{1}, Options{}); err == nil {
		t.Fatal("short starting solution accepted")
	}
}

// A hard-ish MIP (a random-cost assignment with a quadratic-like side structure is
// overkill; a pigeonhole instance is hard for branch and bound) stops on cancellation.
func TestSolveCancelled(t *testing.T) {
	// Pigeonhole: n+1 pigeons in n holes, infeasible, exponential for B&B without the
	// right cuts; cancellation must end it early.
	const n = 11
	m := &Model{}
	x := func(p, h int) int { return p*n + h }
	for p := 0; p <= n; p++ {
		for h := 0; h < n; h++ {
			m.AddCol(float64((p*7+h*3)%5), 0, 1, true)
		}
	}
	for p := 0; p <= n; p++ {
		idx, val := []int{}, []float64{}
		for h := 0; h < n; h++ {
			idx, val = append(idx, x(p, h)), append(val, 1)
		}
		m.AddRow(1, Inf, idx, val)
	}
	for h := 0; h < n; h++ {
		for p := 0; p <= n; p++ {
			for q := p + 1; q <= n; q++ {
				m.AddRow(math.Inf(-1), 1, []int{x(p, h), x(q, h)}, []float64{1, 1})
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	t0 := time.Now()
	res, err := Solve(ctx, m, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status == StatusInfeasible {
		t.Skip("HiGHS proved the pigeonhole instance infeasible before the deadline")
	}
	if res.Status != StatusInterrupted || time.Since(t0) > 5*time.Second {
		t.Fatalf("status %s after %v", res.Status, time.Since(t0))
	}
}

func TestTimeLimit(t *testing.T) {
	res, err := Solve(context.Background(), smallMIP(), []float64{1, 0, 0}, Options{TimeLimit: time.Minute, Threads: 1, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != StatusOptimal || res.X == nil {
		t.Fatalf("got %+v", res)
	}
}

func TestConstantsMatchHeader(t *testing.T) {
	if err := checkConstants(); err != nil {
		t.Fatal(err)
	}
}

func TestAvailable(t *testing.T) {
	if !Available() || !strings.HasPrefix(Version(), "1.") {
		t.Fatalf("Available %v, version %q", Available(), Version())
	}
}
