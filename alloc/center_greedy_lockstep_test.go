package alloc

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/procalloc/procalloc/topo"
)

// greedyPair returns two mc1x1-greedy allocators on g (PReMAS's ties, no memo) with
// the free set free and their free lists in order: the set-up of the tests that run
// one collector variant against another center by center.
func greedyPair(t *testing.T, g *topo.Grid, free []bool) (variant, reference *mc1x1) {
	t.Helper()
	var al [2]*mc1x1
	for o := range 2 {
		a, err := Parse("mc1x1-greedy", g, Options{Compat: CompatPReMAS, NoMemo: true})
		if err != nil {
			t.Fatal(err)
		}
		al[o] = a.(*mc1x1)
		setFree(t, a, free)
		al[o].refresh(prefixFree)
		al[o].fl = al[o].st.AppendFreeInOrder(al[o].fl[:0], al[o].order)
		for i, v := range al[o].fl {
			al[o].pos[v] = int32(i)
		}
	}
	return al[0], al[1]
}

// lockstepSizes are the job sizes tried on a free set of nf >= 2 nodes: a small one,
// two at random and all but one.
func lockstepSizes(rng *rand.Rand, nf int) []int {
	return []int{1 + rng.IntN(min(nf-1, 30)), 1 + rng.IntN(nf-1), 1 + rng.IntN(nf-1), nf - 1}
}

// collectLockstep runs the collector of variant and of reference from center c for
// shell L and m nodes from it: the same score, nodes taken in order and radius read
// when run to the end; after it afterRun (if any) checks the variant's own state;
// with plain, the plain definition's score and nodes too; then for stops around the
// score the same result, radius and give-up bound. It fails t naming where (label)
// and returns how many of the stopped runs gave up.
func collectLockstep(t *testing.T, label, variantName, refName string, variant, reference *mc1x1, c, L, m, lower int, plain bool, afterRun func() string) (gaveUps int) {
	t.Helper()
	want, wantTaken := reference.greedyCollectShells(c, L, m, math.MaxInt)
	wantTaken = slices.Clone(wantTaken)
	wantR := reference.lastR
	got, taken := variant.greedyCollectShells(c, L, m, math.MaxInt)
	taken = slices.Clone(taken)
	if afterRun != nil {
		if err := afterRun(); err != "" {
			t.Fatalf("%s: %s", label, err)
		}
	}
	if got != want || !slices.Equal(taken, wantTaken) || variant.lastR != wantR {
		t.Fatalf("%s: %s score %d taking %v (radius %d), %s %d taking %v (radius %d)",
			label, variantName, got, taken, variant.lastR, refName, want, wantTaken, wantR)
	}
	if plain {
		ps, pset := variant.greedyCollectPlain(c, L, m)
		if ps != got || !slices.Equal(pset[len(pset)-m:], taken) {
			t.Fatalf("%s: %s score %d taking %v, plain %d taking %v", label, variantName, got, taken, ps, pset[len(pset)-m:])
		}
	}
	for _, stop := range []int{lower - 1, lower, lower + 1, want - 2, want - 1, want} {
		w, _ := reference.greedyCollectShells(c, L, m, stop)
		wR, wB := reference.lastR, reference.lastBound
		g2, _ := variant.greedyCollectShells(c, L, m, stop)
		if g2 != w || variant.lastR != wR || variant.lastBound != wB {
			t.Fatalf("%s, stop %d: %s %d (radius %d, bound %d), %s %d (radius %d, bound %d)",
				label, stop, variantName, g2, variant.lastR, variant.lastBound, refName, w, wR, wB)
		}
		if g2 == math.MaxInt {
			gaveUps++
		}
	}
	return gaveUps
}

// greedyDecisionsLockstep replays random allocations and partial releases on each
// grid with two mc1x1-greedy allocators in lockstep (ties counted on every other grid),
// the first set up by variant (which may return a check of its own after the grid's
// steps, "" when fine), the second by reference: the same nodes, tie counts and tie
// statistics; label names the variant in messages. It returns the decisions made.
func greedyDecisionsLockstep(t *testing.T, grids []*topo.Grid, rng *rand.Rand, label string, variant func(gi int, a *mc1x1) func() string, reference func(a *mc1x1)) int {
	t.Helper()
	steps := 300
	if testing.Short() {
		steps = 100
	}
	decisions := 0
	for gi, g := range grids {
		ties := gi%2 == 0
		var al [2]Allocator
		for o := range 2 {
			a, err := Parse("mc1x1-greedy", g, Options{Compat: CompatPReMAS})
			if err != nil {
				t.Fatal(err)
			}
			a.(TieReporter).CountTies(ties)
			al[o] = a
		}
		check := variant(gi, al[0].(*mc1x1))
		reference(al[1].(*mc1x1))
		n := g.N()
		sizes := []int{1 + rng.IntN(5), 2 + rng.IntN(n/20+1), 3 + rng.IntN(n/6+1)}
		var held [][]int
		for range steps {
			if len(held) > 0 && (rng.IntN(4) == 0 || al[0].NumFree() < n/6) {
				j := rng.IntN(len(held))
				var part func() bool
				if rng.IntN(2) == 0 {
					part = func() bool { return rng.IntN(2) == 0 }
				}
				held = releaseInLockstep(t, al[:], held, j, part)
				continue
			}
			k := sizes[rng.IntN(len(sizes))]
			if k > al[0].NumFree() {
				continue
			}
			held = append(held, allocateInLockstep(t, al, k, ties, g.Spec()+", "+label))
			decisions++
		}
		if ties {
			s0, s1 := al[0].(TieReporter).TieStats(), al[1].(TieReporter).TieStats()
			if s0 != s1 {
				t.Fatalf("%s: tie statistics %+v with %s, %+v without", g.Spec(), s0, label, s1)
			}
		}
		if check != nil {
			if err := check(); err != "" {
				t.Fatalf("%s: %s", g.Spec(), err)
			}
		}
	}
	return decisions
}
