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
		pts, k := dupCase(r, c, pts)
		n := len(pts)
		if n < 1 {
			continue
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

// TestCornersShareSetMatchesDefinition checks cornersShareSet on random free sets
// (half of them a dense cluster and a sparse scatter, so that far centers share
// their k nearest; some points coinciding): for random rectangles of MM's centers,
// whenever it says the four corners share the k nearest of the first corner, every
// center of the rectangle must have those k nearest by (distance, index), computed
// from the distances; and whenever sharesBelow says so, every center of the
// rectangle must have the k nearest of a center before it in position order.
func TestCornersShareSetMatchesDefinition(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 41))
	cases := 1500
	if testing.Short() {
		cases = 500
	}
	var rects, shown, inner, below int
	for c := range cases {
		var pts [][]int
		if c%2 == 0 {
			pts, _, _ = randomPlaneSet(r, 20, 0.9)
		} else {
			W, H := 4+r.IntN(20), 4+r.IntN(20)
			cw, ch := 1+r.IntN(W/2), 1+r.IntN(H/2)
			for x := range W {
				for y := range H {
					if x < cw && y < ch && r.IntN(4) != 0 || r.IntN(12) == 0 {
						pts = append(pts, []int{x, y})
					}
				}
			}
		}
		pts, k := dupCase(r, c, pts)
		n := len(pts)
		if n < 1 {
			continue
		}
		g, x0, y0 := testGridScan(pts, k)
		nx, ny := len(g.xs), len(g.ys)
		thrs, belows, withins := make([]int32, nx*ny), make([]int32, nx*ny), make([]int32, nx*ny)
		near := make([][]int, nx*ny)
		dist := make([]int, n)
		for xi := range nx {
			for yi := range ny {
				thr, below, within := g.radiusCounts(xi, yi, r.IntN(g.W+g.H))
				t := xi*ny + yi
				thrs[t], belows[t], withins[t] = int32(thr), int32(below), int32(within)
				for i, p := range pts {
					dist[i] = absInt(p[0]-x0-g.xs[xi]) + absInt(p[1]-y0-g.ys[yi])
				}
				near[t] = nearestByIndex(dist, k)
			}
		}
		for i := range 24 {
			xa, ya := r.IntN(nx), r.IntN(ny)
			xb, yb := xa+r.IntN(min(nx-xa, 9)), ya+r.IntN(min(ny-ya, 9))
			switch i % 3 { // also rectangles two columns or two rows wide
			case 1:
				xb = min(xa+1, nx-1)
			case 2:
				yb = min(ya+1, ny-1)
			}
			rects++
			if g.sharesBelow(xa, ya, xb, yb, thrs, belows, withins) {
				// every center of the rectangle has an earlier center's k nearest
				for xi := xa; xi <= xb; xi++ {
					for yi := ya; yi <= yb; yi++ {
						pos := xi*ny + yi
						if !slices.ContainsFunc(near[:pos], func(e []int) bool { return slices.Equal(e, near[pos]) }) {
							t.Fatalf("case %d (n = %d, k = %d): columns %d..%d, rows %d..%d shown to share the k nearest of the center below, center (%d, %d) has no earlier center's", c, n, k, xa, xb, ya, yb, g.xs[xi], g.ys[yi])
						}
					}
				}
				below++
			}
			if !g.cornersShareSet(xa, ya, xb, yb, thrs, belows, withins) {
				continue
			}
			shown++
			if xb > xa+1 || yb > ya+1 {
				inner++ // with centers besides the corners
			}
			for xi := xa; xi <= xb; xi++ {
				for yi := ya; yi <= yb; yi++ {
					if !slices.Equal(near[xi*ny+yi], near[xa*ny+ya]) {
						t.Fatalf("case %d (n = %d, k = %d): corners of columns %d..%d, rows %d..%d shown to share the k nearest, center (%d, %d) does not", c, n, k, xa, xb, ya, yb, g.xs[xi], g.ys[yi])
					}
				}
			}
		}
	}
	t.Logf("%d rectangles, %d shown to share the k nearest, %d of them with centers besides the corners; %d shown to share the k nearest of the center below", rects, shown, inner, below)
	if inner == 0 || shown == rects || below == 0 {
		t.Fatalf("%d of %d rectangles shown: the cases do not exercise both answers", shown, rects)
	}
}

// dupCase prepares case c of the dup tests from the points pts in (x, y) order:
// every fourth case repeats some points (coinciding points, still in order), and k
// runs from 1 to n, every third case most of the points, where many centers share
// their k nearest. k is 0 when pts is empty.
func dupCase(r *rand.Rand, c int, pts [][]int) ([][]int, int) {
	if c%4 == 1 && len(pts) > 0 {
		for range 1 + r.IntN(len(pts)) {
			p := pts[r.IntN(len(pts))]
			pts = append(pts, []int{p[0], p[1]})
		}
		slices.SortStableFunc(pts, func(a, b []int) int { return slices.Compare(a, b) })
	}
	n := len(pts)
	if n < 1 {
		return pts, 0
	}
	k := 1 + r.IntN(n)
	if c%3 == 0 {
		k = n - r.IntN(min(n, 4))
	}
	return pts, k
}
