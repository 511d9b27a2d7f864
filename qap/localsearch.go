package qap

import (
	"context"
	"math"
	"math/rand/v2"
)

// LocalSearchOptions control LocalSearch. The zero value runs a default number of
// perturbation rounds with seed 0.
type LocalSearchOptions struct {
	Seed uint64 // seeds the perturbations
	// Rounds is the number of perturbation rounds of the iterated local search
	// (0: a default that shrinks with the instance size; negative: none, plain descent).
	Rounds int
	// Window bounds the length of insertion and segment-reversal moves (0: no bound up
	// to 128 facilities, else max(16, 4*(largest flow offset))). Swaps are always tried
	// between all pairs.
	Window int
	// With HasTarget the search stops once the objective is at most Target (a known
	// lower bound: nothing better exists).
	Target    float64
	HasTarget bool // Target is set
}

// localSearch holds the state of an iterated local search on a QAP.
type localSearch struct {
	q     *QAP
	n     int
	adj   [][]pairEdge
	diag  []float64
	p     []int
	cost  float64
	inS   []bool
	win   int
	tmp   []int
	moves int64
	// exact: every objective value is a multiple of a granularity and summed exactly
	// (Granularity > 0), so any decrease is a real one; else a move must gain more than
	// a relative 1e-9 (float rounding).
	exact bool
}

// improves reports whether cost after is lower than before: strictly on exact data,
// by more than a relative 1e-9 otherwise.
func (ls *localSearch) improves(after, before float64) bool {
	if ls.exact {
		return after < before
	}
	return after < before-1e-9*(1+math.Abs(before))
}

