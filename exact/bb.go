package exact

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/procalloc/procalloc/geom"
)

// MaxSubsetPoints bounds the input of Subset (its distance table is n^2 float64s:
// 128 MiB at the bound).
const MaxSubsetPoints = 4096

// checkSubsetSize refuses more than MaxSubsetPoints points.
func checkSubsetSize(n int) error {
	if n > MaxSubsetPoints {
		return fmt.Errorf("exact: %d points; the branch and bound keeps an n x n distance table and accepts at most %d", n, MaxSubsetPoints)
	}
	return nil
}

// SubsetOptions tune Subset.
type SubsetOptions struct {
	// Incumbent is an optional starting k-subset (e.g. MM or MM+Inc from package ptas);
	// Subset also builds its own greedy one and keeps the better.
	Incumbent []int
	// Forced points are in every considered subset (Cluster uses it to pin the origin).
	Forced []int
	// Allowed, when not nil, restricts the other chosen points to those with
	// Allowed[i] true.
	Allowed []bool
	// SizeBound, when not nil, returns a lower bound on the total pairwise L1 of any m
	// distinct points of the input (for distinct lattice points: the unconstrained
	// optimum of Z^d, LatticeBound). It strengthens the bound for the unchosen part.
	SizeBound func(m int) float64
	// MaxNodes, when > 0, stops the search after that many nodes as if ctx had ended:
	// a budget that, unlike a time limit, gives the same answer on every machine. The
	// greedy incumbent's local search counts too (n per seed and per swap round of k).
	MaxNodes int64
	// Linear, when not nil (one value per point), adds Σ_{i∈S} Linear[i] to the
	// objective: Subset then minimises W(S) + Σ Linear. Choosing k of n points is
	// choosing the n-k left out, T, with W(S) = W(P) - Σ_{t∈T} D(t) + W(T), D(t) the
	// distance sum from t to all points: a smaller search when k > n/2.
	Linear []float64
	// Periods, when not nil (one per dimension), makes the distance along dimension j
	// with Periods[j] > 0 the shorter way round a ring of that circumference (a
	// torus); 0 keeps it |a - b|. SizeBound must then bound the torus's totals
	// (GridBound), not the plane's.
	Periods []float64
}

// SubsetResult is the outcome of Subset.
type SubsetResult struct {
	Indices []int   // ascending
	Total   float64 // total pairwise L1 of Indices
	Optimal bool    // the search finished: Total is the minimum
	Bound   float64 // proven lower bound on the minimum (== Total when Optimal)
	Gap     float64 // (Total - Bound) / Total, 0 when Optimal or Total == 0
	Nodes   int64   // search nodes visited (and the incumbent's work, see MaxNodes)
}

// Subset finds k points of pts with minimum total pairwise L1 distance by depth-first
// branch and bound (include / exclude one candidate per level).
//
// Bound at a node with chosen set A, m = k - |A| points still to choose from the
// candidates R: for B ⊆ R, |B| = m,
//
//	w(A ∪ B) = w(A) + Σ_{r∈B} α(r) + w(B),   α(r) = Σ_{a∈A} d(r, a),
//	w(B) = ½ Σ_{r∈B} Σ_{r'∈B\r} d(r, r') >= Σ_{r∈B} β_m(r),
//
// β_m(r) being half the sum of the m-1 smallest distances from r to any other input
// point. So LB = w(A) + max(Σ of the m smallest α+β_m, Σ of the m smallest α +
// SizeBound(m)). Candidates are branched in order of distance to the incumbent's
// median, include first.
//
// pts may have integer or float coordinates ([]geom.Point, []geom.PointF, [][]int64,
// ...); all must have the same positive dimension and be finite (an error says
// which is not). The search runs in float64 (a []geom.PointF is used in place).
// Integral input (integer coordinates, Linear and Periods) rounds LB up, and its
// Total and certificate are exact: integer input whose sums could leave float64's
// exact integers (n (2 n D + max |Linear|) >= 2^51, D the L1 diameter) is refused
// with an error rather than certified on rounded sums; float input that far out is
// searched without rounding LB up, with float64's rounding like any float input.
//
// It honours ctx: when ctx ends, the result is the incumbent with Optimal = false and
// Bound = the smallest bound over the unexplored subtrees (never a false claim of
// optimality). Memory O(n^2) for the sorted distance rows; meant for allocation-sized
// inputs (n up to a few thousand).
func Subset[P ~[]T, T geom.Number](ctx context.Context, pts []P, k int, opt SubsetOptions) (SubsetResult, error) {
	fp, isInt, err := floatPoints(pts)
	if err != nil {
		return SubsetResult{}, err
	}
	if isInt {
		if err := checkExactRange(fp, maxAbs(opt.Linear)); err != nil {
			return SubsetResult{}, err
		}
	}
	return subset(ctx, fp, k, opt)
}

