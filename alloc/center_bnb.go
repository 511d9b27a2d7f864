package alloc

import (
	"math"
	"math/bits"
	"slices"

	"github.com/procalloc/procalloc/topo"
)

// freeBoxes counts the free nodes of any box of a mesh or torus from the prefix
// sums of the free map ((side+1) entries per dimension, entry (x_0+1, x_1+1, ...)
// the free nodes with coordinates <= x): 2^d lookups per box, and along a wrapped
// dimension a box that crosses the seam is two boxes (the whole ring when the box
// is at least as long). Along a dimension without wraparound a box is clipped to
// the mesh. MC1x1 shares the array of its gridIndex (the same layout, rebuilt by
// it); MC keeps its own (rebuild).
type freeBoxes struct {
	dims []int
	wrap []bool
	d    int
	str  []int // strides of the prefix array: (dims[j]+1) per dimension
	pre  []int32
	ivl  [][2][2]int // scratch: per dimension up to two corner-offset pairs
	nivl []int
	cur  []int
	// dirty: the corner from which the prefix sums are out of date (touch):
	// dims when up to date, zeros when not built. Kept by MC (MC1x1 keeps its
	// gridIndex's).
	dirty []int
	src   *State // the state last built from: another one rebuilds whole
}

func newFreeBoxes(g *topo.Grid, pre []int32) *freeBoxes {
	f := &freeBoxes{dims: g.Dims(), wrap: g.Wrap(), d: g.Dim(), pre: pre}
	size := 1
	for _, dj := range f.dims {
		f.str = append(f.str, size)
		size *= dj + 1
	}
	if f.pre == nil {
		f.pre = make([]int32, size)
	}
	f.ivl, f.nivl, f.cur = make([][2][2]int, f.d), make([]int, f.d), make([]int, f.d)
	f.dirty = make([]int, f.d)
	return f
}

// touch records that the free bits of nodes changed: the corner
// moves to the first node's slab of the last dimension, whole along the others
// (the least node index alone, without a coordinate per node: on issue 32's
// workload MC's jobs are thousands of nodes, and a coordinate each cost 7% of
// its time).
func (f *freeBoxes) touch(nodes []int) {
	if len(nodes) == 0 {
		return
	}
	first := nodes[0]
	for _, v := range nodes {
		first = min(first, v)
	}
	slab := 1 // nodes per coordinate of the last dimension
	for _, dj := range f.dims[:f.d-1] {
		slab *= dj
	}
	clear(f.dirty[:f.d-1])
	f.dirty[f.d-1] = min(f.dirty[f.d-1], first/slab)
}

// touchIn is touch for the nodes of a bitmap (BulkOccupier): the least is the
// first bit set. It reports whether the bitmap holds any node.
func (f *freeBoxes) touchIn(set []uint64) bool {
	for w, x := range set {
		if x != 0 {
			f.touch([]int{w<<6 + bits.TrailingZeros64(x)})
			return true
		}
	}
	return false
}

// rebuild brings the prefix sums up to date with the free map of s, from the
// dirty corner on (freePrefixSumsFrom).
func (f *freeBoxes) rebuild(s *State) {
	if s != f.src {
		f.src = s
		clear(f.dirty)
	}
	if breakDirtyCorner {
		f.dirty[f.d-1]++
	}
	freePrefixSumsFrom(f.pre, f.dims, f.str, s, f.dirty)
	copy(f.dirty, f.dims)
}

