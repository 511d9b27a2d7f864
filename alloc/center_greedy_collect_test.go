package alloc

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/procalloc/procalloc/topo"
)

// The greedy collector's fast path (greedyCollectShells: the inner shells' score,
// counts and per-axis totals from prefix sums, mesh axes kept in windows with their
// far bounds and least totals taken by convexity, the heap of keys kept less a
// common bound) against the plain definition (greedyCollectPlain: every free node
// read, every candidate rescanned per node taken), center by center: for every free
// center and several k, the same score, the same nodes taken in the same order,
// the same set (greedySortedSet: sorted, without a sort of the whole set), and for
// stops around the score and the lower bound, a give-up only where the score
// exceeds the stop, else the same score. Free sets: fragmented ones (random, at
// several densities, and busy blocks), on meshes wider than the windows, tori,
// partly wrapped grids, 1D to 3D.
func TestGreedyCollectMatchesPlain(t *testing.T) {
	grids := []*topo.Grid{topo.Mesh(30, 27), topo.Mesh(41, 5), topo.Mesh(9, 8, 7), topo.Mesh(60), topo.Torus(14, 11), topo.Torus(36, 21),
		topo.Torus(6, 7, 5), topo.Torus(25), mustGrid(t, []int{17, 12}, []bool{false, true}), mustGrid(t, []int{8, 9, 6}, []bool{true, false, false})}
	rounds := 6
	if testing.Short() {
		rounds = 2
	}
	rng := rand.New(rand.NewPCG(32, 7))
	centers, gaveUps := 0, 0
	for _, g := range grids {
		for r := range rounds {
			free := randomFreeSet(rng, g)
			a, err := Parse("mc1x1-greedy", g, Options{Compat: CompatPReMAS, NoMemo: true})
			if err != nil {
				t.Fatal(err)
			}
			mc := a.(*mc1x1)
			if !mc.keyBits.ok {
				t.Fatalf("%s: no packed keys", g.Spec())
			}
			setFree(t, a, free)
			// as search prepares a decision
			mc.refresh(prefixFree)
			mc.fl = mc.st.AppendFreeInOrder(mc.fl[:0], mc.order)
			for i, v := range mc.fl {
				mc.pos[v] = int32(i)
			}
			nf := len(mc.fl)
			if nf < 2 {
				continue
			}
			ks := []int{1, 2, 1 + rng.IntN(min(nf-1, 12)), 1 + rng.IntN(nf-1), 1 + rng.IntN(nf-1), nf - 1}
			for _, k := range ks {
				for _, c := range mc.fl {
					lower, L, m, _ := mc.shellScore(c, k, math.MaxInt)
					want, set := mc.greedyCollectPlain(c, L, m)
					wantSet := slices.Sorted(slices.Values(set))
					wantTaken := slices.Clone(set[len(set)-m:])
					got, taken := mc.greedyCollectShells(c, L, m, math.MaxInt)
					if got != want || !slices.Equal(taken, wantTaken) {
						t.Fatalf("%s round %d, free %v, k=%d, center %d: fast path scores %d taking %v, plain %d taking %v",
							g.Spec(), r, freeList(free), k, c, got, taken, want, wantTaken)
					}
					if s := mc.greedySortedSet(c, L, slices.Clone(taken)); !slices.Equal(s, wantSet) {
						t.Fatalf("%s round %d, k=%d, center %d: sorted set %v, plain %v", g.Spec(), r, k, c, s, wantSet)
					}
					if _, full := mc.greedyCollect(c, L, m, math.MaxInt); !slices.Equal(slices.Sorted(slices.Values(full)), wantSet) {
						t.Fatalf("%s round %d, k=%d, center %d: set %v, plain %v", g.Spec(), r, k, c, full, wantSet)
					}
					for _, stop := range []int{lower - 1, lower, lower + 1, want - 2, want - 1, want} {
						got, _ := mc.greedyCollectShells(c, L, m, stop)
						switch {
						case got == math.MaxInt && want <= stop:
							t.Fatalf("%s round %d, k=%d, center %d: gives up below stop %d, scores %d", g.Spec(), r, k, c, stop, want)
						case got != math.MaxInt && got != want:
							t.Fatalf("%s round %d, k=%d, center %d, stop %d: scores %d, plain %d", g.Spec(), r, k, c, stop, got, want)
						case got == math.MaxInt:
							gaveUps++
						}
					}
					centers++
				}
			}
		}
	}
	t.Logf("%d centers checked against the plain collector, %d give-ups", centers, gaveUps)
	if centers < 5000 || gaveUps < 1000 {
		t.Fatalf("only %d centers and %d give-ups checked", centers, gaveUps)
	}
}

