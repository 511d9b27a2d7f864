package order

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/internal/oracle"
	"github.com/procalloc/procalloc/internal/qaptest"
	"github.com/procalloc/procalloc/qap"
	"github.com/procalloc/procalloc/topo"
)

func randomPerm(rng *rand.Rand, n int) []int {
	p := rng.Perm(n)
	return p
}

// The ordering QAP's objective is F as curves.Objective computes it.
func TestOrderingQAPObjectiveIsF(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for c := 0; c < 50; c++ {
		n := 1 + rng.IntN(12)
		g := oracle.RandomGraph(rng, n, rng.IntN(2*n))
		w := curves.Weights{1, 0.5, 0.25, 0.125}[:1+rng.IntN(4)]
		ring := rng.IntN(2) == 0
		q, err := qap.OrderingQAP(g, w, ring)
		if err != nil {
			t.Fatal(err)
		}
		p := randomPerm(rng, n)
		f, err := curves.Objective(g, p, w, ring)
		if err != nil {
			t.Fatal(err)
		}
		if got := q.Objective(p); math.Abs(got-f) > 1e-9 {
			t.Fatalf("n=%d ring=%v: QAP %g, F %g", n, ring, got, f)
		}
	}
}

// Local search keeps a permutation, reports its true objective, never gets worse than
// its start, and the Gilmore-Lawler bound never exceeds the brute-force optimum.
func TestLocalSearchAndGLBAgainstBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for c := 0; c < 40; c++ {
		n := 2 + rng.IntN(6)
		q := &qap.QAP{N: n, A: make([]float64, n*n), B: make([]float64, n*n)}
		sym := rng.IntN(2) == 0
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				q.A[i*n+j] = float64(rng.IntN(7) - 1)
				if sym && j < i {
					q.B[i*n+j] = q.B[j*n+i]
				} else {
					q.B[i*n+j] = float64(rng.IntN(9))
				}
			}
		}
		opt := qaptest.QAPBrute(q)
		start := randomPerm(rng, n)
		p, f, err := qap.LocalSearch(context.Background(), q, start, qap.LocalSearchOptions{Seed: uint64(c)})
		if err != nil {
			t.Fatal(err)
		}
		if err := q.CheckPerm(p); err != nil {
			t.Fatal(err)
		}
		if f != q.Objective(p) || f > q.Objective(start) || f < opt-1e-9 {
			t.Fatalf("case %d: local search %g (recomputed %g), start %g, optimum %g", c, f, q.Objective(p), q.Objective(start), opt)
		}
		if b, ok := qap.GilmoreLawlerBound(context.Background(), q); !ok || b > opt+1e-9 {
			t.Fatalf("case %d: GLB %g above optimum %g", c, b, opt)
		}
	}
}

func mustSpec(s string) *topo.Grid {
	g, err := topo.ParseSpec(s)
	if err != nil {
		panic(err)
	}
	return g
}

// Without the MIP, Hamiltonian paths and cycles found by local search are proven optimal
// by the Gilmore-Lawler bound (F = n-1 on the line, n on the ring, w = (1)).
func TestNoMIPProvesHamiltonianOrders(t *testing.T) {
	for _, c := range []struct {
		spec string
		ring bool
		want float64
	}{{"mesh:4x4", false, 15}, {"torus:4x4", true, 16}, {"mesh:6x4", true, 24}, {"mesh:8x8", false, 63}, {"torus:8x8", true, 64}} {
		res, err := SolveOrdering(context.Background(), mustSpec(c.spec), curves.Weights{1}, OrderOptions{Ring: c.ring, Options: Options{Method: MethodLocal}})
		if err != nil {
			t.Fatal(err)
		}
		if res.Objective != c.want || res.Status != qap.StatusOptimal || res.Bound != c.want {
			t.Errorf("%s ring=%v: F %g bound %g status %s", c.spec, c.ring, res.Objective, res.Bound, res.Status)
		}
	}
}

