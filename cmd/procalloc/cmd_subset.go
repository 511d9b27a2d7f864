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

	"github.com/procalloc/procalloc/geom"
	"github.com/procalloc/procalloc/internal/textin"
	"github.com/procalloc/procalloc/internal/timelimit"
	"github.com/procalloc/procalloc/plan"
	"github.com/procalloc/procalloc/topo"
)

// subsetAlgo is one algorithm of "procalloc subset". Approximation algorithms (package
// ptas) and exact ones (package exact) register themselves from their own cmd_subset_*.go
// files.
type subsetAlgo struct {
	name    string
	summary string
	run     func(ctx context.Context, in *subsetInput, p subsetParams) (*subsetResult, error)
	// certifies: the algorithm claims optimality (optimal, bound), which needs totals
	// float64 holds exactly (checkExactTotals).
	certifies bool
}

var subsetAlgos = map[string]*subsetAlgo{}

func registerSubsetAlgo(a *subsetAlgo) {
	if _, dup := subsetAlgos[a.name]; dup {
		panic("procalloc: subset algorithm registered twice: " + a.name)
	}
	subsetAlgos[a.name] = a
}

// subsetInput is the point set to choose from.
type subsetInput struct {
	Points []geom.PointF // as read (or the free nodes' coordinates)
	Ints   []geom.Point  // the same points when every coordinate is an integer, else nil
	// With --machine/--free: the machine and, for each point, its node index.
	Machine *topo.Grid
	Nodes   []int
	// Source names the input in messages: the --points or --free file.
	Source string
}

// defaultSolveLimit is the --time-limit default of the commands whose exact solves
// can run for hours: order, plan and subset --algo exact (0: no limit, as given).
const defaultSolveLimit = plan.DefaultTimeLimit

type subsetParams struct {
	K             int
	Eps           float64
	TimeLimit     time.Duration
	Circumference float64 // ring only; 0 when not given
	Progress      *progress
}

// subsetResult is the JSON of "procalloc subset"; Total and Average are recomputed from
// Indices by the command itself, so an algorithm cannot report a total its subset does
// not have.
type subsetResult struct {
	Algo      string   `json:"algo"`
	K         int      `json:"k"`
	Indices   []int    `json:"indices"`
	Nodes     []int    `json:"nodes,omitempty"`
	Total     float64  `json:"total"`
	Average   float64  `json:"average"`
	Guarantee float64  `json:"guarantee"`
	Optimal   *bool    `json:"optimal,omitempty"`
	Bound     *float64 `json:"bound,omitempty"`
	Gap       *float64 `json:"gap,omitempty"`
	Seconds   float64  `json:"seconds"`
	// TimeLimit is the search's time limit in seconds (--time-limit, or its
	// default for --algo exact); absent without one.
	TimeLimit float64 `json:"time_limit,omitempty"`
	// Distance names the metric Total is measured in ("l1", or "ring" for --algo ring).
	Distance string         `json:"distance"`
	Notes    []string       `json:"notes,omitempty"`
	Extra    map[string]any `json:"extra,omitempty"`
}