// subset is Subset on points floatPoints has checked (same dimension, finite,
// integer input exactly representable).
func subset(ctx context.Context, pts []geom.PointF, k int, opt SubsetOptions) (SubsetResult, error) {
	n := len(pts)
	if k < 1 || k > n {
		return SubsetResult{}, fmt.Errorf("exact: k = %d must be between 1 and the number of points (%d)", k, n)
	}
	if err := checkSubsetSize(n); err != nil {
		return SubsetResult{}, err
	}
	if len(opt.Forced) > k {
		return SubsetResult{}, fmt.Errorf("exact: %d forced points exceed k = %d", len(opt.Forced), k)
	}
	if opt.Linear != nil {
		if len(opt.Linear) != n {
			return SubsetResult{}, fmt.Errorf("exact: %d linear terms for %d points", len(opt.Linear), n)
		}
		for _, v := range opt.Linear {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return SubsetResult{}, fmt.Errorf("exact: linear term %v", v)
			}
		}
	}
	integral := exactIntegral(pts, opt.Linear, opt.Periods)
	s := &bbSearch{lin: opt.Linear, ctx: ctx, pts: pts, k: k, n: n, integral: integral, sizeBound: opt.SizeBound, maxNodes: opt.MaxNodes}
	if opt.Periods != nil {
		if len(opt.Periods) != len(pts[0]) {
			return SubsetResult{}, fmt.Errorf("exact: %d periods for %d dimensions", len(opt.Periods), len(pts[0]))
		}
		for _, p := range opt.Periods {
			if !(p >= 0) || math.IsInf(p, 0) {
				return SubsetResult{}, fmt.Errorf("exact: period %v", p)
			}
		}
	}
	// The set-up (the n x n table and its rows' smallest distances, 0.46 s of CPU at
	// n = MaxSubsetPoints) looks at ctx every setupCheckRows rows: when it has ended,
	// the answer is setupCut's, with no search and no certificate.
	s.dist = make([]float64, n*n)
	for i := range n {
		if i%setupCheckRows == 0 && s.setupEnded(i) {
			return setupCut(pts, k, opt)
		}
		for j := range n {
			s.dist[i*n+j] = periodicL1(pts[i], pts[j], opt.Periods)
		}
	}
	// prefix sums of sorted distance rows: near[i*k + t] = sum of t smallest (t < k).
	s.near = make([]float64, n*k)
	row := make([]float64, n)
	for i := range n {
		if i%setupCheckRows == 0 && s.setupEnded(n+i) {
			return setupCut(pts, k, opt)
		}
		copy(row, s.dist[i*n:(i+1)*n])
		row[i] = math.Inf(1)
		// Only the k-1 smallest are summed: select them, then sort just those (the
		// same values in the same order as a full sort; a full sort of every row was
		// three quarters of the set-up, 1 s of CPU at n = 4,096, before any look at ctx).
		if k > 1 {
			geom.Select(row, k-1)
			slices.Sort(row[:k-1])
		}
		sum := 0.0
		for t := 0; t < k; t++ {
			s.near[i*k+t] = sum
			if t < n-1 {
				sum += row[t]
			}
		}
	}
	s.alpha = make([]float64, n)
	s.inA = make([]bool, n)
	forced := map[int]bool{}
	for _, f := range opt.Forced {
		if f < 0 || f >= n || forced[f] {
			return SubsetResult{}, fmt.Errorf("exact: bad or repeated forced point %d", f)
		}
		forced[f] = true
		s.add(f)
	}
	// Incumbent: the caller's, and greedy growth around each forced point or, without
	// forced points, around every point (the k nearest by L1, then pairwise swaps).
	s.best = math.Inf(1)
	if opt.Incumbent != nil {
		if err := s.offer(opt.Incumbent, forced, opt.Allowed); err != nil {
			return SubsetResult{}, err
		}
	}
	s.greedyIncumbent(forced, opt.Allowed)
	// Candidates: not forced, allowed; sorted by distance to the incumbent's first
	// point median (a proxy of its center), then index.
	med := medianPoint(pts, s.bestIdx)
	for i := range n {
		if forced[i] || (opt.Allowed != nil && !opt.Allowed[i]) {
			continue
		}
		s.cand = append(s.cand, i)
	}
	key := make([]float64, n)
	for _, i := range s.cand {
		key[i] = geom.L1(pts[i], med)
	}
	slices.SortStableFunc(s.cand, func(a, b int) int {
		if key[a] != key[b] {
			if key[a] < key[b] {
				return -1
			}
			return 1
		}
		return a - b
	})
	if len(s.cand)+len(s.A) < k {
		return SubsetResult{}, fmt.Errorf("exact: only %d allowed points for k = %d", len(s.cand)+len(s.A), k)
	}
	s.openLB = math.Inf(1)
	s.search(0)
	res := SubsetResult{Indices: slices.Sorted(slices.Values(s.bestIdx)), Total: s.best, Nodes: s.nodes}
	if s.stopped {
		res.Bound = min(s.openLB, s.best)
	} else {
		res.Optimal, res.Bound = true, s.best
	}
	if res.Total > 0 {
		res.Gap = (res.Total - res.Bound) / res.Total
	}
	return res, nil
}

