package sim_test

import (
	"context"
	"fmt"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/sim"
	"github.com/procalloc/procalloc/topo"
)

// Three jobs on a 4x4 mesh, FCFS, MC1x1: the first two fit side by side; the third
// needs 8 nodes, finds 4 free and waits until the second ends.
func ExampleRun() {
	m := topo.Mesh(4, 4)
	a, err := alloc.Parse("mc1x1", m, alloc.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	jobs := []sim.Job{
		{ID: 1, Arrival: 0, Procs: 8, Runtime: 100, Estimate: -1},
		{ID: 2, Arrival: 10, Procs: 4, Runtime: 50, Estimate: -1},
		{ID: 3, Arrival: 20, Procs: 8, Runtime: 30, Estimate: -1},
	}
	res, err := sim.Run(context.Background(), jobs, sim.Config{Machine: m, Alloc: a, Sched: "fcfs"})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, j := range res.PerJob {
		fmt.Printf("job %d: start %d end %d nodes %v\n", j.ID, j.Start, j.End, j.Nodes)
	}
	fmt.Printf("mean wait %.2f, mean response %.2f\n", res.MeanWait, res.MeanResponse)
	// Output:
	// job 1: start 0 end 100 nodes [0 1 2 4 5 6 8 9]
	// job 2: start 10 end 60 nodes [10 12 13 14]
	// job 3: start 60 end 90 nodes [3 7 10 11 12 13 14 15]
	// mean wait 13.33, mean response 73.33
}

// The replay library: a Spec names the trace, machine, allocator, scheduler and
// conventions; Run reads, scales and replays. This is Johnson et al. 2010 Fig. 18's
// LLNL-T3D replay (FCFS, MC1x1, PReMAS conventions), published as 5309.586; Grid
// and RunGrid run many such specs on one pool of workers.
func ExampleSpec() {
	s := sim.DefaultSpec()
	s.Trace = "testdata/LLNL-T3D-1996-2.converted.txt.gz"
	s.MachineSpec = "mesh:16x16"
	s.Alloc = "mc1x1"
	s.Compat = alloc.CompatPReMAS
	if err := s.Validate(); err != nil {
		fmt.Println(err)
		return
	}
	rep, err := s.Run(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s on %s, %s: %d jobs, mean total pairwise L1 %.3f\n", rep.Alloc, rep.Machine, rep.Sched, rep.Jobs, rep.MeanTotalPairwiseL1)
	// Output:
	// mc1x1 on mesh:16x16, fcfs: 21323 jobs, mean total pairwise L1 5309.586
}
