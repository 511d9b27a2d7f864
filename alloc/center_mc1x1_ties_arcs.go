package alloc

import "math"

// mayShare's counts on tori and on grids of one and three dimensions
// (mayShareArcs): the same argument as on a 2D mesh (center_mc1x1_ties.go), with
// a box kept as a set of coordinates per dimension, so that a ball crossing a
// torus's seam, and the meet of such balls, are boxes too.

// maxArcPieces bounds the intervals of an arcBox along one dimension. A ball is
// one interval along a dimension, or two across a torus's seam; the meet of j
// balls (arcs of one ring) is at most j arcs, j+1 intervals with the one across
// the seam cut in two. mayShare meets at most four balls (cutsAllow's group of a
// meet with B2), so five intervals is the most.
const maxArcPieces = 6

// arcBox is a box of a mesh or torus of up to three dimensions: along each
// dimension j, n[j] disjoint intervals of coordinates in 0..dims[j]-1,
// ascending; n[j] = 0 along any dimension is the empty box.
type arcBox struct {
	n  [3]uint8
	iv [3][maxArcPieces][2]int32
}

// arcGeom reads mayShare's counts on tori and on grids of one to three
// dimensions: balls as arcBoxes, their meets, and the free nodes in one. The
// 2D mesh keeps its own rect functions (center_mc1x1_ties.go): the same code
// generic over both geometries made a 2D mesh replay 33 % slower (SDSC's first
// 817 jobs on mesh:128x128: 4.73 s of CPU against 3.55 s, dictionary calls).
type arcGeom struct{ x *gridIndex }

// ball is the L-infinity ball of radius r around node c (empty when r < 0).
func (g arcGeom) ball(c, r int) arcBox {
	var b arcBox
	if r < 0 {
		return b
	}
	x := g.x
	for j := range x.d {
		v := int(x.coord[c*x.d+j])
		g.setArc(&b, j, v-r, v+r)
	}
	return b
}

// setArc sets dimension j of b to the coordinates lo..hi (lo <= hi), at most a
// ring long: clipped to the mesh, around the ring on a torus.
func (g arcGeom) setArc(b *arcBox, j, lo, hi int) {
	dj := g.x.dims[j]
	switch {
	case !g.x.wrap[j]:
		lo, hi = max(lo, 0), min(hi, dj-1)
		if lo > hi {
			b.n[j] = 0
			return
		}
	case hi-lo+1 >= dj:
		lo, hi = 0, dj-1
	default:
		n := hi - lo
		if lo %= dj; lo < 0 {
			lo += dj
		}
		if hi = lo + n; hi >= dj { // across the seam
			b.iv[j][0], b.iv[j][1] = [2]int32{0, int32(hi - dj)}, [2]int32{int32(lo), int32(dj - 1)}
			b.n[j] = 2
			return
		}
	}
	b.iv[j][0] = [2]int32{int32(lo), int32(hi)}
	b.n[j] = 1
}

// meet is the box of the coordinates in both p and q, dimension by dimension.
func (g arcGeom) meet(p, q arcBox) arcBox {
	var b arcBox
	for j := range g.x.d {
		if !meetDim(&b, &p, &q, j) {
			return arcBox{}
		}
	}
	return b
}

// meet1 is p with its dimension j met with q's (the other dimensions p's).
func (g arcGeom) meet1(p, q arcBox, j int) arcBox {
	b := p
	meetDim(&b, &p, &q, j)
	return b
}

// meetDim sets dimension j of b to the meet of p's and q's, reporting whether
// it is not empty.
func meetDim(b, p, q *arcBox, j int) bool {
	if p.n[j] == 1 && q.n[j] == 1 { // most often: one interval each
		lo, hi := max(p.iv[j][0][0], q.iv[j][0][0]), min(p.iv[j][0][1], q.iv[j][0][1])
		if lo > hi {
			b.n[j] = 0
			return false
		}
		b.iv[j][0] = [2]int32{lo, hi}
		b.n[j] = 1
		return true
	}
	P, Q := p.iv[j][:p.n[j]], q.iv[j][:q.n[j]]
	n := 0
	for s, t := 0, 0; s < len(P) && t < len(Q); {
		lo, hi := max(P[s][0], Q[t][0]), min(P[s][1], Q[t][1])
		if lo <= hi && n < maxArcPieces {
			b.iv[j][n] = [2]int32{lo, hi}
			n++
		}
		if P[s][1] < Q[t][1] {
			s++
		} else {
			t++
		}
	}
	b.n[j] = uint8(n)
	return n > 0
}

