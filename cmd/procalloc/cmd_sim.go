package main

import (
	"context"
	"encoding/csv"
	"flag"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/netsim"
	"github.com/procalloc/procalloc/sim"
	"github.com/procalloc/procalloc/topo"
)

// simFlags are the flags sim and compare share.
type simFlags struct {
	trace, machine, sched, compat, format string
	graph, spanCurve                      string
	gf                                    *graphFlags
	skipBad                               bool
	noMemo                                bool
	scale                                 sim.Scale
	// network model (Bunde et al. 2004): --comm, --pattern and the message flags
	comm, pattern                    string
	msgFlits, routerDelay, flitBytes int64
	cycleSeconds, msgsPerSecond      float64
	commSeed                         uint64
	// trace window (Bunde et al. 2004 §3.1) and jobs too large for the machine
	from, to string
	// asRunAlloc is set by the command before load when an allocator is as-run,
	// which needs an sacct trace.
	asRunAlloc    bool
	dropLarger    bool
	droppedLarger int // set by load
}

func (f *simFlags) declare(fs *flag.FlagSet) {
	fs.StringVar(&f.trace, "trace", "", "workload trace `FILE`: SWF 2.2 or the 4-column converted format, gzip or not ('-' for stdin)")
	fs.StringVar(&f.machine, "machine", "", "machine `SPEC`, e.g. mesh:16x16, torus:8x8x8, mesh:8x8x5:wrap=yz, fattree:4,4:8")
	fs.StringVar(&f.graph, "graph", "", "network `FILE` instead of --machine: edge list, ibnetdiscover, topology.conf or topology.yaml")
	f.gf = declareGraphFlags(fs)
	fs.StringVar(&f.spanCurve, "span-curve", "", "measure span, ring span and stretch-span on the ranks of `CURVE` (a curve or ranking file; default: a curve allocator's own ordering, else node indices)")
	fs.StringVar(&f.sched, "sched", "fcfs", "scheduler: fcfs (strict), easy (EASY backfilling), cplant (queue sorted by size, then requested time) or as-run (each job at its recorded start; sacct traces)")
	fs.StringVar(&f.compat, "compat", "", "conventions: premas (the published PReMAS tables), sst (SST's scheduler element), or empty for procalloc's defaults")
	fs.StringVar(&f.format, "format", "", "trace format: swf, converted, sacct (sacct -P output), or empty to detect it")
	fs.BoolVar(&f.skipBad, "skip-bad", false, "skip and count malformed trace lines instead of failing on the first")
	fs.BoolVar(&f.noMemo, "no-memo", false, "search every allocation decision anew: MM, Gen-Alg, MM+Inc and MC1x1 otherwise remember their answer for a request and free node set met before (same results; for timing the search itself)")
	fs.Float64Var(&f.scale.Work, "work", 1, "work multiple: run times and estimates are multiplied by it")
	fs.Float64Var(&f.scale.Contract, "contract", 1, "arrival contraction: arrival times are multiplied by it (< 1 raises the load)")
	fs.IntVar(&f.scale.Replicate, "replicate", 1, "replication factor: each job appears this many times, replicas with perturbed arrivals")
	fs.Int64Var(&f.scale.Perturb, "perturb", 0, "largest arrival offset of a replica, in seconds (0: mean inter-arrival time)")
	fs.Uint64Var(&f.scale.Seed, "seed", 1, "seed of the replica perturbation")
	fs.StringVar(&f.from, "from", "", "keep jobs arriving at or after `TIME`: seconds from the trace's start, or a date YYYY-MM-DD[THH:MM:SS] in the trace's time zone (SWF header)")
	fs.StringVar(&f.to, "to", "", "keep jobs arriving before `TIME` (as --from; after --from, else a usage error)")
	fs.BoolVar(&f.dropLarger, "drop-larger", false, "drop jobs larger than the machine (counted and reported) instead of failing")
	d := netsim.DefaultParams()
	fs.StringVar(&f.comm, "comm", "", "let communication decide run times: each job sends --msgs-per-second messages per second of trace run time in `PATTERN` ("+strings.Join(netsim.Patterns, ", ")+") over the routed network and ends when they have arrived")
	fs.StringVar(&f.pattern, "pattern", "all-to-all", "`PATTERN` of the static route metrics (message distance, hop-bytes, routes on a link) reported without --comm")
	fs.Int64Var(&f.msgFlits, "msg-flits", d.MessageFlits, "message length in flits (one flit crosses a link per cycle)")
	fs.Int64Var(&f.routerDelay, "router-delay", d.RouterDelay, "cycles a message header takes per hop")
	fs.Int64Var(&f.flitBytes, "flit-bytes", d.FlitBytes, "bytes per flit (for hop-bytes)")
	fs.Float64Var(&f.cycleSeconds, "cycle-seconds", sim.DefaultCycleSeconds, "length of one network cycle in trace seconds (with --comm; 1e-9 to 1e6)")
	fs.Float64Var(&f.msgsPerSecond, "msgs-per-second", 1, "messages a job sends per second of its trace run time (with --comm; at most 1e6)")
	fs.Uint64Var(&f.commSeed, "comm-seed", 1, "seed of the random pattern's choices")
}

