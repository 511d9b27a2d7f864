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
