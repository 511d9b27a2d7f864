package qap

import (
	"context"
	"strings"
	"testing"
)

// TestSolversRefuseBadShape: a QAP whose matrices are not N x N (or nil) is an error
// naming the sizes from every solver entry, never an index past the slices.
func TestSolversRefuseBadShape(t *testing.T) {
	ctx := context.Background()
	ok := &QAP{N: 2, A: []float64{0, 1, 0, 0}, B: []float64{0, 1, 1, 0}}
	cases := []struct {
		name string
		q    *QAP
		want string
	}{
		{"nil", nil, "no instance"},
		{"negative N", &QAP{N: -1}, "negative"},
		{"short A", &QAP{N: 3, A: []float64{1}, B: make([]float64, 9)}, "have 1 and 9"},
		{"long B", &QAP{N: 2, A: make([]float64, 4), B: make([]float64, 5)}, "have 4 and 5"},
	}
	for _, c := range cases {
		check := func(what string, err error) {
			t.Helper()
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s, %s: err = %v, want one saying %q", c.name, what, err, c.want)
			}
		}
		check("CheckSolvable", c.q.CheckSolvable())
		_, err := BranchAndBound(ctx, c.q, nil, BBOptions{})
		check("BranchAndBound", err)
		_, err = BranchAndBoundOrdering(ctx, c.q, false, nil, BBOptions{})
		check("BranchAndBoundOrdering", err)
		_, _, err = LocalSearch(ctx, c.q, []int{0, 1}, LocalSearchOptions{})
		check("LocalSearch", err)
	}
	if err := ok.CheckSolvable(); err != nil {
		t.Errorf("a 2 x 2 instance: %v", err)
	}
	if _, _, err := LocalSearch(ctx, ok, []int{1, 0}, LocalSearchOptions{}); err != nil {
		t.Errorf("LocalSearch on a 2 x 2 instance: %v", err)
	}
}
