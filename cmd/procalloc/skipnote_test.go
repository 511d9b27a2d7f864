package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/slurm"
)

// TestSacctSkippedOneNote: the records an sacct history's reader skipped are one
// note on stderr with every reason's count (slurm.ReadSacct's, the plain
// definition) and their total, and the impossible ones one other note; before,
// each reason was a line of its own.
func TestSacctSkippedOneNote(t *testing.T) {
	t.Setenv("TZ", "UTC")
	text := "JobIDRaw|Submit|Start|End|ElapsedRaw|NNodes|State\n" +
		"1|2026-11-02T08:00:00|2026-11-02T08:00:05|2026-11-02T08:10:05|600|2|COMPLETED\n" +
		"1.batch|2026-11-02T08:00:05|2026-11-02T08:00:05|2026-11-02T08:10:05|600|1|COMPLETED\n" +
		"1.0|2026-11-02T08:00:05|2026-11-02T08:00:05|2026-11-02T08:10:05|600|1|COMPLETED\n" +
		"2|2026-11-02T08:01:00|Unknown|Unknown|0|1|PENDING\n" +
		"3|2026-11-02T08:02:00|Unknown|2026-11-02T08:03:00|0|1|CANCELLED\n" +
		"4|2026-11-02T08:02:00|2026-11-02T08:04:00|Unknown|100|1|RUNNING\n" +
		"5|2026-11-02T08:02:00|2026-11-02T08:04:00|Unknown|100|1|RUNNING\n" +
		"6|2026-11-02T08:05:00|2026-11-02T08:04:00|2026-11-02T08:06:00|120|1|COMPLETED\n" +
		"7|2026-11-02T08:05:00|2026-11-02T08:06:00|2026-11-02T08:05:30|0|1|COMPLETED\n" +
		"8|2026-11-02T08:05:00|2026-11-02T08:06:00|2026-11-02T08:07:00|60|1|COMPLETED\n"
	sa, err := slurm.ReadSacct(strings.NewReader(text), slurm.SacctOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(sa.Skipped) < 3 || len(sa.Impossible) < 2 {
		t.Fatalf("skipped %v, impossible %v: the history tests too few reasons", sa.Skipped, sa.Impossible)
	}
	path := filepath.Join(t.TempDir(), "h.sacct")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, "", "sim", "--trace", path, "--machine", "mesh:2x2", "--alloc", "ff:snake", "--sched", "as-run")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, c := range []struct {
		what   string
		counts map[string]int
	}{{"sacct records skipped", sa.Skipped}, {"impossible sacct records skipped", sa.Impossible}} {
		re := regexp.MustCompile(`(?m)^procalloc sim: ` + regexp.QuoteMeta(path) + `: (\d+) ` + c.what + `: (.*)$`)
		lines := re.FindAllStringSubmatch(stderr, -1)
		if len(lines) != 1 {
			t.Errorf("%d notes %q, want one: %s", len(lines), c.what, stderr)
			continue
		}
		total := 0
		for why, n := range c.counts {
			total += n
			if part := fmt.Sprintf("%d %s", n, why); !strings.Contains(lines[0][2], part) {
				t.Errorf("%s: no %q in %q", c.what, part, lines[0][2])
			}
		}
		if lines[0][1] != strconv.Itoa(total) {
			t.Errorf("%s: total %s, want %d", c.what, lines[0][1], total)
		}
	}
}

// TestPlanUnknownHostsNamesTheFlag: plan's own refusal of a history naming
// hosts of the network that slurm.conf lacks names the flag that drops their
// jobs, not the library's option (plan.UnknownHostsError; the library's text
// is checked in package plan).
func TestPlanUnknownHostsNamesTheFlag(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "slurm.conf")
	if err := os.WriteFile(conf, []byte("NodeName=DEFAULT CPUs=1\nNodeName=node[01-14]\nPartitionName=batch Nodes=ALL Default=YES\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	trace := "../../sim/testdata/sacct-fattree.txt"
	code, _, stderr := runCLI(t, "", "plan", "--graph", "../../topo/testdata/fattree.ibnetdiscover", "--node-name-map", "../../topo/testdata/fattree.node-name-map",
		"--slurm-conf", conf, "--trace", trace, "-o", filepath.Join(dir, "out"))
	want := "procalloc plan: " + trace + ": 2 node names of the history are hosts of the network but not nodes of " + conf + ": node15 (line 12), node16 (line 12) (retired or renamed nodes? --drop-unknown-hosts drops their jobs, counted)\n"
	if code != 1 || stderr != want {
		t.Errorf("exit %d, stderr %q, want %q", code, stderr, want)
	}
	// Hosts the network lacks are refused by the reader, its hint said once.
	code, _, stderr = runCLI(t, "", "plan", "--graph", "../../topo/testdata/fattree.ibnetdiscover", "--node-name-map", "../../topo/testdata/fattree.node-name-map",
		"--slurm-conf", conf, "--trace", "../../sim/testdata/sacct-fattree-retired.txt", "-o", filepath.Join(dir, "out"))
	if code != 1 || strings.Count(stderr, "--drop-unknown-hosts") != 1 {
		t.Errorf("retired hosts: exit %d, stderr %q, want the flag named once", code, stderr)
	}
}
