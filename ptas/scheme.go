package ptas

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
)

// MaxCutVectors bounds the number of slice structures PTAS enumerates per axis
// (C(n-1, m'-1) for n points and m' = min(m, k) slices); larger instances are refused
// with an error rather than left to run for hours.
const MaxCutVectors = 3_000_000

// PaperRatio is the guarantee of Bender et al. 2005 §3 for m slices per axis:
// w(HEU) (1 - 1/(m-2) - 2/(m-1)) <= w(OPT), i.e. 1/(1 - 1/(m-2) - 2/(m-1)); +Inf when
// that factor is not positive (m < 5).
func PaperRatio(m int) float64 {
	if m < 3 {
		return math.Inf(1)
	}
	c := 1/float64(m-2) + 2/float64(m-1)
	if c >= 1 {
		return math.Inf(1)
	}
	return 1 / (1 - c)
}

// PaperM returns the smallest m >= 3 whose PaperRatio(m) is at most 1+eps, the m of
// the paper's inequality 1/(m-2) + 2/(m-1) <= eps/(1+eps) (§3); 0 for invalid eps.
func PaperM(eps float64) int {
	if math.IsNaN(eps) || eps <= 0 || math.IsInf(eps, 0) {
		return 0
	}
	m := 3
	for PaperRatio(m) > 1+eps {
		m++
	}
	return m
}

// ChooseM returns the number of slices per axis PTAS uses for accuracy eps: the
// smallest m whose guarantee PTASRatio(k, m) is at most 1+eps. PTASRatio is the
// paper's inequality w(HEU)(1 - c) <= w(OPT) with the exact one-dimensional bounds in
// Lemmas 4 and 5 and the actual slice sizes, so for m | k it never needs more slices
// than the paper's form (PaperM), and usually needs far fewer; never more than k
// (m = k slices of one point each give an exact search).
func ChooseM(k int, eps float64) (int, error) {
	if math.IsNaN(eps) || eps <= 0 || math.IsInf(eps, 0) {
		return 0, fmt.Errorf("%w: eps = %v must be positive and finite", ErrInput, eps)
	}
	if k < 1 {
		return 0, fmt.Errorf("%w: k = %d must be positive", ErrInput, k)
	}
	m := 1
	for m < k && PTASRatio(k, m) > 1+eps {
		m++
	}
	return m, nil
}

// sliceSizes splits k into m' = min(m, k) near-equal slice sizes, the larger ones in
// the middle slices (where the bound of Lemma 4 is least sensitive).
func sliceSizes(k, m int) []int {
	m = min(m, k)
	s := make([]int, m)
	order := make([]int, m)
	for i := range s {
		s[i] = k / m
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Compare(abs(2*a-(m-1)), abs(2*b-(m-1)))
	})
	for _, i := range order[:k%m] {
		s[i]++
	}
	return s
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// PTASRatio is the guarantee of the scheme with m slices per axis for subsets of size
// k, for any dimension: 1/(1 - c) with c = max over interior slices of
// floor(s^2/4)/(L R) plus (s-1)/(k-s) for each of the two end slices, where s is the
// slice's size and L, R the numbers of chosen points left and right of it (Lemmas 4
// and 5 of §3 with exact 1D bounds, and without assuming m | k). For m | k this is at
// most PaperRatio(m); for m >= k it is 1 (one point per slice: no distance inside a
// slice is neglected). +Inf when c >= 1.
func PTASRatio(k, m int) float64 {
	if k <= 1 || m >= k {
		return 1 // one point per slice: nothing inside a slice is neglected
	}
	if m < 2 {
		return math.Inf(1) // one slice: the gradient is zero, no guarantee
	}
	s := sliceSizes(k, m)
	last := len(s) - 1
	c := float64(s[0]-1)/float64(k-s[0]) + float64(s[last]-1)/float64(k-s[last])
	interior, L := 0.0, s[0]
	for i := 1; i < last; i++ {
		R := k - L - s[i]
		interior = max(interior, float64(s[i]*s[i]/4)/float64(L*R))
		L += s[i]
	}
	c += interior
	if c >= 1 {
		return math.Inf(1)
	}
	return 1 / (1 - c)
}

