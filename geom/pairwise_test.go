package geom_test

// An external test: the oracle package imports geom.

import (
	"math/rand/v2"
	"testing"

	"github.com/procalloc/procalloc/geom"
	"github.com/procalloc/procalloc/internal/oracle"
)

func TestPairwiseL1MatchesBrute(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 2000; trial++ {
		k := r.IntN(30)
		d := 1 + r.IntN(4)
		span := 1 + r.IntN(1000)
		if trial%3 == 0 {
			span = 1 + r.IntN(4) // many ties: the counting-sort path
		}
		pts := make([]geom.Point, k)
		ptsF := make([]geom.PointF, k)
		for i := range pts {
			pts[i] = make(geom.Point, d)
			ptsF[i] = make(geom.PointF, d)
			for j := range pts[i] {
				pts[i][j] = r.IntN(span) - span/2
				ptsF[i][j] = float64(pts[i][j]) + 0.5*float64(r.IntN(2))
			}
		}
		if got, want := geom.PairwiseL1(pts), oracle.PairwiseL1Brute(pts); got != want {
			t.Fatalf("int: PairwiseL1 = %d, brute %d, points %v", got, want, pts)
		}
		if got, want := geom.PairwiseL1(ptsF), oracle.PairwiseL1Brute(ptsF); got != want {
			t.Fatalf("float: PairwiseL1 = %g, brute %g", got, want)
		}
	}
}
