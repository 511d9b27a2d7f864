package alloc

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/procalloc/procalloc/topo"
)

// TestShellScorePyramidMatchesBalls checks shellScorePyramid (the centers'
// bounds of mc1x1-greedy and mc1x1 on 2D meshes: L walked from the last
// center's, the score from ballSums) against shellScore counted ball by ball
// (the same allocator with its pyramid tables off): score, L, m and ok, for
// every free center in a random order (so the walk goes up and down from
// hints far and near), several k and bounds at and around the score, on random
// free sets of meshes of several shapes.
func TestShellScorePyramidMatchesBalls(t *testing.T) {
	rng := rand.New(rand.NewPCG(32, 1))
	checked, walkedDown := 0, 0
	for _, g := range []*topo.Grid{topo.Mesh(1, 9), topo.Mesh(6, 1), topo.Mesh(5, 5), topo.Mesh(12, 7), topo.Mesh(3, 17), topo.Mesh(24, 24)} {
		n := g.N()
		for round := range 4 {
			a, err := Parse("mc1x1-greedy", g, Options{})
			if err != nil {
				t.Fatal(err)
			}
			mc := a.(*mc1x1)
			free := make([]bool, n)
			nf := 0
			for v := range free {
				if free[v] = rng.Float64() >= []float64{0, 0.3, 0.7, 0.9}[round]; free[v] {
					nf++
				}
			}
			if nf < 2 {
				continue
			}
			setFree(t, a, free)
			mc.refresh(prefixAll)
			pyrW := mc.x.pyrW
			if pyrW == 0 {
				t.Fatalf("%s: no pyramid tables", g.Spec())
			}
			for _, k := range []int{2, 2 + rng.IntN(nf-1), nf, 2 + rng.IntN(min(nf-1, 12))} { // k = 1 is not the pyramid's
				for _, c := range rng.Perm(n) {
					if !free[c] {
						continue
					}
					mc.x.pyrW = 0
					ws, wL, wm, _ := mc.shellScore(c, k, math.MaxInt)
					mc.x.pyrW = pyrW
					for _, bound := range []int{math.MaxInt, ws + 1, ws, ws - 1} {
						hint := mc.hintL
						s, L, m, ok := mc.shellScore(c, k, bound)
						if ok != (ws <= bound) || ok && (s != ws || L != wL || m != wm) {
							t.Fatalf("%s round %d, center %d, k=%d, bound %d, hint %d: pyramid %d, %d, %d, %v; ball by ball %d, %d, %d", g.Spec(), round, c, k, bound, hint, s, L, m, ok, ws, wL, wm)
						}
						if hint > wL {
							walkedDown++
						}
						checked++
					}
				}
			}
		}
	}
	t.Logf("%d scores checked, %d walked down from the hint", checked, walkedDown)
	if walkedDown == 0 {
		t.Fatal("no walk down from a hint")
	}
}
