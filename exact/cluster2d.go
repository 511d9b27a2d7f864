package exact

import (
	"cmp"
	"context"
	"slices"

	"github.com/procalloc/procalloc/geom"
)

// ferrersSearch finds the Ferrers diagram λ ⊢ k minimising lineCost(λ) + lineCost(λ')
// (the 2D optimum, see marginal.go) by branch and bound over diagrams of a fixed
// bounding box W x H (W <= H by transposition; λ'_1 = W, λ_1 = H).
//
// Two walkers trace the diagram's boundary from its two ends: one fixes columns from
// the right (shortest first, the order in which lineCost's outside-in program wants
// the columns), the other fixes rows from the top (shortest first, likewise for the
// rows); each carries its program's state. Between them lies a middle box of mx
// columns and my rows holding an unknown partition μ of area M: the middle columns
// are ya+μ_x, the middle rows xb+μ'_y, and everything else is known. The bound
// completes the column program with the most concentrated μ (full columns first) and
// the row program with the most balanced μ (whose conjugate is the most concentrated):
// by antitonicity in majorization, neither program can do better on any μ.
type ferrersSearch struct {
	ctx      context.Context
	k, W, H  int
	best     int64
	bestCols []int
	hx       []int // fixed column heights, column x (1-based) > xa
	ly       []int // fixed row lengths, row y > yb
	b1, b2   []int64
	items    []int
	conc     []int
	pool     [][]int64
	nodes    int64
	stopped  bool
	openLB   int64
}

func (s *ferrersSearch) alloc() []int64 {
	if n := len(s.pool); n > 0 {
		b := s.pool[n-1]
		s.pool = s.pool[:n-1]
		return b
	}
	return make([]int64, s.k+1)
}

// bound returns the lower bound of the node and whether μ is forced (then it is the
// node's exact value and the diagram is recorded when it improves).
func (s *ferrersSearch) bound(xs, ys lineDP, xa, ya, xb, yb, M int) (int64, bool) {
	mx, my := xa-xb, yb-ya
	k := s.k
	s.conc = s.conc[:0]
	r := M
	for range mx {
		v := min(my, r)
		s.conc = append(s.conc, v)
		r -= v
	}
	items := s.items[:0]
	for i := mx - 1; i >= 0; i-- {
		items = append(items, ya+s.conc[i])
	}
	for x := xb; x >= 1; x-- {
		items = append(items, yb+s.rowsReaching(x, yb))
	}
	X := xs.finish(items, k, s.b1, s.b2)
	items = items[:0]
	q, rr := 0, 0
	if mx > 0 {
		q, rr = M/mx, M%mx
	}
	// balanced μ: rr parts q+1, mx-rr parts q; μ'_j for j = my..1 (ascending).
	for j := my; j >= 1; j-- {
		c := 0
		if j <= q {
			c = mx
		} else if j == q+1 {
			c = rr
		}
		items = append(items, xb+c)
	}
	for y := ya; y >= 1; y-- {
		items = append(items, xa+s.colsReaching(y, xa))
	}
	Y := ys.finish(items, k, s.b1, s.b2)
	s.items = items
	exact := mx <= 1 || my <= 1 || M == 0 || M == mx*my
	if exact && X+Y < s.best {
		cols := make([]int, 0, s.W)
		for x := 1; x <= xb; x++ {
			cols = append(cols, yb+s.rowsReaching(x, yb))
		}
		for i := range mx {
			cols = append(cols, ya+s.conc[i])
		}
		for x := xa + 1; x <= s.W; x++ {
			cols = append(cols, s.hx[x])
		}
		s.best, s.bestCols = X+Y, cols
	}
	return X + Y, exact
}

// rowsReaching counts the fixed rows (above yb) of length >= x.
func (s *ferrersSearch) rowsReaching(x, yb int) int {
	c := 0
	for y := yb + 1; y <= s.H && s.ly[y] >= x; y++ {
		c++
	}
	return c
}

// colsReaching counts the fixed columns (right of xa) of height >= y.
func (s *ferrersSearch) colsReaching(y, xa int) int {
	c := 0
	for x := xa + 1; x <= s.W && s.hx[x] >= y; x++ {
		c++
	}
	return c
}

func (s *ferrersSearch) rec(xs, ys lineDP, xa, ya, xb, yb, M int) {
	s.nodes++
	if s.nodes&255 == 0 && s.ctx.Err() != nil {
		s.stopped = true
	}
	lb, exact := s.bound(xs, ys, xa, ya, xb, yb, M)
	if s.stopped {
		s.openLB = min(s.openLB, lb)
		return
	}
	if lb >= s.best || exact {
		return
	}
	mx, my := xa-xb, yb-ya
	if mx >= my {
		// Fix column xa (the shortest unfixed) at height ya+mu; the other mx-1 middle
		// columns are at least as tall.
		for mu := 0; mu <= my; mu++ {
			if M-mu < (mx-1)*mu || M-mu > (mx-1)*my {
				continue
			}
			buf := s.alloc()
			s.hx[xa] = ya + mu
			s.rec(xs.push(ya+mu, s.k, buf), ys, xa-1, ya+mu, xb, yb, M-mx*mu)
			s.hx[xa] = 0
			s.pool = append(s.pool, buf)
		}
		return
	}
	for nu := 0; nu <= mx; nu++ {
		if M-nu < (my-1)*nu || M-nu > (my-1)*mx {
			continue
		}
		buf := s.alloc()
		s.ly[yb] = xb + nu
		s.rec(xs, ys.push(xb+nu, s.k, buf), xa, ya, xb+nu, yb-1, M-my*nu)
		s.ly[yb] = 0
		s.pool = append(s.pool, buf)
	}
}

