package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/topo"
)

func TestCurveHilbertPairs(t *testing.T) {
	code, out, stderr := runCLI(t, "", "curve", "--machine", "mesh:16x16", "--curve", "hilbert", "--format", "pairs")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 256 {
		t.Fatalf("%d lines, want 256", len(lines))
	}
	for i, l := range lines {
		f := strings.Fields(l)
		if len(f) != 2 || f[0] != strconv.Itoa(i) {
			t.Fatalf("line %d: %q", i+1, l)
		}
		if r, _ := strconv.Atoi(f[1]); r != curves.HilbertXY2D(16, i%16, i/16) {
			t.Fatalf("node %d: rank %d, xy2d %d", i, r, curves.HilbertXY2D(16, i%16, i/16))
		}
	}
}

func TestCurveGilbertOrder(t *testing.T) {
	code, out, stderr := runCLI(t, "", "curve", "--machine", "mesh:16x22", "--curve", "gilbert", "--format", "order")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var o curves.Order
	for _, l := range strings.Fields(out) {
		v, err := strconv.Atoi(l)
		if err != nil {
			t.Fatalf("not a node index: %q", l)
		}
		o = append(o, v)
	}
	m := topo.Mesh(16, 22)
	if err := o.Validate(m.N()); err != nil {
		t.Fatal(err)
	}
	if s := curves.StepStats(m, o, false); s.Jumps != 0 {
		t.Errorf("gilbert 16x22 has %d jumps", s.Jumps)
	}
}

func TestCurveList(t *testing.T) {
	code, out, _ := runCLI(t, "", "curve", "--list")
	if code != 0 || !strings.Contains(out, "hilbert") || !strings.Contains(out, "gilbert") {
		t.Fatalf("exit %d, %q", code, out)
	}
	code, out, _ = runCLI(t, "", "curve", "--list", "--machine", "mesh:8x8x8")
	if code != 0 {
		t.Fatal(code)
	}
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		if len(f) > 1 && f[0] == "hilbert3d" && f[1] != "yes" {
			t.Errorf("hilbert3d does not apply to 8x8x8: %q", l)
		}
		if len(f) > 1 && f[0] == "hilbert" && f[1] != "no" {
			t.Errorf("hilbert applies to 8x8x8: %q", l)
		}
	}
}

func TestCurveErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.pairs")
	os.WriteFile(bad, []byte("0 0\n1 0\n"), 0o644)
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--machine", "mesh:4x4", "--curve", "nope"}, 2, "valid curves: bfs"},
		{[]string{"--machine", "mesh:4x6", "--curve", "hilbert"}, 2, "power of two"},
		{[]string{"--curve", "hilbert"}, 2, "a machine is required"},
		{[]string{"--machine", "mesh:4x4", "--graph", "x", "--curve", "hilbert"}, 2, "not both"},
		{[]string{"--machine", "mesh:4x4", "--curve", "hilbert", "--format", "csv"}, 2, "unknown ranking format"},
		{[]string{"--machine", "mesh:4x4", "--curve", "hilbert", "--format", "hosts"}, 2, "needs --hosts"},
		{[]string{"--machine", "blob:4", "--curve", "hilbert"}, 2, "unknown kind"},
		{[]string{"--machine", "mesh:4x4"}, 2, "--curve is required"},
		{[]string{"--machine", "mesh:40000x40000", "--curve", "gilbert"}, 2, "at most 67108864"},
		{[]string{"--machine", "mesh:2", "--curve", bad}, 1, "line 2: rank 0 is given twice"},
		{[]string{"--machine", "mesh:2x2x2x2", "--curve", "snake3d", "--svg", filepath.Join(dir, "x.svg")}, 1, "up to 3 dimensions"},
	}
	for _, c := range cases {
		code, _, stderr := runCLI(t, "", append([]string{"curve"}, c.args...)...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", c.args, code, stderr, c.code, c.want)
		}
	}
}

