package ptas_test

import (
	"fmt"

	"github.com/procalloc/procalloc/geom"
	"github.com/procalloc/procalloc/ptas"
)

// MM chooses 4 of 7 free nodes of a mesh: the 2x2 square around a median center
// (total pairwise L1 4 x 1 + 2 x 2 = 8), not the far-away stragglers. Guarantee is the
// proven ratio to the optimum for this k and dimension.
func ExampleMM() {
	free := []geom.Point{{0, 0}, {1, 0}, {0, 1}, {1, 1}, {5, 5}, {9, 0}, {0, 9}}
	res, err := ptas.MM(free, 4, ptas.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Indices, res.Total, res.Guarantee)
	// Output:
	// [0 1 2 3] 8 1.5
}
