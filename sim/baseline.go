package sim

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/exact"
	"github.com/procalloc/procalloc/geom"
	"github.com/procalloc/procalloc/internal/timelimit"
	"github.com/procalloc/procalloc/topo"
)

// Baseline asks the replay to bound, at every allocation decision, the least total
// pairwise distance of any k nodes free at that moment, the distance being the one
// the replay measures (L1 on a mesh, the shorter way round on a torus, hops on a fat
// tree or dragonfly), and to record each job's ratio of its total to that optimum.
// It only measures: the allocator's decisions do not depend on it.
//
// Every decision gets a proven lower bound (the JobResult's OptLowerBound), so the
// ratio to the optimum has a certified upper bound for every decision; decisions whose
// bound meets a set's total are proven optimal:
//   - meshes and tori (coordinates): exact.GridBound (the unconstrained optimal
//     cluster of Bender et al. 2005 on meshes of 2 or 3 dimensions, and on tori
//     where it provably holds; the star and per-dimension bounds, which account for
//     wraparound) and the exact branch and
//     bound (exact.SubsetSeeded; on a torus with the ring distances), whose proven
//     bound is kept when it stops at TimeLimit;
//   - fat trees (topo.Graph.TreeLevels) and dragonflies (Graph.Dragonfly): the least
//     cost over the switch tree (exact.HierarchyMin), exact on a fat tree whose level
//     costs are its hop distances (checked when the baseline starts) and a lower bound
//     on a dragonfly (hosts on different routers at least 3 hops apart), where a
//     decision is proven when one group or the allocator reaches it.
type Baseline struct {
	// TimeLimit, when positive, bounds each decision's search; which decisions are
	// proven then depends on the machine's speed (the fraction proven is reported).
	// Zero (the zero value) means no limit, as in every package of procalloc
	// (negative too): every decision searched to its end, the same on every
	// machine, for as long as that takes (ctx still stops the replay). The lower
	// bounds do not depend on it on fat trees and dragonflies. procalloc sim's
	// --baseline-time-limit defaults to 1 s.
	TimeLimit time.Duration
}

// baseline is the per-replay state: which nodes are free, and the machine's
// structure the bounds come from (grid or hierarchy).
type baseline struct {
	cfg   Baseline
	free  []bool
	nfree int
	grid  *gridBaseline
	hier  *hierBaseline
}

// gridBaseline is the state on a mesh or torus.
type gridBaseline struct {
	grid    *topo.Grid
	sides   []int
	wrap    []bool
	periods []float64 // nil on a mesh (or under PReMAS)
	pts     []geom.PointF
	bound   map[int]int64 // GridBound by k
	memo    map[string]baselineResult
	key     []byte
}

// hierBaseline is the state on a fat tree or dragonfly.
type hierBaseline struct {
	graph *topo.Graph
	h     exact.Hierarchy
	leaf  []int32 // leaf (switch or router) of each host
	exact bool    // the hierarchy's costs are the hop distances of every pair
	// On a dragonfly: the group of each router (nil on a fat tree), and the hosts of
	// router r, ascending, at hosts[hostOff[r]:hostOff[r+1]] (a file may number them
	// otherwise than router by router).
	group, hostOff, hosts []int32
}

// baselineResult is a decision's outcome: the best total found (the allocator's or
// the search's), a proven lower bound, and whether they meet.
type baselineResult struct {
	total  int64
	bound  int64
	proven bool
}

// memoLimit bounds the remembered grid decisions (a key is n/8 bytes).
const memoLimit = 1 << 14

// checkBaseline reports why machine m has no exact baseline.
func checkBaseline(m topo.Machine) error {
	switch g := m.(type) {
	case *topo.Grid:
		return nil
	case *topo.Graph:
		if _, ok := g.Dragonfly(); ok {
			return nil
		}
		if _, reason := g.TreeLevels(); reason != "" {
			return fmt.Errorf("needs node coordinates (a mesh or torus), a fat tree or a dragonfly; %s is none (not a tree: %s)", m.Spec(), reason)
		}
		return nil
	}
	return fmt.Errorf("needs node coordinates (a mesh or torus), a fat tree or a dragonfly; %s is none", m.Spec())
}