// setupCheckRows is how often (in rows of the distance table) Subset's set-up looks
// at its context: 64 rows of 4,096 are under 10 ms.
const setupCheckRows = 64

// setupRowHook, when not nil, is called at each of the set-up's looks at the context
// with the step reached (rows of the table, then n + rows of the sums): tests end the
// context there, mid-set-up, without timing anything.
var setupRowHook func(step int)

// setupEnded reports whether ctx has ended, at the set-up's step.
func (s *bbSearch) setupEnded(step int) bool {
	if setupRowHook != nil {
		setupRowHook(step)
	}
	return s.ctx.Err() != nil
}

// setupCut is Subset's answer when its context ends during the set-up, before any
// search: the caller's incumbent when it is a feasible k-subset, else the forced
// points and the allowed others nearest the first of them (the greedy's first seed,
// without its swaps); never Optimal, and the bound the one that needs no table: the
// k smallest linear terms (distances are not negative) plus SizeBound(k) when set,
// at most the total. A replay counts such a decision as unproven, as any search its
// time limit cut.
func setupCut(pts []geom.PointF, k int, opt SubsetOptions) (SubsetResult, error) {
	n := len(pts)
	forced := make(map[int]bool, len(opt.Forced))
	for _, f := range opt.Forced {
		if f < 0 || f >= n || forced[f] {
			return SubsetResult{}, fmt.Errorf("exact: bad or repeated forced point %d", f)
		}
		forced[f] = true
	}
	ok := func(i int) bool { return forced[i] || opt.Allowed == nil || opt.Allowed[i] }
	// The incumbent as offer takes it: malformed is an error, infeasible ignored.
	feasible := opt.Incumbent != nil
	if feasible {
		if len(opt.Incumbent) != k {
			return SubsetResult{}, fmt.Errorf("exact: incumbent has %d points, want %d", len(opt.Incumbent), k)
		}
		seen := make(map[int]bool, k)
		for _, i := range opt.Incumbent {
			if i < 0 || i >= n || seen[i] {
				return SubsetResult{}, fmt.Errorf("exact: incumbent has bad or repeated index %d", i)
			}
			seen[i] = true
			feasible = feasible && ok(i)
		}
		for f := range forced {
			feasible = feasible && seen[f]
		}
	}
	var idx []int
	if feasible {
		idx = slices.Clone(opt.Incumbent)
	} else {
		// The greedy incumbent's first seed, without its swaps: the allowed points
		// nearest (L1, then index) to the first forced point, else the first allowed.
		idx = slices.Sorted(maps.Keys(forced))
		var rest []int
		for i := range n {
			if !forced[i] && ok(i) {
				rest = append(rest, i)
			}
		}
		if seed := slices.Concat(idx, rest); len(seed) > 0 {
			c := pts[seed[0]]
			slices.SortStableFunc(rest, func(a, b int) int {
				return cmp.Compare(periodicL1(pts[a], c, opt.Periods), periodicL1(pts[b], c, opt.Periods))
			})
		}
		idx = append(idx, rest[:min(len(rest), k-len(idx))]...)
		if len(idx) < k {
			return SubsetResult{}, fmt.Errorf("exact: only %d allowed points for k = %d", len(idx), k)
		}
	}
	slices.Sort(idx)
	res := SubsetResult{Indices: idx}
	for a, i := range idx {
		if opt.Linear != nil {
			res.Total += opt.Linear[i]
		}
		for _, j := range idx[a+1:] {
			res.Total += periodicL1(pts[i], pts[j], opt.Periods)
		}
	}
	if opt.Linear != nil {
		lin := slices.Clone(opt.Linear)
		if k < n {
			geom.Select(lin, k-1)
		}
		for _, v := range lin[:k] {
			res.Bound += v
		}
	}
	if opt.SizeBound != nil {
		res.Bound += max(0, opt.SizeBound(k))
	}
	res.Bound = min(res.Bound, res.Total)
	if res.Total > 0 {
		res.Gap = (res.Total - res.Bound) / res.Total
	}
	return res, nil
}