// freePrefixSumsFrom brings pre (freePrefixSums' layout) up to date with the free
// map of s when only nodes with coordinates >= lo in every dimension changed
// since it was last filled (lo all zeros: not filled yet). Only the entries that
// count such a node are recomputed: on two and three dimensions, entry by entry
// from the corner on, P(x,y,z) = (the row's free nodes up to x) + P(x,y-1,z) +
// P(x,y,z-1) - P(x,y-1,z-1), each row's running sum starting from the entries
// of column x0-1, which count no changed node; from scratch otherwise, or when
// the corner is the origin. The values are those of freePrefixSums (integer sums).
func freePrefixSumsFrom(pre []int32, dims, str []int, s *State, lo []int) {
	d := len(dims)
	origin := true
	for _, c := range lo {
		origin = origin && c == 0
	}
	if origin || d < 2 || d > 3 {
		freePrefixSums(pre, dims, str, s)
		return
	}
	for j, c := range lo {
		if c >= dims[j] {
			return // nothing changed
		}
	}
	X, x0, sy := dims[0], lo[0], str[1]
	z0, Z, sz := 0, 1, 0 // a 2D machine: one slab, no slab before it
	if d == 3 {
		z0, Z, sz = lo[2], dims[2], str[2]
	}
	for z := z0; z < Z; z++ {
		for y := lo[1]; y < dims[1]; y++ {
			b := (z+1)*sz + (y+1)*sy // prefix entry (0, y+1, z+1)
			row, up := pre[b:b+X+1], pre[b-sy:b-sy+X+1]
			v0 := (z*dims[1] + y) * X // node (0, y, z)
			if d == 2 {
				lineRun(row[x0+1:], s.free, v0+x0, row[x0]-up[x0])
				for i, u := range up[x0+1:] {
					row[x0+1+i] += u
				}
				continue
			}
			back, bu := pre[b-sz:b-sz+X+1], pre[b-sz-sy:b-sz-sy+X+1]
			lineRun(row[x0+1:], s.free, v0+x0, row[x0]-up[x0]-back[x0]+bu[x0])
			r, u, k, ku := row[x0+1:], up[x0+1:], back[x0+1:], bu[x0+1:]
			u, k, ku = u[:len(r)], k[:len(r)], ku[:len(r)]
			for i := range r {
				r[i] += u[i] + k[i] - ku[i]
			}
		}
	}
}

// lineRun sets row[i] to run plus the free nodes among v..v+i (free map words
// free): eight nodes at a time from their free map byte's running counts
// (bytePrefix), as freePrefixSums' lines, from any first node v.
func lineRun(row []int32, free []uint64, v int, run int32) {
	x := 0
	for ; x+8 <= len(row); x += 8 {
		u := v + x
		w := free[u>>6] >> (u & 63)
		if u&63 > 56 { // the byte runs into the next word
			w |= free[u>>6+1] << (64 - u&63)
		}
		t := &bytePrefix[uint8(w)]
		r := row[x : x+8 : x+8]
		for i, c := range t {
			r[i] = run + int32(c)
		}
		run += int32(t[7])
	}
	for ; x < len(row); x++ {
		u := v + x
		run += int32(free[u>>6] >> (u & 63) & 1)
		row[x] = run
	}
}

// freePrefixSums fills pre (strides str, (dims[j]+1) entries per dimension) with
// the prefix sums of the free map of s: slab by slab of the last dimension, the
// running count along each line of dimension 0 read off the free map's words,
// cumulative sums along the dimensions between within the slab, then the
// previous slab added. (The same sums as a pass over the whole array per
// dimension, in an order that keeps one slab and the previous in cache: a
// 110,592-node 3D torus's table is 470 KB, a slab of it 9.6 KB.)
func freePrefixSums(pre []int32, dims, str []int, s *State) {
	// The padding entries (a coordinate 0 in the layout) are never written and
	// stay zero; every other entry is written by the lines before the
	// cumulative sums add to it, so the array is not cleared first.
	d, X := len(dims), dims[0]
	v := 0 // the first node of the next line
	// line fills one line of dimension 0, from node v
	line := func(row []int32) {
		lineRun(row, s.free, v, 0)
		v += X
	}
	if d == 1 {
		line(pre[1 : X+1])
		return
	}
	slab := str[d-1] // entries per slab (one coordinate of the last dimension)
	lines := slab / (X + 1)
	for z := 1; z <= dims[d-1]; z++ {
		base := z * slab
		for li := range lines {
			// skip the padding lines (a coordinate of dimensions 1..d-2 is 0)
			rest, pad := li, false
			for j := 1; j < d-1; j++ {
				pad = pad || rest%(dims[j]+1) == 0
				rest /= dims[j] + 1
			}
			if !pad {
				line(pre[base+li*(X+1)+1 : base+li*(X+1)+X+1])
			}
		}
		for j := 1; j < d-1; j++ {
			st, dj := str[j], dims[j]
			block := st * (dj + 1)
			for b := base; b < base+slab; b += block {
				for x := 1; x <= dj; x++ {
					row := b + x*st
					p, q := pre[row:row+st], pre[row-st:row]
					for i := range p {
						p[i] += q[i]
					}
				}
			}
		}
		if z > 1 {
			p, q := pre[base:base+slab], pre[base-slab:base]
			for i := range p {
				p[i] += q[i]
			}
		}
	}
}

