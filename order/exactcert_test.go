package order

import (
	"context"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/qap"
	"github.com/procalloc/procalloc/topo"
)

// bigFlowQAP is a QAP of n facilities whose flows are base plus a small integer and
// whose distances are small integers: every assignment pays about the same base
// part, and the small parts decide. With base = 2^33 every objective is an integer
// below 2^52 (exact in float64) but a relative 1e-9 of it is a few thousand, far more
// than the small parts' differences; with base = 2^60 float64 cannot even hold them.
func bigFlowQAP(rng *rand.Rand, n int, base int64) (*qap.QAP, [][]int64) {
	q := &qap.QAP{N: n, A: make([]float64, n*n), B: make([]float64, n*n)}
	ai := make([][]int64, 2)
	ai[0], ai[1] = make([]int64, n*n), make([]int64, n*n)
	for i := range n {
		for j := range n {
			if i == j {
				continue
			}
			ai[0][i*n+j] = base + int64(rng.IntN(21))
			ai[1][i*n+j] = int64(1 + rng.IntN(9))
			q.A[i*n+j], q.B[i*n+j] = float64(ai[0][i*n+j]), float64(ai[1][i*n+j])
		}
	}
	return q, ai
}

// exactObjective is sum A[i][j] B[p(i)][p(j)] in big integers.
func exactObjective(n int, ai [][]int64, p []int) *big.Int {
	f := new(big.Int)
	for i := range n {
		for j := range n {
			t := new(big.Int).SetInt64(ai[0][i*n+j])
			f.Add(f, t.Mul(t, big.NewInt(ai[1][p[i]*n+p[j]])))
		}
	}
	return f
}

// TestCertificateExactOnLargeIntegers: optimal is claimed only when it is true, checked
// against every permutation in exact arithmetic. On integer data below 2^52 (exact in
// float64) the bound must meet F exactly, not within a relative 1e-9 (which
// certified assignments a few hundred above the optimum); on integer data beyond
// float64's exact range no result is optimal (unproven, with a note), and the bound
// is never printed above F.
func TestCertificateExactOnLargeIntegers(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(2026, 1207))
	for c := range 8 {
		n := 6 + c%2
		base := int64(1) << 33
		if c >= 6 {
			base = 1 << 60
		}
		q, ai := bigFlowQAP(rng, n, base)
		var opt *big.Int
		p := make([]int, n)
		for i := range p {
			p[i] = i
		}
		for {
			if f := exactObjective(n, ai, p); opt == nil || f.Cmp(opt) < 0 {
				opt = f
			}
			if !nextPermutation(p) {
				break
			}
		}
		for _, m := range []Method{MethodLocal, MethodBB, MethodAuto} {
			res, err := SolveQAP(ctx, q, nil, Options{Method: m})
			if err != nil {
				t.Fatal(err)
			}
			got := exactObjective(n, ai, res.Assignment)
			bound, _ := new(big.Float).SetFloat64(res.Bound).Int(nil)
			if res.Bound > res.Objective {
				t.Errorf("case %d %s: bound %g above F %g", c, m, res.Bound, res.Objective)
			}
			if base < 1<<52 {
				if bound.Cmp(opt) > 0 {
					t.Errorf("case %d %s: bound %v above the optimum %v", c, m, bound, opt)
				}
				if res.Status == qap.StatusOptimal && got.Cmp(opt) != 0 {
					t.Errorf("case %d %s: status optimal, F = %v (reported %.0f, bound %.0f), but the optimum is %v",
						c, m, got, res.Objective, res.Bound, opt)
				}
				if m != MethodLocal && res.Status != qap.StatusOptimal {
					t.Errorf("case %d %s: status %s on an instance the branch and bound proves", c, m, res.Status)
				}
			} else if res.Status == qap.StatusOptimal {
				t.Errorf("case %d %s: status optimal on data float64 rounds (F = %v, optimum %v)", c, m, got, opt)
			}
		}
	}
}

// An ordering whose weights are integers beyond float64's exact range (list:2^60,1)
// is not certified by any dense method: the second weight's hop sums vanish in the
// rounding of F.
func TestOrderingRoundedWeightsUnproven(t *testing.T) {
	ctx := context.Background()
	w := curves.Weights{math.Ldexp(1, 60), 1}
	for _, m := range []Method{MethodDP, MethodBB, MethodLocal} {
		res, err := SolveOrdering(ctx, topo.Mesh(3, 4), w, OrderOptions{Options: Options{Method: m}})
		if err != nil {
			t.Fatal(err)
		}
		if res.Status == qap.StatusOptimal || res.Bound > res.Objective {
			t.Errorf("%s: status %s, F %g, bound %g on weights float64 rounds", m, res.Status, res.Objective, res.Bound)
		}
	}
	// The same weights scaled into float64's exact range are certified.
	res, err := SolveOrdering(ctx, topo.Mesh(3, 4), curves.Weights{1 << 20, 1}, OrderOptions{Options: Options{Method: MethodDP}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != qap.StatusOptimal {
		t.Errorf("list:2^20,1 by the DP: status %s", res.Status)
	}
}

// Every F of dyadic weights on hop distances is a multiple of the finest weight, and
// help and docs say the bound is rounded up to such a multiple: the structural
// (grid-window) bounds were printed unrounded (83.1381 for 83.25 on mesh:6x6).
func TestStructuralBoundRoundedToGranularity(t *testing.T) {
	ctx := context.Background()
	w := curves.Weights{1, 0.5, 0.25}
	ms := []topo.Machine{topo.Mesh(6, 6), topo.Mesh(5, 7), topo.Mesh(4, 4, 3)}
	if !testing.Short() {
		ms = append(ms, topo.Mesh(17, 16)) // the scalable path (above 256 nodes)
	}
	for _, m := range ms {
		res, err := SolveOrdering(ctx, m, w, OrderOptions{Options: Options{Method: MethodLocal}})
		if err != nil {
			t.Fatal(err)
		}
		if b := res.Bound / 0.25; b != math.Trunc(b) || res.Bound > res.Objective {
			t.Errorf("%s: bound %v (%s) is not a multiple of 0.25 at most F = %v", m.Spec(), res.Bound, res.BoundSource, res.Objective)
		}
	}
}
