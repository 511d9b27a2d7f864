package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
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

// TestBatchFlitEngine: --engine flit runs, reports its configuration, gives the same
// numbers with 1 and 2 workers and for the same seed twice, and differs from the
// message engine; the flit flags are refused without it, and so are zero or too
// small values, each naming its flag (exit 2).
func TestBatchFlitEngine(t *testing.T) {
	args := []string{"batch", "--machine", "mesh:8x8:io=left", "--alloc", "bt,mbs", "--comm-per-io", "0,1", "--runs", "3",
		"--tasks", "6", "--mean-size", "6", "--seed", "2", "--json"}
	flit := append(slices.Clone(args), "--engine", "flit", "--vcs", "2", "--vc-buffer", "12", "--st-delay", "2")
	var outs []string
	for _, w := range []string{"1", "2", "2"} {
		code, out, stderr := runCLI(t, "", append(flit, "--workers", w)...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		outs = append(outs, out)
	}
	if outs[0] != outs[1] || outs[1] != outs[2] {
		t.Fatalf("flit runs differ between 1 and 2 workers or between two runs:\n%s\n%s\n%s", outs[0], outs[1], outs[2])
	}
	var o struct {
		Engine string `json:"engine"`
		Flit   struct {
			VCs      int `json:"vcs"`
			VCBuffer int `json:"vc_buffer"`
			ST       int `json:"st_delay"`
		} `json:"flit"`
		Results []struct {
			Mean float64 `json:"mean_completion"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(outs[0]), &o); err != nil {
		t.Fatal(err)
	}
	if o.Engine != "flit" || o.Flit.VCs != 2 || o.Flit.VCBuffer != 12 || o.Flit.ST != 2 || len(o.Results) != 4 {
		t.Fatalf("JSON %s", outs[0])
	}
	code, msg, stderr := runCLI(t, "", args...)
	if code != 0 || strings.Contains(msg, `"engine"`) || msg == outs[0] {
		t.Fatalf("message engine: exit %d, %s\n%s", code, stderr, msg)
	}
	for _, c := range []struct {
		extra []string
		want  string
	}{
		{[]string{"--vcs", "2"}, "--vcs configures the flit engine: add --engine flit"},
		{[]string{"--st-delay", "2"}, "--st-delay configures the flit engine"},
		{[]string{"--engine", "flit", "--vcs", "0"}, "--vcs 0: must be at least 1"},
		{[]string{"--engine", "flit", "--router-delay", "2"}, "--router-delay is the message engine's"},
		{[]string{"--engine", "booksim"}, `--engine "booksim": want message or flit`},
	} {
		code, _, stderr := runCLI(t, "", append(slices.Clone(args), c.extra...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", c.extra, code, stderr, c.want)
		}
	}
}
