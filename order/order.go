package order

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/ilp"
	"github.com/procalloc/procalloc/qap"
	"github.com/procalloc/procalloc/topo"
)

// OrderOptions control SolveOrdering.
type OrderOptions struct {
	Options // Method: MethodMIP (the zero value), MethodBB, MethodDP, MethodLocal or MethodAuto (the CLI default)
	// Ring scores rank differences around the ring (Leung et al. 2002 §2.3, ring span).
	Ring bool
	// Flat ignores a graph's groups (switches) and orders all nodes in one problem.
	Flat bool
	// Starts are extra starting orderings (curves, ranking files) for the local search.
	Starts []Start
	// MaxBytes is the memory the scalable path (above ScalableMinNodes nodes) may plan
	// for; a larger machine is refused before anything is allocated (0:
	// DefaultOrderMaxBytes).
	MaxBytes int64
}

// Method is how SolveOrdering (and SolveQAP) solve: the ordering methods side by side.
type Method string

// Methods of SolveOrdering and SolveQAP.
const (
	// MethodMIP: local search, lower bounds, then the MIP through HiGHS.
	MethodMIP Method = "mip"
	// MethodDP: OrderDP, dynamic programming over subsets (no HiGHS; small n;
	// orderings only).
	MethodDP Method = "dp"
	// MethodLocal: local search and the lower bounds only, no MIP.
	MethodLocal Method = "local"
	// MethodBB: branch and bound, no HiGHS: BranchAndBoundOrdering for orderings
	// (BranchAndBound when it does not apply), BranchAndBound for general QAPs.
	MethodBB Method = "bb"
	// MethodAuto: MethodBB up to AutoBBMaxNodes nodes (facilities); otherwise for
	// orderings the DP when its state count is at most AutoDPStates, else the MIP, or
	// the local search when HiGHS is not compiled in.
	MethodAuto Method = "auto"
)

// methods backs Methods; only this package changes it.
var methods = []Method{MethodAuto, MethodMIP, MethodBB, MethodDP, MethodLocal}

// Methods returns the methods.
// Each call returns a new slice: changing it changes nothing in the package.
func Methods() []Method { return slices.Clone(methods) }

// ParseMethod returns the method named s.
func ParseMethod(s string) (Method, error) {
	if m := Method(s); slices.Contains(methods, m) {
		return m, nil
	}
	return "", unknownMethod(Method(s))
}

func unknownMethod(m Method) error {
	names := make([]string, len(methods))
	for i, x := range methods {
		names[i] = string(x)
	}
	return fmt.Errorf("unknown method %q (want %s)", m, strings.Join(names, ", "))
}

// AutoDPStates is the largest DP (in states) MethodAuto prefers to the MIP: about ten
// seconds on the project's machines.
const AutoDPStates = 3e7

// OrderResult is an ordering with its certificate. Objective is F of Order recomputed
// by curves.Objective (the verifier every solver reports through).
type OrderResult struct {
	Result                    // the QAP solve's certificate; Assignment is Order
	Order        curves.Order // node of each rank
	Hierarchical bool         // ordered switch by switch (graph groups)
	Groups       int          // the graph's groups when Hierarchical, else 0
	// Candidates is F of every starting ordering the solve evaluated (the curves that
	// apply, BFS orders, the given and structured starts, the multilevel ordering), by
	// name, all within the solve's time; Objective is at most each of them.
	Candidates map[string]float64
	// Scalable says the scalable path ordered the machine (above ScalableMinNodes).
	Scalable bool
}

// startOrders returns the starting orderings SolveOrdering uses by default: every
// registered curve that applies to m (curves.Applicable) and breadth-first orders from
// node 0 ("bfs-node0") and from a node farthest from it ("bfs-far"), stopped by ctx
// (curves.GenerateContext).
func startOrders(ctx context.Context, m topo.Machine) []Start {
	var s []Start
	for _, name := range curves.Applicable(m) {
		if ctx.Err() != nil {
			return s
		}
		if o, err := curves.GenerateContext(ctx, name, m); err == nil {
			s = append(s, Start{name, o})
		}
	}
	s = append(s, Start{"bfs-node0", topo.BFSOrder(m, 0)})
	far, fd := 0, -1
	for v := 0; v < m.N(); v++ {
		if d := m.Dist(0, v); d > fd {
			far, fd = v, d
		}
	}
	if far != 0 {
		s = append(s, Start{"bfs-far", topo.BFSOrder(m, far)})
	}
	return s
}