// network returns the replay's communication settings from the flags.
func (f *simFlags) network() (comm *sim.Comm, pattern netsim.Pattern, msgBytes int64, err error) {
	p := netsim.Params{MessageFlits: f.msgFlits, RouterDelay: f.routerDelay, FlitBytes: f.flitBytes}
	if err := p.Validate(); err != nil {
		return nil, nil, 0, usageError{err.Error()}
	}
	if pattern, err = netsim.ParsePattern(f.pattern); err != nil {
		return nil, nil, 0, usagef("--pattern: %v", err)
	}
	if f.comm != "" {
		pat, err := netsim.ParsePattern(f.comm)
		if err != nil {
			return nil, nil, 0, usagef("--comm: %v", err)
		}
		comm = &sim.Comm{Pattern: pat, Params: p, MessagesPerSecond: f.msgsPerSecond, CycleSeconds: f.cycleSeconds, Seed: f.commSeed}
		if !(f.msgsPerSecond > 0) || f.msgsPerSecond > sim.MaxMessagesPerSecond {
			return nil, nil, 0, usagef("--msgs-per-second %v: must be a positive number of at most %g", f.msgsPerSecond, sim.MaxMessagesPerSecond)
		}
		if !(f.cycleSeconds >= sim.MinCycleSeconds && f.cycleSeconds <= sim.MaxCycleSeconds) {
			return nil, nil, 0, usagef("--cycle-seconds %v: must be between %g and %g seconds", f.cycleSeconds, sim.MinCycleSeconds, sim.MaxCycleSeconds)
		}
	}
	return comm, pattern, p.MessageFlits * p.FlitBytes, nil
}

// config is the replay configuration the flags describe, for allocator a.
func (f *simFlags) config(g topo.Machine, a alloc.Allocator, compat alloc.Compat) (sim.Config, error) {
	comm, pat, bytes, err := f.network()
	if err != nil {
		return sim.Config{}, err
	}
	cfg := sim.Config{Machine: g, Alloc: a, Sched: f.sched, Compat: compat, Comm: comm, Pattern: pat, MessageBytes: bytes}
	if f.spanCurve != "" {
		o, err := curveResolve(f.spanCurve, g)
		if err != nil {
			return sim.Config{}, fmt.Errorf("--span-curve: %w", err)
		}
		cfg.SpanOrder, cfg.SpanName = o, f.spanCurve
	}
	return cfg, nil
}

