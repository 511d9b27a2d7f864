package order

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strings"
	"time"

	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/ilp/highs"
	"github.com/procalloc/procalloc/internal/timelimit"
	"github.com/procalloc/procalloc/qap"
	"github.com/procalloc/procalloc/topo"
)

// ScalableMinNodes is where SolveOrdering switches from the dense exact methods to the
// scalable path (solveScalable): machines of more than this many nodes are ordered
// without n x n tables. Up to it the dense methods run: branch and bound to 30 nodes,
// the DP when small, the Gilmore-Lawler, window and walk bounds and the MIP, which
// prove optimality on small machines; their tables (n^2 entries, the bounds O(n^3) and
// more) are cheap there and the bounds' certificates are worth having. Above it they
// cannot finish: the Gilmore-Lawler bound alone takes minutes at a thousand nodes.
const ScalableMinNodes = 256

// DefaultOrderMaxBytes is the memory the scalable path may plan for (OrderOptions.
// MaxBytes when zero); a larger machine is refused before anything is allocated.
const DefaultOrderMaxBytes = 8 << 30

// scalableBytesPerNode is the scalable path's memory per node: the ordering and its
// inverse (int32), the queue and its flags, the best and the current candidate
// orderings ([]int), a curve's own scratch (coordinates, BFS levels) and the
// objective's coordinate rows, with room to spare.
const scalableBytesPerNode = 96

// scalableBytes estimates the memory the scalable path needs for an n-node machine and
// K weights (beyond the machine itself): O(n + K).
func scalableBytes(n, k int) int64 {
	return int64(n)*scalableBytesPerNode + int64(k)*16 + 1<<20
}

// fallbackGrace is how long past the time limit (or Ctrl-C) the scalable path may
// take to score node-index order when no starting ordering was scored in time.
const fallbackGrace = 500 * time.Millisecond

// candidate is a starting ordering the scalable path evaluated.
type candidate struct {
	name string
	o    []int
	f    float64
}

// scalableRun is the state of one scalable solve (one level of the multilevel scheme).
type scalableRun struct {
	m     topo.Machine
	w     curves.Weights
	ring  bool
	seed  uint64
	depth int                // 0 at the top, 1 on the first coarse level, ...
	scale map[string]float64 // F of every candidate evaluated, by name
	best  []candidate        // the best few candidates, ascending F
	notes []string
	// target: stop searching once F reaches it (an exact lower bound), when hasTarget.
	target    float64
	hasTarget bool
	// progress, when set (top level only), receives the best F so far against the
	// bound, as Options.Progress does for the MIP: the CLI's progress line.
	progress func(highs.Progress)
	bound    float64
	t0       time.Time
	shown    float64 // the least F handed to progress, once anyShown
	anyShown bool
	// overflows counts the candidates left out because their F overflows float64.
	overflows int
}

// report hands the best F so far to progress: the least F reported, since each line
// search reports its own F (a search from the second-best start went back up to the
// start's F: the progress line showed 502019, then 502034, on mesh:448x448).
func (sr *scalableRun) report(f float64) {
	if sr.progress != nil {
		if sr.anyShown && sr.shown < f {
			f = sr.shown
		}
		sr.shown, sr.anyShown = f, true
		sr.progress(highs.Progress{Incumbent: f, Bound: sr.bound, Gap: qap.RelGap(f, sr.bound), Seconds: time.Since(sr.t0).Seconds()})
	}
}

// newSearch is newLineSearch reporting its progress to sr's.
func (sr *scalableRun) newSearch(ctx context.Context, o []int, seed uint64) *lineSearch {
	ls := newLineSearch(ctx, sr.m, sr.w, sr.ring, toInt32(o), seed)
	if sr.progress != nil {
		best := math.Inf(1)
		if len(sr.best) > 0 {
			best = sr.best[0].f
		}
		ls.report = func(f float64) { sr.report(min(f, best)) }
	}
	return ls
}

// keep records a candidate's F and keeps the best few orderings (ascending F, ties by
// arrival).
func (sr *scalableRun) keep(name string, o []int, f float64) {
	if _, dup := sr.scale[name]; dup {
		name = fmt.Sprintf("%s#%d", name, len(sr.scale))
	}
	sr.scale[name] = f
	i := len(sr.best)
	for i > 0 && sr.best[i-1].f > f {
		i--
	}
	if i >= 3 {
		return
	}
	sr.best = slices.Insert(sr.best, i, candidate{name, o, f})
	if len(sr.best) > 3 {
		sr.best = sr.best[:3]
	}
}

