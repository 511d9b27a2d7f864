package ptas

// diagBound is a lower bound on a center's total in O(groups) per center, for the
// plane's scan (gridScan, issue 32 item 1). Along the x axis a center's total is
// P_x = sum over unit gaps v (between offsets v and v + 1) of f(L(v)), f(L) =
// L (k - L), L(v) the chosen points with x <= v. f is concave, so on a group of m
// consecutive gaps where L stays within [A, B] every f(L(v)) is at least the chord
// through (A, f(A)) and (B, f(B)), f(A) + (L(v) - A)(k - A - B) (the slope is an
// integer), and the group's part is at least m f(A) + (sum L - m A)(k - A - B):
// linear in the group's sum of L, so a range for that sum gives a bound at one of
// its ends. L(v) at a group's ends and its sums over groups come from the L1 ball
// clipped by the line x = v, whose points and their summed x are, column by column,
// differences of column prefix counts at rows on two diagonals: prefix sums along
// diagonals (diagCounts) give them in O(1). The same for y with the rows.
//
// A center of radius thr takes every point closer than thr (the ball of radius
// thr - 1) and the take = k - below lowest-index points at distance thr (the
// ring); with points in ascending (x, y) order those are the ring's leftmost, so
// along x L(v) = I(v) + min(take, R(v)), I and R the ball's and the ring's points
// with x <= v. Along y the ring's taken points are not known without reading the
// columns: there L(v) lies between I(v) + max(0, take - (ring - R(v))) and
// I(v) + min(take, R(v)), and the bound takes the worst case. Every quantity is an
// exact integer: the bound never exceeds the total (TestDiagBoundBelowEveryCenter
// checks it against the definition, ties at thr included).
//
// The loss against the exact total is at most m (B - A)^2 / 4 per group, about
// 1/G^2 of the axis total for G groups when L grows evenly.

// cw is a count and a summed coordinate of points.
type cw struct{ c, w int32 }

// diagCounts holds, for w lines (columns, or rows for the y axis) of h + 1 prefix
// counts cp(u, j) (points of line u at positions < j), their sums along diagonals
// and antidiagonals, with each point also weighted by u:
//
//	d[u*(h+1)+j] = sum over t >= 0 of cp(u - t, j - t) while both are >= 0,
//	a[u*(h+1)+j] = sum over t >= 0 of cp(u - t, min(j + t, h)),
//
// and tp[u], the lines' totals over u' <= u. With a position clamped to [0, h]
// (below 0 no point, above h the whole line) a sum over a range of lines of cp at
// positions on a diagonal is a difference of two entries.
type diagCounts struct {
	w, h int
	d, a []cw
	tp   []cw
}

// diagCountsFit reports whether diagCounts' int32 sums stay exact for n points in
// a box of w x h: counts are at most n and summed line indices at most n (w + h).
func diagCountsFit(n, w, h int) bool {
	return float64(n)*float64(w+h+1) < 1<<31
}

// build fills t for w lines of h + 1 prefix counts; line(u) returns line u's
// counts (length h + 1) or nil for a line without points.
func (t *diagCounts) build(w, h int, line func(u int) []int32) {
	t.w, t.h = w, h
	s := h + 1
	t.d, t.a, t.tp = grow(t.d, w*s), grow(t.a, w*s), grow(t.tp, w)
	d, a := t.d, t.a
	var run cw
	for u := range w {
		p := line(u)
		U := int32(u)
		row := d[u*s : (u+1)*s]
		arow := a[u*s : (u+1)*s]
		if u == 0 {
			if p != nil {
				for j := range s {
					row[j] = cw{p[j], 0}
					arow[j] = cw{p[j], 0}
				}
			}
		} else {
			prev := d[(u-1)*s : u*s]
			aprev := a[(u-1)*s : u*s]
			tprev := t.tp[u-1]
			if p != nil {
				row[0] = cw{p[0], U * p[0]}
				for j := 1; j < s; j++ {
					q := prev[j-1]
					row[j] = cw{p[j] + q.c, U*p[j] + q.w}
				}
				for j := 0; j < h; j++ {
					q := aprev[j+1]
					arow[j] = cw{p[j] + q.c, U*p[j] + q.w}
				}
				arow[h] = cw{p[h] + tprev.c, U*p[h] + tprev.w}
			} else {
				copy(row[1:], prev[:h])
				copy(arow[:h], aprev[1:])
				arow[h] = tprev
			}
		}
		if p != nil {
			run.c += p[h]
			run.w += U * p[h]
		}
		t.tp[u] = run
	}
}