// bytePrefix[b][i] is the number of ones among bits 0..i of b.
var bytePrefix = func() (t [256][8]uint8) {
	for b := range 256 {
		c := uint8(0)
		for i := range 8 {
			c += uint8(b >> i & 1)
			t[b][i] = c
		}
	}
	return t
}()

// count returns the number of free nodes in the box lo..hi (inclusive, in plain
// coordinates that may lie outside the machine): clipped to the mesh along a
// dimension without wraparound, taken around the ring along one with it.
func (f *freeBoxes) count(lo, hi []int) int {
	split := false
	for j, dj := range f.dims {
		l, h := lo[j], hi[j]
		st := f.str[j]
		switch {
		case !f.wrap[j]:
			l, h = max(l, 0), min(h, dj-1)
			if l > h {
				return 0
			}
		case h-l+1 >= dj:
			l, h = 0, dj-1
		default:
			l %= dj
			if l < 0 {
				l += dj
			}
			if h = l + hi[j] - lo[j]; h >= dj {
				// across the seam: l..dj-1 and 0..h-dj
				f.ivl[j] = [2][2]int{{l * st, dj * st}, {0, (h - dj + 1) * st}}
				f.nivl[j] = 2
				split = true
				continue
			}
		}
		f.ivl[j][0] = [2]int{l * st, (h + 1) * st}
		f.nivl[j] = 1
	}
	if !split {
		return f.box()
	}
	clear(f.cur)
	n := 0
	for {
		n += f.box()
		j := 0
		for ; j < f.d; j++ {
			if f.nivl[j] == 2 {
				f.ivl[j][0], f.ivl[j][1] = f.ivl[j][1], f.ivl[j][0]
				if f.cur[j] ^= 1; f.cur[j] == 1 {
					break
				}
			}
		}
		if j == f.d {
			return n
		}
	}
}

// countSize returns count(lo, hi) and the number of nodes of the box (clipped
// to the mesh, at most the ring along a wrapped dimension; 0 and 0 when the box
// is empty), summed here directly in up to three dimensions.
func (f *freeBoxes) countSize(lo, hi []int) (free, size int) {
	if f.d > 3 {
		size = 1
		for j := range f.d {
			size *= f.span(j, lo[j], hi[j])
		}
		if size == 0 {
			return 0, 0
		}
		return f.count(lo, hi), size
	}
	size = 1
	// Per dimension three prefix-sum offsets, read with the signs +, -, +:
	// h+1, l and 0 (the padding's entry, 0), or across a seam the ring, l and
	// h-dj+1 (the pieces l..dj-1 and 0..h-dj share the ring's 0 term). So the
	// sum is the same 3^d entries whatever the seams, without branches on how
	// many pieces a box has: on issue 32's torus:32x32x32 the boxes came in 1,
	// 2, 4 and 8 pieces alike often (wt-gt4's count).
	var A [3][3]int // dimensions past d: 0, 0, 0 (+P[.] - P[.] + P[.])
	for j, dj := range f.dims {
		l, h := lo[j], hi[j]
		st := f.str[j]
		switch {
		case !f.wrap[j]:
			l, h = max(l, 0), min(h, dj-1)
			if l > h {
				return 0, 0
			}
		case h < l:
			return 0, 0
		case h-l+1 >= dj:
			l, h = 0, dj-1
		default:
			for l < 0 {
				l += dj
				h += dj
			}
			for l >= dj {
				l -= dj
				h -= dj
			}
			if h >= dj { // across the seam: l..dj-1 and 0..h-dj
				size *= h - l + 1
				A[j] = [3]int{dj * st, l * st, (h - dj + 1) * st}
				continue
			}
		}
		size *= h - l + 1
		A[j][0], A[j][1] = (h+1)*st, l*st
	}
	P := f.pre
	a0, a1, a2 := A[0][0], A[0][1], A[0][2]
	switch f.d {
	case 1:
		free = int(P[a0] - P[a1] + P[a2])
	case 2:
		row := func(b int) int32 { return P[b+a0] - P[b+a1] + P[b+a2] }
		free = int(row(A[1][0]) - row(A[1][1]) + row(A[1][2]))
	case 3:
		row := func(b int) int32 { return P[b+a0] - P[b+a1] + P[b+a2] }
		b0, b1, b2 := A[1][0], A[1][1], A[1][2]
		plane := func(c int) int32 { return row(c+b0) - row(c+b1) + row(c+b2) }
		free = int(plane(A[2][0]) - plane(A[2][1]) + plane(A[2][2]))
	}
	return free, size
}

