package main

import (
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// partHistory is an sacct history of jobs jobs, job i (JobIDRaw 2000+i) in
// partition parts[i mod len(parts)] on nodes node[first-first+k-1], first from
// first(i, lo, hi, k) with in[p] = {lo, hi} ({1, 16} for a partition in lacks),
// submitted every apart from 08:00 and started 30 s later.
func partHistory(parts []string, in map[string][2]int, jobs int, every time.Duration, first func(i, lo, hi, k int) int) string {
	var b strings.Builder
	b.WriteString("JobIDRaw|Submit|Start|End|ElapsedRaw|TimelimitRaw|NNodes|NCPUS|State|Partition|NodeList\n")
	const layout = "2006-01-02T15:04:05"
	for i := range jobs {
		p := parts[i%len(parts)]
		lo, hi := 1, 16
		if r, ok := in[p]; ok {
			lo, hi = r[0], r[1]
		}
		k := 1 + (i*7)%min(hi-lo+1, 5)
		f := first(i, lo, hi, k)
		sub := time.Date(2026, 11, 2, 8, 0, 0, 0, time.UTC).Add(time.Duration(i) * every)
		start := sub.Add(30 * time.Second)
		run := 600 + 97*(i%9)
		fmt.Fprintf(&b, "%d|%s|%s|%s|%d|%d|%d|%d|COMPLETED|%s|node[%02d-%02d]\n",
			2000+i, sub.Format(layout), start.Format(layout), start.Add(time.Duration(run)*time.Second).Format(layout),
			run, 30, k, k, p, f, f+k-1)
	}
	return b.String()
}

// rowsOutside reads sim's --per-job rows and returns the jobs on a node outside
// their partition (in: 1-based node numbers; a partition in lacks is not checked).
func rowsOutside(t *testing.T, rows string, parts []string, in map[string][2]int) []string {
	t.Helper()
	recs, col := readCSVColumns(t, rows)
	var bad []string
	for _, r := range recs[1:] {
		line, _ := strconv.Atoi(r[col["line"]])
		p := parts[(line-2)%len(parts)]
		lohi, ok := in[p]
		if !ok {
			continue
		}
		for _, v := range strings.Fields(r[col["nodes"]]) {
			node, _ := strconv.Atoi(v)
			if node+1 < lohi[0] || node+1 > lohi[1] {
				bad = append(bad, fmt.Sprintf("job of line %d (partition %q) on node%02d", line, p, node+1))
			}
		}
	}
	return bad
}

// TestSimPartitionsCLI: sim --slurm-conf with an sacct history of three
// overlapping partitions under fcfs, cplant and easy: exit 0, every job on nodes
// of its partition (--per-job), with Slurm's selection and with allocators of
// the other families, and with bt, sbt, dbt and paging with pages of 2x2 on
// partitions they can hold (a job no block of its partition holds refused,
// saying so); a job that ran outside its partition, or
// larger than it, an error naming the trace's line; a job of a partition
// slurm.conf lacks replayed in the default one with a warning.
func TestSimPartitionsCLI(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "slurm.conf")
	os.WriteFile(conf, []byte("NodeName=node[01-16] CPUs=1\nPartitionName=batch Nodes=ALL Default=YES\nPartitionName=debug Nodes=node[01-04]\nPartitionName=gpu Nodes=node[11-16]\n"), 0o644)
	in := map[string][2]int{"batch": {1, 16}, "debug": {1, 4}, "gpu": {11, 16}}
	parts := []string{"batch", "debug", "gpu", "batch", ""}
	history := partHistory(parts, in, 60, time.Minute, func(i, lo, hi, k int) int { return lo })
	trace := filepath.Join(dir, "sacct.txt")
	os.WriteFile(trace, []byte(history), 0o644)
	// slurm:tree (leaves of 4 nodes under two spines, no root) too: it may
	// refuse a job that fits by count, and easy reserves on its partition's
	// nodes through the will-run test.
	tree := filepath.Join(dir, "topology.conf")
	os.WriteFile(tree, []byte("SwitchName=l1 Nodes=node[01-04]\nSwitchName=l2 Nodes=node[05-08]\nSwitchName=l3 Nodes=node[09-12]\nSwitchName=l4 Nodes=node[13-16]\nSwitchName=s1 Switches=l[1-2]\nSwitchName=s2 Switches=l[3-4]\n"), 0o644)
	for _, c := range []struct{ sched, alloc string }{
		{"fcfs", "slurm:consec"}, {"cplant", "slurm:consec"}, {"easy", "slurm:consec"}, {"as-run", "slurm:consec"},
		{"fcfs", "slurm:tree:" + tree}, {"cplant", "slurm:tree:" + tree}, {"easy", "slurm:tree:" + tree},
		// allocators other than Slurm's (alloc.Occupier: help sim's list)
		{"fcfs", "mc1x1"}, {"easy", "bf:hilbert"}, {"cplant", "mm"}, {"easy", "mbs"}, {"fcfs", "ind-bt"},
		{"easy", "paging:hilbert:0"}, {"as-run", "mc1x1-greedy"},
	} {
		sched := c.sched
		rows := filepath.Join(dir, sched+".csv")
		code, out, stderr := runCLI(t, "", "sim", "--trace", trace, "--machine", "mesh:4x4", "--hostlist", "node[01-16]", "--slurm-conf", conf,
			"--sched", sched, "--alloc", c.alloc, "--per-job", rows, "--json")
		if code != 0 || !strings.Contains(out, `"jobs": 60`) {
			t.Fatalf("%s, %s: exit %d, %s %s", sched, c.alloc, code, out, stderr)
		}
		for _, bad := range rowsOutside(t, rows, parts, in) {
			t.Errorf("%s, %s: %s", sched, c.alloc, bad)
		}
	}
	// bt, sbt, dbt (a job's whole block freed with it) and paging with pages
	// of 2x2 nodes (whole pages) through their partition view
	// (alloc.ForPartitions): on mesh:2x8, whose partitions debug (the first 8
	// nodes) and gpu (the last 8) are blocks of the division tree and whole
	// pages, every job in its partition; with the partitions above, a job of 2
	// nodes in debug (one row of mesh:4x4) fits no block: refused, saying so.
	conf2 := filepath.Join(dir, "blocks.conf")
	os.WriteFile(conf2, []byte("NodeName=node[01-16] CPUs=1\nPartitionName=batch Nodes=ALL Default=YES\nPartitionName=debug Nodes=node[01-08]\nPartitionName=gpu Nodes=node[09-16]\n"), 0o644)
	in2 := map[string][2]int{"batch": {1, 16}, "debug": {1, 8}, "gpu": {9, 16}}
	trace2 := filepath.Join(dir, "sacct2.txt")
	os.WriteFile(trace2, []byte(partHistory(parts, in2, 60, time.Minute, func(i, lo, hi, k int) int { return lo })), 0o644)
	for _, c := range []struct{ sched, alloc string }{
		{"fcfs", "bt"}, {"easy", "sbt:2"}, {"cplant", "dbt:1/2"}, {"easy", "paging:hilbert-trunc:1"}, {"fcfs", "paging:snake:1"},
	} {
		rows := filepath.Join(dir, c.sched+"-blocks.csv")
		code, out, stderr := runCLI(t, "", "sim", "--trace", trace2, "--machine", "mesh:2x8", "--hostlist", "node[01-16]", "--slurm-conf", conf2,
			"--sched", c.sched, "--alloc", c.alloc, "--per-job", rows, "--json")
		if code != 0 || !strings.Contains(out, `"jobs": 60`) {
			t.Fatalf("%s, %s: exit %d, %s %s", c.sched, c.alloc, code, out, stderr)
		}
		for _, bad := range rowsOutside(t, rows, parts, in2) {
			t.Errorf("%s, %s: %s", c.sched, c.alloc, bad)
		}
	}
	code, _, stderr := runCLI(t, "", "sim", "--trace", trace, "--machine", "mesh:4x4", "--hostlist", "node[01-16]", "--slurm-conf", conf, "--sched", "fcfs", "--alloc", "bt")
	if want := "cannot place the job even on the empty machine"; code != 1 || !strings.Contains(stderr, want) || !strings.Contains(stderr, "external fragmentation") {
		t.Errorf("bt with a partition of one row: exit %d, want 1 saying %q: %s", code, want, stderr)
	}
	for _, c := range []struct{ old, new, want string }{
		{"|debug|node[01-01]", "|debug|node[05-05]", "ran on node05, which is not in its partition debug"},
		{"|1|1|COMPLETED|debug|node[01-01]", "|5|5|COMPLETED|debug|node[01-05]", "ran on node05, which is not in its partition debug"},
		{"|1|1|COMPLETED|debug|node[01-01]", "|5|5|COMPLETED|debug|", "needs 5 nodes, its partition debug has 4 compute hosts"},
	} {
		bad := filepath.Join(dir, "bad.txt")
		text := strings.Replace(history, c.old, c.new, 1)
		if text == history {
			t.Fatalf("%q is not in the trace", c.old)
		}
		os.WriteFile(bad, []byte(text), 0o644)
		code, _, stderr := runCLI(t, "", "sim", "--trace", bad, "--machine", "mesh:4x4", "--hostlist", "node[01-16]", "--slurm-conf", conf, "--sched", "easy", "--alloc", "slurm:consec")
		if code != 1 || !strings.Contains(stderr, c.want) || !strings.Contains(stderr, "line ") {
			t.Errorf("%s: exit %d, %s", c.want, code, stderr)
		}
	}
	// A job of a partition slurm.conf lacks (removed since) whose nodes are in
	// the default partition: replayed there, with a warning (sim.AssignPartitions).
	removed := filepath.Join(dir, "removed.txt")
	os.WriteFile(removed, []byte(strings.Replace(history, "|debug|node[01-01]", "|long|node[01-01]", 1)), 0o644)
	code, _, stderr = runCLI(t, "", "sim", "--trace", removed, "--machine", "mesh:4x4", "--hostlist", "node[01-16]", "--slurm-conf", conf, "--sched", "easy", "--alloc", "slurm:consec")
	if want := "1 jobs of the history ran in partitions " + conf + " does not have (long (line "; code != 0 || !strings.Contains(stderr, want) || !strings.Contains(stderr, "replayed in the default partition batch") {
		t.Errorf("a job of partition long: exit %d, want 0 and %q: %s", code, want, stderr)
	}
}

