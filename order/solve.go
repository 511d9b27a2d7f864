package order

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"time"

	"github.com/procalloc/procalloc/ilp"
	"github.com/procalloc/procalloc/ilp/highs"
	"github.com/procalloc/procalloc/qap"
)

// DefaultMaxColumns is the default limit on MIP columns; larger instances are solved by
// local search only (with the Gilmore-Lawler bound as certificate). HiGHS takes about
// 2 KB of memory per column of these models (a 2.3M-column model of a 40-node graph
// used 4.7 GB), so the default keeps a solve near 2 GB.
const DefaultMaxColumns = 1_000_000

// Options control SolveQAP and SolveOrdering. The time limit is the context's
// deadline: a solve stopped by it reports qap.StatusTimeLimit, one cancelled
// qap.StatusInterrupted, both with the best solution found and its bound.
type Options struct {
	// Method: MethodMIP when empty; MethodDP for orderings only.
	Method Method
	// Formulation: one of Formulations; "" chooses by size (autoFormulation).
	Formulation ilp.Formulation
	RelGap      float64   // stop the MIP at this relative gap (0: prove optimality)
	Threads     int       // HiGHS threads (0: default)
	Seed        uint64    // local search and HiGHS seed
	Log         io.Writer // HiGHS log (nil: off)
	// Progress receives incumbent/bound snapshots while the MIP runs.
	Progress func(highs.Progress)
	// MaxColumns caps the MIP size (0: DefaultMaxColumns).
	MaxColumns int
	// LocalSearch tunes the local search that produces the warm start.
	LocalSearch qap.LocalSearchOptions

	// cyclic says the flows are banded around a ring (the ring ordering variant); only
	// the window formulation needs to know. SolveOrdering sets it.
	cyclic bool
	// noSymmetry leaves out the symmetry-breaking constraints, and forceMIP runs the
	// MIP even when a bound already proves the local search result optimal: for the
	// tests' cross-checks of the formulations (export_test.go).
	noSymmetry bool
	forceMIP   bool
}

// Result is a solution with its certificate.
type Result struct {
	Assignment []int   // facility -> location (for orderings: the Order)
	Objective  float64 // q.Objective(Assignment)
	// Bound is a proven lower bound on the optimum: the larger of the Gilmore-Lawler
	// bound and HiGHS's dual bound (rounded up to the granularity when every objective
	// value is a multiple of it).
	Bound float64
	// BoundSource names the argument that proves Bound: "glb" (Gilmore-Lawler),
	// "window", "walk", "mip", "bb", "dp", a structural bound's LowerBound.Source
	// ("pairs", "ultrametric", "ultrametric-ring", "grid-window-L"), or "none".
	BoundSource string
	Gap         float64         // (Objective - Bound) / |Objective|, 0 when optimal
	Status      qap.Status      // optimal, gap_limit, time_limit, interrupted, heuristic or unproven
	Formulation ilp.Formulation // "" when no MIP ran
	Symmetry    string          // the MIP's symmetry breaking (ilp.Symmetry.Desc, "none" possible); "" when no MIP ran
	Granularity float64         // g > 0: every objective value is a multiple of g
	// StartObjective is the objective of the ordering the search started from, the
	// one StartSource names, as it was before any local search (the table's "start"
	// row, the JSON's start_objective): the same meaning on every path.
	StartObjective float64
	StartSource    string   // the start it came from: a Start's Name, a curve, "dp", "switch-by-switch", ...
	MIPStatus      string   // HiGHS's model status, "" when no MIP ran
	MIPObjective   float64  // HiGHS's objective, in the data's units; 0 when no MIP ran
	MIPColumns     int      // the MIP's variables (0: no MIP)
	MIPRows        int      // the MIP's constraints (0: no MIP)
	Nodes          int64    // branch-and-bound nodes, of HiGHS or of the QAP branch and bound
	Seconds        float64  // wall-clock time of the solve
	Notes          []string // what the solve did and why, for the report
}

// Start is a named starting assignment.
type Start struct {
	Name string // names the start in Result.StartSource and the notes
	P    []int  // facility -> location, a permutation of 0..n-1
}

// SolveQAP solves q: local search from each start (and the identity), the
// Gilmore-Lawler bound, then, unless the local search optimum already meets the bound
// or opt.Method is MethodLocal, the MIP through HiGHS warm-started from the best
// assignment (MethodAuto: only when HiGHS is compiled in).
//
// Flows and distances must be finite and non-negative (the bounds assume it), and
// the objective must stay within float64. Data far from unit size (entries above
// 2^40 or all below 2^-20) are scaled by a power of two before solving and the
// results scaled back, exactly: the solver's tolerances are then relative to the
// data, so list:1e-10 weights are solved as list:1 are.
func SolveQAP(ctx context.Context, q *qap.QAP, starts []Start, opt Options) (*Result, error) {
	res, err := solveSym(ctx, q, starts, nil, opt)
	if res != nil {
		res.checkRounding(q)
	}
	return res, err
}

