package ptas

import "sync"

// compBound is a lower bound on a center's total for k close to the number of
// points, in O(1) per center from a table built once per search (gridScan, issue 32
// item 1). Write F for the points, D(f) for the summed distance from f to every point
// of F, P for a set's total pairwise distance, and, for a center of radius thr (its
// k-th smallest distance), I for the points closer than thr and T for the points at
// thr it takes, so its k nearest are S = I ∪ T and E = F \ S are left out. Then
//
//	P(F) = P(S) + sum over e in E of d(e, S) + P(E), and
//	sum over e in E of D(e) = sum over e in E of d(e, S) + 2 P(E),
//
// so P(S) = P(F) - sum_E D + P(E). With sum_E D = 2 P(F) - sum_I D - sum_T D, D >= Dmin
// on T and P(E) >= 0:
//
//	P(S) >= sum_I D - P(F) + |T| Dmin.
//
// sum_I D is the D-weighted count of the L1 ball of radius thr - 1, a square in
// rotated coordinates read off a prefix sum, and |T| = k - |I|. The bound gives up
// P(E), the excluded points' own total, so it is tight when few points are left out:
// on issue 32's workload at 65,536 nodes it exceeded the decision's best for 48% of
// the centers at k = 0.76 of the free nodes and 92% at 0.95, none below half.
type compBound struct {
	h, u   int
	wt     []int64 // wt[a*(u+1)+b]: summed D of the points with x+y < a and x-y+h-1 < b
	pf     int64   // P(F)
	dmin   int64
	k      int64
	dx, dy []int64 // scratch: D's two axis terms per offset
}

// compBoundMinShare is the least k/n (as k * compBoundMinShare[1] >= n *
// compBoundMinShare[0]) for which the search builds the bound: below about half the
// points left out its value is negative for nearly every center (measured on issue
// 32's workload at 65,536 nodes: 0% of the centers dropped at k/n = 0.48, 23% at
// 0.54, 65% at 0.62).
var compBoundMinShare = [2]int{1, 2}

// compBoundWithBlocks builds the bound also where gridScan bounds blocks of centers
// (tests turn it on). There the blocks, and their sorted visit, leave it few
// centers to drop, and its table (the box's rotated square in int64, 2 MB at
// 65,536 mesh nodes) cost more than it spared: on issue 32's workload, the
// searches alone (every 4th recorded one, alternated pairs, CPU per search),
// genalg mesh:256x256 2,555 -> 2,411 and 2,499 -> 2,314 µs, mesh:128x128 562 ->
// 546 and 539 -> 542 µs, mm mesh:256x256 4,884 -> 4,668 and 4,952 -> 4,926 µs.
var compBoundWithBlocks = false

var compBoundPool = sync.Pool{New: func() any { return new(compBound) }}

// compBoundFits reports whether the table's sums stay exact in int64: n points of a
// box of half-perimeter span sum to at most n * n * span (each D is at most n * span).
func compBoundFits(n, span int) bool {
	return float64(n)*float64(n)*float64(span) < 1<<62
}

// newCompBound prepares the bound for the points at offsets (px[i], py[i]) of a w x h
// box and subsets of size k, reusing a pooled table; release it after the search.
func newCompBound(px, py []int, w, h, k int) *compBound {
	return newCompBoundIn(px, py, w, h, k, nil)
}

// newCompBoundIn is newCompBound; with byA (the points in ascending (x, y) order
// grouped by x + y, pointBuckets.byDiagonal) the table's rows are written once, as
// rotBalls.buildSorted does.
func newCompBoundIn(px, py []int, w, h, k int, byA *pointBuckets) *compBound {
	c := compBoundPool.Get().(*compBound)
	c.h, c.u, c.k = h, w+h-1, int64(k)
	c.dx, c.dy = axisSums(c.dx, px, w), axisSums(c.dy, py, h)
	s := c.u + 1
	var sum int64
	c.dmin = -1
	for i := range px {
		d := c.dx[px[i]] + c.dy[py[i]]
		sum += d
		if c.dmin < 0 || d < c.dmin {
			c.dmin = d
		}
	}
	c.pf = sum / 2 // every pair is counted from both ends
	if byA != nil {
		c.wt = growRaw(c.wt, s*s)
		// rotBalls.buildSorted's loop with weights. One generic loop for both cost
		// about 2 % more of genalg's CPU at 65,536 nodes (median of six alternated
		// pairs; its int32 instance about a quarter slower), so each keeps its own.
		clear(c.wt[:s])
		for a := 1; a < s; a++ {
			prev, cur := c.wt[(a-1)*s:a*s], c.wt[a*s:(a+1)*s]
			cur[0] = 0
			var acc int64
			b := 1
			for _, i := range byA.idx[byA.start[a-1]:byA.start[a]] {
				for pb := px[i] - py[i] + h; b < pb; b++ {
					cur[b] = prev[b] + acc
				}
				acc += c.dx[px[i]] + c.dy[py[i]]
			}
			for ; b < s; b++ {
				cur[b] = prev[b] + acc
			}
		}
		return c
	}
	c.wt = grow(c.wt, s*s)
	for i := range px {
		c.wt[(px[i]+py[i]+1)*s+px[i]-py[i]+h] += c.dx[px[i]] + c.dy[py[i]]
	}
	for a := 1; a < s; a++ {
		prev, cur := c.wt[(a-1)*s:a*s], c.wt[a*s:(a+1)*s]
		var acc int64
		for b := 1; b < s; b++ {
			acc += cur[b]
			cur[b] = prev[b] + acc
		}
	}
	return c
}

func (c *compBound) release() { compBoundPool.Put(c) }

// axisSums returns, per offset v in [0, n), the summed distance |v - p| over the
// values p of ps (in buf, resized).
func axisSums(buf []int64, ps []int, n int) []int64 {
	cnt := make([]int64, n)
	for _, p := range ps {
		cnt[p]++
	}
	buf = grow(buf, n)
	// Left to right, the distances to the values left of v; then right to left.
	var seen, run int64
	for v := range n {
		run += seen // every value left of v is one further than from v - 1
		buf[v] = run
		seen += cnt[v]
	}
	seen, run = 0, 0
	for v := n - 1; v >= 0; v-- {
		run += seen
		buf[v] += run
		seen += cnt[v]
	}
	return buf
}

// lb is the bound for the center at offsets (cx, cy) of radius thr with below points
// closer than thr.
func (c *compBound) lb(cx, cy, thr, below int) int64 {
	var wI int64
	if rad := thr - 1; rad >= 0 {
		s := c.u + 1
		a0, a1 := max(cx+cy-rad, 0), min(cx+cy+rad, c.u-1)+1
		b0, b1 := max(cx-cy+c.h-1-rad, 0), min(cx-cy+c.h-1+rad, c.u-1)+1
		if a0 < a1 && b0 < b1 {
			wI = c.wt[a1*s+b1] - c.wt[a0*s+b1] - c.wt[a1*s+b0] + c.wt[a0*s+b0]
		}
	}
	return wI - c.pf + (c.k-int64(below))*c.dmin
}
