package plan

import (
	"bytes"
	"context"
	"runtime"
	"slices"
	"testing"

	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/topo"
	"github.com/procalloc/procalloc/topo/hostlist"
)

// Without a time limit (TimeLimit zero, the zero value) a plan is the same whatever the machine's
// speed: on a 272-host mesh (above 256 hosts: the scalable ordering, whose local
// search otherwise runs until the limit) with weights it cannot prove optimal, two
// plans made with GOMAXPROCS 1 and 8 (different timing, as on another machine)
// give the same ordering and byte-identical files. Before negative meant "no limit"
// the solve always had a deadline (0 and below were the default 60 s) and the two
// orderings differed.
func TestPlanWithoutTimeLimitIsReproducible(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: two scalable orderings of 272 hosts without a time limit (seconds of CPU each)")
	}
	m, err := topo.ParseMachine("mesh:17x16")
	if err != nil {
		t.Fatal(err)
	}
	names, err := hostlist.Expand("cn[001-272]")
	if err != nil {
		t.Fatal(err)
	}
	w, err := curves.ParseWeights("exp:2:3")
	if err != nil {
		t.Fatal(err)
	}
	opt := Options{Machine: m, Hosts: names, MachineSource: "mesh:17x16",
		SlurmConf: []byte("NodeName=cn[001-272] CPUs=1\nPartitionName=p Nodes=ALL OverSubscribe=EXCLUSIVE\n"),
		Version:   V2311, VersionSource: "test", Weights: w, SyntheticJobs: 200, Seed: 1} // TimeLimit zero: none
	run := func(procs int) *Plan {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		p, err := Make(context.Background(), opt)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	a, b := run(1), run(8)
	oa, ob := a.Report.Ordering, b.Report.Ordering
	if oa.Status == "time_limit" || oa.TimeLimit != 0 {
		t.Errorf("status %s, time_limit %g: want the solve without a limit (time_limit 0)", oa.Status, oa.TimeLimit)
	}
	if !slices.Equal(a.Order, b.Order) || oa.Objective != ob.Objective {
		t.Fatalf("two plans without a time limit ordered differently: F %g (status %s) and %g (status %s)", oa.Objective, oa.Status, ob.Objective, ob.Status)
	}
	if len(a.Files) != len(b.Files) {
		t.Fatalf("%d files against %d", len(a.Files), len(b.Files))
	}
	for i, f := range a.Files {
		g := b.Files[i]
		if f.Name != g.Name {
			t.Fatalf("file %d: %s against %s", i, f.Name, g.Name)
		}
		if f.Name == "report.json" || f.Name == "report.html" {
			continue // they hold the solve's seconds
		}
		if !bytes.Equal(f.Data, g.Data) {
			t.Errorf("%s differs between the two plans", f.Name)
		}
	}
}