// solveSym is SolveQAP with symmetry-breaking constraints for the MIP (sym may be nil).
// It is the one entry point of every method that works on a QAP: a new method is one
// more case of the switch.
func solveSym(ctx context.Context, q *qap.QAP, starts []Start, sym *ilp.Symmetry, opt Options) (*Result, error) {
	if opt.Method == MethodAuto && q.N <= AutoBBMaxNodes {
		opt.Method = MethodBB
	}
	switch opt.Method {
	case "", MethodMIP, MethodLocal, MethodAuto:
	case MethodBB:
		return solveBB(ctx, q, starts, sym, opt)
	case MethodDP:
		return nil, fmt.Errorf("method %s orders machines (SolveOrdering); it does not solve general QAPs", MethodDP)
	default:
		return nil, unknownMethod(opt.Method)
	}
	if err := q.CheckSolvable(); err != nil {
		return nil, err
	}
	sa, sb := dataScale(q.A), dataScale(q.B)
	if sa == 1 && sb == 1 {
		return solveQAP(ctx, q, starts, sym, opt)
	}
	qs := &qap.QAP{N: q.N, A: scaleAll(q.A, 1/sa), B: scaleAll(q.B, 1/sb), Name: q.Name}
	res, err := solveQAP(ctx, qs, starts, sym, opt)
	if res != nil {
		s := sa * sb
		res.Objective *= s
		res.Bound *= s
		res.StartObjective *= s
		res.MIPObjective *= s
		res.Granularity *= s
		res.Notes = append(res.Notes, fmt.Sprintf("solved with flows scaled by 2^%d and distances by 2^%d (exact), so that tolerances fit the data", -math.Ilogb(sa), -math.Ilogb(sb)))
	}
	return res, err
}

// dataScale is 1 for entries of comfortable size, else the power of two nearest their
// largest magnitude.
func dataScale(v []float64) float64 {
	var m float64
	for _, x := range v {
		m = max(m, math.Abs(x))
	}
	if m == 0 {
		return 1
	}
	if e := math.Ilogb(m); e < -20 || e > 40 {
		return math.Ldexp(1, e)
	}
	return 1
}

func scaleAll(v []float64, s float64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = x * s
	}
	return out
}

