package ptas

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSameAsPrevMatchesDefinition checks sameAsPrev on random free sets (points in
// (x, y) order, some coinciding, k from 1 to n): for every center and the one before
// it in MM's order, and for a random other center, its answer must be whether the
// two centers' points closer than their radii are the same and their points within
// them too (its exact condition, computed from the distances), and whenever it says
// so the two k nearest by (distance, index) must be the same points.
func TestSameAsPrevMatchesDefinition(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 7))
	cases := 1500
	if testing.Short() {
		cases = 500
	}
	var pairs, shown, equal int
	for c := range cases {
		pts, _, _ := randomPlaneSet(r, 20, 0.9)
		if c%4 == 1 && len(pts) > 0 { // coinciding points, still in (x, y) order
			for range 1 + r.IntN(len(pts)) {
				p := pts[r.IntN(len(pts))]
				pts = append(pts, []int{p[0], p[1]})
			}
			slices.SortStableFunc(pts, func(a, b []int) int { return slices.Compare(a, b) })
		}
		n := len(pts)
		if n < 1 {
			continue
		}
		k := 1 + r.IntN(n)
		if c%3 == 0 {
			k = n - r.IntN(min(n, 4)) // most of the points: many centers share them
		}
		g, x0, y0 := testGridScan(pts, k)
		type center struct {
			cx, cy, thr, below, within int
			in, on                     []bool // closer than thr, within thr
			near                       []int
		}
		at := func(xi, yi int) center {
			cx, cy := g.xs[xi], g.ys[yi]
			thr, below, within := g.radiusCounts(xi, yi, r.IntN(g.W+g.H))
			ce := center{cx: cx, cy: cy, thr: thr, below: below, within: within, in: make([]bool, n), on: make([]bool, n)}
			dist := make([]int, n)
			for i, p := range pts {
				dist[i] = absInt(p[0]-x0-cx) + absInt(p[1]-y0-cy)
				ce.in[i], ce.on[i] = dist[i] < thr, dist[i] <= thr
			}
			ce.near = nearestByIndex(dist, k)
			return ce
		}
		check := func(a, b center) {
			got := g.sameAsPrev(a.cx, a.cy, a.thr, a.below, a.within, b.cx, b.cy, b.thr, b.below, b.within)
			want := slices.Equal(a.in, b.in) && slices.Equal(a.on, b.on)
			same := slices.Equal(a.near, b.near)
			if got != want || got && !same {
				t.Fatalf("case %d (n = %d, k = %d), centers (%d, %d) and (%d, %d): sameAsPrev %v, same balls %v, same k nearest %v", c, n, k, a.cx, a.cy, b.cx, b.cy, got, want, same)
			}
			pairs++
			if got {
				shown++
			}
			if same {
				equal++
			}
		}
		var prev *center
		for xi := range g.xs {
			for yi := range g.ys {
				cur := at(xi, yi)
				if prev != nil {
					check(cur, *prev)
				}
				check(cur, at(r.IntN(len(g.xs)), r.IntN(len(g.ys))))
				prev = &cur
			}
		}
	}
	t.Logf("%d center pairs, %d with the same k nearest, %d of them shown", pairs, equal, shown)
	if shown == 0 || shown == pairs {
		t.Fatalf("%d of %d pairs shown: the cases do not exercise both answers", shown, pairs)
	}
}
