package order

import (
	"context"
	"math"
	"math/rand/v2"
	"time"

	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/topo"
)

// lineSearch is the local search of the scalable ordering path: the ordering (ord,
// rank -> node) and its inverse (pos, node -> rank) in int32, nothing of size n x n.
// A move permutes a few ranks; its effect on F is summed over the pairs of ranks it
// changes only, with distances from the machine's Dist:
//
//   - swap of ranks r and s: the pairs touching r or s, at most 4K;
//   - reversal of the ranks lo..hi: inside the segment every pair keeps its rank
//     difference and its two nodes, so only the pairs with one rank inside and one
//     outside change, and those have the inside rank within K of an end: at most
//     K(K+1) pairs, whatever the segment's length;
//   - rotation of the ranks lo..hi (Or-opt: a segment of 1..3 ranks moved a few ranks
//     away): the pairs touching lo..hi, O((hi-lo) K).
//
// With ring, rank differences are taken around the ring (min(t, n-t)); moves never
// wrap past rank n-1 (the search turns the ring by n/2 from time to time instead,
// which does not change F). Positions whose neighbourhood changed are queued again
// (don't-look bits, Bentley 1992, "Fast algorithms for geometric traveling salesman
// problems", ORSA J. Computing 4(4), DOI 10.1287/ijoc.4.4.387), so a descent costs
// O(n) moves plus the improvements. Deterministic for a seed; stops within a few
// milliseconds of ctx's end or the deadline.
type lineSearch struct {
	// report, when set, receives the current F about every 200 ms (progress).
	report   func(float64)
	reported time.Time
	m        topo.Machine
	grid     *topo.Grid // m as a grid (its Dist is a formula), or nil
	w        []float64  // w(t) for t = 1..k
	k, n     int
	ring     bool
	ord      []int32
	pos      []int32
	cost     float64 // F of ord, maintained incrementally (recompute with exactCost)

	win int // swaps and Or-opt moves reach win ranks; reversals 2*win

	queue  []int32 // FIFO of ranks to examine (circular), inQ marks its members
	inQ    []bool
	qh, qn int

	ctx      context.Context
	deadline time.Time
	work     int64 // distance evaluations since the last clock check
	evals    int64 // distance evaluations in all
	stopped  bool
	// unreachable: exactCost met a pair at distance -1 (a disconnected machine).
	unreachable bool

	log     []lsMove // applied moves, while recording (for undo)
	record  bool
	part    []partner // scratch
	setPos  []int
	setNode []int32
	nb, nb2 []int
	rng     *rand.Rand
	close   []int32

	// With hasTarget the iterated local search stops once F is at most target (an
	// exact lower bound: nothing better exists).
	target    float64
	hasTarget bool
}

type partner struct{ q, t int32 }

type lsMove struct {
	kind   uint8 // 0 swap, 1 reverse, 2 rotate left by r
	lo, hi int32
	r      int32
}

func newLineSearch(ctx context.Context, m topo.Machine, w []float64, ring bool, ord []int32, seed uint64) *lineSearch {
	n := len(ord)
	k := len(w)
	if ring {
		k = min(k, n/2)
	} else {
		k = min(k, max(n-1, 0))
	}
	s := &lineSearch{m: m, w: w[:k], k: k, n: n, ring: ring, ord: ord, pos: make([]int32, n),
		queue: make([]int32, n), inQ: make([]bool, n), ctx: ctx,
		rng: rand.New(rand.NewPCG(seed, 0x6a09e667f3bcc908))}
	s.grid, _ = m.(*topo.Grid)
	s.deadline, _ = ctx.Deadline()
	for r, v := range ord {
		s.pos[v] = int32(r)
	}
	s.win = max(6, 2*k+2)
	s.cost = s.exactCost()
	return s
}

// dist is the hop distance of nodes a and b.
func (s *lineSearch) dist(a, b int32) int {
	s.work++
	s.evals++
	if s.grid != nil {
		return s.grid.Dist(int(a), int(b))
	}
	return s.m.Dist(int(a), int(b))
}

