package alloc

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/procalloc/procalloc/topo"
)

// The greedy collector's paths on tori (rings read around the ring on 2D tori, the
// wrapped key pass on 1D and 3D tori and on partly wrapped grids) against the
// literal reference (refCenter), node sets and tie counts, on random free sets of
// every density, even and odd sides, jobs from one node to all but one; also on
// meshes, where the same code runs without wraparound.
func TestGreedyTorusMatchesReference(t *testing.T) {
	grids := []*topo.Grid{topo.Torus(10, 10), topo.Torus(9, 7), topo.Torus(4, 12), topo.Torus(6, 6, 4), topo.Torus(5, 3, 3), topo.Torus(13),
		mustGrid(t, []int{8, 5}, []bool{true, false}), mustGrid(t, []int{7, 6}, []bool{false, true}), mustGrid(t, []int{4, 5, 3}, []bool{true, false, true}), topo.Mesh(9, 8)}
	rounds := 250
	if testing.Short() {
		rounds = 20
	}
	rng := rand.New(rand.NewPCG(11, 12))
	checked := 0
	for _, g := range grids {
		for r := range rounds {
			a, err := Parse("mc1x1-greedy", g, Options{Compat: CompatPReMAS})
			if err != nil {
				t.Fatal(err)
			}
			tr := a.(TieReporter)
			tr.CountTies(r%2 == 0)
			// Sparse, half and dense free sets; a fifth of the rounds start from an
			// empty machine, where every center ties.
			frac := []float64{0.15, 0.5, 0.85, 1, 1}[r%5]
			free := randomFree(rng, g.N(), frac)
			setFree(t, a, free)
			nf := a.NumFree()
			k := 1 + rng.IntN(nf)
			if r%7 == 0 {
				k = 1 + rng.IntN(min(nf, 12))
			}
			allocateMatchesRef(t, a, g, free, k, "mc1x1-greedy", r%2 == 0, func() string {
				return fmt.Sprintf("%s round %d, free %v", g.Spec(), r, freeList(free))
			})
			checked++
		}
	}
	t.Logf("%d allocations checked", checked)
}

// The greedy collector on larger grids against the literal reference: wider than
// the windows, shells and margins of the fast paths (per-axis totals kept near the
// center only, runs translated between centers near a mesh's faces), on empty
// machines, young free sets (a few busy blocks) and random ones.
func TestGreedyLargeGridsMatchReference(t *testing.T) {
	grids := []*topo.Grid{topo.Mesh(20, 18), topo.Mesh(8, 7, 9), topo.Torus(16, 14), topo.Torus(7, 8, 6)}
	rounds := 6
	if testing.Short() {
		rounds = 2
	}
	rng := rand.New(rand.NewPCG(32, 1))
	for _, g := range grids {
		n := g.N()
		for r := range rounds {
			free := greedyTestFree(rng, n, r, func() float64 { return 0.5 })
			nf := len(freeList(free))
			if nf < 2 {
				continue
			}
			k := 1 + rng.IntN(min(nf-1, 48))
			for _, ties := range []bool{true, false} {
				a, err := Parse("mc1x1-greedy", g, Options{Compat: CompatPReMAS, NoMemo: true})
				if err != nil {
					t.Fatal(err)
				}
				a.(TieReporter).CountTies(ties)
				setFree(t, a, free)
				allocateMatchesRef(t, a, g, free, k, "mc1x1-greedy", ties, func() string { return fmt.Sprintf("%s round %d", g.Spec(), r) })
			}
		}
	}
}

// greedyTestFree is round r's free set of n nodes in the greedy tests: all free
// (r%3 == 0), young (a few busy blocks of consecutive indices) or random with a
// fraction busy() of busy nodes.
func greedyTestFree(rng *rand.Rand, n, r int, busy func() float64) []bool {
	free := make([]bool, n)
	switch r % 3 {
	case 0:
		for v := range free {
			free[v] = true
		}
	case 1:
		for v := range free {
			free[v] = true
		}
		for range 1 + rng.IntN(4) {
			lo := rng.IntN(n)
			for v := lo; v < min(n, lo+1+rng.IntN(n/8)); v++ {
				free[v] = false
			}
		}
	default:
		free = randomFree(rng, n, busy())
	}
	return free
}
