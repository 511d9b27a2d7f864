package exact

import "slices"

// The total pairwise L1 distance of a finite S ⊂ Z^d is the sum over the axes of
// Σ_{a<b} n_a n_b (b - a), n_a being the number of points of S in the hyperplane
// "coordinate = a". Along one axis only the multiset of these plane counts matters once
// the planes may be reordered, and reordering planes maps lattice sets to lattice sets.
// This file holds that one-axis problem: lineCost(w), the minimum over orders of the
// weights w of Σ_{i<j} w_i w_j |pos_i - pos_j|, and two facts the cluster search rests on:
//
//  1. Some optimal order is unimodal (no strict valley: if w_j < min(w_i, w_l) for
//     positions i < j < l, exchanging j with i or l lowers the cost, because the
//     distance sum to the other weights is convex in the position). So the order is
//     built outside-in from the smallest weight, each weight at the left or right end:
//     each weight but the last adds the gap on its inner side, P(k-P), P the total on
//     its side after it (k = Σ w). A dynamic program over P is exact.
//  2. lineCost never increases when a unit moves from a weight to one at least as
//     large (μ_b >= μ_a): with D_a, D_b the distance sums of the two planes to the other
//     points, optimality of the order gives (μ_b - μ_a)(D_b - D_a) <= 0, and the move
//     changes the cost by D_b - D_a - d_ab(μ_b - μ_a + 1) < 0 (a plane left empty is
//     removed, which only lowers it). Such moves generate majorization (Muirhead), so
//     lineCost is antitone in majorization: more concentrated counts cost less.
//
// Pushing the points of every axis-parallel line of S to the start of the line keeps
// the plane counts of the other axes and makes those of this axis more concentrated
// (the t largest new counts hold, per line, min(its length, t) points: the most any t
// planes can hold), so by 2 it never raises Σ lineCost. Repeating along every axis ends
// (the coordinate sum drops) in a down-set of N^d (a Ferrers diagram in 2D, a plane
// partition in 3D). Hence the optimum over k-point sets is the minimum over down-sets
// D, |D| = k, of Σ_axes lineCost(plane counts of D), and every value the search reports
// is the cost of an explicit set (the down-set with each axis's planes in the optimal
// order), so nothing unrealisable is ever claimed.

// lineDP is the outside-in dynamic program of lineCost over weights pushed in
// ascending order: dp[L] is the least cost of the pushed weights with L of them
// (by weight) on the smaller side, S the pushed total, k the grand total. A state and
// its mirror image (sides swapped) have the same future, so only L <= S/2 is kept.
type lineDP struct {
	dp []int64
	S  int
}

const infCost = int64(1) << 62

func newLineDP(k int) lineDP {
	d := make([]int64, k/2+1)
	for i := range d {
		d[i] = infCost
	}
	d[0] = 0
	return lineDP{dp: d[:1]}
}

// push adds weight w (not the last one) into out (len >= (S+w)/2+1) and returns the
// state.
func (st lineDP) push(w, k int, out []int64) lineDP {
	S := st.S
	T := S + w
	out = out[:T/2+1]
	for L := range out {
		out[L] = infCost
	}
	for L, c0 := range st.dp {
		if c0 == infCost {
			continue
		}
		l2 := L + w
		if c := c0 + int64(l2)*int64(k-l2); true {
			i := min(l2, T-l2)
			out[i] = min(out[i], c)
		}
		r2 := S - L + w // L <= S/2 < T/2: L stays the smaller side's index
		if c := c0 + int64(r2)*int64(k-r2); c < out[L] {
			out[L] = c
		}
	}
	return lineDP{dp: out, S: T}
}

// finish pushes the remaining weights (ascending, all >= the pushed ones; the last adds
// nothing) and returns the least total. b1, b2 are scratch of length >= k/2+1.
func (st lineDP) finish(rest []int, k int, b1, b2 []int64) int64 {
	cur := st
	for i := 0; i < len(rest)-1; i++ {
		if i&1 == 0 {
			cur = cur.push(rest[i], k, b1)
		} else {
			cur = cur.push(rest[i], k, b2)
		}
	}
	best := infCost
	for _, c := range cur.dp {
		best = min(best, c)
	}
	return best
}

