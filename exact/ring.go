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
func RingArc[T geom.Number](coords []T, c T, k int) (Solution1D[T], error) {
	if err := checkRing(coords, c, k); err != nil {
		return Solution1D[T]{}, err
	}
	n := len(coords)
	sorted := sortedValues(coords)
	// Unrolled positions x[0..2n): x[i+n] = x[i] + c, and prefix sums.
	x := make([]T, 2*n)
	for i, v := range sorted {
		x[i] = v
		x[i+n] = v + c
	}
	pre := make([]T, 2*n+1)
	for i, v := range x {
		pre[i+1] = pre[i] + v
	}
	sum := func(a, b int) T { return pre[b] - pre[a] } // x[a..b)
	near := func(d T) bool { return 2*d <= c }         // d <= c/2 without halving
	// dist from x[i] to every x[j], j in [a, b), all with x[j] >= x[i]; split at the
	// first j with x[j]-x[i] > c/2 (found by the monotone pointer *p).
	fwd := func(i, a, b int, p *int) T {
		if *p < a {
			*p = a
		}
		for *p < b && near(x[*p]-x[i]) {
			*p++
		}
		m := *p
		if m > b {
			m = b
		}
		return sum(a, m) - T(m-a)*x[i] + T(b-m)*(c+x[i]) - sum(m, b)
	}
	// dist from x[i] to every x[j], j in [a, b), all with x[j] <= x[i]; j in [a, m)
	// are far (measured the other way), [m, b) near; m is the first j with
	// x[i]-x[j] <= c/2 (monotone pointer *p).
	bwd := func(i, a, b int, p *int) T {
		if *p < a {
			*p = a
		}
		for *p < b && !near(x[i]-x[*p]) {
			*p++
		}
		m := *p
		if m > b {
			m = b
		}
		return T(m-a)*(c-x[i]) + sum(a, m) + T(b-m)*x[i] - sum(m, b)
	}
	if k == n {
		idx := pickWindow(coords, sorted, 0, n)
		return Solution1D[T]{Indices: idx, Total: RingTotal(coords, c, idx)}, nil
	}
	// First window [0, k): build by adding points one at a time.
	var cost T
	for j := 1; j < k; j++ {
		p := 0
		cost += bwd(j, 0, j, &p)
	}
	best, bestCost := 0, cost
	pOut, pIn := 0, 0
	for s := 1; s < n; s++ {
		// remove x[s-1] (distances to s..s+k-2), add x[s+k-1] (distances to s..s+k-2)
		cost -= fwd(s-1, s, s+k-1, &pOut)
		cost += bwd(s+k-1, s, s+k-1, &pIn)
		if cost < bestCost {
			best, bestCost = s, cost
		}
	}
	return Solution1D[T]{Indices: pickWindow(coords, sorted, best, k), Total: bestCost}, nil
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
