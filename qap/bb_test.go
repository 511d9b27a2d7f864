package qap_test

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/internal/oracle"
	"github.com/procalloc/procalloc/internal/qaptest"
	"github.com/procalloc/procalloc/internal/shared"
	"github.com/procalloc/procalloc/order"
	"github.com/procalloc/procalloc/qap"
	"github.com/procalloc/procalloc/topo"
)

// TestBranchAndBoundBrute compares the branch and bound with brute force over all
// permutations on random QAPs: integer, symmetric or not, sparse, and float data
// (scale 0.1 has no granularity), with one and two workers, with and without an
// incumbent.
func TestBranchAndBoundBrute(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for trial := 0; trial < 70; trial++ {
		n := 1 + trial%7
		scale := 1.0
		if trial%3 == 2 {
			scale = 0.1
		}
		q := qaptest.RandomQAP(rng, n, 1+trial%7, trial%2 == 0, scale)
		want := qaptest.QAPBrute(q)
		var inc []int
		if trial%4 == 1 {
			inc = rng.Perm(n)
		}
		for _, workers := range []int{1, 2} {
			r, err := qap.BranchAndBound(context.Background(), q, inc, qap.BBOptions{Workers: workers})
			if err != nil {
				t.Fatal(err)
			}
			if !r.Optimal || r.Status != qap.StatusOptimal {
				t.Fatalf("trial %d: not optimal: %+v", trial, r)
			}
			if math.Abs(r.Objective-want) > 1e-9*max(1, want) || q.Objective(r.Assignment) != r.Objective {
				t.Fatalf("trial %d (n %d, workers %d): objective %v, brute force %v", trial, n, workers, r.Objective, want)
			}
			if r.Bound != r.Objective || r.RootBound > want+1e-9 {
				t.Fatalf("trial %d: bound %v root bound %v, optimum %v", trial, r.Bound, r.RootBound, want)
			}
		}
	}
}

// TestBranchAndBoundDeterministic: two workers return the same assignment every run.
func TestBranchAndBoundDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	q := qaptest.RandomQAP(rng, 9, 9, true, 1)
	var first []int
	for run := 0; run < 4; run++ {
		r, err := qap.BranchAndBound(context.Background(), q, nil, qap.BBOptions{Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = r.Assignment
			continue
		}
		for i := range first {
			if first[i] != r.Assignment[i] {
				t.Fatalf("run %d: assignment %v, first run %v", run, r.Assignment, first)
			}
		}
	}
}