type bbSearch struct {
	ctx       context.Context
	pts       []geom.PointF
	k, n      int
	integral  bool
	sizeBound func(int) float64
	maxNodes  int64
	lin       []float64 // optional linear term per point
	dist      []float64
	near      []float64
	alpha     []float64 // Σ over A of distance
	inA       []bool
	A         []int
	wA        float64
	cand      []int
	best      float64
	bestIdx   []int
	nodes     int64
	stopped   bool
	openLB    float64
	scratch   []float64
	scratch2  []float64
}

func (s *bbSearch) add(i int) {
	s.wA += s.alpha[i] + s.linear(i)
	for j := range s.n {
		s.alpha[j] += s.dist[i*s.n+j]
	}
	s.inA[i] = true
	s.A = append(s.A, i)
}

func (s *bbSearch) remove(i int) {
	s.A = s.A[:len(s.A)-1]
	s.inA[i] = false
	for j := range s.n {
		s.alpha[j] -= s.dist[i*s.n+j]
	}
	s.wA -= s.alpha[i] + s.linear(i)
}

func (s *bbSearch) linear(i int) float64 {
	if s.lin == nil {
		return 0
	}
	return s.lin[i]
}

func (s *bbSearch) total(idx []int) float64 {
	t := 0.0
	for _, i := range idx {
		t += s.linear(i)
	}
	for a := range idx {
		for b := a + 1; b < len(idx); b++ {
			t += s.dist[idx[a]*s.n+idx[b]]
		}
	}
	return t
}

