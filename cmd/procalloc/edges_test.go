package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 24 row 14: when no rate saturates, the text says "none" and the JSON null
// (it said "first at offered 0.0000"); rows 13: the bound is the same for a machine
// and its rotation.
func TestNetsimNoSaturation(t *testing.T) {
	args := []string{"netsim", "--machine", "mesh:8x8", "--rate", "0.01,0.02", "--warmup", "1000", "--measure", "5000"}
	code, out, stderr := runCLI(t, "", args...)
	if code != 0 || !strings.Contains(out, "saturation: none;") {
		t.Fatalf("exit %d: %s%s", code, out, stderr)
	}
	code, out, _ = runCLI(t, "", append(args, "--json")...)
	var o map[string]any
	if err := json.Unmarshal([]byte(out), &o); code != 0 || err != nil {
		t.Fatalf("exit %d, %v", code, err)
	}
	if v, ok := o["saturation_offered"]; !ok || v != nil {
		t.Errorf("saturation_offered = %v (present %v), want null", v, ok)
	}
	code, out, _ = runCLI(t, "", "netsim", "--machine", "mesh:8x8", "--rate", "0.05,0.9", "--warmup", "1000", "--measure", "5000", "--json")
	if err := json.Unmarshal([]byte(out), &o); code != 0 || err != nil {
		t.Fatalf("exit %d, %v", code, err)
	}
	if v, ok := o["saturation_offered"].(float64); !ok || v < 0.5 {
		t.Errorf("saturation_offered = %v at rate 0.9", o["saturation_offered"])
	}
	for _, m := range []string{"mesh:8x8:wrap=x", "mesh:8x8:wrap=y"} {
		if _, out, _ := runCLI(t, "", "netsim", "--machine", m, "--rate", "0.01", "--measure", "1000"); !strings.Contains(out, "bisection bound 0.5000") {
			t.Errorf("%s: %s", m, out)
		}
	}
}

// Issue 24 row 20: D and Lemma 1's compactness are defined on 2^m x 2^n meshes only;
// elsewhere batch leaves them out (it printed 0) in JSON and in the table.
func TestBatchCompactnessOnlyWhereDefined(t *testing.T) {
	code, out, stderr := runCLI(t, "", "batch", "--machine", "mesh:12x12:io=left", "--alloc", "mbs", "--runs", "5", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var o map[string]any
	if err := json.Unmarshal([]byte(out), &o); err != nil {
		t.Fatal(err)
	}
	if _, ok := o["mean_squares"]; ok {
		t.Errorf("12x12: mean_squares present: %s", out)
	}
	if _, ok := o["spatially_compact"]; ok {
		t.Errorf("12x12: spatially_compact present: %s", out)
	}
	if _, out, _ := runCLI(t, "", "batch", "--machine", "mesh:12x12:io=left", "--alloc", "mbs", "--runs", "5"); strings.Contains(out, "spatially compact") {
		t.Errorf("12x12 table has the compactness columns:\n%s", out)
	}
	code, out, _ = runCLI(t, "", "batch", "--machine", "mesh:16x16:io=left", "--alloc", "mbs", "--runs", "5", "--json")
	o = nil
	if err := json.Unmarshal([]byte(out), &o); code != 0 || err != nil {
		t.Fatalf("exit %d, %v", code, err)
	}
	if d, ok := o["mean_squares"].(float64); !ok || d < 1 {
		t.Errorf("16x16: mean_squares %v", o["mean_squares"])
	}
}

// Issue 24 row 17: every output path is checked before computing, the error names
// its flag (not "-o"), and no other output is written. A context cancelled from the
// start shows the order: the output error comes before any computing would notice
// the interrupt.
func TestOutputsCheckedBeforeComputing(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(file, "x") // below a regular file: unwritable even for root
	ok := filepath.Join(dir, "ok.txt")
	swf := filepath.Join(dir, "t.swf")
	if err := os.WriteFile(swf, []byte("0 4 100 -1\n10 2 50 -1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"batch", "--machine", "mesh:16x16:io=left", "--alloc", "mbs", "--runs", "300", "--svg", bad, "-o", ok}, "--svg " + bad},
		{[]string{"batch", "--machine", "mesh:16x16:io=left", "--alloc", "mbs", "--runs", "300", "--svg-relative", bad, "-o", ok}, "--svg-relative " + bad},
		{[]string{"batch", "--machine", "mesh:16x16:io=left", "--alloc", "mbs", "--runs", "300", "-o", bad}, "-o " + bad},
		{[]string{"compare", "--trace", swf, "--machine", "mesh:4x4", "--alloc", "mc1x1", "--csv", bad, "-o", ok}, "--csv " + bad},
		{[]string{"compare", "--trace", swf, "--machine", "mesh:4x4", "--alloc", "mc1x1", "--svg", bad, "-o", ok}, "--svg " + bad},
		{[]string{"sim", "--trace", swf, "--machine", "mesh:4x4", "--per-job", bad, "-o", ok}, "--per-job " + bad},
		{[]string{"sim", "--trace", swf, "--convert", bad}, "--convert " + bad},
		{[]string{"netsim", "--machine", "mesh:8x8", "--rate", "0.1,0.2", "-o", bad}, "-o " + bad},
		{[]string{"cluster", "--k", "30", "--svg", bad, "-o", ok}, "--svg " + bad},
		{[]string{"curve", "--machine", "mesh:4x4", "--curve", "hilbert", "--svg", bad, "-o", ok}, "--svg " + bad},
	} {
		var out, errb bytes.Buffer
		run(cancelled, &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb}, tc.args)
		if !strings.Contains(errb.String(), tc.want+": not a directory") {
			t.Errorf("%s: stderr %q, want %q", strings.Join(tc.args, " "), errb.String(), tc.want+": not a directory")
		}
		if _, err := os.Stat(ok); err == nil {
			t.Errorf("%s: -o written although another output is unwritable", strings.Join(tc.args, " "))
			os.Remove(ok)
		}
	}
	if code, _, stderr := runCLI(t, "", "batch", "--machine", "mesh:16x16:io=left", "--alloc", "mbs", "--runs", "2", "--svg", ok, "-o", ok); code != 2 || !strings.Contains(stderr, "name the same file") {
		t.Errorf("two outputs on one file: exit %d, %s", code, stderr)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("files left behind: %v", entries)
	}
}
