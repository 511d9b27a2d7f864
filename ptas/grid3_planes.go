package ptas

// planeStack is the rotated prefix counts of every plane of one axis of grid3Scan's
// box in one array, plane after plane (rotBalls' layout per plane): the x and y
// passes of score read one plane after another for the same place, so each read
// is an offset from one base instead of a plane's own table.
type planeStack struct {
	h, u, s, ss int     // rotBalls' h and u; s = u + 1 entries a row; ss = s*s a plane
	pre         []int32 // pre[p*ss + a*s + b]: plane p's points with a' + c' < a and a' - c' + h - 1 < b
}

// build makes st the stacks of count planes from the points with plane index
// plane[i] and coordinates (a[i], c[i]) in an sa x sc plane box. False when a
// plane's table would exceed rotBallsMaxCells (as rotBalls.build).
func (st *planeStack) build(count int, plane, a, c []int, sa, sc int) bool {
	st.h, st.u = sc, sa+sc-1
	st.s = st.u + 1
	st.ss = st.s * st.s
	s, ss := st.s, st.ss
	if ss > rotBallsMaxCells {
		st.pre = nil
		return false
	}
	st.pre = grow(st.pre, count*ss)
	pre := st.pre
	for i := range plane {
		pre[plane[i]*ss+(a[i]+c[i]+1)*s+a[i]-c[i]+sc]++
	}
	for p := range count {
		t := pre[p*ss : (p+1)*ss]
		for r := 1; r < s; r++ {
			prev, cur := t[(r-1)*s:r*s], t[r*s:(r+1)*s]
			cur = cur[:len(prev)]
			var acc int32
			for b := 1; b < len(cur); b++ {
				acc += cur[b]
				cur[b] = prev[b] + acc
			}
		}
	}
	return true
}

// place returns the rotated coordinates of (a, c) in the stack's planes.
func (st *planeStack) place(a, c int) (int, int) {
	return a + c, a - c + st.h - 1
}

// yBound is score's lower bound on the gap terms along y (the points closer than
// thr, before each gap, and at most the T taken with them), keeping per plane y
// the points closer than thr in innerY; false as soon as it exceeds room. With L
// the points before a gap between cb and cb + T (h, at most k), L (k - L) is
// concave, so the term is at least its value at the end farther from k / 2: cb
// when cb + h <= k, else h.
func (g *grid3Scan) yBound(cx, cy, cz, thr int, T, room int64) (int64, bool) {
	A, B := g.py.place(cx, cz)
	return g.py.innerBound(g.innerY, A, B, cy, thr, g.H, int64(g.k), T, room)
}

// xBound is score's lower bound on the gap terms along x, as yBound's along y
// (the points closer than thr before each gap, and at most the T taken with
// them), keeping per plane x the points closer than thr in innerX for xPass;
// false as soon as it exceeds room.
func (g *grid3Scan) xBound(cx, cy, cz, thr int, T, room int64) (int64, bool) {
	A, B := g.px.place(cy, cz)
	return g.px.innerBound(g.innerX, A, B, cx, thr, g.W, int64(g.k), T, room)
}

