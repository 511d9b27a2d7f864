package exact

import (
	"context"
	"slices"
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
// every feasible one, so by antitonicity none of the three costs can be lower.
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
}

func (s *planeSearch) cost3(a, b, c []int) int64 {
	return lineCostScratch(a, &s.sc) + lineCostScratch(b, &s.sc) + lineCostScratch(c, &s.sc)
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
		return s.cost3(s.a, s.b, s.c)
	}
	// z: greedy layers of size `size`.
	c := append(s.cc[:0], s.c...)
	for r := rem; r > 0; r -= size {
		c = append(c, min(size, r))
	}
	// x: planes in order (a is nonincreasing in x for a down-set), cap F*top[x].
	a := append(s.ca[:0], s.a...)
	r := rem
	for x := 0; x < len(top) && r > 0; x++ {
		d := min(r, F*top[x])
		a[x] += d
		r -= d
	}
	// y: plane y of top holds tc[y] = #{x: top[x] > y} cells.
	b := append(s.cb[:0], s.b...)
	r = rem
	for y := 0; y < len(b) && r > 0; y++ {
		tc := 0
		for x := 0; x < len(top) && top[x] > y; x++ {
			tc++
		}
		d := min(r, F*tc)
		b[y] += d
		r -= d
	}
	s.ca, s.cb, s.cc = a, b, c
	return s.cost3(a, b, c)
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
	s := &planeSearch{ctx: ctx, k: k, openLB: infCost}
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
