package order_test

import (
	"context"
	"fmt"

	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/order"
	"github.com/procalloc/procalloc/topo"
)

// The optimal ordering of a 3x3 mesh for F with weights w = (1, 0.5) (Leung et al.
// 2002 §2.2), by the exact dynamic program (no HiGHS needed; order.MethodMIP proves
// the same with a MIP). The DP is its own certificate: bound = objective. 15 is
// 8 unit steps plus 7 pairs two ranks apart at distance 2 (never less on a bipartite
// grid) weighted 0.5, what a snake also reaches.
func ExampleSolveOrdering() {
	m := topo.Mesh(3, 3)
	res, err := order.SolveOrdering(context.Background(), m, curves.Weights{1, 0.5},
		order.OrderOptions{Options: order.Options{Method: order.MethodDP}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Status, res.Objective, res.Bound)
	fmt.Println(res.Order)
	// Output:
	// optimal 15 15
	// [3 6 7 8 5 4 2 1 0]
}
