package ilp

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/topo"
)

// bruteQAP returns the minimum of q over all permutations.
func bruteQAP(q *QAP) float64 { return minOverPermutations(q.N, q.Objective) }

// minOverPermutations returns the least f(p) over the n! permutations p of 0..n-1,
// the brute-force oracle of the solvers on tiny instances.
func minOverPermutations(n int, f func(p []int) float64) float64 {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	best := math.Inf(1)
	var rec func(k int)
	rec = func(k int) {
		if k == n {
			best = min(best, f(p))
			return
		}
		for i := k; i < n; i++ {
			p[k], p[i] = p[i], p[k]
			rec(k + 1)
			p[k], p[i] = p[i], p[k]
		}
	}
	rec(0)
	return best
}

func randomGraph(rng *rand.Rand, n, extra int) *topo.Graph {
	seen := map[[2]int]bool{}
	var edges [][2]int
	add := func(a, b int) {
		if a > b {
			a, b = b, a
		}
		if a != b && !seen[[2]int{a, b}] {
			seen[[2]int{a, b}] = true
			edges = append(edges, [2]int{a, b})
		}
	}
	for v := 1; v < n; v++ {
		add(v, rng.IntN(v))
	}
	for range extra {
		add(rng.IntN(n), rng.IntN(n))
	}
	g, err := topo.NewGraphFromEdges(n, edges)
	if err != nil {
		panic(err)
	}
	return g
}

func randomPerm(rng *rand.Rand, n int) []int {
	p := rng.Perm(n)
	return p
}

// The ordering QAP's objective is F as curves.Objective computes it.
func TestOrderingQAPObjectiveIsF(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for c := 0; c < 50; c++ {
		n := 1 + rng.IntN(12)
		g := randomGraph(rng, n, rng.IntN(2*n))
		w := curves.Weights{1, 0.5, 0.25, 0.125}[:1+rng.IntN(4)]
		ring := rng.IntN(2) == 0
		q, err := OrderingQAP(g, w, ring)
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
		q := &QAP{N: n, A: make([]float64, n*n), B: make([]float64, n*n)}
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
		opt := bruteQAP(q)
		start := randomPerm(rng, n)
		p, f, err := LocalSearch(context.Background(), q, start, LocalSearchOptions{Seed: uint64(c)})
		if err != nil {
			t.Fatal(err)
		}
		if err := q.CheckPerm(p); err != nil {
			t.Fatal(err)
		}
		if f != q.Objective(p) || f > q.Objective(start) || f < opt-1e-9 {
			t.Fatalf("case %d: local search %g (recomputed %g), start %g, optimum %g", c, f, q.Objective(p), q.Objective(start), opt)
		}
		if b, ok := GilmoreLawlerBound(context.Background(), q); !ok || b > opt+1e-9 {
			t.Fatalf("case %d: GLB %g above optimum %g", c, b, opt)
		}
	}
}

