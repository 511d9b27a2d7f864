package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/bench"
	"github.com/procalloc/procalloc/internal/textin"
	"github.com/procalloc/procalloc/plot"
	"github.com/procalloc/procalloc/sim"
	"github.com/procalloc/procalloc/topo"
)

func init() {
	register(&command{
		name:    "bench",
		summary: "how fast an allocator is on your machine: decisions per second, decision latency (median, p99, max), memory",
		usage:   "bench (--machine SPEC | --graph FILE) --alloc SPEC1,SPEC2,... [--trace FILE | --seed S] [--jobs N] [--json] [--svg FILE]",
		details: `Measures each allocator on one workload, one allocator after the other: the
time inside its Allocate and Release calls (not the replay around them: scheduling and
metrics are not counted), as decisions per second (decisions over the time in both),
the latency of one decision (nearest-rank median and 99th percentile, maximum, mean),
the mean of one release, the time to build it, the heap it holds at the end and the
bytes it allocates per decision. The first row is the floor: each decision reads the
free set once (lists the free nodes from the free map) and takes the first k, what
any allocator that looks at its whole input pays; an allocator that keeps an index
of the free nodes of its own (the curve allocators: freelist, ff, bf, sos) need not,
and can be faster than the floor. The table ends with these explanations.

The workload is the same for every allocator: the order in which jobs start and end.
With --trace it is the order of "procalloc sim" on that trace and machine (--sched,
--compat, --contract as in sim; the first --jobs N jobs, all by default); the
schedulers decide from free counts only, so every allocator that places any k <= free
nodes meets the same requests; --drop-larger leaves out the jobs larger than the
machine, as in sim. Only the jobs' sizes and order are read, never their recorded
nodes: an sacct history naming hosts the machine lacks (retired or renamed) is
measured whole, as sim replays it with any allocator but as-run (so bench has no
--drop-unknown-hosts), and as-run, which places jobs on their recorded nodes, is
refused. Without --trace it is the synthetic stream: --jobs N
jobs (default 2000) of log-uniform sizes 1..n/8 (seeded by --seed), each started once
it fits, running jobs chosen at random ending while it does not fit or more than 3/4
of the machine would be busy. A trace with a job larger than the machine is refused,
naming the first such job, unless --drop-larger; an allocator that does not apply to the machine is refused
before anything is measured, with what it needs (a mesh or torus, no wraparound, ...).
An allocator that fails during its run (one that cannot place every request that
fits the free count, such as bt or slurm:block) gets its error in its row; the others
still run, and the command exits 1.

Every allocation is checked (k distinct free nodes). Times are wall-clock on the
monotonic clock around each call, so they include the machine's other load: run it on
a quiet machine and compare figures from one run. The center-based allocators'
decision memo is on, as in a replay (--no-memo: every decision searched). --time-limit
ends each allocator's run after that long with the decisions made (marked partial;
a decision under way is finished first, so that the next allocator runs alone).
Ctrl-C stops within a second and writes what was measured (exit 130).

The table is printed by default; --json for machines; --svg FILE draws each
allocator's decision latency at the 10th to 100th percentiles (a log scale when the
figures span more than two decades). --json: machine, nodes, workload, jobs,
percentiles (the points, in percent, of every row's percentiles_us), floor and allocs
(one object per row: alloc, decisions, releases, allocate_seconds, release_seconds,
decisions_per_second, latency {median_us, p99_us, max_us, mean_us}, release_mean_us,
percentiles_us, build_seconds, heap_bytes, alloc_bytes_per_decision, complete,
error), and after Ctrl-C interrupted and not_run (the allocators left unmeasured).
The row Ctrl-C cut has no memory figures: heap_bytes and alloc_bytes_per_decision
are 0 in JSON and "-" in the table.`,
		example: `procalloc bench --machine mesh:64x64 --alloc bf:hilbert,mc1x1,mm,genalg
procalloc bench --machine torus:32x32x32 --alloc mc1x1,bf:hilbert3d --jobs 500 --time-limit 60s --json
procalloc bench --machine mesh:16x16 --trace sim/testdata/LLNL-T3D-1996-2.converted.txt.gz --compat premas --alloc mm,genalg,mc1x1 --svg latency.svg
procalloc bench --graph topo/testdata/fattree.ibnetdiscover --alloc bf:rcm,genalg --jobs 1000
procalloc bench --machine mesh:8x8 --trace sim/testdata/KTH-SP2-1996-2.converted.txt.gz --drop-larger --alloc mm,bf:gilbert
procalloc bench --machine mesh:32x32 --trace ../shared/traces/KTH-SP2-1996-2.1-cln.swf.gz --format swf --sched easy --contract 0.8 --alloc mm,mc1x1 --no-memo -o bench.txt
procalloc bench --graph topo/testdata/topology.yaml --graph-format slurm-topology-yaml --topology fabric --alloc bf:rcm --seed 5
procalloc bench --graph topo/testdata/fattree.ibnetdiscover --node-name-map topo/testdata/fattree.node-name-map --alloc genalg`,
		flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
			machine := fs.String("machine", "", "machine `SPEC`, e.g. mesh:64x64, torus:32x32x32, fattree:16,16:16,16:32")
			gf := declareGraphFlags(fs)
			allocs := fs.String("alloc", "", "comma-separated allocator `SPECS` (as sim's --alloc; mc1x1:tb=3,9,3,2 keeps its commas)")
			trace := fs.String("trace", "", "workload trace `FILE` (as sim's; '-' for stdin); without it the synthetic stream")
			format := fs.String("format", "", "trace format: swf, converted, sacct, or empty to detect it")
			sched := fs.String("sched", "fcfs", "scheduler of the trace's replay: fcfs, easy or cplant")
			compat := fs.String("compat", "", "conventions: premas, sst, or empty for procalloc's (the allocators' and the scheduler's)")
			contract := fs.Float64("contract", 1, "arrival contraction of the trace (as sim's)")
			dropLarger := fs.Bool("drop-larger", false, "drop the trace's jobs larger than the machine (counted in the workload line) instead of refusing the trace (as sim's)")
			jobs := fs.Int("jobs", 0, "`N` jobs: the trace's first N (default all), or the synthetic stream's length (default 2000, at most 16777216)")
			seed := fs.Uint64("seed", 1, "seed of the synthetic stream")
			noMemo := fs.Bool("no-memo", false, "search every decision anew (MM, Gen-Alg, MM+Inc, MC1x1 otherwise remember answers to a request on a free set met before)")
			timeLimit := fs.Duration("time-limit", 0, "end each allocator's run after `D` (e.g. 60s; each run's own, counted from its start, so the command takes up to D per allocator; writing the output is outside), with the decisions made; 0: no limit")
			asJSON := fs.Bool("json", false, "print JSON")
			svgOut := fs.String("svg", "", "also write the latency chart to `FILE` (SVG)")
			out := fs.String("o", "", "write the result to `FILE` instead of stdout")
			return func(ctx context.Context, e *env, args []string) error {
				if len(args) > 0 {
					return usagef("unexpected arguments %q", args)
				}
				specs, err := allocList(*allocs)
				if err != nil {
					return err
				}
				if *machine == "" && gf.file == "" {
					return usagef("--machine SPEC or --graph FILE is required, e.g. --machine mesh:64x64")
				}
				if *jobs < 0 || (*jobs == 0 && isFlagGiven(fs, "jobs")) {
					return usagef("--jobs %d: must be at least 1", *jobs)
				}
				if *timeLimit < 0 {
					return usagef("--time-limit %v: must not be negative", *timeLimit)
				}
				if *trace == "" {
					for _, name := range []string{"format", "sched", "contract", "drop-larger"} {
						if isFlagGiven(fs, name) {
							return usagef("--%s goes with --trace", name)
						}
					}
				} else if isFlagGiven(fs, "seed") {
					return usagef("--seed sets the synthetic stream; with --trace the workload is the trace's")
				}
				m, err := loadMachineLimit(ctx, e, *machine, gf, sim.MaxNodes, "bench handles (as a replay)")
				if err != nil {
					return err
				}
				cmpt, err := sim.ParseCompat(*compat) // sim's and sweep's spellings
				if err != nil {
					return usagef("--compat %q: want premas, sst or default", *compat)
				}
				files := &sim.Files{} // ranking and topology files the allocators name
				cfg := bench.Config{Machine: m, Allocs: specs, TimeLimit: *timeLimit,
					Options: files.Options(alloc.Options{Compat: cmpt, NoMemo: *noMemo})}
				// Allocators first: one that does not apply to the machine is refused
				// before a trace is read.
				err = bench.Check(cfg)
				printWarnings(e, files.Warnings())
				if ae := (*bench.AllocError)(nil); errors.As(err, &ae) {
					return usageError{err.Error()} // as sim's --alloc
				}
				if err != nil {
					return err
				}
				if *trace == "" {
					n := *jobs
					if n == 0 {
						n = 2000
					}
					if cfg.Workload, err = bench.SyntheticWorkload(m.N(), n, *seed); err != nil {
						return usageError{err.Error()}
					}
				} else {
					if cfg.Workload, err = benchTrace(ctx, e, m, *trace, *format, *sched, cmpt, *contract, *dropLarger, *jobs); err != nil {
						if errors.Is(err, bench.ErrDoesNotFit) {
							// As sim says it: what to do.
							return fmt.Errorf("%w: give a --machine of at least that many nodes, or --drop-larger to measure without such jobs", err)
						}
						return err
					}
				}
				p := newProgress(e, "bench", int64(len(cfg.Workload.Ops))*int64(len(specs)+1))
				cfg.Progress = func(i, done, total int) {
					p.Update(int64(i+1)*int64(total)+int64(done), fmt.Sprintf("%s %d/%d", benchName(specs, i), done, total))
				}
				rep, err := bench.Run(ctx, cfg)
				p.Done()
				if err != nil {
					return err
				}
				chart := *svgOut
				if len(rep.Allocs) == 0 {
					chart = "" // nothing to draw
				}
				// The chart and the table all or none.
				err = writeOutputs(e,
					namedOutput{"--svg", chart, func(w io.Writer) error { return writeBenchChart(w, rep) }},
					namedOutput{"-o", *out, func(w io.Writer) error {
						if *asJSON {
							return writeJSON(w, benchJSON{rep, benchPercentiles(), notRun(specs, rep)})
						}
						return printBench(w, rep, notRun(specs, rep))
					}})
				if err != nil {
					return err
				}
				if rep.Interrupted {
					return nil // main reports the interrupt and exits 130
				}
				var failed []string
				for _, r := range rep.Allocs {
					if r.Error != "" && !r.Complete && !strings.HasPrefix(r.Error, "time limit") {
						failed = append(failed, r.Alloc+": "+r.Error)
					}
				}
				if len(failed) > 0 {
					return errors.New(strings.Join(failed, "; "))
				}
				return nil
			}
		},
	})
}

