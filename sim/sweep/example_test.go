package sweep_test

import (
	"fmt"

	"github.com/procalloc/procalloc/sim/sweep"
)

// A sweep of one trace on two meshes at two load factors, comparing two allocators,
// is 1 x 2 x 2 x 2 = 8 replays (the unlisted schedulers, patterns, seeds and
// engines take their one default each: fcfs, none, 1, message). Items lists them
// in the fixed order of the doc comment, allocators innermost (so the two
// allocators of one configuration are neighbours) and machines outside load
// factors: mesh:8x8 at 1 (mm, mc1x1), at 0.5 (mm, mc1x1), then mesh:16x16 the same.
// The name comes from the file's name without its extension; the flags go to
// every item.
func ExampleParse() {
	spec, err := sweep.Parse([]byte(`
traces: [llnl.swf]
machines: [mesh:8x8, mesh:16x16]
contract: [1, 0.5]
allocators: [mm, mc1x1]
flags: [--drop-larger]
`), "grid.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	n, err := spec.Count()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("sweep %s: %d items\n", spec.Name, n)
	for _, it := range spec.Items() {
		p := it.Params
		fmt.Println(it.Index, p.Machine, p.Contract, p.Alloc, p.Sched, p.Pattern, p.Seed, p.Flags)
	}
	// Output:
	// sweep grid: 8 items
	// 0 mesh:8x8 1 mm fcfs none 1 [--drop-larger]
	// 1 mesh:8x8 1 mc1x1 fcfs none 1 [--drop-larger]
	// 2 mesh:8x8 0.5 mm fcfs none 1 [--drop-larger]
	// 3 mesh:8x8 0.5 mc1x1 fcfs none 1 [--drop-larger]
	// 4 mesh:16x16 1 mm fcfs none 1 [--drop-larger]
	// 5 mesh:16x16 1 mc1x1 fcfs none 1 [--drop-larger]
	// 6 mesh:16x16 0.5 mm fcfs none 1 [--drop-larger]
	// 7 mesh:16x16 0.5 mc1x1 fcfs none 1 [--drop-larger]
}
