package voronoi_test

import (
	"fmt"

	"github.com/procalloc/procalloc/geom"
	"github.com/procalloc/procalloc/voronoi"
)

// The 2-nearest sets of the corners of a 2x2 square in L1, each with a witness
// center. Checked by hand: a side's midpoint, e.g. (1,0), is 1 from its two corners
// and 3 from the others, so the four sides are 2-nearest sets; the diagonals are too,
// by the tie rule (max over the set <= min over the rest): the center (1,1) is 2 from
// every corner, so every pair is a 2-nearest set there: C(4,2) = 6 sets in all. Each
// witness is one center among many; the loop checks the tie rule at it with the plain
// L1 distance (the witness of {2,3}, the corner (0,2), is 0 and 2 from its members, 2
// and 4 from the others).
func ExampleKNearestSets() {
	pts := []geom.Point{{0, 0}, {2, 0}, {0, 2}, {2, 2}}
	sets, err := voronoi.KNearestSets(pts, 2, 100)
	if err != nil {
		fmt.Println(err)
		return
	}
	fp := geom.ToFloat(pts)
	for _, s := range sets {
		c := s.Center()
		ok := true
		for i, p := range fp {
			d := geom.L1(p, c[:])
			in := i == s.Indices[0] || i == s.Indices[1]
			ok = ok && (in && d <= s.Radius() || !in && d >= s.Radius())
		}
		fmt.Println(s.Indices, "center", c, "radius", s.Radius(), "tie rule holds:", ok)
	}
	// Output:
	// [0 1] center [1 0] radius 1 tie rule holds: true
	// [0 2] center [0 1] radius 1 tie rule holds: true
	// [0 3] center [1 1] radius 2 tie rule holds: true
	// [1 2] center [1 1] radius 2 tie rule holds: true
	// [1 3] center [1 1] radius 2 tie rule holds: true
	// [2 3] center [0 2] radius 2 tie rule holds: true
}