// count is the number of free nodes in b: the prefix sums of the free map over
// every product of its intervals.
func (g arcGeom) count(b arcBox) int {
	x := g.x
	P := x.free
	if x.d == 3 && b.n == [3]uint8{1, 1, 1} { // most often: one box
		s1, s2 := x.pstride[1], x.pstride[2]
		a0, b0 := int(b.iv[0][0][0]), int(b.iv[0][0][1])+1
		a1, b1 := int(b.iv[1][0][0])*s1, (int(b.iv[1][0][1])+1)*s1
		a2, b2 := int(b.iv[2][0][0])*s2, (int(b.iv[2][0][1])+1)*s2
		return int(P[b0+b1+b2] - P[a0+b1+b2] - P[b0+a1+b2] - P[b0+b1+a2] +
			P[a0+a1+b2] + P[a0+b1+a2] + P[b0+a1+a2] - P[a0+a1+a2])
	}
	// the first dimension's stride is 1
	row := func(off int) int32 {
		var s int32
		for _, iv := range b.iv[0][:b.n[0]] {
			s += P[off+int(iv[1])+1] - P[off+int(iv[0])]
		}
		return s
	}
	switch x.d {
	case 1:
		return int(row(0))
	case 2:
		s1 := x.pstride[1]
		var s int32
		for _, iv := range b.iv[1][:b.n[1]] {
			s += row((int(iv[1])+1)*s1) - row(int(iv[0])*s1)
		}
		return int(s)
	}
	s1, s2 := x.pstride[1], x.pstride[2]
	plane := func(off int) int32 {
		var s int32
		for _, iv := range b.iv[1][:b.n[1]] {
			s += row(off+(int(iv[1])+1)*s1) - row(off+int(iv[0])*s1)
		}
		return s
	}
	var s int32
	for _, iv := range b.iv[2][:b.n[2]] {
		s += plane((int(iv[1])+1)*s2) - plane(int(iv[0])*s2)
	}
	return int(s)
}

// mayShareArcs is mayShare on a torus or a grid of one to three dimensions: the
// same counts (sharePossible, cutsAllow) on arcBoxes, and the same window of
// centers to test. If S(c1) = S(c2), every free node of A(c1) lies within L2 of
// c2: along each dimension, c2 is within Lmax (around the ring on a torus) of the
// least and the greatest coordinate of A(c1)'s free nodes, taken along the ball's
// own run of coordinates (on a torus, a run shorter than the ring; along one that
// covers the ring, the window is the whole ring). For a full A(c1) of tied centers
// with one shell radius the window is c1 and its 3^d - 1 neighbours.
func (a *mc1x1) mayShareArcs(k int) []bool {
	x := a.x
	g := arcGeom{x}
	Lmax := a.startShare()
	at, share := a.tiedAt, a.share
	var str [3]int // node-index strides (axis 0 fastest)
	st := 1
	for j := range x.d {
		str[j] = st
		st *= x.dims[j]
	}
	wide := a.wide[:0]
	for n, t := range a.tied {
		wide = append(wide, false)
		if n&63 == 63 && a.stopped() {
			// AllocateContext's context ended (on torus:58x58x58 this loop
			// takes seconds): the rest count as possibly shared, and search
			// stops at its own check before working any out
			for n2 := n; n2 < len(share); n2++ {
				share[n2] = true
			}
			break
		}
		if t.L == 0 {
			continue // k = 1: the set is {c}, its own
		}
		c := a.fl[t.i]
		win := g.shareWindow(c, t.L-1, Lmax)
		size := 1
		for j := range x.d {
			cnt := 0
			for _, iv := range win.iv[j][:win.n[j]] {
				cnt += int(iv[1]-iv[0]) + 1
			}
			size *= cnt
		}
		if size > maxShareWindow {
			share[n], wide[n] = true, true
			continue
		}
		for _, i2 := range win.pieces(x.d, 2) {
			for u2 := i2[0]; u2 <= i2[1]; u2++ {
				for _, i1 := range win.pieces(x.d, 1) {
					for u1 := i1[0]; u1 <= i1[1]; u1++ {
						base := int(u2)*str[2] + int(u1)*str[1]
						for _, i0 := range win.iv[0][:win.n[0]] {
							for u0 := i0[0]; u0 <= i0[1]; u0++ {
								g.sharePair(a, n, int(at[base+int(u0)])-1, k, wide)
							}
						}
					}
				}
			}
		}
	}
	a.wide = wide
	for _, t := range a.tied {
		at[a.fl[t.i]] = 0
	}
	return share
}

