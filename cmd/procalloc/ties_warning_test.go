package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/sim"
	"github.com/procalloc/procalloc/topo"
)

// Counting the MC1x1 family's ties is said to be slow exactly where it is: a
// torus, or a grid of three or more dimensions, above tiesCostNodes nodes, with
// ties counted (named, or the default all) and an allocator of the family that
// works every tied set out there (mc1x1 with tie-breaking, mc1x1-greedy; plain
// mc1x1 on four or more dimensions).
func TestTiesCostWarningWhere(t *testing.T) {
	for _, c := range []struct {
		machine string
		metrics sim.MetricSet
		specs   []string
		warn    bool
	}{
		{"torus:34x34x34", 0, []string{"mc1x1:tb=3,9,3,2"}, true},
		{"torus:34x34x34", sim.MetricsAll, []string{"bf:rcm", "mc1x1-greedy:tb=3,9,3,2"}, true},
		{"mesh:34x34x34", sim.MetricsSched | sim.MetricsTies, []string{"mc1x1-greedy"}, true},
		{"torus:182x182", 0, []string{"mc1x1", "mc1x1:tb=3,9,3,2"}, true},
		{"mesh:34x34x34:wrap=z", 0, []string{"mc1x1-greedy"}, true},
		{"torus:14x14x14x14", 0, []string{"mc1x1"}, true},     // four dimensions: every tied set worked out
		{"torus:34x34x34", 0, []string{"mc1x1"}, false},       // tied sets told apart from counts (mayShareArcs)
		{"mesh:34x34x34:wrap=z", 0, []string{"mc1x1"}, false}, // likewise
		{"torus:182x182", 0, []string{"mc1x1"}, false},        // likewise
		{"torus:34x34x34", sim.MetricsSched | sim.MetricsDist | sim.MetricsRoute, []string{"mc1x1"}, false},
		{"torus:34x34x34", 0, []string{"bf:rcm", "mm", "genalg"}, false},
		{"mesh:448x448", 0, []string{"mc1x1"}, false},   // 2D meshes count ties by a faster path
		{"torus:32x32x32", 0, []string{"mc1x1"}, false}, // 32,768 nodes: not above
		{"fattree:4,4:8", 0, []string{"mc1x1"}, false},
	} {
		m, err := topo.ParseMachine(c.machine)
		if err != nil {
			t.Fatal(err)
		}
		w := tiesCostWarning(m, c.metrics, c.specs, "")
		if (w != "") != c.warn {
			t.Errorf("%s %v %v: warning %q, want one: %v", c.machine, c.metrics, c.specs, w, c.warn)
		}
		if w != "" && !strings.Contains(w, m.Spec()) {
			t.Errorf("%s: warning %q does not name the machine", c.machine, w)
		}
	}
}

// sim and compare say it once, on stderr, and not with --metrics leaving ties out.
func TestTiesCostWarningSaid(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "t.txt")
	if err := os.WriteFile(trace, []byte("0 1 10 10\n5 2 10 10\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		warn bool
	}{
		{[]string{"sim", "--alloc", "mc1x1-greedy"}, true},
		{[]string{"sim", "--alloc", "mc1x1-greedy", "--metrics", "sched"}, false},
		{[]string{"sim", "--alloc", "mc1x1"}, false},
		{[]string{"compare", "--alloc", "bf:rcm,mc1x1:tb=3,9,3,2"}, true},
		{[]string{"compare", "--alloc", "bf:rcm,mc1x1:tb=3,9,3,2", "--metrics", "sched,dist"}, false},
		{[]string{"compare", "--alloc", "bf:rcm,freelist:rcm"}, false},
	} {
		var errb bytes.Buffer
		args := append(c.args, "--trace", trace, "--machine", "torus:34x34x34")
		if code := run(context.Background(), &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: &errb}, args); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errb.String())
		}
		if n := strings.Count(errb.String(), "ties (--metrics ties, in the default all) on torus:34x34x34"); n != map[bool]int{true: 1, false: 0}[c.warn] {
			t.Errorf("%v: the warning %d times: %s", args, n, errb.String())
		}
	}
}

// sweep says it too, once per machine its items replay an allocator of the family
// on (not once per item), in the sweep file's words: --metrics in its flags list.
func TestTiesCostWarningSweep(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "t.txt"), []byte("0 1 10 10\n5 2 10 10\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const said = "ties (--metrics ties in the sweep file's flags, in the default all) on "
	const wayOut = "--metrics sched,dist,route in the sweep file's flags leaves them out"
	for _, c := range []struct {
		allocs, flags string
		want          []string // the machines warned of, once each
	}{
		{"[bf:rcm, \"mc1x1:tb=3,9,3,2\"]", "[]", []string{"torus:34x34x34", "mesh:34x34x34"}},
		{"[bf:rcm, mc1x1-greedy]", "[--metrics, all]", []string{"torus:34x34x34", "mesh:34x34x34"}},
		{"[bf:rcm, \"mc1x1:tb=3,9,3,2\"]", "[--metrics, \"sched,dist\"]", nil},
		// plain mc1x1 tells tied sets apart from counts on tori and 3D grids
		// (mayShareArcs): not warned of
		{"[bf:rcm, mc1x1]", "[]", nil},
		{"[bf:rcm, freelist:rcm]", "[]", nil},
	} {
		sw := filepath.Join(dir, "s.yaml")
		text := "traces: [t.txt]\nmachines: [torus:34x34x34, mesh:34x34x34, mesh:448x448]\nallocators: " + c.allocs + "\ncontract: [1, 0.5]\nflags: " + c.flags + "\n"
		if err := os.WriteFile(sw, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "r.jsonl")
		os.Remove(out)
		var errb bytes.Buffer
		args := []string{"sweep", sw, "-o", out}
		if code := run(context.Background(), &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: &errb}, args); code != 0 {
			t.Fatalf("%s: exit %d: %s", text, code, errb.String())
		}
		stderr := errb.String()
		if n := strings.Count(stderr, said); n != len(c.want) || strings.Count(stderr, wayOut) != len(c.want) {
			t.Errorf("%s: the warning %d times, want %d (once per machine, in the sweep file's words): %s", text, n, len(c.want), stderr)
		}
		for _, m := range c.want {
			if strings.Count(stderr, said+m+" ") != 1 {
				t.Errorf("%s: %s not warned of once: %s", text, m, stderr)
			}
		}
	}
}
