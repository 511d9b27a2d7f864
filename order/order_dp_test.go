package order

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/internal/oracle"
	"github.com/procalloc/procalloc/topo"
)

// orderBrute returns the minimum F over all orderings (n! of them), the oracle for
// OrderDP on tiny instances.
func orderBrute(t *testing.T, m topo.Machine, w curves.Weights, ring bool) float64 {
	t.Helper()
	return oracle.MinOverPermutations(m.N(), func(p []int) float64 { return oracle.ObjectiveBrute(m, p, w, ring) })
}

func TestOrderDPMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	weights := []curves.Weights{{1}, {1, 0.5}, {1, 0.5, 0.25}, {3, 1, 1}, {1, 0, 2}}
	cases := 60
	if testing.Short() {
		cases = 20
	}
	for c := 0; c < cases; c++ {
		n := 2 + rng.IntN(6) // up to 7 nodes: 5040 orderings
		g := oracle.RandomGraph(rng, n, rng.IntN(n+1))
		w := weights[rng.IntN(len(weights))]
		for _, ring := range []bool{false, true} {
			res, err := OrderDP(context.Background(), g, w, ring)
			if err != nil {
				t.Fatal(err)
			}
			want := orderBrute(t, g, w, ring)
			if err := res.Order.Validate(n); err != nil {
				t.Fatal(err)
			}
			if math.Abs(res.Objective-want) > 1e-9 {
				t.Fatalf("case %d n=%d w=%v ring=%v: DP F=%g (order %v), brute force %g", c, n, w, ring, res.Objective, res.Order, want)
			}
		}
	}
}

// Known optima: a Hamiltonian path gives F = n-1 with w = (1); a Hamiltonian cycle
// gives n for the ring; a star K_{1,m} has no Hamiltonian path for m >= 3.
func TestOrderDPKnownValues(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		spec string
		ring bool
		want float64
	}{
		{"mesh:4x4", false, 15}, {"torus:4x4", true, 16}, {"mesh:4x4", true, 16},
		{"mesh:3x3", true, 10}, // odd bipartite grid: no Hamiltonian cycle, one step of 2
		{"mesh:12", false, 11}, {"torus:12", true, 12}, {"mesh:12", true, 22},
	} {
		g, err := topo.ParseSpec(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		res, err := OrderDP(ctx, g, curves.Weights{1}, c.ring)
		if err != nil {
			t.Fatal(err)
		}
		if res.Objective != c.want {
			t.Errorf("%s ring=%v: F = %g, want %g (order %v)", c.spec, c.ring, res.Objective, c.want, res.Order)
		}
	}
	// Star with 4 leaves: every ordering has at least 2 steps of length 2: F = 4 + 2 = 6
	// for n = 5 (4 steps, at most 2 of them through the centre).
	star, _ := topo.NewGraphFromEdges(5, [][2]int{{0, 1}, {0, 2}, {0, 3}, {0, 4}})
	res, err := OrderDP(ctx, star, curves.Weights{1}, false)
	if err != nil {
		t.Fatal(err)
	}
	if res.Objective != 6 {
		t.Errorf("star: F = %g, want 6", res.Objective)
	}
}

func TestOrderDPErrors(t *testing.T) {
	ctx := context.Background()
	disc, _ := topo.NewGraphFromEdges(4, [][2]int{{0, 1}, {2, 3}})
	if _, err := OrderDP(ctx, disc, curves.Weights{1}, false); err == nil {
		t.Error("disconnected graph accepted")
	}
	if _, err := OrderDP(ctx, topo.Mesh(5, 5), curves.Weights{1}, false); err == nil {
		t.Error("25 nodes accepted")
	}
	if _, err := OrderDP(ctx, topo.Mesh(3), curves.Weights{-1}, false); err == nil {
		t.Error("negative weight accepted")
	}
	// K >= n: weights beyond the largest rank difference are unused, not an error.
	res, err := OrderDP(ctx, topo.Mesh(3), curves.Weights{1, 1, 1, 1, 1}, false)
	if err != nil || res.Objective != 1+1+2 {
		t.Errorf("K > n: %v, %v", res, err)
	}
	one, err := OrderDP(ctx, topo.Mesh(1), curves.Weights{1}, true)
	if err != nil || one.Objective != 0 {
		t.Errorf("single node: %v, %v", one, err)
	}
}

func BenchmarkOrderDPMesh4x4K3(b *testing.B) {
	g := topo.Mesh(4, 4)
	w := curves.Weights{1, 0.5, 0.25}
	for b.Loop() {
		if _, err := OrderDP(context.Background(), g, w, false); err != nil {
			b.Fatal(err)
		}
	}
}