// SolveOrdering finds an ordering of m minimizing F = sum over node pairs of w(rank
// difference) x hop distance (Leung et al. 2002 §2.2), with a certificate: a proven
// lower bound (Gilmore-Lawler, or HiGHS's dual bound of the MIP) and the gap. A graph
// with groups is ordered switch by switch unless opt.Flat (see orderHierarchical).
//
// Machines of more than ScalableMinNodes nodes take the scalable path (whatever the
// method, except MethodDP, which refuses them): the curves and other starting
// orderings, a line search with incrementally scored moves and a multilevel scheme,
// and the structural bounds (StructuralBounds), in memory O(n + K) beyond the machine
// (see solveScalable and docs/ilp.md). Every phase stops within a few milliseconds of
// ctx's end, returning the best ordering found with its bound.
func SolveOrdering(ctx context.Context, m topo.Machine, w curves.Weights, opt OrderOptions) (*OrderResult, error) {
	t0 := time.Now()
	if err := w.Validate(); err != nil {
		return nil, fmt.Errorf("weights: %w", err)
	}
	if _, err := ParseMethod(string(opt.Method)); err != nil && opt.Method != "" {
		return nil, err
	}
	n := m.N()
	if n < 1 {
		return nil, fmt.Errorf("machine has no nodes")
	}
	scalable := n > ScalableMinNodes && opt.Method != MethodDP
	if scalable {
		limit := opt.MaxBytes
		if limit <= 0 {
			limit = DefaultOrderMaxBytes
		}
		if need := scalableBytes(n, len(w)); need > limit {
			return nil, fmt.Errorf("machine %s has %d nodes: ordering it needs about %d bytes of memory, above the limit of %d (OrderOptions.MaxBytes)", m.Spec(), n, need, limit)
		}
		if opt.Formulation != "" {
			if err := ilp.CheckFormulation(opt.Formulation); err != nil {
				return nil, err
			}
		}
	}
	if g, ok := m.(*topo.Graph); ok {
		if err := g.CheckConnected(); err != nil {
			return nil, err
		}
	}
	for _, s := range opt.Starts {
		if err := curves.Order(s.P).Validate(n); err != nil {
			return nil, fmt.Errorf("start %s: %w", s.Name, err)
		}
	}
	if scalable {
		return solveScalable(ctx, m, w, opt, t0)
	}
	return solveStructured(ctx, m, w, opt, t0)
}