func TestOrderingErrors(t *testing.T) {
	ctx := context.Background()
	disc, _ := topo.NewGraphFromEdges(4, [][2]int{{0, 1}, {2, 3}})
	if _, err := SolveOrdering(ctx, disc, curves.Weights{1}, OrderOptions{}); err == nil || !strings.Contains(err.Error(), "disconnected") {
		t.Errorf("disconnected: %v", err)
	}
	if _, err := SolveOrdering(ctx, topo.Mesh(3), curves.Weights{-1}, OrderOptions{}); err == nil {
		t.Error("negative weight accepted")
	}
	if _, err := SolveOrdering(ctx, topo.Mesh(3), curves.Weights{1}, OrderOptions{Options: Options{Formulation: "nope"}}); err == nil {
		t.Error("unknown formulation accepted")
	}
	// K >= n: unused weights are fine.
	res, err := SolveOrdering(ctx, topo.Mesh(3), curves.Weights{1, 1, 1, 1}, OrderOptions{Options: Options{Method: MethodLocal}})
	if err != nil || res.Objective != 4 {
		t.Errorf("K > n: %+v %v", res, err)
	}
}

// Graph with groups: every group stays contiguous.
func TestHierarchicalKeepsGroupsContiguous(t *testing.T) {
	src := `%group s0: a0 a1 a2
%group s1: b0 b1 b2
%group s2: c0 c1 c2
a0 x0
a1 x0
a2 x0
b0 x1
b1 x1
b2 x1
c0 x2
c1 x2
c2 x2
x0 x1
x1 x2
`
	g, err := topo.ReadGraph(strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	res, err := SolveOrdering(context.Background(), g, curves.Weights{1, 0.5}, OrderOptions{Options: Options{Method: MethodLocal}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Hierarchical {
		t.Fatal("groups ignored")
	}
	ranks := res.Order.Ranks()
	for _, gr := range g.Groups() {
		lo, hi := g.N(), -1
		for _, v := range gr.Nodes {
			lo, hi = min(lo, ranks[v]), max(hi, ranks[v])
		}
		if hi-lo+1 != len(gr.Nodes) {
			t.Errorf("group %s spans ranks %d..%d", gr.Name, lo, hi)
		}
	}
	f, _ := curves.Objective(g, res.Order, curves.Weights{1, 0.5}, false)
	if f != res.Objective || res.Bound > f {
		t.Errorf("F %g reported %g bound %g", f, res.Objective, res.Bound)
	}
}

// --method dp on a graph with groups orders the whole graph exactly (the groups only
// restrict the orderings), and beyond the DP's node limit says that limit, not that
// the groups' QAP cannot be solved by the DP.
func TestDPOnGroupedGraph(t *testing.T) {
	src := `%group s0: a0 a1 a2
%group s1: b0 b1 b2
a0 x0
a1 x0
a2 x0
b0 x1
b1 x1
b2 x1
x0 x1
`
	g, err := topo.ReadGraph(strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	w := curves.Weights{1, 0.5}
	res, err := SolveOrdering(context.Background(), g, w, OrderOptions{Options: Options{Method: MethodDP}})
	if err != nil {
		t.Fatal(err)
	}
	dp, err := OrderDP(context.Background(), g, w, false)
	if err != nil {
		t.Fatal(err)
	}
	if res.Hierarchical || res.Status != qap.StatusOptimal || res.Objective != dp.Objective {
		t.Errorf("dp on a grouped graph: hierarchical %v, status %s, F %g; OrderDP F %g", res.Hierarchical, res.Status, res.Objective, dp.Objective)
	}
	if !slices.ContainsFunc(res.Notes, func(n string) bool { return strings.Contains(n, "groups were not used") }) {
		t.Errorf("dp on a grouped graph: notes %q do not say the groups were not kept", res.Notes)
	}
	var sb strings.Builder
	for s := 0; s < 8; s++ {
		fmt.Fprintf(&sb, "%%group s%d: h%d_0 h%d_1 h%d_2\n", s, s, s, s)
		for h := 0; h < 3; h++ {
			fmt.Fprintf(&sb, "h%d_%d x%d\n", s, h, s)
		}
		if s > 0 {
			fmt.Fprintf(&sb, "x%d x%d\n", s-1, s)
		}
	}
	big, err := topo.ReadGraph(strings.NewReader(sb.String()))
	if err != nil {
		t.Fatal(err)
	}
	_, err = SolveOrdering(context.Background(), big, w, OrderOptions{Options: Options{Method: MethodDP}})
	if err == nil || !strings.Contains(err.Error(), "orders at most") {
		t.Errorf("dp on a 32-node grouped graph: %v, want the DP's node limit", err)
	}
}

func BenchmarkLocalSearchTorus8x8K3(b *testing.B) {
	g := topo.Torus(8, 8)
	q, _ := qap.OrderingQAP(g, curves.Weights{1, 0.5, 0.25}, false)
	start := topo.BFSOrder(g, 0)
	for b.Loop() {
		qap.LocalSearch(context.Background(), q, start, qap.LocalSearchOptions{Rounds: 50})
	}
}

func BenchmarkLocalSearchMesh32x32K2Descent(b *testing.B) {
	g := topo.Mesh(32, 32)
	q, _ := qap.OrderingQAP(g, curves.Weights{1, 0.5}, false)
	start := topo.BFSOrder(g, 0)
	for b.Loop() {
		qap.LocalSearch(context.Background(), q, start, qap.LocalSearchOptions{Rounds: -1})
	}
}

// The window bound never exceeds the optimum (brute force / DP) and certifies the
// bipartite-grid values with w = (1, 1/2): F = 63 + 62 = 125 on the 8x8 torus.
func TestWindowBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for c := 0; c < 30; c++ {
		n := 3 + rng.IntN(5)
		g := oracle.RandomGraph(rng, n, rng.IntN(n))
		w := curves.Weights{1, 0.5, 0.25}[:1+rng.IntN(3)]
		ring := rng.IntN(2) == 0
		q, _ := qap.OrderingQAP(g, w, ring)
		opt := qaptest.QAPBrute(q)
		if b, ok := qap.WindowBound(context.Background(), q, ring); ok && b > opt+1e-9 {
			t.Fatalf("case %d n=%d w=%v ring=%v: window bound %g above optimum %g", c, n, w, ring, b, opt)
		}
	}
	q, _ := qap.OrderingQAP(topo.Torus(8, 8), curves.Weights{1, 0.5}, false)
	if b, ok := qap.WindowBound(context.Background(), q, false); !ok || b != 125 {
		t.Fatalf("torus 8x8: window bound %g (%v), want 125", b, ok)
	}
}

// The Cplant development machine (8x8 torus of switches, four rows with four
// processors per switch) ordered switch by switch: groups contiguous, F verified.
func TestHierarchicalCplantDev(t *testing.T) {
	g := readTestGraph(t, "cplant-dev.txt")
	w := curves.Weights{1, 0.5, 0.25}
	res, err := SolveOrdering(context.Background(), g, w, OrderOptions{Options: Options{Method: MethodLocal}})
	if err != nil {
		t.Fatal(err)
	}
	ranks := res.Order.Ranks()
	for _, gr := range g.Groups() {
		lo, hi := g.N(), -1
		for _, v := range gr.Nodes {
			lo, hi = min(lo, ranks[v]), max(hi, ranks[v])
		}
		if hi-lo+1 != len(gr.Nodes) {
			t.Errorf("group %s spans ranks %d..%d", gr.Name, lo, hi)
		}
	}
	fv, err := curves.Objective(g, res.Order, w, false)
	if err != nil || fv != res.Objective || res.Bound > fv || len(g.Groups()) != 32 || g.N() != 192 {
		t.Fatalf("F %g reported %g bound %g groups %d n %d (%v)", fv, res.Objective, res.Bound, len(g.Groups()), g.N(), err)
	}
}
