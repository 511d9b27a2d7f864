package geom_test

import (
	"fmt"

	"github.com/procalloc/procalloc/geom"
)

// The objective of the center-based allocators: the total pairwise L1 distance of
// the chosen nodes. Checked by hand: a 2x2 square has four side pairs at distance 1
// and two diagonal pairs at distance 2, 4 + 4 = 8; a 1x4 line has pairs at distances
// 1, 1, 1, 2, 2, 3, total 10, so the square is the more compact job of 4 nodes.
// PairwiseL1Subset scores a chosen subset of a free list without copying it: nodes
// 0, 2 and 4 of the line below are (0,0), (2,0), (0,1), pairs 2 + 1 + 3 = 6.
func ExamplePairwiseL1() {
	square := []geom.Point{{0, 0}, {1, 0}, {0, 1}, {1, 1}}
	line := []geom.Point{{0, 0}, {1, 0}, {2, 0}, {3, 0}}
	fmt.Println(geom.PairwiseL1(square), geom.PairwiseL1(line))

	free := []geom.Point{{0, 0}, {1, 0}, {2, 0}, {3, 0}, {0, 1}}
	fmt.Println(geom.PairwiseL1Subset(free, []int{0, 2, 4}))
	// Output:
	// 8 10
	// 6
}

// Distances and the bounding box of a job. Checked by hand: from (0,0,0) to (2,3,1)
// the L1 distance is 2 + 3 + 1 = 6 and the L-infinity distance max(2, 3, 1) = 3;
// the box of the three points spans x 0..2, y 0..3, z 0..1, sides 2 + 3 + 1 = 6.
func ExampleBoundingBox() {
	pts := []geom.Point{{0, 0, 0}, {2, 3, 1}, {1, 1, 0}}
	fmt.Println(geom.L1(pts[0], pts[1]), geom.LInf(pts[0], pts[1]))
	b := geom.BoundingBox(pts)
	fmt.Println(b.Min, b.Max, b.SumOfSides())
	// Output:
	// 6 3
	// [0 0 0] [2 3 1] 6
}