// lineCost is the minimum over orders of w (positive weights) of
// Σ_{i<j} w_i w_j |pos_i - pos_j|.
func lineCost(w []int) int64 {
	if len(w) <= 1 {
		return 0
	}
	a := slices.Clone(w)
	slices.Sort(a)
	k := 0
	for _, v := range a {
		k += v
	}
	buf := make([]int64, 3*(k/2+1))
	st := lineDP{dp: buf[:1], S: 0}
	st.dp[0] = 0
	return st.finish(a, k, buf[k/2+1:2*(k/2+1)], buf[2*(k/2+1):])
}

// lineScratch holds lineCostScratch's buffers, so that a search computing lineCost
// at every node allocates nothing.
type lineScratch struct {
	w   []int
	buf []int64
}

// lineCostScratch is lineCost(w's positive entries), computed in sc's buffers.
func lineCostScratch(w []int, sc *lineScratch) int64 {
	a := sc.w[:0]
	k := 0
	for _, v := range w {
		if v > 0 {
			a = append(a, v)
			k += v
		}
	}
	sc.w = a
	if len(a) <= 1 {
		return 0
	}
	if slices.IsSortedFunc(a, func(x, y int) int { return y - x }) {
		slices.Reverse(a) // the searches' plane counts come nonincreasing
	} else {
		slices.Sort(a)
	}
	h := k/2 + 1
	if len(sc.buf) < 3*h {
		sc.buf = make([]int64, 3*h)
	}
	st := lineDP{dp: sc.buf[:1], S: 0}
	st.dp[0] = 0
	return st.finish(a, k, sc.buf[h:2*h], sc.buf[2*h:3*h])
}

// lineOrder returns lineCost(w) and an optimal order: pos[i] is the position (0-based)
// of w[i]. Ties between equal weights go by index.
func lineOrder(w []int) (int64, []int) {
	m := len(w)
	pos := make([]int, m)
	if m <= 1 {
		return 0, pos
	}
	idx := make([]int, m)
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return w[a] - w[b] })
	k := 0
	for _, v := range w {
		k += v
	}
	// dp with choices: left[i][L] says item i went left to reach left total L.
	dp := make([]int64, k+1)
	nd := make([]int64, k+1)
	for i := range dp {
		dp[i] = infCost
	}
	dp[0] = 0
	left := make([][]bool, m-1)
	S := 0
	for i := 0; i < m-1; i++ {
		v := w[idx[i]]
		left[i] = make([]bool, S+v+1)
		for L := 0; L <= S+v; L++ {
			nd[L] = infCost
		}
		for L := 0; L <= S; L++ {
			if dp[L] == infCost {
				continue
			}
			if c := dp[L] + int64(L+v)*int64(k-L-v); c < nd[L+v] {
				nd[L+v], left[i][L+v] = c, true
			}
			r2 := S - L + v
			if c := dp[L] + int64(r2)*int64(k-r2); c < nd[L] {
				nd[L], left[i][L] = c, false
			}
		}
		S += v
		dp, nd = nd, dp
	}
	bestL := 0
	for L := 0; L <= S; L++ {
		if dp[L] < dp[bestL] {
			bestL = L
		}
	}
	cost := dp[bestL]
	// Backtrack: items placed outside-in; lo/hi are the next free ends.
	side := make([]bool, m-1)
	L := bestL
	for i := m - 2; i >= 0; i-- {
		side[i] = left[i][L]
		if side[i] {
			L -= w[idx[i]]
		}
	}
	lo, hi := 0, m-1
	for i := 0; i < m-1; i++ {
		if side[i] {
			pos[idx[i]] = lo
			lo++
		} else {
			pos[idx[i]] = hi
			hi--
		}
	}
	pos[idx[m-1]] = lo
	return cost, pos
}

// conjugate returns the conjugate of the partition λ (nonincreasing positive parts).
func conjugate(l []int) []int {
	if len(l) == 0 {
		return nil
	}
	c := make([]int, l[0])
	for _, v := range l {
		for j := range v {
			c[j]++
		}
	}
	return c
}
