//go:build highs

package order

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/internal/oracle"
	"github.com/procalloc/procalloc/internal/qaptest"
	"github.com/procalloc/procalloc/qap"
)

// TestBranchAndBoundAgainstMIP: where the MIP proves optimality, the branch and bound
// (MethodBB) proves the same value, on random QAPs and on
// orderings of random graphs, line and ring.
func TestBranchAndBoundAgainstMIP(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(31, 32))
	for trial := 0; trial < 4; trial++ {
		q := qaptest.RandomQAP(rng, 5, 5, trial%2 == 0, 1)
		mctx, cancel := context.WithTimeout(ctx, time.Minute)
		mip, err := SolveQAP(mctx, q, nil, Options{forceMIP: true})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		bb, err := SolveQAP(ctx, q, nil, Options{Method: MethodBB})
		if err != nil {
			t.Fatal(err)
		}
		if mip.Status == qap.StatusOptimal && (bb.Status != qap.StatusOptimal || bb.Objective != mip.Objective) {
			t.Fatalf("QAP trial %d: bb %s %v, MIP optimal %v", trial, bb.Status, bb.Objective, mip.Objective)
		}
	}
	for trial := 0; trial < 2; trial++ {
		g := oracle.RandomGraph(rng, 7, 3)
		ring := trial%2 == 1
		w := curves.Weights{1, 0.5}
		mctx, cancel := context.WithTimeout(ctx, time.Minute)
		mip, err := SolveOrdering(mctx, g, w, OrderOptions{Ring: ring, Options: Options{forceMIP: true}})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		bb, err := SolveOrdering(ctx, g, w, OrderOptions{Ring: ring, Options: Options{Method: MethodBB}})
		if err != nil {
			t.Fatal(err)
		}
		if mip.Status == qap.StatusOptimal && (bb.Status != qap.StatusOptimal || bb.Objective != mip.Objective) {
			t.Fatalf("ordering trial %d (ring %v): bb %s %v, MIP optimal %v", trial, ring, bb.Status, bb.Objective, mip.Objective)
		}
	}
}
