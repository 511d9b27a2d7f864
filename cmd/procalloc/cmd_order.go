package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/ilp"
	"github.com/procalloc/procalloc/ilp/highs"
	"github.com/procalloc/procalloc/internal/textin"
	"github.com/procalloc/procalloc/internal/timelimit"
	"github.com/procalloc/procalloc/order"
	"github.com/procalloc/procalloc/qap"
	"github.com/procalloc/procalloc/topo"
)

// orderOutput is the JSON of "procalloc order". Objective is recomputed by
// curves.Objective from Order (for --qap: by the QAP objective from Assignment).
type orderOutput struct {
	Machine     string             `json:"machine,omitempty"`
	QAP         string             `json:"qap,omitempty"`
	N           int                `json:"n"`
	Weights     string             `json:"weights,omitempty"`
	Ring        bool               `json:"ring"`
	Method      string             `json:"method"`
	Status      string             `json:"status"`
	Objective   float64            `json:"objective"`
	Bound       *float64           `json:"bound"`
	Gap         *float64           `json:"gap"`
	BoundSource string             `json:"bound_source"`
	Formulation string             `json:"formulation"`
	Symmetry    string             `json:"symmetry,omitempty"`
	Order       intList            `json:"order"`
	Hierarchy   *orderHierarchy    `json:"hierarchy,omitempty"`
	Start       float64            `json:"start_objective"`
	StartFrom   string             `json:"start_from"`
	Curves      map[string]float64 `json:"curves,omitempty"`
	MIP         *orderMIP          `json:"mip,omitempty"`
	BB          *orderBB           `json:"bb,omitempty"`
	Seconds     float64            `json:"seconds"`
	Notes       []string           `json:"notes,omitempty"`
}

type orderHierarchy struct {
	Groups int `json:"groups"`
}

// orderBB reports the branch and bound (--method bb).
type orderBB struct {
	Nodes int64 `json:"nodes"`
}

type orderMIP struct {
	Status  string  `json:"status"`
	Columns int     `json:"columns"`
	Rows    int     `json:"rows"`
	Nodes   int64   `json:"nodes"`
	Obj     float64 `json:"objective"`
}

