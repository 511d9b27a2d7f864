package ptas

// sameAsPrevOn turns on gridScan's shortcut for a center whose k nearest are those
// of the center just before it in position order (sameAsPrev); sameAsLeftOn also
// compares it with the center on the same row in the column before (MM: the
// previous column's; Gen-Alg: the point there, if any). Any earlier center would
// do: its total is the same, and the earlier one wins the tie. On issue 32's
// workload at 65,536 nodes (mm, every 5th recorded search replayed, CPU of the
// search) the first cut the scan's column and row reads from 526 M to 346 M and
// its CPU from 4.56 to 3.88 s, the second to 250 M and 3.48 s.
var sameAsPrevOn, sameAsLeftOn = true, true

// sameAsPrev reports whether the centers at offsets (cx, cy) and (px, py), of radii
// thr and thrP, with below and belowP points closer than their radii and within and
// withinP points within them, have the same k nearest by (distance, index). It
// checks that the two balls of radius thr - 1 hold the same points, and the two
// balls of radius thr too (each intersection counted in O(1) as a rectangle in
// rotated coordinates): then the shells hold the same points and both centers take
// the same k - below of them, the lowest-index ones. The converse does not hold (a
// point may be inside one ball and on the other's shell), so false means only "not
// shown": on issue 32's workload at 65,536 nodes (mm, sampled decisions, every
// 32nd column of centers) 49% of the centers have the k nearest of the center
// before them, and 98% of those (40% of the scan's reads) are shown by this test.
func (g *gridScan) sameAsPrev(cx, cy, thr, below, within, px, py, thrP, belowP, withinP int) bool {
	if below != belowP || within != withinP {
		return false
	}
	if g.rot.both(cx, cy, thr, px, py, thrP) != within {
		return false
	}
	return below == 0 || g.rot.both(cx, cy, thr-1, px, py, thrP-1) == below
}

// both counts the points within L1 distance r1 of (x1, y1) and r2 of (x2, y2)
// (offsets; r1, r2 >= 0): the intersection of two squares in rotated coordinates.
func (r *rotBalls) both(x1, y1, r1, x2, y2, r2 int) int {
	s := r.u + 1
	a1, a2, b1, b2 := x1+y1, x2+y2, x1-y1+r.h-1, x2-y2+r.h-1
	a0, a3 := max(a1-r1, a2-r2, 0), min(a1+r1, a2+r2, r.u-1)+1
	b0, b3 := max(b1-r1, b2-r2, 0), min(b1+r1, b2+r2, r.u-1)+1
	if a0 >= a3 || b0 >= b3 {
		return 0
	}
	return int(r.pre[a3*s+b3] - r.pre[a0*s+b3] - r.pre[a3*s+b0] + r.pre[a0*s+b0])
}

// sharesBelow reports whether every MM center of columns xa..xb and rows ya..yb
// (indices) is shown to have the k nearest of the center below the rectangle's
// first, (xa, ya - 1), which comes before all of them in position order
// (cornersShareSet over the rectangle grown by that row); false when ya is 0.
func (g *gridScan) sharesBelow(xa, ya, xb, yb int, thrs, belows, withins []int32) bool {
	return ya > 0 && g.cornersShareSet(xa, ya-1, xb, yb, thrs, belows, withins)
}

// cornersShareSet reports whether MM's centers at the four corners of columns
// xa..xb and rows ya..yb (indices; thrs, belows and withins per position
// xi * ny + yi) are shown by sameAsPrev to have the k nearest of the corner (xa, ya);
// then every center of the rectangle has them. For p among them and q not, the
// order of p before q by (distance, index) at a center (x, y) depends on
// f(x, y) = d_p - d_q = (|px - x| - |qx - x|) + (|py - y| - |qy - y|), a sum of a
// monotone function of x and one of y, so f over the rectangle is at most its
// largest value at a corner: p comes first at every center of the rectangle when
// it does at all four corners (f < 0, or f <= 0 if p's index is the lower). So
// the rectangle's centers all take the same k points. A rectangle of one column or
// one row has two corners.
func (g *gridScan) cornersShareSet(xa, ya, xb, yb int, thrs, belows, withins []int32) bool {
	ny := len(g.ys)
	r := xa*ny + ya
	same := func(xi, yi int) bool {
		t := xi*ny + yi
		return g.sameAsPrev(g.xs[xi], g.ys[yi], int(thrs[t]), int(belows[t]), int(withins[t]),
			g.xs[xa], g.ys[ya], int(thrs[r]), int(belows[r]), int(withins[r]))
	}
	return same(xb, yb) && (xa == xb || same(xb, ya)) && (ya == yb || same(xa, yb))
}