// shareWindow returns the window of mayShareArcs: a box holding every node within
// R (around the ring on a torus) of each free node within r >= 0 of node c, c
// free. Along each dimension, R of the least and the greatest coordinate of
// those free nodes along the ball's own run of coordinates, and of c's own (on
// a torus, a run shorter than the ring; along one that covers the ring, the
// whole ring). On a ring the balls around the two ends can also meet on the far
// side, which the balls around the points halfway to c rule out when their slabs
// hold a free node.
func (g arcGeom) shareWindow(c, r, R int) arcBox {
	x := g.x
	A := g.ball(c, r)
	var win arcBox
	for j := range x.d {
		dj, v := x.dims[j], int(x.coord[c*x.d+j])
		if x.wrap[j] && 2*r+1 >= dj {
			g.setArc(&win, j, 0, dj-1)
			continue
		}
		lo, hi := v-r, v+r
		if !x.wrap[j] {
			lo, hi = max(lo, 0), min(hi, dj-1)
		}
		// has reports whether A holds a free node with coordinate u0..u1 (of
		// the run lo..hi) along dimension j.
		slab := A
		has := func(u0, u1 int) bool {
			g.setArc(&slab, j, u0, u1)
			return g.count(slab) > 0
		}
		first := searchFirst(lo, v, func(u int) bool { return has(lo, u) })
		last := v + hi - searchFirst(v, hi, func(u int) bool { return has(v+hi-u, hi) })
		var w, ring arcBox
		g.setArc(&w, j, v-R, v+R)
		for _, u := range [...]int{first, last, (first + v) / 2, (v + last) / 2} {
			if u == v || !x.wrap[j] && u != first && u != last || u != first && u != last && !has(u, u) {
				continue
			}
			g.setArc(&ring, j, u-R, u+R)
			w = g.meet1(w, ring, j)
		}
		win.n[j], win.iv[j] = w.n[j], w.iv[j]
	}
	return win
}

// pieces returns the intervals of b along dimension j, or the one coordinate 0
// along a dimension past d.
func (b *arcBox) pieces(d, j int) [][2]int32 {
	if j >= d {
		return originPiece
	}
	return b.iv[j][:b.n[j]]
}

// originPiece is the interval of coordinate 0 alone.
var originPiece = [][2]int32{{0, 0}}

