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
	runs := 0
	for ci, c := range cases {
		n := c.m.N()
		// lower: the first 5/8 of the nodes; upper: the last 5/8; odd: the odd nodes
		parts := map[string][]int{}
		for v := range n {
			if v < n*5/8 {
				parts["lower"] = append(parts["lower"], v)
			}
			if v >= n*3/8 {
				parts["upper"] = append(parts["upper"], v)
			}
			if v%2 == 1 {
				parts["odd"] = append(parts["odd"], v)
			}
		}
		names := []string{"lower", "upper", "odd"}
		rng := rand.New(rand.NewPCG(uint64(ci), 9))
		var jobs []Job
		for i := range 120 {
			part := names[rng.IntN(3)]
			k := 1 + rng.IntN(6)
			if rng.IntN(10) == 0 {
				k = 8 + rng.IntN(n/4)
			}
			jobs = append(jobs, Job{ID: i + 1, Line: i + 2, Arrival: int64(7 * i), Started: int64(7 * i), Procs: k,
				Runtime: int64(5 + rng.IntN(60)), Estimate: int64(70), Partition: part})
		}
		one := make([]Job, len(jobs))
		copy(one, jobs)
		for i := range one {
			one[i].Partition = "upper"
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
	t.Logf("%d replays, every job in its partition", runs)
}
