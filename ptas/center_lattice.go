package ptas

import (
	"context"
	"math"
	"slices"
	"sync"

	"github.com/procalloc/procalloc/geom"
)

// centerLattice runs MM's and Gen-Alg's center search on distinct points of a small
// 2D integer lattice (the free nodes of a mesh: every MM and Gen-Alg replay) without
// a pass over the points per center; under TiesPReMAS without keeping PReMAS's
// working array either.
//
// After the stable sorts by distance from centers c_1, ..., c_{t-1}, the working
// array is in lexicographic order of (d_{t-1}, ..., d_1, input index), d_s the L1
// distance from c_s. Center c_t's first k are therefore every point closer than D,
// the k-th smallest distance, and the points of the shell at distance D that come
// first in that order. So each center costs O(D) with prefix counts instead of a pass
// over every point:
//
//   - D from counts of points in L1 balls: a ball is a square in rotated coordinates
//     (x+y, x-y), counted with a 2D prefix sum;
//   - the shell's points from an occupancy grid, and the ones taken by comparing
//     distances from earlier centers, latest first, only among the points still tied
//     (TiesByIndex: the lowest input indices);
//   - the score from per-column and per-row histograms of the ball (prefix counts
//     along columns and rows) plus the shell's points taken.
//
// It gives the same center, set and order as the working array, or as the rule by
// index (TestLatticeMatchesWorkingArray, TestLatticeMatchesByIndex).
type centerLattice struct {
	k           int
	w, h        int      // coordinate spans
	x, y        []int32  // coordinates of point i, minus the smallest
	at          []int32  // at[L.cell(x, y)]: index+1 of the point there, 0 when none (a border of 0 all round)
	col         []int32  // col[x*(h+1)+y]: points of column x below y
	row         []int32  // row[y*(w+1)+x]: points of row y left of x
	rot         rotBalls // the balls' counts (a 2D prefix sum in rotated coordinates)
	cx, cy      []int32  // the centers, in the order tried
	rad         []int32  // each center's radius D: its k-th smallest distance
	inner       []int32  // each center's number of points closer than D
	whole       []bool   // whether a center's ball of radius D holds exactly k points
	q           []int64  // per point: its total L1 distance to the inner ball (shell points)
	toI, sorted []int64
	shell       []int32
	key         []int32
	taken       []int32
	cum         []int64 // pairs: points of the ball and their coordinate sum before each column, then each row

	xbuf, ybuf, vx, vy []int32 // searchLattice's coordinates and MM's center values
	seen               []bool
	full               fullBalls // the full-ball shortcut (TiesByIndex)

	byIndex   bool // TiesByIndex: a fresh array in input order for every center
	ascending bool // Options.Ascending: the winner's points need no working-array order
}

// latticeSetup weighs the lattice path's set-up, linear in the rotated grid's area,
// against passes over the points, and latticeReach its per-center cost, a walk over
// the columns and rows of a ball holding k points, against one pass;
// latticeReachCached replaces latticeReach on lattices of at most latticeCached
// cells, whose tables stay in the processor's cache (tests set all three to 0 to
// use the path everywhere). Calibrated on the 10,550 distinct MM decisions of the
// LLNL-T3D 16x16 replay (reach 0 and 2 fastest, 6 3-4% slower, 12 12% slower) and on
// 1,024 random points in [0, 1024)^2, a lattice of 2^20 cells (the working array
// 1.2x faster than the lattice path; reach 6 keeps it).
var latticeSetup, latticeReach, latticeReachCached = 2, 6, 2

const latticeCached = 1 << 14

// latticePays reports whether the lattice path is cheaper than one pass over the n
// points per center: its set-up is the rotated grid's area, and a center costs
// about the radius of a ball holding k points at the points' density, sqrt(k w h /
// 2n).
func latticePays(w, h, centers, n, k int) bool {
	u := w + h
	reach := latticeReach
	if w*h <= latticeCached {
		reach = latticeReachCached
	}
	return u <= 1<<12 && latticeSetup*u*u <= centers*n &&
		float64(reach*reach)*float64(k)*float64(w)*float64(h) <= 2*float64(n)*float64(n)*float64(n)
}

// latticePool keeps centerLattice buffers between calls: an allocator calls MM or
// Gen-Alg once per decision, on machines of one size.
var latticePool = sync.Pool{New: func() any { return new(centerLattice) }}

