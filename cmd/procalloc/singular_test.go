package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/sim"
)

// onePlural finds a count of 1 said with a plural noun ("1 jobs", "1 sacct
// records", "1 earlier runs"), up to two words between.
var onePlural = regexp.MustCompile(`\b1 (\w+ ){0,2}(jobs|hosts|lines|records|steps|runs|nodes)\b`)

// TestCountsOfOneAreSingular feeds counts of 1 through the drop and skip notes
// of sim, compare and plan (the drop note, the skipped records' reasons, sim's
// summary line, and the notes of a history with one record of each kind), and
// counts of 2 through the same: 1 is said in the singular, 2 in the plural.
func TestCountsOfOneAreSingular(t *testing.T) {
	check := func(what, text string, n int) {
		t.Helper()
		if n == 1 && onePlural.MatchString(text) {
			t.Errorf("%s: %q says %q", what, text, onePlural.FindString(text))
		}
		if n == 2 && !strings.Contains(text, "2 jobs") && !strings.Contains(text, "2 job steps") && !strings.Contains(text, "2 malformed lines") {
			t.Errorf("%s with counts of 2: %q has no plural", what, text)
		}
	}
	for _, n := range []int{1, 2} {
		d := sim.HostsDropped{Jobs: n, Hosts: n, FirstJob: 5, FirstLine: 3, FirstHost: "n9", Lacking: "mesh:4x4"}
		check("HostsDropped.Note", d.Note(), n)
		total, by := byReason(map[string]int{"job steps": n, "earlier runs of requeued jobs": n, "still running": n})
		if total != 3*n {
			t.Errorf("byReason total %d, want %d", total, 3*n)
		}
		check("byReason", by, n)
		var b bytes.Buffer
		rep := &sim.Report{BadLines: n, DroppedLarger: n, DroppedUnknownHosts: n, UnknownHosts: n}
		if err := printSimSummary(&b, rep, sim.MetricSet(0), false); err != nil {
			t.Fatal(err)
		}
		first, _, _ := strings.Cut(b.String(), "\n")
		check("sim's summary line", first, n)
		if n == 1 && (strings.Contains(first, "their partition") || !strings.Contains(first, "1 job naming 1 host the machine lacks dropped")) {
			t.Errorf("sim's summary line: %q", first)
		}
	}

	// A history of one record of each kind the reader skips or joins: a job
	// step, an earlier run of a requeued job, an impossible record (it ends
	// before it starts), one heterogeneous job; and an SWF trace of one record
	// the conversion rules drop.
	dir := t.TempDir()
	sacct := filepath.Join(dir, "one.sacct")
	os.WriteFile(sacct, []byte(`JobIDRaw|JobID|Submit|Start|End|ElapsedRaw|TimelimitRaw|NNodes|NCPUS|State|Partition|NodeList
1|1|2026-11-02T08:00:00|2026-11-02T08:00:05|2026-11-02T08:10:05|600|20|2|2|COMPLETED|batch|n[1-2]
1.batch|1.batch|2026-11-02T08:00:05|2026-11-02T08:00:05|2026-11-02T08:10:05|600||1|1|COMPLETED||n1
2|2|2026-11-02T08:01:00|2026-11-02T08:02:00|2026-11-02T08:03:00|60|20|2|2|REQUEUED|batch|n[3-4]
2|2|2026-11-02T08:01:00|2026-11-02T08:20:00|2026-11-02T08:30:00|600|20|2|2|COMPLETED|batch|n[3-4]
3|3|2026-11-02T08:02:00|2026-11-02T08:40:00|2026-11-02T08:30:00|600|20|1|1|COMPLETED|batch|n5
4|4+0|2026-11-02T08:03:00|2026-11-02T08:04:00|2026-11-02T08:05:00|60|20|1|1|COMPLETED|batch|n6
5|4+1|2026-11-02T08:03:00|2026-11-02T08:04:00|2026-11-02T08:05:00|60|20|1|1|COMPLETED|batch|n7
`), 0o644)
	step := filepath.Join(dir, "step.sacct") // one record skipped in all
	os.WriteFile(step, []byte(`JobIDRaw|JobID|Submit|Start|End|ElapsedRaw|TimelimitRaw|NNodes|NCPUS|State|Partition|NodeList
1|1|2026-11-02T08:00:00|2026-11-02T08:00:05|2026-11-02T08:10:05|600|20|2|2|COMPLETED|batch|n[1-2]
1.batch|1.batch|2026-11-02T08:00:05|2026-11-02T08:00:05|2026-11-02T08:10:05|600||1|1|COMPLETED||n1
`), 0o644)
	swf := filepath.Join(dir, "one.swf")
	os.WriteFile(swf, []byte("1 0 0 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1\n2 10 0 100 -1 -1 -1 -1 200 -1 1 1 1 -1 1 -1 -1 -1\n"), 0o644)
	for _, args := range [][]string{
		{"sim", "--trace", sacct, "--tz", "UTC", "--machine", "mesh:4x4", "--sched", "easy", "--alloc", "mc1x1"},
		{"compare", "--trace", sacct, "--tz", "UTC", "--machine", "mesh:4x4", "--sched", "easy", "--alloc", "mc1x1,ff:hilbert"},
		{"sim", "--trace", step, "--tz", "UTC", "--machine", "mesh:4x4", "--sched", "easy", "--alloc", "mc1x1"},
		{"sim", "--trace", swf, "--machine", "mesh:4x4", "--sched", "easy", "--alloc", "mc1x1"},
	} {
		code, out, stderr := runCLI(t, "", args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		check(strings.Join(args, " "), stderr+out, 1)
		for _, want := range map[string][]string{
			step:  {"1 sacct record skipped: 1 job step"},
			sacct: {"2 sacct records skipped", "1 job step", "1 earlier run of a requeued job", "1 impossible sacct record skipped", "1 heterogeneous job replayed as one job: its components"},
			swf:   {"1 SWF record dropped by the conversion rules"},
		}[args[2]] {
			if !strings.Contains(stderr, want) {
				t.Errorf("%v: stderr lacks %q:\n%s", args, want, stderr)
			}
		}
	}

	// plan: a history of one job kept and one dropped (naming one host
	// slurm.conf lacks): the note, the recommendation, the text and HTML
	// reports.
	hist := filepath.Join(dir, "plan.sacct")
	os.WriteFile(hist, []byte(`JobIDRaw|Submit|Start|End|ElapsedRaw|TimelimitRaw|NNodes|NCPUS|State|Partition|NodeList
1|2026-11-02T08:00:00|2026-11-02T08:00:05|2026-11-02T09:00:05|3600|120|4|256|COMPLETED|batch|node[01,05,09,13]
2|2026-11-02T08:01:00|2026-11-02T08:01:10|2026-11-02T08:31:10|1800|60|1|64|COMPLETED|batch|node17
`), 0o644)
	out := filepath.Join(dir, "plan")
	code, stdout, stderr := runCLI(t, "", "plan", "--graph", "../../topo/testdata/fattree.ibnetdiscover", "--node-name-map", "../../topo/testdata/fattree.node-name-map",
		"--slurm-conf", "../../plan/testdata/slurm.conf", "--slurm-version", "23.11", "--trace", hist, "--drop-unknown-hosts", "--time-limit", "0", "-o", out)
	if code != 0 {
		t.Fatalf("plan: exit %d: %s", code, stderr)
	}
	html, _ := os.ReadFile(filepath.Join(out, "report.html"))
	for what, text := range map[string]string{"plan's stderr": stderr, "plan's report": stdout, "report.html": string(html)} {
		check(what, text, 1)
	}
	for _, want := range []string{"on the 1 job of the history kept: 1 job naming 1 host that is not a compute host was dropped", "on 1 multi-node job", "workload        trace, 1 job,"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("plan's report lacks %q:\n%s", want, stdout)
		}
	}

	// plan's warnings of one host or node each: a host of the network
	// slurm.conf lacks (n1), a node of slurm.conf the network lacks (x1), a
	// State=FUTURE node (n2), a compute host in no partition (n16).
	site := writeTemp(t, "site.conf", "NodeName=n[3-16],x1 CPUs=1\nNodeName=n2 CPUs=1 State=FUTURE\nPartitionName=p Nodes=n[2-15],x1 Default=YES\n")
	out = filepath.Join(dir, "plan-site")
	code, _, stderr = runCLI(t, "", "plan", "--machine", "mesh:4x4", "--hostlist", "n[1-16]", "--slurm-conf", site, "--slurm-version", "23.11", "--time-limit", "0", "--jobs", "50", "-o", out)
	if code != 0 {
		t.Fatalf("plan: exit %d: %s", code, stderr)
	}
	check("plan's warnings", stderr, 1)
	for _, want := range []string{"1 host of the network is not a node of the slurm.conf", "1 node of the slurm.conf is not a host of the network", "1 node is State=FUTURE", "1 compute host is in no partition (n16)"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("plan's warnings lack %q:\n%s", want, stderr)
		}
	}
}
