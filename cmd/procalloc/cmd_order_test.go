package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/ilp/highs"
	"github.com/procalloc/procalloc/internal/shared"
	"github.com/procalloc/procalloc/topo"
)

func runOrderJSON(t *testing.T, args ...string) orderOutput {
	t.Helper()
	code, out, errOut := runCLI(t, "", append([]string{"order", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("order %v: exit %d: %s", args, code, errOut)
	}
	var o orderOutput
	if err := json.Unmarshal([]byte(out), &o); err != nil {
		t.Fatalf("order %v: %v\n%s", args, err, out)
	}
	return o
}

// The reported objective is F of the printed order, and a DP or local-search answer
// on instances with known optima is proven.
func TestOrderKnownOptimaWithoutHiGHS(t *testing.T) {
	for _, c := range []struct {
		args []string
		want float64
	}{
		{[]string{"--machine", "mesh:3x3", "--weights", "list:1", "--method", "dp"}, 8},
		{[]string{"--machine", "mesh:3x3", "--weights", "list:1", "--ring", "--method", "dp"}, 10},
		{[]string{"--machine", "torus:4x4", "--weights", "list:1", "--ring", "--no-mip"}, 16},
		{[]string{"--machine", "mesh:4x4", "--weights", "list:1", "--method", "local"}, 15},
	} {
		o := runOrderJSON(t, c.args...)
		g, _ := topo.ParseSpec(c.args[1])
		w, _ := curves.ParseWeights(c.args[3])
		ring := strings.Contains(strings.Join(c.args, " "), "--ring")
		f, err := curves.Objective(g, curves.Order(o.Order), w, ring)
		if err != nil || f != o.Objective || o.Objective != c.want || o.Status != "optimal" || o.Bound == nil || *o.Bound != c.want {
			t.Errorf("%v: F %g (verifier %g, %v), status %s, bound %v; want proven %g", c.args, o.Objective, f, err, o.Status, o.Bound, c.want)
		}
	}
}

func TestOrderMIPOrHowToGetHiGHS(t *testing.T) {
	code, out, errOut := runCLI(t, "", "order", "--machine", "mesh:3x3", "--weights", "list:1,0.5", "--method", "mip", "--json")
	if !highs.Available() {
		if code != 1 || !strings.Contains(errOut, "-tags highs") || !strings.Contains(errOut, "--method auto") {
			t.Fatalf("without HiGHS: exit %d, %q", code, errOut)
		}
		return
	}
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var o orderOutput
	if err := json.Unmarshal([]byte(out), &o); err != nil {
		t.Fatal(err)
	}
	// 3x3 mesh, w = (1, 0.5): 8 unit steps and 7 pairs at distance 2 (bipartite) = 15.
	if o.Status != "optimal" || o.Objective != 15 {
		t.Fatalf("got %+v", o)
	}
}

// The default method (auto) proves small orderings with or without HiGHS.
func TestOrderDefaultMethodIsAuto(t *testing.T) {
	o := runOrderJSON(t, "--machine", "mesh:3x3", "--weights", "list:1,0.5")
	if !strings.HasPrefix(o.Method, "auto") || o.Status != "optimal" || o.Objective != 15 {
		t.Fatalf("got method %q status %s F %g, want auto proving 15", o.Method, o.Status, o.Objective)
	}
}

func TestOrderWritesRankingFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "o.pairs")
	code, _, errOut := runCLI(t, "", "order", "--machine", "mesh:3x3", "--weights", "list:1", "--method", "dp", "-o", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	o, err := curves.ReadRankingFile(path, 9, nil)
	if err != nil {
		t.Fatal(err)
	}
	f, _ := curves.Objective(topo.Mesh(3, 3), o, curves.Weights{1}, false)
	if f != 8 {
		t.Fatalf("ranking file order has F %g", f)
	}
}

func TestOrderQAPLIB(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "tiny.dat")
	// n = 4; the optimum (checked by enumerating all 24 permutations in the test) is
	// computed below, not hard-coded.
	data := "4\n0 3 0 2\n3 0 0 1\n0 0 0 4\n2 1 4 0\n\n0 22 53 53\n22 0 40 62\n53 40 0 55\n53 62 55 0\n"
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	A := [][]float64{{0, 3, 0, 2}, {3, 0, 0, 1}, {0, 0, 0, 4}, {2, 1, 4, 0}}
	B := [][]float64{{0, 22, 53, 53}, {22, 0, 40, 62}, {53, 40, 0, 55}, {53, 62, 55, 0}}
	cost := func(p []int) float64 {
		var f float64
		for i := range p {
			for j := range p {
				f += A[i][j] * B[p[i]][p[j]]
			}
		}
		return f
	}
	best := 1e18
	var perm func(p []int, k int)
	perm = func(p []int, k int) {
		if k == len(p) {
			best = min(best, cost(p))
			return
		}
		for i := k; i < len(p); i++ {
			p[k], p[i] = p[i], p[k]
			perm(p, k+1)
			p[k], p[i] = p[i], p[k]
		}
	}
	perm([]int{0, 1, 2, 3}, 0)
	args := []string{"--qap", path, "--no-mip"}
	if highs.Available() {
		args = []string{"--qap", path}
	}
	o := runOrderJSON(t, args...)
	if o.Objective != cost(o.Order) || o.Objective < best {
		t.Fatalf("objective %g, recomputed %g, optimum %g", o.Objective, cost(o.Order), best)
	}
	if highs.Available() && (o.Objective != best || o.Status != "optimal") {
		t.Fatalf("MIP: %s %g, optimum %g", o.Status, o.Objective, best)
	}
	// -o FILE takes the report that would go to stdout (it was refused: "with --qap
	// use --json", --json given or not); --format, a ranking format, stays refused.
	for _, asJSON := range []bool{false, true} {
		out := filepath.Join(dir, fmt.Sprintf("report-%v", asJSON))
		a := append([]string{"order"}, args...)
		if asJSON {
			a = append(a, "--json")
		}
		code, stdout, stderr := runCLI(t, "", append(a, "-o", out)...)
		written, err := os.ReadFile(out)
		if code != 0 || stdout != "" || err != nil {
			t.Fatalf("%v -o: exit %d, stdout %q, stderr %q, %v", a, code, stdout, stderr, err)
		}
		_, want, _ := runCLI(t, "", a...)
		// The reports differ only in the solve's seconds.
		seconds := regexp.MustCompile(`(?m)^(\s*"?seconds"?[: ]\s*).*$`)
		if got, want := seconds.ReplaceAllString(string(written), "$1"), seconds.ReplaceAllString(want, "$1"); got != want {
			t.Errorf("%v -o wrote\n%s\nwant the stdout report\n%s", a, got, want)
		}
	}
	if code, _, stderr := runCLI(t, "", "order", "--qap", path, "--format", "pairs", "-o", filepath.Join(dir, "p")); code != 2 || !strings.Contains(stderr, "-o FILE takes the report") {
		t.Errorf("--qap --format pairs: exit %d, %q", code, stderr)
	}
}

func TestOrderBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	disc := write("disc.txt", "a b\nc d\n")
	loop := write("loop.txt", "a b\nb b\n")
	dup := write("dup.txt", "a b\nb a\n")
	unknown := write("unk.txt", "%group s: a z\na b\n")
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"--machine", "mesh:3x3"}, 2, "--weights is required"},
		{[]string{"--machine", "mesh:3x3", "--weights", "list:1,-1"}, 2, "non-negative"},
		{[]string{"--machine", "mesh:3x3", "--weights", "list:0"}, 2, "positive"},
		{[]string{"--graph", disc, "--weights", "list:1", "--method", "dp"}, 1, "disconnected"},
		{[]string{"--graph", disc, "--weights", "list:1", "--no-mip"}, 1, "disconnected"},
		{[]string{"--graph", loop, "--weights", "list:1", "--no-mip"}, 1, "self loop"},
		{[]string{"--graph", dup, "--weights", "list:1", "--no-mip"}, 1, "twice"},
		{[]string{"--graph", unknown, "--weights", "list:1", "--no-mip"}, 1, "unknown node"},
		{[]string{"--machine", "mesh:3x3", "--weights", "list:1", "--method", "magic"}, 2, "--method"},
		{[]string{"--machine", "mesh:3x3", "--weights", "list:1", "--formulation", "magic"}, 2, "--formulation"},
		{[]string{"--machine", "mesh:3x3", "--weights", "list:1", "--gap", "-1"}, 2, "--gap"},
		// Not a usage error: --method dp orders some larger machines (fattree:32 below).
		{[]string{"--machine", "mesh:5x5", "--weights", "list:1", "--method", "dp"}, 1, "orders at most 22 nodes (about 16 finish in seconds; the time and memory double with each node), the machine has 25; use --method bb"},
		{[]string{"--machine", "mesh:6x6", "--weights", "list:1", "--method", "dp"}, 1, "the machine has 36; use --method auto"},
		{[]string{"--qap", disc, "--machine", "mesh:3x3"}, 2, "--qap takes no"},
		{[]string{"--qap", disc, "--no-mip"}, 1, "QAPLIB"},
		{[]string{"--machine", "mesh:3x3", "--graph", disc, "--weights", "list:1"}, 2, "not both"},
	} {
		code, _, errOut := runCLI(t, "", append([]string{"order"}, c.args...)...)
		if code != c.code || !strings.Contains(errOut, c.msg) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d mentioning %q", c.args, code, errOut, c.code, c.msg)
		}
	}
	// --method dp beyond 22 nodes succeeds when a structured start is proven optimal
	// before the DP is needed, which is why the limit is an error, not a usage error.
	if o := runOrderJSON(t, "--machine", "fattree:32", "--weights", "list:1,0.5", "--method", "dp"); o.Status != "optimal" {
		t.Errorf("fattree:32 --method dp: status %q, want optimal", o.Status)
	}
	// K >= n is allowed: unused weights.
	o := runOrderJSON(t, "--machine", "mesh:3", "--weights", "list:1,1,1,1,1", "--method", "dp")
	if o.Objective != 4 {
		t.Errorf("K > n: F %g, want 4", o.Objective)
	}
}