// PTAS is the approximation scheme of Bender et al. 2005 (§3 for the plane, §4.2 for
// d dimensions) with m chosen from eps by ChooseM: the result's total is at most
// Result.Guarantee <= 1+eps times the optimum. See PTASWithM.
func PTAS[P ~[]float64](ctx context.Context, pts []P, k int, eps float64) (Result, error) {
	m, err := ChooseM(k, eps)
	if err != nil {
		return Result{}, err
	}
	return PTASWithM(ctx, pts, k, m)
}

// PTASWithM runs the scheme with m slices per axis (m' = min(m, k) are used).
//
// For every axis the points are ranked by coordinate (ties by index) and cut into m'
// slices holding s_0..s_{m'-1} chosen points (near-equal sizes summing to k); for the
// cut of the optimum this is the paper's division by hyperplanes, with the outer
// hyperplanes at infinity. The total distance between points of different slices is
// linear: each chosen point p in slice i of an axis contributes g_i * p_a with
// g_i = (points left of slice i) - (points right of it), the paper's gradient ∇.
// For each combination of cuts, the selection minimizing that linear part subject to
// the slice sizes is found exactly (d = 2: a transportation problem, solved by
// successive shortest paths, which is the paper's enumeration of cell counts k_ij with
// each cell taking its points extremal in direction ∇_ij; other d: depth-first search
// over the cell counts). Lemma 3 bounds that part by the optimum and Lemmas 4 and 5
// the neglected within-slice part, giving PTASRatio(k, m).
//
// The search starts from MM's answer and skips every cut combination whose lower bound
// B on the linear part (each axis separately) satisfies incumbent <= ratio * B: such a
// combination cannot be the optimum's unless the incumbent already meets the
// guarantee. Guarantee reports min(PTASRatio, MMGuarantee). Time grows like
// C(n-1, m'-1)^d; instances with more than MaxCutVectors cuts per axis are refused.
// In one dimension the exact optimum (a window of k consecutive points) is returned
// instead, with guarantee 1. If ctx ends early the best subset so far is returned
// with MM's guarantee, together with the context's error.
func PTASWithM[P ~[]float64](ctx context.Context, pts []P, k, m int) (Result, error) {
	pr, err := newProblem(pts, k)
	if err != nil {
		return Result{}, err
	}
	if m < 1 {
		return Result{}, fmt.Errorf("%w: m = %d slices per axis must be positive", ErrInput, m)
	}
	mmG := MMGuarantee(pr.d, k)
	ratio := PTASRatio(k, m)
	g := min(ratio, mmG)
	if k == pr.n {
		return pr.allPoints(1), nil
	}
	if pr.d == 1 {
		// On a line some optimal subset is k consecutive points in sorted order (moving
		// an extreme chosen point onto an unchosen point between chosen ones never
		// raises the total), so the exact answer costs O(n log n).
		idx := lineWindow(pr.pts, k)
		return Result{Indices: idx, Total: float64(newPairScorer(pr.pts, k).total(idx)), Guarantee: 1}, nil
	}
	sizes := sliceSizes(k, m)
	if c := binom(pr.n-1, len(sizes)-1); c > MaxCutVectors {
		return Result{}, fmt.Errorf("ptas: %w: %d points with %d slices per axis give %.3g cut vectors per axis (limit %d); use a larger eps or fewer points",
			ErrTooLarge, pr.n, len(sizes), c, MaxCutVectors)
	}
	// The MM seed runs to the end even past a deadline (it is polynomial, and the
	// enumeration below is not): a stopped scheme still returns a subset with MM's
	// guarantee. An interrupt stops it.
	if errors.Is(ctx.Err(), context.Canceled) {
		return Result{}, context.Cause(ctx)
	}
	seedCtx, cancelSeed := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelSeed()
	stop := context.AfterFunc(ctx, func() {
		if errors.Is(ctx.Err(), context.Canceled) {
			cancelSeed()
		}
	})
	defer stop()
	start, err := MMContext(seedCtx, pts, k, Options{})
	if err != nil {
		return Result{}, err
	}
	if k == 1 {
		start.Guarantee, start.Center = 1, nil
		return start, nil
	}
	s := &scheme{pr: pr, sizes: sizes, ratio: ratio, sc: newPairScorer(pr.pts, k)}
	s.best = slices.Clone(start.Indices)
	s.bestTotal = start.Total
	if math.IsInf(ratio, 1) {
		// No guarantee from the scheme for so few slices: MM's stands.
		return Result{Indices: s.best, Total: s.bestTotal, Guarantee: mmG}, nil
	}
	if err := s.run(ctx); err != nil {
		slices.Sort(s.best)
		res := Result{Indices: s.best, Total: float64(s.sc.total(s.best)), Guarantee: mmG}
		return res, fmt.Errorf("ptas: stopped early (%d of the cut combinations examined): %w", s.evaluated, err)
	}
	idx := slices.Clone(s.best)
	slices.Sort(idx)
	return Result{Indices: idx, Total: float64(s.sc.total(idx)), Guarantee: g}, nil
}