// TestBranchAndBoundInterrupt: a cancelled search returns at once with a valid
// assignment and a bound no larger than the optimum (nug12: 578).
func TestBranchAndBoundInterrupt(t *testing.T) {
	q := readQAPLIBFile(t, "nug12")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	t0 := time.Now()
	r, err := qap.BranchAndBound(ctx, q, nil, qap.BBOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if el := time.Since(t0); el > time.Second {
		t.Errorf("took %v after a 20 ms deadline", el)
	}
	if r.Optimal {
		t.Skip("solved within 20 ms: nothing to interrupt")
	}
	if r.Status != qap.StatusTimeLimit || r.Bound > 578 || (r.Assignment != nil && r.Objective < 578) {
		t.Fatalf("status %s, objective %v, bound %v (optimum 578)", r.Status, r.Objective, r.Bound)
	}
}

func readQAPLIBFile(t testing.TB, name string) *qap.QAP {
	t.Helper()
	path, err := shared.Find("qaplib/" + name + ".dat")
	if err != nil {
		t.Skipf("QAPLIB instance %s is needed: %v", name, err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	q, err := qap.ReadQAPLIB(f)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// qaplibOptima are the published optimal values (QAPLIB, Burkard, Karisch and Rendl
// 1997; ../shared/qaplib/README.md).
var qaplibOptima = map[string]float64{"chr12a": 9552, "had12": 1652, "nug12": 578, "scr12": 31410,
	"tai12a": 224416, "nug14": 1014, "esc16a": 68}

// TestBranchAndBoundQAPLIB proves the published optima of the 12-facility QAPLIB
// instances (all of them in the long mode).
func TestBranchAndBoundQAPLIB(t *testing.T) {
	names := []string{"chr12a", "had12", "nug12", "scr12", "esc16a"}
	if !testing.Short() {
		names = append(names, "tai12a", "nug14")
	}
	for _, name := range names {
		q := readQAPLIBFile(t, name)
		r, err := qap.BranchAndBound(context.Background(), q, nil, qap.BBOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !r.Optimal || r.Objective != qaplibOptima[name] || r.Bound != r.Objective {
			t.Errorf("%s: status %s objective %v bound %v, published optimum %v", name, r.Status, r.Objective, r.Bound, qaplibOptima[name])
		}
		t.Logf("%s: %v proven, %d nodes, root bound %v, %.2fs", name, r.Objective, r.Nodes, r.RootBound, r.Seconds)
	}
}

// TestBranchAndBoundSymmetricBrute checks the symmetry breaking (automorphisms of the
// distances, interchangeable facilities) against brute force: distances of a cycle or
// a 2x4 torus (many automorphisms), flows with isolated and identical facilities.
func TestBranchAndBoundSymmetricBrute(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := 0; trial < 40; trial++ {
		n := 6 + trial%3
		q := &qap.QAP{N: n, A: make([]float64, n*n), B: make([]float64, n*n)}
		for k := 0; k < n; k++ {
			for l := 0; l < n; l++ {
				d := min((k-l+n)%n, (l-k+n)%n) // cycle
				if trial%2 == 1 && n == 8 {    // 2x4 torus
					dx, dy := abs(k%4-l%4), abs(k/4-l/4)
					d = min(dx, 4-dx) + dy
				}
				q.B[k*n+l] = float64(d)
			}
		}
		active := 2 + rng.IntN(n-2)
		for i := 0; i < active; i++ {
			for j := 0; j < active; j++ {
				if i != j && rng.IntN(3) > 0 {
					q.A[i*n+j] = float64(rng.IntN(4))
				}
			}
		}
		if trial%4 == 0 && active >= 3 { // make facilities 1 and 2 identical
			for k := 0; k < n; k++ {
				q.A[2*n+k], q.A[k*n+2] = q.A[1*n+k], q.A[k*n+1]
			}
			q.A[1*n+2], q.A[2*n+1], q.A[2*n+2] = q.A[1*n+1], q.A[1*n+1], q.A[1*n+1]
		}
		want := qaptest.QAPBrute(q)
		for _, workers := range []int{1, 2} {
			r, err := qap.BranchAndBound(context.Background(), q, nil, qap.BBOptions{Workers: workers})
			if err != nil {
				t.Fatal(err)
			}
			if !r.Optimal || r.Objective != want || q.Objective(r.Assignment) != want {
				t.Fatalf("trial %d (n %d, workers %d): %+v, brute force %v", trial, n, workers, r, want)
			}
		}
	}
}

// TestBranchAndBoundOrderingDP compares the ordering branch and bound with the exact
// dynamic program (OrderDP) and the general branch and bound on meshes, tori and
// random graphs, K = 1..3, line and ring, with and without symmetry breaking.
func TestBranchAndBoundOrderingDP(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var machines []topo.Machine
	specs := []string{"mesh:2", "mesh:3", "mesh:5", "mesh:3x3", "torus:3x3", "mesh:4x2", "mesh:2x2x2"}
	graphs := 2
	if !testing.Short() {
		specs, graphs = append(specs, "torus:4x3"), 4
	}
	for _, spec := range specs {
		m, err := topo.ParseSpec(spec)
		if err != nil {
			t.Fatal(err)
		}
		machines = append(machines, m)
	}
	for i := 0; i < graphs; i++ {
		machines = append(machines, oracle.RandomGraph(rng, 7+i, 3))
	}
	for mi, m := range machines {
		for k := 1; k <= 3; k++ {
			w := curves.Weights{1, 0.5, 0.25}[:k]
			for _, ring := range []bool{false, true} {
				if ring && 2*k >= m.N() {
					continue
				}
				q, err := qap.OrderingQAP(m, w, ring)
				if err != nil {
					t.Fatal(err)
				}
				dp, err := order.OrderDP(context.Background(), m, w, ring)
				if err != nil {
					t.Fatal(err)
				}
				for _, opt := range []qap.BBOptions{{Workers: 1}, {Workers: 2}, {Workers: 1, NoSymmetry: true}} {
					r, err := qap.BranchAndBoundOrdering(context.Background(), q, ring, nil, opt)
					if err != nil {
						t.Fatal(err)
					}
					f, _ := curves.Objective(m, curves.Order(r.Assignment), w, ring)
					if !r.Optimal || f != dp.Objective || r.Objective != f || r.Bound != f || r.RootBound > f {
						t.Fatalf("machine %d (%s) K %d ring %v %+v: F %v bound %v root %v, DP %v", mi, m.Spec(), k, ring, opt, f, r.Bound, r.RootBound, dp.Objective)
					}
				}
			}
		}
	}
}

// TestWalkBound: the walk bound never exceeds the optimum (OrderDP) on
// vertex-transitive machines, and refuses machines that are not.
func TestWalkBound(t *testing.T) {
	specs := []string{"torus:3x3", "torus:2x2x2", "torus:4x3"}
	if !testing.Short() {
		specs = append(specs, "torus:4x4")
	}
	for _, spec := range specs {
		m, err := topo.ParseSpec(spec)
		if err != nil {
			t.Fatal(err)
		}
		for k := 1; k <= 3; k++ {
			for _, ring := range []bool{false, true} {
				if ring && 2*k+1 > m.N() {
					continue
				}
				w := curves.Weights{1, 0.5, 0.25}[:k]
				q, _ := qap.OrderingQAP(m, w, ring)
				b, ok := qap.WalkBound(context.Background(), q, ring)
				if !ok {
					t.Fatalf("%s K %d ring %v: no walk bound", spec, k, ring)
				}
				var opt float64
				if dp, err := order.OrderDP(context.Background(), m, w, ring); err == nil {
					opt = dp.Objective
				} else {
					// The ring DP of 16 nodes is too large; the ordering branch and bound,
					// checked against the DP on smaller machines, gives the optimum.
					r, err := qap.BranchAndBoundOrdering(context.Background(), q, ring, nil, qap.BBOptions{})
					if err != nil || !r.Optimal {
						t.Fatalf("%s K %d ring %v: no optimum: %v", spec, k, ring, err)
					}
					opt = r.Objective
				}
				if b > opt {
					t.Fatalf("%s K %d ring %v: walk bound %v above the optimum %v", spec, k, ring, b, opt)
				}
				t.Logf("%s K %d ring %v: walk bound %v, optimum %v", spec, k, ring, b, opt)
				if spec == "torus:4x4" && k == 3 && !ring && b != opt {
					t.Errorf("torus:4x4 K 3: walk bound %v, optimum %v (documented as tight)", b, opt)
				}
			}
		}
	}
	m, _ := topo.ParseSpec("mesh:3x3")
	q, _ := qap.OrderingQAP(m, curves.Weights{1, 0.5}, false)
	if _, ok := qap.WalkBound(context.Background(), q, false); ok {
		t.Error("mesh:3x3 is not vertex-transitive: no walk bound expected")
	}
}

// TestBranchAndBoundOrderingInterrupt: a deadline stops the ordering branch and bound
// within a second, with an ordering and a bound no larger than the optimum (mesh:5x4,
// K = 3, ring: 50.5, proven by the same code without a deadline, docs/ilp.md).
func TestBranchAndBoundOrderingInterrupt(t *testing.T) {
	m := topo.Mesh(5, 4)
	q, err := qap.OrderingQAP(m, curves.Weights{1, 0.5, 0.25}, true)
	if err != nil {
		t.Fatal(err)
	}
	start := topo.BFSOrder(m, 0)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	t0 := time.Now()
	r, err := qap.BranchAndBoundOrdering(ctx, q, true, start, qap.BBOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if el := time.Since(t0); el > time.Second+50*time.Millisecond {
		t.Errorf("returned %v after a 50 ms deadline", el)
	}
	if r.Optimal {
		t.Skip("proven within 50 ms: nothing to interrupt")
	}
	if r.Status != qap.StatusTimeLimit || r.Bound > 50.5 || r.Objective < 50.5 || q.Objective(r.Assignment) != r.Objective {
		t.Fatalf("status %s objective %v bound %v (optimum 50.5)", r.Status, r.Objective, r.Bound)
	}
}

func benchBB(b *testing.B, name string) {
	q := readQAPLIBFile(b, name)
	for b.Loop() {
		r, err := qap.BranchAndBound(context.Background(), q, nil, qap.BBOptions{})
		if err != nil || !r.Optimal || r.Objective != qaplibOptima[name] {
			b.Fatalf("%v %+v", err, r)
		}
	}
}

// QAPLIB with no incumbent (the local search is not included), both workers.
func BenchmarkBranchAndBoundNug12(b *testing.B)  { benchBB(b, "nug12") }
func BenchmarkBranchAndBoundNug14(b *testing.B)  { benchBB(b, "nug14") }
func BenchmarkBranchAndBoundEsc16a(b *testing.B) { benchBB(b, "esc16a") }

// The 4x4 torus, K = 3, ring: proven 39 from the local search's ordering.
func BenchmarkBranchAndBoundOrderingTorus4x4K3Ring(b *testing.B) {
	m := topo.Torus(4, 4)
	q, _ := qap.OrderingQAP(m, curves.Weights{1, 0.5, 0.25}, true)
	start, _, _ := qap.LocalSearch(context.Background(), q, topo.BFSOrder(m, 0), qap.LocalSearchOptions{Seed: 1})
	for b.Loop() {
		r, err := qap.BranchAndBoundOrdering(context.Background(), q, true, start, qap.BBOptions{})
		if err != nil || !r.Optimal || r.Objective != 39 {
			b.Fatalf("%v %+v", err, r)
		}
	}
}

// The walk bound of the 8x8 torus, K = 3 (151.5).
func BenchmarkWalkBoundTorus8x8K3(b *testing.B) {
	q, _ := qap.OrderingQAP(topo.Torus(8, 8), curves.Weights{1, 0.5, 0.25}, false)
	for b.Loop() {
		if v, ok := qap.WalkBound(context.Background(), q, false); !ok || v != 151.5 {
			b.Fatal(v, ok)
		}
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
