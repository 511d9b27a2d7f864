package alloc

import (
	"math"
	"sort"
)

// tieScratch is the scratch space of mayShare.
type tieScratch struct {
	tiedAt []int32    // node -> 1 + its index in a.tied (0: not a tied center); left zero
	share  []bool     // mayShare's answer
	wide   []bool     // mayShare: the center's window was too wide to look through
	cuts   [][2]int32 // orderCuts of each tied center, noCut when not worked out yet
}

// maxShareWindow bounds the cells mayShare looks through for one tied center; a
// center whose window is larger is treated as one that may share its set.
const maxShareWindow = 256

// noCut marks a tied center whose orderCuts are not worked out yet, or a second
// step that is not made.
const noCut = -2

// rect is the box of columns x0..x1, rows y0..y1 (not clipped to the mesh).
type rect struct{ x0, x1, y0, y1 int }

func (r rect) meet(s rect) rect {
	return rect{max(r.x0, s.x0), min(r.x1, s.x1), max(r.y0, s.y0), min(r.y1, s.y1)}
}

// ballRect is the L-infinity ball of radius r around node c of a 2D mesh as a box.
func (x *gridIndex) ballRect(c, r int) rect {
	cx, cy := int(x.coord[2*c]), int(x.coord[2*c+1])
	return rect{cx - r, cx + r, cy - r, cy + r}
}