// The greedy collector's bounds kept between decisions (greedyMemo) against fresh
// runs: on random sequences of allocations and releases (jobs of a few recurring
// sizes, so that centers are met again with the same request, and fragmented free
// sets), every center the memo skips is collected afresh by the plain definition and
// must score above the decision's stop, and every allocation and tie count equals
// that of an allocator without the memo.
func TestGreedyMemoMatchesFresh(t *testing.T) {
	grids := []*topo.Grid{topo.Mesh(40, 32), topo.Mesh(33, 9), topo.Mesh(9, 8, 7), topo.Mesh(90), topo.Torus(24, 20),
		topo.Torus(7, 6, 8), topo.Torus(11, 11, 11), topo.Torus(60), mustGrid(t, []int{30, 21}, []bool{true, false}), mustGrid(t, []int{8, 11, 7}, []bool{false, true, false})}
	steps := 1500
	if testing.Short() {
		steps = 900
	}
	rng := rand.New(rand.NewPCG(5, 32))
	skipped, decisions := 0, 0
	for gi, g := range grids {
		ties := gi%2 == 0
		var al [2]Allocator
		for o := range 2 {
			a, err := Parse("mc1x1-greedy", g, Options{Compat: CompatPReMAS, NoMemo: true})
			if err != nil {
				t.Fatal(err)
			}
			a.(TieReporter).CountTies(ties)
			al[o] = a
		}
		mc := al[0].(*mc1x1)
		al[1].(*mc1x1).memo.off = true
		if gi%2 == 1 {
			mc.memo.side = 1 + gi%3 // blocks of a node or a few, so that a wrong radius is seen
		}
		mc.memo.check = func(c, k, L, m, stop int) {
			if score, _ := mc.greedyCollectPlain(c, L, m); score <= stop {
				t.Fatalf("%s, k=%d: the memo skips center %d, which scores %d, not above stop %d", g.Spec(), k, c, score, stop)
			}
			skipped++
		}
		n := g.N()
		sizes := []int{1 + rng.IntN(3), 2 + rng.IntN(n/20+1), 3 + rng.IntN(n/8+1)}
		var held [][]int
		for range steps {
			if len(held) > 0 && (rng.IntN(4) == 0 || al[0].NumFree() < n/6) {
				// a whole job, or a random part of it (fragmented free sets)
				j := rng.IntN(len(held))
				var part func() bool
				if rng.IntN(2) == 0 {
					part = func() bool { return rng.IntN(2) == 0 }
				}
				held = releaseInLockstep(t, al[:], held, j, part)
				continue
			}
			k := sizes[rng.IntN(len(sizes))]
			if rng.IntN(8) == 0 {
				k = 1 + rng.IntN(n/4)
			}
			if k > al[0].NumFree() {
				continue
			}
			held = append(held, allocateInLockstep(t, al, k, ties, g.Spec()+", with the memo"))
			decisions++
		}
	}
	t.Logf("%d decisions, %d centers skipped by the memo, each checked", decisions, skipped)
	if skipped < 500 {
		t.Fatalf("only %d skips checked: the test no longer exercises the memo", skipped)
	}
}

// releaseInLockstep releases from every allocator of al the nodes of job j of
// held for which release returns true (every node when release is nil), keeps
// the others as job j, and returns held without job j when none are kept.
func releaseInLockstep(t *testing.T, al []Allocator, held [][]int, j int, release func() bool) [][]int {
	t.Helper()
	rel, keep := held[j], []int(nil)
	if release != nil {
		rel = nil
		for _, v := range held[j] {
			if release() {
				rel = append(rel, v)
			} else {
				keep = append(keep, v)
			}
		}
	}
	for _, a := range al {
		if err := a.Release(rel); err != nil {
			t.Fatal(err)
		}
	}
	if len(keep) > 0 {
		held[j] = keep
		return held
	}
	return slices.Delete(held, j, j+1)
}

// allocateInLockstep allocates k nodes with both allocators of al, one with the
// feature under test (what names it) and one without, and fails unless they
// choose the same nodes and, when ties, count the same ties; it returns them.
func allocateInLockstep(t *testing.T, al [2]Allocator, k int, ties bool, what string) []int {
	t.Helper()
	var got [2][]int
	for o, a := range al {
		var err error
		if got[o], err = a.Allocate(k); err != nil {
			t.Fatal(err)
		}
	}
	t0, t1 := al[0].(TieReporter).LastTies(), al[1].(TieReporter).LastTies()
	if !slices.Equal(got[0], got[1]) || ties && t0 != t1 {
		t.Fatalf("%s, k=%d: %v (%d tied), without %v (%d tied)", what, k, got[0], t0, got[1], t1)
	}
	return got[0]
}
