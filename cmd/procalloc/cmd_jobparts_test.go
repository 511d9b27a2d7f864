package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/procalloc/procalloc/topo/hostlist"
)

// TestJobPartitionsSimAndPlan: sim --slurm-conf and plan replay the same sacct
// history, of partitions a (node[01-04]), b (node[09-12]) and the default c
// (node[13-16]), with jobs of "a,b" (a heterogeneous job on nodes of both: the
// union; one on b's nodes only: b), "b,a" on a node of a (a), a partition
// slurm.conf lacks ("old": the default c), jobs naming none (c) and of a. Both
// put every job on nodes of the partition sim.AssignPartitions gives it (sim's
// --per-job rows, plan's predictions) and say the same of the unknown
// partition and the heterogeneous jobs. Before, sim refused the history ("a,b"
// is not one of the replay's partitions; so "old").
func TestJobPartitionsSimAndPlan(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "slurm.conf")
	os.WriteFile(conf, []byte("NodeName=DEFAULT CPUs=1\nNodeName=node[01-16]\nPartitionName=DEFAULT OverSubscribe=EXCLUSIVE\nPartitionName=a Nodes=node[01-04]\nPartitionName=b Nodes=node[09-12]\nPartitionName=c Nodes=node[13-16] Default=YES\n"), 0o644)
	type kind struct {
		part, nodes string
		k           int
		in          func(node int) bool // 1-based
	}
	a := func(v int) bool { return v >= 1 && v <= 4 }
	b := func(v int) bool { return v >= 9 && v <= 12 }
	c := func(v int) bool { return v >= 13 && v <= 16 }
	kinds := []kind{
		{"a,b", "node[03-04,09-10]", 4, func(v int) bool { return a(v) || b(v) }},
		{"a,b", "node[10-11]", 2, b},
		{"old", "node[14-15]", 2, c},
		{"", "node13", 1, c},
		{"a", "node[01-02]", 2, a},
		{"b,a", "node02", 1, a},
	}
	const jobs = 36
	var hist strings.Builder
	hist.WriteString("JobIDRaw|Submit|Start|End|ElapsedRaw|TimelimitRaw|NNodes|NCPUS|State|Partition|NodeList\n")
	const layout = "2006-01-02T15:04:05"
	for i := range jobs {
		kd := kinds[i%len(kinds)]
		sub := time.Date(2026, 11, 2, 8, 0, 0, 0, time.UTC).Add(time.Duration(i) * 30 * time.Minute)
		start := sub.Add(30 * time.Second)
		run := 600 + 97*(i%9)
		fmt.Fprintf(&hist, "%d|%s|%s|%s|%d|30|%d|%d|COMPLETED|%s|%s\n", 3000+i, sub.Format(layout), start.Format(layout),
			start.Add(time.Duration(run)*time.Second).Format(layout), run, kd.k, kd.k, kd.part, kd.nodes)
	}
	trace := filepath.Join(dir, "sacct.txt")
	os.WriteFile(trace, []byte(hist.String()), 0o644)
	kindOf := func(line int) kind { return kinds[(line-2)%len(kinds)] }
	unknown := fmt.Sprintf("%d jobs of the history ran in partitions %s does not have (old (line 4))", jobs/len(kinds), conf)
	unions := fmt.Sprintf("%d heterogeneous jobs ran in several partitions", jobs/len(kinds))

	rows := filepath.Join(dir, "rows.csv")
	code, _, stderr := simOnSlurmConf(t, conf, trace, rows)
	if code != 0 || !strings.Contains(stderr, unknown) || !strings.Contains(stderr, unions) {
		t.Fatalf("sim: exit %d, want 0 and %q and %q: %s", code, unknown, unions, stderr)
	}
	recs, col := readCSVColumns(t, rows)
	if len(recs)-1 != jobs {
		t.Errorf("sim: %d rows, want %d", len(recs)-1, jobs)
	}
	for _, r := range recs[1:] {
		line, _ := strconv.Atoi(r[col["line"]])
		kd := kindOf(line)
		for _, f := range strings.Fields(r[col["nodes"]]) {
			v, _ := strconv.Atoi(f)
			if !kd.in(v + 1) {
				t.Errorf("sim: job of line %d (partition %q, ran on %s) on node%02d", line, kd.part, kd.nodes, v+1)
			}
		}
	}

	out := filepath.Join(dir, "plan")
	code, _, stderr = planOnSlurmConf(t, conf, trace, out)
	if code != 0 || !strings.Contains(stderr, unknown) {
		t.Fatalf("plan: exit %d, want 0 and %q: %s", code, unknown, stderr)
	}
	report, err := os.ReadFile(filepath.Join(out, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(report), unions) {
		t.Errorf("plan: the report does not say %q", unions)
	}
	precs, _ := readCSVColumns(t, filepath.Join(out, "predictions", "tree.csv"))
	if len(precs)-1 != jobs {
		t.Errorf("plan: %d predictions, want %d", len(precs)-1, jobs)
	}
	for _, r := range precs[1:] {
		line, _ := strconv.Atoi(r[1])
		kd := kindOf(line)
		names, err := hostlist.Expand(r[6])
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range names {
			v, _ := strconv.Atoi(strings.TrimPrefix(h, "node"))
			if !kd.in(v) {
				t.Errorf("plan: job of line %d (partition %q, ran on %s) on %s", line, kd.part, kd.nodes, h)
			}
		}
	}
}
