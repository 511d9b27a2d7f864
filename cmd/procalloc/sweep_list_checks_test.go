package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSweepListChecksLikeTheRun: sweep --list previews what a run would do, so it
// runs the run's checks first. It printed the items of a sweep file the run
// refuses (an allocator that applies to none of the machines, seeds no item uses)
// with exit 0, and no warning for an allocator that fails on some machines. Each
// case is compared with the run's exit and the run's stderr line.
func TestSweepListChecksLikeTheRun(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name, spec string
		code       int    // the run's and --list's exit
		stderr     string // in both
	}{
		{"no machine", "traces: [t]\nmachines: [mesh:10x10]\nallocators: [bf:hilbert]\n", 1, "applies to none of the machines"},
		{"seeds", "traces: [t]\nmachines: [mesh:4x4]\nallocators: [mc1x1]\nseeds: [1, 2]\n", 1, "no item uses its seed"},
		{"some machines", "traces: [t]\nmachines: [mesh:4x4, \"fattree:4,2:4\"]\nallocators: [mc1x1, bf:snake]\n", 0, "warning: "},
	} {
		spec := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".yaml")
		if err := os.WriteFile(spec, []byte(c.spec), 0o644); err != nil {
			t.Fatal(err)
		}
		// The run: its trace t is missing, so a run the checks let through exits 1
		// on the trace; only its stderr's check lines are compared then.
		runCode, _, runErr := runCLI(t, "", "sweep", spec, "-o", filepath.Join(dir, c.name+".jsonl"))
		if !strings.Contains(runErr, c.stderr) || c.code != 0 && runCode != c.code {
			t.Fatalf("%s: the run: exit %d, %q: want %q (exit %d)", c.name, runCode, runErr, c.stderr, c.code)
		}
		for _, extra := range [][]string{nil, {"--json"}, {"--shard", "0/2"}} {
			code, out, stderr := runCLI(t, "", append([]string{"sweep", spec, "--list"}, extra...)...)
			if code != c.code || !strings.Contains(stderr, c.stderr) {
				t.Errorf("%s: --list %v: exit %d, stderr %q: want exit %d and %q", c.name, extra, code, stderr, c.code, c.stderr)
			}
			if (out != "") != (c.code == 0) {
				t.Errorf("%s: --list %v: exit %d printed %q", c.name, extra, code, out)
			}
		}
	}
}
