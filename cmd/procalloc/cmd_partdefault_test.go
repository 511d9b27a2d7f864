package main

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/procalloc/procalloc/slurm"
	"github.com/procalloc/procalloc/topo/hostlist"
)

// TestNoDefaultPartitionSimAndPlan: with a slurm.conf that has no Default=YES
// partition, sim --slurm-conf and plan replay the jobs that name no partition
// alike (slurm.MachinePartitions.DefaultNodes): on the nodes of every partition
// (node[01-10] of a[01-06] and b[05-10]; node[11-16] are in none), never
// outside them, with the same warning counting them. Before, sim refused the
// history and plan replayed it.
func TestNoDefaultPartitionSimAndPlan(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "slurm.conf")
	os.WriteFile(conf, []byte("NodeName=DEFAULT CPUs=1\nNodeName=node[01-16]\nPartitionName=DEFAULT OverSubscribe=EXCLUSIVE\nPartitionName=a Nodes=node[01-06]\nPartitionName=b Nodes=node[05-10]\n"), 0o644)
	in := map[string][2]int{"a": {1, 6}, "b": {5, 10}, "": {1, 10}}
	parts := []string{"a", "", "b", "", ""}
	unnamed := 0
	for i := range 40 {
		if parts[i%len(parts)] == "" {
			unnamed++
		}
	}
	// One job every 30 minutes (each ends within): the recorded node lists never overlap.
	history := partHistory(parts, in, 40, 30*time.Minute, func(i, lo, hi, k int) int { return lo + (i*3)%(hi-lo+2-k) })
	trace := filepath.Join(dir, "sacct.txt")
	os.WriteFile(trace, []byte(history), 0o644)
	warning := slurm.NoDefaultWarning(unnamed)

	rows := filepath.Join(dir, "rows.csv")
	code, _, stderr := simOnSlurmConf(t, conf, trace, rows)
	if code != 0 || !strings.Contains(stderr, warning) {
		t.Fatalf("sim: exit %d, want 0 and the warning %q: %s", code, warning, stderr)
	}
	for _, bad := range rowsOutside(t, rows, parts, in) {
		t.Errorf("sim: %s", bad)
	}

	out := filepath.Join(dir, "plan")
	code, _, stderr = planOnSlurmConf(t, conf, trace, out)
	if code != 0 || !strings.Contains(stderr, warning) {
		t.Fatalf("plan: exit %d, want 0 and the warning %q: %s", code, warning, stderr)
	}
	data, err := os.ReadFile(filepath.Join(out, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Workload struct {
			Partitions []struct {
				Name        string
				Hosts, Jobs int
			}
		}
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, pj := range rep.Workload.Partitions {
		if pj.Name == slurm.EveryPartition {
			found = pj.Hosts == 10 && pj.Jobs == unnamed
		}
	}
	if !found {
		t.Errorf("plan: no partition %q of 10 hosts and %d jobs in %+v", slurm.EveryPartition, unnamed, rep.Workload.Partitions)
	}
	pred, err := os.ReadFile(filepath.Join(out, "predictions", "tree.csv"))
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(strings.NewReader(string(pred))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs[1:] {
		line, _ := strconv.Atoi(r[1])
		p := parts[(line-2)%len(parts)]
		names, err := hostlist.Expand(r[6])
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range names {
			node, _ := strconv.Atoi(strings.TrimPrefix(h, "node"))
			if node < in[p][0] || node > in[p][1] {
				t.Errorf("plan: job of line %d (partition %q) on %s", line, p, h)
			}
		}
	}
}
