package ptas

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sort"

	"github.com/procalloc/procalloc/geom"
)

// rankScorer computes total pairwise L1 distances of subsets in O(d (n/64 + k)): the
// points' rank in each dimension is precomputed, so a subset is sorted per dimension
// by setting bits in an n-bit bitmap and reading them back in order.
type rankScorer[T geom.Number] struct {
	rank   [][]int32 // rank[j][p]: position of p in dimension j's sorted order
	sorted [][]T     // sorted[j][r]: the coordinate of rank r
	bitmap []uint64
}

func newRankScorer[T geom.Number](pts [][]T) *rankScorer[T] {
	n, d := len(pts), len(pts[0])
	s := &rankScorer[T]{rank: make([][]int32, d), sorted: make([][]T, d), bitmap: make([]uint64, (n+63)/64)}
	ord := make([]int, n)
	for j := 0; j < d; j++ {
		for i := range ord {
			ord[i] = i
		}
		slices.SortStableFunc(ord, func(a, b int) int { return cmp.Compare(pts[a][j], pts[b][j]) })
		s.rank[j] = make([]int32, n)
		s.sorted[j] = make([]T, n)
		for r, p := range ord {
			s.rank[j][p] = int32(r)
			s.sorted[j][r] = pts[p][j]
		}
	}
	return s
}

// total returns the total pairwise L1 distance of the points idx (distinct).
func (s *rankScorer[T]) total(idx []int) T {
	k := len(idx)
	var tot T
	for j, rk := range s.rank {
		for _, p := range idx {
			r := rk[p]
			s.bitmap[r>>6] |= 1 << (r & 63)
		}
		vals := s.sorted[j]
		coef := 1 - k // 2i - k + 1 for the i-th smallest
		for w, word := range s.bitmap {
			if word == 0 {
				continue
			}
			s.bitmap[w] = 0
			for word != 0 {
				b := bits.TrailingZeros64(word)
				word &= word - 1
				tot += vals[w<<6|b] * T(coef)
				coef += 2
			}
		}
	}
	return tot
}

// topList keeps the k smallest (key, index) pairs inserted so far, sorted.
type topList[T geom.Number] struct {
	key []T
	idx []int
	k   int
	// at: after addGroup, the positions in the list (ascending) where the group's
	// members that entered it landed
	at []int
	// track: keep bad, the number of adjacent entries pairBad flags (float64 keys; centers' |x| at most cmax)
	track bool
	cmax  float64
	bad   int
	// scratch for addGroup
	ci   []int
	nkey []T
	nid  []int
}

func newTopList[T geom.Number](k int) *topList[T] {
	return &topList[T]{key: make([]T, 0, k), idx: make([]int, 0, k), k: k,
		nkey: make([]T, 0, k), nid: make([]int, 0, k)}
}

func (t *topList[T]) reset() { t.key, t.idx, t.bad = t.key[:0], t.idx[:0], 0 }

// addGroup adds the points group (ascending indices) with keys key[p]: the members
// that can enter are selected (at most k), sorted by (key, index) and merged in,
// O(g + k log k) instead of g insertions of O(k) each.
func (t *topList[T]) addGroup(group []int, key []T) {
	t.at = t.at[:0]
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
	if len(c) == 1 { // one entry: shift the tail instead of merging
		p, kp := c[0], key[c[0]]
		at := sort.Search(len(t.key), func(i int) bool { return t.key[i] > kp || t.key[i] == kp && t.idx[i] > p })
		n0 := len(t.key)
		if t.track { // the pairs broken: (at-1, at) and, when full, the last one
			if at > 0 && at < n0 {
				t.bad -= t.pairBad(at-1, at)
			}
			if n0 == t.k && at < n0-1 && n0 >= 2 {
				t.bad -= t.pairBad(n0-2, n0-1)
			}
		}
		if n0 < t.k {
			t.key, t.idx = append(t.key, kp), append(t.idx, p)
		}
		copy(t.key[at+1:], t.key[at:])
		copy(t.idx[at+1:], t.idx[at:])
		t.key[at], t.idx[at] = kp, p
		t.at = append(t.at, at)
		if t.track { // the pairs made
			if at > 0 {
				t.bad += t.pairBad(at-1, at)
			}
			if at+1 < len(t.key) {
				t.bad += t.pairBad(at, at+1)
			}
		}
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
			t.at = append(t.at, len(nk))
			nk, ni = append(nk, key[c[b]]), append(ni, c[b])
			b++
		}
	}
	t.key, t.nkey = nk, t.key[:0]
	t.idx, t.nid = ni, t.idx[:0]
	if t.track {
		t.bad = 0
		for i := 1; i < len(t.key); i++ {
			t.bad += t.pairBad(i-1, i)
		}
	}
}

