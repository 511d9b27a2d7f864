package ptas

// grid3SegOn turns on grid3Scan's bound over segments of a row's centers
// (segBound); tests turn it off to compare.
var grid3SegOn = true

// grid3SegLen is the length of a segment along z: a row's centers with z / grid3SegLen
// equal form one.
var grid3SegLen = 4

// segBound3 is a lower bound on the total of the k nearest of every center (cx,
// cy, zs[j]) whose k-th distance is at most rs[j], the 3D form of blockBounds'
// bound (docs/ptas.md, "Blocks of centers bounded at once"): a center's k nearest
// lie in its ball, so along each axis at most cap(p) of them lie in plane p,
// cap(p) the plane's points within the union of the centers' balls, and the
// axis's pairwise total is at least windowMin's least total of k values under
// those capacities. The centers share the row (cx, cy), so in a plane x = p (or y
// = p) their diamonds have radii rs[j] - d, d = |p - cx| (|p - cy|), around places
// whose rotated coordinates differ only along the row; the union lies in the
// rotated rectangle spanned by the diamonds' extremes less d, four reads of the
// plane's table (a superset: the bound stays below the totals). In a plane z the
// diamonds share their place (cx, cy), so the union is the one of the largest
// radius max_j (rs[j] - |p - zs[j]|): one read of the row's tables where they
// reach it (rowTables: g is on the row with tables out to the largest rs),
// otherwise four of the planes z's stack. The axes are summed z, y, x, and the sum
// is returned as soon as it exceeds room (still a lower bound).
func (g *grid3Scan) segBound3(cx, cy int, zs, rs []int32, room int64, rowTables bool) int64 {
	k := g.k
	b := &g.seg
	rMax := int32(0)
	for _, r := range rs {
		rMax = max(rMax, r)
	}
	if grid3SegGap {
		return g.segGap(cx, cy, zs, rs, rMax, room, rowTables)
	}
	// Along z.
	b.vals, b.caps = b.vals[:0], b.caps[:0]
	zLo, zHi := int(zs[0]-rMax), int(zs[len(zs)-1]+rMax)
	L := g.L
	for z := max(zLo, 0); z <= min(zHi, L-1); z++ {
		rad := int32(-1)
		for j, zj := range zs {
			rad = max(rad, rs[j]-int32(absInt(z-int(zj))))
		}
		if rad < 0 {
			continue
		}
		var c int32
		if rowTables {
			c = g.rowT[int(rad)*L+z].q
		} else {
			i00, i01, i10, i11 := stackAt(&g.zShape, cx, cy).corners(int(rad))
			c = g.zs[i11*L+z] - g.zs[i01*L+z] - g.zs[i10*L+z] + g.zs[i00*L+z]
		}
		if c > 0 {
			b.vals, b.caps = append(b.vals, int64(z)), append(b.caps, int64(c))
		}
	}
	lb := b.windowMin(k)
	if lb > room {
		return lb
	}
	lb += g.segAxis(&g.py, cx, cy, g.H, zs, rs, rMax)
	if lb > room {
		return lb
	}
	return lb + g.segAxis(&g.px, cy, cx, g.W, zs, rs, rMax)
}

// segAxis is segBound3's term along the axis of st's planes (x or y): c the
// centers' coordinate along it, a their other coordinate (y or x), n the planes.
// The diamond of center j in plane p is the rotated square of half-side rs[j] - d
// around (a + zs[j], a - zs[j] + h - 1), d = |p - c|, so the union lies in the
// rectangle [aLo + d, aHi - d] x [bLo + d, bHi - d] with aLo the least of
// a + zs[j] - rs[j] and aHi the largest of a + zs[j] + rs[j] (likewise b): a
// center whose radius is below d adds nothing real but only widens the rectangle
// inside the others' extremes or beyond them, which keeps it a superset.
func (g *grid3Scan) segAxis(st *planeStack, a, c, n int, zs, rs []int32, rMax int32) int64 {
	aLo, aHi, bLo, bHi := int(1<<30), -int(1<<30), int(1<<30), -int(1<<30)
	for j, z := range zs {
		A, B := st.place(a, int(z))
		r := int(rs[j])
		aLo, aHi = min(aLo, A-r), max(aHi, A+r)
		bLo, bHi = min(bLo, B-r), max(bHi, B+r)
	}
	s, u, ss, pre := st.s, st.u, st.ss, st.pre
	b := &g.seg
	b.vals, b.caps = b.vals[:0], b.caps[:0]
	R := int(rMax)
	for p := max(c-R, 0); p <= min(c+R, n-1); p++ {
		d := absInt(p - c)
		base := p * ss
		a0, a1 := base+max(aLo+d, 0)*s, base+min(aHi-d+1, u)*s
		b0, b1 := max(bLo+d, 0), min(bHi-d+1, u)
		if a0 >= a1 || b0 >= b1 {
			continue
		}
		if m := pre[a1+b1] - pre[a0+b1] - pre[a1+b0] + pre[a0+b0]; m > 0 {
			b.vals, b.caps = append(b.vals, int64(p)), append(b.caps, int64(m))
		}
	}
	return b.windowMin(g.k)
}