func newBaseline(ctx context.Context, cfg Config) (*baseline, error) {
	b := cfg.Baseline
	if b == nil {
		return nil, nil
	}
	if err := checkBaseline(cfg.Machine); err != nil {
		return nil, fmt.Errorf("sim: the exact baseline %w", err)
	}
	n := cfg.Machine.N()
	bl := &baseline{cfg: *b, free: make([]bool, n), nfree: n}
	for i := range bl.free {
		bl.free[i] = true
	}
	switch g := cfg.Machine.(type) {
	case *topo.Grid:
		gb := &gridBaseline{grid: g, sides: g.Dims(), wrap: measuredWrap(g, cfg.Compat), pts: alloc.NodePoints(g),
			bound: map[int]int64{}, memo: map[string]baselineResult{}}
		if slices.Contains(gb.wrap, true) {
			gb.periods = make([]float64, len(gb.sides))
			for j, w := range gb.wrap {
				if w {
					gb.periods[j] = float64(gb.sides[j])
				}
			}
		}
		bl.grid = gb
	case *topo.Graph:
		hb, err := newHierBaseline(ctx, g)
		if err != nil {
			return nil, fmt.Errorf("sim: the exact baseline: %w", err)
		}
		bl.hier = hb
	}
	return bl, nil
}

// newHierBaseline builds the hierarchy of a dragonfly (routers, groups, all) or of a
// tree-like fabric (leaf switches; the connected parts of the switches up to each
// level), and on a tree checks whether its costs are the hop distances.
func newHierBaseline(ctx context.Context, g *topo.Graph) (*hierBaseline, error) {
	n := g.N()
	hb := &hierBaseline{graph: g, leaf: make([]int32, n)}
	if s, ok := g.Dragonfly(); ok {
		routers := s.RoutersPerGroup * s.Groups
		hb.h.Free = make([]int, routers)
		up0 := make([]int32, routers)
		for r := range up0 {
			up0[r] = int32(r / s.RoutersPerGroup)
		}
		hb.h.Up = [][]int32{up0, make([]int32, s.Groups)}
		hb.h.PairCost = []int64{2, 3, 3}
		for h := range n {
			hb.leaf[h] = int32(g.DragonflyRouterOf(h))
			hb.h.Free[hb.leaf[h]]++
		}
		hb.group = up0
		hb.hostOff = make([]int32, routers+1)
		for r, f := range hb.h.Free {
			hb.hostOff[r+1] = hb.hostOff[r] + int32(f)
		}
		hb.hosts = make([]int32, n)
		at := slices.Clone(hb.hostOff[:routers])
		for h, r := range hb.leaf {
			hb.hosts[at[r]] = int32(h)
			at[r]++
		}
		return hb, nil
	}
	tl, reason := g.TreeLevels()
	if reason != "" {
		return nil, errors.New(reason)
	}
	// Union-find over the switches, level by level.
	nv := g.Vertices()
	parent := make([]int32, nv)
	for v := range parent {
		parent[v] = int32(v)
	}
	find := func(v int32) int32 {
		for parent[v] != v {
			parent[v] = parent[parent[v]]
			v = parent[v]
		}
		return v
	}
	leaves := tl.ByLevel[0]
	leafIdx := make(map[int32]int32, len(leaves))
	for i, s := range leaves {
		leafIdx[s] = int32(i)
	}
	for h := range n {
		hb.leaf[h] = leafIdx[int32(g.LeafSwitch(h))]
	}
	hb.h.Free = make([]int, len(leaves))
	for h := range n {
		hb.h.Free[hb.leaf[h]]++
	}
	// comp[l][i]: the group of level l of leaf i, numbered densely.
	comp := [][]int32{make([]int32, len(leaves))}
	for i := range leaves {
		comp[0][i] = int32(i)
	}
	var nb []int
	for l := 1; l < len(tl.ByLevel); l++ {
		for _, s := range tl.ByLevel[l] {
			for _, w := range g.Neighbors(int(s), nb[:0]) {
				if w >= n && tl.Level[w] < int32(l) {
					a, b := find(s), find(int32(w))
					parent[a] = b
				}
			}
		}
		ids := map[int32]int32{}
		cl := make([]int32, len(leaves))
		for i, s := range leaves {
			r := find(s)
			id, ok := ids[r]
			if !ok {
				id = int32(len(ids))
				ids[r] = id
			}
			cl[i] = id
		}
		comp = append(comp, cl)
	}
	top := len(comp) - 1
	if groups := slices.Max(comp[top]) + 1; groups != 1 {
		return nil, fmt.Errorf("the fabric's switches form %d parts", groups)
	}
	for l := range top {
		up := make([]int32, slices.Max(comp[l])+1)
		for i := range leaves {
			up[comp[l][i]] = comp[l+1][i]
		}
		hb.h.Up = append(hb.h.Up, up)
	}
	for l := range comp {
		hb.h.PairCost = append(hb.h.PairCost, int64(2*(l+1)))
	}
	// The costs are the distances when two hosts of leaves whose smallest common
	// group is of level l are 2(l+1) apart for every pair of leaves (two hosts of one
	// leaf are 2 apart: both hang on it). One search per leaf, up to 4,096 leaves.
	hb.exact = len(leaves) <= 4096
	host := make([]int, len(leaves))
	for h := n - 1; h >= 0; h-- {
		host[hb.leaf[h]] = h
	}
	for a := 0; a < len(leaves) && hb.exact; a++ {
		if err := context.Cause(ctx); err != nil {
			return nil, err
		}
		row := g.DistRow(host[a])
		for b := range leaves {
			if b == a {
				continue // two hosts of one leaf: 2 hops, both hang on it
			}
			l := 0
			for comp[l][a] != comp[l][b] {
				l++
			}
			if int64(row[host[b]]) != hb.h.PairCost[l] {
				hb.exact = false
				break
			}
		}
	}
	return hb, nil
}

