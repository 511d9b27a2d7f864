package ilp

import (
	"math/rand/v2"
	"testing"

	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/internal/oracle"
	"github.com/procalloc/procalloc/topo"
)

func mustGrid(t *testing.T, spec string) *topo.Grid {
	g, err := topo.ParseSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// Symmetry canonicalization keeps F and satisfies the symmetry-breaking constraints.
func TestSymmetryCanonicalization(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	machines := []topo.Machine{topo.Mesh(4, 3), topo.Torus(4, 4), topo.Mesh(3, 3, 2), topo.Torus(5),
		mustGrid(t, "mesh:4x4x3:wrap=z"), oracle.RandomGraph(rng, 9, 6)}
	w := curves.Weights{1, 0.5}
	for _, m := range machines {
		for _, ring := range []bool{false, true} {
			s := OrderingSymmetry(m, ring)
			n := m.N()
			for c := 0; c < 30; c++ {
				p := rng.Perm(n)
				cp := s.Canon(p)
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
