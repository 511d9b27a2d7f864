package exact

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/procalloc/procalloc/geom"
)

// RingDistance is the distance of a and b on a ring of circumference c:
// min(|a-b|, c-|a-b|), for a and b in [0, c).
func RingDistance[T geom.Number](a, b, c T) T {
	d := a - b
	if d < 0 {
		d = -d
	}
	return min(d, c-d)
}

// RingTotal is the total pairwise ring distance of the points coords[idx[i]], by the
// O(k^2) definition (a test oracle and a check for callers).
func RingTotal[T geom.Number](coords []T, c T, idx []int) T {
	var s T
	for i := range idx {
		for j := i + 1; j < len(idx); j++ {
			s += RingDistance(coords[idx[i]], coords[idx[j]], c)
		}
	}
	return s
}

func checkRing[T geom.Number](coords []T, c T, k int) error {
	if err := check1D(coords, k); err != nil {
		return err
	}
	if f := float64(c); !(f > 0) || math.IsInf(f, 0) {
		return fmt.Errorf("exact: ring circumference %v must be positive and finite", f)
	}
	for i, v := range coords {
		if v < 0 || v >= c {
			return fmt.Errorf("exact: ring coordinate %d is %v, outside [0, %v)", i, float64(v), float64(c))
		}
	}
	return nil
}

// RingArc returns the best set of k circularly consecutive points (an arc of the
// sorted order) on a ring of circumference c, in O(n) after sorting. An arc is NOT
// always optimal: on the ring C = 65 with points 0 12 15 18 20 32 41 42 44 50 62 64
// and k = 10, the optimum (755) leaves out 32 and 50, which lie in two different gaps
// of the chosen set, while the best arc costs more. Use Ring for the exact optimum;
// RingArc is its fast incumbent and the answer for huge inputs.
//
// Each window's total is updated in O(1) when it slides: the distances from the
// leaving (or entering) point to the rest of the window split into a run measured
// clockwise and a run measured counterclockwise, at a split index that only moves
// forward, and both runs are prefix-sum differences over the unrolled positions.
// Those positions (x and x + c) are read from the sorted values as the window
// passes, and only the window's k prefix sums are kept, so beyond the sort the
// extra memory is O(k). Integer inputs of at least 2^16 points scan the two halves
// of the windows on two goroutines (exact arithmetic makes the totals identical).
// Ties: the first window of least total in sorted order; among equal values at its
// ends, the first occurrences in input order.
func RingArc[T geom.Number](coords []T, c T, k int) (Solution1D[T], error) {
	if err := checkRing(coords, c, k); err != nil {
		return Solution1D[T]{}, err
	}
	n := len(coords)
	sorted := sortedValues(coords)
	if k == n {
		idx := pickWindow(coords, sorted, 0, n)
		return Solution1D[T]{Indices: idx, Total: RingTotal(coords, c, idx)}, nil
	}
	// The windows start at s = 0..n-1 of the unrolled positions x[j] = sorted[j] and
	// x[j+n] = sorted[j] + c. Only window starts s <= n-k stay inside sorted; the
	// others read tail, the positions x[n-k .. n+k-1) built here.
	tail := make([]T, 2*k-1)
	for j := range tail {
		if i := n - k + j; i < n {
			tail[j] = sorted[i]
		} else {
			tail[j] = sorted[i-n] + c
		}
	}
	// Integer positions up to 2c and differences doubled stay far from overflow, so
	// x is sorted and the split pointers may carry over (see arcScan.start).
	noOverflow := !isInteger[T]() || (4*c/4 == c && 4*c > 0)
	seg := func(s0, s1 int) arcScan[T] {
		a := newArcScan(c, k)
		a.carry = noOverflow
		if s0+k-1 < n {
			a.start(sorted, 0, s0)
		} else {
			a.start(tail, n-k, s0)
		}
		mid := min(max(n-k+1, s0+1), s1)
		a.slide(sorted, 0, mid)
		a.slide(tail, n-k, s1)
		return a
	}
	var best int
	if isInteger[T]() && noOverflow && n >= radixParallel && 4*k <= n {
		// Integer arithmetic is exact (or wraps exactly), so a window's total does not
		// depend on where the sliding started: the halves agree bit for bit with one
		// sequential pass, and the first half wins ties.
		var h [2]arcScan[T]
		both(func(i int) {
			if i == 0 {
				h[0] = seg(0, n/2)
			} else {
				h[1] = seg(n/2, n)
			}
		})
		best = 0
		if h[1].bestCost < h[0].bestCost {
			best = 1
		}
		return Solution1D[T]{Indices: pickWindow(coords, sorted, h[best].best, k), Total: h[best].bestCost}, nil
	}
	// Floating point: one pass from s = 0, so every total is rounded exactly as the
	// same sequence of updates always rounds it.
	a := seg(0, n)
	best = a.best
	return Solution1D[T]{Indices: pickWindow(coords, sorted, best, k), Total: a.bestCost}, nil
}