// solveStructured runs the dense methods with the structure-aware bounds and starts
// (StructuralBounds, StructuredStarts) around them: a structured start that meets an
// exact structural bound is optimal without any dense solve; otherwise the structured
// starts join the starting orderings and the structural bounds the certificate.
func solveStructured(ctx context.Context, m topo.Machine, w curves.Weights, opt OrderOptions, t0 time.Time) (*OrderResult, error) {
	var best LowerBound
	best.Value = math.Inf(-1)
	exact := math.Inf(-1)
	sb, err := StructuralBounds(ctx, m, w, opt.Ring)
	if err != nil && ctx.Err() == nil {
		return nil, fmt.Errorf("structural bounds: %w", err)
	}
	for _, b := range append(sb, pairBound(m, w, opt.Ring)) {
		if math.IsNaN(b.Value) || math.IsInf(b.Value, 0) {
			continue
		}
		if b.Value > best.Value {
			best = b
		}
		if b.Exact {
			exact = max(exact, b.Value)
		}
	}
	ss, err := StructuredStarts(ctx, m, w, opt.Ring)
	if err != nil && ctx.Err() == nil {
		return nil, fmt.Errorf("structured starts: %w", err)
	}
	opt.Starts = slices.Clone(opt.Starts)
	for _, s := range ss {
		if err := curves.Order(s.P).Validate(m.N()); err != nil {
			return nil, fmt.Errorf("internal error: structured start %s: %w", s.Name, err)
		}
		f, err := curves.Objective(m, s.P, w, opt.Ring)
		if err != nil {
			return nil, fmt.Errorf("structured start %s: %w", s.Name, err)
		}
		if exact >= f && !opt.forceMIP && certifies(m, s.P, w, opt.Ring, exact) {
			res := Result{Assignment: slices.Clone(s.P), Objective: f, Bound: f, BoundSource: best.Source,
				Status: qap.StatusOptimal, StartSource: "structured:" + s.Name, StartObjective: f,
				Notes: []string{fmt.Sprintf("the structured start %s meets the exact %s bound: optimal without a dense solve", s.Name, best.Source)}}
			res.Seconds = time.Since(t0).Seconds()
			return &OrderResult{Result: res, Order: curves.Order(res.Assignment),
				Candidates: startScores(m, w, opt.Ring, append(startOrders(ctx, m), Start{"structured:" + s.Name, s.P}))}, nil
		}
		opt.Starts = append(opt.Starts, Start{"structured:" + s.Name, s.P})
	}
	out, err := solveDense(ctx, m, w, opt, t0)
	if err != nil || out == nil {
		return out, err
	}
	// Rounded up to the granularity as every dense bound is (every F is a multiple of
	// it); on exact data a rounded bound that meets F proves it.
	if b := qap.RoundBound(best.Value, out.Granularity); b > out.Bound && out.Status != qap.StatusOptimal {
		out.Bound, out.BoundSource = min(b, out.Objective), best.Source
		out.Gap = qap.RelGap(out.Objective, out.Bound)
		if out.Granularity > 0 && out.Objective <= out.Bound {
			out.Status, out.Gap = qap.StatusOptimal, 0
			out.Notes = append(out.Notes, fmt.Sprintf("the %s bound, rounded up to a multiple of %g (every F is one), proves the ordering optimal", best.Source, out.Granularity))
		}
	}
	if exact >= out.Objective && out.Status != qap.StatusOptimal && certifies(m, out.Order, w, opt.Ring, exact) {
		out.Status, out.Bound, out.Gap = qap.StatusOptimal, out.Objective, 0
		out.Notes = append(out.Notes, fmt.Sprintf("the exact %s bound proves the ordering optimal", best.Source))
	}
	out.Seconds = time.Since(t0).Seconds()
	return out, nil
}

// solveDense is SolveOrdering on the dense QAP (up to ScalableMinNodes nodes): the
// switch-by-switch order of a graph with groups, branch and bound, DP or the MIP.
func solveDense(ctx context.Context, m topo.Machine, w curves.Weights, opt OrderOptions, t0 time.Time) (*OrderResult, error) {
	// The DP orders the whole graph exactly, so a graph's groups (which only restrict
	// the orderings) are not used with it; its node limit then applies to the graph.
	grouped := false
	if g, ok := m.(*topo.Graph); ok && len(g.Groups()) > 0 && !opt.Flat {
		if opt.Method != MethodDP {
			return orderHierarchical(ctx, g, w, opt)
		}
		grouped = true
	}
	if opt.Method == MethodAuto && m.N() <= AutoBBMaxNodes {
		opt.Method = MethodBB
	}
	if opt.Method == MethodDP || (opt.Method == MethodAuto && OrderDPStates(m.N(), len(w), opt.Ring) <= AutoDPStates) {
		out, err := orderByDP(ctx, m, w, opt)
		if grouped && out != nil {
			out.Notes = append(out.Notes, "the graph's groups were not used: the DP orders all nodes at once, as --flat (its optimum is at most the switch-by-switch one's)")
		}
		return out, err
	}
	q, err := qap.OrderingQAP(m, w, opt.Ring)
	if err != nil {
		return nil, err
	}
	starts := append(startOrders(ctx, m), opt.Starts...)
	cands := startScores(m, w, opt.Ring, starts)
	opt.Options.cyclic = opt.Ring
	res, err := solveSym(ctx, q, starts, ilp.OrderingSymmetry(m, opt.Ring), opt.Options)
	if err != nil {
		return nil, err
	}
	res.Seconds = time.Since(t0).Seconds()
	out, err := verifyOrder(m, w, opt.Ring, q, res)
	if out != nil {
		out.Candidates = cands
		// A solve stopped before its local search reached every start returns the
		// best start instead when that is better: never worse than a candidate.
		for _, st := range starts {
			if f, err := curves.Objective(m, st.P, w, opt.Ring); err == nil && f < out.Objective {
				out.Objective, out.Order, out.Assignment, out.StartSource = f, curves.Order(slices.Clone(st.P)), slices.Clone(st.P), st.Name
				out.StartObjective = f
				out.Gap = qap.RelGap(f, out.Bound)
			}
		}
	}
	return out, err
}