// ErrTooLarge is wrapped when the enumeration would exceed MaxCutVectors.
var ErrTooLarge = errors.New("instance too large for the PTAS enumeration")

type scheme struct {
	pr    *problem[float64]
	sizes []int
	ratio float64
	sc    *pairScorer[float64]

	best      []int
	bestTotal float64
	evaluated int

	grad  []float64  // g_i per slice
	axes  []axisCuts // per axis: the cut vectors, by ascending lower bound
	slice [][]int    // per axis: slice of each point under the current cuts
	cost  []float64  // per point: linear cost under the current cuts
	rank  [][]int    // per axis: points in rank order

	// reused by evaluate
	cells           [][]int
	used, outX, inY []int
	dist            []float64
	prev            []int
}

// axisCuts holds, for one axis, every cut vector (m'-1 rank positions) and its lower
// bound on the across-slice distance along that axis.
type axisCuts struct {
	cuts []int32 // cut vector j at [j*w, j*w+w), w = m'-1
	w    int
	lb   []float64
}

func (s *scheme) run(ctx context.Context) error {
	pr, m := s.pr, len(s.sizes)
	s.grad = make([]float64, m)
	L := 0
	for i, si := range s.sizes {
		s.grad[i] = float64(L - (pr.k - L - si))
		L += si
	}
	s.axes = make([]axisCuts, pr.d)
	s.rank = make([][]int, pr.d)
	s.slice = make([][]int, pr.d)
	for a := 0; a < pr.d; a++ {
		r := make([]int, pr.n)
		for i := range r {
			r[i] = i
		}
		slices.SortStableFunc(r, func(x, y int) int { return cmp.Compare(pr.pts[x][a], pr.pts[y][a]) })
		s.rank[a] = r
		s.slice[a] = make([]int, pr.n)
		ac, err := s.enumerateCuts(ctx, a)
		if err != nil {
			return err
		}
		s.axes[a] = ac
	}
	s.cost = make([]float64, pr.n)
	// minRest[a] = sum of the smallest lower bounds of axes a.. (each list is sorted).
	minRest := make([]float64, pr.d+1)
	for a := pr.d - 1; a >= 0; a-- {
		if len(s.axes[a].lb) == 0 {
			return nil // no feasible cut (cannot happen for k <= n)
		}
		minRest[a] = minRest[a+1] + s.axes[a].lb[0]
	}
	chosen := make([]int, pr.d)
	var walk func(a int, acc float64) error
	walk = func(a int, acc float64) error {
		if a == pr.d {
			s.evaluated++
			if s.evaluated&255 == 0 {
				if err := context.Cause(ctx); err != nil {
					return err
				}
			}
			s.evaluate(chosen)
			return nil
		}
		ac := &s.axes[a]
		for c, lb := range ac.lb {
			if s.ratio*(acc+lb+minRest[a+1]) >= s.bestTotal {
				break // sorted: every later cut of this axis is pruned too
			}
			chosen[a] = c
			if err := walk(a+1, acc+lb); err != nil {
				return err
			}
		}
		return nil
	}
	return walk(0, 0)
}