// stop reports whether the search must end: ctx done or the deadline passed. The clock
// is read every 512 distance evaluations (microseconds with a lookup Dist).
func (s *lineSearch) stop() bool {
	if s.stopped {
		return true
	}
	if s.work < 512 {
		return false
	}
	s.work = 0
	now := time.Now()
	if s.ctx.Err() != nil || (!s.deadline.IsZero() && now.After(s.deadline)) {
		s.stopped = true
	}
	if s.report != nil && now.Sub(s.reported) >= 200*time.Millisecond {
		s.reported = now
		s.report(s.cost)
	}
	return s.stopped
}

// exactCost returns F of ord, summed per rank difference in integers (as
// curves.Objective does: the same value). NaN when the search must stop first.
func (s *lineSearch) exactCost() float64 {
	var f float64
	for t := 1; t <= s.k; t++ {
		cnt := curves.LagPairs(s.n, t, s.ring)
		var d int64
		for r := 0; r < cnt; r++ {
			q := r + t
			if q >= s.n {
				q -= s.n
			}
			x := s.dist(s.ord[r], s.ord[q])
			if x < 0 {
				s.unreachable = true
			}
			d += int64(x)
			if r&4095 == 4095 && s.stop() {
				return math.NaN()
			}
		}
		f += s.w[t-1] * float64(d)
	}
	return f
}

// partners lists the ranks paired with rank p (rank difference 1..k), each once.
func (s *lineSearch) partners(p int) []partner {
	b := s.part[:0]
	n := s.n
	for t := 1; t <= s.k; t++ {
		if s.ring {
			q := p + t
			if q >= n {
				q -= n
			}
			b = append(b, partner{int32(q), int32(t)})
			if 2*t != n {
				q = p - t
				if q < 0 {
					q += n
				}
				b = append(b, partner{int32(q), int32(t)})
			}
		} else {
			if p+t < n {
				b = append(b, partner{int32(p + t), int32(t)})
			}
			if p-t >= 0 {
				b = append(b, partner{int32(p - t), int32(t)})
			}
		}
	}
	s.part = b
	return b
}

// deltaSet returns the change of F when the ranks in set (distinct) get the nodes
// nodes[i] instead of ord[set[i]]: the pairs with at least one rank in set, each once.
// The second result is the sum of the magnitudes of the terms (for the tolerance).
func (s *lineSearch) deltaSet(set []int, nodes []int32) (float64, float64) {
	var delta, mag float64
	for i, p := range set {
		a0, a1 := s.ord[p], nodes[i]
		for _, e := range s.partners(p) {
			q := int(e.q)
			j := -1
			for jj, x := range set {
				if x == q {
					j = jj
					break
				}
			}
			b0, b1 := s.ord[q], s.ord[q]
			if j >= 0 {
				if q < p {
					continue // counted from q
				}
				b1 = nodes[j]
			}
			if a0 == a1 && b0 == b1 {
				continue
			}
			d0, d1 := s.dist(a0, b0), s.dist(a1, b1)
			if d0 != d1 {
				wt := s.w[e.t-1]
				delta += wt * float64(d1-d0)
				mag += wt * float64(d1+d0)
			}
		}
	}
	return delta, mag
}

