package alloc

import (
	"math"
	"math/bits"
	"slices"
	"sort"
)

// shellScratch is the scratch space of working out which nodes of a center's
// outermost shell are taken (lastBits, chooseLast, wallInLast, refine, shellNodes,
// chooseLast2D).
type shellScratch struct {
	bitsBuf   []uint64 // lastBits
	sh        []int    // the shell's free nodes
	tmp       []int
	coords    [][]int // shellNodes
	idx       []int
	dist      []int32   // refine: distances of the undecided nodes
	distHist  []int     // refine: how many undecided nodes at each distance (left zero)
	lastBuf   []int     // chooseLast2D: the nodes taken
	chooseBuf []int     // choose2D: the inner ball's free nodes
	segBuf    []ringSeg // chooseLast2D: runs of the undecided nodes
	segBuf2   []ringSeg
	along     []int32   // ringSegs2D: each node's coordinate along its line
	gco       [][]int32 // refineFrom off 2D meshes: the undecided nodes' distinct coordinates per dimension
}

// lastBits returns, as a bitset (scratch space), the m nodes chooseLast(i, L, m)
// takes from the outermost shell: the same walk back through the earlier centers,
// on bitsets. The undecided nodes g start as the free nodes of shell L; center c_j
// at distance D from c sees them at distances L-D..L+D, and the cut value (the
// need-th smallest distance) is found by binary search on the counts of g within
// the balls around c_j. Nodes inside the cut are taken, those on it stay undecided.
func (a *mc1x1) lastBits(i, L, m int) []uint64 {
	masks, W := a.x.ballMasks()
	RW := (a.x.maxLinf + 1) * W // ball(c, r) = masks[c*RW+r*W:][:W]
	if cap(a.bitsBuf) < 2*W {
		a.bitsBuf = make([]uint64, 2*W)
	}
	out, g := a.bitsBuf[:W:W], a.bitsBuf[W:2*W:2*W]
	c := a.fl[i]
	free := a.st.free[:W]
	o := c*RW + L*W
	outer := masks[o : o+W]
	n := 0
	if L == 0 {
		for w := range g {
			g[w] = outer[w] & free[w]
			n += bits.OnesCount64(g[w])
		}
	} else {
		inner := masks[o-W : o]
		for w := range g {
			g[w] = outer[w] &^ inner[w] & free[w]
			n += bits.OnesCount64(g[w])
		}
	}
	clear(out)
	need := m
	// g's nonzero words are g[wlo:whi]; only those are read.
	wlo, whi := 0, W
	trim := func() {
		for wlo < whi && g[wlo] == 0 {
			wlo++
		}
		for whi > wlo && g[whi-1] == 0 {
			whi--
		}
	}
	trim()
	mesh2D, co := a.x.d == 2 && !a.x.anyWrap, a.x.coord
	// On a 2D mesh, once a center has left g as it was, g's bounding box is
	// worked out, and the centers that see the whole box at one distance (a run of
	// them is typical: centers further up the column, or far down the previous
	// one) are skipped without counting.
	box, boxed := [4]int32{}, false
	for j := i - 1; j >= 0 && need > 0 && need < n; j-- {
		cj := a.fl[j]
		var D int
		if mesh2D {
			px, py := co[2*cj], co[2*cj+1]
			if boxed {
				if jj, ok := a.boxSkip(j, px, py, box); ok {
					j = jj
					continue
				}
			}
			D = int(max(abs32(co[2*c]-px), abs32(co[2*c+1]-py)))
		} else {
			D = a.x.linf(c, cj)
		}
		// count(t) = |g within distance t of cj|: count(lo) < need <= count(hi)
		lo, hi := max(L-D, 0)-1, min(L+D, a.x.maxLinf)
		cntLo, cntHi := 0, n
		gw := g[wlo:whi]
		base := cj*RW + wlo
		for hi-lo > 1 {
			mid := (lo + hi) >> 1
			b := masks[base+mid*W:]
			b = b[:len(gw)]
			cnt := 0
			for w, v := range gw {
				cnt += bits.OnesCount64(v & b[w])
			}
			if cnt < need {
				lo, cntLo = mid, cnt
			} else {
				hi, cntHi = mid, cnt
			}
		}
		if cntLo == 0 && cntHi == n {
			// all undecided nodes at the same distance from c_j
			if mesh2D && !boxed {
				box, boxed = [4]int32{math.MaxInt32, -1, math.MaxInt32, -1}, true
				for w := wlo; w < whi; w++ {
					for b := g[w]; b != 0; b &= b - 1 {
						v := w<<6 | bits.TrailingZeros64(b)
						x, y := co[2*v], co[2*v+1]
						box = [4]int32{min(box[0], x), max(box[1], x), min(box[2], y), max(box[3], y)}
					}
				}
			}
			continue
		}
		boxed = false
		bh := masks[base+hi*W:]
		bh = bh[:len(gw)]
		if lo >= 0 {
			bl := masks[base+lo*W:]
			bl = bl[:len(gw)]
			ow := out[wlo:whi]
			for w, v := range gw {
				ow[w] |= v & bl[w]
				gw[w] = v & bh[w] &^ bl[w]
			}
		} else {
			for w, v := range gw {
				gw[w] = v & bh[w]
			}
		}
		trim()
		need -= cntLo
		n = cntHi - cntLo
	}
	switch {
	case need == n:
		for w := range out {
			out[w] |= g[w]
		}
	case need > 0:
		// Still tied after every earlier center: free-list position decides.
		rest := a.tmp[:0]
		for w, b := range g {
			for ; b != 0; b &= b - 1 {
				rest = append(rest, w<<6|bits.TrailingZeros64(b))
			}
		}
		slices.SortFunc(rest, func(p, q int) int { return int(a.pos[p] - a.pos[q]) })
		for _, v := range rest[:need] {
			out[v>>6] |= 1 << (v & 63)
		}
		a.tmp = rest
	}
	return out
}