// evaluate scores o and keeps it; orderings that are not permutations are errors.
// On a grid the score is curves.Objective's; elsewhere (each distance a lookup) it is
// summed the same way, in the same order, by the line search's exactCost, which stops
// when ctx ends: the candidate is then dropped.
func (sr *scalableRun) evaluate(ctx context.Context, name string, o []int) error {
	if err := curves.Order(o).Validate(sr.m.N()); err != nil {
		return fmt.Errorf("start %s: %w", name, err)
	}
	if _, grid := sr.m.(*topo.Grid); grid {
		f, err := curves.Objective(sr.m, o, sr.w, sr.ring)
		if errors.Is(err, curves.ErrOverflow) {
			// Another ordering may fit: this one is left out, not the solve.
			sr.notes = append(sr.notes, fmt.Sprintf("start %s left out: its F overflows float64", name))
			sr.overflows++
			return nil
		}
		if err != nil {
			return fmt.Errorf("start %s: %w", name, err)
		}
		sr.keep(name, o, f)
		sr.report(sr.best[0].f)
		return nil
	}
	ls := sr.newSearch(ctx, o, 0)
	if ls.stopped {
		return nil
	}
	if ls.unreachable {
		return fmt.Errorf("start %s: the machine is disconnected", name)
	}
	if math.IsInf(ls.cost, 0) {
		sr.notes = append(sr.notes, fmt.Sprintf("start %s left out: its F overflows float64", name))
		sr.overflows++
		return nil
	}
	sr.keep(name, o, ls.cost)
	return nil
}

// reached reports whether f meets the target (a proven lower bound).
func (sr *scalableRun) reached(f float64) bool {
	return sr.hasTarget && f <= sr.target
}

// subContext returns a context ending at the given fraction of the time ctx has left
// (ctx itself when it has no deadline).
func subContext(ctx context.Context, frac float64) (context.Context, context.CancelFunc) {
	dl, ok := ctx.Deadline()
	if !ok {
		return context.WithCancel(ctx)
	}
	left := time.Until(dl)
	return context.WithTimeout(ctx, time.Duration(float64(left)*frac))
}

// candidates evaluates the starting orderings: every curve that applies (spectral only
// when it should finish in time), BFS orders from node 0 and from a node farthest
// from it, the user's starts, the structured starts, and the multilevel ordering
// (depth limits the recursion). It stops early when ctx ends.
func (sr *scalableRun) candidates(ctx context.Context, starts []Start, structured bool, depth int) error {
	m := sr.m
	_, coarseGraph := m.(*clusterMachine)
	if err := sr.builtInCandidates(ctx, coarseGraph); err != nil {
		return err
	}
	// The user's starts are scored even when ctx has ended (within fallbackGrace of
	// it, as node-index order is): the result is never worse than a start given.
	// A 300 ms limit ran out in the curves on a loaded host and the start, F 978.5,
	// lost to node-index order's 1992.5.
	gctx, cancel := timelimit.Grace(ctx, fallbackGrace)
	defer cancel()
	for _, s := range starts {
		if err := curves.Order(s.P).Validate(m.N()); err != nil {
			return fmt.Errorf("start %s: %w", s.Name, err)
		}
		if err := sr.evaluate(gctx, "start:"+s.Name, s.P); err != nil {
			return err
		}
	}
	if structured && ctx.Err() == nil {
		ss, err := StructuredStarts(ctx, m, sr.w, sr.ring)
		if err != nil && ctx.Err() == nil {
			return fmt.Errorf("structured starts: %w", err)
		}
		for _, s := range ss {
			if curves.Order(s.P).Validate(m.N()) != nil {
				return fmt.Errorf("internal error: structured start %s is not an ordering of %s", s.Name, m.Spec())
			}
			if err := sr.evaluate(ctx, "structured:"+s.Name, s.P); err != nil {
				return err
			}
		}
	}
	if depth < 4 && ctx.Err() == nil && !(len(sr.best) > 0 && sr.reached(sr.best[0].f)) {
		if o, what := sr.multilevel(ctx, depth); o != nil {
			if err := sr.evaluate(ctx, "multilevel", o); err != nil {
				return err
			}
			sr.notes = append(sr.notes, "multilevel: "+what)
		}
	}
	return nil
}

