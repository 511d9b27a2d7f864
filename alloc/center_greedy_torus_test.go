package alloc

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/procalloc/procalloc/topo"
)

// The greedy collector's paths on tori (rings read around the ring on 2D tori, the
// wrapped key pass on 1D and 3D tori and on partly wrapped grids) against the
// literal reference (refCenter), node sets and tie counts, on random free sets of
// every density, even and odd sides, jobs from one node to all but one; also on
// meshes, where the same code runs without wraparound.
func TestGreedyTorusMatchesReference(t *testing.T) {
	mk := func(dims []int, wrap []bool) *topo.Grid {
		g, err := topo.NewGrid(dims, wrap)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	grids := []*topo.Grid{topo.Torus(10, 10), topo.Torus(9, 7), topo.Torus(4, 12), topo.Torus(6, 6, 4), topo.Torus(5, 3, 3), topo.Torus(13),
		mk([]int{8, 5}, []bool{true, false}), mk([]int{7, 6}, []bool{false, true}), mk([]int{4, 5, 3}, []bool{true, false, true}), topo.Mesh(9, 8)}
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
			want, wantTies := refCenter(g, free, k, "mc1x1-greedy", nil)
			got, err := a.Allocate(k)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("%s round %d, free %v, k=%d: got %v, reference %v", g.Spec(), r, freeList(free), k, got, want)
			}
			if r%2 == 0 && tr.LastTies() != wantTies {
				t.Fatalf("%s round %d, k=%d: %d tied, reference %d", g.Spec(), r, k, tr.LastTies(), wantTies)
			}
			checked++
		}
	}
	t.Logf("%d allocations checked", checked)
}