// load parses the machine and compat and reads and scales the trace.
func (f *simFlags) load(e *env) (topo.Machine, alloc.Compat, *sim.Trace, []sim.Job, error) {
	if f.trace == "" {
		return nil, "", nil, nil, usagef("--trace FILE is required")
	}
	if f.machine == "" && f.graph == "" {
		return nil, "", nil, nil, usagef("--machine SPEC or --graph FILE is required, e.g. --machine mesh:16x16")
	}
	g, err := loadMachineLimit(e, f.machine, f.graph, f.gf, simMaxNodes, "a replay handles (the allocators keep several words per node)")
	if err != nil {
		return nil, "", nil, nil, err
	}
	var compat alloc.Compat
	switch f.compat {
	case "", "default":
	case "premas":
		compat = alloc.CompatPReMAS
	case "sst":
		compat = alloc.CompatSST
	default:
		return nil, "", nil, nil, usagef("--compat %q: want premas, sst or empty", f.compat)
	}
	switch f.sched {
	case "fcfs", "easy", "cplant", "as-run":
	default:
		return nil, "", nil, nil, usagef("--sched %q: want fcfs, easy, cplant or as-run", f.sched)
	}
	switch f.format {
	case "", "swf", "converted", "sacct":
	default:
		return nil, "", nil, nil, usagef("--format %q: want swf, converted or sacct", f.format)
	}
	for _, v := range []struct {
		name string
		val  float64
	}{{"--work", f.scale.Work}, {"--contract", f.scale.Contract}} {
		if !(v.val > 0) || v.val > 1e6 {
			return nil, "", nil, nil, usagef("%s %v: must be a number greater than 0 and at most 1e6", v.name, v.val)
		}
	}
	if f.scale.Replicate < 1 || f.scale.Perturb < 0 {
		return nil, "", nil, nil, usagef("--replicate must be at least 1, --perturb not negative")
	}
	if g.N() > simMaxNodes {
		return nil, "", nil, nil, usagef("%s has %d nodes; a replay handles at most %d (the allocators keep several words per node)", g.Spec(), g.N(), simMaxNodes)
	}
	r, err := openInput(e, f.trace)
	if err != nil {
		return nil, "", nil, nil, err
	}
	defer r.Close()
	tr, err := sim.ReadTrace(r, sim.ReadOptions{Format: f.format, SkipBad: f.skipBad})
	if err != nil {
		return nil, "", nil, nil, fmt.Errorf("%s: %w", f.trace, err)
	}
	if tr.Filtered > 0 {
		fmt.Fprintf(e.stderr, "procalloc: %s: %d SWF records dropped by the conversion rules (no processors, unknown run time, negative submit time, cancelled before start; see 'procalloc help sim')\n", f.trace, tr.Filtered)
	}
	for _, why := range slices.Sorted(maps.Keys(tr.Skipped)) {
		fmt.Fprintf(e.stderr, "procalloc: %s: %d sacct records skipped: %s\n", f.trace, tr.Skipped[why], why)
	}
	if f.asRunAlloc && tr.Format != "sacct" {
		return nil, "", nil, nil, usagef("--alloc as-run places each job on its recorded nodes, which only an sacct trace records (NodeList); %s is a %s trace", f.trace, tr.Format)
	}
	if f.sched == "as-run" {
		if tr.Format != "sacct" {
			return nil, "", nil, nil, usagef("--sched as-run starts jobs when production did, which only an sacct trace records")
		}
		if f.scale.Work != 1 || f.scale.Contract != 1 || f.scale.Replicate != 1 || f.from != "" || f.to != "" {
			return nil, "", nil, nil, usagef("--sched as-run replays production's own schedule: --work, --contract, --replicate, --from and --to do not apply")
		}
	}
	if len(tr.Jobs) == 0 {
		return nil, "", nil, nil, fmt.Errorf("%s: the trace has no jobs", f.trace)
	}
	if n := int64(len(tr.Jobs)) * int64(f.scale.Replicate); replayBytes(n) > simMaxBytes {
		return nil, "", nil, nil, usagef("--replicate %d makes %d jobs, about %.1f GB of job records in memory; a replay takes at most %d GB: replicate less",
			f.scale.Replicate, n, replayBytes(n)/1e9, simMaxBytes>>30)
	}
	jobs := tr.Jobs
	if f.from != "" || f.to != "" {
		from, to := int64(0), int64(0)
		if f.from != "" {
			if from, err = windowTime(f.from, tr); err != nil {
				return nil, "", nil, nil, usagef("--from: %v", err)
			}
		}
		if f.to != "" {
			if to, err = windowTime(f.to, tr); err != nil {
				return nil, "", nil, nil, usagef("--to: %v", err)
			}
			if to <= 0 {
				return nil, "", nil, nil, usagef("--to %s: the window must end after the trace's start", f.to)
			}
			if to <= from {
				return nil, "", nil, nil, usagef("--to %s: the window must end after --from %s (%d s <= %d s from the trace's start)", f.to, f.from, to, from)
			}
		}
		if jobs, err = sim.Window(jobs, from, to); err != nil {
			return nil, "", nil, nil, fmt.Errorf("%s: %w", f.trace, err)
		}
	}
	if f.dropLarger {
		jobs, f.droppedLarger = sim.DropLarger(jobs, g.N())
		if len(jobs) == 0 {
			return nil, "", nil, nil, fmt.Errorf("%s: every job is larger than %s", f.trace, g.Spec())
		}
	}
	jobs, err = f.scale.Apply(jobs)
	if err != nil {
		return nil, "", nil, nil, usageError{err.Error()}
	}
	return g, compat, tr, jobs, nil
}