func solveQAP(ctx context.Context, q *qap.QAP, starts []Start, sym *ilp.Symmetry, opt Options) (*Result, error) {
	t0 := time.Now()
	maxCols := opt.MaxColumns
	if maxCols <= 0 {
		maxCols = DefaultMaxColumns
	}
	var budgetNote string
	if opt.Formulation == "" {
		opt.Formulation = ilp.AutoFormulation(q, opt.cyclic, maxCols)
		// Say when the memory budget, not the instance, ruled out the tighter model.
		if c := ilp.ModelSize(q, ilp.FormulationWindow3, opt.cyclic); opt.Formulation == ilp.FormulationAJ && c > maxCols {
			budgetNote = fmt.Sprintf("formulation %s (%d columns): %s would have %d, above the limit of %d (Options.MaxColumns, --max-columns on the command line)",
				ilp.FormulationAJ, ilp.ModelSize(q, ilp.FormulationAJ, opt.cyclic), ilp.FormulationWindow3, c, maxCols)
		}
	}
	if err := ilp.CheckFormulation(opt.Formulation); err != nil {
		return nil, err
	}
	if opt.RelGap < 0 || math.IsNaN(opt.RelGap) {
		return nil, fmt.Errorf("relative gap %g must be >= 0", opt.RelGap)
	}
	deadline, _ := ctx.Deadline()
	n := q.N
	ident := make([]int, n)
	for i := range ident {
		ident[i] = i
	}
	starts = append(slices.Clone(starts), Start{"identity", ident})
	res := &Result{Objective: math.Inf(1), Bound: math.Inf(-1), BoundSource: "none", Granularity: qap.Granularity(q)}
	if glb, ok := qap.GilmoreLawlerBound(ctx, q); ok {
		res.Bound, res.BoundSource = qap.RoundBound(glb, res.Granularity), "glb"
	}
	if wb, ok := qap.WindowBound(ctx, q, opt.cyclic); ok {
		if b := qap.RoundBound(wb, res.Granularity); b > res.Bound {
			res.Bound, res.BoundSource = b, "window"
		}
	}
	if wb, ok := qap.WalkBound(ctx, q, opt.cyclic); ok {
		if b := qap.RoundBound(wb, res.Granularity); b > res.Bound {
			res.Bound, res.BoundSource = b, "walk"
		}
	}
	lsOpt := opt.LocalSearch
	if lsOpt.Seed == 0 {
		lsOpt.Seed = opt.Seed
	}
	if !math.IsInf(res.Bound, -1) {
		lsOpt.Target, lsOpt.HasTarget = res.Bound, true
	}
	// Plain descent from every start, then iterated local search from the best.
	descent := lsOpt
	descent.Rounds = -1
	for _, s := range starts {
		if err := q.CheckPerm(s.P); err != nil {
			return nil, fmt.Errorf("start %s: %w", s.Name, err)
		}
		p, f, err := qap.LocalSearch(ctx, q, s.P, descent)
		if err != nil {
			return nil, err
		}
		if f < res.Objective {
			res.Assignment, res.Objective, res.StartSource = p, f, s.Name
			res.StartObjective = q.Objective(s.P)
		}
		if ctx.Err() != nil || res.proven() {
			break
		}
	}
	if !res.proven() && ctx.Err() == nil && lsOpt.Rounds >= 0 {
		p, f, err := qap.LocalSearch(ctx, q, res.Assignment, lsOpt)
		if err != nil {
			return nil, err
		}
		if f < res.Objective {
			res.Assignment, res.Objective = p, f
		}
	}
	finish := func(status qap.Status) (*Result, error) {
		res.Status = status
		if res.proven() {
			res.Status = qap.StatusOptimal
		}
		res.Gap = qap.RelGap(res.Objective, res.Bound)
		if res.Status == qap.StatusOptimal {
			res.Gap = 0
		}
		res.Seconds = time.Since(t0).Seconds()
		return res, nil
	}
	if res.proven() && !opt.forceMIP {
		name := map[string]string{"glb": "Gilmore-Lawler", "window": "window-decomposition", "walk": "walk"}[res.BoundSource]
		res.Notes = append(res.Notes, "the local search optimum meets the "+name+" bound: no MIP needed")
		return finish(qap.StatusOptimal)
	}
	if ctx.Err() != nil {
		return finish(qap.ContextStatus(ctx))
	}
	if opt.Method == MethodLocal || (opt.Method == MethodAuto && !highs.Available()) {
		return finish(qap.StatusHeuristic)
	}
	if cols := ilp.ModelSize(q, opt.Formulation, opt.cyclic); cols == 0 {
		return nil, fmt.Errorf("formulation %s does not apply to this instance (flows not banded narrowly enough)", opt.Formulation)
	} else if cols > maxCols {
		res.Notes = append(res.Notes, fmt.Sprintf("MIP skipped: the %s model would have %d columns, above the limit of %d (about 2 KB of memory each; the limit is Options.MaxColumns, --max-columns on the command line)", opt.Formulation, cols, maxCols))
		return finish(qap.StatusHeuristic)
	}
	if budgetNote != "" {
		res.Notes = append(res.Notes, budgetNote)
	}
	if !highs.Available() {
		return nil, highs.ErrNotAvailable
	}
	if opt.noSymmetry {
		sym = nil
	}
	mm, err := ilp.BuildModel(q, opt.Formulation, opt.cyclic, sym)
	if err != nil {
		return nil, err
	}
	res.Formulation = opt.Formulation
	res.MIPColumns, res.MIPRows = mm.HiGHS.NumCols(), mm.HiGHS.NumRows()
	if sym != nil {
		res.Symmetry = sym.Desc
	}
	start := res.Assignment
	if sym != nil {
		start = sym.Canon(start)
		if f := q.Objective(start); math.Abs(f-res.Objective) > 1e-9*(1+math.Abs(f)) {
			return nil, fmt.Errorf("internal error: symmetry canonicalization changed the objective from %g to %g", res.Objective, f)
		}
		res.Assignment = start
	}
	hopt := highs.Options{RelGap: opt.RelGap, Threads: opt.Threads, Seed: int(opt.Seed % (1 << 31)), Log: opt.Log, Progress: opt.Progress}
	if res.Granularity > 0 {
		hopt.AbsGap = 0.999 * res.Granularity
	}
	if !deadline.IsZero() {
		left := time.Until(deadline)
		if left <= 0 {
			return finish(qap.StatusTimeLimit)
		}
		hopt.TimeLimit = left
	}
	hr, err := highs.Solve(ctx, mm.HiGHS, mm.Encode(start), hopt)
	if err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return finish(qap.ContextStatus(ctx))
		}
		return nil, err
	}
	res.MIPStatus, res.MIPObjective, res.Nodes = hr.ModelStatus, hr.Objective, hr.Nodes
	if hr.Status == highs.StatusInfeasible {
		return nil, fmt.Errorf("internal error: HiGHS reports the ordering MIP infeasible although the warm start (objective %g) is feasible", res.Objective)
	}
	if hr.X != nil {
		p, err := mm.Decode(hr.X)
		if err != nil {
			return nil, err
		}
		if f := q.Objective(p); f < res.Objective {
			res.Assignment, res.Objective = p, f
		}
	}
	if !math.IsNaN(hr.DualBound) && !math.IsInf(hr.DualBound, 0) {
		if b := qap.RoundBound(hr.DualBound, res.Granularity); b > res.Bound {
			res.Bound, res.BoundSource = b, "mip"
		}
	}
	res.Bound = min(res.Bound, res.Objective) // the bound never exceeds a known solution
	switch hr.Status {
	case highs.StatusOptimal:
		if opt.RelGap > 0 {
			return finish(qap.StatusGap)
		}
		return finish(mipOptimalStatus(res))
	case highs.StatusTimeLimit:
		return finish(qap.StatusTimeLimit)
	case highs.StatusInterrupted:
		return finish(qap.ContextStatus(ctx))
	default:
		res.Notes = append(res.Notes, "HiGHS stopped with model status "+hr.ModelStatus)
		return finish(qap.StatusUnproven)
	}
}

