package order

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/qap"
	"github.com/procalloc/procalloc/topo"
)

// TestStartObjectiveIsTheStartsF checks that StartObjective means one thing on every
// path: F (curves.Objective, what evaluate prints) of the starting ordering
// StartSource names, before any search: on the dense path (bb, local, mip; the local
// search used to be counted in) and the scalable path (above ScalableMinNodes), and on
// SolveQAP, the objective of the start it names (nug12 printed "start 578 (identity)"
// though identity scores 724).
func TestStartObjectiveIsTheStartsF(t *testing.T) {
	cases := []struct {
		spec   string
		w      curves.Weights
		ring   bool
		method Method
	}{
		{"mesh:4x5", curves.Weights{1, 0.5}, false, MethodLocal},
		{"mesh:3x4", curves.Weights{1}, true, MethodBB},
		{"torus:4x4", curves.Weights{1, 0.25}, false, MethodAuto},
		{"mesh:5x6", curves.Weights{1, 1, 1}, false, MethodLocal},
		{"mesh:17x16", curves.Weights{1}, false, MethodAuto}, // scalable
	}
	for _, c := range cases {
		m, err := topo.ParseSpec(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		res, err := SolveOrdering(context.Background(), m, c.w, OrderOptions{Ring: c.ring, Options: Options{Method: c.method}})
		if err != nil {
			t.Fatalf("%s: %v", c.spec, err)
		}
		if res.StartSource == "dp" {
			continue // the DP has no start: it is its own
		}
		f, ok := res.Candidates[res.StartSource]
		if !ok {
			t.Fatalf("%s %s: start %q not among the scored starts %v", c.spec, c.method, res.StartSource, res.Candidates)
		}
		if res.StartObjective != f || res.StartObjective < res.Objective {
			t.Errorf("%s %s (scalable %v): start_objective %g, F of start %s %g, objective %g",
				c.spec, c.method, res.Scalable, res.StartObjective, res.StartSource, f, res.Objective)
		}
	}
	r := rand.New(rand.NewPCG(5, 6))
	for trial := range 20 {
		n := 6 + r.IntN(5)
		q := &qap.QAP{N: n, A: make([]float64, n*n), B: make([]float64, n*n)}
		for i := range n {
			for j := range n {
				if i != j {
					q.A[i*n+j], q.B[i*n+j] = float64(r.IntN(10)), float64(1+r.IntN(9))
				}
			}
		}
		res, err := SolveQAP(context.Background(), q, nil, Options{Method: []Method{MethodLocal, MethodBB}[trial%2]})
		if err != nil {
			t.Fatal(err)
		}
		ident := make([]int, n)
		for i := range ident {
			ident[i] = i
		}
		if res.StartSource != "identity" || res.StartObjective != q.Objective(ident) {
			t.Errorf("trial %d: start %s %g, identity scores %g (objective %g)", trial, res.StartSource, res.StartObjective, q.Objective(ident), res.Objective)
		}
	}
}