func benchName(specs []string, i int) string {
	if i < 0 {
		return bench.FloorName
	}
	return specs[i]
}

// benchTrace is bench's workload from a trace: read, windowed and scaled as sim
// reads it, the first jobs of it, in the order sim's replay starts and ends them.
func benchTrace(ctx context.Context, e *env, m topo.Machine, trace, format, sched string, c alloc.Compat, contract float64, dropLarger bool, jobs int) (bench.Workload, error) {
	s := sim.DefaultSpec()
	s.Machine, s.Trace, s.Format = m, trace, sim.Format(format)
	s.Alloc = "freelist:none" // not used: the workload does not depend on it
	s.Sched, s.Compat = sim.Sched(sched), c
	s.Scale.Contract = contract
	s.DropLarger = dropLarger
	if s.Sched == sim.SchedAsRun {
		return bench.Workload{}, usagef("--sched as-run replays recorded placements; bench takes fcfs, easy or cplant")
	}
	if err := withoutField(s.Validate(), "Alloc"); err != nil {
		return bench.Workload{}, specError(err)
	}
	if err := readTrace(ctx, e, &s); err != nil {
		return bench.Workload{}, err
	}
	s.Alloc = "mc1x1"
	if _, isGraph := m.(*topo.Graph); isGraph {
		s.Alloc = "genalg"
	}
	rp, err := s.Prepare()
	if err != nil {
		return bench.Workload{}, specError(err)
	}
	all := rp.AllJobs()
	if jobs > 0 && jobs < len(all) {
		all = all[:jobs]
	}
	name := fmt.Sprintf("trace %s, %s scheduling, first %d jobs", trace, sim.Sched(sched).String(), len(all))
	if rp.DroppedLarger > 0 {
		name += fmt.Sprintf(" (%s larger than the machine dropped)", textin.CountNoun(rp.DroppedLarger, "job"))
	}
	return bench.TraceWorkload(ctx, name, all, m, s.Sched)
}