// arcScan is RingArc's sliding window over the unrolled positions x: the current
// window [s, s+k), its total, and the best window so far. The prefix sums
// pre[j] = x[s0] + ... + x[j-1] (s0 the first window's start) are kept only for
// j in [s, s+k), in a ring buffer, since no other prefix sum is read again.
type arcScan[T geom.Number] struct {
	c         T
	k         int
	pre       []T // pre[j&mask]
	mask      int
	top       T   // pre[s+k-1]
	s         int // current window start
	pOut, pIn int // the monotone split pointers of the leaving and entering point
	cost      T
	best      int
	bestCost  T
	carry     bool // start may carry its split pointer from one point to the next
}

func newArcScan[T geom.Number](c T, k int) arcScan[T] {
	size := 2
	for size <= k {
		size *= 2
	}
	return arcScan[T]{c: c, k: k, pre: make([]T, size), mask: size - 1}
}

// start sets the window to [s0, s0+k) and computes its total by adding its points
// one at a time; xs[j-off] is x[j] for every j in the window.
func (a *arcScan[T]) start(xs []T, off, s0 int) {
	c, k, pre, mask := a.c, a.k, a.pre, a.mask
	near := func(d T) bool { return 2*d <= c } // d <= c/2 without halving
	var top T
	pre[s0&mask] = 0
	var cost T
	p := s0
	for j := s0 + 1; j < s0+k; j++ {
		if !a.carry {
			p = s0
		}
		top += xs[j-1-off]
		pre[j&mask] = top
		// distances from x[j] to x[s0..j): [s0, m) far, [m, j) near, m the first
		// index with x[j]-x[m] <= c/2 (nondecreasing in j, so p carries over).
		xi := xs[j-off]
		for p < j && !near(xi-xs[p-off]) {
			p++
		}
		m := min(p, j)
		preA, preM, preB := pre[s0&mask], pre[m&mask], pre[j&mask]
		cost += T(m-s0)*(c-xi) + (preM - preA) + T(j-m)*xi - (preB - preM)
	}
	a.top, a.s, a.cost = top, s0, cost
	a.pOut, a.pIn = s0, s0
	a.best, a.bestCost = s0, cost
}

// slide moves the window start from a.s to each of a.s+1, ..., s1-1 in turn,
// keeping the first window of least total; xs[j-off] is x[j] for every j in
// [a.s, s1+k-1).
func (a *arcScan[T]) slide(xs []T, off, s1 int) {
	c, k, pre, mask := a.c, a.k, a.pre, a.mask
	near := func(d T) bool { return 2*d <= c }
	top, cost, pOut, pIn := a.top, a.cost, a.pOut, a.pIn
	best, bestCost := a.best, a.bestCost
	s := a.s + 1
	for ; s < s1; s++ {
		b := s + k - 1
		top += xs[b-1-off] // pre[b]
		pre[b&mask] = top
		preA, preB := pre[s&mask], pre[b&mask]
		// Leaving x[s-1]: distances to x[s..b), all ahead of it; [s, m) near, [m, b)
		// far, m the first index with x[m]-x[s-1] > c/2.
		xo := xs[s-1-off]
		pOut = max(pOut, s)
		for pOut < b && near(xs[pOut-off]-xo) {
			pOut++
		}
		m := min(pOut, b)
		preM := pre[m&mask]
		cost -= (preM - preA) - T(m-s)*xo + T(b-m)*(c+xo) - (preB - preM)
		// Entering x[b]: distances to x[s..b), all behind it; [s, m) far, [m, b) near,
		// m the first index with x[b]-x[m] <= c/2.
		xi := xs[b-off]
		pIn = max(pIn, s)
		for pIn < b && !near(xi-xs[pIn-off]) {
			pIn++
		}
		m = min(pIn, b)
		preM = pre[m&mask]
		cost += T(m-s)*(c-xi) + (preM - preA) + T(b-m)*xi - (preB - preM)
		if cost < bestCost {
			best, bestCost = s, cost
		}
	}
	a.top, a.cost, a.pOut, a.pIn = top, cost, pOut, pIn
	a.best, a.bestCost = best, bestCost
	if s1 > a.s {
		a.s = s1 - 1
	}
}