// startScores returns F of every start, by name (the later of two equal names
// suffixed with its index).
func startScores(m topo.Machine, w curves.Weights, ring bool, starts []Start) map[string]float64 {
	sc := map[string]float64{}
	for i, s := range starts {
		f, err := curves.Objective(m, s.P, w, ring)
		if err != nil {
			continue
		}
		name := s.Name
		if _, dup := sc[name]; dup {
			name = fmt.Sprintf("%s#%d", name, i)
		}
		sc[name] = f
	}
	return sc
}

// orderByDP solves the ordering exactly with OrderDP; the certificate is the DP
// itself (bound = optimum).
func orderByDP(ctx context.Context, m topo.Machine, w curves.Weights, opt OrderOptions) (*OrderResult, error) {
	t0 := time.Now()
	q, err := qap.OrderingQAP(m, w, opt.Ring)
	if err != nil {
		return nil, err
	}
	dr, err := OrderDP(ctx, m, w, opt.Ring)
	if err != nil {
		return nil, err
	}
	res := &Result{Assignment: dr.Order, Objective: q.Objective(dr.Order), Status: qap.StatusOptimal,
		BoundSource: "dp", Granularity: qap.Granularity(q), StartSource: "dp",
		Notes: []string{fmt.Sprintf("exact dynamic program over subsets: %d states", dr.States)}}
	res.Bound, res.StartObjective = res.Objective, res.Objective
	res.Seconds = time.Since(t0).Seconds()
	out, err := verifyOrder(m, w, opt.Ring, q, res)
	if out != nil {
		out.Candidates = startScores(m, w, opt.Ring, append(startOrders(ctx, m), opt.Starts...))
	}
	return out, err
}

// verifyOrder recomputes F with curves.Objective and makes it the reported objective;
// a disagreement with the solver's own sum beyond rounding is an internal error.
func verifyOrder(m topo.Machine, w curves.Weights, ring bool, q *qap.QAP, res *Result) (*OrderResult, error) {
	o := curves.Order(res.Assignment)
	f, err := curves.Objective(m, o, w, ring)
	if err != nil {
		return nil, fmt.Errorf("verifier: %w", err)
	}
	if math.Abs(f-res.Objective) > 1e-9*max(1, math.Abs(f)) {
		return nil, fmt.Errorf("internal error: solver objective %g, verifier F = %g", res.Objective, f)
	}
	res.Objective = f
	if res.Bound > f {
		res.Bound = f
	}
	res.checkRounding(q)
	if res.Status == qap.StatusOptimal {
		res.Bound = max(res.Bound, f)
	}
	res.Gap = qap.RelGap(f, res.Bound)
	if res.Status == qap.StatusOptimal {
		res.Gap = 0
	}
	return &OrderResult{Result: *res, Order: o}, nil
}