// ferrersOptimum returns the best diagram (its columns, nonincreasing), its cost, a
// proven lower bound and whether the search finished. inc is an incumbent diagram.
func ferrersOptimum(ctx context.Context, k int, inc []int) (cols []int, cost, bound int64, optimal bool, nodes int64) {
	s := &ferrersSearch{ctx: ctx, k: k, best: lineCost(inc) + lineCost(conjugate(inc)), bestCols: inc, openLB: infCost}
	s.b1, s.b2 = make([]int64, k+1), make([]int64, k+1)
	type box struct {
		W, H int
		lb   int64
	}
	// Every box W x H (W <= H, W*H >= k, W+H-1 <= k) gets its bound first: O(k^2)
	// boxes, so the enumeration checks ctx, and only boxes that can beat the incumbent
	// are kept (memory). When ctx ends before every box has its bound, no bound is
	// proven here (0; the caller adds LatticeBound).
	var boxes []box
	for H := 1; H <= k; H++ {
		if ctx.Err() != nil {
			return s.bestCols, s.best, 0, false, s.nodes
		}
		for W := 1; W <= H && W+H-1 <= k; W++ {
			if W*H < k {
				continue
			}
			s.W, s.H = W, H
			s.hx, s.ly = make([]int, W+2), make([]int, H+2)
			lb, _ := s.bound(newLineDP(k), newLineDP(k), W, 1, 1, H, k-(W+H-1))
			if lb < s.best {
				boxes = append(boxes, box{W, H, lb})
			}
			if ctx.Err() != nil {
				return s.bestCols, s.best, 0, false, s.nodes
			}
		}
	}
	slices.SortStableFunc(boxes, func(a, b box) int { return cmp.Compare(a.lb, b.lb) })
	for _, b := range boxes {
		if b.lb >= s.best {
			break
		}
		if s.stopped || ctx.Err() != nil {
			s.stopped = true
			s.openLB = min(s.openLB, b.lb)
			continue
		}
		s.W, s.H = b.W, b.H
		s.hx, s.ly = make([]int, b.W+2), make([]int, b.H+2)
		s.rec(newLineDP(k), newLineDP(k), b.W, 1, 1, b.H, k-(b.W+b.H-1))
	}
	if s.stopped {
		return s.bestCols, s.best, min(s.best, s.openLB), false, s.nodes
	}
	return s.bestCols, s.best, s.best, true, s.nodes
}

// ferrersIncumbent returns the better of two improved diagrams of k cells: the k
// lattice points nearest the origin pushed into a down-set, and (when prev, a 2D
// cluster of k-1 points, is given) prev's down-set with one cell added at its best
// corner.
func ferrersIncumbent(ctx context.Context, k int, prev []geom.Point) []int {
	best := improveFerrers(ctx, columnsOf(downSet(roundPoints(2, k))))
	cost := func(l []int) int64 { return lineCost(l) + lineCost(conjugate(l)) }
	if len(prev) != k-1 || k < 2 {
		return best
	}
	base := columnsOf(downSet(prev))
	var grown []int
	for i := 0; i <= len(base); i++ {
		if i < len(base) && i > 0 && base[i-1] == base[i] {
			continue // not a corner: the column left of it is no taller
		}
		next := append(slices.Clone(base), 0)
		next[i]++
		next = positive(next)
		if grown == nil || cost(next) < cost(grown) {
			grown = next
		}
	}
	if grown = improveFerrers(ctx, grown); cost(grown) < cost(best) {
		return grown
	}
	return best
}

// improveFerrers moves one cell of λ to another column (or a new one) while that keeps
// a diagram and lowers lineCost(λ) + lineCost(λ'): a cheap local search for the
// incumbent. Every candidate costs O(len(λ)·k) (lineCost), so for large k it stops
// when ctx ends and returns the diagram reached, still a valid incumbent.
func improveFerrers(ctx context.Context, l []int) []int {
	cur := slices.Clone(l)
	val := lineCost(cur) + lineCost(conjugate(cur))
	desc := func(a, b int) int { return b - a }
	for improved := true; improved; {
		improved = false
		for i := range cur {
			for j := 0; j <= len(cur); j++ {
				if j == i {
					continue
				}
				if ctx.Err() != nil {
					return cur
				}
				next := slices.Clone(cur)
				next[i]--
				if j == len(next) {
					next = append(next, 1)
				} else {
					next[j]++
				}
				for len(next) > 0 && next[len(next)-1] == 0 {
					next = next[:len(next)-1]
				}
				if !slices.IsSortedFunc(next, desc) || slices.Contains(next, 0) {
					continue
				}
				if v := lineCost(next) + lineCost(conjugate(next)); v < val {
					cur, val, improved = next, v, true
					break
				}
			}
			if improved {
				break
			}
		}
	}
	return cur
}