// segBound is search's bound for the center t at (cx, cy, cz) of setRow's row
// (with its tables), of radius thr: the bound of its segment (the centers from t
// on of its row whose z / grid3SegLen is cz's), computed at the first of them to
// reach it, and whether it exceeds limit. The later centers' radii are walked
// here (O(1) a step from the row's tables), leaving walk's counts as they were.
// A segment of one center is not bounded (its own passes are cheaper).
func (g *grid3Scan) segBound(t, cx, cy, cz, thr int, limit int64) (int64, bool) {
	key := cz / grid3SegLen
	if g.segX == cx && g.segY == cy && g.segKey == key {
		return g.segLB, g.segLB > limit
	}
	g.segX, g.segY, g.segKey, g.segLB = cx, cy, key, 0
	c := g.centers
	u := 3 * (t + 1)
	if u >= len(c) || c[u] != int32(cx) || c[u+1] != int32(cy) || int(c[u+2])/grid3SegLen != key {
		return 0, false
	}
	zs, rs := append(g.segZ[:0], int32(cz)), append(g.segR[:0], int32(thr))
	in, out := g.sumIn, g.sumOut
	r := thr
	for ; u < len(c) && c[u] == int32(cx) && c[u+1] == int32(cy) && int(c[u+2])/grid3SegLen == key; u += 3 {
		r = g.walk(cx, cy, int(c[u+2]), r)
		zs, rs = append(zs, c[u+2]), append(rs, int32(r))
	}
	g.sumIn, g.sumOut = in, out
	g.segZ, g.segR = zs, rs
	g.segBounded++
	g.segLB = g.segBound3(cx, cy, zs, rs, limit, true)
	return g.segLB, g.segLB > limit
}

// grid3SegGap makes segBound3 bound each axis by gap terms (segGapAxis) instead
// of windowMin (scratch switch while measuring).
var grid3SegGap = true

// gapTerms sums, over the gaps between consecutive planes of caps and los (the
// most and the fewest of a center's k nearest in each plane, for every center
// of a segment), the least of m (k - m) over the counts m of the k nearest in the
// planes before the gap that the capacities allow: m is at least the los before
// and k less the caps after, at most the caps before and k less the los after;
// m (k - m) being concave, the smaller of its values at the two ends bounds it.
// It returns as soon as the sum exceeds room.
func gapTerms(caps, los []int32, k, room int64) int64 {
	var cT, lT int64
	for i := range caps {
		cT += int64(caps[i])
		lT += int64(los[i])
	}
	var cP, lP, lb int64
	for i := 0; i+1 < len(caps); i++ {
		cP += int64(caps[i])
		lP += int64(los[i])
		l := max(lP, k-(cT-cP), 0)
		h := min(cP, k-(lT-lP), k)
		lb += min(l*(k-l), h*(k-h))
		if lb > room {
			return lb
		}
	}
	return lb
}

// segGap is segBound3 by gap terms: per plane the points of the union of the
// segment's balls (caps) and of the intersection of the balls of radius rs[j] - 1
// (los: every center takes those).
func (g *grid3Scan) segGap(cx, cy int, zs, rs []int32, rMax int32, room int64, rowTables bool) int64 {
	k := int64(g.k)
	caps, los := g.segZPlanes(cx, cy, zs, rs, rMax, rowTables, g.segCaps[:0], g.segLos[:0])
	lb := gapTerms(caps, los, k, room)
	if lb <= room {
		caps, los = g.segGapPlanes(&g.py, cx, cy, g.H, zs, rs, rMax, caps[:0], los[:0])
		lb += gapTerms(caps, los, k, room-lb)
		if lb <= room {
			caps, los = g.segGapPlanes(&g.px, cy, cx, g.W, zs, rs, rMax, caps[:0], los[:0])
			lb += gapTerms(caps, los, k, room-lb)
		}
	}
	g.segCaps, g.segLos = caps, los
	return lb
}