// simMaxNodes and simMaxBytes bound what a replay accepts, so that a typo in a machine
// spec or a replication factor is an error rather than an out-of-memory crash.
const (
	simMaxNodes = 1 << 22
	simMaxBytes = 8 << 30
)

// replayBytes estimates the memory of the job records of a replay of n jobs: per job the trace's record, the scaled copy and the result (node
// lists are not kept: sim and compare drop each job's when it has finished and its
// per-job row is written). It undercounts the Go heap's overhead; it is meant to
// refuse the impossible, not to budget exactly.
func replayBytes(n int64) float64 {
	return float64(n) * float64(2*unsafe.Sizeof(sim.Job{})+unsafe.Sizeof(sim.JobResult{}))
}

// isAsRun reports whether an allocator spec is the as-run allocator.
func isAsRun(spec string) bool {
	family, _, _ := strings.Cut(strings.TrimSpace(spec), ":")
	return family == "as-run"
}

// windowTime reads a --from/--to value: seconds from the trace's start, or a date
// (YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS) in the trace's time zone, which needs the SWF
// header's UnixStartTime.
func windowTime(s string, tr *sim.Trace) (int64, error) {
	if v, err := strconv.ParseInt(s, 10, 64); err == nil {
		if v < 0 {
			return 0, fmt.Errorf("%d: seconds from the trace's start cannot be negative", v)
		}
		return v, nil
	}
	layouts := []string{"2006-01-02", "2006-01-02T15:04:05", "2006-01-02 15:04:05"}
	isDate := slices.ContainsFunc(layouts, func(l string) bool { _, err := time.Parse(l, s); return err == nil })
	if !isDate {
		return 0, fmt.Errorf("%q is neither whole seconds from the trace's start nor a date YYYY-MM-DD[THH:MM:SS]", s)
	}
	if tr.UnixStart == 0 {
		return 0, fmt.Errorf("%q: a date needs the SWF header's UnixStartTime, which this trace lacks; give seconds from its start", s)
	}
	loc := time.UTC
	if tr.TimeZone != "" {
		l, err := time.LoadLocation(tr.TimeZone)
		if err != nil {
			return 0, fmt.Errorf("the trace's time zone %q: %w", tr.TimeZone, err)
		}
		loc = l
	}
	var t time.Time
	var err error
	for _, layout := range layouts {
		if t, err = time.ParseInLocation(layout, s, loc); err == nil {
			return t.Unix() - tr.UnixStart, nil
		}
	}
	return 0, fmt.Errorf("%q is neither seconds nor a date YYYY-MM-DD[THH:MM:SS]", s)
}

// simOutput is the JSON of "procalloc sim".
type simOutput struct {
	sim.Summary
	Trace    string `json:"trace"`
	BadLines int    `json:"bad_lines"`
	Filtered int    `json:"filtered_records"`
	// Skipped counts sacct records not replayed, by reason.
	Skipped map[string]int `json:"skipped_records,omitempty"`
	// DroppedLarger counts the jobs --drop-larger removed.
	DroppedLarger int     `json:"dropped_larger"`
	Seconds       float64 `json:"seconds"`
}