// TestSimPartitionTiersCLI: sim --slurm-conf with partitions' PriorityTier:
// tiers of one value (3) give the per-job rows of the slurm.conf without
// PriorityTier byte for byte; tiers that differ change them under fcfs and the
// replay still keeps every job; and partitions whose State or limits would have
// kept the history's jobs from running (MaxNodes, MaxTime, State=DOWN) replay
// them, unchanged, with a warning each naming the count and the first job.
func TestSimPartitionTiersCLI(t *testing.T) {
	dir := t.TempDir()
	base := "NodeName=node[01-16] CPUs=1\nPartitionName=batch Nodes=ALL Default=YES%s\nPartitionName=debug Nodes=node[01-04]%s\nPartitionName=gpu Nodes=node[11-16]%s\n"
	var b strings.Builder
	b.WriteString("JobIDRaw|Submit|Start|End|ElapsedRaw|TimelimitRaw|NNodes|NCPUS|State|Partition|NodeList\n")
	parts := []string{"batch", "debug", "gpu", "batch", ""}
	debugOver2, firstOver := 0, 0
	for i := range 60 {
		p := parts[i%len(parts)]
		k := 1 + (i*5)%4
		if p == "debug" && k > 2 {
			if debugOver2 == 0 {
				firstOver = 3000 + i
			}
			debugOver2++
		}
		sub := 20 * i // bursts: queues form
		first := 1    // recorded nodes in the job's partition (gpu: node[11-16])
		if p == "gpu" {
			first = 11
		}
		fmt.Fprintf(&b, "%d|2026-11-02T08:%02d:%02d|2026-11-02T09:00:00|2026-11-02T10:00:00|%d|30|%d|%d|COMPLETED|%s|node[%02d-%02d]\n",
			3000+i, sub/60, sub%60, 600+37*(i%7), k, k, p, first, first+k-1)
	}
	trace := filepath.Join(dir, "sacct.txt")
	os.WriteFile(trace, []byte(b.String()), 0o644)
	run := func(name string, extra [3]string) (string, string) {
		conf := filepath.Join(dir, name+".conf")
		os.WriteFile(conf, []byte(fmt.Sprintf(base, extra[0], extra[1], extra[2])), 0o644)
		rows := filepath.Join(dir, name+".csv")
		code, out, stderr := runCLI(t, "", "sim", "--trace", trace, "--machine", "mesh:4x4", "--hostlist", "node[01-16]", "--slurm-conf", conf,
			"--sched", "fcfs", "--alloc", "slurm:consec", "--per-job", rows, "--json")
		if code != 0 || !strings.Contains(out, `"jobs": 60`) {
			t.Fatalf("%s: exit %d, %s %s", name, code, out, stderr)
		}
		f, err := os.ReadFile(rows)
		if err != nil {
			t.Fatal(err)
		}
		return string(f), stderr
	}
	plain, stderr := run("plain", [3]string{})
	if strings.Contains(stderr, "warning") {
		t.Errorf("no limits, yet: %s", stderr)
	}
	same, _ := run("same", [3]string{" PriorityTier=3", " PriorityTier=3", " Priority=3"})
	if same != plain {
		t.Errorf("tiers all 3 change the per-job rows")
	}
	tiered, _ := run("tiered", [3]string{" PriorityTier=1", " PriorityTier=5", " PriorityTier=2"})
	if tiered == plain {
		t.Errorf("tiers 1, 5, 2 change no row")
	}
	limited, stderr := run("limits", [3]string{" MaxTime=20", " MaxNodes=2", " State=DOWN"})
	if limited != plain {
		t.Errorf("the limits change the replay; they only warn")
	}
	for _, want := range []string{
		"36 of the 60 jobs replayed have a time limit over their partition's MaxTime",
		fmt.Sprintf("%d of the 60 jobs replayed ask for more nodes than their partition's MaxNodes", debugOver2),
		fmt.Sprintf("(first: job %d (line ", firstOver),
		"12 of the 60 jobs replayed are in a partition of State=DOWN",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("no %q in: %s", want, stderr)
		}
	}
}