// span is the number of distinct coordinates of lo..hi along dimension j
// (clipped to the mesh, at most the ring).
func (f *freeBoxes) span(j, lo, hi int) int {
	if f.wrap[j] {
		return max(0, min(hi-lo+1, f.dims[j]))
	}
	return max(0, min(hi, f.dims[j]-1)-max(lo, 0)+1)
}

// box sums the prefix array over the box whose corner offsets are f.ivl[j][0].
func (f *freeBoxes) box() int {
	P, v := f.pre, f.ivl
	switch f.d {
	case 1:
		return int(P[v[0][0][1]] - P[v[0][0][0]])
	case 2:
		a0, b0, a1, b1 := v[0][0][0], v[0][0][1], v[1][0][0], v[1][0][1]
		return int(P[b0+b1] - P[a0+b1] - P[b0+a1] + P[a0+a1])
	case 3:
		a0, b0, a1, b1, a2, b2 := v[0][0][0], v[0][0][1], v[1][0][0], v[1][0][1], v[2][0][0], v[2][0][1]
		return int(P[b0+b1+b2] - P[a0+b1+b2] - P[b0+a1+b2] - P[b0+b1+a2] +
			P[a0+a1+b2] + P[a0+b1+a2] + P[b0+a1+a2] - P[a0+a1+a2])
	}
	var s int32
	for mask := 0; mask < 1<<f.d; mask++ {
		p, neg := 0, false
		for j := range f.d {
			if mask>>j&1 != 0 {
				p += v[j][0][0]
				neg = !neg
			} else {
				p += v[j][0][1]
			}
		}
		if neg {
			s -= P[p]
		} else {
			s += P[p]
		}
	}
	return int(s)
}

// centerSearch finds, among the free nodes of a mesh or torus, every center of least
// cost for the center-based allocators whose cost is a sum over growing boxes: with
// F_c(r) the free nodes in center c's box at step r (along dimension j the
// coordinates c_j - off_j - r .. c_j - off_j + width_j - 1 + r), the cost of c for k
// nodes is
//
//	cost(c) = sum over r >= 0 of max(0, k - F_c(r)),
//
// the sum of the step numbers of the k nodes taken from the smallest steps. MC1x1's
// shell score is this with width 1 and offset 0 (the L-infinity balls: Bender et al.
// 2005 §5), MC's is this with the requested submesh shape (Mache, Lo and Windisch
// 1997). The plain definition tries every free node as center; this search is a
// best-first branch and bound over an implicit 2^d-ary tree of boxes of centers
// (halved along every dimension at each level): the centers of a box B all have
// their step-r box inside B's own box grown by the same amounts, and hold at most
// prod_j min(width_j + 2r, side_j) nodes in it, so
//
//	sum over r of max(0, k - min(free nodes in B's grown box, that product))
//
// is a lower bound on the cost of every center in B, read from the prefix sums
// (freeBoxes) in O(2^d) per step. Boxes are opened in order of their bound and
// dropped when it exceeds the best cost found; a box of one node is its exact
// cost. Only boxes whose bound is strictly greater than the best cost are
// dropped, so every center that ties for the best is found: the callers apply
// their own tie-breaking to the whole set, exactly as over every center.
type centerSearch struct {
	fb    *freeBoxes
	dims  []int
	d     int
	off   []int // per dimension, the box's low side relative to the center at step 0
	width []int // per dimension, the box's width at step 0
	// rank orders the centers as the caller's tie-breaking does: rank(c) = sum of
	// c_j * rank[j], nondecreasing in every coordinate, so a box's least rank is
	// its low corner's. With first, only the center of least cost and least rank
	// is wanted: a box whose bound equals the best cost is dropped too once its
	// low corner ranks after the best center.
	rank  []int
	first bool
	hint  int // the step L of the last center scored (bound)
	// With maxLeaves > 0 the search gives up (stop = stopTies) once more centers
	// than that share the least cost so far; with budget > 0, once its bounds
	// have read more than budget box counts (stop = stopBudget). It then returns
	// nil: the caller finds the centers another way.
	maxLeaves, budget int
	spent             int
	stop              searchStop
	// When it gives up at maxLeaves with the least cost already certain (no
	// box left open can hold a cheaper center), leastKnown is set and least
	// is a center of that cost (mc1x1's tieSearch starts from it).
	least      bnbLeaf
	leastKnown bool

	q      boxQueue[int]
	leaves []bnbLeaf
	lo, hi []int // scratch
	e, clo []int
}

