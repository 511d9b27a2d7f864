package topo

import "testing"

// OnBoundary (the "wall" of Johnson et al. 2010, which alloc's center search counts)
// against the neighbours: a node is on the wall when along some non-wrapping axis of
// more than 2 nodes it has fewer than two neighbours. Meshes, tori, mixed wraps and
// short axes in 1D to 3D; alloc's tests used OnBoundary as their reference, and no
// test of topo looked at it.
func TestOnBoundaryMatchesNeighbours(t *testing.T) {
	for _, c := range []struct {
		dims []int
		wrap []bool
	}{
		{[]int{1}, nil}, {[]int{2}, nil}, {[]int{5}, nil}, {[]int{5}, []bool{true}},
		{[]int{4, 3}, nil}, {[]int{2, 6}, nil}, {[]int{5, 4}, []bool{true, false}},
		{[]int{3, 3, 3}, nil}, {[]int{4, 2, 5}, []bool{false, false, true}}, {[]int{3, 4, 3}, []bool{true, true, true}},
	} {
		g, err := NewGrid(c.dims, c.wrap)
		if err != nil {
			t.Fatal(err)
		}
		walls := 0
		for v := range g.N() {
			coord := g.Coord(v, nil)
			want := false
			for j, d := range g.Dims() {
				if g.Wrap()[j] || d <= 2 {
					continue
				}
				along := 0 // neighbours differing from v along axis j
				for _, u := range g.Neighbors(v, nil) {
					if g.Coord(u, nil)[j] != coord[j] {
						along++
					}
				}
				if along < 2 {
					want = true
				}
			}
			if got := g.OnBoundary(coord); got != want {
				t.Errorf("%s: node %v OnBoundary %v, want %v", g.Spec(), coord, got, want)
			}
			if want {
				walls++
			}
		}
		if n := wallCount(g.Dims(), g.Wrap()); walls != n {
			t.Errorf("%s: %d wall nodes, want %d", g.Spec(), walls, n)
		}
	}
}

// wallCount is the number of wall nodes by counting: all nodes less the interior
// (every non-wrapping axis longer than 2 loses its two end layers).
func wallCount(dims []int, wrap []bool) int {
	all, inner := 1, 1
	for j, d := range dims {
		all *= d
		if wrap != nil && wrap[j] || d <= 2 {
			inner *= d
		} else {
			inner *= d - 2
		}
	}
	return all - inner
}
