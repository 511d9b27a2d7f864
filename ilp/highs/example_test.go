//go:build highs

package highs_test

import (
	"context"
	"fmt"
	"math"

	"github.com/procalloc/procalloc/ilp/highs"
)

// A 0/1 knapsack of three items (values 5, 4, 3; weights 2, 3, 1; capacity 5),
// solved as a MIP. By hand: all three weigh 6 > 5; of the pairs, a+b weighs 5 and is
// worth 9, a+c 3 and 8, b+c 4 and 7; so the optimum is 9 with a and b, and the
// dual bound meets it (gap 0, status optimal). The example runs only in a build
// with HiGHS (go test -tags highs); without the tag this file is not compiled, and
// Solve would return ErrNotAvailable.
func ExampleSolve() {
	m := &highs.Model{Maximize: true}
	a := m.AddCol(5, 0, 1, true)
	b := m.AddCol(4, 0, 1, true)
	c := m.AddCol(3, 0, 1, true)
	m.AddRow(-highs.Inf, 5, []int{a, b, c}, []float64{2, 3, 1})
	res, err := highs.Solve(context.Background(), m, nil, highs.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Status, res.Objective, res.DualBound)
	for j, x := range res.X {
		fmt.Printf("x%d = %v\n", j, math.Round(x))
	}
	// Output:
	// optimal 9 9
	// x0 = 1
	// x1 = 1
	// x2 = 0
}