// benchJSON is bench --json: the report, the percentiles (in percent) that each
// row's percentiles_us are taken at, and the allocators Ctrl-C left unmeasured.
type benchJSON struct {
	*bench.Report
	Percentiles []float64 `json:"percentiles"`
	NotRun      []string  `json:"not_run,omitempty"`
}

// benchPercentiles are bench.Quantiles in percent.
func benchPercentiles() []float64 {
	q := bench.Quantiles()
	for i := range q {
		q[i] = math.Round(100 * q[i])
	}
	return q
}

// notRun lists the allocators of specs that an interrupted report has no row of.
func notRun(specs []string, rep *bench.Report) []string {
	if !rep.Interrupted || len(rep.Allocs) >= len(specs) {
		return nil
	}
	return specs[len(rep.Allocs):]
}

// printBench prints the report as a table, microseconds, and what its figures
// are: a user who saw bf:hilbert ten times faster than the floor had no way to
// tell why from the table.
func printBench(w io.Writer, rep *bench.Report, notRun []string) error {
	fmt.Fprintf(w, "%s (%d nodes); workload: %s\n", rep.Machine, rep.Nodes, rep.Workload)
	t := newTable(w, "allocator", "decisions/s", "median µs", "p99 µs", "max µs", "mean µs", "release µs", "build s", "heap MB", "B/decision", "")
	rows := append([]bench.Result{rep.Floor}, rep.Allocs...)
	for i, r := range rows {
		note := ""
		switch {
		case r.Error != "":
			note = r.Error
			if r.Decisions > 0 {
				note += fmt.Sprintf(" (after %d decisions)", r.Decisions)
			}
		case !r.Complete:
			note = "partial"
		}
		heap, perDecision := strconv.FormatFloat(float64(r.HeapBytes)/1e6, 'f', 1, 64), strconv.FormatFloat(r.AllocBytesPerDecision, 'f', 0, 64)
		if rep.Interrupted && i == len(rows)-1 {
			// Ctrl-C came during this row: its memory was not measured (bench.Result).
			heap, perDecision = "-", "-"
		}
		t.row(r.Alloc, fmtRate(r.DecisionsPerSecond), fmtMicros(r.Latency.Median), fmtMicros(r.Latency.P99), fmtMicros(r.Latency.Max),
			fmtMicros(r.Latency.Mean), fmtMicros(r.ReleaseMean), strconv.FormatFloat(r.BuildSeconds, 'f', 3, 64), heap, perDecision, note)
	}
	if err := t.flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "%s is the floor: each decision lists the free nodes once and takes the first k;\n"+
		"  an allocator that keeps an index of its own (the curve allocators) need not read them, and can beat it.\n"+
		"µs: wall clock inside one Allocate (median, p99, max, mean) or Release; decisions/s: decisions over\n"+
		"  the time in both; build s: constructing it; heap MB: held at the end; B/decision: bytes allocated.\n", bench.FloorName)
	if rep.Interrupted {
		msg := "interrupted: the rows are what was measured before (the last one's memory was not measured)"
		if len(notRun) > 0 {
			msg += "; not measured: " + strings.Join(notRun, ", ")
		}
		_, err := fmt.Fprintln(w, msg)
		return err
	}
	return nil
}

