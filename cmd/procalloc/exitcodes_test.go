package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 24 row 19: every argument error of sim, compare, batch and netsim exits 2
// (a window given backwards, a rate out of range and as-run on a trace without
// placements exited 1), and failures that are not the arguments' fault exit 1.
func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	swf := filepath.Join(dir, "t.swf")
	body := "; UnixStartTime: 852076800\n; MaxProcs: 256\n" +
		"1 0 0 100 4 -1 -1 4 200 -1 1 1 1 -1 -1 -1 -1 -1\n" +
		"2 86400 0 100 4 -1 -1 4 200 -1 1 1 1 -1 -1 -1 -1 -1\n" +
		"3 9000000 0 100 4 -1 -1 4 200 -1 1 1 1 -1 -1 -1 -1 -1\n"
	if err := os.WriteFile(swf, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	llnl := "../../sim/testdata/LLNL-T3D-1996-2.converted.txt.gz"
	sim := []string{"sim", "--trace", swf, "--machine", "mesh:16x16"}
	cmp := []string{"compare", "--trace", swf, "--machine", "mesh:16x16", "--alloc", "mc1x1"}
	bat := []string{"batch", "--machine", "mesh:16x16:io=left", "--alloc", "mbs", "--runs", "2"}
	net := []string{"netsim", "--machine", "mesh:8x8", "--measure", "1000"}
	with := func(base []string, more ...string) []string { return append(append([]string{}, base...), more...) }
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{with(sim, "--from", "1997-03-01", "--to", "1997-01-15"), 2, "must end after --from"},
		{with(sim, "--from", "100", "--to", "50"), 2, "must end after --from"},
		{with(sim, "--to", "0"), 2, "must end after the trace's start"},
		{with(sim, "--from", "1000000000000"), 1, "no job arrives in the window"},
		{with(sim, "--comm", "n-body", "--msgs-per-second", "1e308"), 2, "--msgs-per-second 1e+308: must be a positive number of at most 1e+06"},
		{with(sim, "--comm", "n-body", "--msgs-per-second", "0"), 2, "--msgs-per-second 0"},
		{with(sim, "--comm", "n-body", "--cycle-seconds", "1e-300"), 2, "--cycle-seconds 1e-300: must be between 1e-09 and 1e+06"},
		{with(sim, "--alloc", "as-run"), 2, "--alloc as-run places each job on its recorded nodes"},
		{with(sim, "--sched", "as-run"), 2, "--sched as-run"},
		{with(sim, "--work", "0"), 2, "--work 0"},
		{with(sim, "--replicate", "0"), 2, "--replicate"},
		{with(sim, "--sched", "bogus"), 2, "--sched"},
		{[]string{"sim", "--trace", filepath.Join(dir, "missing"), "--machine", "mesh:16x16"}, 1, "no such file"},
		// A topology file the allocator names that is not there is a failure, not a usage error.
		{with(sim, "--alloc", "slurm:block:"+filepath.Join(dir, "missing.conf")), 1, "no such file"},
		{with(sim, "--alloc", "slurm:tree:"+filepath.Join(dir, "missing.conf")), 1, "no such file"},
		{[]string{"compare", "--trace", llnl, "--machine", "mesh:16x16", "--alloc", "mc1x1,as-run"}, 2, "--alloc as-run places each job"},
		{with(cmp, "--loads", "1e300"), 2, "at most 1e6"},
		{with(cmp, "--loads", "0"), 2, "--loads"},
		{with(cmp, "--parallel", "0"), 2, "--parallel 0"},
		{with(cmp, "--metric", "nope"), 2, `--metric "nope": not a metric key; valid: mean_total_pairwise_l1, `},
		{[]string{"batch", "--machine", "mesh:16x16:io=left", "--alloc", "mbs,as-run"}, 2, "--alloc as-run"},
		{with(bat, "--disk-mbps", "1e-300"), 2, "--disk-mbps 1e-300"},
		{with(bat, "--link-mbps", "Inf"), 2, "--link-mbps +Inf"},
		{with(bat, "--tasks", "0"), 2, "--tasks 0"},
		{with(bat, "--mean-size", "1e300"), 2, "--mean-size"},
		{with(bat, "--flit-bytes", "0"), 2, "flit size 0"},
		{with(net, "--rate", "0"), 2, "--rate 0"},
		{with(net, "--rate", "0.1", "--warmup", "-1"), 2, "--warmup"},
		{with(net, "--rate", "0.1", "--msg-flits", "0"), 2, "message size 0"},
		{with(net, "--rate", "0.1:0.05:0.01"), 2, "FROM <= TO"},
		{[]string{"netsim", "--machine", "mesh:1x1", "--rate", "0.1"}, 2, "2 to 65536 nodes"},
		{[]string{"cluster", "--k", "9223372036854775807"}, 2, "1..200000"},
	} {
		code, _, stderr := runCLI(t, "", tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit %d and %q", strings.Join(tc.args, " "), code, stderr, tc.code, tc.want)
		}
	}
}