// chooseBits returns the nodes of candidate t in increasing order, from lastBits.
func (a *mc1x1) chooseBits(t tieCand, masks []uint64, W int) []int {
	last := a.lastBits(t.i, t.L, t.m)
	nodes := make([]int, 0, a.x.freeInBall(a.fl[t.i], t.L-1)+t.m)
	if t.L > 0 {
		o := (a.fl[t.i]*(a.x.maxLinf+1) + t.L - 1) * W
		inner := masks[o : o+W]
		for w := range last {
			last[w] |= inner[w] & a.st.free[w]
		}
	}
	for w, b := range last {
		for ; b != 0; b &= b - 1 {
			nodes = append(nodes, w<<6|bits.TrailingZeros64(b))
		}
	}
	return nodes
}

// choose returns the k nodes of the candidate centered on a.fl[i], in increasing
// order.
func (a *mc1x1) choose(i, k, L, m int) []int {
	if a.x.d == 2 && !a.x.anyWrap {
		return a.choose2D(i, k, L, m)
	}
	return a.chooseGrid(i, k, L, m)
}

// mergeSorted returns the ascending lists a and b merged into a new slice of
// capacity size.
func mergeSorted(a, b []int, size int) []int {
	out := make([]int, 0, size)
	p, q := 0, 0
	for p < len(a) && q < len(b) {
		if a[p] < b[q] {
			out = append(out, a[p])
			p++
		} else {
			out = append(out, b[q])
			q++
		}
	}
	out = append(out, a[p:]...)
	return append(out, b[q:]...)
}