// searchStop says why centerSearch.search gave up.
type searchStop uint8

const (
	searchDone searchStop = iota // it did not
	stopTies                     // more than maxLeaves centers tie
	stopBudget                   // it read more than budget box counts
)

// bnbLeaf is a center of least cost: node, cost, the first step L whose box holds k
// free nodes, and the free nodes in the box of step L-1 (0 when L = 0).
type bnbLeaf struct{ node, cost, L, inner int }

func newCenterSearch(g *topo.Grid, fb *freeBoxes) *centerSearch {
	d := g.Dim()
	s := &centerSearch{fb: fb, dims: g.Dims(), d: d, off: make([]int, d), width: make([]int, d),
		lo: make([]int, d), hi: make([]int, d), e: make([]int, d), clo: make([]int, d), rank: make([]int, d),
		q: boxQueue[int]{d: d}}
	st := 1
	for j, dj := range s.dims { // node-index order by default
		s.rank[j] = st
		st *= dj
	}
	return s
}

// bound returns the lower bound on the cost of the centers in the box of low corner
// lo and extents e (the exact cost when every extent is 1), the first step L at
// which the bound's count reaches k, and the count at step L-1; ok false when the
// bound exceeds limit (then the other values are meaningless).
func (s *centerSearch) bound(lo, e []int, k, limit int) (lb, L, inner int, ok bool) {
	// capacity(r): the most nodes one center's step-r box holds (prod_j of its
	// extent, clipped to the grown box); for one center, exactly its box's nodes.
	// The count U(r) of the grown box never falls as r grows, so once U was
	// counted at least capacity(r), min(U(r), capacity(r)) is capacity(r)
	// without counting again (on a mostly free machine most steps).
	prev, known := 0, -1
	// For one center, when its box at the last center's step L-1 is all free so
	// are its boxes at every smaller step (they lie inside): those steps are not
	// counted (a young free set: large free regions where many centers tie).
	full := -1
	if single := slices.Max(e) == 1; single && s.hint > 1 {
		if c := s.step(lo, e, s.hint-1); s.fb.count(s.lo, s.hi) == c {
			full = s.hint - 1
		}
	}
	for r := 0; ; r++ {
		capacity := s.step(lo, e, r)
		f := capacity
		if r > full && capacity > known {
			s.spent++
			known = s.fb.count(s.lo, s.hi)
			f = min(known, capacity)
		}
		if f >= k {
			if slices.Max(e) == 1 {
				s.hint = r
			}
			return lb, r, prev, true
		}
		lb += k - f
		if lb > limit {
			return 0, 0, 0, false
		}
		prev = f
	}
}