// enumerateCuts lists every feasible cut vector of axis a with its lower bound: the
// sum over slices of the s_i smallest values of g_i * coordinate among the slice's
// points (O(1) per slice by prefix sums, since the points are in coordinate order).
func (s *scheme) enumerateCuts(ctx context.Context, a int) (axisCuts, error) {
	pr, m := s.pr, len(s.sizes)
	n := pr.n
	x := make([]float64, n)
	pre := make([]float64, n+1)
	for r, i := range s.rank[a] {
		x[r] = pr.pts[i][a]
		pre[r+1] = pre[r] + x[r]
	}
	// Slice i occupies ranks [t_i, t_{i+1}) with t_0 = 0, t_m = n, and needs at
	// least s_i ranks; need[i] = sum of s_j for j >= i bounds how late t_i may be.
	need := make([]int, m+1)
	for i := m - 1; i >= 0; i-- {
		need[i] = need[i+1] + s.sizes[i]
	}
	sliceLB := func(i, lo, hi int) float64 {
		g, si := s.grad[i], s.sizes[i]
		switch {
		case g > 0:
			return g * (pre[lo+si] - pre[lo])
		case g < 0:
			return g * (pre[hi] - pre[hi-si])
		}
		return 0
	}
	var ac axisCuts
	t := make([]int32, m-1)
	var rec func(i, lo int, acc float64) error
	rec = func(i, lo int, acc float64) error {
		if i == m-1 {
			ac.cuts = append(ac.cuts, t...)
			ac.lb = append(ac.lb, acc+sliceLB(i, lo, n))
			if len(ac.lb)&4095 == 0 {
				return context.Cause(ctx)
			}
			return nil
		}
		for hi := lo + s.sizes[i]; hi <= n-need[i+1]; hi++ {
			t[i] = int32(hi)
			if err := rec(i+1, hi, acc+sliceLB(i, lo, hi)); err != nil {
				return err
			}
		}
		return nil
	}
	if err := rec(0, 0, 0); err != nil {
		return axisCuts{}, err
	}
	// Sort by lower bound (stable: ties keep lexicographic cut order).
	ord := make([]int, len(ac.lb))
	for i := range ord {
		ord[i] = i
	}
	slices.SortStableFunc(ord, func(p, q int) int { return cmp.Compare(ac.lb[p], ac.lb[q]) })
	w := m - 1
	sorted := axisCuts{cuts: make([]int32, 0, len(ac.cuts)), lb: make([]float64, len(ord)), w: w}
	for j, o := range ord {
		sorted.cuts = append(sorted.cuts, ac.cuts[o*w:o*w+w]...)
		sorted.lb[j] = ac.lb[o]
	}
	return sorted, nil
}

func binom(n, r int) float64 {
	if r < 0 || r > n {
		return 0
	}
	c := 1.0
	for i := 1; i <= r; i++ {
		c = c * float64(n-r+i) / float64(i)
	}
	return c
}

// evaluate solves the selection for one cut combination and scores it.
func (s *scheme) evaluate(chosen []int) {
	pr := s.pr
	clear(s.cost)
	for a := 0; a < pr.d; a++ {
		ac := &s.axes[a]
		cuts := ac.cuts[chosen[a]*ac.w : chosen[a]*ac.w+ac.w]
		sl := 0
		for r, i := range s.rank[a] {
			for sl < len(cuts) && r >= int(cuts[sl]) {
				sl++
			}
			s.slice[a][i] = sl
			s.cost[i] += s.grad[sl] * pr.pts[i][a]
		}
	}
	var sel []int
	if pr.d == 2 {
		sel = s.transport()
	} else {
		sel = s.cellSearch()
	}
	if sel == nil {
		return
	}
	if t := float64(s.sc.total(sel)); t < s.bestTotal {
		s.bestTotal = t
		s.best = append(s.best[:0], sel...)
	}
}