// chooseGrid is choose off 2D meshes in O(ball + m log m) rather than a pass over
// every free node: the inner ball's free nodes (radius L-1) in increasing index
// order, read line by line along dimension 0 over the coordinates within L-1 of
// the center along each axis (around the ring on a torus, sorted), and the m nodes
// of the outermost shell sorted and merged in.
func (a *mc1x1) chooseGrid(i, k, L, m int) []int {
	x := a.x
	d := x.d
	c := a.fl[i]
	inner := a.chooseBuf[:0]
	if r := L - 1; r >= 0 {
		if len(a.coords) != d {
			a.coords = make([][]int, d)
			a.idx = make([]int, d)
		}
		for j, dj := range x.dims {
			cv := int(x.coord[c*d+j])
			cs := a.coords[j][:0]
			switch {
			case x.wrap[j] && 2*r+1 >= dj:
				for v := range dj {
					cs = append(cs, v)
				}
			case x.wrap[j]:
				for v := cv - r; v <= cv+r; v++ {
					cs = append(cs, (v%dj+dj)%dj)
				}
				slices.Sort(cs)
			default:
				for v := max(cv-r, 0); v <= min(cv+r, dj-1); v++ {
					cs = append(cs, v)
				}
			}
			a.coords[j] = cs
		}
		// the higher dimensions outermost: node indices ascend
		idx := a.idx
		clear(idx)
		for {
			base, st := 0, 1
			for j := 1; j < d; j++ {
				st *= x.dims[j-1]
				base += a.coords[j][idx[j]] * st
			}
			for _, xv := range a.coords[0] {
				if v := base + xv; a.st.IsFree(v) {
					inner = append(inner, v)
				}
			}
			j := 1
			for ; j < d; j++ {
				if idx[j]++; idx[j] < len(a.coords[j]) {
					break
				}
				idx[j] = 0
			}
			if j >= d {
				break
			}
		}
	}
	a.chooseBuf = inner
	last := a.chooseLast(i, L, m)
	slices.Sort(last)
	return mergeSorted(inner, last, k)
}

// choose2D is choose on a 2D mesh in O(k + m log m): the inner ball's free nodes
// come in increasing order row by row from the free map's words, the m nodes of
// the outer shell are sorted and merged in.
func (a *mc1x1) choose2D(i, k, L, m int) []int {
	x := a.x
	X, Y := x.dims[0], x.dims[1]
	c := a.fl[i]
	cx, cy := int(x.coord[2*c]), int(x.coord[2*c+1])
	inner := a.chooseBuf[:0]
	if r := L - 1; r >= 0 {
		x0, x1 := max(cx-r, 0), min(cx+r, X-1)
		for y := max(cy-r, 0); y <= min(cy+r, Y-1); y++ {
			base := y * X
			inner = a.st.appendFreeIn(inner, base+x0, base+x1)
		}
	}
	a.chooseBuf = inner
	last := a.chooseLast(i, L, m)
	slices.Sort(last)
	return mergeSorted(inner, last, k)
}

// chooseLast returns the m nodes taken from the outermost shell (radius L) of the
// candidate centered on a.fl[i], in no particular order. The result aliases scratch
// space.
//
// In the working array after the stable sort for center i, the shell's nodes are
// ordered by (d_{i-1}, d_{i-2}, ..., d_0, free-list position), d_j the distance from
// center j. Only set membership matters, so instead of sorting the shell this walks
// back through the earlier centers refining just the group of nodes that straddles
// the cut at m: nodes closer to center j than the cut value are in, farther ones out.
func (a *mc1x1) chooseLast(i, L, m int) []int {
	if a.x.d == 2 && !a.x.anyWrap {
		return a.chooseLast2D(i, L, m)
	}
	c := a.fl[i]
	a.sh = a.shellNodes(c, L, a.sh[:0])
	S := a.sh
	if m == len(S) {
		return S
	}
	in, hi, need := a.refine(i, S, m, false)
	if need > 0 && need < hi-in {
		g := S[in:hi]
		slices.SortFunc(g, func(p, q int) int { return int(a.pos[p] - a.pos[q]) })
	}
	return S[:in+need]
}