func (bl *baseline) take(nodes []int) {
	for _, v := range nodes {
		bl.free[v] = false
		if bl.hier != nil {
			bl.hier.h.Free[bl.hier.leaf[v]]--
		}
	}
	bl.nfree -= len(nodes)
}

func (bl *baseline) release(nodes []int) {
	for _, v := range nodes {
		bl.free[v] = true
		if bl.hier != nil {
			bl.hier.h.Free[bl.hier.leaf[v]]++
		}
	}
	bl.nfree += len(nodes)
}

// measure solves the decision of r (whose nodes were chosen from the free set held
// now, before take) and fills r's baseline fields.
func (bl *baseline) measure(ctx context.Context, r *JobResult) error {
	k := len(r.Nodes)
	res, err := bl.solve(ctx, k, r.Nodes, r.TotalL1)
	if err != nil {
		return fmt.Errorf("job %d: exact baseline: %w", r.ID, err)
	}
	if res.bound > r.TotalL1 || res.total > r.TotalL1 || res.bound > res.total {
		// A bound above an allocation is a bug, never a certificate.
		return fmt.Errorf("job %d: exact baseline: bound %d, best %d, allocation %d", r.ID, res.bound, res.total, r.TotalL1)
	}
	r.OptTotalL1, r.OptProven, r.OptLowerBound = res.total, res.proven, res.bound
	r.RatioToOptimal, r.RatioUpper = 0, 0
	r.OptBounded = res.bound > 0 || r.TotalL1 == 0
	if r.OptBounded {
		r.RatioUpper = 1
		if r.TotalL1 > 0 {
			r.RatioUpper = float64(r.TotalL1) / float64(res.bound)
		}
	}
	if res.proven {
		r.RatioToOptimal = 1
		if res.total > 0 {
			r.RatioToOptimal = float64(r.TotalL1) / float64(res.total)
		}
	}
	return nil
}

// solve returns the best total found for choosing k of the free nodes, a proven lower
// bound, and whether they meet; chosen is the allocator's choice, total its total.
func (bl *baseline) solve(ctx context.Context, k int, chosen []int, total int64) (baselineResult, error) {
	switch {
	case k < 1 || k > bl.nfree:
		return baselineResult{}, fmt.Errorf("%d nodes with %d free", k, bl.nfree)
	case k == 1:
		return baselineResult{0, 0, true}, nil
	case k == bl.nfree:
		return baselineResult{total, total, true}, nil // every free node
	}
	if bl.hier != nil {
		return bl.hier.solve(ctx, bl.free, k, total)
	}
	return bl.grid.solve(ctx, bl, k, chosen, total)
}

// meets reports whether an allocation of the given total meets the machine's bound lb
// (it is then optimal), and errs when it is below it: a bound above an allocation is
// a bug, never a certificate.
func meets(total, lb int64) (baselineResult, bool, error) {
	if total < lb {
		return baselineResult{}, false, fmt.Errorf("lower bound %d above the allocation's total %d", lb, total)
	}
	return baselineResult{total, total, true}, total == lb, nil
}

