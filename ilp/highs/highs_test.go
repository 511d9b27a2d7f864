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

// A market-split instance (Cornuejols and Dawande: equality knapsacks with random
// coefficients, notoriously hard for branch and bound) stops on cancellation, and a
// solve cut by the time limit reports time_limit.
func marketSplit(rows, cols int) *Model {
	m := &Model{}
	state := uint64(12345)
	rnd := func() int {
		state = state*6364136223846793005 + 1442695040888963407
		return int(state>>33) % 100
	}
	for j := 0; j < cols; j++ {
		m.AddCol(0, 0, 1, true)
	}
	for r := 0; r < rows; r++ {
		idx := make([]int, cols)
		val := make([]float64, cols)
		sum := 0
		for j := 0; j < cols; j++ {
			a := rnd()
			idx[j], val[j] = j, float64(a)
			sum += a
		}
		m.AddRow(float64(sum/2), float64(sum/2), idx, val)
	}
	return m
}

func TestSolveCancelled(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	t0 := time.Now()
	res, err := Solve(ctx, marketSplit(5, 40), nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != StatusInterrupted || time.Since(t0) > 5*time.Second {
		t.Fatalf("status %s (%s) after %v", res.Status, res.ModelStatus, time.Since(t0))
	}
	res, err = Solve(context.Background(), marketSplit(5, 40), nil, Options{TimeLimit: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != StatusTimeLimit {
		t.Fatalf("time limit: status %s (%s)", res.Status, res.ModelStatus)
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
