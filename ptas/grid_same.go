package ptas

import "sort"

// knownSet describes the k nearest Q of gridScan's best center so far, for
// takesKnown: Q's bounding box in rotated coordinates (x + y, x - y), and Q itself
// as the points closer than thr to the center (cx, cy) plus those at thr up to the
// last shell point taken, (xm, ym) in (x, y) order.
type knownSet struct {
	pos                    int // the position Q was found for (-1: none yet)
	aMin, aMax, bMin, bMax int
	cx, cy, thr, xm, ym    int
}

// setKnown records in q the k nearest of the center at offsets (cx, cy) of radius
// thr with below points closer than thr, at position pos: per column of its ball,
// the lowest and highest of its points there (points closer than thr, found by
// binary search on the column's prefix counts, and the shell points taken, lower
// cell first and leftmost columns first, as score takes them). Points must be
// distinct.
func (g *gridScan) setKnown(q *knownSet, pos, cx, cy, thr, below int) {
	H, s := g.H, g.H+1
	q.pos, q.cx, q.cy, q.thr = pos, cx, cy, thr
	q.aMin, q.aMax, q.bMin, q.bMax = 1<<62, -1<<62, 1<<62, -1<<62
	take := int32(g.k - below)
	xlo, xhi := int(g.firstCol[max(cx-thr, 0)]), int(g.lastCol[min(cx+thr, g.W-1)])
	for xi := xlo; xi <= xhi; xi++ {
		x := g.xs[xi]
		rem := thr - absInt(x-cx)
		p := g.colPre[xi*s : (xi+1)*s]
		yMin, yMax := H, -1
		if y := cy - rem; y >= 0 && take > 0 && p[y+1] > p[y] {
			yMin, yMax = y, y
			if take--; take == 0 {
				q.xm, q.ym = x, y
			}
		}
		if lo, hi := max(cy-rem+1, 0), min(cy+rem-1, H-1); rem > 0 && lo <= hi && p[hi+1] > p[lo] {
			// The lowest point in rows lo..hi is in row t - 1 for the least t with
			// p[t] > p[lo]; the highest in row t - 1 for the least t with p[t] = p[hi+1].
			t := lo + 1 + sort.Search(hi-lo+1, func(i int) bool { return p[lo+1+i] > p[lo] })
			yMin = min(yMin, t-1)
			t = lo + 1 + sort.Search(hi-lo+1, func(i int) bool { return p[lo+1+i] >= p[hi+1] })
			yMax = max(yMax, t-1)
		}
		if y := cy + rem; rem > 0 && y < H && take > 0 && p[y+1] > p[y] {
			yMin, yMax = min(yMin, y), max(yMax, y)
			if take--; take == 0 {
				q.xm, q.ym = x, y
			}
		}
		if yMax < 0 {
			continue // none of Q here
		}
		q.aMin, q.aMax = min(q.aMin, x+yMin), max(q.aMax, x+yMax)
		q.bMin, q.bMax = min(q.bMin, x-yMax), max(q.bMax, x-yMin)
	}
}

// in reports whether the point at offsets (x, y) is in Q.
func (q *knownSet) in(x, y int) bool {
	d := absInt(x-q.cx) + absInt(y-q.cy)
	return d < q.thr || d == q.thr && (x < q.xm || x == q.xm && y <= q.ym)
}

// takesKnown reports whether the k nearest of the center at offsets (cx, cy), of
// radius thr, are exactly q's set Q (so its total is the best's, and it wins only
// by coming first), for distinct points in ascending (x, y) order. The center
// takes every point of its ball of radius thr but the last extra = (points in the
// ball) - k of its shell in index order. So when Q lies in the ball (Q's rotated
// bounding box lies in the ball's square) and those extra points are not in Q,
// Q (k points) is all the points taken; both conditions are also necessary, so
// the answer is exact either way. The shell is read from its last point
// backwards (columns right to left, upper cell first) until extra points are seen
// or one of Q is met: O(1) when the ball holds k points, a few columns when Q's
// shell points come first.
func (g *gridScan) takesKnown(q *knownSet, cx, cy, thr int) bool {
	a, b := cx+cy, cx-cy
	if q.aMin < a-thr || q.aMax > a+thr || q.bMin < b-thr || q.bMax > b+thr {
		return false
	}
	extra := int32(g.rot.ball(cx, cy, thr) - g.k)
	if extra == 0 {
		return true
	}
	H, s := g.H, g.H+1
	xlo, xhi := int(g.firstCol[max(cx-thr, 0)]), int(g.lastCol[min(cx+thr, g.W-1)])
	for xi := xhi; xi >= xlo; xi-- {
		x := g.xs[xi]
		rem := thr - absInt(x-cx)
		p := g.colPre[xi*s : (xi+1)*s]
		if y := cy + rem; rem > 0 && y < H && p[y+1] > p[y] {
			if q.in(x, y) {
				return false
			}
			if extra--; extra == 0 {
				return true
			}
		}
		if y := cy - rem; y >= 0 && p[y+1] > p[y] {
			if q.in(x, y) {
				return false
			}
			if extra--; extra == 0 {
				return true
			}
		}
	}
	return false // not reached: the shell holds extra points outside Q
}
