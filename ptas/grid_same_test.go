package ptas

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestTakesKnownMatchesDefinition checks takesKnown on random free sets (distinct
// points in (x, y) order, k from 1 to n): for a random best center and every center,
// its answer must be whether the two centers' k nearest by (distance, index) are
// the same points (both conditions are necessary as well as sufficient), and
// knownSet.in must tell Q's points.
func TestTakesKnownMatchesDefinition(t *testing.T) {
	r := rand.New(rand.NewPCG(32, 43))
	cases := 1500
	if testing.Short() {
		cases = 500
	}
	var pairs, equal int
	for c := range cases {
		pts, _, _ := randomPlaneSet(r, 20, 0.9)
		n := len(pts)
		if n < 1 {
			continue
		}
		k := 1 + r.IntN(n)
		if c%3 == 0 {
			k = n - r.IntN(min(n, 4)) // most of the points: many centers share them
		}
		g, x0, y0 := testGridScan(pts, k)
		nearest := func(cx, cy int) []int {
			dist := make([]int, n)
			for i, p := range pts {
				dist[i] = absInt(p[0]-x0-cx) + absInt(p[1]-y0-cy)
			}
			return nearestByIndex(dist, k)
		}
		bxi, byi := r.IntN(len(g.xs)), r.IntN(len(g.ys))
		bthr, bbelow := g.radiusBelow(bxi, byi, 0)
		var q knownSet
		g.setKnown(&q, 0, g.xs[bxi], g.ys[byi], bthr, bbelow)
		want := nearest(g.xs[bxi], g.ys[byi])
		for i := range pts {
			if in := slices.Contains(want, i); q.in(pts[i][0]-x0, pts[i][1]-y0) != in {
				t.Fatalf("case %d, best (%d, %d): point %v in Q %v, want %v", c, g.xs[bxi], g.ys[byi], pts[i], !in, in)
			}
		}
		for xi, cx := range g.xs {
			for yi, cy := range g.ys {
				thr, _ := g.radiusBelow(xi, yi, 0)
				same := slices.Equal(nearest(cx, cy), want)
				got := g.takesKnown(&q, cx, cy, thr)
				if got != same {
					t.Fatalf("case %d (n = %d, k = %d), best (%d, %d), center (%d, %d): takesKnown %v, same k nearest %v", c, n, k, g.xs[bxi], g.ys[byi], cx, cy, got, same)
				}
				pairs++
				if same {
					equal++
				}
			}
		}
	}
	t.Logf("%d center pairs, %d with the same k nearest", pairs, equal)
}