// searchFirst returns the smallest v in [lo, hi] with has(v), given has(hi) and
// has monotone (false, then true).
func searchFirst(lo, hi int, has func(int) bool) int {
	if has(lo) {
		return lo
	}
	for lo++; lo < hi; {
		mid := lo + (hi-lo)/2 // lo and hi may be negative (lifted torus coordinates)
		if has(mid) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// sharePair tests tied centers n and u (u < 0: no tied center) from n's window,
// each pair once: from the earlier of the two, unless the earlier one's window
// was too wide to look through (wide); both are marked when their sets may be
// the same.
func (g arcGeom) sharePair(a *mc1x1, n, u, k int, wide []bool) {
	share := a.share
	if u > n && !(share[n] && share[u]) || u >= 0 && u < n && wide[u] && !share[n] {
		if g.sharePossible(a, n, u, k) {
			share[n], share[u] = true, true
		}
	}
}

// sharePossible is mayShare's sharePossible on arcBoxes: whether tied centers n1 and n2 (indices in a.tied; shells
// L >= 1, k nodes each) can have the same node set, by the counts of mayShare.
func (g arcGeom) sharePossible(a *mc1x1, n1, n2, k int) bool {
	t1, t2 := a.tied[n1], a.tied[n2]
	c1, c2 := a.fl[t1.i], a.fl[t2.i]
	A1, B1 := g.ball(c1, t1.L-1), g.ball(c1, t1.L)
	A2, B2 := g.ball(c2, t2.L-1), g.ball(c2, t2.L)
	a1, a2 := k-t1.m, k-t2.m // free nodes in A1, A2
	if g.count(g.meet(A1, B2)) != a1 || g.count(g.meet(A2, B1)) != a2 ||
		a1+a2-g.count(g.meet(A1, A2)) > k || g.count(g.meet(B1, B2)) < k {
		return false
	}
	return g.cutsAllow(a, n1, A1, B1, A2, B2) && g.cutsAllow(a, n2, A2, B2, A1, B1)
}

// cutsAllow is mayShare's cutsAllow on arcBoxes: whether the first two steps of tied center n's shell order
// (orderCuts) leave its set S able to equal that of a center with balls A2 (radius
// L2-1) and B2 (radius L2): the shell nodes they take lie in B2, and those they
// leave out lie outside A2. A and B are n's own balls.
func (g arcGeom) cutsAllow(a *mc1x1, n int, A, Bl, A2, B2 arcBox) bool {
	t := a.tied[n]
	if t.i == 0 {
		return true // no earlier center: the order is the free list's
	}
	cuts := a.cuts[n]
	if cuts[0] == noCut {
		cuts = g.orderCuts(a, t, A, Bl)
		a.cuts[n] = cuts
	}
	// shell(r): the free nodes of n's shell in box r
	shell := func(r arcBox) int { return g.count(g.meet(Bl, r)) - g.count(g.meet(A, r)) }
	p1 := a.fl[t.i-1]
	in, near := g.ball(p1, int(cuts[0])-1), g.ball(p1, int(cuts[0]))
	if shell(g.meet(in, B2)) != shell(in) || shell(g.meet(A2, near)) != shell(A2) {
		return false // takes a node outside B2, or leaves out one of A2
	}
	if cuts[1] == noCut {
		return true
	}
	// The same for the second step, on the group G left at the first step's cut
	group := func(r arcBox) int { return shell(g.meet(near, r)) - shell(g.meet(in, r)) }
	p2 := a.fl[t.i-2]
	in2, near2 := g.ball(p2, int(cuts[1])-1), g.ball(p2, int(cuts[1]))
	return group(g.meet(in2, B2)) == group(in2) && group(g.meet(A2, near2)) == group(A2)
}

// orderCuts is mayShare's orderCuts on arcBoxes: the cut values of the first two steps of chooseLast for tied
// center t (t.i >= 1) with balls A (radius L-1) and Bl (radius L). The first: the
// smallest distance d1 from p1, the center before t's in the free list, with at
// least t.m free nodes of t's shell within d1 of p1; the shell nodes closer to p1
// are taken, the farther ones are not, and those at d1 (the group G) are left to
// the next center p2: the same with the nodes still needed (need) among G, d2 a
// distance from p2. When no second step is made (no p2), the second is noCut;
// when need is 0 or all of G, a cut that leaves every node of G out or takes it.
// The distances are the machine's (around the ring on a torus): a shell node is
// within L+D of p1 when p1 is D from the center.
func (g arcGeom) orderCuts(a *mc1x1, t tieCand, A, Bl arcBox) [2]int32 {
	x := a.x
	shell := func(r arcBox) int { return g.count(g.meet(Bl, r)) - g.count(g.meet(A, r)) }
	c, p1 := a.fl[t.i], a.fl[t.i-1]
	D := x.linf(c, p1)
	d1 := smallest(max(t.L-D, 0), t.L+D, t.m, func(d int) int { return shell(g.ball(p1, d)) })
	cuts := [2]int32{int32(d1), noCut}
	if t.i < 2 {
		return cuts
	}
	in, near := g.ball(p1, d1-1), g.ball(p1, d1)
	need := t.m - shell(in)
	n := shell(near) - shell(in)
	p2 := a.fl[t.i-2]
	switch D2 := x.linf(p1, p2); {
	case need == n:
		cuts[1] = math.MaxInt32 / 2 // every node of G within d2-1 of p2
	case need == 0:
		cuts[1] = -1 // none within d2
	default:
		group := func(d int) int {
			r := g.ball(p2, d)
			return shell(g.meet(near, r)) - shell(g.meet(in, r))
		}
		cuts[1] = int32(smallest(max(d1-D2, 0), d1+D2, need, group))
	}
	return cuts
}