func init() {
	register(&command{
		name:    "subset",
		summary: "choose k points (or free nodes) with small total pairwise L1 distance",
		usage:   "subset --algo ALGO --k K (--points FILE | --machine SPEC --free FILE) [flags]",
		details: `Chooses k of n points with minimum (or approximately minimum) total pairwise L1
distance, the objective of center-based allocation (Bender et al. 2005).

Points file: one point per line, whitespace-separated coordinates, every line the same
dimension, '#' comments, duplicates allowed; "-" reads standard input. indices in the
output are 0-based positions among the data lines.

With --machine SPEC --free FILE the points are the coordinates of the free nodes listed
in FILE (node indices, whitespace-separated, '#' comments); the output also lists the
chosen node indices. Distances are L1 on mesh coordinates; on a torus the wraparound
links are not used by these solvers (the reported total is the mesh L1 total).

JSON (--json): algo, k, indices, nodes (with --free), total and average (recomputed
by the command from indices), guarantee (the proven ratio; 1 for exact solvers),
optimal, bound and gap (exact solvers), seconds, time_limit (seconds, absent without one), distance (l1, or ring for --algo
ring), notes and extra (what the algorithm adds, e.g. mm's center).` + exactHelp + ptasHelp,
		example: `procalloc subset --algo mm --k 8 --points pts.txt
procalloc subset --algo mm --k 16 --machine mesh:32x32 --free free.txt --json
procalloc subset --algo ptas --k 6 --points pts.txt --eps 0.25 --time-limit 30s -o best.txt
procalloc subset --algo ring --k 4 --points ring.txt --circumference 64`,
		yourFiles: []yourFile{yourPoints, {"free.txt", "your free node indices (0-based), one per line"}, {"ring.txt", "your points on the ring, one number in [0, C) per line"}},
		flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
			algo := fs.String("algo", "", "`ALGO`: "+strings.Join(subsetAlgoNames(), ", ")+" (described above)")
			k := fs.Int("k", 0, "number of points to choose")
			eps := fs.Float64("eps", 0.5, "PTAS accuracy: guaranteed ratio 1+eps or better")
			points := fs.String("points", "", "points `FILE` ('-' for stdin)")
			machine := fs.String("machine", "", "machine `SPEC` (with --free), e.g. mesh:32x32")
			free := fs.String("free", "", "`FILE` of free node indices (with --machine)")
			circ := fs.Float64("circumference", 0, "ring circumference C (--algo ring); points must lie in [0, C)")
			limit := fs.Duration("time-limit", 0, "stop the search after this long: exact searches report the best subset with bound and gap, ptas its best subset so far, mm and mminc fail (counted once the points are read; reading them and writing the output are outside); not given: "+defaultSolveLimit.String()+" for --algo exact, as procalloc order and plan, and no limit for the others (0: no limit)")
			asJSON := fs.Bool("json", false, "print JSON")
			out := fs.String("o", "", "write the result to `FILE` instead of stdout")
			return func(ctx context.Context, e *env, args []string) error {
				if len(args) > 0 {
					return usagef("unexpected arguments %q", args)
				}
				if *algo == "" {
					return usagef("--algo is required: one of %s", strings.Join(subsetAlgoNames(), ", "))
				}
				a, ok := subsetAlgos[*algo]
				if !ok {
					return usagef("unknown --algo %q%s; valid: %s", *algo, textin.DidYouMean(*algo, subsetAlgoNames()), strings.Join(subsetAlgoNames(), ", "))
				}
				// The flags first, before the input is read. A negative --time-limit
				// meant no limit, where cluster, order and bench refuse it.
				if math.IsNaN(*eps) || math.IsInf(*eps, 0) || *eps <= 0 {
					return usagef("--eps %g: must be a positive finite number", *eps)
				}
				if *limit < 0 {
					return usagef("--time-limit %v: must not be negative (0: no limit)", *limit)
				}
				// Taken by every algorithm and ignored by all but one.
				if isFlagGiven(fs, "eps") && a.name != "ptas" {
					return usagef("--eps goes with --algo ptas (%s has a fixed guarantee)", a.name)
				}
				if isFlagGiven(fs, "circumference") && a.name != "ring" {
					return usagef("--circumference goes with --algo ring")
				}
				if !isFlagGiven(fs, "k") {
					return usagef("--k is required: the number of points to choose, e.g. --k 16")
				}
				in, err := readSubsetInput(e, *points, *machine, *free)
				if err != nil {
					return err
				}
				if *k < 1 || *k > len(in.Points) {
					return usagef("--k %d: must be between 1 and the number of points (%d)", *k, len(in.Points))
				}
				if a.certifies {
					if err := checkExactTotals(in, *k, a.name, *circ); err != nil {
						return err
					}
				}
				if a.name == "exact" && !isFlagGiven(fs, "time-limit") {
					// The branch and bound can run for hours (k > n/2 searches
					// too): the default of order's and plan's exact solves.
					*limit = defaultSolveLimit
				}
				p := subsetParams{K: *k, Eps: *eps, TimeLimit: *limit, Circumference: *circ,
					Progress: newProgress(e, "subset "+a.name, 0)}
				if *limit > 0 {
					var cancel context.CancelFunc
					ctx, cancel = timelimit.WithTimeout(ctx, *limit, "--time-limit")
					defer cancel()
				}
				start := time.Now()
				res, err := a.run(ctx, in, p)
				p.Progress.Done()
				if err != nil {
					return err
				}
				res.Seconds, res.TimeLimit = time.Since(start).Seconds(), limit.Seconds()
				if err := finishSubsetResult(in, a.name, *k, res); err != nil {
					return err
				}
				return writeFileAtomic(e, *out, func(w io.Writer) error {
					if *asJSON {
						return writeJSON(w, res)
					}
					return printSubsetResult(w, res)
				})
			}
		},
	})
}