// segGapPlanes appends to caps and los, per plane of st from c - rMax to c +
// rMax within the box, the points of the union of the segment's diamonds (a
// superset: the rotated rectangle of their extremes) and of the intersection of
// the diamonds of radius one less (exact: a rectangle).
func (g *grid3Scan) segGapPlanes(st *planeStack, a, c, n int, zs, rs []int32, rMax int32, caps, los []int32) ([]int32, []int32) {
	aLo, aHi, bLo, bHi := int(1<<30), -int(1<<30), int(1<<30), -int(1<<30)
	iaLo, iaHi, ibLo, ibHi := -int(1<<30), int(1<<30), -int(1<<30), int(1<<30)
	for j, z := range zs {
		A, B := st.place(a, int(z))
		r := int(rs[j])
		aLo, aHi = min(aLo, A-r), max(aHi, A+r)
		bLo, bHi = min(bLo, B-r), max(bHi, B+r)
		iaLo, iaHi = max(iaLo, A-r+1), min(iaHi, A+r-1)
		ibLo, ibHi = max(ibLo, B-r+1), min(ibHi, B+r-1)
	}
	s, u, ss, pre := st.s, st.u, st.ss, st.pre
	R := int(rMax)
	for p := max(c-R, 0); p <= min(c+R, n-1); p++ {
		d := absInt(p - c)
		base := p * ss
		var cnt, m int32
		a0, a1 := base+max(aLo+d, 0)*s, base+min(aHi-d+1, u)*s
		b0, b1 := max(bLo+d, 0), min(bHi-d+1, u)
		if a0 < a1 && b0 < b1 {
			cnt = pre[a1+b1] - pre[a0+b1] - pre[a1+b0] + pre[a0+b0]
		}
		a0, a1 = base+max(iaLo+d, 0)*s, base+min(iaHi-d+1, u)*s
		b0, b1 = max(ibLo+d, 0), min(ibHi-d+1, u)
		if a0 < a1 && b0 < b1 {
			m = pre[a1+b1] - pre[a0+b1] - pre[a1+b0] + pre[a0+b0]
		}
		caps, los = append(caps, cnt), append(los, m)
	}
	return caps, los
}

// segZPlanes appends to caps and los, per plane z from zs[0] - rMax to zs[last] +
// rMax within the box, the points of the union of the segment's balls (exact: the
// diamonds share their place) and of the intersection of the balls of radius one
// less.
func (g *grid3Scan) segZPlanes(cx, cy int, zs, rs []int32, rMax int32, rowTables bool, caps, los []int32) ([]int32, []int32) {
	L := g.L
	// Below the segment's planes the radii are (r_j - z_j) + z, above them
	// (r_j + z_j) - z: the largest and least of those, found once.
	z0, z1 := int32(zs[0]), int32(zs[len(zs)-1])
	m1, m2, n1, n2 := int32(-1<<30), int32(-1<<30), int32(1<<30), int32(1<<30)
	for j, zj := range zs {
		m1, m2 = max(m1, rs[j]-zj), max(m2, rs[j]+zj)
		n1, n2 = min(n1, rs[j]-1-zj), min(n2, rs[j]-1+zj)
	}
	for z := max(int(zs[0]-rMax), 0); z <= min(int(zs[len(zs)-1]+rMax), L-1); z++ {
		var rad, rin int32
		switch z32 := int32(z); {
		case z32 <= z0:
			rad, rin = m1+z32, n1+z32
		case z32 >= z1:
			rad, rin = m2-z32, n2-z32
		default:
			rad, rin = -1, 1<<30
			for j, zj := range zs {
				d := int32(absInt(z - int(zj)))
				rad = max(rad, rs[j]-d)
				rin = min(rin, rs[j]-1-d)
			}
		}
		var c, m int32
		if rad < 0 {
			// no center's ball reaches the plane
		} else if rowTables {
			c = g.rowT[int(rad)*L+z].q
			if rin >= 0 {
				m = g.rowT[int(rin)*L+z].q
			}
		} else {
			at := stackAt(&g.zShape, cx, cy)
			i00, i01, i10, i11 := at.corners(int(rad))
			c = g.zs[i11*L+z] - g.zs[i01*L+z] - g.zs[i10*L+z] + g.zs[i00*L+z]
			if rin >= 0 {
				i00, i01, i10, i11 := at.corners(int(rin))
				m = g.zs[i11*L+z] - g.zs[i01*L+z] - g.zs[i10*L+z] + g.zs[i00*L+z]
			}
		}
		caps, los = append(caps, c), append(los, m)
	}
	return caps, los
}
