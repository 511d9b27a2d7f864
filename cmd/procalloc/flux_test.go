package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/internal/textin"
)

// curve --format jgf --flux-graph FILE writes Flux's own graph (here R from flux
// ion-R encode) with node ids from the curve: read back, the hosts come in curve
// order. -o may be FILE itself; a host the graph lacks is an error and nothing is
// written; --flux-graph with another format, or with --list, is a usage error.
func TestCurveFluxGraph(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile("../../curves/testdata/jgf/flux-ion-r.json")
	if err != nil {
		t.Fatal(err)
	}
	graph := filepath.Join(dir, "R.json")
	if err := os.WriteFile(graph, src, 0o644); err != nil {
		t.Fatal(err)
	}
	hosts := []string{"--hostlist", "hetchy[1001-1002,1]"}
	base := append([]string{"curve", "--machine", "mesh:3", "--format", "jgf"}, hosts...)
	// A ranking file as the curve: neither the names' numbers nor the uniq_ids.
	custom := filepath.Join(dir, "custom.hosts")
	if err := os.WriteFile(custom, []byte("hetchy1002\nhetchy1\nhetchy1001\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ curve, want string }{
		{"snake", "hetchy1001\nhetchy1002\nhetchy1\n"},
		{custom, "hetchy1002\nhetchy1\nhetchy1001\n"},
	} {
		code, wantOut, _ := runCLI(t, "", append([]string{"curve", "--machine", "mesh:3", "--curve", c.curve, "--format", "hosts"}, hosts...)...)
		if code != 0 || (c.want != "" && wantOut != c.want) {
			t.Fatalf("%s hosts: exit %d, %q", c.curve, code, wantOut)
		}
		out := filepath.Join(dir, filepath.Base(c.curve)+".json")
		if code, _, stderr := runCLI(t, "", append(base, "--curve", c.curve, "--flux-graph", graph, "-o", out)...); code != 0 {
			t.Fatalf("%s: exit %d: %s", c.curve, code, stderr)
		}
		code, got, stderr := runCLI(t, "", append([]string{"curve", "--machine", "mesh:3", "--curve", out, "--format", "hosts"}, hosts...)...)
		if code != 0 || got != wantOut {
			t.Errorf("%s read back: exit %d, %q, want %q: %s", c.curve, code, got, wantOut, stderr)
		}
		if b, _ := os.ReadFile(out); !strings.Contains(string(b), `"execution"`) || !strings.Contains(string(b), `"core"`) {
			t.Errorf("%s: R's execution or the cores are gone:\n%s", c.curve, b)
		}
	}
	// In place.
	if code, _, stderr := runCLI(t, "", append(base, "--curve", "snake", "--flux-graph", graph, "-o", graph)...); code != 0 {
		t.Errorf("in place: exit %d: %s", code, stderr)
	}
	// A host the graph lacks: exit 1, no output.
	out := filepath.Join(dir, "none.json")
	code, _, stderr := runCLI(t, "", "curve", "--machine", "mesh:3", "--curve", "snake", "--format", "jgf", "--hostlist", "hetchy[1001-1003]", "--flux-graph", graph, "-o", out)
	if _, err := os.Stat(out); code != 1 || !strings.Contains(stderr, "is not a host of the ordering") || err == nil {
		t.Errorf("foreign hosts: exit %d, %s, output %v", code, stderr, err)
	}
	// The graph is read through curves.MaxJGFBytes: padded to the cap it is merged,
	// one byte past it is refused, naming the cap, and nothing is written.
	for _, c := range []struct {
		extra int64
		code  int
	}{{0, 0}, {1, 1}} {
		padded := filepath.Join(dir, "padded.json")
		pad := bytes.Repeat([]byte(" "), int(curves.MaxJGFBytes(3)-int64(len(src))+c.extra))
		if err := os.WriteFile(padded, append(append([]byte{}, src...), pad...), 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "padded-out.json")
		os.Remove(out)
		code, _, stderr := runCLI(t, "", append(base, "--curve", "snake", "--flux-graph", padded, "-o", out)...)
		_, err := os.Stat(out)
		if code != c.code || (err == nil) != (c.code == 0) {
			t.Errorf("graph %d bytes past the cap: exit %d (want %d), output %v: %s", c.extra, code, c.code, err, stderr)
		}
		if want := "longer than " + textin.Size(curves.MaxJGFBytes(3)); c.code == 1 && !strings.Contains(stderr, want) {
			t.Errorf("graph past the cap: %q, want %q", stderr, want)
		}
	}
	for _, args := range [][]string{
		append([]string{"curve", "--machine", "mesh:3", "--curve", "snake", "--format", "hosts", "--flux-graph", graph}, hosts...),
		{"curve", "--list", "--flux-graph", graph},
	} {
		if code, _, stderr := runCLI(t, "", args...); code != 2 || !strings.Contains(stderr, "flux-graph") {
			t.Errorf("%v: exit %d, %s", args, code, stderr)
		}
	}
}
