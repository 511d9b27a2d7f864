package exact_test

import (
	"context"
	"fmt"

	"github.com/procalloc/procalloc/exact"
	"github.com/procalloc/procalloc/geom"
)

// SubsetSeeded proves the best 5 of the free nodes of a fragmented 4x4 mesh (nodes 5,
// 6 and 10 busy): the search starts from MM+Inc, and the lattice bound (no 5 points of
// Z^2 do better than 16) certifies the optimum at once.
func ExampleSubsetSeeded() {
	var free []geom.PointF
	for y := range 4 {
		for x := range 4 {
			if v := x + 4*y; v != 5 && v != 6 && v != 10 {
				free = append(free, geom.PointF{float64(x), float64(y)})
			}
		}
	}
	res, err := exact.SubsetSeeded(context.Background(), free, 5, exact.SubsetOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	var chosen []geom.PointF
	for _, i := range res.Indices {
		chosen = append(chosen, free[i])
	}
	fmt.Println(chosen)
	fmt.Println(res.Total, res.Optimal, res.Bound)
	// Output:
	// [[0 1] [0 2] [1 2] [0 3] [1 3]]
	// 16 true 16
}

// On a line (a row of nodes, or nodes numbered along a curve) the optimum is k
// consecutive points in sorted order, found in O(n) after sorting. Checked by hand:
// among the windows of 3 of 0, 1, 5, 6, 7, 20 the totals are 10, 10, 4, 28; the best is
// 5, 6, 7 (indices 2, 3, 4), pairs 1 + 1 + 2 = 4.
func ExampleLine() {
	sol, err := exact.Line([]int{0, 1, 5, 6, 7, 20}, 3)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(sol.Indices, sol.Total)
	// Output:
	// [2 3 4] 4
}

// The best k nodes of an unbounded (or empty enough) 2D mesh: an optimal cluster of
// Z^2, proven. Checked by hand: the 3x3 square has, per axis, 18 pairs one apart and 9
// pairs two apart, 18 + 18 = 36, and 72 over both axes; no 9 points of Z^2 do better
// (Fig. 2 of Bender et al. 2005 and OEIS A193452 give 72 for 9 points; LatticeOptimum
// holds that table).
func ExampleCluster() {
	res, err := exact.Cluster(context.Background(), 2, 9)
	if err != nil {
		fmt.Println(err)
		return
	}
	opt, known := exact.LatticeOptimum(2, 9)
	fmt.Println(res.Total, res.Optimal, opt, known)
	fmt.Println(res.Points)
	// Output:
	// 72 true 72 true
	// [[0 0] [0 1] [0 2] [1 0] [1 1] [1 2] [2 0] [2 1] [2 2]]
}