func init() {
	register(&command{
		name:    "sim",
		summary: "replay a workload trace through a scheduler and an allocator; report allocation quality",
		usage:   "sim --trace FILE (--machine SPEC | --graph FILE) --alloc SPEC [--sched fcfs|easy|cplant|as-run] [--compat premas|sst] [flags]",
		details: `Replays a trace (SWF 2.2, the 4-column converted format "arrival procs runtime
estimate", or sacct -P output; gzip read transparently) on a mesh or torus, a
synthetic fat tree or dragonfly (--machine), or a real network (--graph): jobs arrive,
the scheduler decides when each starts, the allocator which nodes it gets. Run times
are taken from the trace (allocation does not change them). Reported per job and on
average: total and average pairwise hop distance (L1 on grids), span and ring span of
the ranks of the allocator's ordering (Leung et al. 2002 §2.3; --span-curve names the
ordering for other allocators, node indices otherwise), stretch-span, bounding box
volume and sum of sides (grids only; 0 on graphs), connected components (on a graph
hosts on one switch are neighbours) and the % of contiguous jobs, wait, response,
slowdown; overall makespan and utilization; for center-based allocators how often the
best score was tied (Johnson 2010 Fig. 4). On a graph only genalg and the curve
allocators (freelist, ff, bf, sos along a built-in graph ordering such as rcm or a
ranking file) apply; the others place jobs by coordinates and refuse.

` + graphHelp + `

sacct traces (--format sacct, or detected from the header): produce them with
  sacct -X -P -a -S START -E END -o ` + sim.SacctFields + `
Job steps, pending jobs, jobs cancelled before they started, jobs still running and
earlier runs of requeued jobs are skipped and counted on stderr; UNLIMITED and
Partition_Limit limits are unknown estimates; Procs is NNodes. --alloc as-run places
each job on its recorded NodeList and, with --sched as-run, starts it when production
did: the replay is then production itself. Other allocators under --sched as-run run
on production's schedule too (as many nodes are busy at every moment), so that only the
placement differs: compare --sched as-run --alloc as-run,bf:rcm,genalg scores them.

One replay is single-threaded: it keeps one core busy (the Go runtime's garbage
collector may use a little of another). compare --parallel N, batch and sweep -j N
run N replays at once, so N cores.

--compat premas follows the PReMAS simulator exactly and reproduces the published
tables (e.g. Johnson et al. 2010 Fig. 18: LLNL-T3D, mesh:16x16, FCFS, mc1x1 ->
5309.586). --compat sst follows SST's scheduler (unknown estimates are twice the run
time; the headline figure is the average pairwise distance). See docs/sim.md.

SWF records are converted the way the published converted traces were (procs <= 0
dropped, run time field 4 or else field 6, status -1/0/1 kept and 5 when it ran);
--convert FILE writes the (scaled) jobs in the 4-column format and exits. A job
larger than the machine is an error naming it.

Allocators (--alloc SPEC):
` + allocHelp() + `

opt is the exact solver as an allocator (the greedy-optimal allocator of Bender et al.
2005 §5) with a budget of search nodes per decision (opt:nodes=N), so its decisions
are the same on every machine; decisions left unproven keep the best set found (never
worse than MM+Inc) and are counted.

--baseline exact solves every allocation decision exactly on the nodes free at that
moment (package exact: MM+Inc incumbent, lattice bound; one-node jobs, two-node jobs,
jobs taking every free node and allocations that meet the unconstrained optimum are
proven without search; repeated free sets are remembered) and reports each job's ratio
of its total pairwise L1 to the optimum: mean_ratio_to_optimal (over the decisions
proven) and baseline_proven (their fraction) in the summary and --by-size, three
columns in --per-job. Each decision stops at --baseline-time-limit, so which decisions
are proven depends on the machine's speed (and load); the allocator's own decisions do
not. Plain L1 distance: a mesh, or --compat premas.`,
		example: `procalloc sim --trace LLNL-T3D-1996-2.converted.txt.gz --machine mesh:16x16 --alloc mc1x1 --compat premas
procalloc sim --trace KTH-SP2-1996-2.1-cln.swf.gz --machine mesh:10x10 --alloc mc1x1:tb=2,13,20,6 --sched easy --json
procalloc sim --trace t.swf --machine mesh:16x16 --alloc bf:hilbert --per-job jobs.csv --work 1.5
procalloc sim --trace t.swf.gz --machine mesh:16x16 --convert t.txt
procalloc sim --trace sacct.txt --graph fabric.ibnet --node-name-map names.map --alloc bf:rcm --sched easy
procalloc sim --trace sacct.txt --graph topology.conf --alloc as-run --sched as-run
procalloc sim --trace t.swf --machine fattree:4,4:4,4:8 --alloc genalg --span-curve rcm
procalloc sim --trace LLNL-T3D-1996-2.converted.txt.gz --machine mesh:16x16 --alloc mm --compat premas --no-memo --json
procalloc sim --trace LLNL-T3D-1996-2.converted.txt.gz --machine mesh:16x16 --alloc mc1x1 --compat premas --baseline exact --baseline-time-limit 100ms --by-size`,
		flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
			var sf simFlags
			sf.declare(fs)
			allocSpec := fs.String("alloc", "mc1x1", "allocator `SPEC`: "+strings.Join(alloc.Names(), ", ")+" (e.g. bf:hilbert, mc1x1:tb=3,9,3,2)")
			perJob := fs.String("per-job", "", "write one CSV row per job to `FILE`, in trace order, as jobs finish")
			bySize := fs.Bool("by-size", false, "also print the breakdown by job size")
			baseline := fs.String("baseline", "", "`exact`: solve every allocation decision exactly on the nodes free at that moment and report each job's ratio to the optimum (mesh, or --compat premas)")
			baselineLimit := fs.Duration("baseline-time-limit", time.Second, "time limit of each baseline decision (> 0); proofs then depend on the machine's speed, the fraction proven is reported")
			convert := fs.String("convert", "", "write the (scaled) trace in the 4-column converted format to `FILE` and exit")
			asJSON := fs.Bool("json", false, "print JSON")
			out := fs.String("o", "", "write the result to `FILE` instead of stdout")
			return func(ctx context.Context, e *env, args []string) error {
				if len(args) > 0 {
					return usagef("unexpected arguments %q", args)
				}
				if *convert != "" && sf.machine == "" {
					sf.machine = "mesh:1" // not used
				}
				sf.asRunAlloc = isAsRun(*allocSpec)
				g, compat, tr, jobs, err := sf.load(e)
				if err != nil {
					return err
				}
				if err := checkOutputs(e, outputFlag{"--convert", *convert}, outputFlag{"--per-job", *perJob}, outputFlag{"-o", *out}); err != nil {
					return err
				}
				if *convert != "" {
					return writeOutput(e, "--convert", *convert, func(w io.Writer) error { return sim.WriteConverted(w, jobs) })
				}
				a, err := alloc.Parse(*allocSpec, g, alloc.Options{Compat: compat, Ranking: allocRanking, NoMemo: sf.noMemo})
				if err != nil {
					return usageError{err.Error()}
				}
				cfg, err := sf.config(g, a, compat)
				if err != nil {
					return err
				}
				switch *baseline {
				case "":
					if flagSet(fs, "baseline-time-limit") {
						return usagef("--baseline-time-limit needs --baseline exact")
					}
				case "exact":
					if *baselineLimit <= 0 {
						return usagef("--baseline-time-limit %v: must be positive", *baselineLimit)
					}
					grid, ok := g.(*topo.Grid)
					if !ok {
						return usagef("--baseline exact needs node coordinates (a mesh, --machine); %s has none", g.Spec())
					}
					if compat != alloc.CompatPReMAS && slices.Contains(grid.Wrap(), true) {
						return usagef("--baseline exact measures plain L1 distance; %s has wraparound links (use a mesh, or --compat premas)", g.Spec())
					}
					cfg.Baseline = &sim.Baseline{TimeLimit: *baselineLimit}
				default:
					return usagef("--baseline %q: want exact", *baseline)
				}
				// Node lists are not kept: the per-job rows are written as jobs
				// finish, so memory does not grow with the trace's length by them.
				cfg.DropNodes = true
				var res *sim.Result
				var secs float64
				if *perJob != "" {
					err = writeOutput(e, "--per-job", *perJob, func(w io.Writer) error {
						pw := newPerJobCSV(w, cfg.Baseline != nil)
						cfg.JobDone = pw.write
						if res, secs, err = runReplay(ctx, e, jobs, cfg, "sim "+a.Name()); err != nil {
							return err
						}
						return pw.flush()
					})
				} else {
					res, secs, err = runReplay(ctx, e, jobs, cfg, "sim "+a.Name())
				}
				if err != nil {
					return err
				}
				res.Summary.LoadFactor = sf.scale.Contract
				o := simOutput{Summary: res.Summary, Trace: sf.trace, BadLines: tr.Bad, Filtered: tr.Filtered, Skipped: tr.Skipped, DroppedLarger: sf.droppedLarger, Seconds: secs}
				return writeFileAtomic(e, *out, func(w io.Writer) error {
					if *asJSON {
						return writeJSON(w, o)
					}
					return printSimSummary(w, o, *bySize)
				})
			}
		},
	})
}