func init() {
	register(&command{
		name:    "order",
		summary: "optimal node ordering (minimum F) by branch and bound, DP or the integer program (HiGHS), with a certificate; large machines by a scalable local search; also QAPLIB",
		usage:   "order (--graph FILE | --machine SPEC) --weights SPEC [--ring] [flags] | order --qap FILE [flags]",
		details: `Finds a 1D ordering of a machine's nodes minimizing
  F = sum over node pairs of w(rank difference) x hop distance
(Leung et al. 2002 §2.2; with --ring the rank difference is taken around the ring, for
ring span). It is a quadratic assignment problem with a Toeplitz (circulant) flow
matrix, NP-hard (w = (1) is Hamiltonian path / cycle).

Method (--method):
  auto   the default: bb up to 30 nodes (facilities); else dp when small enough
         (about 3e7 states), else mip (local without HiGHS); above 256 nodes the
         scalable path (below)
  mip    local search from every applicable curve and BFS orders (the warm start),
         lower bounds (Gilmore-Lawler, window decomposition), then, unless a bound
         already proves the warm start optimal, the MIP through HiGHS (needs a build
         with -tags highs after 'make highs')
  bb     branch and bound, no HiGHS: for orderings rank by rank with a walk bound
         (dynamic program over the last K nodes), dominance and the machine's
         automorphisms; for --qap the Gilmore-Lawler branch and bound. Proves 16-node
         orderings with K = 3 and QAPLIB instances of 12-16 facilities in seconds
  dp     exact dynamic program over subsets, no HiGHS (at most 22 nodes; about 16
         finish in seconds; beyond, an error naming the method that applies)
  local  local search + lower bounds only (also --no-mip)
The dense methods build n x n tables and prove optimality on small machines; above
256 nodes every method but dp takes the scalable path instead, in memory O(n + K) (a
machine whose estimate passes 8 GiB is refused, the estimate in the error):
  - starting orderings, scored within the time limit (the --start orderings always,
    up to half a second past it or Ctrl-C): every curve that applies
    (spectral only when it should finish in time), BFS orders from node 0 and from a
    node farthest from it, the --start orderings, the structure-aware starts of the
    machine (fabrics: switch by switch), and a multilevel ordering (a grid coarsened
    into 2-boxes, a fabric into its leaf switches; the coarse machine ordered the same
    way, expanded);
  - a line search from the best of them: swaps, segment moves (Or-opt) and segment
    reversals, each scored from the few rank pairs it changes (O(K) to O(K^2)
    distances), then iterated local search until the time limit (without one: a
    fixed number of kicks);
  - bounds that need no n x n table (bound_source "pairs": every pair at least one
    hop, or two on a switched fabric; "ultrametric": the laminar bound of a switched
    fabric's hierarchy, which proves fat trees and dragonflies optimal;
    "grid-window-L": the cheapest L consecutive ranks of a mesh or torus, at any
    size). status is optimal only when an exact bound meets the objective, F
    recomputed in exact arithmetic, else time_limit, interrupted or heuristic, with
    the gap.
The result is never worse than any starting ordering: "curves" lists F of every one
the solve scored (the curves by name, bfs-node0, bfs-far, start:NAME, structured:NAME,
multilevel), all computed inside the time limit but the --start ones, which are
scored even when the limit has passed, so that a start given is never lost.
Formulations (--formulation, MIP only): window (runs of K+1 ranks), window3 (runs of 3
ranks plus pair variables), aj (Adams-Johnson pairs), aj-sym (aggregated pairs);
default: chosen by size. See docs/ilp.md.

Certificate: bound is a proven lower bound on the optimal F (HiGHS's dual bound, the
Gilmore-Lawler bound, the window-decomposition bound, or the DP: bound_source), gap = (objective - bound) / objective. status is
optimal, time_limit, interrupted, gap_limit, heuristic (no MIP ran) or unproven (HiGHS
said done but its bound does not meet F, or the data are integers too large for float64
to sum exactly; see the notes). objective is F of the printed order, recomputed by the
same function that scores curves. When all weights (all --qap entries) are dyadic
(1, 0.5, 0.25, ...) every F is a multiple of the finest unit g, the bound is rounded up
to such a multiple, and optimal means bound = F exactly; past 2^52 g float64 rounds F,
and no result is certified. Other data (0.1, 1/3) are rounded when read: optimal then
means the bound is within a relative 1e-9 of F (said in the notes). The time limit covers the whole solve (starting
orderings included; seconds is its wall time). Ctrl-C stops any phase within a second
and prints the best ordering found with its bound (exit status 130).
Reproducibility: a solve that ends before its time limit gives the same order, F and
bound on every machine for a --seed; one the limit stopped (status time_limit; above
256 nodes every solve a bound does not prove optimal first) depends on the machine's
speed and load. --time-limit 0 (none) makes the scalable path's search a fixed
amount of work, the same everywhere. The branch and bound's node count (bb's nodes
in --json) varies between runs with its 2 workers (--threads 1: one worker).

Graphs of up to 256 nodes whose processors are grouped under switches (%group lines)
are ordered switch by switch (groups stay contiguous) unless --flat; a curve that
scores better is returned instead (said in the notes). The scalable path never keeps
groups contiguous by force; it uses them for its starts. Weights beyond the largest rank
difference (K >= n) are allowed and unused. Disconnected graphs are errors.

--qap FILE solves a general QAP in QAPLIB format (n, matrix A, matrix B; objective
sum A[i][j] B[p(i)][p(j)]); order is then p (0-based, location of each facility).
Its numbers are at most 64 KiB long each, n at most 5000.

With -o FILE the ordering is written as a ranking file (--format, default from the
extension, else pairs) and the summary goes to stdout; with --qap, -o FILE takes the
report (the table, or the JSON with --json) instead of stdout. Without -o the table's
order line holds an ordering of up to 64 entries in full, a longer one as its first and
last 10 (the whole of it: -o FILE, or --json). The launchers' formats
(hosts, rankfile) take --ranks-per-host K as curve does: K consecutive MPI ranks on
each host in the ordering's order (each host's line K times).`,
		example: `procalloc order --machine torus:4x4 --weights list:1,0.5 --json
procalloc order --graph order/testdata/cplant-dev.txt --weights exp:2:3 --ring --time-limit 5m -o net.pairs
procalloc order --machine torus:8x8 --weights exp:2:3 --time-limit 60s --gap 0.01
procalloc order --machine mesh:4x4 --weights list:1,0.5,0.25 --method dp
procalloc order --machine torus:4x4 --weights list:1,0.5,0.25 --ring --method auto
procalloc order --machine mesh:32x32 --weights exp:2:3 --time-limit 10s --json
procalloc order --machine fattree:16,16:16,16:32 --weights exp:2:4 --time-limit 60s
procalloc order --qap ../shared/qaplib/nug12.dat --method bb
procalloc order --qap ../shared/qaplib/chr12a.dat --json -o chr12a.json
procalloc order --graph topo/testdata/fattree.ibnetdiscover --graph-format ibnetdiscover --node-name-map topo/testdata/fattree.node-name-map --weights list:1,0.5 --flat --no-mip
procalloc order --graph topo/testdata/topology.yaml --topology fabric --weights list:1,0.5 --start rcm,opt.pairs --seed 3 -o opt.ranks --format ranks
procalloc order --graph topo/testdata/fattree.ibnetdiscover --node-name-map topo/testdata/fattree.node-name-map --weights list:1,0.5 -o job.hosts --ranks-per-host 4
procalloc order --machine mesh:6x6 --weights list:1,0.5 --formulation window3 --max-columns 200000 --threads 2 --log`,
		yourFiles: []yourFile{yourOptPairs},
		flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
			machine := fs.String("machine", "", "machine `SPEC`, e.g. mesh:4x4, torus:8x8")
			gf := declareGraphFlags(fs)
			qapFile := fs.String("qap", "", "solve a QAPLIB-format `FILE` instead of an ordering")
			weights := fs.String("weights", "", "weights `SPEC`: list:W1,W2,... (w(t) for t = 1, 2, ...) or exp:B:K (w(t) = B^(1-t), t <= K)")
			ring := fs.Bool("ring", false, "measure rank differences around the ring (ring span)")
			limit := fs.Duration("time-limit", defaultSolveLimit, "stop the solve after this long and report the best ordering with its bound (counted once the network is read; reading it and writing the output are outside) (0: none)")
			gap := fs.Float64("gap", 0, "stop the MIP at this relative gap (0: prove optimality)")
			threads := fs.Int("threads", 0, "HiGHS threads, and the branch and bound's workers (0: HiGHS's default, 2 workers)")
			seed := fs.Uint64("seed", 1, "seed of the local search and HiGHS")
			method := fs.String("method", string(order.MethodAuto), "solution `METHOD`: "+joinNames(order.Methods())+" (auto: branch and bound up to 30 nodes, else the DP when small, else the MIP; above 256 nodes the scalable path)")
			noMIP := fs.Bool("no-mip", false, "do not run HiGHS: local search and the Gilmore-Lawler bound only (= --method local)")
			formulation := fs.String("formulation", "", "MIP `FORMULATION`: "+joinNames(ilp.Formulations())+" (default: by size)")
			maxCols := fs.Int("max-columns", order.DefaultMaxColumns, "largest MIP, in columns (HiGHS needs about 2 KB of memory per column); a larger model is not built: local search and bounds only, said in the notes")
			flat := fs.Bool("flat", false, "ignore the graph's groups (switches) and order all nodes at once")
			start := fs.String("start", "", "extra starting `ORDERS`: comma-separated curve names or ranking files")
			out := fs.String("o", "", "write the ordering as a ranking `FILE` (summary to stdout)")
			format := fs.String("format", "", "ranking `FORMAT` for -o: pairs, ranks, order, json, hosts, rankfile, ... (curve --format's; default: from the extension, else pairs)")
			ranksPerHost := declareRanksPerHost(fs)
			asJSON := fs.Bool("json", false, "print the summary as JSON")
			logHiGHS := fs.Bool("log", false, "show HiGHS's log on stderr")
			return func(ctx context.Context, e *env, args []string) error {
				if len(args) > 0 {
					return usagef("unexpected arguments %q", args)
				}
				if *noMIP {
					explicit := false
					fs.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "method" })
					if explicit && *method != string(order.MethodLocal) {
						return usagef("--no-mip means --method local; it contradicts --method %s", *method)
					}
					*method = string(order.MethodLocal)
				}
				meth, err := order.ParseMethod(*method)
				if err != nil {
					return usagef("--method %q: want %s%s", *method, joinNames(order.Methods()), textin.DidYouMean(*method, namesOf(order.Methods())))
				}
				var form ilp.Formulation
				if *formulation != "" {
					if form, err = ilp.ParseFormulation(*formulation); err != nil {
						return usagef("--formulation %q: want %s%s", *formulation, joinNames(ilp.Formulations()), textin.DidYouMean(*formulation, namesOf(ilp.Formulations())))
					}
				}
				if math.IsNaN(*gap) || *gap < 0 || *gap >= 1 {
					return usagef("--gap %g: must be in [0, 1)", *gap)
				}
				if *limit < 0 {
					return usagef("--time-limit %v: must not be negative (0: no limit)", *limit)
				}
				if *threads < 0 {
					return usagef("--threads %d: must not be negative (0: HiGHS default)", *threads)
				}
				if *maxCols < 1 {
					return usagef("--max-columns %d: must be positive", *maxCols)
				}
				// The ranking's format for -o: --format, else -o's extension, else
				// pairs.
				outFormat := func() (curves.Format, error) {
					if *format != "" {
						return curves.ParseFormat(*format)
					}
					if f, ok := curves.FormatFromPath(*out); ok {
						return f, nil
					}
					return curves.FormatPairs, nil
				}
				if isFlagGiven(fs, "ranks-per-host") {
					// Refused before the solve, which may take its whole time limit.
					if *out == "" || *qapFile != "" {
						return usagef("--ranks-per-host goes with -o FILE, an ordering's ranking (not --qap), in --format hosts (hostfile) or rankfile")
					}
					f, err := outFormat()
					if err := ranksPerHost.check(f, err == nil); err != nil {
						return err
					}
				}
				opt := order.Options{Method: meth, Formulation: form, MaxColumns: *maxCols, RelGap: *gap, Threads: *threads, Seed: *seed}
				if *logHiGHS {
					opt.Log = e.stderr
				}
				prog := newProgress(e, "order", 0)
				opt.Progress = func(p highs.Progress) {
					inc := "-"
					if !math.IsInf(p.Incumbent, 0) && p.Incumbent < 1e300 {
						inc = fmtNum(p.Incumbent)
					}
					status := fmt.Sprintf("incumbent %s  bound %s  gap %.2f%%", inc, fmtNum(p.Bound), 100*p.Gap)
					if p.Nodes > 0 { // branch-and-bound nodes (the MIP); the local search has none
						status += fmt.Sprintf("  nodes %d", p.Nodes)
					}
					prog.Update(0, status)
				}
				// The time limit is the solve's deadline, counted from here on.
				solveCtx := func() (context.Context, context.CancelFunc) {
					if *limit > 0 {
						return timelimit.WithTimeout(ctx, *limit, "--time-limit")
					}
					return context.WithCancel(ctx)
				}
				var o *orderOutput
				var m topo.Machine
				var ws curves.Weights
				if *qapFile != "" {
					var given []string
					for _, f := range []struct {
						name string
						set  bool
					}{{"--machine", *machine != ""}, {"--graph", gf.file != ""}, {"--weights", *weights != ""}, {"--ring", *ring}, {"--start", *start != ""}} {
						if f.set {
							given = append(given, f.name)
						}
					}
					if len(given) > 0 {
						// A QAPLIB instance brings both its matrices: there is no machine or weight.
						return usagef("--qap takes no %s: the instance's two matrices are the whole problem (no --machine, --graph, --weights, --ring or --start)", strings.Join(given, ", "))
					}
					if meth == order.MethodDP {
						return usagef("--method dp solves orderings, not general QAPs")
					}
					if *format != "" {
						return usagef("--format writes ranking files, and a QAP's assignment is none: with --qap, -o FILE takes the report (the table, or the JSON with --json)")
					}
					if meth == order.MethodMIP && !highs.Available() {
						return orderNeedHiGHS()
					}
					sctx, cancel := solveCtx()
					o, err = orderQAP(sctx, e, *qapFile, opt)
					cancel()
				} else {
					if *weights == "" {
						return usagef("--weights is required (e.g. list:1,0.5,0.25 or exp:2:3)")
					}
					if ws, err = curves.ParseWeights(*weights); err != nil {
						return usagef("--weights: %v", err)
					}
					if m, err = loadMachine(ctx, e, *machine, gf); err != nil {
						return err
					}
					f := curves.Format(*format)
					if ff, ok := curves.FormatFromPath(*out); ok && f == "" {
						f = ff
					}
					if *out != "" && (f == curves.FormatHosts || slices.Contains(curves.SchedulerFormats(), f)) && curves.NodeNames(m) == nil {
						// Checked before the solve: node indices are no host names.
						return usagef("--format %s names hosts, and %s has none: write the ordering (-o FILE.pairs) and convert it with procalloc curve --curve FILE.pairs --format %s --hosts FILE", f, m.Spec(), f)
					}
					oo := order.OrderOptions{Options: opt, Ring: *ring, Flat: *flat}
					if *start != "" {
						names, err := nameList("--start", *start, "start")
						if err != nil {
							return err
						}
						for _, s := range names {
							so, err := curveResolve(ctx, e, s, "", m, nil)
							if err != nil {
								return err
							}
							oo.Starts = append(oo.Starts, order.Start{Name: s, P: so})
						}
					}
					if meth == order.MethodMIP && !highs.Available() {
						return orderNeedHiGHS()
					}
					sctx, cancel := solveCtx()
					o, err = orderMachine(sctx, m, ws, oo)
					cancel()
				}
				prog.Done()
				if err != nil {
					return err
				}
				if *qapFile != "" && *out != "" {
					// No ranking: -o takes what would go to stdout, as in every other command.
					return writeFileAtomic(e, *out, func(w io.Writer) error {
						if *asJSON {
							return writeJSON(w, o)
						}
						return printOrder(w, o, orderFull)
					})
				}
				if *out != "" {
					f, err := outFormat()
					if err != nil {
						return usagef("--format: %v", err)
					}
					meta := curves.RankingMeta{Machine: m.Spec(), Curve: fmt.Sprintf("optimal-F %s ring=%v (%s)", ws, *ring, o.Status)}
					warnLaunchers(e, "order", f, curves.NodeNames(m))
					if err := writeFileAtomic(e, *out, ranksPerHost.writer(f, curves.Order(o.Order), meta, curves.NodeNames(m))); err != nil {
						return err
					}
				} else if *format != "" {
					return usagef("--format needs -o FILE")
				}
				if *asJSON {
					return writeJSON(e.stdout, o)
				}
				shown := orderEnds
				if *out != "" {
					shown = orderNone
				}
				return printOrder(e.stdout, o, shown)
			}
		},
	})
}

