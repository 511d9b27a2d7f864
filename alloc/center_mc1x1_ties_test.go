package alloc

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/procalloc/procalloc/internal/ctxtest"
	"github.com/procalloc/procalloc/topo"
)

// TestMayShareOnBlocks checks MC1x1's tie counts against the reference where ties are
// what mayShare is for: meshes whose free nodes form large blocks (a few busy
// rectangles), square and other job sizes, so that many centers tie and some tied
// centers pick the same node set. It also checks that both cases occurred: sets left
// unworked (counted from box counts alone) and sets shared by several tied centers.
func TestMayShareOnBlocks(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 128))
	rounds := 50
	if testing.Short() {
		rounds = 15
	}
	var unworked, worked, shared int
	for _, g := range []*topo.Grid{topo.Mesh(16, 14), topo.Mesh(21, 8)} {
		X, Y := g.Dims()[0], g.Dims()[1]
		for r := range rounds {
			free := make([]bool, g.N())
			for i := range free {
				free[i] = true
			}
			for range rng.IntN(4) {
				x0, y0 := rng.IntN(X), rng.IntN(Y)
				x1, y1 := min(X, x0+1+rng.IntN(X/2)), min(Y, y0+1+rng.IntN(Y/2))
				for y := y0; y < y1; y++ {
					for x := x0; x < x1; x++ {
						free[x+y*X] = false
					}
				}
			}
			k, ok := tieJobSize(rng, free, []int{1, 4, 9, 16, 25, 36, 49, 64}, r)
			if !ok {
				continue
			}
			a, err := Parse("mc1x1", g, Options{Compat: CompatPReMAS})
			if err != nil {
				t.Fatal(err)
			}
			mc := a.(*mc1x1)
			if r%2 == 1 {
				forceLists(mc)
			}
			mc.CountTies(true)
			setFree(t, a, free)
			before := mc.TieStats()
			want, wantTies := refCenter(g, free, k, "mc1x1", nil)
			got, err := a.Allocate(k)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("%s round %d, k=%d: got %v, reference %v", g.Spec(), r, k, got, want)
			}
			if mc.LastTies() != wantTies {
				t.Fatalf("%s round %d, k=%d: %d tied candidates, reference %d", g.Spec(), r, k, mc.LastTies(), wantTies)
			}
			st := mc.TieStats()
			if st.Tied > before.Tied && st.TiedCandidates-before.TiedCandidates < st.TiedCenters-before.TiedCenters {
				shared++
			}
			if len(mc.tied) > 1 && len(mc.share) == len(mc.tied) {
				for _, s := range mc.share {
					if s {
						worked++
					} else {
						unworked++
					}
				}
			}
		}
	}
	t.Logf("tied centers: %d counted from box counts, %d worked out; %d decisions with shared sets", unworked, worked, shared)
	if unworked == 0 || worked == 0 || shared == 0 {
		t.Fatalf("the free sets do not exercise mayShare: %d unworked, %d worked out, %d decisions with shared sets", unworked, worked, shared)
	}
}

// tieJobSize picks a job size for round r of a ties test on free: one of ks, or
// in every third round any, below the number of free nodes; false when fewer
// than two are free.
func tieJobSize(rng *rand.Rand, free []bool, ks []int, r int) (int, bool) {
	nf := 0
	for _, f := range free {
		if f {
			nf++
		}
	}
	if nf < 2 {
		return 0, false
	}
	k := ks[rng.IntN(len(ks))]
	if r%3 == 0 {
		k = 1 + rng.IntN(nf)
	}
	return min(k, nf-1), true
}

// MC1x1 counting ties works out the node set of every tied center: on an empty
// torus:58x58x58 all 195,112 tie, 17 s of CPU for one decision, which Ctrl-C could
// not stop. AllocateContext stops between them with the context's cause, the state
// and the tie statistics unchanged; the next decision is the one a fresh allocator
// makes, and AllocateContext with a live context is Allocate. On lists (as on
// machines too large for bitsets) it stops as well inside mayShareArcs.
func TestMC1x1AllocateContextStops(t *testing.T) {
	for _, lists := range []bool{false, true} {
		testMC1x1AllocateContextStops(t, lists)
	}
}

func testMC1x1AllocateContextStops(t *testing.T, lists bool) {
	g := topo.Torus(8, 8, 8) // 512 tied centers on the empty torus
	a, err := Parse("mc1x1", g, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if lists {
		forceLists(a)
	}
	a.(TieReporter).CountTies(true)
	ca := a.(ContextAllocator)
	if _, err := ca.AllocateContext(ctxtest.StopAfter(2), 20); !errors.Is(err, context.Canceled) {
		t.Fatalf("stopped after 2 looks: %v", err)
	}
	if a.NumFree() != g.N() || a.(TieReporter).TieStats() != (TieStats{}) {
		t.Fatalf("after the stopped decision: %d free, tie stats %+v", a.NumFree(), a.(TieReporter).TieStats())
	}
	fresh, _ := Parse("mc1x1", g, Options{})
	fresh.(TieReporter).CountTies(true)
	for _, k := range []int{20, 7, 64} {
		got, err := ca.AllocateContext(context.Background(), k)
		want, werr := fresh.Allocate(k)
		if err != nil || werr != nil || !slices.Equal(got, want) || a.(TieReporter).LastTies() != fresh.(TieReporter).LastTies() {
			t.Fatalf("k=%d: %v (%v), a fresh allocator %v (%v)", k, got, err, want, werr)
		}
	}
	if a.(TieReporter).TieStats() != fresh.(TieReporter).TieStats() {
		t.Errorf("tie stats %+v, a fresh allocator's %+v", a.(TieReporter).TieStats(), fresh.(TieReporter).TieStats())
	}
}
