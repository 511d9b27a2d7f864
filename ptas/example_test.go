package ptas_test

import (
	"context"
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

// The approximation scheme of Bender et al. 2005 (§3) takes the free nodes as
// []geom.PointF (or any []P with P ~[]float64) and an accuracy eps, and picks the
// number m of slices per axis (ChooseM). Checked by hand: with k = 4, m = 2 slices of
// 2 points neglect (s-1)/(k-s) = 1/2 at each end, c = 1, no guarantee; m = 3 has an
// interior slice of 2 with one chosen point on each side, floor(2^2/4)/(1 x 1) = 1,
// none either; m = 4 = k slices of one point neglect nothing: ratio 1, an exact
// search. Its answer is the unit square, indices 1, 2, 4, 5, total 8 (four sides of 1,
// two diagonals of 2), the least any 4 points of Z^2 can have.
func ExamplePTAS() {
	free := []geom.PointF{{3, 3}, {0, 0}, {1, 0}, {3, 0}, {0, 1}, {1, 1}, {0, 3}, {2, 2}}
	res, err := ptas.PTAS(context.Background(), free, 4, 0.5)
	if err != nil {
		fmt.Println(err)
		return
	}
	m, err := ptas.ChooseM(4, 0.5)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("ratio for m = 2, 3, 4:", ptas.PTASRatio(4, 2), ptas.PTASRatio(4, 3), ptas.PTASRatio(4, 4))
	fmt.Println("m =", m, res.Indices, res.Total, res.Guarantee)
	// Output:
	// ratio for m = 2, 3, 4: +Inf +Inf 1
	// m = 4 [1 2 4 5] 8 1
}
