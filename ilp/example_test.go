package ilp_test

import (
	"fmt"

	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/ilp"
	"github.com/procalloc/procalloc/qap"
	"github.com/procalloc/procalloc/topo"
)

// How large each integer program of an ordering problem is, before any solver runs
// (no HiGHS needed; package order solves small instances without it by DP, branch and
// bound or local search, see qap's examples). The ordering of a 3x3 mesh with
// w = (1, 0.5) has n = 9 ranks and 8 + 7 = 15 rank pairs with a flow. Checked by hand
// from the formulations' definitions: AJ has n^2 = 81 assignment variables and one
// per flow pair and ordered node pair, 15 x 9 x 8 = 1080, total 1161; aj-sym halves
// the pair variables, 81 + 540 = 621; window (K = 2) has n - K = 7 windows of
// 9 x 8 x 7 = 504 node triples, 81 + 3528 = 3609, and window3 is the same here
// (K = 2). AutoFormulation takes window when it fits the column budget, else window3,
// else AJ: window within 4,000 columns, AJ within 2,000.
func ExampleModelSize() {
	q, err := qap.OrderingQAP(topo.Mesh(3, 3), curves.Weights{1, 0.5}, false)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range []ilp.Formulation{ilp.FormulationAJ, ilp.FormulationAJSym, ilp.FormulationWindow, ilp.FormulationWindow3} {
		fmt.Println(f, ilp.ModelSize(q, f, false))
	}
	fmt.Println("auto within 4000, 2000 columns:", ilp.AutoFormulation(q, false, 4000), ilp.AutoFormulation(q, false, 2000))
	// Output:
	// aj 1161
	// aj-sym 621
	// window 3609
	// window3 3609
	// auto within 4000, 2000 columns: window aj
}
