package sim

import (
	"context"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/topo"
)

// TestDisconnectedNetworkDistances: on a network in two parts a job across them has
// no pairwise hop distance. The replay refuses the distance metrics there (it
// measured the unreachable pairs as -1 each: a 3-host job across the parts scored
// 0 before), Gen-Alg refuses the network, and the schedule alone still replays.
func TestDisconnectedNetworkDistances(t *testing.T) {
	g, err := topo.ReadGraph(strings.NewReader("%switch s0\n%switch s1\nh0 s0\nh1 s0\nh2 s1\nh3 s1\n"))
	if err != nil {
		t.Fatal(err)
	}
	jobs := []Job{{ID: 1, Procs: 3, Runtime: 10, Estimate: 10}, {ID: 2, Procs: 2, Arrival: 1, Runtime: 10, Estimate: 10}}
	if _, err := alloc.Parse("genalg", g, alloc.Options{}); err == nil || !strings.Contains(err.Error(), `needs a connected network`) || !strings.Contains(err.Error(), `node "h2" cannot be reached`) {
		t.Errorf("genalg on two parts: %v; want the network refused naming h2", err)
	}
	for _, metrics := range []MetricSet{MetricsDist, MetricsSched | MetricsDist} {
		a, err := alloc.Parse("ff:rcm", g, alloc.Options{})
		if err != nil {
			t.Fatal(err)
		}
		_, err = Run(context.Background(), jobs, Config{Machine: g, Alloc: a, Sched: SchedFCFS, Metrics: metrics})
		if err == nil || !strings.Contains(err.Error(), "pairwise hop distances are undefined") {
			t.Errorf("metrics %v on two parts: %v; want the distances refused", metrics, err)
		}
	}
	a, err := alloc.Parse("ff:rcm", g, alloc.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), jobs, Config{Machine: g, Alloc: a, Sched: SchedFCFS, Metrics: MetricsSched})
	if err != nil || len(res.PerJob) != 2 {
		t.Fatalf("the schedule alone on two parts: %v", err)
	}
	// A switch no host reaches is no error: the hosts are one part.
	spare, err := topo.ReadGraph(strings.NewReader("%switch s0\n%switch spare\nh0 s0\nh1 s0\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := spare.CheckConnected(); err != nil {
		t.Errorf("a spare switch: %v", err)
	}
	if _, err := alloc.Parse("genalg", spare, alloc.Options{}); err != nil {
		t.Errorf("genalg with a spare switch: %v", err)
	}
}