// orderNeedHiGHS is the error for a MIP request in a build without HiGHS.
func orderNeedHiGHS() error {
	return fmt.Errorf("%v\n(or run without HiGHS: --method auto, the default, or bb: branch and bound up to about 30 nodes; dp for small orderings; local / --no-mip for local search with a lower bound)", highs.ErrNotAvailable)
}

// joinNames lists the names of a typed enumeration (methods, formulations).
func joinNames[T ~string](xs []T) string { return strings.Join(namesOf(xs), ", ") }

// namesOf returns the names of a list of choices as strings.
func namesOf[T ~string](xs []T) []string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = string(x)
	}
	return s
}

// verifyGrace is how long the verifier of an ordering's objective may run on after
// the time limit or Ctrl-C ended the solve (a variable for tests).
var verifyGrace = 500 * time.Millisecond

func orderMachine(ctx context.Context, m topo.Machine, w curves.Weights, opt order.OrderOptions) (*orderOutput, error) {
	res, err := order.SolveOrdering(ctx, m, w, opt)
	if err != nil {
		return nil, err
	}
	// The verifier: F of the returned order, by the function that scores every curve.
	// It is O(n K) distances, seconds on a large edge list (each distance a search):
	// it gets verifyGrace past the time limit or Ctrl-C, and the result keeps its
	// solver's F with a note when it runs out (it ran on for 4 s, and the watchdog
	// then dropped the best ordering after Ctrl-C on a 2 x 10^5-node edge list).
	vctx, cancel := timelimit.Grace(ctx, verifyGrace)
	f, err := curves.ObjectiveContext(vctx, m, res.Order, w, opt.Ring)
	stopped := err != nil && vctx.Err() != nil
	cancel()
	switch {
	case stopped:
		res.Notes = append(res.Notes, fmt.Sprintf("objective not re-verified: its recomputation from the order was stopped %v after the solve (%v)", verifyGrace, context.Cause(ctx)))
	case err != nil:
		return nil, fmt.Errorf("verifier: %w", err)
	case f != res.Objective:
		return nil, fmt.Errorf("internal error: reported F %v, verifier %v", res.Objective, f)
	}
	o := fillOrderOutput(&res.Result)
	o.Machine, o.N, o.Weights, o.Ring = m.Spec(), m.N(), w.String(), opt.Ring
	o.Method = string(opt.Method)
	if o.Method == "" {
		o.Method = string(order.MethodMIP)
	}
	if opt.Method == order.MethodAuto {
		o.Method = "auto:" + res.BoundSource
		if res.Scalable {
			o.Method = "auto:scalable"
		}
	}
	o.Order = intList(res.Order)
	if res.Hierarchical {
		o.Hierarchy = &orderHierarchy{Groups: res.Groups}
	}
	// The scores of the starting orderings the solve evaluated itself, within its time
	// limit (nothing is computed after it): objective <= every one of them.
	o.Curves = res.Candidates
	return o, nil
}

