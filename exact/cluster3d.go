package exact

import (
	"context"
	"slices"

	"github.com/procalloc/procalloc/geom"
)

// planeSearch finds the plane partition (down-set of N^3) of k cells minimising
// lineCost(a) + lineCost(b) + lineCost(c), a, b, c its plane counts along x, y and z
// (see marginal.go), by branch and bound over its z-layers: each layer is a Ferrers
// diagram (column heights along y, indexed by x) inside the one below. By permuting
// axes, the number of layers is at most the y-extent, which is at most the x-extent.
//
// Bound of a node with layers 0..t fixed, s cells left for at most F more layers, each
// inside layer t: the z counts are completed by the most concentrated choice (layers
// as large as layer t), the x counts by adding the s cells to the largest x planes
// first, at most F·ν_t(x) to plane x, and likewise along y. Each completion majorizes
// every feasible one, so by antitonicity none of the three costs can be lower. The x
// and y completions compete for the same cells (both want the corner column), so the
// bound splits on u, the cells to come in plane x = 0 (boundXY): the other x planes
// then take at most u each, and the first j y planes at most s - u plus what column
// x = 0 holds of them. The children of a node are generated column by column, and a
// partial layer is bounded for all its extensions at once (boundOpen), so a failing
// family of layers is dropped without being listed.
type planeSearch struct {
	ctx     context.Context
	k       int
	best    int64
	bestLay [][]int
	layers  [][]int
	a, b    []int // x and y plane counts of the fixed layers
	c       []int // sizes of the fixed layers
	zmax    int
	nodes   int64
	stopped bool
	openLB  int64
	sc      lineScratch
	ca, cb  []int // the bound's completions of a, b and c
	cc      []int
	capX    []int // boundXY's capacities (see there)
	capY    []int
	col0    []int
	tailX   []int
	memo    map[[2]uint64]int64
	plain   bool // the former bound alone (no split on r_a[0], no partial layers), for tests
}

func (s *planeSearch) cost3(a, b, c []int) int64 {
	return s.lineCost(a) + s.lineCost(b) + s.lineCost(c)
}

// lineCost is lineCostScratch(w) remembered by the sorted positive entries: the
// bounds ask for the same count vectors again and again (the dynamic program was
// three quarters of the search's time).
func (s *planeSearch) lineCost(w []int) int64 {
	var key [2]uint64
	n := 0
	prev := int(^uint(0) >> 1)
	for _, v := range w {
		if v <= 0 {
			continue
		}
		if v > prev || v > 255 || n == 16 {
			return lineCostScratch(w, &s.sc) // not in the packed form
		}
		key[n/8] |= uint64(v) << (8 * (n % 8))
		n++
		prev = v
	}
	if n <= 1 {
		return 0
	}
	if c, ok := s.memo[key]; ok {
		return c
	}
	c := lineCostScratch(w, &s.sc)
	if len(s.memo) < memoMax {
		s.memo[key] = c
	}
	return c
}

// memoMax caps the remembered count vectors (about 40 bytes each).
const memoMax = 1 << 22

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
		return s.cost3(s.a, s.b, s.c)
	}
	// z: greedy layers of size `size`.
	c := append(s.cc[:0], s.c...)
	for r := rem; r > 0; r -= size {
		c = append(c, min(size, r))
	}
	fz := s.lineCost(c)
	s.cc = c
	// x: plane x can take F·top[x] more cells; y: plane y F·#{x: top[x] > y}; the
	// column (0, y) F more cells.
	capX := s.capX[:0]
	for _, v := range top {
		capX = append(capX, F*v)
	}
	capY := s.capY[:0]
	for y := range len(s.b) {
		tc := 0
		for x := 0; x < len(top) && top[x] > y; x++ {
			tc++
		}
		capY = append(capY, F*tc)
	}
	col0 := s.col0[:0]
	for y := range len(s.b) {
		col0 = append(col0, F*b2i(y < top[0]))
	}
	s.capX, s.capY, s.col0 = capX, capY, col0
	tail := s.tailX[:0]
	for range top {
		tail = append(tail, 0)
	}
	s.tailX = tail
	return s.boundXY(rem, fz)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// boundOpen bounds every node below a partial layer: sub, the first len(sub) columns
// of the next layer (already pushed), is to be extended by columns at most
// sub[len-1] and top[x] tall, and left cells are still to come in it and in at most F-1
// later layers, each inside it. With E the largest layer sub can grow into, the z
// counts are completed by layers of |E| cells, the x counts by giving plane x up to
// (F-1)·sub[x] cells (x < len(sub)) or F·E[x], in order, and the y counts by giving
// plane y the cells of E's tail and F-1 copies of E in it, in order. Fixed plus
// capacity is nonincreasing along x and along y, so each greedy completion majorizes
// every feasible one (as in bound).
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
	c := append(s.cc[:0], s.c[:len(s.c)-1]...)
	for r := nsub + left; r > 0; r -= sizeE {
		c = append(c, min(sizeE, r))
	}
	fz := s.lineCost(c)
	s.cc = c
	capX, tailX := s.capX[:0], s.tailX[:0]
	for x := range top {
		if x < x0 {
			capX, tailX = append(capX, (F-1)*sub[x]), append(tailX, 0)
		} else {
			e := min(cp, top[x])
			capX, tailX = append(capX, F*e), append(tailX, e)
		}
	}
	capY, col0 := s.capY[:0], s.col0[:0]
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
		capY = append(capY, tl+(F-1)*all)
		col0 = append(col0, (F-1)*b2i(y < sub[0]))
	}
	s.capX, s.capY, s.col0, s.tailX = capX, capY, col0, tailX
	return s.boundXY(left, fz)
}