func (s *bbSearch) offer(idx []int, forced map[int]bool, allowed []bool) error {
	if len(idx) != s.k {
		return fmt.Errorf("exact: incumbent has %d points, want %d", len(idx), s.k)
	}
	seen := map[int]bool{}
	for _, i := range idx {
		if i < 0 || i >= s.n || seen[i] {
			return fmt.Errorf("exact: incumbent has bad or repeated index %d", i)
		}
		seen[i] = true
	}
	for f := range forced {
		if !seen[f] {
			return nil // not feasible here; ignore
		}
	}
	for _, i := range idx {
		if !forced[i] && allowed != nil && !allowed[i] {
			return nil
		}
	}
	if t := s.total(idx); t < s.best {
		s.best, s.bestIdx = t, slices.Clone(idx)
	}
	return nil
}

// greedyIncumbent: from each seed, take the k nearest (L1, then index), then improve
// by single swaps until none helps (the MM+Inc idea, Bender et al. 2005 §5).
func (s *bbSearch) greedyIncumbent(forced map[int]bool, allowed []bool) {
	var seeds []int
	for f := range forced {
		seeds = append(seeds, f)
	}
	if len(seeds) == 0 {
		for i := range s.n {
			if allowed == nil || allowed[i] {
				seeds = append(seeds, i)
			}
		}
	}
	slices.Sort(seeds)
	if len(seeds) > 256 { // enough variety; keep it O(n^2 log n)-ish
		step := len(seeds) / 256
		var sub []int
		for i := 0; i < len(seeds); i += step {
			sub = append(sub, seeds[i])
		}
		seeds = sub
	}
	ok := func(i int) bool { return forced[i] || allowed == nil || allowed[i] }
	order := make([]int, 0, s.n)
	for _, seed := range seeds {
		if s.ctx.Err() != nil && s.bestIdx != nil {
			break
		}
		// Under a node budget the seeds spend up to half of it, one node per point
		// sorted and per candidate swap tried.
		if s.maxNodes > 0 && s.bestIdx != nil && s.nodes >= s.maxNodes/2 {
			break
		}
		order = order[:0]
		for i := range s.n {
			if ok(i) && !forced[i] {
				order = append(order, i)
			}
		}
		slices.SortStableFunc(order, func(a, b int) int {
			da, db := s.dist[seed*s.n+a], s.dist[seed*s.n+b]
			if da != db {
				if da < db {
					return -1
				}
				return 1
			}
			return a - b
		})
		idx := slices.Sorted(func(yield func(int) bool) {
			for f := range forced {
				if !yield(f) {
					return
				}
			}
		})
		for _, i := range order {
			if len(idx) == s.k {
				break
			}
			idx = append(idx, i)
		}
		if len(idx) < s.k {
			continue
		}
		var rounds int
		idx, rounds = s.improve(idx, forced, ok)
		s.nodes += int64(s.n) * int64(1+rounds*s.k)
		if t := s.total(idx); t < s.best {
			s.best, s.bestIdx = t, slices.Clone(idx)
		}
	}
}

// improveRoundHook, when not nil, is called before each swap round of the greedy
// incumbent's local search: tests end the context there, mid-search, without
// timing anything.
var improveRoundHook func(round int)

