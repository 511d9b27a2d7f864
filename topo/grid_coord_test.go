package topo

import "testing"

// Contains accepts exactly the coordinates of the grid's nodes, and CoordDist of two
// nodes' coordinates is their hop distance Dist; checked on every node and pair of
// meshes, tori and a mixed grid, with coordinates one step outside each face.
func TestGridContainsAndCoordDist(t *testing.T) {
	for _, c := range []struct {
		dims []int
		wrap []bool
	}{
		{[]int{5}, []bool{false}},
		{[]int{4, 3}, []bool{false, false}},
		{[]int{4, 3}, []bool{true, true}},
		{[]int{3, 4, 2}, []bool{true, false, true}},
	} {
		g, err := NewGrid(c.dims, c.wrap)
		if err != nil {
			t.Fatal(err)
		}
		for a := range g.N() {
			ca := g.Coord(a, nil)
			if !g.Contains(ca) || g.Index(ca) != a {
				t.Fatalf("%v: node %d at %v: Contains %v, Index %d", c.dims, a, ca, g.Contains(ca), g.Index(ca))
			}
			for b := range g.N() {
				if got, want := g.CoordDist(ca, g.Coord(b, nil)), g.Dist(a, b); got != want {
					t.Fatalf("%v wrap %v: CoordDist(%v, %v) = %d, Dist(%d, %d) = %d", c.dims, c.wrap, ca, g.Coord(b, nil), got, a, b, want)
				}
			}
		}
		for j, d := range c.dims {
			for _, v := range []int{-1, d} {
				out := make([]int, len(c.dims))
				out[j] = v
				if g.Contains(out) {
					t.Errorf("%v: Contains(%v) outside the grid", c.dims, out)
				}
			}
		}
		if g.Contains(make([]int, len(c.dims)+1)) || g.Contains(nil) {
			t.Errorf("%v: Contains accepted a vector of another dimension", c.dims)
		}
	}
}

// AxisDist is the fewest steps of one coordinate between a and b along a line (a
// mesh's dimension) or around a ring (a torus's): checked against a breadth-first
// walk on every pair of sides 1-9, odd and even rings (a ring of 2k has one pair at
// k both ways), in each dimension of a mixed grid. The task order's center
// (alloc.CenterOf) measures with it.
func TestAxisDistIsTheWalk(t *testing.T) {
	for k := 1; k <= 9; k++ {
		for _, wrap := range []bool{false, true} {
			g, err := NewGrid([]int{3, k, 2}, []bool{!wrap, wrap, false})
			if err != nil {
				t.Fatal(err)
			}
			for a := range k {
				// walk: the steps from a to every coordinate of the line or ring.
				walk := make([]int, k)
				for i := range walk {
					walk[i] = -1
				}
				walk[a] = 0
				for q := []int{a}; len(q) > 0; q = q[1:] {
					for _, s := range []int{q[0] - 1, q[0] + 1} {
						if wrap {
							s = (s + k) % k
						}
						if s >= 0 && s < k && walk[s] < 0 {
							walk[s] = walk[q[0]] + 1
							q = append(q, s)
						}
					}
				}
				for b := range k {
					if got := g.AxisDist(1, a, b); got != walk[b] {
						t.Fatalf("side %d wrap %v: AxisDist(1, %d, %d) = %d, want %d", k, wrap, a, b, got, walk[b])
					}
				}
			}
		}
	}
}