// grow returns s resized to n elements, cleared, reusing its array when it can.
func grow[E any](s []E, n int) []E {
	if cap(s) < n {
		return make([]E, n)
	}
	s = s[:n]
	clear(s)
	return s
}

// reset prepares L for the points xs, ys (spans w and h) and subsets of size k; false
// when two points coincide.
func (L *centerLattice) reset(xs, ys []int32, w, h, k int) bool {
	n := len(xs)
	L.k, L.w, L.h, L.x, L.y = k, w, h, xs, ys
	L.at = grow(L.at, (w+2)*(h+2))
	for i := range n {
		c := L.cell(int(xs[i]), int(ys[i]))
		if L.at[c] != 0 {
			return false
		}
		L.at[c] = int32(i + 1)
	}
	L.col = grow(L.col, w*(h+1))
	L.row = grow(L.row, h*(w+1))
	for x := range w {
		cells := L.at[L.cell(x, 0) : L.cell(x, 0)+h]
		c := L.col[x*(h+1) : (x+1)*(h+1)]
		for y, p := range cells {
			c[y+1] = c[y] + b2i(p != 0)
			L.row[y*(w+1)+x+1] = b2i(p != 0) // counts; summed along rows below
		}
	}
	for y := range h {
		r := L.row[y*(w+1) : (y+1)*(w+1)]
		for x := 1; x <= w; x++ {
			r[x] += r[x-1]
		}
	}
	rotFill(&L.rot, xs, ys, w, h)
	L.q = grow(L.q, n+1)
	L.shell = grow(L.shell, 2*(w+h)+4)
	L.toI = grow(L.toI, 2*(w+h)+4)
	L.cum = grow(L.cum, 2*(w+h+2))
	return true
}

// cell is the index of (x, y) in L.at, for x in [-1, w] and y in [-1, h].
func (L *centerLattice) cell(x, y int) int { return (x+1)*(L.h+2) + y + 1 }

func b2i(b bool) int32 {
	if b {
		return 1
	}
	return 0
}

// radius returns D, the smallest radius whose ball around (cx, cy) holds k points,
// searched from r, the number of points closer than D and the number within D.
func (L *centerLattice) radius(cx, cy, r int) (D, inner, within int) {
	b := L.rot.ball(cx, cy, r)
	if b >= L.k {
		for ; r > 0; r-- {
			c := L.rot.ball(cx, cy, r-1)
			if c < L.k {
				return r, c, b
			}
			b = c
		}
		return 0, 0, b
	}
	for r++; ; r++ {
		c := L.rot.ball(cx, cy, r)
		if c >= L.k {
			return r, b, c
		}
		b = c
	}
}

// selectShell lists in L.taken the need points of L.shell that the working array
// puts first at center t: by distance from center t-1, then t-2, ..., then input
// index. Only the points still tied are compared at each step.
func (L *centerLattice) selectShell(t, need int) {
	L.taken = L.taken[:0]
	cand := L.shell
	s := t - 1
	if L.byIndex {
		s = -1
	}
	for ; len(cand) > need; s-- {
		if s < 0 {
			slices.Sort(cand)
			L.taken = append(L.taken, cand[:need]...)
			return
		}
		// Order the tied candidates by distance from center s (insertion sort:
		// shells are short), take those before the need-th one's distance, keep
		// the ones at it tied.
		key := L.key[:0]
		sx, sy := int(L.cx[s]), int(L.cy[s])
		same := true
		for _, p := range cand {
			key = append(key, int32(abs(int(L.x[p])-sx)+abs(int(L.y[p])-sy)))
			same = same && key[len(key)-1] == key[0]
		}
		L.key = key
		if same {
			continue // center s does not separate them (often: the same column)
		}
		for i := 1; i < len(cand); i++ {
			for j := i; j > 0 && key[j] < key[j-1]; j-- {
				key[j], key[j-1] = key[j-1], key[j]
				cand[j], cand[j-1] = cand[j-1], cand[j]
			}
		}
		cut := key[need-1]
		lo, hi := 0, 0
		for lo < len(cand) && key[lo] < cut {
			lo++
		}
		for hi = lo; hi < len(cand) && key[hi] == cut; hi++ {
		}
		L.taken = append(L.taken, cand[:lo]...)
		need -= lo
		cand = cand[lo:hi]
	}
	L.taken = append(L.taken, cand...)
}