// pairBad is 1 if the adjacent entries i and j = i+1 could turn over when some
// center coordinate c, |c| <= cmax, is added to or subtracted from their keys, so
// that the list is out of (distance, index) order and sweepSplit must replay the
// merge (a list with bad == 0 has no such pair). Proof that
// false is safe: rounding to nearest is monotone, so key_i < key_i+1 gives
// fl(key_i + c) <= fl(key_i+1 + c); equal keys come in index order already. Only an
// adjacent pair with key_i < key_i+1 and index_i > index_i+1 can turn over, and only
// if the rounded sums are equal. Each sum is within half an ulp of the exact one,
// and an ulp of a float64 v is at most 2^-52 |v|, so they differ while key_i+1 -
// key_i > 2^-52 (|key_i| + |key_i+1| + 2 cmax) (both ulps counted in full); the test
// uses 2^-50 for slack on the subtraction and the sums that form the bound.
func (t *topList[T]) pairBad(i, j int) int {
	if t.idx[i] > t.idx[j] {
		a, b := float64(t.key[i]), float64(t.key[j])
		if b-a <= (math.Abs(a)+math.Abs(b)+2*t.cmax)*0x1p-50 {
			return 1
		}
	}
	return 0
}

// selectSmallest reorders c so that its r smallest elements under cmp (a strict total
// order) come first, by deterministic quickselect.
func selectSmallest(c []int, r int, cmp func(a, b int) int) {
	lo, hi := 0, len(c)-1
	for lo < hi {
		p := c[lo+(hi-lo)/2]
		i, j := lo, hi
		for i <= j {
			for cmp(c[i], p) < 0 {
				i++
			}
			for cmp(c[j], p) > 0 {
				j--
			}
			if i <= j {
				c[i], c[j] = c[j], c[i]
				i++
				j--
			}
		}
		switch {
		case r-1 <= j:
			hi = j
		case r-1 >= i:
			lo = i
		default:
			return
		}
	}
}