// readCSVColumns reads the CSV file path: its records (the header first) and
// the header's column numbers by name.
func readCSVColumns(t *testing.T, path string) ([][]string, map[string]int) {
	t.Helper()
	f, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(strings.NewReader(string(f))).ReadAll()
	if err != nil || len(recs) == 0 {
		t.Fatalf("%s: %d records, %v", path, len(recs), err)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	return recs, col
}

// simOnSlurmConf replays the sacct history trace of node[01-16] under fcfs with
// slurm:consec and slurm.conf conf, its per-job rows to rows; plan's twin of
// it is planOnSlurmConf. Both return the exit code, the output and stderr.
func simOnSlurmConf(t *testing.T, conf, trace, rows string) (int, string, string) {
	t.Helper()
	return runCLI(t, "", "sim", "--trace", trace, "--machine", "mesh:4x4", "--hostlist", "node[01-16]", "--slurm-conf", conf,
		"--sched", "fcfs", "--alloc", "slurm:consec", "--per-job", rows)
}

// planOnSlurmConf plans the sample fabric (node01-node16) with slurm.conf conf
// and the history trace into the directory out.
func planOnSlurmConf(t *testing.T, conf, trace, out string) (int, string, string) {
	t.Helper()
	return runCLI(t, "", "plan", "--graph", ibSample, "--node-name-map", ibNameMap, "--slurm-conf", conf, "--trace", trace,
		"--slurm-version", "22.05", "--time-limit", "0", "-o", out)
}