func printSimSummary(w io.Writer, o simOutput, bySize bool) error {
	s := o.Summary
	fmt.Fprintf(w, "%s on %s, %s scheduling, compat %s: %d jobs", s.Alloc, s.Machine, s.Sched, s.Compat, s.Jobs)
	if o.BadLines > 0 {
		fmt.Fprintf(w, " (%d malformed lines skipped)", o.BadLines)
	}
	if o.DroppedLarger > 0 {
		fmt.Fprintf(w, " (%d jobs larger than the machine dropped)", o.DroppedLarger)
	}
	fmt.Fprintln(w)
	t := newTable(w, "metric", "value")
	for _, m := range summaryMetrics {
		t.row(m.name, m.format(s))
	}
	t.row("route metrics pattern", s.RoutePattern)
	if c := s.Comm; c != nil {
		t.row("messages delivered", strconv.FormatInt(c.Messages, 10))
		t.row("mean message latency (cycles)", fmt.Sprintf("%.2f", c.MeanLatency))
		t.row("busiest link: messages, load", fmt.Sprintf("%d, %.4f", c.MaxLinkMessages, c.MaxLinkLoad))
	}
	if s.MeanRatioToOptimal != nil {
		t.row("mean ratio to optimal (proven)", fmt.Sprintf("%.4f", *s.MeanRatioToOptimal))
		t.row("baseline decisions proven", fmt.Sprintf("%.1f%%", 100**s.BaselineProven))
	}
	if f := s.Fallbacks; f != nil {
		t.row("exact decisions unproven (fallback)", fmt.Sprintf("%d of %d", f.Fallbacks, f.Decisions))
	}
	if s.Ties != nil {
		t.row("tied decisions", fmt.Sprintf("%d of %d (%.1f%%)", s.Ties.Tied, s.Ties.Decisions, s.Ties.PctTied))
		t.row("avg # tied", fmt.Sprintf("%.1f", s.Ties.AvgNumTied))
	}
	if err := t.flush(); err != nil {
		return err
	}
	if bySize {
		fmt.Fprintln(w)
		cols := []string{"procs", "jobs", "mean total L1", "mean avg L1", "mean wait", "% contiguous"}
		if s.MeanRatioToOptimal != nil {
			cols = append(cols, "ratio to optimal", "% proven")
		}
		t := newTable(w, cols...)
		for _, b := range s.BySize {
			row := []string{strconv.Itoa(b.Procs), strconv.Itoa(b.Jobs), fmt.Sprintf("%.3f", b.MeanTotalPairwiseL1),
				fmt.Sprintf("%.3f", b.MeanAvgPairwiseL1), fmt.Sprintf("%.1f", b.MeanWait), fmt.Sprintf("%.1f", b.PctContiguous)}
			if b.MeanRatioToOptimal != nil {
				row = append(row, fmt.Sprintf("%.4f", *b.MeanRatioToOptimal), fmt.Sprintf("%.1f", 100**b.BaselineProven))
			}
			t.row(row...)
		}
		return t.flush()
	}
	return nil
}

