package alloc

import (
	"math/rand/v2"
	"testing"

	"github.com/procalloc/procalloc/topo"
)

// ballSums agrees with the ball counts summed radius by radius, for every node and
// radius, on random free sets of meshes of several shapes.
func TestBallSums(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, g := range []*topo.Grid{topo.Mesh(1, 1), topo.Mesh(7, 1), topo.Mesh(1, 6), topo.Mesh(5, 5), topo.Mesh(9, 4), topo.Mesh(3, 11), topo.Mesh(16, 16)} {
		x := newGridIndex(g)
		if x.pyrW == 0 {
			t.Fatalf("%s: no pyramid tables", g.Spec())
		}
		for round := range 4 {
			st := NewState(g.N())
			var busy []int
			for v := range g.N() {
				if rng.Float64() < []float64{0, 0.3, 0.7, 0.95}[round] {
					busy = append(busy, v)
				}
			}
			if err := st.Take(busy); err != nil {
				t.Fatal(err)
			}
			x.rebuild(st, prefixAll)
			for c := range g.N() {
				want := 0
				for R := 0; R <= x.maxLinf; R++ {
					want += x.freeInBall(c, R)
					if got := x.ballSums(c, R); got != want {
						t.Fatalf("%s round %d: ballSums(%d, %d) = %d, want %d", g.Spec(), round, c, R, got, want)
					}
				}
			}
		}
	}
}