// Symmetry canonicalization keeps F and satisfies the symmetry-breaking constraints.
func TestSymmetryCanonicalization(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	machines := []topo.Machine{topo.Mesh(4, 3), topo.Torus(4, 4), topo.Mesh(3, 3, 2), topo.Torus(5),
		mustSpec("mesh:4x4x3:wrap=z"), randomGraph(rng, 9, 6)}
	w := curves.Weights{1, 0.5}
	for _, m := range machines {
		for _, ring := range []bool{false, true} {
			s := orderingSymmetry(m, ring)
			n := m.N()
			for c := 0; c < 30; c++ {
				p := randomPerm(rng, n)
				cp := s.canon(p)
				f1, _ := curves.Objective(m, p, w, ring)
				f2, err := curves.Objective(m, cp, w, ring)
				if err != nil || f1 != f2 {
					t.Fatalf("%s ring=%v: F %g -> %g (%v)", m.Spec(), ring, f1, f2, err)
				}
				x := func(i, k int) float64 {
					if cp[i] == k {
						return 1
					}
					return 0
				}
				for _, fx := range s.fix {
					if x(fx.i, fx.k) != fx.v {
						t.Fatalf("%s ring=%v: canonical %v violates x[%d][%d] = %g", m.Spec(), ring, cp, fx.i, fx.k, fx.v)
					}
				}
				for _, r := range s.rows {
					var v float64
					for _, tm := range r.terms {
						v += tm.c * x(tm.i, tm.k)
					}
					if v < r.lo || v > r.hi {
						t.Fatalf("%s ring=%v: canonical %v violates a symmetry row", m.Spec(), ring, cp)
					}
				}
			}
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
		if res.Objective != c.want || res.Status != StatusOptimal || res.Bound != c.want {
			t.Errorf("%s ring=%v: F %g bound %g status %s", c.spec, c.ring, res.Objective, res.Bound, res.Status)
		}
	}
}

func TestReadQAPLIB(t *testing.T) {
	q, err := ReadQAPLIB(strings.NewReader("3\n0 1 2\n1 0 3\n2 3 0\n\n0 5 2 5 0 1\n2 1 0\n"))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteQAPLIB(&buf, q); err != nil {
		t.Fatal(err)
	}
	q2, err := ReadQAPLIB(&buf)
	if err != nil || q2.N != 3 || !equal(q.A, q2.A) || !equal(q.B, q2.B) {
		t.Fatalf("round trip: %v %v", q2, err)
	}
	for _, bad := range []string{"", "x", "2 1 2 3", "2 1 2 3 4 5 6 7 8 9", "0", "2.5", "2 1 2 3 4 5 6 7 nan"} {
		if _, err := ReadQAPLIB(strings.NewReader(bad)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func equal(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func FuzzReadQAPLIB(f *testing.F) {
	f.Add("2\n0 1\n1 0\n0 3\n3 0\n")
	f.Add("1 5 7")
	f.Add("3 1e400")
	f.Fuzz(func(t *testing.T, s string) {
		q, err := ReadQAPLIB(strings.NewReader(s))
		if err != nil {
			return
		}
		if len(q.A) != q.N*q.N || len(q.B) != q.N*q.N {
			t.Fatalf("matrix sizes %d %d for n %d", len(q.A), len(q.B), q.N)
		}
	})
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

func BenchmarkLocalSearchTorus8x8K3(b *testing.B) {
	g := topo.Torus(8, 8)
	q, _ := OrderingQAP(g, curves.Weights{1, 0.5, 0.25}, false)
	start := topo.BFSOrder(g, 0)
	for b.Loop() {
		LocalSearch(context.Background(), q, start, LocalSearchOptions{Rounds: 50})
	}
}

func BenchmarkLocalSearchMesh32x32K2Descent(b *testing.B) {
	g := topo.Mesh(32, 32)
	q, _ := OrderingQAP(g, curves.Weights{1, 0.5}, false)
	start := topo.BFSOrder(g, 0)
	for b.Loop() {
		LocalSearch(context.Background(), q, start, LocalSearchOptions{Rounds: -1})
	}
}

// The window bound never exceeds the optimum (brute force / DP) and certifies the
// bipartite-grid values with w = (1, 1/2): F = 63 + 62 = 125 on the 8x8 torus.
func TestWindowBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for c := 0; c < 30; c++ {
		n := 3 + rng.IntN(5)
		g := randomGraph(rng, n, rng.IntN(n))
		w := curves.Weights{1, 0.5, 0.25}[:1+rng.IntN(3)]
		ring := rng.IntN(2) == 0
		q, _ := OrderingQAP(g, w, ring)
		opt := bruteQAP(q)
		if b, ok := WindowBound(context.Background(), q, ring); ok && b > opt+1e-9 {
			t.Fatalf("case %d n=%d w=%v ring=%v: window bound %g above optimum %g", c, n, w, ring, b, opt)
		}
	}
	q, _ := OrderingQAP(topo.Torus(8, 8), curves.Weights{1, 0.5}, false)
	if b, ok := WindowBound(context.Background(), q, false); !ok || b != 125 {
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