// mayShare marks the tied centers (a.tied) whose node set may equal another tied
// center's, from counts alone, on a 2D mesh (mayShareArcs on tori and 3D grids).
// The tie statistics count distinct node sets (TieStats), and working a tied
// center's set out (chooseLast2D) was most of a decision's cost on big meshes:
// about 1,100 centers tie per tied decision at 128x128, nearly all with sets that no other center has. A center
// left unmarked has a set of its own and counts as one distinct set without being
// worked out; only the marked ones are fingerprinted and compared. The count is
// the same as with every tied center fingerprinted.
//
// The set S(c) of a tied center c with outermost shell L holds A(c), the free
// nodes within distance L-1 of c, and lies in B(c), those within L. If S(c1) =
// S(c2) (both k nodes), then A(c1) lies in the box of B(c2) and A(c2) in that of
// B(c1), A(c1) and A(c2) together have at most k nodes, and B(c1) and B(c2) share
// at least k: four counts of box intersections on the prefix sums. Those alone
// leave most diagonal neighbours possible (a k = 32x32 job: the 31x31 ball and 63
// of its shell's 128 nodes, which could be the same 32x32 square for c and c -
// (1, 1)), so sharePossible also uses the first step of the shell's order: its m
// nodes are taken first by distance from the center just before c in the free list
// (chooseLast), so those of its shell closer to that center than the cut value
// are in S(c) and those farther are not, again box counts (firstCut).
//
// The first condition bounds where c2 can be: the box of radius L2 around c2
// contains A(c1)'s bounding box, so c2 lies within L2 of its four sides, which
// for a full A(c1) leaves c1 and its eight neighbours. Only the tied centers in
// that window (radius the largest L of the tied centers) are tested.
func (a *mc1x1) mayShare(k int) []bool {
	x := a.x
	X, Y := x.dims[0], x.dims[1]
	Lmax := a.startShare()
	at, share := a.tiedAt, a.share
	co := x.coord
	wide := a.wide[:0]
	for n, t := range a.tied {
		wide = append(wide, false)
		if t.L == 0 {
			continue // k = 1: the set is {c}, its own
		}
		c := a.fl[t.i]
		cx, cy := int(co[2*c]), int(co[2*c+1])
		ax0, ax1, ay0, ay1 := x.freeBBox(max(cx-t.L+1, 0), min(cx+t.L-1, X-1), max(cy-t.L+1, 0), min(cy+t.L-1, Y-1), cx, cy)
		wx0, wx1 := max(ax1-Lmax, 0), min(ax0+Lmax, X-1)
		wy0, wy1 := max(ay1-Lmax, 0), min(ay0+Lmax, Y-1)
		if (wx1-wx0+1)*(wy1-wy0+1) > maxShareWindow {
			share[n], wide[n] = true, true
			continue
		}
		// Each pair once: from the earlier of the two, unless the earlier one's
		// window was too wide to look through.
		for yy := wy0; yy <= wy1; yy++ {
			for _, u := range at[wx0+yy*X : wx1+1+yy*X] {
				if u2 := int(u) - 1; u2 > n && !(share[n] && share[u2]) || u2 >= 0 && u2 < n && wide[u2] && !share[n] {
					if a.sharePossible(n, u2, k) {
						share[n], share[u2] = true, true
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

// startShare readies mayShare's scratch for a.tied: a.tiedAt marks each tied
// center's node with 1 + its index, a.share is all false and a.cuts not worked
// out. It returns the largest outermost shell of the tied centers.
func (a *mc1x1) startShare() (Lmax int) {
	if len(a.tiedAt) < a.g.N() {
		a.tiedAt = make([]int32, a.g.N())
	}
	share, cuts := a.share[:0], a.cuts[:0]
	for n, t := range a.tied {
		a.tiedAt[a.fl[t.i]] = int32(n + 1)
		Lmax = max(Lmax, t.L)
		share = append(share, false)
		cuts = append(cuts, [2]int32{noCut, noCut})
	}
	a.share, a.cuts = share, cuts
	return Lmax
}

// sharePossible reports whether tied centers n1 and n2 (indices in a.tied; shells
// L >= 1, k nodes each) can have the same node set, by the counts of mayShare.
func (a *mc1x1) sharePossible(n1, n2, k int) bool {
	x := a.x
	t1, t2 := a.tied[n1], a.tied[n2]
	c1, c2 := a.fl[t1.i], a.fl[t2.i]
	A1, B1 := x.ballRect(c1, t1.L-1), x.ballRect(c1, t1.L)
	A2, B2 := x.ballRect(c2, t2.L-1), x.ballRect(c2, t2.L)
	a1, a2 := k-t1.m, k-t2.m // free nodes in A1, A2
	if x.freeIn(A1.meet(B2)) != a1 || x.freeIn(A2.meet(B1)) != a2 ||
		a1+a2-x.freeIn(A1.meet(A2)) > k || x.freeIn(B1.meet(B2)) < k {
		return false
	}
	return a.cutsAllow(n1, A1, B1, A2, B2) && a.cutsAllow(n2, A2, B2, A1, B1)
}

// cutsAllow reports whether the first two steps of tied center n's shell order
// (orderCuts) leave its set S able to equal that of a center with balls A2 (radius
// L2-1) and B2 (radius L2): the shell nodes they take lie in B2, and those they
// leave out lie outside A2. A and B are n's own balls.
func (a *mc1x1) cutsAllow(n int, A, B, A2, B2 rect) bool {
	t := a.tied[n]
	if t.i == 0 {
		return true // no earlier center: the order is the free list's
	}
	cuts := a.cuts[n]
	if cuts[0] == noCut {
		cuts = a.orderCuts(t, A, B)
		a.cuts[n] = cuts
	}
	x := a.x
	// shell(r): the free nodes of n's shell in box r
	shell := func(r rect) int { return x.freeIn(B.meet(r)) - x.freeIn(A.meet(r)) }
	p1 := a.fl[t.i-1]
	in, near := x.ballRect(p1, int(cuts[0])-1), x.ballRect(p1, int(cuts[0]))
	if shell(in.meet(B2)) != shell(in) || shell(A2.meet(near)) != shell(A2) {
		return false // takes a node outside B2, or leaves out one of A2
	}
	if cuts[1] == noCut {
		return true
	}
	// The same for the second step, on the group G left at the first step's cut
	group := func(r rect) int { return shell(near.meet(r)) - shell(in.meet(r)) }
	p2 := a.fl[t.i-2]
	in2, near2 := x.ballRect(p2, int(cuts[1])-1), x.ballRect(p2, int(cuts[1]))
	return group(in2.meet(B2)) == group(in2) && group(A2.meet(near2)) == group(A2)
}

// orderCuts returns the cut values of the first two steps of chooseLast for tied
// center t (t.i >= 1) with balls A (radius L-1) and B (radius L). The first: the
// smallest distance d1 from p1, the center before t's in the free list, with at
// least t.m free nodes of t's shell within d1 of p1; the shell nodes closer to p1
// are taken, the farther ones are not, and those at d1 (the group G) are left to
// the next center p2: the same with the nodes still needed (need) among G, d2 a
// distance from p2. When no second step is made (no p2), the second is noCut;
// when need is 0 or all of G, a cut that leaves every node of G out or takes it.
func (a *mc1x1) orderCuts(t tieCand, A, B rect) [2]int32 {
	x := a.x
	shell := func(r rect) int { return x.freeIn(B.meet(r)) - x.freeIn(A.meet(r)) }
	c, p1 := a.fl[t.i], a.fl[t.i-1]
	D := x.linf(c, p1)
	d1 := smallest(max(t.L-D, 0), t.L+D, t.m, func(d int) int { return shell(x.ballRect(p1, d)) })
	cuts := [2]int32{int32(d1), noCut}
	if t.i < 2 {
		return cuts
	}
	in, near := x.ballRect(p1, d1-1), x.ballRect(p1, d1)
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
			r := x.ballRect(p2, d)
			return shell(near.meet(r)) - shell(in.meet(r))
		}
		cuts[1] = int32(smallest(max(d1-D2, 0), d1+D2, need, group))
	}
	return cuts
}

// freeIn returns the number of free nodes in box r of a 2D mesh (clipped to the
// mesh; 0 when empty).
func (x *gridIndex) freeIn(r rect) int {
	return x.freeInRect(r.x0, r.x1, r.y0, r.y1)
}

// freeInRect returns the number of free nodes in columns x0..x1, rows y0..y1 of a
// 2D mesh (clipped to the mesh; 0 when empty).
func (x *gridIndex) freeInRect(x0, x1, y0, y1 int) int {
	x0, x1 = max(x0, 0), min(x1, x.dims[0]-1)+1
	y0, y1 = max(y0, 0), min(y1, x.dims[1]-1)+1
	if x0 >= x1 || y0 >= y1 {
		return 0
	}
	sx := x.pstride[1]
	y0, y1 = y0*sx, y1*sx
	return int(x.free[x1+y1] - x.free[x0+y1] - x.free[x1+y0] + x.free[x0+y0])
}

// freeBBox returns the bounding box of the free nodes in columns x0..x1, rows
// y0..y1 of a 2D mesh, given that (cx, cy) inside is free: each side is the
// rectangle's own when its line holds a free node, else found by binary search on
// the counts.
func (x *gridIndex) freeBBox(x0, x1, y0, y1, cx, cy int) (bx0, bx1, by0, by1 int) {
	bx0 = searchFirst(x0, cx, func(v int) bool { return x.freeInRect(x0, v, y0, y1) > 0 })
	bx1 = cx + x1 - searchFirst(cx, x1, func(v int) bool { return x.freeInRect(cx+x1-v, x1, y0, y1) > 0 })
	by0 = searchFirst(y0, cy, func(v int) bool { return x.freeInRect(x0, x1, y0, v) > 0 })
	by1 = cy + y1 - searchFirst(cy, y1, func(v int) bool { return x.freeInRect(x0, x1, cy+y1-v, y1) > 0 })
	return
}

// smallest returns the smallest d in [lo, hi] with count(d) >= need, given
// count(hi) >= need and count non-decreasing in d (orderCuts' cut distances, on
// meshes and on arcs).
func smallest(lo, hi, need int, count func(int) int) int {
	return lo + sort.Search(hi-lo, func(i int) bool { return count(lo+i) >= need })
}