func fmtMicros(v float64) string {
	switch {
	case v == 0:
		return "-"
	case v < 10:
		return strconv.FormatFloat(v, 'f', 2, 64)
	case v < 1000:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', 0, 64)
}

func fmtRate(v float64) string {
	if v == 0 {
		return "-"
	}
	return strconv.FormatFloat(v, 'f', 0, 64)
}

// writeBenchChart draws each allocator's latency at bench.Quantiles (percent on
// x), the floor included, with compare's line chart; a run cut short is marked
// partial in the legend, with the decisions it made.
func writeBenchChart(w io.Writer, rep *bench.Report) error {
	var series []plot.Series
	for _, r := range append([]bench.Result{rep.Floor}, rep.Allocs...) {
		if len(r.Percentiles) == 0 {
			continue
		}
		s := plot.Series{Name: r.Alloc}
		if !r.Complete { // as the table's "partial": Ctrl-C or --time-limit cut it short
			s.Name = fmt.Sprintf("%s (partial: %d decisions)", r.Alloc, r.Decisions)
		}
		for i, q := range bench.Quantiles() {
			s.X = append(s.X, 100*q)
			s.Y = append(s.Y, max(r.Percentiles[i], 1e-3))
		}
		series = append(series, s)
	}
	title := fmt.Sprintf("decision latency — %s, %d jobs", rep.Machine, rep.Jobs)
	return plot.LineChart{Title: title, XLabel: "percentile of decisions", YLabel: "time inside Allocate (µs)", Series: series, FromZero: true}.WriteSVG(w)
}
