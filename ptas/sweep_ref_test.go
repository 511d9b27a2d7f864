package ptas

import (
	"cmp"
	"context"
	"slices"

	"github.com/procalloc/procalloc/geom"
)

// mmSweepPlain is mmSweep as it was before the thirty-first round (every center
// scored, rows in odometer order): the reference the pruned sweep must match
// exactly (TestSweepMatchesPlain).
//
// mmSweep was MM with TiesByIndex. Centers are taken row by row: a row fixes the
// coordinates of dimensions 1..d-1 (every combination of their distinct values) and
// sweeps dimension 0 over its distinct values in ascending order. With a = the L1
// distance in dimensions 1..d-1, a point p at or left of the center (p_0 <= c_0) has
// distance (a - p_0) + c_0 and a point right of it (a + p_0) - c_0: within each side
// the order does not depend on c_0. So each side keeps its k nearest in a sorted list
// (the left side grows as the sweep advances; the right side's lists are prepared by
// a sweep from the right), and each center merges the two lists: O(k) per center
// instead of O(n), plus O(k + n/64) scoring by ranks. Among equal totals the lexicographically smallest center
// wins, which is the first one in MM's documented order (dimension 0 outermost).
func mmSweepPlain[T geom.Number](ctx context.Context, pr *problem[T]) (best []int, bestCenter []T, err error) {
	n, d, k := pr.n, pr.d, pr.k
	pts := pr.pts
	vals := make([][]T, d)
	for j := range vals {
		v := make([]T, n)
		for i, p := range pts {
			v[i] = p[j]
		}
		slices.Sort(v)
		vals[j] = slices.Compact(v)
	}
	xs := vals[0]
	// Points grouped by their position in xs (order within a group: by index).
	xorder := make([]int, n)
	for i := range xorder {
		xorder[i] = i
	}
	slices.SortStableFunc(xorder, func(a, b int) int { return cmp.Compare(pts[a][0], pts[b][0]) })
	xstart := make([]int, len(xs)+1)
	for r, xi := 0, 0; xi < len(xs); xi++ {
		xstart[xi] = r
		for r < n && pts[xorder[r]][0] == xs[xi] {
			r++
		}
		xstart[xi+1] = r
	}
	sc := newRankScorer(pts)
	keyL := make([]T, n)
	keyR := make([]T, n)
	// Right-side lists per x position, flattened: rk/ri[xi*k : xi*k+rlen[xi]].
	rk := make([]T, len(xs)*k)
	ri := make([]int, len(xs)*k)
	rlen := make([]int, len(xs))
	left, right := newPlainTopList[T](k), newPlainTopList[T](k)
	sel := make([]int, k)
	best = make([]int, k)
	bestCenter = make([]T, d)
	found := false
	var bestScore T
	c := make([]T, d)
	pos := make([]int, d) // odometer over dimensions 1..d-1
	for {
		if err := context.Cause(ctx); err != nil {
			return nil, nil, err
		}
		for j := 1; j < d; j++ {
			c[j] = vals[j][pos[j]]
		}
		for i, p := range pts {
			var s T
			for j := 1; j < d; j++ {
				if x := p[j] - c[j]; x < 0 {
					s -= x
				} else {
					s += x
				}
			}
			keyL[i] = s - p[0]
			keyR[i] = s + p[0]
		}
		right.reset()
		for xi := len(xs) - 1; xi >= 0; xi-- {
			off := xi * k
			rlen[xi] = copy(rk[off:off+k], right.key)
			copy(ri[off:off+k], right.idx)
			right.addGroup(xorder[xstart[xi]:xstart[xi+1]], keyR)
		}
		left.reset()
		for xi, cx := range xs {
			left.addGroup(xorder[xstart[xi]:xstart[xi+1]], keyL)
			// Merge by (distance, index).
			off := xi * k
			rkeys, ridx := rk[off:off+rlen[xi]], ri[off:off+rlen[xi]]
			li, rj := 0, 0
			for m := 0; m < k; m++ {
				takeLeft := rj == len(ridx)
				if !takeLeft && li < len(left.idx) {
					dl, dr := left.key[li]+cx, rkeys[rj]-cx
					takeLeft = dl < dr || dl == dr && left.idx[li] < ridx[rj]
				}
				if takeLeft {
					sel[m] = left.idx[li]
					li++
				} else {
					sel[m] = ridx[rj]
					rj++
				}
			}
			c[0] = cx
			score := sc.total(sel)
			if !found || score < bestScore || score == bestScore && geom.Compare(c, bestCenter) < 0 {
				found, bestScore = true, score
				copy(best, sel)
				copy(bestCenter, c)
			}
		}
		j := d - 1
		for ; j >= 1; j-- {
			pos[j]++
			if pos[j] < len(vals[j]) {
				break
			}
			pos[j] = 0
		}
		if j < 1 {
			break
		}
	}
	slices.Sort(best)
	return best, bestCenter, nil
}

// plainTopList is topList as it was before the thirty-first round (the reference
// sweep's lists): it keeps the k smallest (key, index) pairs inserted so far, sorted.
type plainTopList[T geom.Number] struct {
	key []T
	idx []int
	k   int
	// scratch for addGroup
	ci   []int
	nkey []T
	nid  []int
}

func newPlainTopList[T geom.Number](k int) *plainTopList[T] {
	return &plainTopList[T]{key: make([]T, 0, k), idx: make([]int, 0, k), k: k,
		nkey: make([]T, 0, k), nid: make([]int, 0, k)}
}

func (t *plainTopList[T]) reset() { t.key, t.idx = t.key[:0], t.idx[:0] }

// addGroup adds the points group (ascending indices) with keys key[p]: the members
// that can enter are selected (at most k), sorted by (key, index) and merged in,
// O(g + k log k) instead of g insertions of O(k) each.
func (t *plainTopList[T]) addGroup(group []int, key []T) {
	c := t.ci[:0]
	full := len(t.key) == t.k
	for _, p := range group {
		if full {
			kp, last := key[p], t.key[t.k-1]
			if kp > last || kp == last && p > t.idx[t.k-1] {
				continue
			}
		}
		c = append(c, p)
	}
	t.ci = c
	if len(c) == 0 {
		return
	}
	// Sort the candidates by (key, index); they arrive in ascending index order.
	if len(c) <= 24 {
		for i := 1; i < len(c); i++ {
			p, kp := c[i], key[c[i]]
			j := i
			for j > 0 && key[c[j-1]] > kp {
				c[j] = c[j-1]
				j--
			}
			c[j] = p
		}
	} else {
		less := func(a, b int) int {
			if r := cmp.Compare(key[a], key[b]); r != 0 {
				return r
			}
			return a - b
		}
		if len(c) > t.k {
			// Only the k smallest can enter: select them first, sort only those.
			selectSmallest(c, t.k, less)
			c = c[:t.k]
		}
		slices.SortFunc(c, less)
	}
	nk, ni := t.nkey[:0], t.nid[:0]
	a, b := 0, 0
	for len(nk) < t.k && (a < len(t.key) || b < len(c)) {
		if b == len(c) || a < len(t.key) && (t.key[a] < key[c[b]] || t.key[a] == key[c[b]] && t.idx[a] < c[b]) {
			nk, ni = append(nk, t.key[a]), append(ni, t.idx[a])
			a++
		} else {
			nk, ni = append(nk, key[c[b]]), append(ni, c[b])
			b++
		}
	}
	t.key, t.nkey = nk, t.key[:0]
	t.idx, t.nid = ni, t.idx[:0]
}
