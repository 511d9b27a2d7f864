package netsim

import (
	"math/rand/v2"
	"testing"
)

// TestAllToAllTorusLoadMatchesTrace: on tori (2D and 3D, even and odd sides, so
// that half-way ties occur and do not, rings of 2 and 3) and grids wrapped in some
// dimensions only, the counted all-to-all loads are those of tracing every route
// with GridRouter: Messages, Hops and MaxShared identical, on random node sets, on
// boxes of consecutive nodes and up to the whole machine.
func TestAllToAllTorusLoadMatchesTrace(t *testing.T) {
	rng := rand.New(rand.NewPCG(34, 2))
	a2a, _ := ParsePattern("all-to-all")
	specs := []string{"torus:8x8", "torus:7x5", "torus:6x9", "torus:2x3", "torus:4x4x4",
		"torus:5x3x4", "torus:3x6x5", "mesh:6x5x4:wrap=y", "mesh:5x6:wrap=x", "torus:1x6", "torus:10x1x3"}
	rounds := 200
	if testing.Short() {
		rounds = 60
	}
	for _, spec := range specs {
		g := mustSpec(t, spec)
		r := NewGridRouter(g)
		fast := NewRouteMeter(r, a2a, 1)
		slow := NewRouteMeter(r, a2a, 1)
		slow.grid, slow.torus = nil, nil
		if fast.torus == nil || fast.grid == nil {
			t.Fatalf("%s: the torus count is not used", spec)
		}
		n := g.N()
		for i := range rounds {
			var nodes []int
			switch i % 4 {
			case 0:
				nodes = rng.Perm(n)[:1+rng.IntN(n)] // up to the whole machine
			case 1:
				nodes = rng.Perm(n)[:1+rng.IntN(min(n, 12))]
			case 2:
				start, k := rng.IntN(n), 1+rng.IntN(n)
				for v := range k {
					nodes = append(nodes, (start+v)%n)
				}
			default:
				// a box of the grid at a random corner, wrapping round
				dims := g.Dims()
				c := make([]int, len(dims))
				side := make([]int, len(dims))
				for j, d := range dims {
					c[j], side[j] = rng.IntN(d), 1+rng.IntN(d)
				}
				var rec func(j, v, stride int)
				rec = func(j, v, stride int) {
					if j == len(dims) {
						nodes = append(nodes, v)
						return
					}
					for o := range side[j] {
						rec(j+1, v+((c[j]+o)%dims[j])*stride, stride*dims[j])
					}
				}
				rec(0, 0, 1)
				rng.Shuffle(len(nodes), func(a, b int) { nodes[a], nodes[b] = nodes[b], nodes[a] })
			}
			f, s := fast.Measure(0, nodes), slow.Measure(0, nodes)
			if f != s {
				t.Fatalf("%s nodes %v: counted %+v, traced %+v", spec, nodes, f, s)
			}
		}
	}
}

// TestRingWindow: dimension-order routing's rule round a ring is a window, read off
// ringDirection: half way round on an even ring goes the positive way.
func TestRingWindow(t *testing.T) {
	for _, tc := range []struct {
		k          int
		wrap       bool
		hPos, hNeg int
	}{{8, true, 4, 3}, {7, true, 3, 3}, {2, true, 1, 0}, {3, true, 1, 1}, {1, true, 0, 0}, {6, false, 5, 5}} {
		hp, hn, ok := ringWindow(tc.k, tc.wrap)
		if !ok || hp != tc.hPos || hn != tc.hNeg {
			t.Errorf("ring of %d (wrap %v): window +%d -%d (%v), want +%d -%d", tc.k, tc.wrap, hp, hn, ok, tc.hPos, tc.hNeg)
		}
	}
}
