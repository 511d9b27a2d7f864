package sim

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/topo"
)

// The Cplant queue's three keys by hand (Leung et al. 2002 §3): fewest processors,
// then shortest requested time, then arrival. Jobs 2 to 4 want 2 nodes each; 3 and 4
// ask for 8 s, 2 for 50 s, so at t = 10 the queue is 5, 3, 4, 2: 5 and 3 start, 4
// waits for 5's node (t = 11) and 2, behind it, for 3's (t = 15). TestEASYBackfill's
// jobs differ in size only, so neither the time key nor the arrival tie was checked.
func TestCplantQueueOrder(t *testing.T) {
	g := topo.Mesh(2, 2)
	jobs := []Job{
		{ID: 1, Arrival: 0, Procs: 4, Runtime: 10, Estimate: 10},
		{ID: 2, Arrival: 1, Procs: 2, Runtime: 5, Estimate: 50},
		{ID: 3, Arrival: 2, Procs: 2, Runtime: 5, Estimate: 8},
		{ID: 4, Arrival: 3, Procs: 2, Runtime: 5, Estimate: 8},
		{ID: 5, Arrival: 4, Procs: 1, Runtime: 1, Estimate: 1},
	}
	r := replayByHand(t, g, jobs, SchedCplant)
	var got []int64
	for _, j := range r.PerJob {
		got = append(got, j.Start)
	}
	if want := []int64{0, 15, 10, 11, 10}; !slices.Equal(got, want) {
		t.Errorf("starts %v, want %v", got, want)
	}
}

// Wait, response and slowdown by hand on TestEASYBackfill's jobs under FCFS (starts
// 0, 10, 15, 15) plus a job of no run time, whose slowdown divides by 1 s: responses
// 10, 14, 33, 17 and 0, slowdowns 1, 2.8, 1.65, 3.4 and 0. No test looked at the
// slowdown: its floor of 1 s could become 10 s unseen.
func TestSummaryByHand(t *testing.T) {
	g := topo.Mesh(2, 2)
	jobs := []Job{
		{ID: 1, Arrival: 0, Procs: 3, Runtime: 10, Estimate: 10},
		{ID: 2, Arrival: 1, Procs: 4, Runtime: 5, Estimate: 5},
		{ID: 3, Arrival: 2, Procs: 1, Runtime: 20, Estimate: 20},
		{ID: 4, Arrival: 3, Procs: 1, Runtime: 5, Estimate: 7},
		{ID: 5, Arrival: 40, Procs: 2, Runtime: 0, Estimate: 1},
	}
	r := replayByHand(t, g, jobs, SchedFCFS)
	wantSlow := []float64{1, 2.8, 1.65, 3.4, 0}
	for i, j := range r.PerJob {
		if math.Abs(j.Slowdown()-wantSlow[i]) > 1e-12 {
			t.Errorf("job %d: slowdown %g, want %g", i+1, j.Slowdown(), wantSlow[i])
		}
	}
	s := r.Summary
	if s.MeanWait != (0+9+13+12+0)/5.0 || s.MaxWait != 13 || s.MeanResponse != (10+14+33+17+0)/5.0 ||
		math.Abs(s.MeanSlowdown-(1+2.8+1.65+3.4)/5) > 1e-12 || s.Makespan != 40 {
		t.Errorf("summary: wait %g (max %d), response %g, slowdown %g, makespan %d; want 6.8 (13), 14.8, 1.77, 40",
			s.MeanWait, s.MaxWait, s.MeanResponse, s.MeanSlowdown, s.Makespan)
	}
}

// replayByHand replays jobs on g with mc1x1 under sched, failing t on an error.
func replayByHand(t *testing.T, g *topo.Grid, jobs []Job, sched Sched) *Result {
	t.Helper()
	a, err := alloc.Parse("mc1x1", g, alloc.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := Run(context.Background(), jobs, Config{Machine: g, Alloc: a, Sched: sched})
	if err != nil {
		t.Fatal(err)
	}
	return r
}