// diagPre returns the sum over lines u' in [0, u] of cp(u', clamp(c + u')), and
// the same weighted by u'.
func (t *diagCounts) diagPre(c, u int) (int64, int64) {
	if u < 0 {
		return 0, 0
	}
	j := c + u
	if j < 0 {
		return 0, 0
	}
	s := t.h + 1
	if j <= t.h {
		e := t.d[u*s+j]
		return int64(e.c), int64(e.w)
	}
	// Past h from line u0 + 1 on: whole lines there.
	tp := t.tp[u]
	u0 := t.h - c
	if u0 < 0 {
		return int64(tp.c), int64(tp.w)
	}
	e, t0 := t.d[u0*s+t.h], t.tp[u0]
	return int64(e.c) + int64(tp.c) - int64(t0.c), int64(e.w) + int64(tp.w) - int64(t0.w)
}

// antiPre returns the sum over lines u' in [0, u] of cp(u', clamp(c - u')), and
// the same weighted by u'.
func (t *diagCounts) antiPre(c, u int) (int64, int64) {
	if u < 0 {
		return 0, 0
	}
	j := c - u
	if j > t.h {
		tp := t.tp[u]
		return int64(tp.c), int64(tp.w)
	}
	if j < 0 {
		// Below 0 from line c + 1 on: nothing there.
		if c < 0 {
			return 0, 0
		}
		u, j = c, 0
	}
	e := t.a[u*(t.h+1)+j]
	return int64(e.c), int64(e.w)
}

// ringCells returns the cells at L1 distance exactly thr from the center at line
// cx on lines a..b (clipped to the ring's lines): two per line, one on its end
// lines. With distinct points it bounds the ring's points there.
func ringCells(cx, thr, a, b int) int64 {
	a, b = max(a, cx-thr), min(b, cx+thr)
	if a > b {
		return 0
	}
	if thr == 0 {
		return 1
	}
	c := 2 * int64(b-a+1)
	if a == cx-thr {
		c--
	}
	if b == cx+thr {
		c--
	}
	return c
}

