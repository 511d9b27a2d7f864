package exact

import (
	"context"
	"slices"

	"github.com/procalloc/procalloc/geom"
)

// planeSearch finds the plane partition (down-set of N^3) of k cells minimising
// lineCost(a) + lineCost(b) + lineCost(c), a, b, c its plane counts along x, y and z
// (see marginal.go), by branch and bound over its z-layers: each layer is a Ferrers
// diagram (column heights along y, indexed by x) inside the one below. The axes are
// permuted so that x-extent <= y-extent <= number of layers: the bottom layers are
// narrow, and at least λ_0 layers (λ the bottom layer) are to be filled, which keeps
// the z completion from being too concentrated. (The former orientation, layers <=
// y-extent <= x-extent, is kept as the plain search for the tests; on the same bound
// it took 20% more time at k <= 48.)
//
// Bound of a node with layers 0..t fixed, s cells left for the layers to come, each
// inside layer t: the z counts are completed by the most concentrated choice (layers
// as large as layer t), the x counts by adding the s cells to the largest x planes
// first, at most w·ν_t(x) to plane x (w layers to come), and likewise along y. Each
// completion majorizes every feasible one, so by antitonicity none of the three
// costs can be lower. The completions compete for the same cells: x and y both want
// the corner column, so the bound splits on u, the cells to come in plane x = 0 (the
// other x planes then take at most u each, and the first j y planes at most s - u
// plus what column x = 0 holds of them); z wants few full layers, x and y many, so it
// splits on w too (boundW). The children of a node are generated column by column,
// and a partial layer is bounded for all its extensions at once (boundOpen, also for
// the bottom layers: bottomOpen), so a failing family of layers is dropped without
// being listed.
type planeSearch struct {
	ctx     context.Context
	k       int
	best    int64
	bestLay [][]int
	layers  [][]int
	a, b    []int // x and y plane counts of the fixed layers
	c       []int // sizes of the fixed layers
	zmax    int
	zmin    int // at least this many layers (the bottom layer's y-extent)
	nodes   int64
	evals   int64 // partial layers bounded
	stopped bool
	openLB  int64
	sc      lineScratch
	ca, cb  []int // the bound's completions of a, b and c
	cc      []int
	// boundW's capacities and z completion (see there)
	baseX, tailX, baseY, tailY, col0 []int
	zFixed                           []int
	zT, zCap, zExtra                 int
	memo                             costMemo
	// cachedZ's and cachedXY's values and the bound evaluation they belong to
	zC, xyC []int64
	zS, xyS []uint32
	stamp   uint32
	// nodeZ's values per parent depth, and the push that made each layer (its version)
	pzC    [][]int64
	pzS    [][]uint32
	ver    []uint32
	pushes uint32
	vtop   []int // bottomOpen's layer of unlimited width
	plain  bool  // the former bound alone (no split on r_a[0], no partial layers), for tests
}

func (s *planeSearch) cost3(a, b, c []int) int64 {
	return s.lineCost(a) + s.lineCost(b) + s.lineCost(c)
}

// lineCost is lineCostScratch(w) remembered by the sorted positive entries: the
// bounds ask for the same count vectors again and again (the dynamic program was
// three quarters of the search's time).
func (s *planeSearch) lineCost(w []int) int64 {
	// Key: the entries, 8 bits each, the first eight in k0 and the next in k1; the
	// first entry of each word is nonzero, so the length is implied.
	var k0, k1 uint64
	n, prev := 0, 255
	for _, v := range w {
		if v <= 0 {
			continue
		}
		if v > prev || n == 16 {
			return lineCostScratch(w, &s.sc) // not in the packed form
		}
		if n < 8 {
			k0 = k0<<8 | uint64(v)
		} else {
			k1 = k1<<8 | uint64(v)
		}
		n++
		prev = v
	}
	if n <= 1 {
		return 0
	}
	key := [2]uint64{k0, k1}
	if c, ok := s.memo.get(key); ok {
		return c
	}
	c := lineCostScratch(w, &s.sc)
	s.memo.put(key, c)
	return c
}

// costMemo is a direct-mapped cache from packed count vectors (never zero: they have
// at least two entries) to their lineCost. Vectors recur mostly among nearby nodes, so
// a cache small enough to stay near the processor beats a table of every vector (a Go
// map of all of them spent half of the search's time hashing and missing the cache).
type costMemo struct {
	slots []memoSlot
}

