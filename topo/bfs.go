package topo

import "slices"

// BreadthFirst is the breadth-first search of orderings: BFSOrder, the graph orderings
// of package curves (bfs, Cuthill-McKee, RCM) and the starting orders of the ordering
// solver walk through it. (Hop distances have their own int32 loops: see the package
// comment.)
//
// It visits the nodes reachable from src that level marks unvisited (level[v] < 0),
// sets level[v] to their hop distance from src, and appends them to order in visiting
// order. Neighbours are taken in Neighbors order (ascending), or sorted stably by cmp
// when it is not nil. level has Vertices(m) entries (a switched network's switches
// are walked through and appended too: callers that rank hosts skip vertices >= m.N())
// and is kept between calls, so walks from several sources share it (a later walk
// skips what an earlier one reached).
func BreadthFirst(m Machine, src int, level []int, order []int, cmp func(a, b int) int) []int {
	head := len(order)
	level[src] = 0
	order = append(order, src)
	var nb []int
	for ; head < len(order); head++ {
		a := order[head]
		nb = m.Neighbors(a, nb[:0])
		if cmp != nil {
			slices.SortStableFunc(nb, cmp)
		}
		for _, b := range nb {
			if level[b] < 0 {
				level[b] = level[a] + 1
				order = append(order, b)
			}
		}
	}
	return order
}

// BFSOrder returns the breadth-first order of m's nodes (hosts; switches are walked
// through but left out) from src, neighbours in ascending order; the nodes src cannot
// reach follow, each unreached component walked from its smallest node.
func BFSOrder(m Machine, src int) []int {
	n := m.N()
	level := make([]int, Vertices(m))
	for i := range level {
		level[i] = -1
	}
	order := BreadthFirst(m, src, level, make([]int, 0, len(level)), nil)
	for v := 0; v < n; v++ {
		if level[v] < 0 {
			order = BreadthFirst(m, v, level, order, nil)
		}
	}
	return slices.DeleteFunc(order, func(v int) bool { return v >= n })
}
