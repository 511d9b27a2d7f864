package exact

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/procalloc/procalloc/geom"
)

// Subset with linear terms against exhaustive search, with and without the lattice
// size bound (which bounds the pairwise part only).
func TestSubsetLinearMatchesBrute(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for trial := 0; trial < 300; trial++ {
		n := 2 + r.IntN(10)
		k := 1 + r.IntN(n)
		seen := map[[2]int]bool{}
		var pts []geom.PointF
		for len(pts) < n {
			p := [2]int{r.IntN(5), r.IntN(5)}
			if !seen[p] {
				seen[p] = true
				pts = append(pts, geom.PointF{float64(p[0]), float64(p[1])})
			}
		}
		lin := make([]float64, n)
		for i := range lin {
			lin[i] = float64(r.IntN(21) - 10)
		}
		// bruteSubset needs nonnegative costs: shift by 1000.
		want := bruteSubset(n, k, func(idx []int) int64 {
			v := geom.PairwiseL1Subset(pts, idx)
			for _, i := range idx {
				v += lin[i]
			}
			return int64(v) + 1000
		}) - 1000
		opt := SubsetOptions{Linear: lin}
		if trial%2 == 0 {
			opt.SizeBound = func(m int) float64 { return LatticeBound(2, m) }
		}
		res, err := Subset(context.Background(), pts, k, opt)
		if err != nil {
			t.Fatal(err)
		}
		got := geom.PairwiseL1Subset(pts, res.Indices)
		for _, i := range res.Indices {
			got += lin[i]
		}
		if !res.Optimal || res.Total != float64(want) || got != res.Total {
			t.Fatalf("trial %d n %d k %d: %+v (recomputed %v), brute %d", trial, n, k, res, got, want)
		}
	}
}