// mmSweep is MM with TiesByIndex. Centers are taken row by row: a row fixes the
// coordinates of dimensions 1..d-1 (every combination of their distinct values) and
// sweeps dimension 0 over its distinct values in ascending order. With a = the L1
// distance in dimensions 1..d-1, a point p at or left of the center (p_0 <= c_0) has
// distance (a - p_0) + c_0 and a point right of it (a + p_0) - c_0: within each side
// the order does not depend on c_0. So each side keeps its k nearest in a sorted list
// (the left side grows as the sweep advances; the right side's lists are prepared by
// a sweep from the right), and each center merges the two lists: O(k) per center
// instead of O(n), plus O(k + n/64) scoring by ranks.
//
// The winner is the smallest (total, center) pair, the center compared
// lexicographically (dimension 0 first): the first strictly best in MM's documented
// order, whatever order the centers are visited in. Three things use that, none
// changes the answer (mmSweepPlain, test-only, is the sweep without them;
// TestSweepMatchesPlain):
//
//   - Seed rows first (sweepSeedRows): the rows through the sampled points whose k
//     nearest are closest, so a good incumbent is known early; the other rows follow
//     in odometer order.
//   - A center whose k nearest are the previous center's of the same row (the same
//     set) has the same total and a larger center: it cannot win and is skipped.
//   - A center whose lower bound (crossBound) exceeds the incumbent's total, or
//     equals it while the center is larger than the incumbent's, is not scored.
func mmSweep[T geom.Number](ctx context.Context, pr *problem[T]) (best []int, bestCenter []T, err error) {
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
	left, right := newTopList[T](k), newTopList[T](k)
	sel := make([]int, k)
	best = make([]int, k)
	bestCenter = make([]T, d)
	found := false
	var bestScore T
	c := make([]T, d)
	slack, prune := crossBoundSlack(pr)
	mark := make([]uint32, n) // sameAsPrevious's marks
	var gen uint32
	// coord[j][p]: the points' coordinates by dimension, for crossBound.
	coord := make([][]T, d)
	for j := range coord {
		coord[j] = make([]T, n)
		for i, p := range pts {
			coord[j][i] = p[j]
		}
	}
	// atR[atLo[xi]:atLo[xi-1]] (xi >= 1; appended from the right): positions of
	// group xi's members in the right list stored at xi-1 (the list with group xi
	// added).
	atLo := make([]int, len(xs))
	atR := make([]int, 0, n)
	exactSplit := !isFloat[T]()
	var gate boundGate
	// float64: whether each list stays in (distance, index) order at every center
	// (pairBad), where the binary search finds the merge's split too.
	rsorted := make([]bool, len(xs))
	if !exactSplit {
		cmax := max(math.Abs(float64(xs[0])), math.Abs(float64(xs[len(xs)-1]))) // the largest |x| of a center
		left.track, left.cmax = true, cmax
		right.track, right.cmax = true, cmax
	}
	row := func(pos []int) {
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
			rsorted[xi] = right.bad == 0
			right.addGroup(xorder[xstart[xi]:xstart[xi+1]], keyR)
			// Where group xi landed in the list stored at xi-1.
			atLo[xi] = len(atR)
			atR = append(atR, right.at...)
		}
		left.reset()
		prevA := -1 // the previous center's number of left members; -1: none
		for xi, cx := range xs {
			left.addGroup(xorder[xstart[xi]:xstart[xi+1]], keyL)
			off := xi * k
			rkeys, ridx := rk[off:off+rlen[xi]], ri[off:off+rlen[xi]]
			binary := exactSplit || left.bad == 0 && rsorted[xi]
			a := sweepSplit(left.key, left.idx, rkeys, ridx, cx, k, binary)
			same := prevA >= 0 && sameAsPrevious(left, a, ri[off-k:off], atR[atLo[xi]:atLo[xi-1]], k-prevA, k, prevA, mark, &gen)
			if sweepChecks != nil {
				checkCenter(sweepChecks, left.key, left.idx, rkeys, ridx, cx, k, a, binary, prevA >= 0, same)
			}
			if same {
				prevA = a
				continue // the previous center's set: same total, smaller center
			}
			prevA = a
			copy(sel, left.idx[:a])
			copy(sel[a:], ridx[:k-a])
			c[0] = cx
			if found && prune && sweepBound && gate.use() {
				lb := crossBound(coord, sel, c) - slack
				cut := lb > bestScore || lb >= bestScore && geom.Compare(c, bestCenter) > 0
				gate.record(cut)
				if cut {
					if sweepChecks != nil {
						checkPruned(sweepChecks, sc.total(sel), bestScore, geom.Compare(c, bestCenter))
					}
					continue
				}
			}
			if sweepChecks != nil {
				sweepChecks.scored++
			}
			score := sc.total(sel)
			if !found || score < bestScore || score == bestScore && geom.Compare(c, bestCenter) < 0 {
				found, bestScore = true, score
				copy(best, sel)
				copy(bestCenter, c)
			}
		}
		atR = atR[:0]
	}
	seeds := sweepSeedRows(pr, vals)
	for _, s := range seeds {
		if err := context.Cause(ctx); err != nil {
			return nil, nil, err
		}
		row(s)
	}
	pos := make([]int, d) // odometer over dimensions 1..d-1
	for {
		if err := context.Cause(ctx); err != nil {
			return nil, nil, err
		}
		if !slices.ContainsFunc(seeds, func(s []int) bool { return slices.Equal(s, pos) }) {
			row(pos)
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

// sweepSplit returns how many of the k points nearest the center (dimension 0 at cx)
// come from the left list (keys lk, points li; distance key + cx) rather than the
// right one (rk, ri; distance key - cx), ties by point index: the number of left
// entries the plain sweep's merge takes in k steps. exact (integer coordinates): the
// distances are exact, so both lists are sorted by (distance, index) and a binary
// search finds the split in O(log k). float64: a sum can round two keys in a list
// to one distance and leave that list out of (distance, index) order, where the
// merge and a binary search can differ; the merge is replayed (O(k)).
func sweepSplit[T geom.Number](lk []T, li []int, rk []T, ri []int, cx T, k int, exact bool) int {
	less := func(i, j int) bool { // left entry i before right entry j
		dl, dr := lk[i]+cx, rk[j]-cx
		return dl < dr || dl == dr && li[i] < ri[j]
	}
	if !exact {
		a, b := 0, 0
		for a+b < k {
			if b == len(ri) || a < len(li) && less(a, b) {
				a++
			} else {
				b++
			}
		}
		return a
	}
	// The merge takes left entry a within k steps iff it comes before right entry
	// k-a-1 (true for every a below the split, false from it on).
	lo, hi := max(0, k-len(ri)), min(k, len(li))
	return lo + sort.Search(hi-lo, func(m int) bool { a := lo + m; return !less(a, k-a-1) })
}

// sameAsPrevious reports whether the center at x position xi (left list left with
// its group just added, a left members) takes the same k points as the previous
// center of the row (x position xi-1, prevA left and prevB right members). The
// sets are L_{xi-1}[:prevA] + R_{xi-1}[:prevB] and L_xi[:a] + R_xi[:k-a], L and R the
// left and right lists, G the points of group xi. L_xi holds L_{xi-1}'s entries in
// their order with G's inserted (at left.at); R_{xi-1} (prevR) holds R_xi's first
// entries in their order with G's inserted (at atR). Points of L_{xi-1}, G and R_xi
// differ in their first coordinate (below, at, above xs[xi]), so the sets are equal
// iff each part is: L_{xi-1}[:prevA] = L_{xi-1}[:a - gNew] (a - gNew = prevA),
// R_xi[:prevB - gOld] = R_xi[:k-a], and G's members among the first prevB of
// R_{xi-1} are G's members among the first a of L_xi. O(|G|).
func sameAsPrevious[T geom.Number](left *topList[T], a int, prevR []int, atR []int, prevB, k, prevA int, mark []uint32, gen *uint32) bool {
	gOld, gNew := 0, 0
	for _, q := range atR {
		if q < prevB {
			gOld++
		}
	}
	for _, q := range left.at {
		if q < a {
			gNew++
		}
	}
	if gOld != gNew || a-gNew != prevA || k-a != prevB-gOld {
		return false
	}
	if gOld == 0 {
		return true
	}
	if *gen == math.MaxUint32 {
		clear(mark)
		*gen = 0
	}
	*gen++
	for _, q := range atR {
		if q < prevB {
			mark[prevR[q]] = *gen
		}
	}
	for _, q := range left.at {
		if q < a && mark[left.idx[q]] != *gen {
			return false
		}
	}
	return true
}

// boundGate decides whether mmSweep tries crossBound on a center: only while it
// has recently pruned at least a quarter of the centers tried (it costs about as
// much as scoring at n/64 ~ k, so a low rate costs time), and on every 16th center
// regardless, to notice when the rate rises (e.g. the sweep reaching a sparse
// region of clustered points). Counts are halved every 4096 tries. Which centers
// are tried never changes the answer, only the time.
type boundGate struct{ tried, cut, skipped int }

func (g *boundGate) use() bool {
	if g.tried < 64 || 4*g.cut >= g.tried {
		return true
	}
	g.skipped++
	return g.skipped%16 == 0
}

func (g *boundGate) record(cut bool) {
	g.tried++
	if cut {
		g.cut++
	}
	if g.tried == 4096 {
		g.tried, g.cut = g.tried/2, g.cut/2
	}
}

// sweepBound turns mmSweep's pruning by crossBound on (benchmarks compare).
var sweepBound = true

// sweepChecks, when tests set it, checks each of mmSweep's shortcuts at every
// center, not only where it decides the winner (sweep_test.go).
var sweepChecks *sweepCheck

// sweepCheck counts mmSweep's centers by what became of them and keeps the first
// shortcut found wrong.
type sweepCheck struct {
	same, pruned, scored int
	fail                 string
	prev, cur            []int // the previous and this center's sets by the merge
}

// checkCenter checks a center's split (a, by binary search if binary) against the
// merge's, and its same-set verdict against the sets themselves.
func checkCenter[T geom.Number](ch *sweepCheck, lk []T, li []int, rk []T, ri []int, cx T, k, a int, binary, havePrev, same bool) {
	am := sweepSplit(lk, li, rk, ri, cx, k, false)
	if am != a && ch.fail == "" {
		ch.fail = fmt.Sprintf("split %d (binary %v), the merge's %d, at x %v", a, binary, am, cx)
	}
	ch.cur = append(append(ch.cur[:0], li[:am]...), ri[:k-am]...)
	slices.Sort(ch.cur)
	if eq := havePrev && slices.Equal(ch.cur, ch.prev); eq != same && ch.fail == "" {
		ch.fail = fmt.Sprintf("same set %v, the sets say %v (%v, before %v), at x %v", same, eq, ch.cur, ch.prev, cx)
	}
	ch.prev, ch.cur = ch.cur, ch.prev
	if same {
		ch.same++
	}
}

// checkPruned checks that a pruned center's total could not win.
func checkPruned[T geom.Number](ch *sweepCheck, total, best T, vsBest int) {
	ch.pruned++
	if !(total > best || total == best && vsBest > 0) && ch.fail == "" {
		ch.fail = fmt.Sprintf("pruned a center of total %v, incumbent %v (center order %d)", total, best, vsBest)
	}
}

// crossBound is a lower bound of the total pairwise L1 distance of the points sel
// (distinct, k of them) computed in O(k d) from their offsets to any point c.
//
// Proof. The total is the sum over dimensions j of P_j = sum over pairs {p, q} of
// |p_j - q_j|. Split sel by the side of c_j: L = {p : p_j <= c_j} (size a) and
// R = {p : p_j > c_j} (size k - a), and let u_p = |p_j - c_j|. For p in L and q in
// R, c_j lies between them, so |p_j - q_j| = u_p + u_q exactly; there are a(k - a)
// such pairs, each p in L in k - a of them and each q in R in a of them, so they add
// up to (k - a) U_L + a U_R with U_L, U_R the sums of u over L and over R. Pairs on
// one side add |u_p - u_q| >= 0. Hence P_j >= (k - a) U_L + a U_R, and the total is
// at least the sum of these over j. (Near the median of sel in every dimension the
// bound is about 3/4 of the total for spread points; far from it, it tends to 0.)
func crossBound[T geom.Number](coord [][]T, sel []int, c []T) T {
	// Per dimension, with v_p = p_j - c_j, L = {v < 0} (a of them) and R = {v >= 0}
	// (a point at c_j may go to either side): U_L = (S_abs - S)/2 and U_R = (S_abs +
	// S)/2 for S = sum v and S_abs = sum |v|, so (k - a) U_L + a U_R = (k S_abs +
	// (2a - k) S) / 2, which needs no branch per point. For integers k S_abs + (2a -
	// k) S = 2((k - a) U_L + a U_R) is even: the halving is exact.
	k := len(sel)
	if fc, ok := any(coord).([][]float64); ok {
		var lb float64
		for j, cj := range any(c).([]float64) {
			var s, sabs float64
			a := 0
			cs := fc[j]
			for _, p := range sel {
				v := cs[p] - cj
				s += v
				sabs += math.Abs(v)
				a += int(math.Float64bits(v) >> 63)
			}
			lb += (float64(k)*sabs + float64(2*a-k)*s) / 2
		}
		return T(lb)
	}
	var lb int64
	for j, cj := range c {
		var s, sabs int64
		a := 0
		cs := coord[j]
		for _, p := range sel {
			v := int64(cs[p] - cj)
			m := v >> 63
			s += v
			sabs += (v ^ m) - m
			a -= int(m)
		}
		lb += (int64(k)*sabs + int64(2*a-k)*s) / 2
	}
	return T(lb)
}

// crossBoundSlack is what mmSweep subtracts from crossBound before comparing it with
// a total from rankScorer.total, and whether it may prune at all.
//
// Integers: both are exact while no partial sum overflows. With A the largest
// |coordinate|, each |p_j - c_j| <= 2A, so S and S_abs are at most 2kA, k S_abs and
// (2a - k) S at most 2k^2 A, every partial sum of crossBound at most 4 d k^2 A, and
// rankScorer.total's terms |v coef| <= A (k - 1) add up to at most d k^2 A: all
// below M = 8 d k^2 A. crossBound sums in int64 (its halving exact); the slack is
// 0, and pruning is used only when M is below a quarter of the type's range (else
// it is off: the plain sweep's answer).
//
// float64 (unit roundoff u = 2^-53): rankScorer.total is one running sum of d k
// rounded products whose magnitudes add up to at most d k^2 A, so it is within
// gamma(d k + 1) d k^2 A of the exact total, gamma(m) = m u / (1 - m u) (Higham,
// Accuracy and Stability of Numerical Algorithms, Lemma 3.1 and §4.2). In
// crossBound each v (one rounding, |v| <= 2A) and the running sums S and S_abs of k
// terms are within gamma(k + 1) 2kA of exact; k S_abs and (2a - k) S (|2a - k| <=
// k) are then within gamma(k + 3) 2k^2 A each, and the per-dimension halves and
// their sum over d dimensions add gamma(d + 3) of at most 4 d k^2 A: the computed
// bound is within gamma(k + d + 6) 8 d k^2 A of its exact value, which is at most
// the exact total. With m = 2 d k + 16 >= k + d + 6 and d k + 1, and m u < 0.01
// (gamma(m) <= 1.01 m u), the computed bound exceeds the computed total by at most
// 1.01 m u (8 d k^2 A + d k^2 A) <= 1.01 m u (9/8) M; the slack, 2 m u M, covers that
// and the rounding of the subtraction (at most u (M + slack)). So a pruned center's
// computed total is above the incumbent's (or equal with a larger center), as the
// plain sweep would have found.
func crossBoundSlack[T geom.Number](pr *problem[T]) (slack T, ok bool) {
	var a float64
	for _, p := range pr.pts {
		for _, v := range p {
			a = max(a, math.Abs(float64(v)))
		}
	}
	d, k := float64(pr.d), float64(pr.k)
	m := 8 * d * k * k * a
	if isFloat[T]() {
		ops := 2*d*k + 16
		if ops*0x1p-53 >= 0.01 {
			return 0, false
		}
		return T(2 * ops * 0x1p-53 * m), true
	}
	limit := 0x1p61 // a quarter of int64's range
	if big := int64(1) << 40; T(big) == 0 {
		limit = 0x1p29 // 32-bit integers
	}
	return 0, m < limit
}

// sweepSeedRows returns mmSweep's first rows (positions in vals per dimension; index
// 0 unused): those through the two points, among up to 64 sampled evenly by index,
// whose k nearest in L1 have the smallest distance sum (ties: the earlier sample).
// Any rows would give the same answer; these tend to hold a good incumbent, so the
// other rows' centers are pruned more often. O(64 n) time.
func sweepSeedRows[T geom.Number](pr *problem[T], vals [][]T) [][]int {
	n, d, k := pr.n, pr.d, pr.k
	if d == 1 {
		return nil
	}
	step := max(1, n/64)
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	dist := make([]T, n)
	top := newTopList[T](k)
	type cand struct {
		sum T
		p   int
	}
	var cands []cand
	for s := 0; s < n; s += step {
		q := pr.pts[s]
		for i, p := range pr.pts {
			var t T
			for j, v := range p {
				if x := v - q[j]; x < 0 {
					t -= x
				} else {
					t += x
				}
			}
			dist[i] = t
		}
		top.reset()
		top.addGroup(all, dist)
		var sum T
		for _, v := range top.key {
			sum += v
		}
		cands = append(cands, cand{sum, s})
	}
	slices.SortStableFunc(cands, func(a, b cand) int { return cmp.Compare(a.sum, b.sum) })
	var rows [][]int
	for _, cd := range cands[:min(2, len(cands))] {
		pos := make([]int, d)
		for j := 1; j < d; j++ {
			pos[j], _ = slices.BinarySearch(vals[j], pr.pts[cd.p][j])
		}
		if !slices.ContainsFunc(rows, func(r []int) bool { return slices.Equal(r, pos) }) {
			rows = append(rows, pos)
		}
	}
	return rows
}