// deltaRotate returns the change of F when the ranks lo..hi are rotated left by r
// (0 < r < hi-lo+1): the block lo..lo+r-1 moves behind the block lo+r..hi. A pair
// inside one block keeps its rank difference and its nodes, so only the pairs
// between the blocks and those with one rank outside lo..hi are summed.
func (s *lineSearch) deltaRotate(lo, hi, r int) (float64, float64) {
	l := hi - lo + 1
	split := lo + r      // old: first block lo..split-1
	nsplit := lo + l - r // new: the old second block sits at lo..nsplit-1
	var delta, mag float64
	origin := func(p int) int { return lo + (p-lo+r)%l }
	for p := lo; p <= hi; p++ {
		a0, a1 := s.ord[p], s.ord[origin(p)]
		for _, e := range s.partners(p) {
			q := int(e.q)
			wt := s.w[e.t-1]
			if q < lo || q > hi {
				b := s.ord[q]
				if a0 != a1 {
					d0, d1 := s.dist(a0, b), s.dist(a1, b)
					delta += wt * float64(d1-d0)
					mag += wt * float64(d1+d0)
				}
				continue
			}
			if q < p {
				continue // counted from q
			}
			if (p < split) != (q < split) { // an old pair between the blocks
				d0 := s.dist(a0, s.ord[q])
				delta -= wt * float64(d0)
				mag += wt * float64(d0)
			}
			if (p < nsplit) != (q < nsplit) { // a new pair between the blocks
				d1 := s.dist(a1, s.ord[origin(q)])
				delta += wt * float64(d1)
				mag += wt * float64(d1)
			}
		}
	}
	return delta, mag
}

// deltaReverse returns the change of F when the ranks lo..hi (lo < hi) are reversed.
func (s *lineSearch) deltaReverse(lo, hi int) (float64, float64) {
	var delta, mag float64
	k := s.k
	do := func(p int) {
		a0, a1 := s.ord[p], s.ord[lo+hi-p]
		for _, e := range s.partners(p) {
			q := int(e.q)
			if q >= lo && q <= hi {
				continue
			}
			b := s.ord[q]
			d0, d1 := s.dist(a0, b), s.dist(a1, b)
			if d0 != d1 {
				wt := s.w[e.t-1]
				delta += wt * float64(d1-d0)
				mag += wt * float64(d1+d0)
			}
		}
	}
	left := min(hi, lo+k-1)
	for p := lo; p <= left; p++ {
		do(p)
	}
	for p := max(left+1, hi-k+1); p <= hi; p++ {
		do(p)
	}
	return delta, mag
}

// improves says whether a move of the given delta improves F beyond round-off.
func improves(delta, mag float64) bool { return delta < -1e-12*max(mag, 1e-300) && delta < 0 }

func (s *lineSearch) setOrd(p int, v int32) {
	s.ord[p] = v
	s.pos[v] = int32(p)
}

func (s *lineSearch) applySwap(a, b int) {
	va, vb := s.ord[a], s.ord[b]
	s.setOrd(a, vb)
	s.setOrd(b, va)
	if s.record {
		s.log = append(s.log, lsMove{0, int32(a), int32(b), 0})
	}
}

func (s *lineSearch) applyReverse(lo, hi int) {
	for i, j := lo, hi; i < j; i, j = i+1, j-1 {
		vi, vj := s.ord[i], s.ord[j]
		s.setOrd(i, vj)
		s.setOrd(j, vi)
	}
	if s.record {
		s.log = append(s.log, lsMove{1, int32(lo), int32(hi), 0})
	}
}

// applyRotate rotates the ranks lo..hi left by r (the first r nodes go to the end).
func (s *lineSearch) applyRotate(lo, hi, r int) {
	l := hi - lo + 1
	r %= l
	if r == 0 {
		return
	}
	rec := s.record
	s.record = false
	s.applyReverse(lo, lo+r-1)
	s.applyReverse(lo+r, hi)
	s.applyReverse(lo, hi)
	s.record = rec
	if s.record {
		s.log = append(s.log, lsMove{2, int32(lo), int32(hi), int32(r)})
	}
}

// undo reverts the logged moves, newest first, and clears the log.
func (s *lineSearch) undo() {
	rec := s.record
	s.record = false
	for i := len(s.log) - 1; i >= 0; i-- {
		mv := s.log[i]
		switch mv.kind {
		case 0:
			s.applySwap(int(mv.lo), int(mv.hi))
		case 1:
			s.applyReverse(int(mv.lo), int(mv.hi))
		case 2:
			s.applyRotate(int(mv.lo), int(mv.hi), int(mv.hi-mv.lo+1-mv.r))
		}
	}
	s.log = s.log[:0]
	s.record = rec
}