// Groups (switches) stay contiguous.
func TestOrderHierarchicalGraph(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "h.txt")
	src := "%group s0: a0 a1\n%group s1: b0 b1\na0 x\na1 x\nb0 y\nb1 y\nx y\n"
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	o := runOrderJSON(t, "--graph", p, "--weights", "list:1,0.5", "--no-mip")
	if o.Hierarchy == nil || o.Hierarchy.Groups != 2 {
		t.Fatalf("no hierarchy: %+v", o)
	}
	g, _ := topo.ReadGraph(strings.NewReader(src))
	ranks := curves.Order(o.Order).Ranks()
	for _, gr := range g.Groups() {
		if d := ranks[gr.Nodes[0]] - ranks[gr.Nodes[1]]; d != 1 && d != -1 {
			t.Errorf("group %s split: ranks %d, %d", gr.Name, ranks[gr.Nodes[0]], ranks[gr.Nodes[1]])
		}
	}
}

// --method bb proves orderings without HiGHS (the optima are cross-checked against the
// DP in ilp's tests and in docs/ilp.md) and the QAPLIB optimum of nug12.
func TestOrderBranchAndBound(t *testing.T) {
	for _, c := range []struct {
		args []string
		dp   bool
	}{
		{[]string{"--machine", "mesh:4x3", "--weights", "list:1,0.5,0.25", "--method", "bb"}, true},
		{[]string{"--machine", "mesh:4x3", "--weights", "list:1,0.5,0.25", "--ring", "--method", "auto"}, true},
	} {
		o := runOrderJSON(t, c.args...)
		g, _ := topo.ParseSpec(c.args[1])
		w, _ := curves.ParseWeights(c.args[3])
		ring := strings.Contains(strings.Join(c.args, " "), "--ring")
		f, _ := curves.Objective(g, curves.Order(o.Order), w, ring)
		dp := runOrderJSON(t, "--machine", c.args[1], "--weights", c.args[3], "--method", "dp", map[bool]string{true: "--ring", false: "--ring=false"}[ring])
		if f != o.Objective || o.Status != "optimal" || o.Bound == nil || *o.Bound != f || f != dp.Objective {
			t.Errorf("%v: F %g (verifier %g), status %s, bound %v, DP %g", c.args, o.Objective, f, o.Status, o.Bound, dp.Objective)
		}
	}
	path, err := shared.Find("qaplib/nug12.dat")
	if err != nil {
		t.Skipf("QAPLIB nug12 is needed: %v", err)
	}
	o := runOrderJSON(t, "--qap", path, "--method", "auto")
	if o.Status != "optimal" || o.Objective != 578 || o.Bound == nil || *o.Bound != 578 || o.Method != "auto:bb" || o.BB == nil {
		t.Fatalf("nug12 (published optimum 578): %+v", o)
	}
}

// Above 256 nodes order takes the scalable path: no 4096-node cap, the objective is F
// of the printed order and at most every starting ordering listed in "curves" (which
// the solve scored itself, strips2 among them on a mesh).
func TestOrderScalablePath(t *testing.T) {
	o := runOrderJSON(t, "--machine", "mesh:24x20", "--weights", "exp:2:3", "--time-limit", "4s")
	if o.Method != "auto:scalable" || o.N != 480 {
		t.Fatalf("method %q n %d", o.Method, o.N)
	}
	w, _ := curves.ParseWeights("exp:2:3")
	f, err := curves.Objective(topo.Mesh(24, 20), curves.Order(o.Order), w, false)
	if err != nil || f != o.Objective {
		t.Fatalf("F %g reported %g (%v)", f, o.Objective, err)
	}
	if _, ok := o.Curves["strips2"]; !ok {
		t.Errorf("strips2 not among the candidates: %v", o.Curves)
	}
	for name, cf := range o.Curves {
		if o.Objective > cf {
			t.Errorf("objective %g above candidate %s (%g)", o.Objective, name, cf)
		}
	}
	if o.Bound == nil || *o.Bound > o.Objective {
		t.Errorf("bound %v", o.Bound)
	}
	_, help, _ := runCLI(t, "", "help", "order")
	if !strings.Contains(help, "auto   the default") || strings.Contains(help, "MIP through HiGHS (needs a build\n         with -tags highs after 'make highs'); the default") {
		t.Errorf("help order does not name auto as the default method")
	}
}