func (gb *gridBaseline) solve(ctx context.Context, bl *baseline, k int, chosen []int, total int64) (baselineResult, error) {
	lb, ok := gb.bound[k]
	if !ok {
		var err error
		if lb, err = exact.GridBound(gb.sides, gb.wrap, k); err != nil {
			return baselineResult{}, err
		}
		gb.bound[k] = lb
	}
	// The machine's bound holds for every decision: an allocation that meets it is
	// optimal.
	if r, ok, err := meets(total, lb); ok || err != nil {
		return r, err
	}
	if k == 2 {
		d := gb.closestPair(bl.free, total)
		return baselineResult{d, d, true}, nil
	}
	gb.key = gb.key[:0]
	gb.key = fmt.Appendf(gb.key, "%d:", k)
	for i := 0; i < len(bl.free); i += 8 {
		var c byte
		for j := i; j < min(i+8, len(bl.free)); j++ {
			if bl.free[j] {
				c |= 1 << (j - i)
			}
		}
		gb.key = append(gb.key, c)
	}
	if r, ok := gb.memo[string(gb.key)]; ok {
		if !r.proven && total < r.total {
			r.total = total // the best found may have been a worse incumbent's
			r.proven = r.total <= r.bound
		}
		return r, nil
	}
	if bl.nfree > exact.MaxSubsetPoints {
		// Too many free nodes for the search's distance table: the machine's bound.
		return baselineResult{total, lb, false}, nil
	}
	var (
		where = make(map[int]int, bl.nfree)
		pts   = make([]geom.PointF, 0, bl.nfree)
	)
	for v, f := range bl.free {
		if f {
			where[v] = len(pts)
			pts = append(pts, gb.pts[v])
		}
	}
	inc := make([]int, len(chosen))
	for i, v := range chosen {
		p, ok := where[v]
		if !ok {
			return baselineResult{}, fmt.Errorf("node %d was not free", v)
		}
		inc[i] = p
	}
	opt := exact.SubsetOptions{Incumbent: inc, Periods: gb.periods}
	if gb.periods != nil {
		// Around a torus the plane's bound does not hold; the machine's does.
		opt.SizeBound = func(m int) float64 { return float64(gb.boundOf(m)) }
	}
	dctx, cancel := ctx, context.CancelFunc(func() {})
	if bl.cfg.TimeLimit > 0 {
		dctx, cancel = timelimit.WithTimeout(ctx, bl.cfg.TimeLimit, "baseline time limit")
	}
	res, err := exact.SubsetSeeded(dctx, pts, k, opt)
	cancel()
	if err != nil {
		return baselineResult{}, err
	}
	if ctx.Err() != nil {
		return baselineResult{}, context.Cause(ctx)
	}
	out := baselineResult{total: total, bound: lb}
	if t, ok := exactInt(res.Total); ok && t < out.total {
		out.total = t
	}
	if b, ok := floorBound(res.Bound); ok && b > out.bound {
		out.bound = min(b, out.total)
	}
	if res.Optimal {
		out.bound = out.total
	}
	out.proven = out.bound >= out.total
	if len(gb.memo) >= memoLimit {
		clear(gb.memo)
	}
	gb.memo[string(gb.key)] = out
	return out, nil
}

// boundOf is GridBound for m nodes (0 when it fails: no bound).
func (gb *gridBaseline) boundOf(m int) int64 {
	if lb, ok := gb.bound[m]; ok {
		return lb
	}
	lb, err := exact.GridBound(gb.sides, gb.wrap, m)
	if err != nil {
		return 0
	}
	gb.bound[m] = lb
	return lb
}

// exactInt returns a search total as an integer when it is one exactly.
func exactInt(x float64) (int64, bool) {
	if x != math.Trunc(x) || math.Abs(x) > 1<<53 {
		return 0, false
	}
	return int64(x), true
}

// floorBound turns a proven real lower bound on an integer optimum into an integer
// one: the least integer at or above it, after taking off a relative 1e-9 (far above
// the search's float error), so that rounding never raises a bound.
func floorBound(x float64) (int64, bool) {
	if math.IsNaN(x) || x <= 0 || x > 1<<53 {
		return 0, false
	}
	return int64(math.Ceil(x - 1e-9*x)), true
}

// closestPair is the least distance between two free nodes: 1 when two free nodes
// are neighbours (one pass over the grid's links), else searched over every pair (at
// most total, the allocator's pair).
func (gb *gridBaseline) closestPair(freeSet []bool, total int64) int64 {
	var free, nb []int
	for v, f := range freeSet {
		if !f {
			continue
		}
		free = append(free, v)
		nb = gb.grid.Neighbors(v, nb[:0])
		for _, w := range nb {
			if freeSet[w] && gb.dist(v, w) == 1 {
				return 1
			}
		}
	}
	best := total
	for i, u := range free {
		for _, v := range free[i+1:] {
			best = min(best, gb.dist(u, v))
		}
	}
	return best
}