// activate queues the ranks lo..hi (clipped) for examination.
func (s *lineSearch) activate(lo, hi int) {
	lo, hi = max(lo, 0), min(hi, s.n-1)
	for p := lo; p <= hi; p++ {
		if !s.inQ[p] {
			s.inQ[p] = true
			t := s.qh + s.qn
			if t >= s.n {
				t -= s.n
			}
			s.queue[t] = int32(p)
			s.qn++
		}
	}
}

func (s *lineSearch) pop() int {
	p := int(s.queue[s.qh])
	s.qh++
	if s.qh == s.n {
		s.qh = 0
	}
	s.qn--
	s.inQ[p] = false
	return p
}

// touched queues the ranks whose moves may have changed after a change of lo..hi.
func (s *lineSearch) touched(lo, hi int) {
	reach := s.k + 1
	if hi-lo > 2*reach {
		s.activate(lo-reach, lo+reach)
		s.activate(hi-reach, hi+reach)
		return
	}
	s.activate(lo-reach, hi+reach)
}

// descend applies improving moves until no queued rank has one (a local optimum of the
// neighbourhood) or the search must stop. It returns whether F improved.
func (s *lineSearch) descend() bool {
	improved := false
	for s.qn > 0 {
		if s.stop() {
			return improved
		}
		p := s.pop()
		if s.improveAt(p) {
			improved = true
		}
	}
	return improved
}

// improveAt tries the moves anchored at rank p and applies the first improving one.
func (s *lineSearch) improveAt(p int) bool {
	n, win := s.n, s.win
	// Swaps with the next win ranks.
	for d := 1; d <= win && p+d < n && !s.stop(); d++ {
		q := p + d
		s.setPos = append(s.setPos[:0], p, q)
		s.setNode = append(s.setNode[:0], s.ord[q], s.ord[p])
		if dl, mg := s.deltaSet(s.setPos, s.setNode); improves(dl, mg) {
			s.applySwap(p, q)
			s.cost += dl
			s.touched(p, q)
			return true
		}
	}
	// Or-opt: the segment p..p+L-1 moved d ranks later or earlier.
	for L := 1; L <= 3 && p+L <= n; L++ {
		for d := 1; d <= s.k+2; d++ {
			if hi := p + L - 1 + d; hi < n {
				if s.tryRotate(p, hi, L) {
					return true
				}
			}
			if lo := p - d; lo >= 0 {
				if s.tryRotate(lo, p+L-1, d) {
					return true
				}
			}
		}
	}
	// Reversals starting at p, short ones.
	for hi := p + 1; hi < n && hi-p <= 2*win; hi++ {
		if s.tryReverse(p, hi) {
			return true
		}
	}
	// 2-opt by neighbour lists: bring a node close to ord[p] next to it.
	for _, b := range s.closeNodes(s.ord[p]) {
		q := int(s.pos[b])
		switch {
		case q > p+1 && q-p > 2*win:
			if s.tryReverse(p+1, q) {
				return true
			}
		case q < p-1 && p-q > 2*win:
			if s.tryReverse(q, p-1) {
				return true
			}
		}
	}
	return false
}

// tryRotate and tryReverse check the clock first: one improveAt with K in the
// hundreds tries thousands of moves of O(K) distances each, seconds in all
// (torus:2^9 with exp:2:600 overran a 2 s limit by 12 s); once stopped they try
// nothing, and improveAt runs out without a move.
func (s *lineSearch) tryRotate(lo, hi, r int) bool {
	if s.stop() {
		return false
	}
	if dl, mg := s.deltaRotate(lo, hi, r); improves(dl, mg) {
		s.applyRotate(lo, hi, r)
		s.cost += dl
		s.touched(lo, hi)
		return true
	}
	return false
}

func (s *lineSearch) tryReverse(lo, hi int) bool {
	if s.stop() {
		return false
	}
	if dl, mg := s.deltaReverse(lo, hi); improves(dl, mg) {
		s.applyReverse(lo, hi)
		s.cost += dl
		s.touched(lo, hi)
		return true
	}
	return false
}