// innerBound is yBound and xBound on the stack's planes 0..n-1: the center's
// plane c and rotated place (A, B) in the other two axes. The planes before c
// and from c on are two loops (rad = thr - 1 - |p - c| without abs), and the
// concave term is the smaller of its two ends' values, without a branch (mm
// torus:25x25x25 -1-2 % and a further -3 % against the eleventh round's two
// loops; the loops still spill about half of their values, and counting a
// chunk of planes before summing their terms was slower, +6-15 %;
// docs/center-speed.md, "The passes' instructions"). Where the diamond lies
// inside the plane's table (rad <= rI: the planes far from c) its four corners
// move by fixed steps from plane to plane and are not clamped, a loop of its own
// on each side (mm and mminc on torus:25x25x25 and 32x32x32 -0.5-1.7 % in ten
// pairs run side by side, genalg within 0.6 %; docs/center-speed.md, "MM and
// MM+Inc on 3D tori (fifteenth round, wt-mm3, 2026-12-06)").
func (st *planeStack) innerBound(inner []int32, A, B, c, thr, n int, k, T, room int64) (int64, bool) {
	s, u, ss, pre := st.s, st.u, st.ss, st.pre
	var cb, lb int64
	p, p1 := max(c-thr, 0), min(c+thr, n-1)
	if p == c-thr { // distance thr: no point closer than thr
		lb = 0 // cb = 0 here: the term is 0
		inner[p] = 0
		p++
	}
	// Planes before c: rad = thr - 1 - (c - p), rising. While rad <= rI the
	// diamond lies inside the table and its corners move by fixed steps.
	rI := min(A, B, u-1-A, u-1-B)
	rad := thr - 1 - (c - p)
	base := p * ss
	if rad <= rI {
		pI := min(c, p+rI-rad+1)
		i00 := base + (A-rad)*s + B - rad
		i01 := i00 + 2*rad + 1
		i10 := i00 + (2*rad+1)*s
		i11 := i10 + 2*rad + 1
		for ; p < pI; p, i00, i01, i10, i11 = p+1, i00+ss-s-1, i01+ss-s+1, i10+ss+s-1, i11+ss+s+1 {
			h := min(cb+T, k)
			lb += min(cb*(k-cb), h*(k-h))
			if lb > room {
				return lb, false
			}
			m := pre[i11] - pre[i01] - pre[i10] + pre[i00]
			inner[p] = m
			cb += int64(m)
		}
		rad = thr - 1 - (c - p)
		base = p * ss
	}
	for ; p < c; p, rad, base = p+1, rad+1, base+ss {
		h := min(cb+T, k)
		lb += min(cb*(k-cb), h*(k-h))
		if lb > room {
			return lb, false
		}
		a0, a1 := base+max(A-rad, 0)*s, base+min(A+rad+1, u)*s
		b0, b1 := max(B-rad, 0), min(B+rad+1, u)
		m := pre[a1+b1] - pre[a0+b1] - pre[a1+b0] + pre[a0+b0]
		inner[p] = m
		cb += int64(m)
	}
	// Planes from c on: rad = thr - 1 - (p - c), falling; the plane at distance
	// thr (rad -1) holds no point closer than thr.
	last := min(p1, c+thr-1)
	rad = thr - 1
	for lastC := min(last, c+thr-1-rI-1); p <= lastC; p, rad, base = p+1, rad-1, base+ss {
		h := min(cb+T, k)
		lb += min(cb*(k-cb), h*(k-h))
		if lb > room {
			return lb, false
		}
		a0, a1 := base+max(A-rad, 0)*s, base+min(A+rad+1, u)*s
		b0, b1 := max(B-rad, 0), min(B+rad+1, u)
		m := pre[a1+b1] - pre[a0+b1] - pre[a1+b0] + pre[a0+b0]
		inner[p] = m
		cb += int64(m)
	}
	if p <= last { // rad <= rI from here: the corners move by fixed steps
		i00 := base + (A-rad)*s + B - rad
		i01 := i00 + 2*rad + 1
		i10 := i00 + (2*rad+1)*s
		i11 := i10 + 2*rad + 1
		for ; p <= last; p, i00, i01, i10, i11 = p+1, i00+ss+s+1, i01+ss+s-1, i10+ss-s+1, i11+ss-s-1 {
			h := min(cb+T, k)
			lb += min(cb*(k-cb), h*(k-h))
			if lb > room {
				return lb, false
			}
			m := pre[i11] - pre[i01] - pre[i10] + pre[i00]
			inner[p] = m
			cb += int64(m)
		}
	}
	if p <= p1 { // the plane c + thr
		h := min(cb+T, k)
		if cb+h <= k {
			lb += cb * (k - cb)
		} else {
			lb += h * (k - h)
		}
		if lb > room {
			return lb, false
		}
		inner[p] = 0
	}
	return lb, true
}

// xPass adds to tot score's gap terms along x, exactly, after xBound: per plane
// x, the points closer than thr (xBound's innerX), then the plane's points at thr
// while some of the take still to be taken remain (lowest planes first),
// recorded as (x, count) pairs in g.taken. False as soon as tot exceeds limit.
func (g *grid3Scan) xPass(cx, cy, cz, thr, take int, tot, limit int64) (int64, bool) {
	k := int64(g.k)
	st := &g.px
	s, u, ss, pre := st.s, st.u, st.ss, st.pre
	A, B := st.place(cy, cz)
	inner := g.innerX
	taken := g.taken[:0]
	var cum int64
	x, x1 := max(cx-thr, 0), min(cx+thr, g.W-1)
	// While points at thr are still to take: the plane's ball within rem
	// (rem = thr - |x - cx|), less those closer.
	for ; x <= x1 && take > 0; x++ {
		tot += cum * (k - cum)
		if tot > limit {
			g.taken = taken
			return tot, false
		}
		rem := thr - abs(x-cx)
		base := x * ss
		in := inner[x]
		a0, a1 := base+max(A-rem, 0)*s, base+min(A+rem+1, u)*s
		b0, b1 := max(B-rem, 0), min(B+rem+1, u)
		m := in
		if c := min(pre[a1+b1]-pre[a0+b1]-pre[a1+b0]+pre[a0+b0]-in, int32(take)); c > 0 {
			m += c
			take -= int(c)
			taken = append(taken, int32(x), c)
		}
		cum += int64(m)
	}
	g.taken = taken
	for ; x <= x1; x++ {
		tot += cum * (k - cum)
		if tot > limit {
			return tot, false
		}
		cum += int64(inner[x])
	}
	return tot, true
}
