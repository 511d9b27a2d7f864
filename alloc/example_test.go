package alloc_test

import (
	"fmt"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/topo"
)

// Best Fit along the Hilbert curve of a 4x4 mesh: a 4-node job gets a 2x2 square
// (the first quarter of the curve); a 1-node job follows it on the curve. When the
// first job ends, the free intervals have 4 and 11 nodes, and a 2-node job takes the
// front of the smaller one.
func ExampleParse() {
	m := topo.Mesh(4, 4)
	a, err := alloc.Parse("bf:hilbert", m, alloc.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	first, _ := a.Allocate(4)
	second, _ := a.Allocate(1)
	fmt.Println(first, second, a.NumFree())
	_ = a.Release(first)
	third, _ := a.Allocate(2)
	fmt.Println(third, a.NumFree())
	// Output:
	// [0 1 5 4] [8] 11
	// [0 1] 13
}

// MM (Bender et al. 2005 §5, package ptas) on a 4x4 mesh whose free set has a hole:
// node i is at (i mod 4, i div 4). The second job still holds nodes 10, 13, 14 and 15
// when the third asks for 5 of the 12 free nodes; MM gives it a 2x2 square and one
// node beside it, total pairwise L1 16 = 4 x 1 + 2 x 2 for the square plus 2 + 3 + 1
// + 2 for node 8 = (0,2). No 5 nodes of the plane do better (exact.LatticeOptimum),
// so this answer is optimal.
func ExampleAllocator() {
	m := topo.Mesh(4, 4)
	a, err := alloc.Parse("mm", m, alloc.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	first, _ := a.Allocate(6)
	second, _ := a.Allocate(4)
	_ = a.Release(first)
	third, err := a.Allocate(5)
	if err != nil {
		fmt.Println(err)
		return
	}
	total := 0
	for i, u := range third {
		for _, v := range third[i+1:] {
			total += m.Dist(u, v)
		}
	}
	fmt.Println("busy:", second, "free:", a.NumFree()+len(third), "chosen:", third, "total pairwise L1:", total)
	// Output:
	// busy: [10 13 14 15] free: 12 chosen: [0 1 4 5 8] total pairwise L1: 16
}