// score is the total pairwise L1 distance of center t's first k. When its ball of
// radius D holds exactly k points, that is the ball's total, from the column and
// row counts. Otherwise they are the ball I of radius D-1 and the shell points T
// taken: S(I) + sum over T of the distance to I + S(T). Before the shell is read, a
// lower bound: each shell point is at least D - d(c, i) from each i of I (triangle
// inequality), and two points at the same L1 distance from a lattice point are an
// even distance apart, so at least 2 per pair taken; then, before the shell is
// ordered, the need smallest distances of shell points to I in place of the
// triangle bound. false when a bound is not below bound (a negative bound is none).
func (L *centerLattice) score(t int, bound int64) (int64, bool) {
	cx, cy, D := int(L.cx[t]), int(L.cy[t]), int(L.rad[t])
	if L.whole[t] {
		tot, _ := L.pairs(cx, cy, D, D, int64(L.k))
		return tot, true
	}
	inner := int(L.inner[t])
	need := L.k - inner
	n := int64(inner)
	tot, near := L.pairs(cx, cy, D-1, D, n)
	pairsT := int64(need) * int64(need-1)
	if bound >= 0 && tot+int64(need)*(n*int64(D)-near)+pairsT >= bound {
		return 0, false
	}

	// The shell: at distance D, two cells per column (one at the tips). A shell
	// point at x is at total x distance X - x n + 2 (x b - B) from I, b and B the
	// number and x sum of I's points left of it (L.cum), and the same along y.
	w, h, at, cum := L.w, L.h, L.at, L.cum
	x0, y0, y1 := max(cx-D, 0), max(cy-D, 0), min(cy+D, h-1)
	cumY := cum[2*(w+1):]
	sumX, sumY := cum[2*(min(cx+D, w-1)-x0+1)+1], cumY[2*(y1-y0+1)+1]
	sh, qs := L.shell[:cap(L.shell)], L.toI[:cap(L.toI)]
	ns := 0
	for x := x0; x <= min(cx+D, w-1); x++ {
		e := D - abs(x-cx)
		base := (x + 1) * (h + 2)
		i, X := 2*(x-x0), int64(x)
		qx := sumX - X*n + 2*(X*cum[i]-cum[i+1])
		// The cells at cy-e and cy+e; off the lattice the border (no point) is
		// read, and the distance, worked out at a row inside, goes unused.
		ya, yb := max(cy-e, y0), min(cy+e, y1)
		ja, jb, Ya, Yb := 2*(ya-y0), 2*(yb-y0), int64(ya), int64(yb)
		p := at[base+max(cy-e, -1)+1]
		sh[ns], qs[ns] = p-1, qx+sumY-Ya*n+2*(Ya*cumY[ja]-cumY[ja+1])
		ns += int(b2i(p != 0))
		p = at[base+min(cy+e, h)+1]
		sh[ns], qs[ns] = p-1, qx+sumY-Yb*n+2*(Yb*cumY[jb]-cumY[jb+1])
		ns += int(b2i(p != 0 && e > 0))
	}
	sh, qs = sh[:ns], qs[:ns]
	L.shell = sh
	q := L.q
	minQ := int64(math.MaxInt64)
	for i, p := range sh {
		q[p] = qs[i] // p's total L1 distance to I
		minQ = min(minQ, qs[i])
	}
	if len(sh) > need {
		if bound >= 0 {
			// First with the nearest shell point's distance for all need of them.
			lb := tot + pairsT
			if lb+int64(need)*minQ >= bound {
				return 0, false
			}
			if lb+L.smallestSum(qs, need) >= bound {
				return 0, false
			}
		}
		L.selectShell(t, need)
	} else {
		L.taken = append(L.taken[:0], sh...)
	}
	for i, p := range L.taken {
		tot += q[p]
		for _, r := range L.taken[:i] {
			tot += int64(abs(int(L.x[p])-int(L.x[r])) + abs(int(L.y[p])-int(L.y[r])))
		}
	}
	return tot, true
}