// step sets s.lo, s.hi to the box of the centers of the box lo (extents e) grown to
// step r, and returns capacity(r) (bound).
func (s *centerSearch) step(lo, e []int, r int) (capacity int) {
	capacity = 1
	for j, dj := range s.dims {
		s.lo[j] = lo[j] - s.off[j] - r
		s.hi[j] = lo[j] + e[j] - 1 - s.off[j] + s.width[j] - 1 + r
		span := s.hi[j] - s.lo[j] + 1 // the grown box, clipped or wrapped
		if s.fb.wrap[j] {
			span = min(span, dj)
		} else {
			span = min(s.hi[j], dj-1) - max(s.lo[j], 0) + 1
		}
		capacity *= max(0, min(s.width[j]+2*r, span))
	}
	return capacity
}

// search returns every free center of least cost for k nodes (in no particular
// order; with s.first only the one of least rank), with the offsets and widths set
// by the caller (s.off, s.width) and the prefix sums (s.fb) up to date with st, or
// nil when it gives up (maxLeaves, budget; s.stop says why). At least one node
// must be free and k at most the free nodes.
func (s *centerSearch) search(st *State, k int) []bnbLeaf {
	s.q.reset()
	s.leaves = s.leaves[:0]
	s.spent, s.stop, s.leastKnown = 0, searchDone, false
	d := s.d
	J := 0
	for _, dj := range s.dims {
		J = max(J, bits.Len(uint(dj-1)))
	}
	best, bestRank := math.MaxInt, math.MaxInt
	clear(s.clo)
	if J == 0 { // one node
		for j := range d {
			s.e[j] = 1
		}
		cost, L, inner, _ := s.bound(s.clo, s.e, k, best)
		return append(s.leaves, bnbLeaf{0, cost, L, inner})
	}
	// The root: every center.
	s.q.push(s.clo, J, 0, s.rankOf(s.clo))
	for len(s.q.heap) > 0 {
		it, level, base := s.q.pop()
		if it.lb > best || s.first && it.lb == best && it.rank > bestRank {
			break // so is every box still queued (boxItem.before)
		}
		half := 1 << (level - 1)
		for mask := 0; mask < 1<<d; mask++ {
			if !childBox(base, half, mask, s.dims, s.clo, s.e) {
				continue
			}
			if level == 1 {
				node := nodeIndex(s.dims, s.clo)
				if !st.IsFree(node) {
					continue
				}
				cost, L, inner, ok := s.bound(s.clo, s.e, k, best)
				if !ok {
					continue
				}
				r := s.rankOf(s.clo)
				if s.first && cost == best && r > bestRank {
					continue
				}
				if cost < best || s.first {
					best, bestRank = cost, r
					s.leaves = s.leaves[:0]
				}
				s.leaves = append(s.leaves, bnbLeaf{node, cost, L, inner})
				if s.maxLeaves > 0 && len(s.leaves) > s.maxLeaves {
					s.stop = stopTies
					// best is the least cost when neither the box being
					// opened nor any queued one can hold a cheaper center.
					// The queue needs no check of its own: every queued box
					// was queued before it was popped as the least of the
					// queue (a box of level 1 queues no children), so none
					// is bounded below it.lb (TestCenterSearchQueueAtLeastOpened).
					if it.lb >= best {
						s.least, s.leastKnown = s.leaves[len(s.leaves)-1], true
					}
					return nil
				}
				continue
			}
			// a box with no free node holds no center
			for j := range d {
				s.hi[j] = s.clo[j] + s.e[j] - 1
			}
			if s.fb.count(s.clo, s.hi) == 0 {
				continue
			}
			lb, _, _, ok := s.bound(s.clo, s.e, k, best)
			if s.budget > 0 && s.spent > s.budget {
				s.stop = stopBudget
				return nil
			}
			if !ok {
				continue
			}
			if s.first && lb == best && s.rankOf(s.clo) > bestRank {
				continue
			}
			s.q.push(s.clo, level-1, lb, s.rankOf(s.clo))
		}
	}
	return s.leaves
}

// rankOf is the rank of the center at coordinates c.
func (s *centerSearch) rankOf(c []int) int { return freeRank(c, s.rank) }

// freeRank is the free-list rank of the center at coordinates c, sum of c_j *
// rank[j] (centerSearch and tieSearch keep rank).
func freeRank(c, rank []int) int {
	r := 0
	for j, v := range c {
		r += v * rank[j]
	}
	return r
}