func orderQAP(ctx context.Context, e *env, path string, opt order.Options) (*orderOutput, error) {
	r, err := openInput(e, path)
	if err != nil {
		return nil, err
	}
	q, err := qap.ReadQAPLIB(r)
	r.Close()
	if err != nil {
		return nil, fmt.Errorf("--qap %s: %w", path, err)
	}
	res, err := order.SolveQAP(ctx, q, nil, opt)
	if err != nil {
		return nil, err
	}
	if err := q.CheckPerm(res.Assignment); err != nil {
		return nil, fmt.Errorf("internal error: %w", err)
	}
	res.Objective = q.Objective(res.Assignment)
	o := fillOrderOutput(res)
	o.QAP, o.N, o.Order = path, q.N, res.Assignment
	o.Method = string(opt.Method)
	if o.Method == "" {
		o.Method = string(order.MethodMIP)
	}
	if opt.Method == order.MethodAuto {
		o.Method = "auto:" + res.BoundSource
	}
	return o, nil
}

func fillOrderOutput(r *order.Result) *orderOutput {
	o := &orderOutput{Status: string(r.Status), Objective: r.Objective, BoundSource: r.BoundSource,
		Formulation: string(r.Formulation), Symmetry: r.Symmetry, Start: r.StartObjective, StartFrom: r.StartSource,
		Seconds: r.Seconds, Notes: r.Notes}
	if !math.IsInf(r.Bound, 0) && !math.IsNaN(r.Bound) {
		b, g := r.Bound, r.Gap
		o.Bound, o.Gap = &b, &g
	}
	switch {
	case o.Formulation != "":
	case r.BoundSource == "dp": // the dynamic program: its own certificate, no MIP
		o.Formulation = "dp"
	default:
		o.Formulation = "none"
	}
	if r.MIPStatus != "" {
		o.MIP = &orderMIP{Status: r.MIPStatus, Columns: r.MIPColumns, Rows: r.MIPRows, Nodes: r.Nodes, Obj: r.MIPObjective}
	}
	if r.MIPStatus == "" && r.Nodes > 0 {
		o.BB = &orderBB{Nodes: r.Nodes}
	}
	return o
}

