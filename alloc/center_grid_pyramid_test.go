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

// freeInBall agrees with a scan of the machine (free nodes within L-infinity
// distance r, the shorter way around on ring axes) for every node and radius on
// random free sets of tori, meshes and mixed grids of one to four dimensions,
// with balls that cross one, two and three seams and wrap whole rings.
func TestFreeInBallMatchesScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	grids := []*topo.Grid{
		topo.Torus(9), topo.Torus(8, 5), topo.Mesh(6, 7), topo.Torus(5, 4, 3), topo.Torus(7, 7, 7),
		topo.Torus(6, 2, 9), topo.Mesh(6, 5, 4), mustGrid(t, []int{8, 5, 6}, []bool{true, false, true}),
		mustGrid(t, []int{4, 7}, []bool{false, true}), topo.Torus(3, 4, 2, 3), topo.Mesh(3, 2, 4, 2),
	}
	for _, g := range grids {
		x := newGridIndex(g)
		for round := range 3 {
			st := NewState(g.N())
			var busy []int
			for v := range g.N() {
				if rng.Float64() < []float64{0, 0.4, 0.9}[round] {
					busy = append(busy, v)
				}
			}
			if err := st.Take(busy); err != nil {
				t.Fatal(err)
			}
			x.rebuild(st, prefixAll)
			for c := range g.N() {
				for r := 0; r <= x.maxLinf+1; r++ {
					want := 0
					for v := range g.N() {
						if st.IsFree(v) && x.linf(c, v) <= r {
							want++
						}
					}
					if got := x.freeInBall(c, r); got != want {
						t.Fatalf("%s round %d: freeInBall(%d, %d) = %d, want %d", g.Spec(), round, c, r, got, want)
					}
				}
			}
		}
	}
}
