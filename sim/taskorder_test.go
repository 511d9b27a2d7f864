package sim

import (
	"context"
	"reflect"
	"slices"
	"testing"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/netsim"
	"github.com/procalloc/procalloc/topo"
)

// taskOrderJobs are overlapping jobs of mixed sizes on a 16x16 mesh.
func taskOrderJobs() []Job {
	var jobs []Job
	r := netsim.NewRand(7, 0)
	for i := range 60 {
		jobs = append(jobs, Job{ID: i + 1, Arrival: int64(i) * 50, Procs: 1 + int(r.Uint64n(60)), Runtime: 100 + int64(r.Uint64n(2000)), Estimate: -1})
	}
	return jobs
}

func taskOrderRun(t *testing.T, allocSpec string, o TaskOrder, comm bool) *Result {
	t.Helper()
	g, err := topo.ParseSpec("mesh:16x16")
	if err != nil {
		t.Fatal(err)
	}
	a, err := alloc.Parse(allocSpec, g, alloc.Options{})
	if err != nil {
		t.Fatal(err)
	}
	pat, _ := netsim.ParsePattern("n-body")
	cfg := Config{Machine: g, Alloc: a, Pattern: pat, TaskOrder: o, TaskSeed: 3}
	if comm {
		cfg.Comm = &Comm{Pattern: pat, Params: netsim.DefaultParams(), MessagesPerSecond: 1, CycleSeconds: 0.05, Seed: 1}
	}
	res, err := Run(context.Background(), taskOrderJobs(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestTaskOrderChangesOnlyTheMapping(t *testing.T) {
	// Without communication the schedule and the node sets do not depend on the
	// task order; the order of each job's nodes does, and with it the n-body
	// message distance. "returned" is what replays did before task orders.
	orders := []TaskOrder{TaskOrderReturned, TaskOrderSorted, TaskOrderAllocator, "curve:hilbert", TaskOrderRandom}
	for _, spec := range []string{"mc1x1", "mc", "genalg", "bf:hilbert"} {
		base := taskOrderRun(t, spec, TaskOrderReturned, false)
		dist := map[TaskOrder]float64{}
		for _, o := range orders {
			res := taskOrderRun(t, spec, o, false)
			dist[o] = res.MeanMessageDistance
			for i, r := range res.PerJob {
				b := base.PerJob[i]
				if r.Start != b.Start || r.End != b.End || !slices.Equal(slices.Sorted(slices.Values(r.Nodes)), slices.Sorted(slices.Values(b.Nodes))) {
					t.Fatalf("%s, %s, job %d: start %d end %d nodes %v; returned order: %d %d %v", spec, o, r.ID, r.Start, r.End, r.Nodes, b.Start, b.End, b.Nodes)
				}
				if o == TaskOrderSorted && !slices.IsSorted(r.Nodes) {
					t.Errorf("%s, sorted, job %d: %v", spec, r.ID, r.Nodes)
				}
			}
			if res.MeanAvgPairwiseL1 != base.MeanAvgPairwiseL1 {
				t.Errorf("%s, %s: pairwise distance %v, returned order %v (a set measure)", spec, o, res.MeanAvgPairwiseL1, base.MeanAvgPairwiseL1)
			}
		}
		// A random mapping loses the locality every other order keeps.
		for _, o := range orders[:4] {
			if !(dist[o] < dist[TaskOrderRandom]) {
				t.Errorf("%s: n-body message distance %v with %s, %v random", spec, dist[o], o, dist[TaskOrderRandom])
			}
		}
		t.Logf("%s: n-body message distance %v", spec, dist)
	}
}

func TestTaskOrderSortedIsTodaysForSortedAllocators(t *testing.T) {
	// MC1x1 and Gen-Alg return their nodes by index: "sorted" replays them exactly
	// as before, communication included. MC returns its shells: "allocator" is
	// its returned order, and "sorted" is not.
	for _, c := range []struct {
		spec string
		same TaskOrder
	}{{"mc1x1", TaskOrderSorted}, {"genalg", TaskOrderSorted}, {"mc", TaskOrderAllocator}, {"bf:hilbert", "curve:hilbert"}} {
		base := taskOrderRun(t, c.spec, TaskOrderReturned, true)
		if got := taskOrderRun(t, c.spec, c.same, true); !reflect.DeepEqual(got, base) {
			t.Errorf("%s: task order %s differs from the returned order", c.spec, c.same)
		}
	}
	// Under communication the mapping decides run times: MC's shell order sends
	// n-body messages further than index order, and its jobs run longer.
	shells, sorted := taskOrderRun(t, "mc", TaskOrderAllocator, true), taskOrderRun(t, "mc", TaskOrderSorted, true)
	if !(shells.MeanMessageDistance > 1.1*sorted.MeanMessageDistance) {
		t.Errorf("mc: message distance %v in shell order, %v sorted: want the shells 10%% further", shells.MeanMessageDistance, sorted.MeanMessageDistance)
	}
	t.Logf("mc: shells %v hops, mean response %v; sorted %v hops, %v", shells.MeanMessageDistance, shells.MeanResponse, sorted.MeanMessageDistance, sorted.MeanResponse)
}

func TestTaskOrderErrors(t *testing.T) {
	s := DefaultSpec()
	s.Trace, s.MachineSpec, s.Alloc = "t.swf", "mesh:8x8", "mc1x1"
	s.TaskOrder = "shells"
	if err := s.Validate(); err == nil {
		t.Error("task order shells: no error")
	}
	s.TaskOrder = "curve:nosuchcurve"
	if _, err := s.Prepare(); err == nil {
		t.Error("curve:nosuchcurve: no error")
	}
}
