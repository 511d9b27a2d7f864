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
		{"--baseline", "exact", "--baseline-time-limit", "0s"},
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