// axisBound is the bound along this table's axis for the center at line cx and
// position cy of radius thr with below points closer than thr, k points taken and
// ring points at distance exactly thr (distinct points: at most ringCells on any
// lines), in groups of gaps; leftRing: the taken ring points are the leftmost
// along this axis (x, with points in ascending (x, y) order).
//
// L(v) = I(v) + T(v), I the points of the ball of radius thr - 1 on lines <= v and
// T the taken ring points there; with R(v) the ring's points on lines <= v,
// R(v) <= min(ring, ringCells up to v) =: Rhi(v) and R(v) >= ring - ringCells after
// v =: Rlo(v). Along x T(v) = min(take, R(v)); along y T(v) is at most
// min(take, R(v)) and at least take - (ring - R(v)). Only I(v) and its sums are
// read from the tables: two entries per group end.
func (t *diagCounts) axisBound(cx, cy, thr, below, ring, k, groups int, leftRing bool) int64 {
	vlo, vhi := max(cx-thr, 0), min(cx+thr-1, t.w-2)
	if vlo > vhi {
		return 0
	}
	K, take, rtot := int64(k), int64(k-below), int64(ring)
	// I(v) and its summed line index from the ball of radius r = thr - 1: lines
	// s..e; left of cx the ball's ends are on diagonals c1 + u (upper, exclusive)
	// and c2 - u (lower), right of it on c3 - u and c4 + u.
	r := thr - 1
	s, e := max(cx-r, 0), min(cx+r, t.w-1)
	c1, c2, c3, c4 := cy+r-cx+1, cy-r+cx, cy+r+cx+1, cy-r-cx
	var l0c, l0w, lc, lw, r0c, r0w int64 // left part before s, left part up to cx - 1, right part before cx
	if r >= 0 {
		if s < cx {
			a, b := t.diagPre(c1, s-1)
			c, d := t.antiPre(c2, s-1)
			l0c, l0w = a-c, b-d
		}
		if e >= cx {
			if s < cx {
				a, b := t.diagPre(c1, cx-1)
				c, d := t.antiPre(c2, cx-1)
				lc, lw = a-c-l0c, b-d-l0w
			}
			a, b := t.antiPre(c3, cx-1)
			c, d := t.diagPre(c4, cx-1)
			r0c, r0w = a-c, b-d
		}
	}
	ballTo := func(v int) (int64, int64) {
		switch {
		case r < 0 || v < s:
			return 0, 0
		case v < cx:
			a, b := t.diagPre(c1, v)
			c, d := t.antiPre(c2, v)
			return a - c - l0c, b - d - l0w
		}
		v = min(v, e)
		a, b := t.antiPre(c3, v)
		c, d := t.diagPre(c4, v)
		return lc + a - c - r0c, lw + b - d - r0w
	}
	// The ring's part of L(v): at least ringLo(v), at most ringHi(v), both
	// nondecreasing in v.
	last := min(cx+thr, t.w-1)
	ringLo := func(v int) int64 {
		rlo := max(0, rtot-ringCells(cx, thr, v+1, last))
		if leftRing {
			return min(take, rlo)
		}
		return max(0, take-rtot+rlo)
	}
	ringHi := func(v int) int64 {
		return min(take, rtot, ringCells(cx, thr, 0, v))
	}
	n := vhi - vlo + 1
	groups = min(groups, n)
	prev := vlo - 1
	var pSI, pLo int64 // at prev: nothing yet (the balls start at vlo)
	var tot int64
	for g := 1; g <= groups; g++ {
		v := vlo - 1 + n*g/groups
		I, wI := ballTo(v)
		SI := int64(v+1)*I - wI // sum over gaps u <= v of I(u)
		m := int64(v - prev)
		A, B := pLo, I+ringHi(v) // L on the group's gaps is within [A, B]
		dI := SI - pSI
		sumLo := max(m*A, dI+m*ringLo(prev))
		sumHi := min(m*B, dI+m*ringHi(v))
		coef := K - A - B
		sum := sumLo
		if coef < 0 {
			sum = sumHi
		}
		tot += m*A*(K-A) + (sum-m*A)*coef
		prev, pSI, pLo = v, SI, I+ringLo(v)
	}
	return tot
}

// buildDiag fills x and y with the column and row tables of g's points.
func (g *gridScan) buildDiag(x, y *diagCounts) {
	W, H := g.W, g.H
	x.build(W, H, func(u int) []int32 {
		xi := int(g.firstCol[u])
		if xi < 0 || g.xs[xi] != u {
			return nil
		}
		return g.colPre[xi*(H+1) : (xi+1)*(H+1)]
	})
	y.build(H, W, func(v int) []int32 {
		yi := int(g.firstRow[v])
		if yi < 0 || g.ys[yi] != v {
			return nil
		}
		return g.rowPre[yi*(W+1) : (yi+1)*(W+1)]
	})
}

// diagLB returns diagBound's x and y parts for the center at offsets (cx, cy) of
// radius thr with below points closer than thr, in groups of gaps per axis.
func (g *gridScan) diagLB(cx, cy, thr, below, groups int) (bx, by int64) {
	ring := g.rot.ball(cx, cy, thr) - below
	bx = g.dgX.axisBound(cx, cy, thr, below, ring, g.k, groups, true)
	by = g.dgY.axisBound(cy, cx, thr, below, ring, g.k, groups, false)
	return bx, by
}
