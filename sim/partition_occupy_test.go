package sim

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/topo"
)

// Replays of jobs of three overlapping partitions (and of one partition) keep
// every job on its partition's nodes with an allocator of every family that is
// an Occupier, not only Slurm's emulations: a curve allocator (bf, ring too),
// paging with pages of one node, scbt, MC1x1 and its greedy variant, MC, MM,
// Gen-Alg on a mesh and on a fat tree, opt, MBS and a non-contiguous
// binary-tree variant, under the as-run schedule, FCFS, EASY and Cplant;
// checked job by job as each finishes (JobDone), and every job replayed.
func TestPartitionsKeepJobsEveryOccupier(t *testing.T) {
	mesh, err := topo.ParseMachine("mesh:8x8")
	if err != nil {
		t.Fatal(err)
	}
	ft, err := topo.ParseMachine("fattree:4,4:4,4:4")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		spec string
		m    topo.Machine
	}{
		{"bf:hilbert", mesh}, {"ff:snake:ring", mesh}, {"paging:hilbert:0", mesh}, {"scbt", mesh},
		{"mc1x1", mesh}, {"mc1x1-greedy:tb=3,9,3,2", mesh}, {"mc", mesh}, {"mm", mesh}, {"genalg", mesh},
		{"genalg", ft}, {"bf:rcm", ft}, {"opt", mesh}, {"mbs", mesh}, {"d-sbt:4", mesh},
	}
	// lower: the first 5/8 of the nodes; upper: the last 5/8; odd: the odd nodes
	runs := keepJobsInPartitions(t, cases, func(v, n int) []string {
		var in []string
		if v < n*5/8 {
			in = append(in, "lower")
		}
		if v >= n*3/8 {
			in = append(in, "upper")
		}
		if v%2 == 1 {
			in = append(in, "odd")
		}
		return in
	}, []string{"lower", "upper", "odd"}, func(n int) int { return n / 4 })
	t.Logf("%d replays, every job in its partition", runs)
}

// The same with bt, sbt, dbt and paging with pages of 2x2 and 4x4 nodes,
// through their partition view (alloc.ForPartitions: a job's release frees its
// whole block or pages, the mask then holding the nodes of them kept away), on
// partitions their blocks and pages fit: lower (the first half of mesh:8x8's
// rows), upper (the last half) and left (the first four columns), jobs of up to
// 16 nodes (a block of 16 is a 4x4 square there).
func TestPartitionsKeepJobsBlocks(t *testing.T) {
	mesh, err := topo.ParseMachine("mesh:8x8")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		spec string
		m    topo.Machine
	}{{"bt", mesh}, {"sbt:4", mesh}, {"dbt:1/4", mesh}, {"paging:hilbert:1", mesh}, {"paging:snake:2", mesh}}
	runs := keepJobsInPartitions(t, cases, func(v, n int) []string {
		in := []string{"upper"}
		if v < n/2 {
			in[0] = "lower"
		}
		if v%8 < 4 {
			in = append(in, "left")
		}
		return in
	}, []string{"lower", "upper", "left"}, func(int) int { return 9 })
	t.Logf("%d replays, every job in its partition", runs)
}

// keepJobsInPartitions replays, for each case, 120 random jobs of the
// partitions names (each node's partitions by of) under the as-run schedule,
// FCFS, EASY and Cplant, and all of them in the second partition under FCFS and
// EASY, checking each job's nodes as it finishes; one job in ten asks for 8 +
// up to big(n)-1 more on an n-node machine, the others for 1 to 6. It returns
// the replays.
func keepJobsInPartitions(t *testing.T, cases []struct {
	spec string
	m    topo.Machine
}, of func(v, n int) []string, names []string, big func(n int) int) int {
	t.Helper()
	runs := 0
	for ci, c := range cases {
		n := c.m.N()
		parts := map[string][]int{}
		for v := range n {
			for _, p := range of(v, n) {
				parts[p] = append(parts[p], v)
			}
		}
		rng := rand.New(rand.NewPCG(uint64(ci), 9))
		var jobs []Job
		for i := range 120 {
			part := names[rng.IntN(len(names))]
			k := 1 + rng.IntN(6)
			if rng.IntN(10) == 0 {
				k = 8 + rng.IntN(big(n))
			}
			jobs = append(jobs, Job{ID: i + 1, Line: i + 2, Arrival: int64(7 * i), Started: int64(7 * i), Procs: k,
				Runtime: int64(5 + rng.IntN(60)), Estimate: int64(70), Partition: part})
		}
		one := make([]Job, len(jobs))
		copy(one, jobs)
		for i := range one {
			one[i].Partition = names[1]
		}
		for _, run := range []struct {
			sched Sched
			jobs  []Job
			what  string
		}{{SchedAsRun, jobs, "three partitions"}, {SchedFCFS, jobs, "three partitions"}, {SchedEASY, jobs, "three partitions"},
			{SchedCplant, jobs, "three partitions"}, {SchedFCFS, one, "one partition"}, {SchedEASY, one, "one partition"}} {
			what := fmt.Sprintf("%s on %s, %s, %s", c.spec, c.m.Spec(), run.sched, run.what)
			a, err := alloc.Parse(c.spec, c.m, alloc.Options{})
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			done := 0
			cfg := Config{Machine: c.m, Alloc: a, Sched: run.sched, Metrics: MetricsSched, Partitions: parts, JobDone: func(r *JobResult) error {
				done++
				if len(r.Nodes) != r.Procs {
					return fmt.Errorf("job %d: %d nodes for %d processors", r.ID, len(r.Nodes), r.Procs)
				}
				in := parts[r.Partition]
				for _, v := range r.Nodes {
					if _, ok := slices.BinarySearch(in, v); !ok {
						return fmt.Errorf("job %d on node %d, outside its partition %s", r.ID, v, r.Partition)
					}
				}
				return nil
			}}
			if _, err := Run(context.Background(), run.jobs, cfg); err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			if done != len(run.jobs) {
				t.Fatalf("%s: %d of %d jobs replayed", what, done, len(run.jobs))
			}
			if a.NumFree() != n {
				t.Fatalf("%s: %d of %d nodes free after the replay", what, a.NumFree(), n)
			}
			runs++
		}
	}
	return runs
}
