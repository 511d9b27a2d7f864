package bench_test

import (
	"context"
	"fmt"

	"github.com/procalloc/procalloc/bench"
	"github.com/procalloc/procalloc/topo"
)

// Timing two allocators on one seeded synthetic workload. The times depend on the
// machine, so only the counts are printed: every job of the workload is one
// decision and, once it ends, one release, for every allocator alike (the workload is
// a sequence of sizes, never of nodes): 40 jobs, 40 decisions and 40 releases each.
func ExampleRun() {
	m := topo.Mesh(8, 8)
	w, err := bench.SyntheticWorkload(m.N(), 40, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	rep, err := bench.Run(context.Background(), bench.Config{
		Machine: m, Allocs: []string{"bf:hilbert", "mm"}, Workload: w})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(rep.Machine, rep.Nodes, "nodes,", rep.Jobs, "jobs")
	for _, r := range rep.Allocs {
		fmt.Println(r.Alloc, r.Decisions, "decisions,", r.Releases, "releases, complete:", r.Complete)
	}
	// Output:
	// mesh:8x8 64 nodes, 40 jobs
	// bf:hilbert 40 decisions, 40 releases, complete: true
	// mm 40 decisions, 40 releases, complete: true
}

// The growth of a decision's time with the machine's size, fitted as t = a n^e.
// Checked by hand: times 1, 4, 16 µs at 1,000, 2,000, 4,000 nodes quadruple when n
// doubles, so e = log 4 / log 2 = 2 exactly.
func ExampleExponent() {
	e, err := bench.Exponent([]int{1000, 2000, 4000}, []float64{1, 4, 16})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%.3f\n", e)
	// Output:
	// 2.000
}