// cellPoints groups points by cell key, each group sorted by (cost, index). The
// groups reuse the scheme's buffers and stay valid until the next call.
func (s *scheme) cellPoints(key func(i int) int, ncell int) [][]int {
	if cap(s.cells) < ncell {
		s.cells = make([][]int, ncell)
	}
	cells := s.cells[:ncell]
	for c := range cells {
		cells[c] = cells[c][:0]
	}
	for i := 0; i < s.pr.n; i++ {
		c := key(i)
		cells[c] = append(cells[c], i)
	}
	for _, c := range cells {
		if len(c) > 1 {
			slices.SortFunc(c, func(p, q int) int {
				if r := cmp.Compare(s.cost[p], s.cost[q]); r != 0 {
					return r
				}
				return cmp.Compare(p, q)
			})
		}
	}
	return cells
}

// transport finds, in the plane, the cell counts with the slice sizes as margins that
// minimize the summed cost, each cell taking its cheapest points: min-cost flow from
// x-slices to y-slices with convex cell costs, by successive shortest paths.
func (s *scheme) transport() []int {
	m := len(s.sizes)
	xs, ys := s.slice[0], s.slice[1]
	cells := s.cellPoints(func(i int) int { return xs[i]*m + ys[i] }, m*m)
	if len(s.used) != m*m {
		s.used, s.outX, s.inY = make([]int, m*m), make([]int, m), make([]int, m)
		s.dist, s.prev = make([]float64, 2*m), make([]int, 2*m)
	}
	used, outX, inY := s.used, s.outX, s.inY // units per cell, out of x-slice i, into y-slice j
	clear(used)
	clear(outX)
	clear(inY)
	dist, prev := s.dist, s.prev // nodes: x-slices 0..m-1, y-slices m..2m-1
	inf := math.Inf(1)
	for unit := 0; unit < s.pr.k; unit++ {
		for v := range dist {
			dist[v], prev[v] = inf, -1
		}
		for i := 0; i < m; i++ {
			if outX[i] < s.sizes[i] {
				dist[i] = 0
			}
		}
		// Bellman-Ford on the residual graph (at most 2m-1 rounds).
		for round := 0; round < 2*m; round++ {
			changed := false
			for i := 0; i < m; i++ {
				for j := 0; j < m; j++ {
					c := i*m + j
					if dist[i] < inf && used[c] < len(cells[c]) {
						if d := dist[i] + s.cost[cells[c][used[c]]]; d < dist[m+j] {
							dist[m+j], prev[m+j], changed = d, i, true
						}
					}
					if dist[m+j] < inf && used[c] > 0 {
						if d := dist[m+j] - s.cost[cells[c][used[c]-1]]; d < dist[i] {
							dist[i], prev[i], changed = d, m+j, true
						}
					}
				}
			}
			if !changed {
				break
			}
		}
		end, bd := -1, inf
		for j := 0; j < m; j++ {
			if inY[j] < s.sizes[j] && dist[m+j] < bd {
				end, bd = m+j, dist[m+j]
			}
		}
		if end < 0 {
			return nil
		}
		inY[end-m]++
		v := end
		for {
			u := prev[v]
			if u < 0 {
				outX[v]++
				break
			}
			if v >= m { // forward x-slice u -> y-slice v
				used[u*m+(v-m)]++
			} else { // backward y-slice u -> x-slice v
				used[v*m+(u-m)]--
			}
			v = u
		}
	}
	sel := make([]int, 0, s.pr.k)
	for c, u := range used {
		sel = append(sel, cells[c][:u]...)
	}
	return sel
}

