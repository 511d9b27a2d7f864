package main

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const smallTrace = `0 4 100 100
10 9 50 60
20 2 10 10
30 16 40 40
40 1 5 5
50 7 30 30
`

// sim --baseline exact: the JSON keys, the per-job columns and the by-size table.
func TestSimBaselineCLI(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "t.txt")
	if err := os.WriteFile(trace, []byte(smallTrace), 0o644); err != nil {
		t.Fatal(err)
	}
	perJob := filepath.Join(dir, "jobs.csv")
	code, out, stderr := runCLI(t, "", "sim", "--trace", trace, "--machine", "mesh:6x6", "--alloc", "mc1x1",
		"--baseline", "exact", "--baseline-time-limit", "5s", "--per-job", perJob, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatal(err)
	}
	if r, ok := m["mean_ratio_to_optimal"].(float64); !ok || r < 1 {
		t.Errorf("mean_ratio_to_optimal %v", m["mean_ratio_to_optimal"])
	}
	if p, ok := m["baseline_proven"].(float64); !ok || p != 1 {
		t.Errorf("baseline_proven %v, want 1 on 6 small jobs", m["baseline_proven"])
	}
	f, err := os.Open(perJob)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	head := strings.Join(rows[0], ",")
	if !strings.Contains(head, "opt_total_pairwise_l1,opt_proven,ratio_to_optimal,opt_lower_bound,ratio_to_optimal_upper,nodes") || len(rows) != 7 {
		t.Fatalf("per-job CSV: %s (%d rows)", head, len(rows))
	}
	code, out, stderr = runCLI(t, "", "sim", "--trace", trace, "--machine", "mesh:6x6", "--alloc", "opt", "--baseline", "exact", "--by-size")
	if code != 0 || !regexp.MustCompile(`mean ratio to optimal \(proven\) +1\.0000`).MatchString(out) || !strings.Contains(out, "% proven") {
		t.Fatalf("exit %d: %s%s", code, out, stderr)
	}
	for _, args := range [][]string{
		{"--baseline", "exact", "--baseline-time-limit", "-1s"},
		{"--baseline", "optimal"},
		{"--baseline-time-limit", "1s"},
	} {
		full := []string{"sim", "--trace", trace, "--alloc", "mm"}
		if !slices.Contains(args, "--machine") {
			full = append(full, "--machine", "mesh:6x6")
		}
		full = append(full, args...)
		if code, _, stderr := runCLI(t, "", full...); code != 2 || !strings.Contains(stderr, "baseline") {
			t.Errorf("%v: exit %d, %s", args, code, stderr)
		}
	}
	if code, _, stderr := runCLI(t, "", "sim", "--trace", trace, "--machine", "mesh:6x6", "--alloc", "opt:nodes=0"); code != 2 || !strings.Contains(stderr, "nodes=N") {
		t.Errorf("opt:nodes=0: exit %d, %s", code, stderr)
	}
}

// sim --baseline exact on a torus, a fat tree and a dragonfly: every decision
// bounded, the new JSON keys present and consistent, the table's rows; a graph with
// neither structure is refused with the reason.
func TestSimBaselineMachinesCLI(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "t.txt")
	if err := os.WriteFile(trace, []byte(smallTrace), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, machine := range []string{"mesh:6x6", "torus:6x6", "fattree:4,4:4,4:8", "dragonfly:hosts_per_router=2,routers_per_group=4,intergroup_links=1,num_groups=5"} {
		code, out, stderr := runCLI(t, "", "sim", "--trace", trace, "--machine", machine, "--alloc", "bf:rcm",
			"--baseline", "exact", "--json")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", machine, code, stderr)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(out), &m); err != nil {
			t.Fatal(err)
		}
		num := func(key string) float64 {
			v, ok := m[key].(float64)
			if !ok {
				t.Fatalf("%s: %s missing: %s", machine, key, out)
			}
			return v
		}
		lo, hi := num("mean_ratio_to_optimal_lower"), num("mean_ratio_to_optimal_upper")
		if num("baseline_bounded") != 1 || num("baseline_decisions") != 6 || lo < 1 || hi < lo ||
			num("baseline_proven_decisions") != 6*num("baseline_proven") {
			t.Errorf("%s: %s", machine, out)
		}
		by, _ := m["by_size"].([]any)
		for _, row := range by {
			if r, _ := row.(map[string]any); r["baseline_bounded"] == nil || r["mean_ratio_to_optimal_upper"] == nil || r["mean_ratio_to_optimal_lower"] == nil {
				t.Errorf("%s: by-size row without the bounds: %v", machine, row)
			}
		}
		code, out, stderr = runCLI(t, "", "sim", "--trace", trace, "--machine", machine, "--alloc", "bf:rcm", "--baseline", "exact")
		if code != 0 || !strings.Contains(out, "ratio to optimal, certified (all decisions)") || !strings.Contains(out, "baseline decisions bounded") {
			t.Errorf("%s: exit %d: %s%s", machine, code, out, stderr)
		}
	}
	// A ring of switches with a host each: neither a tree nor a dragonfly.
	graph := filepath.Join(dir, "ring.txt")
	if err := os.WriteFile(graph, []byte("0 1\n1 2\n2 3\n3 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, "", "sim", "--trace", trace, "--graph", graph, "--alloc", "bf:rcm", "--baseline", "exact")
	if code == 0 || !strings.Contains(stderr, "baseline") || !strings.Contains(stderr, "fat tree") {
		t.Errorf("ring graph: exit %d, %s", code, stderr)
	}
}

// With no decision proven (more than 4,096 free nodes: only the machine's bound, which
// a snake's line of 7 does not meet), the tables print "-" for the mean ratio over the
// proven decisions, not the 0 of a mean over nothing; the certified interval stays.
func TestSimBaselineNoneProvenPrintsDash(t *testing.T) {
	trace := filepath.Join(t.TempDir(), "t.txt")
	if err := os.WriteFile(trace, []byte("0 7 100 100\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runCLI(t, "", "sim", "--trace", trace, "--machine", "mesh:70x70", "--alloc", "bf:snake",
		"--baseline", "exact", "--by-size")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !regexp.MustCompile(`baseline decisions proven +0\.0% \(0 of 1\)`).MatchString(out) {
		t.Fatalf("not the case tested (a decision proven?):\n%s", out)
	}
	if !regexp.MustCompile(`mean ratio to optimal \(proven\) +-\n`).MatchString(out) ||
		!regexp.MustCompile(`\n +7 +1 .* - +0\.0 +\d\.\d{4} \.\. \d\.\d{4}\n`).MatchString(out) {
		t.Errorf("want '-' for the ratio over no proven decision:\n%s", out)
	}
}
