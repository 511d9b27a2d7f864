package qap_test

import (
	"context"
	"fmt"

	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/qap"
	"github.com/procalloc/procalloc/topo"
)

// A QAP in Koopmans-Beckmann form, solved exactly by branch and bound (no HiGHS).
// Three facilities with flows 0-1: 5, 0-2: 3, 1-2: 1 (upper triangle, each pair once)
// go to three locations on a line, distance |k - l|. Checked by hand over the three
// placements up to mirroring: facility 0 in the middle costs 5 + 3 + 1 x 2 = 10, 1 in
// the middle 5 + 1 + 3 x 2 = 12, 2 in the middle 3 + 1 + 5 x 2 = 14; so 10, with
// facility 0 at location 1.
func ExampleBranchAndBound() {
	q := &qap.QAP{N: 3,
		A: []float64{
			0, 5, 3,
			0, 0, 1,
			0, 0, 0},
		B: []float64{
			0, 1, 2,
			1, 0, 1,
			2, 1, 0}}
	res, err := qap.BranchAndBound(context.Background(), q, nil, qap.BBOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Objective, res.Optimal, "facility 0 at location", res.Assignment[0])
	// Output:
	// 10 true facility 0 at location 1
}

// The ordering problem of a 2x3 mesh around a ring (Leung et al. 2002 §2.3) with
// w = (1): F counts the hops between ranks one apart, including the last and the
// first. Checked by hand: the six nodes have a Hamiltonian cycle (around the
// border), six unit steps, so the optimum is 6: a ring of 6 steps between distinct
// nodes cannot do better. Node i is (i mod 3, i div 3); the identity order (rank r on
// node r) jumps 2 -> 3 and 5 -> 0, 3 hops each: 1 + 1 + 3 + 1 + 1 + 3 = 10. The local
// search (seeded) finds ranks on nodes 2, 1, 0, 3, 4, 5, the border cycle, and the
// branch and bound proves it optimal.
func ExampleBranchAndBoundOrdering() {
	q, err := qap.OrderingQAP(topo.Mesh(3, 2), curves.Weights{1}, true)
	if err != nil {
		fmt.Println(err)
		return
	}
	start := []int{0, 1, 2, 3, 4, 5}
	fmt.Println("identity:", q.Objective(start))
	p, obj, err := qap.LocalSearch(context.Background(), q, start, qap.LocalSearchOptions{Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("local search:", obj, p)
	res, err := qap.BranchAndBoundOrdering(context.Background(), q, true, p, qap.BBOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("branch and bound:", res.Objective, res.Optimal, res.Bound)
	// Output:
	// identity: 10
	// local search: 6 [2 1 0 3 4 5]
	// branch and bound: 6 true 6
}