// cellSearch finds the same minimum for any dimension by depth-first search over the
// cell counts, pruned by the slice sizes still needed.
func (s *scheme) cellSearch() []int {
	pr, m := s.pr, len(s.sizes)
	ncell := 1
	for a := 0; a < pr.d; a++ {
		ncell *= m
	}
	key := func(i int) int {
		c := 0
		for a := 0; a < pr.d; a++ {
			c = c*m + s.slice[a][i]
		}
		return c
	}
	all := s.cellPoints(key, ncell)
	type cell struct {
		pts   []int
		sl    []int
		costs []float64 // prefix sums
	}
	var cs []cell
	for c, p := range all {
		if len(p) == 0 {
			continue
		}
		sl := make([]int, pr.d)
		for a := pr.d - 1; a >= 0; a-- {
			sl[a] = c % m
			c /= m
		}
		pre := make([]float64, len(p)+1)
		for j, i := range p {
			pre[j+1] = pre[j] + s.cost[i]
		}
		cs = append(cs, cell{p, sl, pre})
	}
	need := make([][]int, pr.d)
	avail := make([][]int, pr.d) // points in cells not yet decided
	for a := range need {
		need[a] = slices.Clone(s.sizes)
		avail[a] = make([]int, m)
	}
	for _, c := range cs {
		for a, i := range c.sl {
			avail[a][i] += len(c.pts)
		}
	}
	cnt := make([]int, len(cs))
	best := make([]int, len(cs))
	bestCost, found := math.Inf(1), false
	var rec func(ci int, acc float64)
	rec = func(ci int, acc float64) {
		if ci == len(cs) {
			for a := range need {
				for _, v := range need[a] {
					if v != 0 {
						return
					}
				}
			}
			if acc < bestCost {
				bestCost, found = acc, true
				copy(best, cnt)
			}
			return
		}
		c := cs[ci]
		hi := len(c.pts)
		for a, i := range c.sl {
			hi = min(hi, need[a][i])
			avail[a][i] -= len(c.pts)
		}
		for t := hi; t >= 0; t-- {
			ok := true
			for a, i := range c.sl {
				need[a][i] -= t
				if need[a][i] > avail[a][i] {
					ok = false
				}
			}
			if ok {
				cnt[ci] = t
				rec(ci+1, acc+c.costs[t])
			}
			for a, i := range c.sl {
				need[a][i] += t
			}
		}
		cnt[ci] = 0
		for a, i := range c.sl {
			avail[a][i] += len(c.pts)
		}
	}
	rec(0, 0)
	if !found {
		return nil
	}
	sel := make([]int, 0, pr.k)
	for ci, t := range best {
		sel = append(sel, cs[ci].pts[:t]...)
	}
	return sel
}

// lineWindow returns (ascending) the indices of the k consecutive points, in sorted
// order of the single coordinate, with the least total pairwise distance. The window
// [i, i+k) of sorted values x has total sum_j x_j (2(j-i) - k + 1), updated in O(1)
// per shift from prefix sums of x_j and j x_j.
func lineWindow(pts [][]float64, k int) []int {
	n := len(pts)
	ord := make([]int, n)
	for i := range ord {
		ord[i] = i
	}
	slices.SortStableFunc(ord, func(a, b int) int { return cmp.Compare(pts[a][0], pts[b][0]) })
	s1 := make([]float64, n+1) // prefix sums of x_j
	s2 := make([]float64, n+1) // prefix sums of j x_j
	for j, i := range ord {
		x := pts[i][0]
		s1[j+1] = s1[j] + x
		s2[j+1] = s2[j] + float64(j)*x
	}
	best, bestTot := 0, math.Inf(1)
	for i := 0; i+k <= n; i++ {
		t := 2*(s2[i+k]-s2[i]) - float64(2*i+k-1)*(s1[i+k]-s1[i])
		if t < bestTot {
			best, bestTot = i, t
		}
	}
	idx := slices.Clone(ord[best : best+k])
	slices.Sort(idx)
	return idx
}