func (s *bbSearch) improve(idx []int, forced map[int]bool, ok func(int) bool) ([]int, int) {
	in := make([]bool, s.n)
	for _, i := range idx {
		in[i] = true
	}
	h := make([]float64, s.n) // Σ over idx of distance
	for j := range s.n {
		for _, i := range idx {
			h[j] += s.dist[i*s.n+j]
		}
	}
	round := 0
	for ; round < 4*s.k; round++ {
		// A round costs O(k n) (at most 4096^2 steps, tens of milliseconds): looking
		// at the context once per round stops within a second, keeping the swaps
		// made so far (a k-subset no worse than the seed's).
		if improveRoundHook != nil {
			improveRoundHook(round)
		}
		if s.ctx.Err() != nil {
			break
		}
		bestGain, bo, bi := 1e-9, -1, -1
		for p, o := range idx {
			if forced[o] {
				continue
			}
			for j := range s.n {
				if in[j] || !ok(j) {
					continue
				}
				if g := h[o] + s.linear(o) - (h[j] - s.dist[o*s.n+j] + s.linear(j)); g > bestGain {
					bestGain, bo, bi = g, p, j
				}
			}
		}
		if bo < 0 {
			break
		}
		o := idx[bo]
		in[o], in[bi] = false, true
		idx[bo] = bi
		for j := range s.n {
			h[j] += s.dist[bi*s.n+j] - s.dist[o*s.n+j]
		}
	}
	return idx, round
}

func medianPoint(pts []geom.PointF, idx []int) geom.PointF {
	d := len(pts[0])
	m := make(geom.PointF, d)
	col := make([]float64, len(idx))
	for j := range d {
		for t, i := range idx {
			col[t] = pts[i][j]
		}
		slices.Sort(col)
		m[j] = col[len(col)/2]
	}
	return m
}

// lowerBound of the node whose candidates are cand[pos:].
func (s *bbSearch) lowerBound(pos int) float64 {
	m := s.k - len(s.A)
	if m == 0 {
		return s.wA
	}
	rest := s.cand[pos:]
	if len(rest) < m {
		return math.Inf(1)
	}
	s.scratch = s.scratch[:0]
	s.scratch2 = s.scratch2[:0]
	for _, r := range rest {
		a := s.alpha[r] + s.linear(r)
		s.scratch = append(s.scratch, a+0.5*s.near[r*s.k+m-1])
		s.scratch2 = append(s.scratch2, a)
	}
	lb1 := geom.SumSmallest(s.scratch, m)
	lb2 := geom.SumSmallest(s.scratch2, m)
	// Without a size bound lb2 bounds nothing: it was 0 here, which is no bound once
	// linear terms can be negative (the complement search's, or a caller's) and made
	// the search certify its incumbent at the root.
	lb := s.wA + lb1
	if s.sizeBound != nil {
		lb = s.wA + max(lb1, lb2+s.sizeBound(m))
	}
	if s.integral {
		lb = math.Ceil(lb - 1e-9)
	}
	return lb
}

// search explores the node with candidates cand[pos:]; it returns false when stopped.
func (s *bbSearch) search(pos int) {
	s.nodes++
	if (s.nodes&1023 == 0 && s.ctx.Err() != nil) || (s.maxNodes > 0 && s.nodes > s.maxNodes) {
		s.stopped = true
	}
	lb := s.lowerBound(pos)
	if s.stopped {
		s.openLB = min(s.openLB, lb)
		return
	}
	if lb >= s.best {
		return
	}
	if len(s.A) == s.k {
		s.best, s.bestIdx = s.wA, slices.Clone(s.A)
		return
	}
	r := s.cand[pos]
	s.add(r)
	s.search(pos + 1)
	s.remove(r)
	if s.stopped {
		s.openLB = min(s.openLB, lb)
		return
	}
	s.search(pos + 1)
}

// periodicL1 is the L1 distance of a and b, the shorter way round along each
// dimension j with periods[j] > 0 (periods nil: plain L1).
func periodicL1(a, b geom.PointF, periods []float64) float64 {
	if periods == nil {
		return geom.L1(a, b)
	}
	var d float64
	for j := range a {
		t := math.Abs(a[j] - b[j])
		if p := periods[j]; p > 0 {
			t = math.Mod(t, p)
			t = min(t, p-t)
		}
		d += t
	}
	return d
}