// pairs returns the total pairwise L1 distance of the n points within distance r of
// (cx, cy), from the ball's column and row counts, and their total distance to
// (cx, cy). On the way it keeps in L.cum, for every column x within distance span
// of cx, the number and x sum of those points left of x (two entries from index
// 2 (x - max(cx-span, 0)), and after the last column their totals), then from
// index 2 (w+1) the same for the rows.
func (L *centerLattice) pairs(cx, cy, r, span int, n int64) (tot, near int64) {
	tx, nx := axisPairs(L.col, L.w, L.h, cx, cy, r, span, n, L.cum)
	ty, ny := axisPairs(L.row, L.h, L.w, cy, cx, r, span, n, L.cum[2*(L.w+1):])
	return tx + ty, nx + ny
}

// axisPairs is pairs along one axis: the lines (columns, or rows) within distance
// span of line c, each counted within distance r of (c, o) from the prefix counts
// pre[line*(size+1)+j], the points of the line before position j; lines lines of
// size positions. It returns the total distance along the axis between the points
// and from them to line c, and keeps the running counts and sums in cum.
func axisPairs(pre []int32, lines, size, c, o, r, span int, n int64, cum []int64) (tot, near int64) {
	l0, l1 := max(c-span, 0), min(c+span, lines-1)
	var pos, sum int64
	for l := l0; l <= l1; l++ {
		i := 2 * (l - l0)
		cum[i], cum[i+1] = pos, sum
		a := r - abs(l-c)
		if a < 0 {
			continue
		}
		b := l * (size + 1)
		m := int64(pre[b+min(o+a+1, size)] - pre[b+max(o-a, 0)])
		tot += int64(l) * m * (2*pos + m - n)
		pos += m
		sum += int64(l) * m
	}
	cum[2*(l1-l0+1)], cum[2*(l1-l0+1)+1] = pos, sum
	// The distance to line c: from the count and sum left of it and the totals.
	i, C := 2*(c-l0), int64(c)
	return tot, sum - 2*cum[i+1] + C*(2*cum[i]-pos)
}

// smallestSum is the sum of the m smallest of vs.
func (L *centerLattice) smallestSum(vs []int64, m int) int64 {
	if m == len(vs)-1 {
		var s, big int64
		for _, v := range vs {
			s += v
			big = max(big, v)
		}
		return s - big
	}
	buf := append(L.sorted[:0], vs...)
	L.sorted = buf
	for i := 1; i < len(buf); i++ {
		for j := i; j > 0 && buf[j] < buf[j-1]; j-- {
			buf[j], buf[j-1] = buf[j-1], buf[j]
		}
	}
	var s int64
	for _, v := range buf[:m] {
		s += v
	}
	return s
}

// chosen returns center t's first k in working-array order: by distance from c_t,
// then from c_{t-1}, ..., c_1, then input index.
func (L *centerLattice) chosen(t int) []int {
	cx, cy, D := int(L.cx[t]), int(L.cy[t]), int(L.rad[t])
	R := D - 1 // the ball taken whole, then the shell points taken
	if L.whole[t] {
		R, L.taken = D, L.taken[:0]
	} else {
		L.score(t, -1) // leaves the shell points taken in L.taken
	}
	out := make([]int, 0, L.k)
	for x := max(cx-R, 0); x <= min(cx+R, L.w-1); x++ {
		dy := R - abs(x-cx)
		for y := max(cy-dy, 0); y <= min(cy+dy, L.h-1); y++ {
			if p := L.at[L.cell(x, y)]; p != 0 {
				out = append(out, int(p-1))
			}
		}
	}
	for _, p := range L.taken {
		out = append(out, int(p))
	}
	if L.byIndex || L.ascending {
		slices.Sort(out)
		return out
	}
	// By distance from c_t (a counting sort: distances are at most D), then each
	// ring by the earlier centers.
	ring := make([]int, D+2)
	for _, p := range out {
		ring[abs(int(L.x[p])-cx)+abs(int(L.y[p])-cy)+1]++
	}
	for r := 1; r < len(ring); r++ {
		ring[r] += ring[r-1]
	}
	sorted := make([]int, len(out))
	next := slices.Clone(ring)
	for _, p := range out {
		r := abs(int(L.x[p])-cx) + abs(int(L.y[p])-cy)
		sorted[next[r]] = p
		next[r]++
	}
	for r := range D + 1 {
		L.orderFrom(sorted[ring[r]:ring[r+1]], t-1)
	}
	return sorted
}