// Ring returns k points with minimum total pairwise ring distance
// min(|a-b|, c-|a-b|) on a ring of circumference c; coordinates must lie in [0, c).
//
// Method. Ring distance is an integral over diameters: d(a, b) is the measure of the
// z in [0, c/2) for which exactly one of a, b lies in the half-open half-ring
// H_z = [z, z + c/2). Hence the total of a k-set S is
//
//	integral over z in [0, c/2) of A(z) (k - A(z)) dz,  A(z) = |S ∩ H_z|.
//
// As z sweeps [0, c/2), a chosen point p < c/2 leaves H_z at z = p and a chosen
// point p >= c/2 enters at z = p - c/2; between consecutive such events A is constant.
// With a1 = |S ∩ [0, c/2)| fixed, A = a1 - x + y where x (y) counts the chosen
// first-half (second-half) points whose events lie behind z, so a dynamic program over
// the n events with state (x, y) finds the best S for that a1 exactly; Ring takes the
// best over all a1. Time O(n k^3 / 6) after sorting (the states over all a1 sum to
// about k^3/6), memory O(n k^2 / 4) for the choices of the best a1. Coordinates are
// doubled internally so that c/2 is exact.
//
// Why not a window: arcs are optimal on the line (see Line) and in every brute-force
// test with 2k <= n+1, but not in general; see RingArc's counterexample.
//
// When ctx ends first, Ring returns the best arc with optimal = false.
func Ring[T geom.Number](ctx context.Context, coords []T, c T, k int) (sol Solution1D[T], optimal bool, err error) {
	if err := checkRing(coords, c, k); err != nil {
		return Solution1D[T]{}, false, err
	}
	arc, _ := RingArc(coords, c, k)
	n := len(coords)
	if k == n || k == 1 {
		return arc, true, nil
	}
	order := sortedOrder(coords)
	// Events in z order: doubled positions q = 2p; first half q < c (doubled half is c).
	type event struct {
		z     T
		idx   int
		first bool
	}
	var firstEv, secondEv []event
	for _, j := range order {
		q := 2 * coords[j]
		if q < c {
			firstEv = append(firstEv, event{q, j, true})
		} else {
			secondEv = append(secondEv, event{q - c, j, false})
		}
	}
	ev := make([]event, 0, n)
	for a, b := 0, 0; a < len(firstEv) || b < len(secondEv); {
		if b == len(secondEv) || (a < len(firstEv) && firstEv[a].z <= secondEv[b].z) {
			ev = append(ev, firstEv[a])
			a++
		} else {
			ev = append(ev, secondEv[b])
			b++
		}
	}
	// ell[i]: length of the interval after event i-1 (ell[0] before event 0), doubled.
	ell := make([]T, n+1)
	prev := T(0)
	for i, e := range ev {
		ell[i] = e.z - prev
		prev = e.z
	}
	ell[n] = c - prev
	nF, nG := len(firstEv), len(secondEv)
	// Suffix counts of first/second-half events, for pruning.
	remF := make([]int, n+1)
	remG := make([]int, n+1)
	for i := n - 1; i >= 0; i-- {
		remF[i], remG[i] = remF[i+1], remG[i+1]
		if ev[i].first {
			remF[i]++
		} else {
			remG[i]++
		}
	}
	// Larger than any doubled total: the integral is at most c * k^2/4.
	inf := c*T(k*k/4+1) + 1
	// solve runs the DP for one a1; with choice != nil it records decisions
	// choice[i][x*(b+1)+y] = true when event i's point is chosen on the best path
	// into state (x, y) after event i.
	solve := func(a1 int, choice [][]bool) T {
		b := k - a1
		w := b + 1
		dp := make([]T, (a1+1)*w)
		nx := make([]T, len(dp))
		for i := range dp {
			dp[i] = inf
		}
		dp[0] = ell[0] * T(a1*(k-a1))
		for i, e := range ev {
			for s := range nx {
				nx[s] = inf
			}
			var ch []bool
			if choice != nil {
				ch = choice[i]
			}
			for x := 0; x <= a1; x++ {
				for y := 0; y <= b; y++ {
					v := dp[x*w+y]
					if v == inf {
						continue
					}
					// skip
					if v < nx[x*w+y] {
						nx[x*w+y] = v
						if ch != nil {
							ch[x*w+y] = false
						}
					}
					// choose
					if e.first && x < a1 {
						if s := (x+1)*w + y; v < nx[s] {
							nx[s] = v
							if ch != nil {
								ch[s] = true
							}
						}
					} else if !e.first && y < b {
						if s := x*w + y + 1; v < nx[s] {
							nx[s] = v
							if ch != nil {
								ch[s] = true
							}
						}
					}
				}
			}
			dp, nx = nx, dp
			l := ell[i+1]
			for x := 0; x <= a1; x++ {
				for y := 0; y <= b; y++ {
					s := x*w + y
					if dp[s] == inf {
						continue
					}
					if a1-x > remF[i+1] || b-y > remG[i+1] {
						dp[s] = inf
						continue
					}
					a := a1 - x + y
					dp[s] += l * T(a*(k-a))
				}
			}
		}
		return dp[a1*w+b]
	}
	bestA1, bestVal := -1, inf
	for a1 := max(0, k-nG); a1 <= min(k, nF); a1++ {
		if ctx.Err() != nil {
			return arc, false, nil
		}
		if v := solve(a1, nil); v < bestVal {
			bestA1, bestVal = a1, v
		}
	}
	b := k - bestA1
	w := b + 1
	choice := make([][]bool, n)
	for i := range choice {
		choice[i] = make([]bool, (bestA1+1)*w)
	}
	solve(bestA1, choice)
	x, y := bestA1, b
	var idx []int
	for i := n - 1; i >= 0; i-- {
		if choice[i][x*w+y] {
			idx = append(idx, ev[i].idx)
			if ev[i].first {
				x--
			} else {
				y--
			}
		}
	}
	slices.Sort(idx)
	total := bestVal / 2
	if arc.Total <= total {
		// Equal totals: prefer the arc, the simpler answer. (The DP is exact, so the
		// arc is never strictly better.)
		return arc, true, nil
	}
	return Solution1D[T]{Indices: idx, Total: total}, true, nil
}
