package plan

import (
	"context"
	"testing"
	"time"

	"github.com/procalloc/procalloc/topo"
	"github.com/procalloc/procalloc/topo/hostlist"
)

// A Go user's zero Options.TimeLimit is no limit, as everywhere in procalloc (it was
// a silent 60 s): the report has no time limit and the ordering's solve none;
// negative, the old spelling of none, still means none; a positive one is kept
// and the ordering gets half of it.
func TestZeroTimeLimitIsNone(t *testing.T) {
	m, err := topo.ParseMachine("mesh:4x4")
	if err != nil {
		t.Fatal(err)
	}
	names, err := hostlist.Expand("cn[01-16]")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		limit         time.Duration
		report, order float64
	}{{0, 0, 0}, {-1, 0, 0}, {time.Hour, 3600, 1800}} {
		opt := Options{Machine: m, Hosts: names, MachineSource: "mesh:4x4",
			SlurmConf: []byte("NodeName=cn[01-16] CPUs=1\nPartitionName=p Nodes=ALL OverSubscribe=EXCLUSIVE\n"),
			Version:   V2311, VersionSource: "test", SyntheticJobs: 50, Seed: 1, TimeLimit: tc.limit}
		p, err := Make(context.Background(), opt)
		if err != nil {
			t.Fatal(err)
		}
		if p.Report.TimeLimit != tc.report || p.Report.Ordering.TimeLimit != tc.order {
			t.Errorf("TimeLimit %v: report's time limit %g s, ordering's %g s; want %g and %g", tc.limit, p.Report.TimeLimit, p.Report.Ordering.TimeLimit, tc.report, tc.order)
		}
	}
}
