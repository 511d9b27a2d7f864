package sim

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/procalloc/procalloc/topo"
)

// TestWillRunShortcutsAreTheTest: EASY with slurm:tree, slurm:block and bt
// (one partition or none: backfillPlaced) runs the will-run test only in a
// pass in which a later job fits by count, and carries the head's reservation
// over a start that ends by the shadow time when the test found it by count
// (placer.keepReservation). On random histories, every carried reservation
// is checked against the test run anew (checkKeepReservation: a difference
// fails the replay), and each replay must decide every job as the plain
// replay does (plainWillRun: the test at every pass, nothing carried):
// the same start, nodes and block wait. Reservations must be carried.
func TestWillRunShortcutsAreTheTest(t *testing.T) {
	checkKeepReservation, keptReservations = true, 0
	defer func() { checkKeepReservation = false }()
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
			var runs [2]*Result
			for plain := range 2 {
				plainWillRun = plain == 1
				res, err := Run(context.Background(), jobs, Config{Machine: m, Alloc: waitAllocator(t, spec, m, 4), Sched: SchedEASY, Metrics: MetricsSched, Partitions: cfgParts})
				plainWillRun = false
				if err != nil {
					t.Fatalf("history %d, %s (plain %v): %v", h, spec, plain == 1, err)
				}
				runs[plain] = res
			}
			for i, r := range runs[0].PerJob {
				p := runs[1].PerJob[i]
				if r.Start != p.Start || !slices.Equal(r.Nodes, p.Nodes) || r.WaitedForBlock != p.WaitedForBlock || r.BlockWait != p.BlockWait {
					t.Fatalf("history %d, %s: job %d starts at %d on %v (block wait %v %d), the plain replay's at %d on %v (%v %d)",
						h, spec, r.ID, r.Start, r.Nodes, r.WaitedForBlock, r.BlockWait, p.Start, p.Nodes, p.WaitedForBlock, p.BlockWait)
				}
			}
		}
	}
	if keptReservations < histories {
		t.Errorf("reservations carried over %d times in %d histories", keptReservations, histories)
	}
	t.Logf("reservations carried over and checked: %d", keptReservations)
}
