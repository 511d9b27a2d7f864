package plan

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/procalloc/procalloc/sim"
	"github.com/procalloc/procalloc/topo/hostlist"
)

// With a graph named by its own host names, a history's record naming a host
// the network lacks is refused at its record as soon as the hosts are matched to
// slurm.conf's nodes (Options.ReadTrace), before the heavy checks (the compute
// network built and checked: seconds at 10^5 hosts) begin, with the message of
// a history read against --hostlist (line, job, host). On a 32,768-host fat
// tree whose hosts are slurm.conf's nodes by NodeHostname (renamed to their
// NodeName, as a fabric dump's hosts are): the read stops at the bad record
// (a later malformed line is never reached), and heavyChecks is never called.
// The same history given read (Options.Trace) is refused after the heavy
// checks began, by the whole-history check: the hook sees the difference.
func TestHistoryHostsCheckedBeforeHeavyChecks(t *testing.T) {
	spec, g := largeFatTree(t)
	hosts := make([]string, g.N())
	for i := range hosts {
		hosts[i] = g.Name(i)
	}
	// NodeName=n[1-N] NodeHostname=the graph's hosts: matched by NodeHostname.
	var conf strings.Builder
	for i, h := range hosts {
		fmt.Fprintf(&conf, "NodeName=n%d NodeHostname=%s CPUs=1\n", i+1, h)
	}
	conf.WriteString("PartitionName=all Nodes=ALL Default=YES\n")
	history := "JobIDRaw|Submit|Start|End|NNodes|State|NodeList\n" +
		"1|2024-01-01T10:00:00|2024-01-01T10:00:00|2024-01-01T10:01:00|4|COMPLETED|n[1-4]\n" +
		"2|2024-01-01T10:00:01|2024-01-01T10:00:10|2024-01-01T10:01:00|2|COMPLETED|n[5-6]\n" +
		fmt.Sprintf("3|2024-01-01T10:00:02|2024-01-01T10:00:20|2024-01-01T10:01:00|2|COMPLETED|n%d,%s\n", g.N(), hosts[7]) +
		"4|2024-01-01T10:00:03|2024-01-01T10:00:30|2024-01-01T10:01:00|1|COMPLETED|nope1\n" +
		"this line is not a record\n"
	wantMsg := fmt.Sprintf(`line 4: job 3: recorded node %q is not a host of the network %s`, hosts[7], spec)
	heavy := false
	heavyChecks = func() { heavy = true }
	defer func() { heavyChecks = nil }()
	opt := Options{Machine: g, MachineSource: spec, SlurmConf: []byte(conf.String()), TracePath: "h.sacct", Version: V2311, VersionSource: "test", TimeLimit: -1, Seed: 1}
	calls := 0
	opt.ReadTrace = func(ctx context.Context, hs *hostlist.Table, of string) (*sim.Trace, error) {
		calls++
		if hs.Len() != g.N() || hs.Name(0) != "n1" {
			t.Errorf("the history's hosts: %d, the first %q; want %d, n1", hs.Len(), hs.Name(0), g.N())
		}
		return sim.ReadTrace(strings.NewReader(history), sim.ReadOptions{Hosts: hs, HostsOf: of, Location: time.UTC})
	}
	_, err := Make(context.Background(), opt)
	if err == nil || !strings.Contains(err.Error(), wantMsg) || calls != 1 {
		t.Fatalf("Make: %v (%d reads); want %q", err, calls, wantMsg)
	}
	if heavy {
		t.Errorf("the heavy checks began before the history was refused: %v", err)
	}
	// The same history read first (without its malformed last line), given as
	// Trace: refused by the check after the heavy ones.
	tr, err := sim.ReadTrace(strings.NewReader(strings.TrimSuffix(history, "this line is not a record\n")), sim.ReadOptions{Location: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	opt.ReadTrace, opt.Trace = nil, tr
	if _, err := Make(context.Background(), opt); err == nil || !heavy || !strings.Contains(err.Error(), hosts[7]) {
		t.Errorf("the history given read: %v, heavy checks begun %v", err, heavy)
	}
}
