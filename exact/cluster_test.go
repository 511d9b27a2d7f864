package exact

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/procalloc/procalloc/geom"
	"github.com/procalloc/procalloc/internal/oracle"
)

// Fig. 2 of Bender et al. (2005): optimal totals of k = 2..21 points of Z^2
// (numerators of the average distances shown).
var fig2 = []int64{1, 4, 8, 16, 25, 38, 54, 72, 96, 124, 152, 188, 227, 272, 318, 374, 433, 496, 563, 632}

func TestClustersFig2(t *testing.T) {
	kmax := 21
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Second)
	defer cancel()
	start := time.Now()
	all, err := Clusters(ctx, 2, kmax)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range all[1:] {
		if !c.Optimal {
			t.Fatalf("k %d not solved (bound %d, total %d) after %v", c.K, c.Bound, c.Total, time.Since(start))
		}
		if want := fig2[c.K-2]; c.Total != want {
			t.Errorf("k %d: total %d, Fig. 2 says %d", c.K, c.Total, want)
		}
		if got := int64(geom.PairwiseL1(c.Points)); got != c.Total || len(c.Points) != c.K {
			t.Errorf("k %d: points total %d (%d points)", c.K, got, len(c.Points))
		}
	}
	if len(all) != kmax {
		t.Fatalf("only %d sizes", len(all))
	}
	t.Logf("k = 2..%d in %v", kmax, time.Since(start))
}

// Small clusters against exhaustive search over a lattice box.
func TestClustersMatchBrute(t *testing.T) {
	for dim := 1; dim <= 3; dim++ {
		kmax := map[int]int{1: 8, 2: 6, 3: 5}[dim]
		all, err := Clusters(context.Background(), dim, kmax)
		if err != nil {
			t.Fatal(err)
		}
		box := latticeBox(dim, map[int]int{1: 4, 2: 2, 3: 1}[dim])
		for _, c := range all {
			if c.K < 2 {
				continue
			}
			want := bruteSubset(len(box), c.K, func(idx []int) int64 { return int64(geom.PairwiseL1Subset(box, idx)) })
			if c.Total != want || !c.Optimal {
				t.Errorf("dim %d k %d: %d (optimal %v), brute %d", dim, c.K, c.Total, c.Optimal, want)
			}
		}
	}
}

// RoundCluster is a valid cluster of the requested size, never below its bound, and
// optimal where the tabulated optimum says it is.
func TestRoundCluster(t *testing.T) {
	for _, dim := range []int{2, 3} {
		for k := 1; k <= 60; k++ {
			c, err := RoundCluster(dim, k)
			if err != nil {
				t.Fatal(err)
			}
			seen := map[string]bool{}
			for _, p := range c.Points {
				seen[fmt.Sprint(p)] = true
			}
			if len(c.Points) != k || len(seen) != k || c.Total != int64(oracle.PairwiseL1Brute(c.Points)) || c.Bound > c.Total {
				t.Fatalf("dim %d k %d: %d points (%d distinct), total %d, bound %d", dim, k, len(c.Points), len(seen), c.Total, c.Bound)
			}
		}
	}
	if c, _ := RoundCluster(2, 5); !c.Optimal || c.Total != 16 {
		t.Fatalf("k = 5: %+v, want the optimal plus shape (16)", c)
	}
}
