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