// boundXY bounds lineCost(a + r_a) + lineCost(b + r_b) over the x and y counts r_a,
// r_b of the R cells still to come, given capX (the most plane x can take), capY,
// col0 (the most the column (0, y) can take, so that Σ col0 = capX[0]) and tailX
// (cells plane x can take in the partial layer, which need not be nonincreasing).
//
// Coupling: split on u = r_a[0]. Every other plane x takes at most min(capX[x],
// u + tailX[x]) (the layers to come are partitions), so the greedy fill of x with
// these caps majorizes r_a; and the first j planes of y hold at most what column 0
// can hold in them plus the R - u cells outside plane x = 0, so r_b's prefix sums are
// at most min(G_j, R - u + Σ_{y<j} col0[y]), G the greedy prefix sums with caps capY
// (a minimum of concave sequences, so the increments are a majorizing vector). The
// x completion only gains and the y completion only loses as u grows, so an interval
// [u1, u2] of splits is bounded by the x fill at u2 plus the y fill at u1, and
// intervals are halved only while that bound is below the incumbent.
func (s *planeSearch) boundXY(R int, fz int64) int64 {
	return fz + s.boundXYRange(R, 0, min(R, s.capX[0]), s.best-fz)
}

// boundXYRange bounds the splits u1..u2; a value >= T is a bound for all of them, a
// smaller one the bound of the whole interval (the node is not pruned anyway).
// (Splitting on r_b[0] as well, symmetrically, saved 10% of the nodes and cost 30% more
// time at k = 42-46.)
func (s *planeSearch) boundXYRange(R, u1, u2 int, T int64) int64 {
	fx := s.fillX(R, u2)
	if fx == infCost {
		return infCost
	}
	lb := fx + s.fillY(R, u1)
	if lb >= T || u1 == u2 || s.plain {
		return lb
	}
	m := (u1 + u2) / 2
	if l := s.boundXYRange(R, u1, m, T); l < T {
		return lb
	} else if r := s.boundXYRange(R, m+1, u2, T); r < T {
		return lb
	} else {
		return min(l, r)
	}
}

// fillX is lineCost of a plus the greedy x fill with r_a[0] <= u, or infCost when
// the R cells do not fit.
func (s *planeSearch) fillX(R, u int) int64 {
	a := append(s.ca[:0], s.a...)
	r := R
	for x := 0; x < len(s.capX) && r > 0; x++ {
		c := s.capX[x]
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

// fillY is lineCost of b plus the y fill whose prefix sums are
// min(G_j, R - u + Σ_{y<j} col0[y]).
func (s *planeSearch) fillY(R, u int) int64 {
	b := append(s.cb[:0], s.b...)
	G, H, prev := 0, R-u, 0
	for y := 0; y < len(s.capY) && prev < R; y++ {
		G += s.capY[y]
		H += s.col0[y]
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
			s.rec(left)
			open := infCost
			if x < len(top) && left > 0 && !s.stopped && !s.plain {
				open = s.boundOpen(top, sub, left)
			}
			s.pop()
			if open >= s.best {
				return
			}
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

func sum(v []int) int {
	t := 0
	for _, x := range v {
		t += x
	}
	return t
}

// planeOptimum searches the bottom layer over all diagrams of at least ceil(k/zmax)
// cells and returns the best layers, their cost, a proven lower bound and whether the
// search finished. inc is an incumbent down-set given by its layers.
func planeOptimum(ctx context.Context, k int, inc [][]int) (layers [][]int, cost, bound int64, optimal bool, nodes int64) {
	return planeOptimumWith(ctx, k, inc, false)
}

// planeOptimumWith is planeOptimum, with the former, weaker bound when plain.
func planeOptimumWith(ctx context.Context, k int, inc [][]int, plain bool) (layers [][]int, cost, bound int64, optimal bool, nodes int64) {
	s := &planeSearch{ctx: ctx, k: k, openLB: infCost, memo: map[[2]uint64]int64{}, plain: plain}
	s.bestLay = inc
	s.best = planeCost(inc)
	// Bottom layers λ with x-extent len(λ) >= y-extent λ_0 >= number of layers,
	// generated part by part.
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
		if n > 0 && len(part) >= part[0] && n*part[0] >= k {
			if ctx.Err() != nil {
				s.stopped = true
				s.openLB = 0
				return
			}
			s.zmax = part[0]
			s.a = make([]int, len(part))
			s.b = make([]int, part[0])
			s.c = s.c[:0]
			s.layers = s.layers[:0]
			s.push(slices.Clone(part))
			s.rec(k - n)
			s.pop()
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