// orderFrom sorts g by distance from center s, then from s-1, ..., then input index:
// by distance from s, then each run of equal distances from s-1 on. A center at the
// same distance from every point of a run (often one in the same column) is passed
// over at the cost of one look at each point.
func (L *centerLattice) orderFrom(g []int, s int) {
	for len(g) > 1 {
		if s < 0 {
			slices.Sort(g)
			return
		}
		sx, sy := int(L.cx[s]), int(L.cy[s])
		d := func(p int) int { return abs(int(L.x[p])-sx) + abs(int(L.y[p])-sy) }
		d0, same := d(g[0]), true
		for _, p := range g[1:] {
			if d(p) != d0 {
				same = false
				break
			}
		}
		if !same {
			break
		}
		s--
	}
	if len(g) < 2 {
		return
	}
	sx, sy := int(L.cx[s]), int(L.cy[s])
	d := func(p int) int { return abs(int(L.x[p])-sx) + abs(int(L.y[p])-sy) }
	slices.SortFunc(g, func(a, b int) int { return d(a) - d(b) })
	for i := 0; i < len(g); {
		j := i + 1
		for j < len(g) && d(g[j]) == d(g[i]) {
			j++
		}
		L.orderFrom(g[i:j], s-1)
		i = j
	}
}

// searchLattice runs MM's (mm) or Gen-Alg's center search under ties on the lattice
// path; ok is false when the path does not apply (not distinct points of a 2D
// integer lattice) or would not pay, and the caller passes over the points.
func searchLattice[T geom.Number](ctx context.Context, pr *problem[T], mm bool, ties Ties, floor float64, ascending bool) (res Result, ok bool, err error) {
	if pr.d != 2 || !allIntegral(pr.pts) {
		return Result{}, false, nil
	}
	b := geom.BoundingBox(pr.pts)
	w64, h64 := float64(b.Max[0])-float64(b.Min[0])+1, float64(b.Max[1])-float64(b.Min[1])+1
	if w64 > 1<<12 || h64 > 1<<12 {
		return Result{}, false, nil
	}
	w, h := int(w64), int(h64)
	L := latticePool.Get().(*centerLattice)
	defer latticePool.Put(L)
	L.byIndex, L.ascending = ties == TiesByIndex, ascending
	xs, ys := L.xbuf[:0], L.ybuf[:0]
	for _, p := range pr.pts {
		xs, ys = append(xs, int32(p[0]-b.Min[0])), append(ys, int32(p[1]-b.Min[1]))
	}
	L.xbuf, L.ybuf = xs, ys
	var vx, vy []int32
	centers := pr.n
	if mm {
		L.vx = firstAppearances(L.vx[:0], &L.seen, xs, w)
		L.vy = firstAppearances(L.vy[:0], &L.seen, ys, h)
		if L.byIndex {
			slices.Sort(L.vx)
			slices.Sort(L.vy)
		}
		vx, vy = L.vx, L.vy
		centers = len(vx) * len(vy)
	}
	if !latticePays(w, h, centers, pr.n, pr.k) || !L.reset(xs, ys, w, h, pr.k) {
		return Result{}, false, nil
	}
	// Centers in order, each pruned when its lower bound reaches the best so far
	// (a center is only kept when strictly better); a center's radius is searched
	// from its predecessor's. The history (L.cx, L.cy) orders the shells: it is the
	// centers' order, known before any is scored, so one center can be scored
	// first (prescore).
	L.cx, L.cy = L.cx[:0], L.cy[:0]
	for t := range centers {
		if mm {
			L.cx, L.cy = append(L.cx, vx[t/len(vy)]), append(L.cy, vy[t%len(vy)])
		} else {
			L.cx, L.cy = append(L.cx, xs[t]), append(L.cy, ys[t])
		}
	}
	L.rad, L.inner, L.whole = grow(L.rad, centers), grow(L.inner, centers), grow(L.whole, centers)
	// Under TiesByIndex a center's k nearest do not depend on the earlier
	// centers: the full-ball shortcut applies (fullBalls; off unless the points
	// are distinct and in ascending (x, y) order).
	full := &L.full
	full.pre = full.pre[:0]
	fullSeen := false
	if L.byIndex && w*h >= fullBallsMinCells {
		latticeFullBalls(full, xs, ys, w, h, pr.k)
	}
	first, firstScore := L.prescore()
	best, bestT, r := int64(-1), -1, 0
	for t := range centers {
		if t&1023 == 1023 {
			if err := context.Cause(ctx); err != nil {
				return Result{}, true, err
			}
		}
		cx, cy := int(L.cx[t]), int(L.cy[t])
		if full.at(cx, cy) {
			if fullSeen {
				// Ties at best with the first full ball; its entries are never read.
				r = full.d
				L.rad[t], L.inner[t], L.whole[t] = int32(r), 0, false
				continue
			}
			fullSeen = true
		}
		bound := int64(-1)
		if bestT >= 0 {
			bound = best
		}
		var s int64
		ok := true
		if t == first {
			r, s = int(L.rad[t]), firstScore
		} else {
			r = L.setRadius(t, r)
			if t < first && (bound < 0 || firstScore < bound) {
				bound = firstScore + 1 // a tie with the first scored is kept
			}
			s, ok = L.score(t, bound)
		}
		if ok && (bestT < 0 || s < best) {
			best, bestT = s, t
			if float64(best) <= floor {
				break // no later center is strictly better
			}
		}
	}
	c := []float64{float64(L.cx[bestT]) + float64(b.Min[0]), float64(L.cy[bestT]) + float64(b.Min[1])}
	return Result{Indices: L.chosen(bestT), Total: float64(best), Center: c}, true, nil
}

