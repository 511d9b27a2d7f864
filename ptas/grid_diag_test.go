package ptas

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestDiagBoundBelowEveryCenter checks diagBound against the definition at every
// center of random free sets (k from 1 to n, so ties at thr are included): each
// axis's bound is at most the axis's total of the k nearest by (distance, index),
// for 1 to 40 groups and one gap per group. With no ring (take 0) and one gap per
// group the bound is exactly sum over gaps of f of the ball's marginal, checked
// against a count of the points for a random radius, which checks the diagonal
// tables in effect entry by entry: one wrong count or weight changes a gap's L.
// With coinciding points (every point twice) only that exact case applies (the
// bound needs distinct points).
func TestDiagBoundBelowEveryCenter(t *testing.T) {
	r := rand.New(rand.NewPCG(32, 41))
	cases, centers, exact := 1500, 0, 0
	if testing.Short() {
		cases = 500
	}
	var sumB, sumT float64
	for c := range cases {
		pts, _, _ := randomPlaneSet(r, 24, 0.9)
		distinct := c%5 != 4
		if !distinct {
			// Coinciding points: each point twice, still in (x, y) order.
			var dup [][]int
			for _, p := range pts {
				dup = append(dup, p, p)
			}
			pts = dup
		}
		n := len(pts)
		if n < 1 {
			continue
		}
		k := 1 + r.IntN(n)
		g, x0, y0 := testGridScan(pts, k)
		W, H := g.W, g.H
		var dx, dy diagCounts
		g.buildDiag(&dx, &dy)
		g.dgX, g.dgY = &dx, &dy
		dist := make([]int, n)
		for xi := range g.xs {
			for yi := range g.ys {
				cx, cy := g.xs[xi], g.ys[yi]
				for i, p := range pts {
					dist[i] = absInt(p[0]-x0-cx) + absInt(p[1]-y0-cy)
				}
				// The ball of a random radius rad, no ring, any k: exact.
				rad := r.IntN(W + H)
				K := 1 + r.IntN(2*n)
				var want [2]int64
				for axis := range 2 {
					lines := W
					if axis == 1 {
						lines = H
					}
					// The bound's gaps: beyond them L is 0 or the ball's count (k in use).
					c := []int{cx, cy}[axis]
					for v := max(c-rad-1, 0); v <= min(c+rad, lines-2); v++ {
						var L int64
						for _, p := range pts {
							if absInt(p[0]-x0-cx)+absInt(p[1]-y0-cy) <= rad && p[axis]-[]int{x0, y0}[axis] <= v {
								L++
							}
						}
						want[axis] += L * (int64(K) - L)
					}
				}
				gx := g.dgX.axisBound(cx, cy, rad+1, K, 0, K, W+H, r.IntN(2) == 0)
				gy := g.dgY.axisBound(cy, cx, rad+1, K, 0, K, W+H, r.IntN(2) == 0)
				if gx != want[0] || gy != want[1] {
					t.Fatalf("case %d (%dx%d, n = %d), center (%d, %d), ball of radius %d, k %d: one gap per group %d %d, want %d %d", c, W, H, n, cx, cy, rad, K, gx, gy, want[0], want[1])
				}
				exact++
				if !distinct {
					continue
				}
				thr, below := g.radiusBelow(xi, yi, 0)
				sel := nearestByIndex(dist, k)
				var tx, ty int64
				xsSel, ysSel := make([]int, 0, k), make([]int, 0, k)
				for _, i := range sel {
					xsSel, ysSel = append(xsSel, pts[i][0]), append(ysSel, pts[i][1])
				}
				slices.Sort(xsSel)
				slices.Sort(ysSel)
				for q := range k {
					tx += int64(xsSel[q]) * int64(2*q-k+1)
					ty += int64(ysSel[q]) * int64(2*q-k+1)
				}
				ring := 0
				for _, d := range dist {
					if d == thr {
						ring++
					}
				}
				for _, groups := range []int{1, 2, 3, 5, 8, 16, 40, W + H} {
					bx, by := g.diagLB(cx, cy, thr, below, groups)
					if bx > tx || by > ty {
						t.Fatalf("case %d (%dx%d, n = %d, k = %d), center (%d, %d), thr %d, %d groups: bound x %d y %d, totals %d %d",
							c, W, H, n, k, cx, cy, thr, groups, bx, by, tx, ty)
					}
					if groups == 8 {
						sumB += float64(bx + by)
						sumT += float64(tx + ty)
					}
				}
				centers++
			}
		}
	}
	t.Logf("%d centers checked, %d exact cases; 8 groups: bound %.1f%% of the totals", centers, exact, 100*sumB/sumT)
}
