package sim

import (
	"context"
	"errors"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/topo"
)

// Replays with partitions keep every job on its partition's nodes, under the
// as-run schedule with jobs of two overlapping partitions (each decision keeps
// the nodes outside away) and under FCFS and EASY with one partition (its
// outside nodes busy for the whole replay): checked job by job against the
// partition, with slurm:consec, which without partitions takes the lowest free
// nodes whatever the job.
func TestPartitionsKeepJobs(t *testing.T) {
	m, err := topo.ParseSpec("mesh:4x4")
	if err != nil {
		t.Fatal(err)
	}
	lower := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	upper := []int{6, 7, 8, 9, 10, 11, 12, 13, 14, 15}
	parts := map[string][]int{"lower": lower, "upper": upper}
	rng := rand.New(rand.NewPCG(3, 4))
	var jobs []Job
	for i := range 200 {
		part := "lower"
		if rng.IntN(2) == 0 {
			part = "upper"
		}
		// Each starts at its arrival; the count check keeps every partition
		// able to hold it there or the job waits.
		jobs = append(jobs, Job{ID: i + 1, Line: i + 2, Arrival: int64(10 * i), Started: int64(10 * i), Procs: 1 + rng.IntN(4), Runtime: int64(5 + rng.IntN(40)), Estimate: -1, Partition: part})
	}
	check := func(what string, sched Sched, jobs []Job) *Result {
		t.Helper()
		a, err := alloc.Parse("slurm:consec", m, alloc.Options{})
		if err != nil {
			t.Fatal(err)
		}
		outside := 0
		cfg := Config{Machine: m, Alloc: a, Sched: sched, Metrics: MetricsSched, Partitions: parts, JobDone: func(r *JobResult) error {
			for _, v := range r.Nodes {
				if !slices.Contains(parts[r.Partition], v) {
					outside++
				}
			}
			return nil
		}}
		res, err := Run(context.Background(), jobs, cfg)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if outside > 0 {
			t.Errorf("%s: %d nodes outside their job's partition", what, outside)
		}
		return res
	}
	check("as-run, two partitions", SchedAsRun, jobs)
	one := slices.Clone(jobs)
	for i := range one {
		one[i].Partition = "upper"
	}
	check("fcfs, one partition", SchedFCFS, one)
	check("easy, one partition", SchedEASY, one)

	for _, sched := range []Sched{SchedFCFS, SchedEASY, SchedCplant} {
		check(string(sched)+", two partitions", sched, jobs)
	}

	// Several partitions under EASY with an allocator that may refuse a job
	// that fits by count: replayed (placed reservations, easy.passPlaced),
	// every job on its partition's nodes.
	tree := waitAllocator(t, "slurm:tree:t.conf", m, 4)
	res, err := Run(context.Background(), jobs, Config{Machine: m, Alloc: tree, Sched: SchedEASY, Partitions: parts})
	if err != nil {
		t.Errorf("two partitions under EASY with slurm:tree: %v", err)
	} else {
		for _, r := range res.PerJob {
			for _, v := range r.Nodes {
				if !slices.Contains(parts[r.Partition], v) {
					t.Fatalf("two partitions under EASY with slurm:tree: job %d on node %d, outside its partition %s", r.ID, v, r.Partition)
				}
			}
		}
	}
	// Refused: an allocator that cannot keep a decision off nodes (every
	// registered family can: an allocator hiding its Occupy here); a job of a
	// partition the replay lacks; a job larger than its partition.
	a, _ := alloc.Parse("slurm:consec", m, alloc.Options{})
	if _, err := Run(context.Background(), one, Config{Machine: m, Alloc: noOccupy{a}, Sched: SchedEASY, Partitions: parts}); !errors.Is(err, alloc.ErrNoRestriction) || !strings.Contains(err.Error(), "cannot keep jobs in their partition") {
		t.Errorf("an allocator without Occupy with a partition: %v", err)
	}
	a, _ = alloc.Parse("slurm:consec", m, alloc.Options{})
	bad := slices.Clone(one)
	bad[3].Partition = "gone"
	if _, err := Run(context.Background(), bad, Config{Machine: m, Alloc: a, Sched: SchedEASY, Partitions: parts}); err == nil || !strings.Contains(err.Error(), `job 4 (line 5): partition "gone"`) {
		t.Errorf("unknown partition: %v", err)
	}
	bad = slices.Clone(one)
	bad[3].Procs = 11
	if _, err := Run(context.Background(), bad, Config{Machine: m, Alloc: a, Sched: SchedEASY, Partitions: parts}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("job larger than its partition: %v", err)
	}
	// A job its partition cannot hold at its recorded start waits for a release:
	// the upper job takes the overlap's nodes 6-9 (consec's lowest free ones of
	// upper), the lower job of 8 nodes finds 6 free in lower, and starts when the
	// upper job ends.
	two := []Job{{ID: 1, Line: 2, Procs: 4, Runtime: 100, Estimate: -1, Partition: "upper"},
		{ID: 2, Line: 3, Arrival: 1, Started: 1, Procs: 8, Runtime: 10, Estimate: -1, Partition: "lower"}}
	ca, _ := alloc.Parse("slurm:consec", m, alloc.Options{})
	res, err = Run(context.Background(), two, Config{Machine: m, Alloc: ca, Sched: SchedAsRun, Partitions: parts})
	if err != nil {
		t.Fatal(err)
	}
	if r := res.PerJob[1]; r.Start != 100 || !r.WaitedForBlock || !slices.Equal(res.PerJob[0].Nodes, []int{6, 7, 8, 9}) {
		t.Errorf("the lower job starts at %d (waited %v), the upper one on %v; want 100, true, [6 7 8 9]", r.Start, r.WaitedForBlock, res.PerJob[0].Nodes)
	}

	// A partition of every node restricts nothing: the replay is the one without.
	whole := map[string][]int{"all": {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}}
	all := slices.Clone(jobs)
	for i := range all {
		all[i].Partition = "all"
	}
	run := func(p map[string][]int) *Result {
		a, _ := alloc.Parse("slurm:consec", m, alloc.Options{})
		res, err := Run(context.Background(), all, Config{Machine: m, Alloc: a, Sched: SchedEASY, Partitions: p})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if x, y := run(whole), run(nil); !reflect.DeepEqual(x, y) {
		t.Errorf("a partition of every node changes the replay: %+v, %+v", x.Summary, y.Summary)
	}
}

// noOccupy hides an allocator's Occupy (and every other method but
// Allocator's).
type noOccupy struct{ alloc.Allocator }
