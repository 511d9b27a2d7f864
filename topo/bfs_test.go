package topo

import (
	"slices"
	"testing"
)

// BreadthFirst's levels are the hop distances, and its order visits them level by
// level; BFSOrder is a permutation that walks unreached components from their
// smallest node.
func TestBreadthFirstLevelsAreDistances(t *testing.T) {
	g, err := NewGraphFromEdges(9, [][2]int{{0, 1}, {1, 2}, {2, 3}, {1, 4}, {5, 6}, {7, 8}, {6, 7}})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []Machine{Mesh(5, 4), Torus(4, 3, 2), g} {
		for src := range m.N() {
			level := make([]int, m.N())
			for i := range level {
				level[i] = -1
			}
			order := BreadthFirst(m, src, level, nil, nil)
			for v := range m.N() {
				if level[v] != m.Dist(src, v) {
					t.Fatalf("%s from %d: level of %d is %d, distance %d", m.Spec(), src, v, level[v], m.Dist(src, v))
				}
			}
			for i := 1; i < len(order); i++ {
				if level[order[i]] < level[order[i-1]] {
					t.Fatalf("%s from %d: order %v not by level", m.Spec(), src, order)
				}
			}
		}
	}
	o := BFSOrder(g, 2)
	if want := []int{2, 1, 3, 0, 4, 5, 6, 7, 8}; !slices.Equal(o, want) {
		t.Errorf("BFSOrder(g, 2) = %v, want %v", o, want)
	}
}