// checkExactTotals refuses inputs on which an exact algorithm's totals could pass
// 2^53, where float64 rounds them: subsets of different totals could compare equal
// and "optimal" would rest on rounding. The largest total is at most C(k,2) times the
// largest distance (the L1 extent of the points' bounding box, on a ring at most C/2).
func checkExactTotals(in *subsetInput, k int, algo string, circ float64) error {
	var diam float64
	lo, hi := slices.Clone(in.Points[0]), slices.Clone(in.Points[0])
	for _, p := range in.Points {
		for j, v := range p {
			lo[j], hi[j] = min(lo[j], v), max(hi[j], v)
		}
	}
	for j := range lo {
		diam += hi[j] - lo[j]
	}
	if algo == "ring" && circ > 0 {
		diam = min(diam, circ/2)
	}
	if most := float64(k) * float64(k-1) / 2 * diam; most >= 1<<53 {
		return fmt.Errorf("%s: %s: totals of %d points can reach %.4g (%d pairs, distances up to %.4g), 2^53 or beyond, where float64 rounds them: optimality could not be certified; shift or rescale the points, or use an approximation algorithm (mm, mminc)",
			algo, in.Source, k, most, k*(k-1)/2, diam)
	}
	return nil
}

func subsetAlgoNames() []string {
	names := make([]string, 0, len(subsetAlgos))
	for n := range subsetAlgos {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

func readSubsetInput(e *env, pointsPath, machineSpec, freePath string) (*subsetInput, error) {
	in := &subsetInput{}
	switch {
	case pointsPath != "" && (machineSpec != "" || freePath != ""):
		return nil, usagef("give either --points or --machine with --free, not both")
	case pointsPath != "":
		r, err := openInput(e, pointsPath)
		if err != nil {
			return nil, err
		}
		defer r.Close()
		pts, err := geom.ReadPoints(r)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", pointsPath, err)
		}
		in.Points, in.Source = pts, pointsPath
	case machineSpec != "" && freePath != "":
		g, err := topo.ParseSpec(machineSpec)
		if err != nil {
			return nil, usagef("--machine: %v", err)
		}
		r, err := openInput(e, freePath)
		if err != nil {
			return nil, err
		}
		defer r.Close()
		nodes, err := readNodeList(r, g.N())
		if err != nil {
			return nil, fmt.Errorf("%s: %w", freePath, err)
		}
		in.Machine, in.Nodes, in.Source = g, nodes, freePath
		var c []int
		for _, v := range nodes {
			c = g.Coord(v, c)
			p := make(geom.PointF, len(c))
			for j, x := range c {
				p[j] = float64(x)
			}
			in.Points = append(in.Points, p)
		}
	default:
		return nil, usagef("give --points FILE, or --machine SPEC with --free FILE")
	}
	if ints, ok := geom.ToInt(in.Points); ok {
		in.Ints = ints
	}
	return in, nil
}

// readNodeList reads whitespace-separated node indices ('#' comments), refusing
// indices outside 0..n-1 and repeats.
func readNodeList(r io.Reader, n int) ([]int, error) {
	// The lines of the nodes read, not a flag per node of the machine: a machine
	// spec may have two billion nodes (2 GB of flags for a list of three).
	seen := map[int]int{}
	var nodes []int
	lines := textin.NewLines(textin.Decompress(r))
	for lines.Next() {
		ln := lines.Line()
		for _, f := range lines.Fields() {
			var v int
			if _, err := fmt.Sscanf(f, "%d", &v); err != nil || fmt.Sprint(v) != f {
				return nil, fmt.Errorf("line %d: %q is not a node index", ln, f)
			}
			if v < 0 || v >= n {
				return nil, fmt.Errorf("line %d: node %d is outside 0..%d", ln, v, n-1)
			}
			if first, dup := seen[v]; dup {
				return nil, fmt.Errorf("line %d: node %d listed twice (first on line %d)", ln, v, first)
			}
			seen[v] = ln
			nodes = append(nodes, v)
		}
	}
	if err := lines.Err(); err != nil {
		return nil, err
	}
	if len(nodes) == 0 {
		return nil, fmt.Errorf("no free nodes listed")
	}
	return nodes, nil
}

// finishSubsetResult checks the indices and recomputes total and average.
func finishSubsetResult(in *subsetInput, algo string, k int, res *subsetResult) error {
	res.Algo, res.K = algo, k
	if len(res.Indices) != k {
		return fmt.Errorf("internal error: %s returned %d indices for k = %d", algo, len(res.Indices), k)
	}
	seen := map[int]bool{}
	for _, i := range res.Indices {
		if i < 0 || i >= len(in.Points) || seen[i] {
			return fmt.Errorf("internal error: %s returned invalid or repeated index %d", algo, i)
		}
		seen[i] = true
	}
	if res.Distance == "" {
		res.Distance = "l1"
		res.Total = geom.PairwiseL1Subset(in.Points, res.Indices)
	}
	if k > 1 {
		res.Average = res.Total / float64(k*(k-1)/2)
	}
	if in.Nodes != nil {
		res.Nodes = make([]int, k)
		for j, i := range res.Indices {
			res.Nodes[j] = in.Nodes[i]
		}
	}
	return nil
}

func printSubsetResult(w io.Writer, res *subsetResult) error {
	fmt.Fprintf(w, "algorithm   %s\nk           %d\ntotal       %s\naverage     %s\nguarantee   %s\n",
		res.Algo, res.K, fmtNum(res.Total), fmtNum(res.Average), fmtNum(res.Guarantee))
	if res.Optimal != nil {
		fmt.Fprintf(w, "optimal     %v\n", *res.Optimal)
	}
	if res.Bound != nil {
		fmt.Fprintf(w, "bound       %s\n", fmtNum(*res.Bound))
	}
	if res.Gap != nil {
		fmt.Fprintf(w, "gap         %.4g\n", *res.Gap)
	}
	fmt.Fprintf(w, "seconds     %.3f\n", res.Seconds)
	if res.TimeLimit > 0 {
		fmt.Fprintf(w, "time limit  %s\n", time.Duration(res.TimeLimit*float64(time.Second)))
	}
	fmt.Fprintf(w, "indices     %s\n", joinInts(res.Indices))
	if res.Nodes != nil {
		fmt.Fprintf(w, "nodes       %s\n", joinInts(res.Nodes))
	}
	for _, n := range res.Notes {
		fmt.Fprintf(w, "note        %s\n", n)
	}
	return nil
}

func fmtNum(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return fmt.Sprintf("%d", int64(v))
	}
	return fmt.Sprintf("%.6g", v)
}

func joinInts(xs []int) string {
	var sb strings.Builder
	for i, x := range xs {
		if i > 0 {
			sb.WriteByte(' ')
		}
		fmt.Fprint(&sb, x)
	}
	return sb.String()
}