// dist is the replay's distance of nodes u and v (L1, the shorter way round along
// the dimensions that wrap).
func (gb *gridBaseline) dist(u, v int) int64 {
	var d int64
	for j, L := range gb.sides {
		t := int64(math.Abs(gb.pts[u][j] - gb.pts[v][j]))
		if gb.wrap[j] {
			t = min(t, int64(L)-t)
		}
		d += t
	}
	return d
}

func (hb *hierBaseline) solve(ctx context.Context, free []bool, k int, total int64) (baselineResult, error) {
	lb, err := exact.HierarchyMin(ctx, hb.h, k)
	if err != nil {
		return baselineResult{}, err
	}
	if r, ok, err := meets(total, lb); ok || err != nil {
		return r, err
	}
	if hb.exact {
		// The costs are the distances: some k free hosts total lb.
		return baselineResult{lb, lb, true}, nil
	}
	out := baselineResult{total: total, bound: lb}
	if hb.group != nil {
		// Inside one dragonfly group the costs are the distances (its routers are all
		// joined): the best group, hosts taken from its fullest routers first.
		if t, ok := hb.bestGroup(k); ok && t < out.total {
			out.total = t
		}
		// The bound's own choice, the fullest routers first (ties: the fuller group),
		// measured: when its routers are joined it meets the bound.
		if out.total > lb {
			if t, ok := hb.graph.PairDistSum(hb.fullestRouters(free, k)); ok && t < out.total {
				out.total = t
			}
		}
	}
	if out.total < out.bound {
		return baselineResult{}, fmt.Errorf("lower bound %d above a set of total %d", out.bound, out.total)
	}
	out.proven = out.total == out.bound
	return out, nil
}

// fullestRouters is k free hosts of a dragonfly taken router by router, the routers
// with the most free hosts first (ties: the group with more free hosts, then index).
func (hb *hierBaseline) fullestRouters(free []bool, k int) []int {
	groupFree := map[int32]int{}
	var routers []int
	for r, f := range hb.h.Free {
		if f > 0 {
			groupFree[hb.group[r]] += f
			routers = append(routers, r)
		}
	}
	slices.SortFunc(routers, func(a, b int) int {
		if fa, fb := hb.h.Free[a], hb.h.Free[b]; fa != fb {
			return fb - fa
		}
		if ga, gb := groupFree[hb.group[a]], groupFree[hb.group[b]]; ga != gb {
			return gb - ga
		}
		return a - b
	})
	out := make([]int, 0, k)
	for _, r := range routers {
		for _, h := range hb.hosts[hb.hostOff[r]:hb.hostOff[r+1]] {
			if free[h] && len(out) < k {
				out = append(out, int(h))
			}
		}
		if len(out) == k {
			break
		}
	}
	return out
}

// bestGroup is the least total of k free hosts inside one dragonfly group, false when
// no group has k free hosts.
func (hb *hierBaseline) bestGroup(k int) (int64, bool) {
	byGroup := map[int32][]int{}
	for r, f := range hb.h.Free {
		if f > 0 {
			byGroup[hb.group[r]] = append(byGroup[hb.group[r]], f)
		}
	}
	best, found := int64(math.MaxInt64), false
	for _, counts := range byGroup {
		free := 0
		for _, c := range counts {
			free += c
		}
		if free < k {
			continue
		}
		slices.SortFunc(counts, func(a, b int) int { return b - a })
		var same int64
		left := k
		for _, c := range counts {
			take := min(c, left)
			same += int64(take) * int64(take-1) / 2
			left -= take
			if left == 0 {
				break
			}
		}
		// 2 hops on one router, 3 between two routers of the group.
		t := 3*(int64(k)*int64(k-1)/2) - same
		best, found = min(best, t), true
	}
	return best, found
}

// BaselineSummary aggregates the baseline over decisions (one per job).
type BaselineSummary struct {
	// MeanRatio is the mean over proven decisions of the allocator's total pairwise
	// L1 over the optimum (1 for single-node jobs); 0 when none was proven.
	MeanRatio float64
	Proven    float64 // fraction of decisions proven optimal
	// Bounded is the fraction of decisions with a certified bound on their ratio
	// (JobResult.OptBounded).
	Bounded float64
	// MeanRatioUpper is the mean over the bounded decisions of the allocator's
	// total over the proven lower bound (JobResult.RatioUpper): an upper bound on
	// their mean ratio to the optimum.
	MeanRatioUpper float64
	// MeanRatioLower is the mean over every decision of the allocator's total over
	// the best total found: a lower bound on the mean ratio to the optimum.
	MeanRatioLower float64
	// Decisions and ProvenDecisions count them.
	Decisions, ProvenDecisions int
}