// How printOrder shows the ordering: not at all (-o took it), in full (a
// report file), or at most orderShown entries in full and a longer one by its
// first and last orderEndsOf (on a terminal, 10^5 numbers on one line are no
// summary).
const (
	orderNone = iota
	orderFull
	orderEnds

	orderShown  = 64
	orderEndsOf = 10
)

// orderLine is the table's order line: the ordering, or its ends when it is
// longer than orderShown and mode is orderEnds.
func orderLine(xs []int, mode int) string {
	if mode == orderFull || len(xs) <= orderShown {
		return joinInts(xs)
	}
	return fmt.Sprintf("%s ... %s (%d entries: the first and last %d; all of them with -o FILE or --json)",
		joinInts(xs[:orderEndsOf]), joinInts(xs[len(xs)-orderEndsOf:]), len(xs), orderEndsOf)
}

func printOrder(w io.Writer, o *orderOutput, mode int) error {
	src := o.Machine
	if o.QAP != "" {
		src = "qap " + o.QAP
	}
	fmt.Fprintf(w, "instance     %s (n = %d)\n", src, o.N)
	if o.Weights != "" {
		fmt.Fprintf(w, "weights      %s  ring=%v\n", o.Weights, o.Ring)
	}
	fmt.Fprintf(w, "method       %s  formulation %s\n", o.Method, o.Formulation)
	fmt.Fprintf(w, "status       %s\n", o.Status)
	fmt.Fprintf(w, "objective    %s\n", fmtNum(o.Objective))
	if o.Bound != nil {
		fmt.Fprintf(w, "bound        %s (%s)\n", fmtNum(*o.Bound), o.BoundSource)
		fmt.Fprintf(w, "gap          %.4g%%\n", 100**o.Gap)
	} else {
		fmt.Fprintf(w, "bound        none\n")
	}
	fmt.Fprintf(w, "start        %s (%s)\n", fmtNum(o.Start), o.StartFrom)
	if len(o.Curves) > 0 {
		names := make([]string, 0, len(o.Curves))
		for n := range o.Curves {
			names = append(names, n)
		}
		slices.Sort(names)
		var sb strings.Builder
		for i, n := range names {
			if i > 0 {
				sb.WriteString("  ")
			}
			fmt.Fprintf(&sb, "%s %s", n, fmtNum(o.Curves[n]))
		}
		fmt.Fprintf(w, "curves       %s\n", sb.String())
	}
	if o.MIP != nil {
		fmt.Fprintf(w, "mip          %s, %d columns, %d rows, %d nodes\n", o.MIP.Status, o.MIP.Columns, o.MIP.Rows, o.MIP.Nodes)
	}
	if o.BB != nil {
		fmt.Fprintf(w, "bb           %d nodes\n", o.BB.Nodes)
	}
	fmt.Fprintf(w, "seconds      %.3f\n", o.Seconds)
	for _, n := range o.Notes {
		fmt.Fprintf(w, "note         %s\n", n)
	}
	if mode != orderNone {
		fmt.Fprintf(w, "order        %s\n", orderLine(o.Order, mode))
	}
	return nil
}