// summaryMetric is one row of the sim table and one column of compare.
type summaryMetric struct {
	name, key string
	value     func(s sim.Summary) float64
	prec      int
}

func (m summaryMetric) format(s sim.Summary) string {
	return strconv.FormatFloat(m.value(s), 'f', m.prec, 64)
}

var summaryMetrics = []summaryMetric{
	{"mean total pairwise L1", "mean_total_pairwise_l1", func(s sim.Summary) float64 { return s.MeanTotalPairwiseL1 }, 3},
	{"mean avg pairwise L1", "mean_avg_pairwise_l1", func(s sim.Summary) float64 { return s.MeanAvgPairwiseL1 }, 4},
	{"mean span", "mean_span", func(s sim.Summary) float64 { return s.MeanSpan }, 2},
	{"mean ring span", "mean_ring_span", func(s sim.Summary) float64 { return s.MeanRingSpan }, 2},
	{"mean stretch-span", "mean_stretch_span", func(s sim.Summary) float64 { return s.MeanStretchSpan }, 3},
	{"mean bbox volume", "mean_bbox_volume", func(s sim.Summary) float64 { return s.MeanBoxVolume }, 2},
	{"mean bbox sides", "mean_bbox_sides", func(s sim.Summary) float64 { return s.MeanBoxSides }, 2},
	{"mean components", "mean_components", func(s sim.Summary) float64 { return s.MeanComponents }, 3},
	{"% contiguous", "pct_contiguous", func(s sim.Summary) float64 { return s.PctContiguous }, 2},
	{"mean wait (s)", "mean_wait", func(s sim.Summary) float64 { return s.MeanWait }, 1},
	{"mean response (s)", "mean_response", func(s sim.Summary) float64 { return s.MeanResponse }, 1},
	{"mean slowdown", "mean_slowdown", func(s sim.Summary) float64 { return s.MeanSlowdown }, 3},
	{"makespan (s)", "makespan", func(s sim.Summary) float64 { return float64(s.Makespan) }, 0},
	{"utilization", "utilization", func(s sim.Summary) float64 { return s.Utilization }, 4},
	{"mean message distance (hops)", "mean_message_distance", func(s sim.Summary) float64 { return s.MeanMessageDistance }, 4},
	{"mean hop-bytes", "mean_hop_bytes", func(s sim.Summary) float64 { return s.MeanHopBytes }, 1},
	{"mean max routes on a link", "mean_max_routes_on_a_link", func(s sim.Summary) float64 { return s.MeanMaxShared }, 3},
}