// mipOptimalStatus is the status of a solve HiGHS reports optimal. HiGHS proves
// optimality within its tolerances (an absolute gap of 1e-6, or just below the
// objective's granularity), so on data with a granularity the bound rounded up to it
// must meet the objective (proven), elsewhere a bound within 1e-6 relative of the
// objective is taken as the certificate. A wider gap means HiGHS's claim and the ordering's own
// objective disagree (a model or numerical defect): then optimality is not claimed,
// and the note gives both figures.
func mipOptimalStatus(res *Result) qap.Status {
	if res.proven() || (res.Granularity == 0 && res.Objective-res.Bound <= 1e-6*max(1, math.Abs(res.Objective))) {
		res.Bound = res.Objective
		return qap.StatusOptimal
	}
	res.Notes = append(res.Notes, fmt.Sprintf("HiGHS reported the MIP optimal, but its dual bound %s is below the ordering's objective %.10g (by more than 1e-6 relative, or at all on integer data): optimality not certified (please report this instance)", qap.FormatBound(res.Bound), res.Objective))
	return qap.StatusUnproven
}

// proven reports whether the bound certifies the objective as optimal.
// On exact data (Granularity > 0: the objective and the rounded-up bound are exact
// multiples of it) the bound must meet the objective exactly; on float data within a
// relative 1e-9.
func (r *Result) proven() bool {
	if math.IsInf(r.Bound, -1) {
		return false
	}
	if r.Granularity > 0 {
		return r.Objective <= r.Bound
	}
	return r.Objective-r.Bound <= 1e-9*max(1, math.Abs(r.Objective))
}

// checkRounding keeps a certificate honest about float64 (qap.Rounded, qap.Granularity):
// on integer or dyadic data whose objective values float64 rounds, an optimal status
// (a bound meeting F only up to rounding) becomes unproven; on data that are not
// dyadic (decimal fractions) optimal stays, with a note that it means within a
// relative 1e-9. q is the instance as given (before any scaling). The bound is never
// printed above the objective.
func (r *Result) checkRounding(q *qap.QAP) {
	if r.Status != qap.StatusOptimal {
		return
	}
	switch {
	case qap.Rounded(q):
		r.Status = qap.StatusUnproven
		r.Bound = min(r.Bound, r.Objective)
		r.Gap = qap.RelGap(r.Objective, r.Bound)
		r.Notes = append(r.Notes, fmt.Sprintf("not certified: the data are integers (or multiples of a power of two) but objective values can reach %.3g, where float64 rounds (beyond 2^52 times their granularity), so F and the bound are not exact and orderings of different cost can compare equal; scale the data down to certify", qap.ObjectiveRange(q)))
	case qap.Granularity(q) == 0:
		r.Notes = append(r.Notes, "the data are not multiples of a power of two (decimal fractions): F and the bound are float64 values, and optimal means the bound is within a relative 1e-9 of F")
	}
}
