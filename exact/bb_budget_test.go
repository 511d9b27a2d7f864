package exact

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/procalloc/procalloc/geom"
)

// TestSubsetBudgetBoundsBrute stops the branch and bound after 1, 2, 4, ... nodes
// (MaxNodes also cuts the greedy incumbent short, so the search starts from a poor
// one) and checks every answer against brute force: the reported Bound never exceeds
// the optimum, Total is the recomputed total of Indices, and a finished search
// (Optimal) found the optimum. TestSubsetMatchesBrute alone cannot see an invalid
// bound: on its small inputs the greedy incumbent is already optimal.
func TestSubsetBudgetBoundsBrute(t *testing.T) {
	r := rand.New(rand.NewPCG(57, 58))
	trials := 300
	if testing.Short() {
		trials = 80
	}
	for trial := range trials {
		n := 6 + r.IntN(9)
		k := 2 + r.IntN(n-2)
		d := 1 + r.IntN(3)
		span := 2 + r.IntN(12)
		pts := make([]geom.PointF, n)
		ip := make([]geom.Point, n)
		for i := range pts {
			pts[i], ip[i] = make(geom.PointF, d), make(geom.Point, d)
			for j := range d {
				ip[i][j] = r.IntN(span)
				pts[i][j] = float64(ip[i][j])
			}
		}
		want := float64(bruteL1(ip, k))
		for budget := int64(1); ; budget *= 2 {
			res, err := Subset(context.Background(), pts, k, SubsetOptions{MaxNodes: budget})
			if err != nil {
				t.Fatal(err)
			}
			checkIndices(t, res.Indices, n, k)
			if res.Bound > want || res.Total < want || geom.PairwiseL1Subset(pts, res.Indices) != res.Total ||
				res.Optimal && (res.Total != want || res.Bound != want) {
				t.Fatalf("trial %d, points %v, k %d, MaxNodes %d: %+v; brute force %g", trial, ip, k, budget, res, want)
			}
			if res.Optimal {
				break
			}
		}
	}
}