var nowFunc = time.Now

// runReplay runs one replay with a progress bar.
func runReplay(ctx context.Context, e *env, jobs []sim.Job, cfg sim.Config, label string) (*sim.Result, float64, error) {
	p := newProgress(e, label, int64(len(jobs)))
	start := nowFunc()
	cfg.Progress = func(done, total int) { p.Update(int64(done), fmt.Sprintf("%d/%d jobs", done, total)) }
	res, err := sim.Run(ctx, jobs, cfg)
	p.Done()
	if err != nil {
		return nil, 0, err
	}
	return res, nowFunc().Sub(start).Seconds(), nil
}

// perJobCSV writes one CSV row per job (sim.Config.JobDone), as the replay passes
// them on; with the exact baseline, three more columns before nodes: the optimum
// (or best found), whether it was proven, the ratio.
type perJobCSV struct {
	cw       *csv.Writer
	baseline bool
	row      []string
	nodes    []byte
}

func newPerJobCSV(w io.Writer, baseline bool) *perJobCSV {
	p := &perJobCSV{cw: csv.NewWriter(w), baseline: baseline}
	head := []string{"id", "line", "arrival", "start", "end", "procs", "runtime", "estimate", "wait", "response",
		"slowdown", "total_pairwise_l1", "avg_pairwise_l1", "span", "ring_span", "bbox_volume", "bbox_sides", "components", "ties",
		"messages", "message_hops", "message_distance", "hop_bytes", "max_routes_on_a_link"}
	if baseline {
		head = append(head, "opt_total_pairwise_l1", "opt_proven", "ratio_to_optimal")
	}
	p.cw.Write(append(head, "nodes"))
	return p
}

func (p *perJobCSV) write(j *sim.JobResult) error {
	i64 := func(v int64) string { return strconv.FormatInt(v, 10) }
	p.nodes = p.nodes[:0]
	for i, v := range j.Nodes {
		if i > 0 {
			p.nodes = append(p.nodes, ' ')
		}
		p.nodes = strconv.AppendInt(p.nodes, int64(v), 10)
	}
	row := append(p.row[:0], strconv.Itoa(j.ID), strconv.Itoa(j.Line), i64(j.Arrival), i64(j.Start), i64(j.End),
		strconv.Itoa(j.Procs), i64(j.Runtime), i64(j.Estimate), i64(j.Wait()), i64(j.Response()),
		strconv.FormatFloat(j.Slowdown(), 'f', 4, 64), i64(j.TotalL1), strconv.FormatFloat(j.AvgL1, 'f', 4, 64),
		strconv.Itoa(j.Span), strconv.Itoa(j.RingSpan), i64(j.BoxVolume), strconv.Itoa(j.BoxSides),
		strconv.Itoa(j.Components), strconv.Itoa(j.Ties),
		i64(j.Messages), i64(j.MessageHops), strconv.FormatFloat(j.MessageDistance, 'f', 4, 64), i64(j.HopBytes), i64(j.MaxShared))
	if p.baseline {
		row = append(row, i64(j.OptTotalL1), strconv.FormatBool(j.OptProven), strconv.FormatFloat(j.RatioToOptimal, 'f', 6, 64))
	}
	p.row = append(row, string(p.nodes))
	if err := p.cw.Write(p.row); err != nil {
		return err
	}
	return nil
}

func (p *perJobCSV) flush() error {
	p.cw.Flush()
	return p.cw.Error()
}

// flagSet reports whether the flag was given on the command line.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
