package sim

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/procalloc/procalloc/topo"
)

// TestWillRunShortcutsAreTheTest: EASY with slurm:tree, slurm:block and bt
// (one partition or none: backfillPlaced) runs the will-run test only in a
// pass in which a later job fits by count, and (slurm:tree, slurm:block: an
// Occupier) does not make a try whose answer it knows, from an earlier try
// with the same running jobs, size and partition (placer.runState). On random
// histories, every known try is made anyway and compared (checkRunStates: a
// difference fails the replay), and each replay must decide every job as the
// plain replay does (plainWillRun: the test at every pass, every try made):
// the same start, nodes and block wait. Known tries must occur.
func TestWillRunShortcutsAreTheTest(t *testing.T) {
	runStateChecks = 0
	defer func() { checkRunStates, plainWillRun = false, false }()
	rng := rand.New(rand.NewPCG(47, 48))
	histories := 200
	if testing.Short() {
		histories = 80
	}
	for h := range histories {
		side := 4
		m := topo.Mesh(side, side)
		all := make([]int, m.N())
		for v := range all {
			all[v] = v
		}
		parts := map[string][]int{"all": all}
		jobs := randomPartJobs(rng, parts, 40+rng.IntN(60), rng.IntN(2) == 0)
		for i := range jobs { // queues form
			jobs[i].Arrival /= 4
		}
		var cfgParts map[string][]int
		if h%2 == 0 {
			cfgParts = parts
		} else {
			for i := range jobs {
				jobs[i].Partition = ""
			}
		}
		for _, spec := range []string{"slurm:tree:t.conf", "slurm:block:b.conf", "bt"} {
			// plain, then with the known tries made and compared, then
			// with them not made
			var runs [3]*Result
			for way := range 3 {
				plainWillRun, checkRunStates = way == 0, way == 1
				res, err := Run(context.Background(), jobs, Config{Machine: m, Alloc: waitAllocator(t, spec, m, 4), Sched: SchedEASY, Metrics: MetricsSched, Partitions: cfgParts})
				plainWillRun = false
				if err != nil {
					t.Fatalf("history %d, %s (way %d): %v", h, spec, way, err)
				}
				runs[way] = res
			}
			for way := 1; way < 3; way++ {
				sameDecisions(t, fmt.Sprintf("history %d, %s (way %d)", h, spec, way), runs[way], runs[0])
			}
		}
	}
	if runStateChecks < histories {
		t.Errorf("%d will-run tries known in %d histories", runStateChecks, histories)
	}
	t.Logf("will-run tries known and checked: %d", runStateChecks)
}

// TestWillRunInSkippedIsTheTest: EASY of several partitions (passPlaced)
// reserves for a partition's front only while a later job fits by count, and
// (slurm:tree, slurm:block: an Occupier) willRunIn does not make a try whose
// answer it knows, from an earlier try with the same running jobs touching the
// partition, size, partition and nodes kept away (placer.runState, in). On
// random histories of 2 to 4 overlapping partitions with tiers, slurm:tree,
// slurm:block and bt decide every job as the plain replay (plainWillRun: a
// reservation for every front, every try made) does, with every known try
// made anyway and compared (checkRunStates) and with them not made. Known
// tries must occur.
func TestWillRunInSkippedIsTheTest(t *testing.T) {
	runStateChecks = 0
	defer func() { plainWillRun, checkRunStates = false, false }()
	m := topo.Mesh(4, 4)
	rng := rand.New(rand.NewPCG(49, 50))
	histories := 150
	if testing.Short() {
		histories = 60
	}
	for h := range histories {
		parts := randomParts(rng, m.N())
		jobs := randomPartJobs(rng, parts, 40+rng.IntN(60), rng.IntN(2) == 0)
		for i := range jobs {
			jobs[i].Arrival /= 4
		}
		tiers := map[string]int{}
		for _, name := range slices.Sorted(maps.Keys(parts)) {
			tiers[name] = 1 + rng.IntN(2)
		}
		for _, spec := range []string{"slurm:tree:t.conf", "slurm:block:b.conf", "bt"} {
			fj := placeable(t, spec, m, parts, jobs)
			var runs [3]*Result
			for way := range 3 {
				plainWillRun, checkRunStates = way == 0, way == 1
				res, err := Run(context.Background(), fj, Config{Machine: m, Alloc: refAlloc(t, spec, m), Sched: SchedEASY, Metrics: MetricsSched, Partitions: parts, PartitionTiers: tiers})
				if err != nil {
					t.Fatalf("history %d, %s (way %d): %v", h, spec, way, err)
				}
				runs[way] = res
			}
			for way := 1; way < 3; way++ {
				sameDecisions(t, fmt.Sprintf("history %d, %s (way %d)", h, spec, way), runs[way], runs[0])
			}
		}
	}
	if runStateChecks < histories {
		t.Errorf("%d will-run tries in a partition known in %d histories", runStateChecks, histories)
	}
	t.Logf("will-run tries in a partition known and checked: %d", runStateChecks)
}

// sameDecisions fails the test unless every job of got starts when and where,
// and waits for a block as long as, the plain replay's (want).
func sameDecisions(t *testing.T, what string, got, want *Result) {
	t.Helper()
	for i, r := range got.PerJob {
		p := want.PerJob[i]
		if r.Start != p.Start || !slices.Equal(r.Nodes, p.Nodes) || r.WaitedForBlock != p.WaitedForBlock || r.BlockWait != p.BlockWait {
			t.Fatalf("%s: job %d starts at %d on %v (block wait %v %d), the plain replay's at %d on %v (%v %d)",
				what, r.ID, r.Start, r.Nodes, r.WaitedForBlock, r.BlockWait, p.Start, p.Nodes, p.WaitedForBlock, p.BlockWait)
		}
	}
}
