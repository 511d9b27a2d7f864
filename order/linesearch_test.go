package order

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/internal/oracle"
	"github.com/procalloc/procalloc/topo"
)

// objectiveOf is F of a line search's ordering by the verifier.
func objectiveOf(t *testing.T, m topo.Machine, ord []int32, w curves.Weights, ring bool) float64 {
	t.Helper()
	o := make(curves.Order, len(ord))
	for i, v := range ord {
		o[i] = int(v)
	}
	f, err := curves.Objective(m, o, w, ring)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// Every move's incremental score equals the change of F recomputed from scratch by
// curves.Objective (brute-force cross-check), on grids and graphs with switches, on the
// line and the ring, for K from 1 to beyond n/2, and the undo log restores the ordering.
func TestLineSearchDeltasMatchObjective(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	ft, err := topo.FatTree("4,2:4")
	if err != nil {
		t.Fatal(err)
	}
	machines := []topo.Machine{topo.Mesh(5, 4), topo.Torus(4, 3), topo.Mesh(3, 3, 2), topo.Torus(7), topo.Mesh(2), topo.Mesh(3), topo.Mesh(4), ft, oracle.RandomGraph(rng, 12, 8)}
	for _, m := range machines {
		for _, ring := range []bool{false, true} {
			for _, k := range []int{1, 2, 3, 5, 9} {
				w := make(curves.Weights, k)
				for i := range w {
					w[i] = float64(1+rng.IntN(8)) / float64(int(1)<<i)
				}
				n := m.N()
				start := make([]int32, n)
				for i, v := range rng.Perm(n) {
					start[i] = int32(v)
				}
				ls := newLineSearch(context.Background(), m, w, ring, start, 1)
				ls.record = true
				f0 := objectiveOf(t, m, ls.ord, w, ring)
				if math.Abs(ls.cost-f0) > 1e-9*(1+f0) {
					t.Fatalf("%s ring=%v K=%d: exactCost %g, Objective %g", m.Spec(), ring, k, ls.cost, f0)
				}
				orig := slices.Clone(ls.ord)
				for it := 0; it < 60 && n >= 2; it++ {
					before := objectiveOf(t, m, ls.ord, w, ring)
					var dl float64
					var what string
					switch kind := rng.IntN(3); {
					case kind == 0:
						a, b := rng.IntN(n), rng.IntN(n)
						if a == b {
							continue
						}
						ls.setPos = append(ls.setPos[:0], a, b)
						ls.setNode = append(ls.setNode[:0], ls.ord[b], ls.ord[a])
						dl, _ = ls.deltaSet(ls.setPos, ls.setNode)
						ls.applySwap(a, b)
						what = "swap"
					case kind == 1:
						lo := rng.IntN(n - 1)
						hi := lo + 1 + rng.IntN(n-lo-1)
						dl, _ = ls.deltaReverse(lo, hi)
						ls.applyReverse(lo, hi)
						what = "reverse"
					default:
						lo := rng.IntN(n - 1)
						hi := lo + 1 + rng.IntN(n-lo-1)
						r := 1 + rng.IntN(hi-lo)
						l := hi - lo + 1
						ls.setPos, ls.setNode = ls.setPos[:0], ls.setNode[:0]
						for i := 0; i < l; i++ {
							ls.setPos = append(ls.setPos, lo+i)
							ls.setNode = append(ls.setNode, ls.ord[lo+(i+r)%l])
						}
						dl, _ = ls.deltaSet(ls.setPos, ls.setNode)
						if dr, _ := ls.deltaRotate(lo, hi, r); math.Abs(dr-dl) > 1e-9*(1+math.Abs(dl)) {
							t.Fatalf("%s ring=%v K=%d: deltaRotate %g, deltaSet %g", m.Spec(), ring, k, dr, dl)
						}
						if dg, _ := ls.deltaRange(lo, hi, ls.setNode); math.Abs(dg-dl) > 1e-9*(1+math.Abs(dl)) {
							t.Fatalf("%s ring=%v K=%d: deltaRange %g, deltaSet %g", m.Spec(), ring, k, dg, dl)
						}
						ls.applyRotate(lo, hi, r)
						what = "rotate"
					}
					after := objectiveOf(t, m, ls.ord, w, ring)
					if math.Abs(after-before-dl) > 1e-9*(1+before) {
						t.Fatalf("%s ring=%v K=%d %s: delta %g, recomputed %g", m.Spec(), ring, k, what, dl, after-before)
					}
					for v, p := range ls.pos {
						if ls.ord[p] != int32(v) {
							t.Fatalf("pos out of sync after %s", what)
						}
					}
				}
				ls.undo()
				if !slices.Equal(ls.ord, orig) {
					t.Fatalf("%s ring=%v K=%d: undo did not restore the ordering", m.Spec(), ring, k)
				}
			}
		}
	}
}

// The line search never makes F worse, keeps a permutation, reports its F exactly,
// and is deterministic for a seed.
func TestLineSearchRun(t *testing.T) {
	for _, ring := range []bool{false, true} {
		m := topo.Mesh(12, 10)
		w := curves.Weights{1, 0.5, 0.25}
		start := toInt32(curves.RowMajor(m.N()))
		f0 := objectiveOf(t, m, start, w, ring)
		var got [][]int32
		for rep := 0; rep < 2; rep++ {
			ls := newLineSearch(context.Background(), m, w, ring, slices.Clone(start), 3)
			ls.run(400)
			f := objectiveOf(t, m, ls.ord, w, ring)
			if math.Abs(f-ls.cost) > 1e-6*(1+f) || f > f0 {
				t.Fatalf("ring=%v: F %g, tracked %g, start %g", ring, f, ls.cost, f0)
			}
			if err := curves.Order(ls.order()).Validate(m.N()); err != nil {
				t.Fatal(err)
			}
			got = append(got, ls.ord)
		}
		if !slices.Equal(got[0], got[1]) {
			t.Errorf("ring=%v: not deterministic", ring)
		}
	}
	// w = (1) on a mesh: a Hamiltonian path (F = n-1) is found from row-major order.
	m := topo.Mesh(20, 15)
	ls := newLineSearch(context.Background(), m, curves.Weights{1}, false, toInt32(curves.RowMajor(m.N())), 1)
	ls.run(3000)
	if f := objectiveOf(t, m, ls.ord, curves.Weights{1}, false); f != float64(m.N()-1) {
		t.Errorf("mesh 20x15, w = (1): F %g, want %d", f, m.N()-1)
	}
}

// deltaRange is deltaSet for the contiguous ranks lo..hi (nodes[i] goes to rank
// lo+i): membership is a range check.
func (s *lineSearch) deltaRange(lo, hi int, nodes []int32) (float64, float64) {
	var delta, mag float64
	for p := lo; p <= hi; p++ {
		a0, a1 := s.ord[p], nodes[p-lo]
		for _, e := range s.partners(p) {
			q := int(e.q)
			b0, b1 := s.ord[q], s.ord[q]
			if q >= lo && q <= hi {
				if q < p {
					continue // counted from q
				}
				b1 = nodes[q-lo]
			}
			if a0 == a1 && b0 == b1 {
				continue
			}
			d0, d1 := s.dist(a0, b0), s.dist(a1, b1)
			if d0 != d1 {
				wt := s.w[e.t-1]
				delta += wt * float64(d1-d0)
				mag += wt * float64(d1+d0)
			}
		}
	}
	return delta, mag
}
