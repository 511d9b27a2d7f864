package order

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/qap"
	"github.com/procalloc/procalloc/topo"
)

// Issue 13 item 2: tolerances must scale with the data. Weights 1e-10 (and 1e-300)
// are list:1 scaled: the same ordering, the objective scaled exactly, and "optimal"
// only with a bound that meets it.
func TestTinyWeightsSolvedLikeUnitWeights(t *testing.T) {
	m := topo.Mesh(3, 3)
	for _, method := range []Method{MethodLocal, MethodMIP, MethodDP} {
		unit, err := SolveOrdering(context.Background(), m, curves.Weights{1}, OrderOptions{Options: Options{Method: method}})
		if err != nil {
			if method == MethodMIP && strings.Contains(err.Error(), "HiGHS") {
				continue
			}
			t.Fatal(err)
		}
		for _, s := range []float64{1e-10, 1e-300, 1e30} {
			res, err := SolveOrdering(context.Background(), m, curves.Weights{s}, OrderOptions{Options: Options{Method: method}})
			if err != nil {
				t.Fatal(err)
			}
			want := unit.Objective * s
			if math.Abs(res.Objective-want) > 1e-12*want {
				t.Errorf("%s, w = %g: objective %g, want %g", method, s, res.Objective, want)
			}
			if res.Status == qap.StatusOptimal && res.Bound < res.Objective*(1-1e-12) {
				t.Errorf("%s, w = %g: optimal with bound %g below objective %g", method, s, res.Bound, res.Objective)
			}
			if res.Status != unit.Status {
				t.Errorf("%s, w = %g: status %s, with w = 1 %s", method, s, res.Status, unit.Status)
			}
		}
	}
}

// Issue 13 items 1 and 3: negative entries and overflowing objectives are refused
// with a message, never certified wrongly nor looped on.
func TestQAPDataRefused(t *testing.T) {
	q := &qap.QAP{N: 3, A: []float64{0, 1, 2, 1, 0, -3, 2, 3, 0}, B: []float64{0, 1, 1, 1, 0, 1, 1, 1, 0}}
	if _, err := SolveQAP(context.Background(), q, nil, Options{Method: MethodLocal}); err == nil || !strings.Contains(err.Error(), "negative") {
		t.Fatalf("negative flow: err = %v", err)
	}
	q.A[5] = 3
	q.B[1] = -1
	if _, err := SolveQAP(context.Background(), q, nil, Options{Method: MethodLocal}); err == nil || !strings.Contains(err.Error(), "negative") {
		t.Fatalf("negative distance: err = %v", err)
	}
	_, err := SolveOrdering(context.Background(), topo.Mesh(3, 3), curves.Weights{1e308, 1e308}, OrderOptions{})
	if err == nil || !strings.Contains(err.Error(), "float64") {
		t.Fatalf("overflowing weights: err = %v", err)
	}
}