// orderHierarchical orders a graph whose processors are grouped under switches switch
// by switch, as Leung et al. 2002 §2.2 suggests for hierarchical networks: every group
// (and every ungrouped node, as a group of one) stays contiguous in the ordering. The
// groups are ordered first, as a QAP whose "distance" between two groups is the mean
// hop distance between their members and whose flows are the weights w on group-rank
// differences (solved like any ordering: local search, bound, MIP when small); then the
// members inside each group are arranged by a local search on the full objective F
// restricted to swaps inside a group and reversals of a group. The bound reported is
// the larger of the Gilmore-Lawler and window bounds of the unrestricted problem, so a "optimal" status means
// optimal among all orderings, and the gap is honest otherwise.
func orderHierarchical(ctx context.Context, g *topo.Graph, w curves.Weights, opt OrderOptions) (*OrderResult, error) {
	t0 := time.Now()
	n := g.N()
	// The starting orderings first, so that they are scored within the time limit.
	starts := append(startOrders(ctx, g), opt.Starts...)
	q, err := qap.OrderingQAP(g, w, opt.Ring)
	if err != nil {
		return nil, err
	}
	var blocks [][]int
	inGroup := make([]bool, n)
	for _, gr := range g.Groups() {
		blocks = append(blocks, slices.Clone(gr.Nodes))
		for _, v := range gr.Nodes {
			inGroup[v] = true
		}
	}
	for v := 0; v < n; v++ {
		if !inGroup[v] {
			blocks = append(blocks, []int{v})
		}
	}
	nb := len(blocks)
	bq := &qap.QAP{N: nb, A: make([]float64, nb*nb), B: make([]float64, nb*nb), Name: "groups of " + g.Spec()}
	for r := 0; r < nb; r++ {
		for s := r + 1; s < nb; s++ {
			t := s - r
			if opt.Ring {
				t = min(t, nb-t)
			}
			if t <= len(w) {
				bq.A[r*nb+s] = w[t-1]
			}
		}
	}
	for a := 0; a < nb; a++ {
		for b := 0; b < nb; b++ {
			if a == b {
				continue
			}
			var s float64
			for _, u := range blocks[a] {
				for _, v := range blocks[b] {
					s += float64(g.Dist(u, v))
				}
			}
			bq.B[a*nb+b] = s / float64(len(blocks[a])*len(blocks[b]))
		}
	}
	bopt := opt.Options
	bopt.cyclic = opt.Ring
	// The groups' order gets part of the time; the members and the bounds the rest.
	bctx, bcancel := subContext(ctx, 0.6)
	bres, err := solveSym(bctx, bq, nil, ilp.SymmetryFor(nb, nil, opt.Ring), bopt)
	bcancel()
	if err != nil {
		return nil, fmt.Errorf("ordering the groups: %w", err)
	}
	// Expand and refine inside groups.
	p := make([]int, 0, n)
	var spans [][2]int
	for _, b := range bres.Assignment {
		lo := len(p)
		p = append(p, blocks[b]...)
		spans = append(spans, [2]int{lo, len(p) - 1})
	}
	startF := q.Objective(p) // the groups in order, before the descent inside them
	p = qap.DescendWithin(ctx, q, p, spans)
	res := &Result{Assignment: p, Objective: q.Objective(p), Bound: math.Inf(-1), BoundSource: "none",
		Granularity: qap.Granularity(q), StartSource: "switch-by-switch", Status: qap.StatusHeuristic}
	res.StartObjective = startF
	if glb, ok := qap.GilmoreLawlerBound(ctx, q); ok {
		res.Bound, res.BoundSource = qap.RoundBound(glb, res.Granularity), "glb"
	}
	if wb, ok := qap.WindowBound(ctx, q, opt.Ring); ok {
		if b := qap.RoundBound(wb, res.Granularity); b > res.Bound {
			res.Bound, res.BoundSource = b, "window"
		}
	}
	if res.proven() {
		res.Status = qap.StatusOptimal
	} else if ctx.Err() != nil {
		res.Status = qap.ContextStatus(ctx)
	}
	res.Notes = append(res.Notes, fmt.Sprintf("groups ordered as a %d-block QAP (status %s, mean member distance); members arranged within groups", nb, bres.Status))
	res.Formulation = bres.Formulation
	res.Seconds = time.Since(t0).Seconds()
	out, err := verifyOrder(g, w, opt.Ring, q, res)
	if err != nil {
		return nil, err
	}
	out.Hierarchical, out.Groups = true, len(g.Groups())
	out.Candidates = startScores(g, w, opt.Ring, starts)
	// The groups are a restriction: a curve that beats the switch-by-switch ordering
	// is returned instead, so that the result is never worse than a curve.
	for _, st := range starts {
		f, err := curves.Objective(g, st.P, w, opt.Ring)
		if err == nil && f < out.Objective {
			out.Notes = append(out.Notes, fmt.Sprintf("the %s ordering (F = %g) beats the switch-by-switch one (F = %g) and is returned: its groups are not all contiguous", st.Name, f, out.Objective))
			out.Objective, out.Order, out.Assignment, out.StartSource, out.Hierarchical = f, curves.Order(slices.Clone(st.P)), slices.Clone(st.P), st.Name, false
			out.Gap = qap.RelGap(f, out.Bound)
			if out.Status == qap.StatusOptimal {
				out.Status = qap.StatusHeuristic
			}
		}
	}
	return out, nil
}