// builtInCandidates evaluates procalloc's own starting orderings: every curve that
// applies, then BFS orders from node 0 and from a node farthest from it (on a
// coarse level of the multilevel ordering, node-index order). It stops when ctx ends.
func (sr *scalableRun) builtInCandidates(ctx context.Context, coarseGraph bool) error {
	m := sr.m
	if !coarseGraph {
		names := curves.Applicable(m)
		// The slow orderings last, when the fast curves are in hand: the
		// breadth-first ones (several searches of the whole machine), then
		// spectral. A 2 s limit on mesh:2000x2000 ran out in bfs, the first by name.
		for _, slow := range []string{"bfs", "cuthill-mckee", "rcm", "spectral"} {
			if i := slices.Index(names, slow); i >= 0 {
				names = append(slices.Delete(names, i, i+1), slow)
			}
		}
		for _, name := range names {
			if ctx.Err() != nil {
				return nil
			}
			o, err := curves.GenerateContext(ctx, name, m)
			if err != nil {
				if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
					// GenerateContext's errors name the curve and the machine.
					note := err.Error()
					if !strings.HasPrefix(note, "curve "+name+" ") {
						note = fmt.Sprintf("curve %s skipped: %s", name, note)
					}
					sr.notes = append(sr.notes, note)
				}
				continue
			}
			if err := sr.evaluate(ctx, name, o); err != nil {
				return err
			}
		}
		if ctx.Err() != nil {
			return nil
		}
		b := topo.BFSOrder(m, 0)
		if err := sr.evaluate(ctx, "bfs-node0", b); err != nil {
			return err
		}
		if far := b[len(b)-1]; far != 0 {
			if err := sr.evaluate(ctx, "bfs-far", topo.BFSOrder(m, far)); err != nil {
				return err
			}
		}
	} else {
		if err := sr.evaluate(ctx, "identity", curves.RowMajor(m.N())); err != nil {
			return err
		}
	}
	return nil
}

// search improves the best candidates by the line search: a descent from each of the
// best three, then iterated local search from the best until ctx ends (without a
// deadline: until 5 n + 5,000 kicks, n + 1,000 on a coarse level). It returns the best ordering, its F (exact,
// curves.Objective) and where it came from.
func (sr *scalableRun) search(ctx context.Context) ([]int, float64, string, error) {
	if len(sr.best) == 0 {
		return nil, 0, "", fmt.Errorf("no starting ordering could be evaluated before the time limit")
	}
	bestO, bestF, src := sr.best[0].o, sr.best[0].f, sr.best[0].name
	if sr.reached(bestF) || sr.m.N() < 3 {
		return bestO, bestF, src, nil
	}
	consider := func(o []int, name string) error {
		f, err := curves.Objective(sr.m, o, sr.w, sr.ring)
		if err != nil {
			return fmt.Errorf("verifier: %w", err)
		}
		if f < bestF {
			bestO, bestF, src = o, f, name
		}
		return nil
	}
	for i, c := range sr.best {
		if ctx.Err() != nil || sr.reached(bestF) {
			break
		}
		dctx, cancel := subContext(ctx, 0.25)
		ls := sr.newSearch(dctx, c.o, sr.seed+uint64(i))
		ls.activate(0, ls.n-1)
		ls.descend()
		cancel()
		if ls.cost < c.f {
			if err := consider(ls.order(), c.name+"+descent"); err != nil {
				return nil, 0, "", err
			}
		}
	}
	if ctx.Err() != nil || sr.reached(bestF) {
		return bestO, bestF, src, nil
	}
	ls := sr.newSearch(ctx, bestO, sr.seed)
	var kicks int64
	if _, ok := ctx.Deadline(); !ok {
		kicks = 5*int64(ls.n) + 5000
		if sr.depth > 0 {
			kicks = int64(ls.n) + 1000
		}
	}
	ls.target, ls.hasTarget = sr.target, sr.hasTarget
	ls.run(kicks)
	if err := consider(ls.order(), src+"+ils"); err != nil {
		return nil, 0, "", err
	}
	return bestO, bestF, src, nil
}

func toInt32(o []int) []int32 {
	r := make([]int32, len(o))
	for i, v := range o {
		r[i] = int32(v)
	}
	return r
}

// heuristicOrder runs candidates and search on m: the multilevel scheme's inner levels
// and the top level's search.
func heuristicOrder(ctx context.Context, m topo.Machine, w curves.Weights, ring bool, seed uint64, depth int) []int {
	sr := &scalableRun{m: m, w: w, ring: ring, seed: seed, depth: depth, scale: map[string]float64{}}
	if sr.candidates(ctx, nil, false, depth) != nil {
		return nil
	}
	o, _, _, err := sr.search(ctx)
	if err != nil {
		return nil
	}
	return o
}