// closeNodes returns nodes near v in the machine: its neighbours that are nodes, and on
// a network with switches the nodes one switch away (at most 16).
func (s *lineSearch) closeNodes(v int32) []int32 {
	n := s.n
	s.nb = s.m.Neighbors(int(v), s.nb[:0])
	out := s.close[:0]
	for _, x := range s.nb {
		if x < n {
			out = append(out, int32(x))
			continue
		}
		s.nb2 = s.m.Neighbors(x, s.nb2[:0])
		for _, y := range s.nb2 {
			if y < n && y != int(v) && len(out) < 16 {
				out = append(out, int32(y))
			}
		}
	}
	s.close = out
	return out
}

// run descends from the current ordering, then perturbs and descends again (iterated
// local search: a random segment reversal, segment move or a few swaps in one window,
// kept unless F got worse) until the search must stop or maxKicks kicks were tried
// (0: no limit).
func (s *lineSearch) run(maxKicks int64) {
	s.activate(0, s.n-1)
	s.descend()
	if s.n < 4 {
		return
	}
	s.log = s.log[:0]
	var kicks int64
	for !s.stop() && (maxKicks <= 0 || kicks < maxKicks) && !(s.hasTarget && s.cost <= s.target) {
		kicks++
		if s.ring && kicks%4096 == 0 {
			s.turn()
		}
		before := s.cost
		s.record = true
		s.kick()
		s.descend()
		s.record = false
		if s.cost > before+1e-9*max(1, math.Abs(before)) {
			s.undo()
			s.cost = before
			// The queue may hold ranks of the undone region; they are cheap to re-check.
		}
		s.log = s.log[:0]
		if kicks%65536 == 0 {
			s.cost = s.exactCost() // shed the round-off of the incremental sums
		}
	}
	s.record = false
}

// kick applies a random perturbation in a window and queues its ranks.
func (s *lineSearch) kick() {
	n := s.n
	p := s.rng.IntN(n - 2)
	span := min(n-1-p, s.k+3)
	switch s.rng.IntN(3) {
	case 0:
		hi := p + 1 + s.rng.IntN(span)
		s.cost += s.deltaOnly(func() (float64, float64) { return s.deltaReverse(p, hi) })
		s.applyReverse(p, hi)
		s.touched(p, hi)
	case 1:
		hi := p + 1 + s.rng.IntN(span)
		r := 1 + s.rng.IntN(hi-p)
		dl, _ := s.deltaRotate(p, hi, r)
		s.cost += dl
		s.applyRotate(p, hi, r)
		s.touched(p, hi)
	default:
		for i := 0; i < 2; i++ {
			a := p + s.rng.IntN(span+1)
			b := p + s.rng.IntN(span+1)
			if a == b {
				continue
			}
			s.setPos = append(s.setPos[:0], a, b)
			s.setNode = append(s.setNode[:0], s.ord[b], s.ord[a])
			dl, _ := s.deltaSet(s.setPos, s.setNode)
			s.cost += dl
			s.applySwap(a, b)
			s.touched(min(a, b), max(a, b))
		}
	}
}

func (s *lineSearch) deltaOnly(f func() (float64, float64)) float64 {
	d, _ := f()
	return d
}

// turn rotates the ring ordering by n/2 ranks (F is unchanged on the ring), so that
// moves across the seam between rank n-1 and rank 0 are tried too.
func (s *lineSearch) turn() {
	h := s.n / 2
	rec := s.record
	s.record = false
	s.applyRotate(0, s.n-1, h)
	s.record = rec
	s.activate(h-s.win-s.k-3, h+s.win+s.k+3)
	s.activate(0, s.win+s.k+3)
	s.activate(s.n-s.win-s.k-3, s.n-1)
}

// order returns the current ordering as ints.
func (s *lineSearch) order() []int {
	o := make([]int, s.n)
	for r, v := range s.ord {
		o[r] = int(v)
	}
	return o
}