// memoSlot keeps a key next to its value: one cache line per lookup.
type memoSlot struct {
	k [2]uint64
	v int64
}

const memoBits = 16

func (m *costMemo) slot(k [2]uint64) int {
	return int((k[0]*0x9E3779B97F4A7C15 ^ k[1]*0xC2B2AE3D27D4EB4F) >> (64 - memoBits))
}

func (m *costMemo) get(k [2]uint64) (int64, bool) {
	if m.slots == nil {
		m.slots = make([]memoSlot, 1<<memoBits)
	}
	e := &m.slots[m.slot(k)]
	return e.v, e.k == k
}

func (m *costMemo) put(k [2]uint64, v int64) {
	m.slots[m.slot(k)] = memoSlot{k, v}
}

func positive(v []int) []int {
	out := v[:0:0]
	for _, x := range v {
		if x > 0 {
			out = append(out, x)
		}
	}
	return out
}

// bound of the node whose last fixed layer is top, with rem cells left.
func (s *planeSearch) bound(top []int, rem int) int64 {
	F := s.zmax - len(s.layers)
	size := 0
	for _, v := range top {
		size += v
	}
	if rem > F*size {
		return infCost
	}
	if rem == 0 {
		if len(s.layers) < s.zmin {
			return infCost // fewer layers than the bottom is tall: searched turned
		}
		return s.cost3(s.a, s.b, s.c)
	}
	// Per layer to come, plane x takes at most top[x] cells, plane y #{x: top[x] > y},
	// the column (0, y) one if y < top[0].
	baseX, tailX := s.baseX[:0], s.tailX[:0]
	for _, v := range top {
		baseX, tailX = append(baseX, v), append(tailX, 0)
	}
	baseY, tailY, col0 := s.baseY[:0], s.tailY[:0], s.col0[:0]
	for y := range len(s.b) {
		tc := 0
		for x := 0; x < len(top) && top[x] > y; x++ {
			tc++
		}
		baseY, tailY, col0 = append(baseY, tc), append(tailY, 0), append(col0, b2i(y < top[0]))
	}
	s.baseX, s.tailX, s.baseY, s.tailY, s.col0 = baseX, tailX, baseY, tailY, col0
	s.zFixed, s.zT, s.zCap, s.zExtra = s.c, rem, size, 0
	return s.boundW(rem, max((rem+size-1)/size, s.zmin-len(s.layers)), min(F, rem))
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// boundOpen bounds every node below a partial layer: sub, the first len(sub) columns
// of the next layer (already pushed), is to be extended by columns at most
// sub[len-1] and top[x] tall (its tail), and left cells are still to come in it and
// in at most F-1 later layers, each inside it; E is the largest layer sub can grow
// into. Per later layer, plane x takes at most sub[x] (x < len(sub)) or E[x] more
// cells, plus E[x] in the tail; likewise along y; the z counts are completed by parts
// of at most |E| cells.
func (s *planeSearch) boundOpen(top, sub []int, left int) int64 {
	F := s.zmax - len(s.layers) + 1 // the new layer and the ones above it
	x0 := len(sub)
	cp := sub[x0-1]
	nsub := 0
	for _, v := range sub {
		nsub += v
	}
	tail := 0
	for x := x0; x < len(top); x++ {
		tail += min(cp, top[x])
	}
	sizeE := nsub + tail
	if left > tail+(F-1)*sizeE {
		return infCost
	}
	baseX, tailX := s.baseX[:0], s.tailX[:0]
	for x := range top {
		if x < x0 {
			baseX, tailX = append(baseX, sub[x]), append(tailX, 0)
		} else {
			e := min(cp, top[x])
			baseX, tailX = append(baseX, e), append(tailX, e)
		}
	}
	baseY, tailY, col0 := s.baseY[:0], s.tailY[:0], s.col0[:0]
	for y := range len(s.b) {
		all, tl := 0, 0
		for x := 0; x < len(top); x++ {
			e := top[x]
			if x < x0 {
				e = sub[x]
			} else {
				e = min(cp, e)
			}
			if e <= y {
				break
			}
			all++
			if x >= x0 {
				tl++
			}
		}
		baseY, tailY, col0 = append(baseY, all), append(tailY, tl), append(col0, b2i(y < sub[0]))
	}
	s.baseX, s.tailX, s.baseY, s.tailY, s.col0 = baseX, tailX, baseY, tailY, col0
	s.zFixed, s.zT, s.zCap, s.zExtra = s.c[:len(s.c)-1], nsub+left, sizeE, 1
	return s.boundW(left, max(0, (left-tail+sizeE-1)/sizeE, s.zmin-len(s.layers)), min(F-1, left))
}

// The bound of a node, for R cells to come in w layers (boundW) or in the partial
// layer's tail and w layers (boundOpen), w1 <= w <= w2, each layer inside the last
// fixed one (or E): plane x can take w·baseX[x] + tailX[x] more cells, plane y
// w·baseY[y] + tailY[y], the column (0, y) w·col0[y]; the z counts gain w (+ zExtra)
// parts of at most zCap cells, at least one each, zT in all. For each w the three
// completions are the most concentrated feasible ones (majorization, marginal.go), so
// no cost can be lower:
//
//   - z (fillZ): the parts greedily as large as possible, one cell kept for each
//     part still to come;
//   - x (fillX): split on u, the cells to come in plane x = 0: every other plane takes
//     at most u more than its tail (the layers to come are partitions), and the
//     greedy fill in plane order is the most concentrated (fixed plus capacity is
//     nonincreasing along x);
//   - y (fillY): the first j planes hold at most G_j (the greedy prefix sums) and at
//     most R - u plus what the column x = 0 holds of them; the increments of the
//     minimum of these concave sequences are the most concentrated completion.
//
// The x and y completions compete for the corner column, which the split on u
// resolves; the z completion competes with both (fewer, fuller layers leave the
// planes less room), which the split on w resolves. With more layers z only loses
// and x and y only gain; with larger u x only gains and y only loses; so a box of
// splits is bounded by its extreme corners, and boxes are halved only while that
// bound is below the incumbent.
func (s *planeSearch) boundW(R, w1, w2 int) int64 {
	if w1 > w2 {
		return infCost
	}
	s.stamp++         // a new node: forget the completions cached for the last one
	if s.stamp == 0 { // wrapped around: old stamps could match again
		clear(s.zS)
		clear(s.xyS)
		s.stamp = 1
	}
	return s.boundWRange(R, w1, w2, s.best)
}

// boundWRange bounds the splits w1..w2; a value >= T is a bound for all of them, a
// smaller one the bound of the whole interval (the node is not pruned anyway).
func (s *planeSearch) boundWRange(R, w1, w2 int, T int64) int64 {
	fz := s.cachedZ(w1)
	if fz == infCost {
		return infCost
	}
	if w1 == w2 || s.plain {
		return fz + s.boundXYRange(R, w2, 0, min(R, w2*s.baseX[0]+s.tailX[0]), T-fz)
	}
	fx := s.cachedXY(0, R, w2, min(R, w2*s.baseX[0]+s.tailX[0]))
	if fx == infCost {
		return infCost
	}
	lb := fz + fx + s.cachedXY(1, R, w2, 0)
	if lb >= T {
		return lb
	}
	m := (w1 + w2) / 2
	if l := s.boundWRange(R, w1, m, T); l < T {
		return lb
	} else if r := s.boundWRange(R, m+1, w2, T); r < T {
		return lb
	} else {
		return min(l, r)
	}
}

// boundXYRange bounds the x and y costs over the splits u1..u2 with w layers; a
// value >= T is a bound for all of them, a smaller one the bound of the whole
// interval. (Splitting on r_b[0] as well, symmetrically, saved 10% of the nodes and
// cost 30% more time at k = 42-46.)
func (s *planeSearch) boundXYRange(R, w, u1, u2 int, T int64) int64 {
	fx := s.cachedXY(0, R, w, u2)
	if fx == infCost {
		return infCost
	}
	lb := fx + s.cachedXY(1, R, w, u1)
	if lb >= T || u1 == u2 || s.plain {
		return lb
	}
	m := (u1 + u2) / 2
	if l := s.boundXYRange(R, w, u1, m, T); l < T {
		return lb
	} else if r := s.boundXYRange(R, w, m+1, u2, T); r < T {
		return lb
	} else {
		return min(l, r)
	}
}

// cachedZ is fillZ(w), computed once per bound evaluation: the halving of intervals
// asks for the same ends again and again.
func (s *planeSearch) cachedZ(w int) int64 {
	if w >= len(s.zC) {
		s.zC, s.zS = make([]int64, 2*w+2), make([]uint32, 2*w+2)
	}
	if s.zS[w] != s.stamp {
		s.zC[w], s.zS[w] = s.nodeZ(w), s.stamp
	}
	return s.zC[w]
}

// nodeZ is fillZ(w), remembered across the children of one node: for a child layer
// (closed, zExtra 0) or a partial one (zExtra 1) the z completion depends only on the
// parent's layers, its cells to come, zCap and w, and the parent is identified by the
// push of its top layer (ver).
func (s *planeSearch) nodeZ(w int) int64 {
	p := len(s.layers) - 2
	if p < 0 {
		return s.fillZ(w)
	}
	n := s.k + 2
	for len(s.pzC) <= p {
		s.pzC, s.pzS = append(s.pzC, make([]int64, 2*n*n)), append(s.pzS, make([]uint32, 2*n*n))
	}
	i := (s.zExtra*n+s.zCap)*n + w
	if s.pzS[p][i] != s.ver[p] {
		s.pzC[p][i], s.pzS[p][i] = s.fillZ(w), s.ver[p]
	}
	return s.pzC[p][i]
}

// cachedXY is fillX(R, w, u) (axis 0) or fillY(R, w, u) (axis 1), computed once per
// bound evaluation.
func (s *planeSearch) cachedXY(axis, R, w, u int) int64 {
	n := s.k + 2
	if len(s.xyC) < 2*n*n {
		s.xyC, s.xyS = make([]int64, 2*n*n), make([]uint32, 2*n*n)
	}
	i := (axis*n+w)*n + u
	if s.xyS[i] != s.stamp {
		if axis == 0 {
			s.xyC[i] = s.fillX(R, w, u)
		} else {
			s.xyC[i] = s.fillY(R, w, u)
		}
		s.xyS[i] = s.stamp
	}
	return s.xyC[i]
}

// fillZ is lineCost of the fixed layer sizes plus the greediest w + zExtra parts.
func (s *planeSearch) fillZ(w int) int64 {
	m, t := w+s.zExtra, s.zT
	if m > t || m*s.zCap < t {
		return infCost
	}
	c := append(s.cc[:0], s.zFixed...)
	for i := range m {
		p := min(s.zCap, t-(m-1-i))
		c = append(c, p)
		t -= p
	}
	s.cc = c
	return s.lineCost(c)
}

// fillX is lineCost of a plus the greedy x fill with w layers and r_a[0] <= u, or
// infCost when the R cells do not fit.
func (s *planeSearch) fillX(R, w, u int) int64 {
	a := append(s.ca[:0], s.a...)
	r := R
	for x := 0; x < len(s.baseX) && r > 0; x++ {
		c := w*s.baseX[x] + s.tailX[x]
		if x == 0 {
			c = min(c, u)
		} else {
			c = min(c, u+s.tailX[x])
		}
		d := min(r, c)
		a[x] += d
		r -= d
	}
	s.ca = a
	if r > 0 {
		return infCost
	}
	return s.lineCost(a)
}

// fillY is lineCost of b plus the y fill with w layers whose prefix sums are
// min(G_j, R - u + w·Σ_{y<j} col0[y]).
func (s *planeSearch) fillY(R, w, u int) int64 {
	b := append(s.cb[:0], s.b...)
	G, H, prev := 0, R-u, 0
	for y := 0; y < len(s.baseY) && prev < R; y++ {
		G += w*s.baseY[y] + s.tailY[y]
		H += w * s.col0[y]
		P := min(G, H, R)
		b[y] += P - prev
		prev = P
	}
	s.cb = b
	if prev < R {
		return infCost
	}
	return s.lineCost(b)
}

func (s *planeSearch) push(l []int) {
	s.layers = append(s.layers, l)
	s.pushes++
	if s.pushes == 0 { // wrapped around: old versions could match again
		for _, t := range s.pzS {
			clear(t)
		}
		s.pushes = 1
	}
	for len(s.ver) < len(s.layers) {
		s.ver = append(s.ver, 0)
	}
	s.ver[len(s.layers)-1] = s.pushes
	size := 0
	for x, v := range l {
		s.a[x] += v
		for y := range v {
			s.b[y]++
		}
		size += v
	}
	s.c = append(s.c, size)
}

func (s *planeSearch) pop() {
	l := s.layers[len(s.layers)-1]
	s.layers = s.layers[:len(s.layers)-1]
	for x, v := range l {
		s.a[x] -= v
		for y := range v {
			s.b[y]--
		}
	}
	s.c = s.c[:len(s.c)-1]
}

func (s *planeSearch) rec(rem int) {
	s.nodes++
	if s.nodes&255 == 0 && s.ctx.Err() != nil {
		s.stopped = true
	}
	top := s.layers[len(s.layers)-1]
	lb := s.bound(top, rem)
	if s.stopped {
		s.openLB = min(s.openLB, lb)
		return
	}
	if lb >= s.best {
		return
	}
	if rem == 0 {
		s.best = lb
		s.bestLay = nil
		for _, l := range s.layers {
			s.bestLay = append(s.bestLay, slices.Clone(l))
		}
		return
	}
	if len(s.layers) == s.zmax {
		return
	}
	// Next layer: every diagram inside top with 1..rem cells, generated column by
	// column (each a prefix of the next ones' generation).
	sub := make([]int, 0, len(top))
	var gen func(x, left, cap int)
	gen = func(x, left, cap int) {
		if s.stopped {
			return
		}
		if len(sub) > 0 {
			s.push(sub)
			// Families can be dropped one after another without a node being
			// counted: look at the context here too.
			if s.evals++; s.evals&1023 == 0 && s.ctx.Err() != nil {
				s.stopped = true
				s.pop()
				return
			}
			// The bound of the family of layers extending sub covers sub itself too.
			if x < len(top) && left > 0 && !s.plain && s.boundOpen(top, sub, left) >= s.best {
				s.pop()
				return
			}
			s.rec(left)
			s.pop()
		}
		if x == len(top) || left == 0 {
			return
		}
		for v := min(cap, top[x], left); v >= 1; v-- {
			sub = append(sub, v)
			gen(x+1, left-v, v)
			sub = sub[:len(sub)-1]
		}
	}
	gen(0, rem, top[0])
	if s.stopped {
		// the unexplored children are covered by this node's bound
		s.openLB = min(s.openLB, lb)
	}
}

// planeOptimum searches the bottom layer over all diagrams no wider than tall and
// returns the best layers, their cost, a proven lower bound and whether the
// search finished. inc is an incumbent down-set given by its layers.
func planeOptimum(ctx context.Context, k int, inc [][]int) (layers [][]int, cost, bound int64, optimal bool, nodes int64) {
	return planeOptimumWith(ctx, k, inc, false)
}

// planeOptimumWith is planeOptimum, or when plain the former search: bottom layers
// at least as wide as tall, at most as many layers as the bottom is tall, each axis
// completed on its own, every layer listed.
func planeOptimumWith(ctx context.Context, k int, inc [][]int, plain bool) (layers [][]int, cost, bound int64, optimal bool, nodes int64) {
	return (&planeSearch{ctx: ctx, k: k, openLB: infCost, plain: plain}).optimum(inc)
}

// optimum runs the search of s (ctx, k, plain and openLB set) from incumbent inc.
func (s *planeSearch) optimum(inc [][]int) (layers [][]int, cost, bound int64, optimal bool, nodes int64) {
	ctx, k, plain := s.ctx, s.k, s.plain
	s.bestLay = inc
	s.best = planeCost(inc)
	// Bottom layers λ with x-extent len(λ) <= y-extent λ_0 <= number of layers (plain:
	// len(λ) >= λ_0 >= number of layers), generated part by part.
	var part []int
	var visits int
	var gen func(n, cap int)
	gen = func(n, cap int) {
		if s.stopped {
			return
		}
		// The partitions of up to k are far more than the bottom layers among them:
		// look at the context while walking them, not only at a bottom layer.
		visits++
		if visits&4095 == 0 && ctx.Err() != nil {
			s.stopped = true
			s.openLB = 0 // unexplored bottom layers: the caller's lattice bound applies
			return
		}
		if n > 0 && (!plain && len(part) <= part[0] && !swapSmaller(part) || plain && len(part) >= part[0] && n*part[0] >= k) {
			if ctx.Err() != nil {
				s.stopped = true
				s.openLB = 0
				return
			}
			s.zmax = part[0]
			if !plain {
				s.zmax, s.zmin = k, part[0]
			}
			s.a = make([]int, len(part))
			s.b = make([]int, part[0])
			s.c = s.c[:0]
			s.layers = s.layers[:0]
			s.push(slices.Clone(part))
			s.rec(k - n)
			s.pop()
		}
		if !plain && n > 0 && len(part) >= part[0] {
			return // x-extent <= y-extent
		}
		if n > 0 && n < k && !s.plain && s.bottomOpen(part, k-n) >= s.best {
			return // no extension of this prefix of a bottom layer can do better
		}
		for v := min(cap, k-n); v >= 1; v-- {
			part = append(part, v)
			gen(n+v, v)
			part = part[:len(part)-1]
		}
	}
	gen(0, k)
	if s.stopped {
		return s.bestLay, s.best, min(s.best, s.openLB), false, s.nodes
	}
	return s.bestLay, s.best, s.best, true, s.nodes
}

// swapSmaller reports whether the bottom layer λ is as wide as tall and
// lexicographically below its conjugate: exchanging x and y then maps the shape to
// one with bottom λ' > λ, also searched, so λ itself need not be.
func swapSmaller(l []int) bool {
	if len(l) != l[0] {
		return false
	}
	c := conjugate(l)
	return slices.Compare(l, c) < 0
}

// bottomOpen bounds every search below the bottom layers that extend part by at most
// part[0] - len(part) columns (x-extent <= y-extent) of at most its last height:
// boundOpen with part as the partial layer on nothing, at least part[0] layers.
func (s *planeSearch) bottomOpen(part []int, left int) int64 {
	s.zmax, s.zmin = s.k, part[0]
	more := min(left, part[0]-len(part))
	s.a = append(s.a[:0], make([]int, len(part)+more)...)
	s.b = append(s.b[:0], make([]int, part[0])...)
	s.c = s.c[:0]
	s.layers = s.layers[:0]
	top := append(s.vtop[:0], part...)
	for range more {
		top = append(top, part[len(part)-1])
	}
	s.vtop = top
	s.push(part)
	lb := s.boundOpen(top, part, left)
	s.pop()
	return lb
}

// planeCost is Σ_axes lineCost of the plane counts of the down-set given by layers.
func planeCost(layers [][]int) int64 {
	var a, b, c []int
	for _, l := range layers {
		for len(a) < len(l) {
			a = append(a, 0)
		}
		n := 0
		for x, v := range l {
			a[x] += v
			for len(b) < v {
				b = append(b, 0)
			}
			for y := range v {
				b[y]++
			}
			n += v
		}
		c = append(c, n)
	}
	return lineCost(positive(a)) + lineCost(positive(b)) + lineCost(positive(c))
}

// planeIncumbent returns the better of two down-sets of k cells, as layers: the k
// lattice points nearest the origin pushed into a down-set, and (when prev, a 3D
// cluster of k-1 points, is given) prev's down-set with the one cell added that costs
// least. A tight incumbent from the start prunes more.
func planeIncumbent(k int, prev []geom.Point) [][]int {
	best := layersOf(downSet(roundPoints(3, k)))
	if len(prev) != k-1 || k < 2 {
		return best
	}
	base := downSet(prev)
	in := map[[3]int]bool{}
	for _, p := range base {
		in[[3]int{p[0], p[1], p[2]}] = true
	}
	has := func(q [3]int) bool { return q[0] < 0 || q[1] < 0 || q[2] < 0 || in[q] }
	cost := planeCost(best)
	for _, p := range base {
		for axis := range 3 {
			q := [3]int{p[0], p[1], p[2]}
			q[axis]++
			if in[q] || !has([3]int{q[0] - 1, q[1], q[2]}) || !has([3]int{q[0], q[1] - 1, q[2]}) || !has([3]int{q[0], q[1], q[2] - 1}) {
				continue // taken, or not a corner: the result would not be a down-set
			}
			l := layersOf(append(slices.Clone(base), geom.Point{q[0], q[1], q[2]}))
			if c := planeCost(l); c < cost {
				best, cost = l, c
			}
		}
	}
	return best
}
