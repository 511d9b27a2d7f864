package ilp

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/ilp/highs"
	"github.com/procalloc/procalloc/topo"
)

// Issue 13 item 6: HiGHS does not poll interrupts in presolve and its MIP setup, which
// took 15 to 78 s on this 40-node graph; the solve must still end within about a
// second of a cancel, and a time limit must hold within a few percent, each time with
// the best ordering found so far and its bound.
func TestOrderingStopsPromptly(t *testing.T) {
	if !highs.Available() {
		t.Skip("HiGHS not compiled in (build with -tags highs)")
	}
	if testing.Short() {
		t.Skip("-short: runs two MIPs of several seconds")
	}
	f, err := os.Open("testdata/random40.txt")
	if err != nil {
		t.Fatal(err)
	}
	g, err := topo.ReadGraph(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	w := curves.Weights{1, 0.5, 0.25}
	check := func(res *OrderResult, err error, what string, took, want time.Duration) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if took > want {
			t.Fatalf("%s: returned after %v, want within %v", what, took, want)
		}
		if err := curves.Order(res.Order).Validate(g.N()); err != nil || res.Bound > res.Objective {
			t.Fatalf("%s: order %v, bound %g, objective %g", what, err, res.Bound, res.Objective)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	t0 := time.Now()
	time.AfterFunc(2*time.Second, cancel)
	res, err := SolveOrdering(ctx, g, w, OrderOptions{})
	// Generous margins: the test must pass on a loaded machine and still catch the
	// old behaviour (15 to 78 s); the CLI measurement is in the closing note.
	check(res, err, "cancel after 2 s", time.Since(t0), 5*time.Second)
	if res.Status != StatusInterrupted && res.Status != StatusOptimal {
		t.Fatalf("cancelled: status %s", res.Status)
	}
	t0 = time.Now()
	ctx, cancel = context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	res, err = SolveOrdering(ctx, g, w, OrderOptions{})
	check(res, err, "3 s time limit", time.Since(t0), 6*time.Second)
}