// wallInLast returns how many of the nodes chooseLast(i, L, m) would return lie on
// the mesh boundary, refining only until the undecided nodes are all on it or all
// off it.
func (a *mc1x1) wallInLast(i, L, m int) int {
	a.sh = a.shellNodes(a.fl[i], L, a.sh[:0])
	S := a.sh
	in, hi, need := a.refine(i, S, m, true)
	walls := 0
	for _, v := range S[:in] {
		if a.x.wall[v] {
			walls++
		}
	}
	g := S[in:hi]
	if need > 0 && need < len(g) {
		if gw := a.countWall(g); gw == 0 || gw == len(g) {
			return walls + need*gw/len(g)
		}
		slices.SortFunc(g, func(p, q int) int { return int(a.pos[p] - a.pos[q]) })
	}
	return walls + a.countWall(g[:need])
}

func (a *mc1x1) countWall(nodes []int) int {
	n := 0
	for _, v := range nodes {
		if a.x.wall[v] {
			n++
		}
	}
	return n
}

// refine walks back through the centers before i, narrowing the group of shell
// nodes S that straddles the cut at m (see chooseLast). It reorders S and returns
// in, hi, need: S[:in] are taken, S[in:hi] undecided, need more of them taken. With
// wallOnly it stops as soon as the undecided nodes are all on or all off the wall.
func (a *mc1x1) refine(i int, S []int, m int, wallOnly bool) (in, hi, need int) {
	return a.refineFrom(i-1, S, 0, len(S), m, wallOnly)
}

// refineFrom is refine from center j back, S[:in] taken already, S[in:hi]
// undecided, need more of them to take.
func (a *mc1x1) refineFrom(j0 int, S []int, in, hi, need int, wallOnly bool) (int, int, int) {
	keys, hist := a.dist[:0], a.distHist
	if n := a.x.maxLinf + 1; len(hist) < n {
		hist = make([]int, n)
	}
	mesh2D := a.x.d == 2 && !a.x.anyWrap
	co := a.x.coord
	// On a 2D mesh, once a center has left g as it was, g's bounding box is worked
	// out, and the centers that see the whole box at one distance are skipped in
	// O(1) (as in lastBits): that is every center that leaves g as it was, since
	// such a g lies in one row or column (a box two wide either way is at several
	// distances from every point).
	box, boxed := [4]int32{}, false
	// Off 2D meshes, once a center has left g as it was, g's distinct
	// coordinates along each dimension are listed (a.gco), and a center that
	// sees every node of g at one distance is passed over by those lists, at
	// most 2L+1 per dimension, instead of a distance per node of g (seesAtOne).
	listed := false
	changed := true // g changed since the wall test
	for j := j0; j >= 0 && need > 0 && need < hi-in; j-- {
		g := S[in:hi]
		if wallOnly && changed {
			if gw := a.countWall(g); gw == 0 || gw == len(g) {
				break
			}
			changed = false
		}
		cj := a.fl[j]
		if listed && a.seesAtOne(cj) {
			continue
		}
		if boxed {
			px, py := co[2*cj], co[2*cj+1]
			dx0, dx1 := intervalDist(px, box[0], box[1])
			dy0, dy1 := intervalDist(py, box[2], box[3])
			if max(dx0, dy0) == max(dx1, dy1) {
				j = a.skipRun(j, box)
				continue
			}
		}
		keys = keys[:0]
		lo, up := int32(math.MaxInt32), int32(-1)
		if mesh2D {
			cx, cy := co[2*cj], co[2*cj+1]
			for _, v := range g {
				d := max(abs32(co[2*v]-cx), abs32(co[2*v+1]-cy))
				keys = append(keys, d)
				hist[d]++
				lo, up = min(lo, d), max(up, d)
			}
		} else {
			for _, v := range g {
				d := int32(a.x.linf(cj, v))
				keys = append(keys, d)
				hist[d]++
				lo, up = min(lo, d), max(up, d)
			}
		}
		if lo == up {
			hist[lo] = 0
			if !mesh2D && !listed {
				a.listCoords(g)
				listed = true
			}
			if mesh2D && !boxed {
				box, boxed = [4]int32{math.MaxInt32, -1, math.MaxInt32, -1}, true
				for _, v := range g {
					x, y := co[2*v], co[2*v+1]
					box = [4]int32{min(box[0], x), max(box[1], x), min(box[2], y), max(box[3], y)}
				}
			}
			continue
		}
		boxed, listed, changed = false, false, true
		// Cut value: the need-th smallest key; g is split into < cut, == cut and
		// > cut (the order inside each part does not matter for membership).
		cut, less := lo, 0
		for less+hist[cut] < need {
			less += hist[cut]
			cut++
		}
		eq := hist[cut]
		clear(hist[lo : up+1])
		// In place, keys alongside: g[:p0] < cut, g[p0:p1] == cut, g[p2:] > cut.
		p0, p1, p2 := 0, 0, len(g)
		for p1 < p2 {
			switch d := keys[p1]; {
			case d < cut:
				g[p0], g[p1] = g[p1], g[p0]
				keys[p0], keys[p1] = d, keys[p0]
				p0++
				p1++
			case d > cut:
				p2--
				g[p1], g[p2] = g[p2], g[p1]
				keys[p1], keys[p2] = keys[p2], d
			default:
				p1++
			}
		}
		in += less
		need -= less
		hi = in + eq
	}
	a.dist, a.distHist = keys, hist
	return in, hi, need
}