// solveScalable is SolveOrdering above ScalableMinNodes nodes (docs/ilp.md, "The
// scalable path"): candidates, bounds, line search, all within ctx.
func solveScalable(ctx context.Context, m topo.Machine, w curves.Weights, opt OrderOptions, t0 time.Time) (*OrderResult, error) {
	sr := &scalableRun{m: m, w: w, ring: opt.Ring, seed: opt.Seed, scale: map[string]float64{}, progress: opt.Progress, t0: t0}
	res := &Result{Bound: math.Inf(-1), BoundSource: "none", Status: qap.StatusHeuristic}
	if opt.Method == MethodMIP || opt.Method == MethodBB {
		res.Notes = append(res.Notes, fmt.Sprintf("method %s needs the dense n x n model; above %d nodes the scalable path runs instead (local search and structural bounds)", opt.Method, ScalableMinNodes))
	}
	if unused := mipOnlyOptions(opt.Options); len(unused) > 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("%s given: settings of the MIP, unused on the scalable path (no MIP runs above %d nodes)", strings.Join(unused, ", "), ScalableMinNodes))
	}
	// Bounds first: cheap, and an exact one lets the search stop at a proven optimum.
	exact := math.Inf(-1)
	addBound := func(b LowerBound) {
		if math.IsNaN(b.Value) || math.IsInf(b.Value, 0) {
			return
		}
		if b.Value > res.Bound {
			res.Bound, res.BoundSource = b.Value, b.Source
		}
		if b.Exact && b.Value > exact {
			exact = b.Value
		}
	}
	addBound(pairBound(m, w, opt.Ring))
	if sb, err := StructuralBounds(ctx, m, w, opt.Ring); err != nil {
		if ctx.Err() == nil {
			return nil, fmt.Errorf("structural bounds: %w", err)
		}
	} else {
		for _, b := range sb {
			addBound(b)
		}
	}
	sr.target, sr.hasTarget = exact, !math.IsInf(exact, -1)
	sr.bound = res.Bound
	if err := sr.candidates(ctx, opt.Starts, true, 0); err != nil {
		return nil, err
	}
	if len(sr.best) == 0 {
		// Stopped before any candidate was scored: node-index order, O(n K) to
		// score, within a grace of fallbackGrace past the deadline or Ctrl-C (it
		// was scored without any limit: 8 s past a 2 s limit on a dragonfly).
		gctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), fallbackGrace)
		before := sr.overflows
		err := sr.evaluate(gctx, "rowmajor", curves.RowMajor(m.N()))
		cancel()
		if err != nil {
			return nil, err
		}
		if len(sr.best) == 0 && sr.overflows > before {
			// Every ordering scored, node-index order too, overflows: more time
			// does not help (it said "allow more time" at once).
			return nil, fmt.Errorf("%w with weights %s on %s for all %d orderings scored: scale the weights down", curves.ErrOverflow, w, m.Spec(), sr.overflows)
		}
		if len(sr.best) == 0 {
			cause := context.Cause(ctx)
			if cause == nil {
				cause = context.DeadlineExceeded
			}
			return nil, fmt.Errorf("no ordering of %s could be scored within the time limit and %v more: allow more time: %w", m.Spec(), fallbackGrace, cause)
		}
		sr.notes = append(sr.notes, "no starting ordering was scored within the time limit: node-index order scored after it")
	}
	o, f, src, err := sr.search(ctx)
	if err != nil {
		return nil, err
	}
	res.Assignment, res.Objective, res.StartSource = o, f, src
	res.StartObjective = sr.best[0].f
	if res.StartSource != sr.best[0].name {
		res.StartSource = sr.best[0].name
	}
	res.Notes = append(res.Notes, fmt.Sprintf("scalable path (above %d nodes): %d starting orderings evaluated, best %s (F = %g); line search: descents, then iterated local search",
		ScalableMinNodes, len(sr.scale), sr.best[0].name, sr.best[0].f))
	res.Notes = append(res.Notes, sr.notes...)
	switch {
	case !math.IsInf(exact, -1) && exact >= f && certifies(m, o, w, opt.Ring, exact):
		res.Status, res.Bound = qap.StatusOptimal, f
	case ctx.Err() != nil:
		res.Status = qap.ContextStatus(ctx)
	case deadlinePassed(ctx):
		// The search reads the clock itself and may stop at the deadline a moment
		// before the context's timer fires: the time limit still ended it.
		res.Status = qap.StatusTimeLimit
	}
	// Every F is a multiple of the weights' unit g (hop distances are integers): the
	// bound is rounded up to one, as the dense path's are, and proves F when it meets
	// it (F checked in exact arithmetic).
	if g := qap.DyadicUnit(w); g > 0 && res.Status != qap.StatusOptimal && f <= math.Ldexp(g, 52) {
		if b := qap.RoundBound(res.Bound, g); b > res.Bound {
			res.Bound = b
			if b >= f && certifies(m, o, w, opt.Ring, b) {
				res.Status, res.Bound = qap.StatusOptimal, f
				res.Notes = append(res.Notes, fmt.Sprintf("the %s bound, rounded up to a multiple of %g (every F is one), proves the ordering optimal", res.BoundSource, g))
			}
		}
	}
	if res.Bound > f {
		res.Bound = f // a bound from rounding that passes F proves nothing beyond F
	}
	res.Gap = qap.RelGap(f, res.Bound)
	if res.Status == qap.StatusOptimal {
		res.Gap = 0
	}
	res.Seconds = time.Since(t0).Seconds()
	out := &OrderResult{Result: *res, Order: curves.Order(o), Candidates: sr.scale, Scalable: true}
	return out, nil
}

