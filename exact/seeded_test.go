package exact

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/procalloc/procalloc/geom"
)

// SubsetSeeded (MM+Inc incumbent, lattice bound on distinct lattice points) finds the
// brute-force optimum, on distinct lattice points (where the lattice bound applies)
// and on points with repeats (where it must not).
func TestSubsetSeededMatchesBrute(t *testing.T) {
	r := rand.New(rand.NewPCG(61, 62))
	for trial := 0; trial < 600; trial++ {
		n := 2 + r.IntN(11)
		k := 1 + r.IntN(n)
		d := 2 + r.IntN(2)
		distinct := trial%2 == 0
		seen := map[[3]int]bool{}
		ip := make([]geom.Point, 0, n)
		pts := make([]geom.PointF, 0, n)
		for len(ip) < n {
			var key [3]int
			p := make(geom.Point, d)
			for j := range p {
				p[j] = r.IntN(4)
				key[j] = p[j]
			}
			if distinct && seen[key] {
				continue
			}
			seen[key] = true
			ip = append(ip, p)
			q := make(geom.PointF, d)
			for j := range p {
				q[j] = float64(p[j])
			}
			pts = append(pts, q)
		}
		want := bruteL1(ip, k)
		res, err := SubsetSeeded(context.Background(), pts, k, SubsetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		checkIndices(t, res.Indices, n, k)
		if !res.Optimal || res.Total != float64(want) || geom.PairwiseL1Subset(pts, res.Indices) != res.Total {
			t.Fatalf("points %v k %d: %+v, brute %d", ip, k, res, want)
		}
	}
}

func TestDistinctLattice(t *testing.T) {
	for _, c := range []struct {
		pts  []geom.PointF
		d    int
		want bool
	}{
		{[]geom.PointF{{0, 0}, {1, 0}}, 2, true},
		{[]geom.PointF{{0, 0}, {0, 0}}, 0, false},             // repeated point
		{[]geom.PointF{{0, 0}, {0.5, 0}}, 0, false},           // not integral
		{[]geom.PointF{{0}, {1}}, 0, false},                   // 1D: no tabulated bound
		{[]geom.PointF{{0, 0, 0}, {0, 0, 1}}, 3, true},        // 3D
		{[]geom.PointF{{1e300, 0}, {0, 0}}, 0, false},         // beyond 2^53
		{[]geom.PointF{{0, 0, 0, 0}, {1, 0, 0, 0}}, 0, false}, // 4D
	} {
		d, ok := distinctLattice(c.pts)
		if ok != c.want || (ok && d != c.d) {
			t.Errorf("%v: got %d %v, want %d %v", c.pts, d, ok, c.d, c.want)
		}
	}
}