func TestCurveFilesHostsAndSVG(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "h.json")
	svg := filepath.Join(dir, "h.svg")
	if code, _, stderr := runCLI(t, "", "curve", "--machine", "mesh:8x8", "--curve", "hindex", "--format", "json", "-o", out, "--svg", svg); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var doc curves.RankingJSON
	if err := json.Unmarshal(data, &doc); err != nil || doc.Machine != "mesh:8x8" || doc.Curve != "hindex" || len(doc.Order) != 64 {
		t.Fatalf("JSON ranking %s: %v", data, err)
	}
	if s, err := os.ReadFile(svg); err != nil || !strings.HasPrefix(string(s), "<svg") {
		t.Fatalf("svg: %v", err)
	}
	// Convert the JSON ranking file to order format.
	code, conv, stderr := runCLI(t, "", "curve", "--machine", "mesh:8x8", "--curve", out, "--format", "order")
	if code != 0 || strings.Fields(conv)[1] != strconv.Itoa(doc.Order[1]) {
		t.Fatalf("conversion: exit %d %s", code, stderr)
	}
	// Host names from a file, and from a graph.
	hosts := filepath.Join(dir, "hosts.txt")
	os.WriteFile(hosts, []byte("a\nb\nc\nd\n"), 0o644)
	code, got, stderr := runCLI(t, "", "curve", "--machine", "mesh:2x2", "--curve", "hilbert", "--format", "hosts", "--hosts", hosts)
	if code != 0 || got != "a\nc\nd\nb\n" {
		t.Fatalf("hosts: exit %d, %q, %s", code, got, stderr)
	}
	code, got, stderr = runCLI(t, "x y\ny z\n", "curve", "--graph", "-", "--curve", "bfs", "--format", "hosts")
	if code != 0 || (got != "x\ny\nz\n" && got != "z\ny\nx\n") {
		t.Fatalf("graph hosts: exit %d, %q, %s", code, got, stderr)
	}
	code, _, stderr = runCLI(t, "", "curve", "--machine", "mesh:2x3", "--curve", "hilbert-trunc", "--format", "hosts", "--hosts", hosts)
	if code != 1 || !strings.Contains(stderr, "4 host names for a machine of 6 nodes") {
		t.Fatalf("wrong host count: exit %d, %s", code, stderr)
	}
}

func TestEvaluate(t *testing.T) {
	code, out, stderr := runCLI(t, "", "evaluate", "--machine", "mesh:16x16", "--curve", "hilbert", "--weights", "exp:2:8", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var ev map[string]any
	if err := json.Unmarshal([]byte(out), &ev); err != nil {
		t.Fatal(err)
	}
	m := topo.Mesh(16, 16)
	o, _ := curves.Generate("hilbert", m)
	w, _ := curves.ParseWeights("exp:2:8")
	f, _ := curves.Objective(m, o, w, false)
	if ev["objective"] != f || ev["max_step"] != 1.0 || ev["jumps"] != 0.0 || ev["n"] != 256.0 || ev["k"] != 8.0 || ev["ring"] != false {
		t.Errorf("evaluate JSON %v; objective want %g", ev, f)
	}
	// Several curves: an array, in the order given.
	code, out, _ = runCLI(t, "", "evaluate", "--machine", "torus:8x8", "--curve", "snake,hindex,snake-ring", "--ring", "--json")
	var evs []map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &evs) != nil || len(evs) != 3 || evs[1]["curve"] != "hindex" {
		t.Fatalf("exit %d, %s", code, out)
	}
	if evs[1]["jumps"] != 0.0 || evs[2]["jumps"] != 0.0 || evs[0]["ring"] != true {
		t.Errorf("closed curves on a torus ring: %v", evs)
	}
	// Table.
	code, out, _ = runCLI(t, "", "evaluate", "--machine", "mesh:8x8", "--curve", "all")
	if code != 0 || !strings.Contains(out, "gilbert") || !strings.Contains(out, "objective") {
		t.Errorf("table: exit %d %q", code, out)
	}
	// A ranking file.
	dir := t.TempDir()
	p := filepath.Join(dir, "h.pairs")
	runCLI(t, "", "curve", "--machine", "mesh:16x16", "--curve", "hilbert", "-o", p)
	code, out, _ = runCLI(t, "", "evaluate", "--machine", "mesh:16x16", "--ranking", p, "--json")
	if code != 0 || !strings.Contains(out, `"ranking": "`+p) || !strings.Contains(out, strconv.FormatFloat(f, 'g', -1, 64)) {
		t.Errorf("ranking: exit %d %s", code, out)
	}
	// Standard input, format from the content.
	pairs, _ := os.ReadFile(p)
	code, out, stderr = runCLI(t, string(pairs), "evaluate", "--machine", "mesh:16x16", "--ranking", "-", "--json")
	if code != 0 || !strings.Contains(out, strconv.FormatFloat(f, 'g', -1, 64)) {
		t.Errorf("stdin ranking: exit %d %s %s", code, out, stderr)
	}
	if code, _, stderr := runCLI(t, "0\n1\n", "evaluate", "--machine", "mesh:2", "--ranking", "-"); code != 1 || !strings.Contains(stderr, "give --ranking-format ranks or order") {
		t.Errorf("ambiguous stdin: exit %d %s", code, stderr)
	}
	// Errors.
	bad := filepath.Join(dir, "bad.order")
	os.WriteFile(bad, []byte("0\n1\nx\n"), 0o644)
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--machine", "mesh:3", "--ranking", bad}, 1, `line 3: node "x" is not an integer`},
		{[]string{"--machine", "mesh:4x4", "--ranking", p}, 1, "outside 0..15"},
		{[]string{"--machine", "mesh:4x4", "--curve", "hilbert", "--weights", "exp:0.5:3"}, 2, "base"},
		{[]string{"--machine", "mesh:4x4", "--curve", "hilbert", "--ranking", p}, 2, "exactly one"},
		{[]string{"--machine", "mesh:4x4"}, 2, "exactly one"},
		{[]string{"--machine", "mesh:4x4", "--curve", "hilbert,bogus"}, 2, "unknown curve \"bogus\""},
		{[]string{"--machine", "mesh:4x4", "--ranking", filepath.Join(dir, "none.pairs")}, 1, "no such file"},
	}
	for _, c := range cases {
		code, _, stderr := runCLI(t, "", append([]string{"evaluate"}, c.args...)...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", c.args, code, stderr, c.code, c.want)
		}
	}
}

