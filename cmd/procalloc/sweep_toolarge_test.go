package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSweepTooLargeJobHint: a sweep item whose trace has a job larger than its machine
// fails with the ways out in the sweep file's terms (its machines key, --drop-larger
// in its flags), not sim's --machine.
func TestSweepTooLargeJobHint(t *testing.T) {
	trace, err := filepath.Abs("../../sim/testdata/LLNL-T3D-1996-2.converted.txt.gz")
	if err != nil {
		t.Fatal(err)
	}
	file := writeTemp(t, "big.yaml", "traces: ["+trace+"]\nmachines: [mesh:4x4]\nallocators: [bf:snake]\n")
	out := filepath.Join(t.TempDir(), "out.jsonl")
	code, _, stderr := runCLI(t, "", "sweep", file, "-o", out)
	if code != 1 {
		t.Fatalf("exit %d, stderr %q; want 1", code, stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"status":"failed"`, "job larger than the machine", "machines key", "--drop-larger to its flags list"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("results %s: no %q", b, want)
		}
	}
	if strings.Contains(string(b), "give a --machine") {
		t.Errorf("results %s: sim's --machine hint in a sweep", b)
	}
}