func newLocalSearch(q *QAP, start []int, window int) *localSearch {
	adj, diag := q.flowGraph()
	ls := &localSearch{q: q, n: q.N, adj: adj, diag: diag, p: append([]int(nil), start...),
		inS: make([]bool, q.N), tmp: make([]int, q.N), exact: Granularity(q) > 0}
	ls.cost = q.Objective(ls.p)
	if window <= 0 {
		// The widest flow offset |i-j| (K for an ordering problem).
		maxOff := 1
		for i, es := range adj {
			for _, e := range es {
				maxOff = max(maxOff, abs(e.j-i))
			}
		}
		window = max(16, 4*maxOff)
		if q.N <= 128 {
			// Small instances afford moves of any length (2-opt style reversals of
			// whole stretches matter for Hamiltonian paths).
			window = q.N
		}
	}
	ls.win = min(window, q.N)
	return ls
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// costOf returns the part of the objective that involves at least one facility in
// set (marked in ls.inS), each pair counted once.
func (ls *localSearch) costOf(set []int) float64 {
	n := ls.n
	B := ls.q.B
	var c float64
	for _, i := range set {
		pi := ls.p[i]
		c += ls.diag[i] * B[pi*n+pi]
		for _, e := range ls.adj[i] {
			if ls.inS[e.j] && e.j < i {
				continue
			}
			pj := ls.p[e.j]
			c += e.aij*B[pi*n+pj] + e.aji*B[pj*n+pi]
		}
	}
	return c
}

func (ls *localSearch) mark(set []int, v bool) {
	for _, i := range set {
		ls.inS[i] = v
	}
}

// try applies move (which permutes ls.p on the facilities in set), keeps it when it
// lowers the cost by more than eps, and undoes it (with undo) otherwise.
func (ls *localSearch) try(set []int, move, undo func()) bool {
	ls.moves++
	ls.mark(set, true)
	before := ls.costOf(set)
	move()
	after := ls.costOf(set)
	ls.mark(set, false)
	if ls.improves(after, before) {
		ls.cost += after - before
		return true
	}
	undo()
	return false
}

// trySwap is try for exchanging the locations of facilities r and s, without closures
// (the hot loop of the descent).
func (ls *localSearch) trySwap(r, s int) bool {
	ls.moves++
	set := [2]int{r, s}
	ls.inS[r], ls.inS[s] = true, true
	before := ls.costOf(set[:])
	ls.p[r], ls.p[s] = ls.p[s], ls.p[r]
	after := ls.costOf(set[:])
	ls.inS[r], ls.inS[s] = false, false
	if ls.improves(after, before) {
		ls.cost += after - before
		return true
	}
	ls.p[r], ls.p[s] = ls.p[s], ls.p[r]
	return false
}

// reverse reverses p[lo..hi].
func (ls *localSearch) reverse(lo, hi int) {
	for lo < hi {
		ls.p[lo], ls.p[hi] = ls.p[hi], ls.p[lo]
		lo++
		hi--
	}
}

// rotate moves p[from] to position to, shifting the facilities in between.
func (ls *localSearch) rotate(from, to int) {
	v := ls.p[from]
	if from < to {
		copy(ls.p[from:to], ls.p[from+1:to+1])
	} else {
		copy(ls.p[to+1:from+1], ls.p[to:from])
	}
	ls.p[to] = v
}

// tryReverse tries reversing the segment p[lo..hi] and keeps it when it lowers the
// cost (try); set, a buffer, is returned holding the segment's positions.
func (ls *localSearch) tryReverse(set []int, lo, hi int) ([]int, bool) {
	set = set[:0]
	for i := lo; i <= hi; i++ {
		set = append(set, i)
	}
	rev := func() { ls.reverse(lo, hi) }
	return set, ls.try(set, rev, rev)
}

// descend applies improving swap, insertion and reversal moves until none is left (a
// local optimum) or ctx ends. It returns whether anything improved.
func (ls *localSearch) descend(ctx context.Context) bool {
	n := ls.n
	improvedAny := false
	set := make([]int, 0, n)
	for improved := true; improved; {
		improved = false
		if ctx.Err() != nil {
			return improvedAny
		}
		for r := 0; r < n; r++ {
			for s := r + 1; s < n; s++ {
				if ls.trySwap(r, s) {
					improved = true
				}
			}
		}
		for lo := 0; lo < n; lo++ {
			for hi := lo + 2; hi < n && hi-lo <= ls.win; hi++ {
				var ok bool
				if set, ok = ls.tryReverse(set, lo, hi); ok {
					improved = true
				}
				fwd := func() { ls.rotate(lo, hi) }
				back := func() { ls.rotate(hi, lo) }
				if ls.try(set, fwd, back) {
					improved = true
				}
				if ls.try(set, back, fwd) {
					improved = true
				}
			}
		}
		improvedAny = improvedAny || improved
	}
	return improvedAny
}

// LocalSearch improves the assignment start of q by iterated local search: descent
// with swap moves, insertion moves and segment reversals (the last two within a
// window), then rounds of random perturbation (a random segment reversal or a few
// random swaps) followed by descent, keeping the best assignment seen. Moves are
// evaluated incrementally from the pairs they touch. It returns the best assignment
// and its objective (q.Objective). Deterministic for a given seed when ctx has no
// deadline (a deadline stops it early, at a point that depends on the machine's speed).
func LocalSearch(ctx context.Context, q *QAP, start []int, opt LocalSearchOptions) ([]int, float64, error) {
	if err := q.checkShape(); err != nil {
		return nil, 0, err
	}
	if err := q.CheckPerm(start); err != nil {
		return nil, 0, err
	}
	if q.N < 2 {
		return append([]int(nil), start...), q.Objective(start), nil
	}
	ls := newLocalSearch(q, start, opt.Window)
	ls.descend(ctx)
	best := append([]int(nil), ls.p...)
	bestCost := ls.cost
	rounds := opt.Rounds
	if rounds == 0 {
		rounds = max(10, 2000/q.N)
	}
	reached := func(c float64) bool {
		if !opt.HasTarget {
			return false
		}
		if ls.exact {
			return c <= opt.Target
		}
		return c <= opt.Target+1e-9*(1+math.Abs(opt.Target))
	}
	rng := rand.New(rand.NewPCG(opt.Seed, 0x9e3779b97f4a7c15))
	n := q.N
	for round := 0; round < rounds && ctx.Err() == nil && !reached(bestCost); round++ {
		copy(ls.p, best)
		if rng.IntN(2) == 0 {
			lo := rng.IntN(n - 1)
			hi := lo + 1 + rng.IntN(min(n-lo-1, ls.win))
			ls.reverse(lo, hi)
		} else {
			for k := 0; k < 3; k++ {
				r, s := rng.IntN(n), rng.IntN(n)
				ls.p[r], ls.p[s] = ls.p[s], ls.p[r]
			}
		}
		ls.cost = q.Objective(ls.p)
		ls.descend(ctx)
		if ls.improves(ls.cost, bestCost) {
			copy(best, ls.p)
			bestCost = ls.cost
		}
	}
	// Recompute from scratch: the incremental sum drifts in the last bits.
	return best, q.Objective(best), nil
}

// DescendWithin improves p by swaps and reversals that stay inside each span of
// positions [lo, hi] (the members of a group, kept contiguous), until no such move
// lowers the objective or ctx is done, and returns the improved assignment.
func DescendWithin(ctx context.Context, q *QAP, p []int, spans [][2]int) []int {
	ls := newLocalSearch(q, p, 0)
	n := q.N
	set := make([]int, 0, n)
	for improved := true; improved && ctx.Err() == nil; {
		improved = false
		for _, sp := range spans {
			if ctx.Err() != nil {
				break
			}
			lo, hi := sp[0], sp[1]
			for r := lo; r <= hi; r++ {
				for s := r + 1; s <= hi; s++ {
					set = append(set[:0], r, s)
					sw := func() { ls.p[r], ls.p[s] = ls.p[s], ls.p[r] }
					if ls.try(set, sw, sw) {
						improved = true
					}
				}
			}
			if hi > lo {
				var ok bool
				if set, ok = ls.tryReverse(set, lo, hi); ok {
					improved = true
				}
			}
		}
	}
	return ls.p
}