// listCoords sets a.gco[j] to the distinct coordinates along dimension j of the
// nodes g, for seesAtOne.
func (a *mc1x1) listCoords(g []int) {
	x := a.x
	d := x.d
	if len(a.gco) != d {
		a.gco = make([][]int32, d)
	}
	for j := range d {
		cs := a.gco[j][:0]
		for _, v := range g {
			cs = append(cs, x.coord[v*d+j])
		}
		slices.Sort(cs)
		a.gco[j] = slices.Compact(cs)
	}
}

// seesAtOne reports whether node p is at one L-infinity distance from every
// node of g, from g's distinct coordinates per dimension (listCoords): p's
// least distance to a node of g is at least the largest over the dimensions of
// its least distance along one, its largest at most the largest along one, and
// when the two agree every node of g is at that distance. (When they do not,
// the caller works the distances out node by node.)
func (a *mc1x1) seesAtOne(p int) bool {
	x := a.x
	d := x.d
	lo, hi := 0, 0
	for j, cs := range a.gco {
		pv := int(x.coord[p*d+j])
		mn, mx := math.MaxInt, 0
		for _, c := range cs {
			v := x.g.AxisDist(j, pv, int(c))
			mn, mx = min(mn, v), max(mx, v)
		}
		lo, hi = max(lo, mn), max(hi, mx)
	}
	return lo == hi
}

// shellNodes appends the free nodes at L-infinity distance exactly r from c.
func (a *mc1x1) shellNodes(c, r int, dst []int) []int {
	x := a.x
	d := x.d
	if d == 2 && !x.anyWrap {
		return a.ringNodes2D(int(x.coord[2*c]), int(x.coord[2*c+1]), r, dst)
	}
	// Coordinates of the ball, per dimension, with their axis distances.
	if len(a.coords) != d {
		a.coords = make([][]int, d)
		a.idx = make([]int, d)
	}
	coords := a.coords
	for j := range coords {
		coords[j] = coords[j][:0]
	}
	for j, dj := range x.dims {
		cv := int(x.coord[c*d+j])
		if x.wrap[j] && 2*r+1 >= dj {
			for v := range dj {
				coords[j] = append(coords[j], v)
			}
			continue
		}
		for v := cv - r; v <= cv+r; v++ {
			w := v
			if x.wrap[j] {
				w = (v%dj + dj) % dj
			} else if v < 0 || v >= dj {
				continue
			}
			coords[j] = append(coords[j], w)
		}
	}
	axis := func(j, v int) int {
		t := v - int(x.coord[c*d+j])
		if t < 0 {
			t = -t
		}
		if x.wrap[j] && x.dims[j]-t < t {
			t = x.dims[j] - t
		}
		return t
	}
	idx := a.idx // positions in coords for dims 1..d-1
	clear(idx)
	for {
		outerMax, base := 0, 0
		st := 1
		for j := 0; j < d; j++ {
			if j > 0 {
				v := coords[j][idx[j]]
				base += v * st
				outerMax = max(outerMax, axis(j, v))
			}
			st *= x.dims[j]
		}
		if outerMax <= r {
			for _, v := range coords[0] {
				if outerMax == r || axis(0, v) == r {
					if n := base + v; a.st.IsFree(n) {
						dst = append(dst, n)
					}
				}
			}
		}
		j := 1
		for ; j < d; j++ {
			idx[j]++
			if idx[j] < len(coords[j]) {
				break
			}
			idx[j] = 0
		}
		if j >= d {
			break
		}
	}
	return dst
}

