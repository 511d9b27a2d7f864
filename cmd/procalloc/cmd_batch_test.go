package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBatchCommand runs the example with few runs: JSON keys, a table, an
// SVG with one line per communication count, and the same numbers for 1 and 2
// workers (runs are deterministic per seed).
func TestBatchCommand(t *testing.T) {
	args := []string{"batch", "--machine", "mesh:16x16:io=left", "--alloc", "dbt:1/4", "--comm-per-io", "2", "--runs", "8", "--json"}
	code, out, stderr := runCLI(t, "", append(args, "--workers", "1")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var r1 map[string]any
	if err := json.Unmarshal([]byte(out), &r1); err != nil {
		t.Fatal(err)
	}
	mean, ok := r1["mean_completion"].(float64)
	ci, ok2 := r1["ci95"].(float64)
	if !ok || !ok2 || !(mean > 0) || !(ci > 0) || r1["runs"].(float64) != 8 {
		t.Fatalf("JSON %v", r1)
	}
	_, out2, _ := runCLI(t, "", append(args, "--workers", "2")...)
	var r2 map[string]any
	json.Unmarshal([]byte(out2), &r2)
	if r2["mean_completion"] != r1["mean_completion"] || r2["ci95"] != r1["ci95"] {
		t.Errorf("1 worker: %v ± %v; 2 workers: %v ± %v", r1["mean_completion"], r1["ci95"], r2["mean_completion"], r2["ci95"])
	}
	dir := t.TempDir()
	svg := filepath.Join(dir, "f.svg")
	code, out, stderr = runCLI(t, "", "batch", "--machine", "mesh:8x8:io=top", "--alloc", "sbt:4,sbt:16", "--comm-per-io", "0,1",
		"--runs", "3", "--tasks", "6", "--mean-size", "6", "--svg", svg, "--svg-relative", svg+".rel")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(out, "sbt:16") || strings.Count(out, "\n") != 6 {
		t.Errorf("table:\n%s", out)
	}
	b, err := os.ReadFile(svg)
	if err != nil || !strings.Contains(string(b), "pure I/O") || !strings.Contains(string(b), "1 comm per I/O") || !strings.Contains(string(b), "sbt tolerance") {
		t.Errorf("svg: %v\n%.400s", err, b)
	}
	if b, err := os.ReadFile(svg + ".rel"); err != nil || !strings.Contains(string(b), "first point of the line") {
		t.Errorf("relative svg: %v", err)
	}
}