// TestCurveHostlist: --hostlist EXPR names the hosts as a --hosts file holding the
// same expression does, for every format that names hosts; bad expressions, a wrong
// count, a host named twice and both flags at once are errors.
func TestCurveHostlist(t *testing.T) {
	dir := t.TempDir()
	hosts := filepath.Join(dir, "hosts.txt")
	if err := os.WriteFile(hosts, []byte("node[01-16]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"hosts", "slurm-weight", "rankfile", "hostlist", "slurm-block"} {
		args := []string{"curve", "--machine", "mesh:4x4", "--curve", "hilbert", "--format", f}
		if f == "slurm-block" {
			args = append(args, "--block-size", "4")
		}
		c1, want, e1 := runCLI(t, "", append(args, "--hosts", hosts)...)
		c2, got, e2 := runCLI(t, "", append(args, "--hostlist", "node[01-16]")...)
		if c1 != 0 || c2 != 0 || got != want || !strings.Contains(got, "node") {
			t.Fatalf("--format %s: --hosts exit %d (%s), --hostlist exit %d (%s), same output %v", f, c1, e1, c2, e2, got == want)
		}
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--hostlist", "node[01-15]"}, 2, "15 host names for a machine of 16 nodes"},
		{[]string{"--hostlist", "node[01-15],node03"}, 2, `host "node03" is named twice`},
		{[]string{"--hostlist", "node[01-16"}, 2, "unmatched"},
		{[]string{"--hostlist", "node[01-08] node[09-16]"}, 2, "without spaces"},
		{[]string{"--hostlist", "node[01-16]", "--hosts", hosts}, 2, "give one"},
	} {
		code, _, stderr := runCLI(t, "", append([]string{"curve", "--machine", "mesh:4x4", "--curve", "hilbert", "--format", "hosts"}, c.args...)...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%q: exit %d, %s; want exit %d and %q", c.args, code, stderr, c.code, c.want)
		}
	}
}

// --svg draws the ordering with the network formats too (slurm-topology,
// slurm-block, slurm-torus3d): it was passed over there, exit 0 and no drawing. On
// a network that is not a grid it is refused, as with the ranking formats.
func TestCurveSVGWithNetworkFormats(t *testing.T) {
	dir := t.TempDir()
	want := filepath.Join(dir, "ranking.svg")
	if code, _, stderr := runCLI(t, "", "curve", "--machine", "torus:4x2x2", "--curve", "snake", "--svg", want, "-o", filepath.Join(dir, "ranking")); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, f := range [][]string{{"--format", "slurm-topology"}, {"--format", "slurm-block", "--block-size", "4"}, {"--format", "slurm-torus3d", "--hostlist", "n[01-16]"}} {
		svg := filepath.Join(dir, f[1]+".svg")
		args := append([]string{"curve", "--machine", "torus:4x2x2", "--curve", "snake", "--svg", svg, "-o", filepath.Join(dir, f[1])}, f...)
		if code, _, stderr := runCLI(t, "", args...); code != 0 {
			t.Fatalf("%s: exit %d: %s", f[1], code, stderr)
		}
		if got, wantSVG := mustRead(t, svg), mustRead(t, want); string(got) != string(wantSVG) {
			t.Errorf("%s: the drawing differs from the ranking's (%d bytes, want %d)", f[1], len(got), len(wantSVG))
		}
	}
	svg := filepath.Join(dir, "graph.svg")
	code, _, stderr := runCLI(t, "", "curve", "--graph", "../../topo/testdata/topology.conf", "--curve", "rcm", "--format", "slurm-topology", "--svg", svg, "-o", filepath.Join(dir, "t.conf"))
	if code != 2 || !strings.Contains(stderr, "--svg draws grids only") {
		t.Errorf("--svg of a graph: exit %d, %q", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "t.conf")); err == nil {
		t.Error("the topology was written though --svg was refused")
	}
}