// deadlinePassed reports whether ctx has a deadline that is now past.
func deadlinePassed(ctx context.Context) bool {
	dl, ok := ctx.Deadline()
	return ok && !time.Now().Before(dl)
}

// pairBound is the bound every ordering meets: each of the pairs at rank difference t
// is two distinct nodes, at least the machine's shortest node-to-node distance apart
// (1 hop, or 2 on a network whose nodes only reach each other through switches). The
// sum is taken in the order of curves.Objective, each term rounded down from an exact
// integer count, so it never exceeds an F computed there (Exact). It is tight for w =
// (1) on machines with a Hamiltonian path (cycle with ring).
func pairBound(m topo.Machine, w curves.Weights, ring bool) LowerBound {
	n := m.N()
	dmin := 1
	if topo.Vertices(m) > n {
		dmin = 2
		var nb []int
		for v := 0; v < n && dmin == 2; v++ {
			nb = m.Neighbors(v, nb[:0])
			for _, x := range nb {
				if x < n {
					dmin = 1
					break
				}
			}
		}
	}
	total := new(big.Rat)
	for t := 1; t <= curves.LagCount(n, len(w), ring); t++ {
		term := new(big.Rat).SetFloat64(w[t-1])
		total.Add(total, term.Mul(term, new(big.Rat).SetInt64(int64(curves.LagPairs(n, t, ring))*int64(dmin))))
	}
	f, exact := ratFloorFloat(total)
	return LowerBound{Value: f, Source: "pairs", Exact: exact}
}

// certifies reports whether the proven lower bound b, a float64 equal to the bound
// (LowerBound.Exact), is at least F of o computed in exact arithmetic: every float64
// weight is a dyadic rational and the lag sums are integers, so F = sum w(t) D_t is
// summed exactly. Status optimal rests on this test alone, never on a float64 F that
// may have been rounded down onto the bound.
func certifies(m topo.Machine, o []int, w curves.Weights, ring bool, b float64) bool {
	if math.IsInf(b, 0) || math.IsNaN(b) {
		return false
	}
	sums, err := curves.LagSums(m, o, len(w), ring)
	if err != nil {
		return false
	}
	f := new(big.Rat)
	for t, d := range sums {
		term := new(big.Rat).SetFloat64(w[t])
		f.Add(f, term.Mul(term, new(big.Rat).SetInt64(d)))
	}
	return new(big.Rat).SetFloat64(b).Cmp(f) >= 0
}

// mipOnlyOptions names the options set in opt that only the MIP reads (RelGap,
// Formulation, Threads, MaxColumns, Log; the CLI's --gap, --formulation,
// --threads, --max-columns, --log): the scalable path says it ignores them rather
// than ignoring them in silence.
func mipOnlyOptions(opt Options) []string {
	var out []string
	if opt.RelGap != 0 {
		out = append(out, "the MIP gap")
	}
	if opt.Formulation != "" {
		out = append(out, "a formulation")
	}
	if opt.Threads != 0 {
		out = append(out, "HiGHS threads")
	}
	if opt.MaxColumns != 0 && opt.MaxColumns != DefaultMaxColumns {
		out = append(out, "a column cap")
	}
	if opt.Log != nil {
		out = append(out, "HiGHS's log")
	}
	return out
}