// ringNodes2D appends the free nodes at L-infinity distance exactly r from (cx, cy)
// on a 2D mesh.
func (a *mc1x1) ringNodes2D(cx, cy, r int, dst []int) []int {
	X, Y := a.x.dims[0], a.x.dims[1]
	if r == 0 {
		if v := cx + cy*X; a.st.IsFree(v) {
			dst = append(dst, v)
		}
		return dst
	}
	x0, x1 := max(0, cx-r), min(X-1, cx+r)
	for _, yy := range [2]int{cy - r, cy + r} {
		if yy < 0 || yy >= Y {
			continue
		}
		for xx := x0; xx <= x1; xx++ {
			if v := xx + yy*X; a.st.IsFree(v) {
				dst = append(dst, v)
			}
		}
	}
	y0, y1 := max(0, cy-r+1), min(Y-1, cy+r-1)
	for _, xx := range [2]int{cx - r, cx + r} {
		if xx < 0 || xx >= X {
			continue
		}
		for yy := y0; yy <= y1; yy++ {
			if v := xx + yy*X; a.st.IsFree(v) {
				dst = append(dst, v)
			}
		}
	}
	return dst
}

// boxSkip reports whether the earlier center at j, at (px, py), sees the undecided
// nodes' bounding box at one distance (its nearest and farthest Chebyshev distance to
// the box agree), and if so returns the index skipRun jumps to.
func (a *mc1x1) boxSkip(j int, px, py int32, box [4]int32) (int, bool) {
	dx0, dx1 := intervalDist(px, box[0], box[1])
	dy0, dy1 := intervalDist(py, box[2], box[3])
	if max(dx0, dy0) != max(dx1, dy1) {
		return j, false
	}
	return a.skipRun(j, box), true
}

// skipRun returns the first index j' <= j such that every center fl[j'..j] sees the
// box at one distance, given that fl[j] does (so the walks back through the earlier
// centers in lastBits, refineFrom and chooseLast2D jump over them). Such a box on a
// 2D mesh is one row or one column (or one node), and the free list goes column by
// column (FreeListOrder), so the centers of fl[j]'s column that see it so from
// fl[j] down form one run, found by binary search: for a row y0 (x0..x1), every
// center at vertical distance at least max(|px-x0|, |px-x1|); for a column x0
// (y0..y1), the centers with y in [y1-D, y0+D], D = |px-x0|. It binary-searches only
// when fl[j-1] is in the run too, so a run of one costs O(1).
func (a *mc1x1) skipRun(j int, box [4]int32) int {
	if j == 0 {
		return j
	}
	co := a.x.coord
	Y := int32(a.x.dims[1])
	p := a.fl[j]
	px, py := co[2*p], co[2*p+1]
	var ylo int32
	switch {
	case box[0] == box[1] && box[2] == box[3]: // one node: always at one distance
		return 0
	case box[2] == box[3]:
		W := max(abs32(px-box[0]), abs32(px-box[1]))
		if ylo = 0; py >= box[2]+W {
			ylo = box[2] + W
		}
	case box[0] == box[1]:
		ylo = max(box[3]-abs32(px-box[0]), 0)
	default:
		return j
	}
	q := a.fl[j-1]
	if co[2*q] != px || co[2*q+1] < ylo {
		return j
	}
	target := px*Y + ylo
	return sort.Search(j, func(k int) bool {
		v := a.fl[k]
		return co[2*v]*Y+co[2*v+1] >= target
	})
}