// setRadius works out center t's radius, searched from r, and the entries score
// reads; it returns the radius.
func (L *centerLattice) setRadius(t, r int) int {
	r, inner, within := L.radius(int(L.cx[t]), int(L.cy[t]), r)
	L.rad[t], L.inner[t], L.whole[t] = int32(r), int32(inner), within == L.k
	return r
}

// prescore scores, before the others, the first center nearest in L1 distance
// to the points' (lower) coordinate medians, where MM's best centers mostly lie:
// its score bounds every other center's from the start instead of from wherever
// a good center first comes in the order. It returns the center and its score.
func (L *centerLattice) prescore() (int, int64) {
	mx, my := L.lowerMedian(L.col, L.w, L.h), L.lowerMedian(L.row, L.h, L.w)
	first, dist := 0, math.MaxInt
	for t := range L.cx {
		if d := abs(int(L.cx[t])-mx) + abs(int(L.cy[t])-my); d < dist {
			first, dist = t, d
		}
	}
	L.setRadius(first, 0)
	s, _ := L.score(first, -1)
	return first, s
}

// lowerMedian is the lower median of the points' coordinate along the lines of
// the prefix counts pre (L.col or L.row: lines lines of size positions).
func (L *centerLattice) lowerMedian(pre []int32, lines, size int) int {
	n := int32(len(L.x))
	var below int32
	for l := range lines {
		below += pre[l*(size+1)+size]
		if 2*below >= n {
			return l
		}
	}
	return lines - 1
}

// firstAppearances appends to dst the distinct values of vs (all in [0, span)) in
// order of first appearance (seen is scratch).
func firstAppearances(dst []int32, seen *[]bool, vs []int32, span int) []int32 {
	*seen = grow(*seen, span)
	for _, v := range vs {
		if !(*seen)[v] {
			(*seen)[v] = true
			dst = append(dst, v)
		}
	}
	return dst
}

// fullBallsMinCells is the smallest box for which the lattice path builds the
// full-ball table: below it (a 32x32 mesh's free nodes) building it cost more than
// it saved (Gen-Alg's median decision on the synthetic stream 40 -> 55 µs). Tests set
// it to 0.
var fullBallsMinCells = 4096

// latticeFullBalls builds f (the lattice's, kept between calls) for searchLattice's
// offsets.
func latticeFullBalls(f *fullBalls, xs, ys []int32, w, h, k int) {
	ordered := true
	for i := 1; i < len(xs) && ordered; i++ {
		ordered = xs[i-1] < xs[i] || xs[i-1] == xs[i] && ys[i-1] <= ys[i]
	}
	f.build(len(xs), func(i int) (int, int) { return int(xs[i]), int(ys[i]) }, w, h, k, ordered)
}
