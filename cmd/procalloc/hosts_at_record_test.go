package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A history's NodeList host the machine lacks is refused at its record by sim
// --alloc as-run and by plan given --hostlist (the job and line named; sim's
// --skip-bad skips it), not after the whole history is read.
func TestHostsCheckedAtRecord(t *testing.T) {
	dir := t.TempDir()
	write := writeTemp
	conf := write(t, "slurm.conf", "NodeName=n[1-16] CPUs=4\nPartitionName=p Nodes=ALL Default=YES\n")
	trace := write(t, "h.sacct", "JobIDRaw|Submit|Start|End|NNodes|State|NodeList\n"+
		"1|2024-01-01T10:00:00|2024-01-01T10:00:00|2024-01-01T10:01:00|4|COMPLETED|n[1-4]\n"+
		"2|2024-01-01T10:00:01|2024-01-01T10:00:10|2024-01-01T10:01:00|2|COMPLETED|n[16-17]\n"+
		"3|2024-01-01T10:00:10|2024-01-01T10:00:20|2024-01-01T10:01:00|2|COMPLETED|n[5-6]\n")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"sim", "--trace", trace, "--machine", "mesh:4x4", "--hostlist", "n[1-16]", "--alloc", "as-run", "--sched", "as-run", "--tz", "UTC"}, 1, trace + `: line 3: job 2: recorded node "n17" is not a host of mesh:4x4`},
		{[]string{"sim", "--trace", trace, "--machine", "mesh:4x4", "--hostlist", "n[1-16]", "--alloc", "as-run", "--sched", "as-run", "--tz", "UTC", "--skip-bad"}, 0, ""},
		{[]string{"plan", "--machine", "mesh:4x4", "--hostlist", "n[1-16]", "--slurm-conf", conf, "--trace", trace, "-o", filepath.Join(dir, "p")}, 1, `line 3: job 2: recorded node "n17" is not a host of the network mesh:4x4`},
		// A window: its records checked at their record, the others not.
		{[]string{"sim", "--trace", trace, "--machine", "mesh:4x4", "--hostlist", "n[1-16]", "--slurm-conf", conf, "--alloc", "mc1x1", "--tz", "UTC", "--from", "0"}, 1, trace + `: line 3: job 2: recorded node "n17" is not a host of mesh:4x4`},
		{[]string{"sim", "--trace", trace, "--machine", "mesh:4x4", "--hostlist", "n[1-16]", "--slurm-conf", conf, "--alloc", "mc1x1", "--tz", "UTC", "--from", "0", "--skip-bad"}, 0, "(1 malformed line skipped)"},
		{[]string{"sim", "--trace", trace, "--machine", "mesh:4x4", "--hostlist", "n[1-16]", "--slurm-conf", conf, "--alloc", "mc1x1", "--tz", "UTC", "--from", "5"}, 0, ""},
	} {
		code, stdout, stderr := runCLI(t, "", tc.args...)
		if code != tc.code || !strings.Contains(stdout+stderr, tc.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit %d and %q", strings.Join(tc.args, " "), code, stderr, tc.code, tc.want)
		}
	}
}

// plan --graph (a network naming its own hosts) refuses a history's host the
// network lacks at its record, with the message --hostlist gives (the file,
// line, job and host), before its heavy checks: the read stops there (a
// malformed line after it is never reached, where the whole history was read
// first and the host checked after the network was built).
func TestPlanGraphChecksHistoryHostsAtRecord(t *testing.T) {
	dir := t.TempDir()
	b, err := os.ReadFile("../../sim/testdata/sacct-fattree.txt")
	if err != nil {
		t.Fatal(err)
	}
	trace := writeTemp(t, "h.sacct", string(b)+
		"1099|2026-11-02T09:00:00|2026-11-02T09:00:05|2026-11-02T09:10:05|600|120|2|128|COMPLETED|batch|node[16-17]\n"+
		"this line is not a record\n")
	graph := "../../topo/testdata/fattree.ibnetdiscover"
	code, _, stderr := runCLI(t, "", "plan", "--graph", graph, "--node-name-map", "../../topo/testdata/fattree.node-name-map",
		"--slurm-conf", "../../plan/testdata/slurm.conf", "--trace", trace, "--slurm-version", "23.11", "-o", filepath.Join(dir, "p"))
	want := "--trace " + trace + `: line 16: job 1099: recorded node "node17" is not a host of the network ` + graph
	if code != 1 || !strings.Contains(stderr, want) {
		t.Errorf("plan --graph with a history naming node17: exit %d, %s; want %q", code, stderr, want)
	}
}
