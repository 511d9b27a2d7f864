package main

import (
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestSimPartitionsCLI: sim --slurm-conf with an sacct history of three
// overlapping partitions under fcfs, cplant and easy: exit 0, every job on nodes
// of its partition (--per-job), and a job of a partition slurm.conf lacks, or
// larger than its partition, an error naming the trace's line.
func TestSimPartitionsCLI(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "slurm.conf")
	os.WriteFile(conf, []byte("NodeName=node[01-16] CPUs=1\nPartitionName=batch Nodes=ALL Default=YES\nPartitionName=debug Nodes=node[01-04]\nPartitionName=gpu Nodes=node[11-16]\n"), 0o644)
	in := map[string][2]int{"batch": {1, 16}, "debug": {1, 4}, "gpu": {11, 16}}
	var b strings.Builder
	b.WriteString("JobIDRaw|Submit|Start|End|ElapsedRaw|TimelimitRaw|NNodes|NCPUS|State|Partition|NodeList\n")
	parts := []string{"batch", "debug", "gpu", "batch", ""}
	for i := range 60 {
		p := parts[i%len(parts)]
		lo, hi := in[p][0], in[p][1]
		if p == "" {
			lo, hi = 1, 16
		}
		k := 1 + (i*7)%min(hi-lo+1, 5)
		sub := 60 * i
		start := sub + 30
		run := 600 + 97*(i%9)
		fmt.Fprintf(&b, "%d|2026-11-02T%02d:%02d:%02d|2026-11-02T%02d:%02d:%02d|2026-11-02T%02d:%02d:%02d|%d|%d|%d|%d|COMPLETED|%s|node[%02d-%02d]\n",
			2000+i, 8+sub/3600, sub/60%60, sub%60, 8+start/3600, start/60%60, start%60, 8+(start+run)/3600, (start+run)/60%60, (start+run)%60,
			run, 30, k, k, p, lo, lo+k-1)
	}
	trace := filepath.Join(dir, "sacct.txt")
	os.WriteFile(trace, []byte(b.String()), 0o644)
	for _, sched := range []string{"fcfs", "cplant", "easy", "as-run"} {
		rows := filepath.Join(dir, sched+".csv")
		code, out, stderr := runCLI(t, "", "sim", "--trace", trace, "--machine", "mesh:4x4", "--hostlist", "node[01-16]", "--slurm-conf", conf,
			"--sched", sched, "--alloc", "slurm:consec", "--per-job", rows, "--json")
		if code != 0 || !strings.Contains(out, `"jobs": 60`) {
			t.Fatalf("%s: exit %d, %s %s", sched, code, out, stderr)
		}
		f, err := os.ReadFile(rows)
		if err != nil {
			t.Fatal(err)
		}
		recs, err := csv.NewReader(strings.NewReader(string(f))).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		col := map[string]int{}
		for i, h := range recs[0] {
			col[h] = i
		}
		for _, r := range recs[1:] {
			line, _ := strconv.Atoi(r[col["line"]])
			p := parts[(line-2)%len(parts)]
			if p == "" {
				continue
			}
			for _, v := range strings.Fields(r[col["nodes"]]) {
				node, _ := strconv.Atoi(v)
				if node+1 < in[p][0] || node+1 > in[p][1] {
					t.Errorf("%s: job of line %d (partition %s) on node %d", sched, line, p, node)
				}
			}
		}
	}
	for _, c := range []struct{ old, new, want string }{
		{"|debug|node[01-01]", "|long|node[01-01]", `partition "long" is not one of the replay's partitions`},
		{"|1|1|COMPLETED|debug|node[01-01]", "|5|5|COMPLETED|debug|node[01-05]", "needs 5 processors, its partition debug has 4"},
	} {
		bad := filepath.Join(dir, "bad.txt")
		text := strings.Replace(b.String(), c.old, c.new, 1)
		if text == b.String() {
			t.Fatalf("%q is not in the trace", c.old)
		}
		os.WriteFile(bad, []byte(text), 0o644)
		code, _, stderr := runCLI(t, "", "sim", "--trace", bad, "--machine", "mesh:4x4", "--hostlist", "node[01-16]", "--slurm-conf", conf, "--sched", "easy", "--alloc", "slurm:consec")
		if code != 1 || !strings.Contains(stderr, c.want) || !strings.Contains(stderr, "(line ") {
			t.Errorf("%s: exit %d, %s", c.want, code, stderr)
		}
	}
}
