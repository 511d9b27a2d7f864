package main

import (
	"context"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/internal/textin"
	"github.com/procalloc/procalloc/netsim"
	"github.com/procalloc/procalloc/plan"
	"github.com/procalloc/procalloc/sim"
	"github.com/procalloc/procalloc/sim/sweep"
	"github.com/procalloc/procalloc/slurm"
	"github.com/procalloc/procalloc/topo"
)

// simFlags are the flags sim and compare share: sim's replay flags, declared from
// their one table (sweep.Flags: names, kinds, defaults, help texts) and mapped onto
// sim.Spec by the same code that maps a sweep item's (sweep.ApplyFlags).
type simFlags struct {
	fs       *flag.FlagSet
	declared map[string]bool
}

// declare declares sim's replay flags on fs but those named in except (which the
// command declares its own way).
func (f *simFlags) declare(fs *flag.FlagSet, except ...string) {
	f.fs, f.declared = fs, map[string]bool{}
	for _, fl := range sweep.Flags() {
		if !slices.Contains(except, fl.Name) {
			declareFlag(fs, fl)
			f.declared[fl.Name] = true
		}
	}
}

// declareFlag declares a flag of the table on fs with its own type, so that the
// flag package reads its value, and prints its default, as it always has.
func declareFlag(fs *flag.FlagSet, fl sweep.Flag) {
	switch fl.Kind {
	case sweep.KindBool:
		fs.Bool(fl.Name, fl.Default == "true", fl.Usage)
	case sweep.KindInt:
		v, _ := strconv.Atoi(fl.Default)
		fs.Int(fl.Name, v, fl.Usage)
	case sweep.KindInt64:
		v, _ := strconv.ParseInt(fl.Default, 10, 64)
		fs.Int64(fl.Name, v, fl.Usage)
	case sweep.KindUint64:
		v, _ := strconv.ParseUint(fl.Default, 10, 64)
		fs.Uint64(fl.Name, v, fl.Usage)
	case sweep.KindFloat64:
		v, _ := strconv.ParseFloat(fl.Default, 64)
		fs.Float64(fl.Name, v, fl.Usage)
	case sweep.KindDuration:
		v, _ := time.ParseDuration(fl.Default)
		fs.Duration(fl.Name, v, fl.Usage)
	default:
		fs.String(fl.Name, fl.Default, fl.Usage)
	}
}

// value is the value of the declared flag name, as the flag package prints it.
func (f *simFlags) value(name string) string { return f.fs.Lookup(name).Value.String() }

// given returns the replay flags given on the command line, as --name=value.
func (f *simFlags) given() []string {
	var args []string
	f.fs.Visit(func(fl *flag.Flag) {
		if f.declared[fl.Name] {
			args = append(args, "--"+fl.Name+"="+fl.Value.String())
		}
	})
	return args
}

// engineFlags are the network engine's flags as batch declares them: --engine, with
// batch's help, and the flit engine's configuration declared from the table of sim's
// flags and decoded, with --router-delay, by sweep.ApplyFlags, as sim's are.
type engineFlags struct{ fs *flag.FlagSet }

// declare registers --engine, described by engineUsage, and the flit flags on fs.
func (f *engineFlags) declare(fs *flag.FlagSet, engineUsage string) {
	fs.String("engine", "message", engineUsage)
	for _, name := range sweep.FlitFlags() {
		fl, _ := sweep.Lookup(name)
		declareFlag(fs, fl)
	}
	f.fs = fs
}

// parse returns the engine and the flit configuration the flags give; flags that
// do not go together (sweep.CheckEngineFlags) are a usage error.
func (f *engineFlags) parse() (sim.Engine, sim.FlitOptions, error) {
	var args []string
	f.fs.Visit(func(fl *flag.Flag) {
		if fl.Name == "engine" || fl.Name == "router-delay" || slices.Contains(sweep.FlitFlags(), fl.Name) {
			args = append(args, "--"+fl.Name+"="+fl.Value.String())
		}
	})
	var s sim.Spec
	if err := sweep.ApplyFlags(&s, args); err != nil {
		if fe := (*sweep.FlagError)(nil); errors.As(err, &fe) {
			return "", sim.FlitOptions{}, usageError{fe.CommandLine()}
		}
		return "", sim.FlitOptions{}, err
	}
	return s.Engine, s.Flit, nil
}

// specFlag names the flag of a sim.Spec field, for the messages of sim.FieldError
// values: sim's replay flags (sweep.FieldFlag), and compare's --loads.
func specFlag(field string) string {
	if field == "LoadFactor" {
		return "--loads"
	}
	return sweep.FieldFlag(field)
}

// specError turns the sim.FieldError values of err (one, or joined) into a usage
// error naming the flags, and a sim.FileError into a failure naming the flag and
// its file (a usage error for --hostlist: its "file" is the flag's value, as
// curve's and plan's hostSource says); other errors are returned as they are.
func specError(err error) error {
	if err := dropHint(err); err != nil {
		return err
	}
	var fe *sim.FileError
	if errors.As(err, &fe) && specFlag(fe.Field) != "" {
		if fe.Field == "Hostlist" {
			return usagef("%s: %v", hostSource{expr: fe.Path}.quoted(fe.Err), fe.Err)
		}
		if fe.Path == "" {
			return fmt.Errorf("%s: %w", specFlag(fe.Field), fe.Err)
		}
		return fmt.Errorf("%s %s: %w", specFlag(fe.Field), fe.Path, fe.Err)
	}
	return fieldErrors(err, specFlag)
}

// dropHint is err, a job larger than the machine (sim.ErrTooLarge) or its
// partition (sim.ErrLargerThanPartition), or a record naming a host the machine
// lacks (slurm.NotHostError), or plan's refusal of a history naming hosts that
// are not compute hosts (plan.UnknownHostsError, naming the flag in place of
// the library's option), with the ways out the replay commands offer; or a
// communication replay's deadlock (sim.DeadlockError), its ways out named by
// their flags in place of the library's fields; nil for any other error.
func dropHint(err error) error {
	if ie, ok := err.(*plan.InputError); ok {
		if uh, ok := ie.Err.(*plan.UnknownHostsError); ok {
			return &plan.InputError{File: ie.File, Err: &plan.UnknownHostsError{Msg: uh.Msg, Option: "--drop-unknown-hosts"}}
		}
	}
	if de, ok := err.(*sim.DeadlockError); ok {
		return &sim.DeadlockError{Err: de.Err, WayOut: de.WayOut, Name: specFlag}
	}
	var nh *slurm.NotHostError
	if errors.As(err, &nh) {
		return fmt.Errorf("%w: --drop-unknown-hosts replays the history without the jobs naming hosts the machine lacks (retired or renamed nodes?), counted", err)
	}
	if errors.Is(err, sim.ErrLargerThanPartition) {
		return fmt.Errorf("%w: --drop-larger replays the trace without such jobs", err)
	}
	if !errors.Is(err, sim.ErrTooLarge) {
		return nil
	}
	return fmt.Errorf("%w: give a --machine of at least that many nodes, or --drop-larger to replay the trace without such jobs", err)
}

// fieldErrors is specError with the flags of the fields given by flag (the batch
// command's, say). A prefix wrapped around the joined errors ("batch: ") is dropped:
// the flags say where they come from.
func fieldErrors(err error, flag func(field string) string) error {
	inner := err
	for {
		if _, ok := inner.(interface{ Unwrap() []error }); ok {
			break
		}
		if _, ok := inner.(*sim.FieldError); ok {
			// A FieldError wraps its cause (alloc.Parse's error, Err): the walk
			// stops at it, else an Alloc mistake would lose its field and be
			// reported as a failure (exit 1) rather than a usage error.
			break
		}
		next := errors.Unwrap(inner)
		if next == nil {
			break
		}
		inner = next
	}
	var errs []error
	if j, ok := inner.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	} else {
		errs = []error{inner}
	}
	var msgs []string
	for _, e := range errs {
		var fe *sim.FieldError
		if !errors.As(e, &fe) {
			return err
		}
		msgs = append(msgs, fe.Named(flag))
	}
	return usageError{strings.Join(msgs, "\n")}
}

// withoutField is err (sim.Spec.Validate's) without the errors of field.
func withoutField(err error, field string) error {
	j, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return err
	}
	var keep []error
	for _, e := range j.Unwrap() {
		if fe, ok := e.(*sim.FieldError); !ok || fe.Field != field {
			keep = append(keep, e)
		}
	}
	return errors.Join(keep...)
}

// envTimeZone is the time zone of an sacct trace's times: tz when given, else $TZ
// as it is now (time.Local was read from it when the process started); a TZ Go
// cannot load leaves "" (time.Local, Go's own reading of it).
func envTimeZone(tz string) string {
	if env := strings.TrimPrefix(os.Getenv("TZ"), ":"); tz == "" && env != "" {
		if _, err := time.LoadLocation(env); err == nil {
			return env
		}
	}
	return tz
}

// spec maps the flags onto a replay of allocator allocSpec (sweep.ApplyFlags, as a
// sweep item's) and resolves it (sim.Spec.Resolve: the machine built, --graph,
// --hosts and --span-curve read, their warnings said on stderr). The trace is not
// read.
func (f *simFlags) spec(ctx context.Context, e *env, allocSpec string) (sim.Spec, error) {
	s := sim.DefaultSpec()
	machine, graph := f.value("machine"), f.value("graph")
	switch {
	case f.value("trace") == "":
		return s, usagef("--trace FILE is required")
	case machine == "" && graph == "":
		return s, usagef("--machine SPEC or --graph FILE is required, e.g. --machine mesh:16x16")
	case machine != "" && graph != "":
		return s, usagef("give either --machine or --graph, not both")
	}
	if err := sweep.ApplyFlags(&s, f.given()); err != nil {
		var fe *sweep.FlagError
		if errors.As(err, &fe) {
			return s, usageError{fe.CommandLine()}
		}
		return s, err
	}
	// The communication replay's rates mean nothing without it; given alone they
	// were ignored without a word. A warning, not a usage error: a sweep's flags go
	// with its items of pattern none and of a pattern alike, and each item's
	// command line (sweep --list, merge) must replay as it is.
	if s.Comm == "" {
		for _, name := range []string{"msgs-per-second", "cycle-seconds", "router-delay"} {
			if isFlagGiven(f.fs, name) {
				e.warnf("--%s is ignored: it goes with --comm PATTERN (without --comm run times come from the trace and no message is sent)", name)
			}
		}
	} else if isFlagGiven(f.fs, "pattern") && patternName(s.Pattern) != patternName(s.Comm) {
		// With --comm the route metrics are those of the messages sent, in
		// --comm's pattern; a different --pattern was dropped without a word.
		e.warnf("--pattern %s is ignored: with --comm the route metrics are those of the messages sent, in --comm's pattern (%s)", s.Pattern, s.Comm)
	}
	// Only as-run and --slurm-conf look the recorded node lists up (Spec.
	// DropUnknownHosts); with neither the flag was dropped without a word.
	if s.DropUnknownHosts && !alloc.IsAsRun(allocSpec) && s.SlurmConf == "" {
		e.warnf("--drop-unknown-hosts is ignored: only an as-run allocator and --slurm-conf read the jobs' recorded nodes (%s replays every job, whatever hosts its record names)", allocSpec)
	}
	s.Alloc, s.Stdin = allocSpec, e.stdin
	s.TimeZone = envTimeZone(s.TimeZone)
	// The allocator is checked once the trace has been read, as sim always did: a
	// malformed trace is reported first.
	if err := withoutField(s.Validate(), "Alloc"); err != nil {
		return s, specError(err)
	}
	ws, err := s.ResolveContext(ctx)
	if err != nil {
		return s, specError(err)
	}
	printWarnings(e, ws)
	return s, nil
}

// tiesCostNodes is the size from which counting the MC1x1 family's ties on a
// torus or a grid of three or more dimensions is said to be slow (tiesCostWarning).
const tiesCostNodes = 1 << 15

// tiesCostWarning is the warning for a replay that counts the MC1x1 family's ties
// (--metrics ties, in the default all) on a torus, or on a grid of three or more
// dimensions, of more than tiesCostNodes nodes, where they are slow, or "": with
// tie-breaking (mc1x1:tb=...), with mc1x1-greedy, and on grids of four or more
// dimensions the node set of every tied center is worked out, and on such a
// machine nearly every free node ties (a torus's symmetry), so one decision took
// minutes at 10^5 nodes (docs/reliability.md, "200,000 nodes walked"). Plain
// mc1x1 tells most tied sets apart from box counts there too (mayShareArcs:
// torus:46x46x46's first 30 scaled SDSC jobs in 5.5 s of CPU, 74 s before;
// "MC1x1's ties counted from counts on tori and 3D"), as on a 2D mesh. specs are
// the allocators replayed; in names where --metrics is given when not on the
// command line ("the sweep file's flags"), "" for sim's and compare's own flag.
func tiesCostWarning(m topo.Machine, metrics sim.MetricSet, specs []string, in string) string {
	if metrics != 0 && !metrics.Has(sim.MetricsTies) {
		return ""
	}
	g, ok := m.(*topo.Grid)
	if !ok || g.N() <= tiesCostNodes || (len(g.Dims()) < 3 && !slices.Contains(g.Wrap(), true)) {
		return ""
	}
	for _, a := range specs {
		name, arg, _ := strings.Cut(a, ":")
		if name == "mc1x1-greedy" || name == "mc1x1" && (arg != "" || len(g.Dims()) > 3) {
			flag := func(v string) string {
				if in == "" {
					return "--metrics " + v
				}
				return "--metrics " + v + " in " + in
			}
			return fmt.Sprintf("counting %s's ties (%s, in the default all) on %s (%d nodes) can take minutes a decision; they never change the nodes chosen: %s leaves them out", a, flag("ties"), m.Spec(), g.N(), flag("sched,dist,route"))
		}
	}
	return ""
}

// commRow is a row of the network's figures in the sim and compare tables: a
// metric of group comm (metric set), or a parameter (metric nil): the seed, the
// distance classes.
type commRow struct {
	name   string
	value  func(s *sim.Summary) string // s.Comm is not nil
	metric *sim.Metric                 // nil for a parameter's row
	// shown says whether replay s has the row (s.Comm is not nil); nil: every
	// replay with communication has it. sim prints the row where it is shown,
	// compare where some run's is ("-" in the others' cells).
	shown func(s *sim.Summary) bool
}

// commRows are the network's figures of a replay with communication, as the sim
// and compare tables show them (docs/comm.md, "What a replay reports"): the
// metrics of group comm (sim.Metrics), then the seed, a parameter, and the
// message engine's distance classes where it gave the links any.
var commRows = func() []commRow {
	var rows []commRow
	for _, m := range sim.Metrics() {
		if m.Group == sim.MetricsComm {
			rows = append(rows, commRow{name: m.Name, value: func(s *sim.Summary) string { return formatMetric(m, s) }, metric: &m})
		}
	}
	return append(rows,
		commRow{name: "communication seed (--comm-seed)", value: func(s *sim.Summary) string { return strconv.FormatUint(s.Comm.Seed, 10) }},
		commRow{name: "distance classes per link", value: func(s *sim.Summary) string { return strconv.Itoa(s.Comm.DistanceClasses) },
			shown: func(s *sim.Summary) bool { return s.Comm.DistanceClasses > 0 }})
}()

// isShown says whether replay s (with communication) has row r.
func (r commRow) isShown(s *sim.Summary) bool { return r.shown == nil || r.shown(s) }

// patternName is a pattern's own name (nbody is n-body), or s when it names none
// (Validate says so).
func patternName(s string) string {
	if p, err := netsim.ParsePattern(s); err == nil {
		return p.Name()
	}
	return s
}

// printWarnings says on stderr what a replay's files hold that is accepted but
// worth saying (sim.Warning), each once.
func printWarnings(e *env, ws []sim.Warning) {
	for _, w := range ws {
		if _, done := e.warned.LoadOrStore(w, true); done {
			continue
		}
		if flag := specFlag(w.Field); flag != "" && w.Field != "Alloc" {
			e.warnf("%s %s: %s", flag, w.File, w.Text)
		} else {
			e.warnf("%s", w)
		}
	}
}

// readTrace reads the spec's trace ('-': standard input), says on stderr what the
// conversion dropped and sacct records skipped, and keeps it in s.TraceData.
func readTrace(ctx context.Context, e *env, s *sim.Spec) error {
	r, err := openInput(e, s.Trace)
	if err != nil {
		return err
	}
	defer r.Close()
	s.TraceReader = r
	tr, err := s.ReadTraceContext(ctx)
	s.TraceReader = nil
	if hinted := dropHint(err); hinted != nil && ctx.Err() == nil {
		return hinted
	}
	if err != nil {
		return err
	}
	if tr.Filtered > 0 {
		e.notef("%s: %s dropped by the conversion rules (no processors, unknown run time, negative submit time, cancelled before start; see 'procalloc help sim')", s.Trace, textin.CountNoun(tr.Filtered, "SWF record"))
	}
	if n, by := byReason(tr.Skipped); n > 0 {
		e.notef("%s: %s skipped: %s", s.Trace, textin.CountNoun(n, "sacct record"), by)
	}
	if tr.HetJobs > 0 {
		if tr.HetJobs == 1 {
			e.notef("%s: 1 heterogeneous job replayed as one job: its components (JobID N+0, N+1, ...) start together, on their summed nodes", s.Trace)
		} else {
			e.notef("%s: %d heterogeneous jobs replayed as one job each: their components (JobID N+0, N+1, ...) start together, on their summed nodes", s.Trace, tr.HetJobs)
		}
	}
	zone := tr.TimeZone
	if zone == "Local" {
		zone = "the local zone (TZ=" + os.Getenv("TZ") + ")"
	}
	if n, by := byReason(tr.Impossible); n > 0 {
		e.notef("%s: %s skipped: %s (times read in %s; --tz sets the zone)", s.Trace, textin.CountNoun(n, "impossible sacct record"), by, zone)
	}
	s.TraceData = tr
	return nil
}

// skipReasonOne are the reasons slurm.ReadSacct counts records under
// (Trace.Skipped's keys) that are plural nouns, said of one record.
var skipReasonOne = map[string]string{
	"job steps":                     "job step",
	"earlier runs of requeued jobs": "earlier run of a requeued job",
}

// byReason is the total of counts by reason and each reason's count, in the
// reasons' order ("3 job steps, 2 still running"; "1 job step" for one: the
// reasons that are plural nouns have their singular in skipReasonOne): one note
// for all the records a reader skipped, every count kept.
func byReason(counts map[string]int) (total int, by string) {
	var parts []string
	for _, why := range slices.Sorted(maps.Keys(counts)) {
		total += counts[why]
		n, say := counts[why], why
		if one, ok := skipReasonOne[why]; ok && n == 1 {
			say = one
		}
		parts = append(parts, fmt.Sprintf("%d %s", n, say))
	}
	return total, strings.Join(parts, ", ")
}

func init() {
	register(&command{
		name:    "sim",
		summary: "replay a workload trace through a scheduler and an allocator; report allocation quality",
		usage:   "sim --trace FILE (--machine SPEC | --graph FILE) [--hosts FILE | --hostlist EXPR] [--slurm-conf FILE] --alloc SPEC [--sched fcfs|easy|cplant|as-run] [--compat premas|sst] [flags]",
		details: `Replays a trace (SWF 2.2, the 4-column converted format "arrival procs runtime
estimate", or sacct -P output; gzip or bzip2 decompressed as read; the first record tells SWF
from converted; comment lines start with ';' in both, and a '#' line is refused) on a
mesh or torus, a synthetic fat tree or dragonfly (--machine), or a real network
(--graph): jobs arrive,
the scheduler decides when each starts, the allocator which nodes it gets. Run times
are taken from the trace (allocation does not change them). Reported per job and on
average: total and average pairwise hop distance (L1 on grids), span and ring span of
the ranks of the allocator's ordering (Leung et al. 2002 §2.3; --span-curve names the
ordering for other allocators, node indices otherwise), stretch-span, bounding box
volume and sum of sides (grids only; "-" and empty cells on graphs), connected components (on a graph
hosts on one switch are neighbours) and the % of contiguous jobs, wait, response,
slowdown; overall makespan and utilization; for the MC1x1 family how often the best
score was tied (Johnson 2010 Fig. 4; --metrics without ties leaves that out and
makes their decisions faster on large machines, with the same nodes). On a graph only genalg, the curve
allocators (freelist, ff, bf, sos along a built-in graph ordering such as rcm or a
ranking file) and Slurm's own selection (slurm:...) apply; the others place jobs by
coordinates and refuse.

A job that fits the free nodes by count but that the allocator cannot place (bt, sbt,
dbt: no free block of its power of two; slurm:tree, slurm:block and slurm:ring: Slurm
leaves it pending, reason Resources) waits until a release lets it start, under every
scheduler: fcfs and cplant keep the queue behind it waiting; easy reserves for it the
nodes Slurm's will-run test finds at the earliest estimated end and backfills around
them (docs/sim.md, "Jobs that wait for a block"). A job the allocator cannot place even
on the empty machine is refused at the start, named. The summary reports the jobs that
waited for a block, how long, and the extra mean wait against the same replay with
slurm:consec (block_waits in --json; block_wait per job in --per-job).

` + graphHelp + `

--hosts FILE or --hostlist EXPR names the machine's nodes in node-index order (as
curve --format hosts reads them; a graph's own names are replaced): the names that
a slurm:tree or slurm:block topology.conf, an sacct trace's node lists (as-run) and
a host ranking file use. So a mesh ordering meets a topology.conf of real hosts:
--machine mesh:4x4 --hostlist 'node[01-16]' --alloc slurm:tree:topology.conf:hilbert
replays Slurm's topology/tree on those hosts with Weight= along the Hilbert curve.
Without them, nodes are named by index on a grid (0, 1, ...).

sacct traces (--format sacct, or detected from the header): produce them with
  sacct -X -P -a -S START -E END -o ` + sim.SacctFields + `
Job steps, pending jobs, jobs cancelled before they started, jobs still running and
earlier runs of requeued jobs are skipped and counted on stderr (a job cancelled
while pending: NodeList "None assigned", or "(null)" from sacct --completion);
UNLIMITED and Partition_Limit limits are unknown estimates; Procs is NNodes. A
heterogeneous job's components (JobID N+0, N+1, ...: sbatch/srun with ':') are
replayed as one job N of their summed nodes, which every scheduler starts whole:
Slurm starts all components at one time or defers them all. It has one per-job row,
at its first component's line, with the node lists joined, the run time to the last
end and the longest limit; stderr counts such jobs. JobID is needed for this (with
JobIDRaw alone, and in sacct --completion's output, components are separate jobs).
Partition is read; without --slurm-conf sim replays every job on the whole machine.
--slurm-conf FILE keeps each job on the nodes of its partition, as Slurm's select
plugin does, and as plan assigns them: an sacct job in the partition it ran in
(of several, "a,b", the first holding its recorded nodes, else for a heterogeneous
job all of them), a job naming none (SWF, converted, sacct without Partition) or
only partitions slurm.conf lacks in the Default=YES one (without one, on the nodes
of every partition), with warnings counting such jobs; slurm.conf's nodes are
matched by name (--hosts, --hostlist or --graph's names), Include lines followed; a
recorded node outside the job's partition, or a job larger than its partition, is
an error naming its line. With as-run or --slurm-conf, a recorded node the machine
lacks (a retired or renamed node) is an error at its record, unless
--drop-unknown-hosts: the jobs naming one (of the window) are dropped, counted on
stderr ("dropped N jobs naming M hosts MACHINE lacks (first: job J line L host
H)") and in --json's dropped_unknown_hosts and unknown_hosts (with neither, the
flag is warned of and ignored: the other allocators replay every job). Every allocator keeps jobs in their partitions (the nodes
outside a job's partition are marked busy for its decision, and it decides as if jobs
held them): Slurm's selection (slurm:...), as-run, the curve allocators, scbt, plas,
paging:CURVE:0, the center-based ones (mc1x1 and its variants, mc, mm, mminc, genalg,
opt), mbs and the non-contiguous binary trees (ind-*, d-*); bt, sbt, dbt (a job's whole
block is freed with it) and paging with pages of several nodes too, the nodes of a
freed block or page outside the partition held again (a job no block or set of whole
pages of its partition holds stops the replay, naming it).
With jobs of several partitions, fcfs and cplant take each partition's front in
queue order as Slurm's main scheduler does (job_scheduler.c _schedule): a front that
cannot start holds its partition's later jobs and keeps the later fronts off its
partition's nodes; easy reserves for each partition's front, counted on its
partition's nodes, and starts a job only if it delays no reservation ahead of it;
partitions of the same nodes (and tier) are one. A partition's PriorityTier (or
the older Priority=) orders the queue as Slurm's sort_job_queue2 does: the jobs
of a higher tier first, queue order within a tier (every tier equal: no change).
With slurm:tree or slurm:block, which may refuse a job that fits by count, easy's
reservations of several partitions are placed: each front's nodes and start come
from a will-run test on its partition's nodes, off the reservations ahead of it,
and a job starts now only off the reserved nodes its run overlaps. A job its partition's State (DOWN, DRAIN, INACTIVE), MaxNodes, MinNodes or
MaxTime would have kept pending is replayed as the history ran it, with a warning
on stderr counting such jobs and naming the first. docs/sim.md, "Partitions".
Output of several clusters (sacct -L, -M a,b) is refused, since each cluster numbers
its jobs and a repeated id would be taken for a requeued job's earlier run: a Cluster
column naming two clusters, or one id's two records that ran at the same time, tell
it; run sacct -M NAME for one cluster. -P's '|'
is read with or without a last '|' (--parsable); sacct's table (no -P), a header
dropped by -n, --delimiter and times other than SLURM_TIME_FORMAT=standard's (or
"%Y-%m-%dT%H:%M:%S%z", times with their UTC offset, read as they say) are
refused, saying which. sacct --completion prints every job's Start as its Submit, so
such a history has no waits. sacct prints local times: they are read in --tz, else
$TZ, else the system's zone (time_zone in --json names it), so a trace that spans a
daylight-saving change replays differently in another zone; give --tz to replay it
alike on every machine. --alloc as-run places
each job on its recorded NodeList and, with --sched as-run, starts it when production
did: the replay is then production itself. Other allocators under --sched as-run run
on production's schedule too (as many nodes are busy at every moment), so that only the
placement differs: compare --sched as-run --alloc as-run,bf:rcm,genalg scores them.

--comm PATTERN lets communication decide run times (Bunde et al. 2004 §3.2): each job
sends --msgs-per-second messages of --msg-flits flits per second of its trace run time
in PATTERN over the network, shared with the other running jobs, and ends when the last
has arrived; --cycle-seconds converts network cycles to trace seconds. Their product
sets the load: when the jobs run under 1 % of their trace node-seconds (JSON
comm.run_time_fraction, the table's "run time / trace's") a warning says the machine is
nearly idle (docs/comm.md, "The cycle length"). The network's figures (JSON comm:
messages, mean_latency_cycles, max_link_messages, max_link_load, run_time_fraction)
are the metrics comm_messages, comm_mean_latency_cycles, ... of compare --csv,
merge --csv and plot --y. --engine picks
the network model. message (the default) is the message-level wormhole model: a
message holds its whole path, --router-delay cycles per hop, no buffers; on graphs
and dragonflies whose routes could wait in a cycle (found from the routes, no flag)
each router-to-router link has distance classes: a route's h-th such link (h from 0)
is class min(h, C-1), C the most such links of any route (3 on a dragonfly), so it
cannot deadlock; the table's "distance classes per link" and JSON
comm.distance_classes give C (absent on meshes, tori and fat trees, which keep one
channel a link, and with flit). flit is the flit-level model of BookSim2's input-queued router that "procalloc
netsim" validates against BookSim2 (docs/comm.md): --vcs virtual channels per port
(default 1 on a mesh, 2 on a torus, which needs at least 2), --vc-buffer flits per
virtual channel (default 8; from 1, as in BookSim2), router stages of
--routing-delay, --vc-alloc-delay, --sw-alloc-delay and --st-delay cycles (1 each) and
links of --link-delay cycles (1 on a mesh, 2 on a torus). message stays the default
because it is far faster: on the SDSC Paragon log (16x16, n-body, two weeks) a replay
takes about 1 s with it and 75 s with flit, and the replays of
docs/comm-bunde2004.md are made with it; docs/comm.md compares the allocator
rankings of the two. Both are deterministic for a seed (--comm-seed) and stop within a
second of Ctrl-C.

--task-order says which of a job's nodes runs which task of the pattern (with --comm,
and for the static route metrics of --pattern); it never changes the nodes a job gets.
returned (the default, and what replays did before the flag) keeps the order the
allocator returns, which differs by allocator: curve order for freelist/ff/bf/sos,
MC's shells, node index for MC1x1, MM and Gen-Alg. sorted is node index order
(row-major on a mesh); allocator is the order the allocator collected the nodes in
(curve order; MC's shells; MC1x1's L-infinity shells and MM's and Gen-Alg's L1
distance around the center, recovered from the set); curve:NAME ranks them along a
curve (curve:hilbert) or ranking file; random is a permutation seeded by --comm-seed
and the job's number. docs/comm.md ("Task order") has what it changes.

One replay is single-threaded: it keeps one core busy (the Go runtime's garbage
collector may use a little of another). compare --parallel N, batch and sweep -j N
run N replays at once, so N cores.

Ctrl-C (or SIGTERM) stops a replay within one allocation decision; the summary
(and --per-job's rows) of the jobs replayed so far is written, the first jobs of
the trace up to the first one not finished, marked interrupted (the table's first
line; interrupted and jobs_in_trace in --json) and said on stderr, and sim exits
130 (with --comm the network's figures are those of the messages delivered before
the stop). Stopped before any job finished, it writes nothing.

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
worse than MM+Inc) and are counted. It takes meshes and tori of at most 4096 nodes.

--baseline exact bounds every allocation decision: the least total pairwise distance
(the one the replay measures: L1 on a mesh, the shorter way round on a torus, hops on a
fat tree or dragonfly) of any k nodes free at that moment. Every decision gets a proven
lower bound (meshes: the unconstrained optimal cluster of Bender et al. 2005 and the
star and per-dimension bounds; tori: the star and per-dimension bounds, which account
for wraparound, and the lattice optimum where it provably holds; then the exact branch and bound, whose bound is kept when it stops at
--baseline-time-limit; fat trees and dragonflies: the least cost over the switch tree,
exact on fat trees). It reports mean_ratio_to_optimal (over the decisions proven
optimal), baseline_proven and baseline_proven_decisions, and for every decision a
certified interval of the ratio: mean_ratio_to_optimal_upper (total over the proven
lower bound, over the baseline_bounded fraction of decisions) and
mean_ratio_to_optimal_lower (total over the best found); --by-size has them per size,
--per-job five columns. Which decisions are proven on meshes and tori depends on the
machine's speed (and load); the bounds on fat trees and dragonflies, and the
allocator's own decisions, do not. Other graphs are refused.`,
		example: `procalloc sim --trace sim/testdata/LLNL-T3D-1996-2.converted.txt.gz --machine mesh:16x16 --alloc mc1x1 --compat premas
procalloc sim --trace ../shared/traces/KTH-SP2-1996-2.1-cln.swf.gz --machine mesh:10x10 --alloc mc1x1:tb=2,13,20,6 --sched easy --json
procalloc sim --trace ../shared/traces/KTH-SP2-1996-2.1-cln.swf.gz --machine mesh:16x16 --alloc bf:hilbert --per-job jobs.csv --work 1.5
procalloc sim --trace ../shared/traces/KTH-SP2-1996-2.1-cln.swf.gz --machine mesh:16x16 --convert kth.txt
procalloc sim --trace sim/testdata/sacct-fattree.txt --graph topo/testdata/fattree.ibnetdiscover --node-name-map topo/testdata/fattree.node-name-map --alloc bf:rcm --sched easy
procalloc sim --trace sim/testdata/sacct-fattree.txt --graph topo/testdata/topology.conf --alloc as-run --sched as-run
procalloc sim --trace sim/testdata/sacct-fattree-retired.txt --graph topo/testdata/topology.conf --alloc as-run --sched as-run --drop-unknown-hosts
procalloc sim --trace sim/testdata/sacct-fattree.txt --graph topo/testdata/topology.conf --alloc slurm:tree:topo/testdata/topology.conf --sched as-run
procalloc sim --trace sim/testdata/sacct-fattree.txt --graph blocks.conf --alloc slurm:block:blocks.conf:rcm --sched as-run
procalloc sim --trace sim/testdata/sacct-fattree.txt --graph topo/testdata/topology.conf --alloc slurm:ring:rings.yaml --sched easy
procalloc sim --trace sim/testdata/sacct-fattree.txt --graph topo/testdata/topology.conf --alloc slurm:ring:rings.conf --sched easy
procalloc sim --trace sim/testdata/sacct-fattree.txt --machine mesh:4x4 --hostlist 'node[01-16]' --alloc slurm:tree:topo/testdata/topology.conf:hilbert --sched as-run
procalloc sim --trace sim/testdata/sacct-fattree.txt --machine mesh:4x4 --hostlist 'node[01-16]' --slurm-conf partitions.conf --alloc slurm:consec --sched easy
procalloc sim --trace ../shared/traces/LANL-CM5-1994-4.1-cln.swf.gz --machine mesh:32x32 --alloc bt --sched easy --metrics sched
procalloc sim --trace ../shared/traces/KTH-SP2-1996-2.1-cln.swf.gz --machine fattree:4,4:4,4:8 --alloc genalg --span-curve rcm
procalloc sim --trace ../shared/traces/KTH-SP2-1996-2.1-cln.swf.gz --machine dragonfly:hosts_per_router=4,routers_per_group=32,intergroup_links=3,num_groups=80 --alloc bf:rcm --replicate 9 --metrics sched
procalloc sim --trace ../shared/traces/SDSC-Par-1996-3.1-cln.swf.gz --machine mesh:16x16 --from 1996-10-01 --to 1996-10-15 --drop-larger --comm n-body --alloc bf:hilbert --engine flit --vcs 2 --vc-buffer 16
procalloc sim --trace ../shared/traces/SDSC-Par-1996-3.1-cln.swf.gz --machine mesh:16x16 --from 1996-10-01 --to 1997-01-01 --drop-larger --comm n-body --alloc mc --task-order sorted
procalloc sim --trace sim/testdata/LLNL-T3D-1996-2.converted.txt.gz --machine mesh:16x16 --alloc mm --compat premas --no-memo --json
procalloc sim --trace sim/testdata/LLNL-T3D-1996-2.converted.txt.gz --machine mesh:16x16 --alloc mc1x1 --compat premas --baseline exact --baseline-time-limit 100ms --by-size
procalloc sim --trace ../shared/traces/LANL-CM5-1994-4.1-cln.swf.gz --machine fattree:16,16:16,16:32 --alloc slurm:consec --baseline exact --by-size
procalloc sim --trace ../shared/traces/KTH-SP2-1996-2.1-cln.swf.gz --format swf --skip-bad --max-jobs 5000000 --machine mesh:16x16 --contract 0.8 --replicate 4 --perturb 600 --seed 3 -o t.result
procalloc sim --trace sim/testdata/sacct-fattree.txt --format sacct --tz America/Denver --machine mesh:4x4 --hosts nodes.txt --alloc bf:hilbert --pattern n-body --msg-flits 16 --flit-bytes 8
procalloc sim --trace ../shared/traces/KTH-SP2-1996-2.1-cln.swf.gz --machine mesh:16x16 --comm random --comm-seed 5 --msgs-per-second 0.01 --cycle-seconds 1e-8 --router-delay 2
procalloc sim --trace ../shared/traces/KTH-SP2-1996-2.1-cln.swf.gz --machine dragonfly:hosts_per_router=2,routers_per_group=4,intergroup_links=1,num_groups=13 --alloc bf:rcm --to 1996-10-08 --comm all-to-all
procalloc sim --trace ../shared/traces/KTH-SP2-1996-2.1-cln.swf.gz --machine torus:8x8 --drop-larger --to 1996-10-08 --comm n-body --engine flit --vcs 2 --routing-delay 1 --vc-alloc-delay 1 --sw-alloc-delay 1 --st-delay 1 --link-delay 2
procalloc sim --trace sim/testdata/sacct-fattree.txt --graph topo/testdata/topology.yaml --graph-format slurm-topology-yaml --topology fabric --alloc bf:rcm --comm n-body --engine flit --vcs 8 --hop-classes`,
		yourFiles: []yourFile{yourBlocks, yourNodes, {"partitions.conf", "your site's slurm.conf, its nodes node[01-16] in partitions batch and debug"}, {"rings.yaml", "your site's topology.yaml with a ring topology (Slurm 26.05 and later), its nodes node[01-16]"}, {"rings.conf", "your site's topology.conf of RingName= lines (TopologyPlugin=topology/ring, Slurm 26.05 and later), its nodes node[01-16]"}},
		flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
			var sf simFlags
			sf.declare(fs) // --alloc, --baseline, --json and --by-size included
			perJob := fs.String("per-job", "", "write one CSV row per job to `FILE`, in trace order, as jobs finish")
			convert := fs.String("convert", "", "write the (scaled) trace in the 4-column converted format to `FILE` and exit")
			out := fs.String("o", "", "write the result to `FILE` instead of stdout")
			return func(ctx context.Context, e *env, args []string) error {
				if len(args) > 0 {
					return usagef("unexpected arguments %q", args)
				}
				if *convert != "" && sf.value("machine") == "" && sf.value("graph") == "" {
					fs.Set("machine", "mesh:1") // not used
				}
				asJSON, bySize := sf.value("json") == "true", sf.value("by-size") == "true"
				if specs := splitAllocSpecs(sf.value("alloc")); len(specs) > 1 {
					// It said "unknown allocator \"mc1x1,mm\"".
					return usagef("--alloc %q names %d allocators; sim replays one (compare --alloc %s replays them side by side)", sf.value("alloc"), len(specs), sf.value("alloc"))
				}
				spec, err := sf.spec(ctx, e, sf.value("alloc"))
				if err != nil {
					return err
				}
				if w := tiesCostWarning(spec.Machine, spec.Metrics, []string{spec.Alloc}, ""); w != "" {
					e.warnf("%s", w)
				}
				if err := readTrace(ctx, e, &spec); err != nil {
					return err
				}
				rp, err := spec.Prepare()
				if err != nil {
					return specError(err)
				}
				if d := rp.DroppedUnknownHosts; d.Jobs > 0 {
					e.notef("%s", d.Note())
				}
				if *convert != "" {
					return writeOutputs(e, namedOutput{"--convert", *convert, func(w io.Writer) error { return sim.WriteConverted(w, rp.AllJobs()) }})
				}
				// The replay reports every finished job; the bar is redrawn from
				// the count on its own clock, so it also moves (elapsed time)
				// while one decision takes long.
				var jobsDone atomic.Int64
				rp.Spec.Progress = func(done, _ int) { jobsDone.Store(int64(done)) }
				jobs := rp.NumJobs()
				p := newProgress(e, "sim "+spec.Alloc, int64(jobs))
				stopBar := p.live(func() (int64, string) {
					d := jobsDone.Load()
					return d, fmt.Sprintf("%d/%d jobs", d, jobs)
				})
				// Node lists are not kept: the per-job rows are written as jobs
				// finish, so memory does not grow with the trace's length by them.
				var rep *sim.Report
				// stopped is why the replay stopped early (Ctrl-C) when rep holds
				// the jobs replayed before, marked interrupted: they are written,
				// --per-job's rows too, as the other commands write what they have.
				var stopped error
				replay := func() error {
					r, err := rp.Run(ctx)
					if err != nil && r == nil && ctx.Err() != nil {
						// Stopped before the trace's first job finished (one
						// decision can take minutes on 2 x 10^5 nodes: mc1x1:tb's
						// ties on a 3D torus): say so, not a bare "interrupted".
						return fmt.Errorf("the trace's first job (of %d) had not finished: nothing written; stopped: %w", jobs, err)
					}
					if err != nil && (r == nil || !r.Interrupted) {
						return err
					}
					rep, stopped = r, err
					return nil
				}
				// The per-job rows are staged as jobs finish and moved into place
				// with -o: the two all or none.
				var staged []*output
				if *perJob != "" {
					var rows *output
					rows, err = stageStream(e, "--per-job", *perJob, func(w io.Writer) error {
						pw := newPerJobCSV(w, rp)
						rp.Spec.JobDone = pw.write
						if err := replay(); err != nil {
							return err
						}
						return pw.flush()
					})
					if rows != nil {
						staged = append(staged, rows)
					}
				} else {
					err = replay()
				}
				stopBar()
				printWarnings(e, rp.Warnings())
				if err != nil {
					return specError(err)
				}
				// A communication replay whose jobs ran a sliver of their trace run
				// times leaves the machine nearly idle: its table looks fine.
				if w := rep.Summary.Comm.NearlyIdle(rep.Summary.Utilization); w != "" {
					e.warnf("%s", w)
				}
				err = commitOutputs(e, staged, namedOutput{"-o", *out, func(w io.Writer) error {
					if asJSON {
						return writeJSON(w, rep)
					}
					return printSimSummary(w, rep, spec.Metrics, bySize)
				}})
				if err == nil && stopped != nil {
					return fmt.Errorf("the first %d jobs of %d, replayed so far, were written, marked interrupted; stopped: %w", rep.Jobs, rep.JobsInTrace, stopped)
				}
				return err
			}
		},
	})
}

func printSimSummary(w io.Writer, o *sim.Report, metrics sim.MetricSet, bySize bool) error {
	s := o.Summary
	fmt.Fprintf(w, "%s on %s, %s scheduling, compat %s: %s", s.Alloc, s.Machine, s.Sched, s.Compat, textin.CountNoun(s.Jobs, "job"))
	if o.BadLines > 0 {
		fmt.Fprintf(w, " (%s skipped)", textin.CountNoun(o.BadLines, "malformed line"))
	}
	if o.DroppedLarger > 0 {
		if o.DroppedLarger == 1 {
			fmt.Fprintf(w, " (1 job larger than the machine or its partition dropped)")
		} else {
			fmt.Fprintf(w, " (%d jobs larger than the machine or their partition dropped)", o.DroppedLarger)
		}
	}
	if o.DroppedUnknownHosts > 0 {
		fmt.Fprintf(w, " (%s naming %s the machine lacks dropped)", textin.CountNoun(o.DroppedUnknownHosts, "job"), textin.CountNoun(o.UnknownHosts, "host"))
	}
	if s.Interrupted {
		fmt.Fprintf(w, " (interrupted: the first %d of %d jobs, replayed before the stop)", s.Jobs, s.JobsInTrace)
	}
	fmt.Fprintln(w)
	t := newTable(w, "metric", "value")
	for _, m := range sim.Metrics() {
		if m.Group != sim.MetricsComm { // the network's rows come below, with --comm
			t.row(m.Name, formatMetric(m, &s))
		}
	}
	if s.RouteSummary != nil {
		t.row("route metrics pattern", s.RoutePattern)
	} else {
		t.row("route metrics", "not computed (--metrics without route)")
	}
	if s.PairwiseL1 == nil {
		t.row("pairwise distances", "not computed (--metrics without dist)")
	}
	if b := s.BlockWaits; b != nil {
		t.row("jobs that waited for a block", fmt.Sprintf("%d of %d", b.Jobs, s.Jobs))
		t.row("mean block wait (s)", fmt.Sprintf("%.1f", b.MeanBlockWait))
		t.row("max block wait (s)", strconv.FormatInt(b.MaxBlockWait, 10))
		if b.ConsecMeanWait != nil {
			t.row("mean wait with slurm:consec (s)", fmt.Sprintf("%.1f", *b.ConsecMeanWait))
			t.row("extra mean wait for blocks (s)", fmt.Sprintf("%.1f", *b.ExtraMeanWait))
		}
	}
	if c := s.Comm; c != nil {
		for _, r := range commRows {
			if r.isShown(&s) {
				t.row(r.name, r.value(&s))
			}
		}
		if f := c.Flit; f != nil {
			// Short rows: one long value pushed every value of the table right.
			t.row("flit engine: VCs x buffer (flits)", fmt.Sprintf("%d x %d", f.VCs, f.VCBuffer))
			t.row("flit engine: stages RT/VA/SA/ST, link", fmt.Sprintf("%d/%d/%d/%d, %d", f.RoutingDelay, f.VCAllocDelay, f.SwitchAllocDelay, f.SwitchDelay, f.LinkDelay))
			t.row("flit-hops", strconv.FormatInt(f.FlitHops, 10))
		}
	}
	for _, r := range baselineRows(&s) {
		t.row(r[0], r[1])
	}
	if f := s.Fallbacks; f != nil {
		t.row("exact decisions unproven (fallback)", fmt.Sprintf("%d of %d", f.Fallbacks, f.Decisions))
	}
	if s.Ties != nil {
		t.row("tied decisions", fmt.Sprintf("%d of %d (%.1f%%)", s.Ties.Tied, s.Ties.Decisions, s.Ties.PctTied))
		t.row("avg # tied", fmt.Sprintf("%.1f", s.Ties.AvgNumTied))
	} else if !metrics.Has(sim.MetricsTies) {
		t.row("tie statistics", "not computed (--metrics without ties)")
	}
	if c := s.Compactness; c != nil {
		t.row("mean free squares (D)", fmt.Sprintf("%.2f", c.MeanFreeSquares))
		t.row("% spatially compact", fmt.Sprintf("%.1f", c.PctSpatiallyCompact))
	} else if !metrics.Has(sim.MetricsCompact) {
		t.row("free squares (D)", "not computed (--metrics without compact)")
	}
	if err := t.flush(); err != nil {
		return err
	}
	if bySize {
		fmt.Fprintln(w)
		cols := []string{"procs", "jobs", "mean total L1", "mean avg L1", "mean wait", "% contiguous"}
		if s.MeanRatioToOptimal != nil {
			cols = append(cols, "ratio to optimal", "% proven", "ratio certified")
		}
		t := newTable(w, cols...)
		for _, b := range s.BySize {
			tot, avg := "-", "-"
			if b.PairwiseL1 != nil {
				tot, avg = fmt.Sprintf("%.3f", b.MeanTotalPairwiseL1), fmt.Sprintf("%.3f", b.MeanAvgPairwiseL1)
			}
			row := []string{strconv.Itoa(b.Procs), strconv.Itoa(b.Jobs), tot, avg, fmt.Sprintf("%.1f", b.MeanWait), fmt.Sprintf("%.1f", b.PctContiguous)}
			if b.MeanRatioToOptimal != nil {
				row = append(row, provenRatio(*b.MeanRatioToOptimal, *b.BaselineProven), fmt.Sprintf("%.1f", 100**b.BaselineProven),
					fmt.Sprintf("%.4f .. %.4f", *b.MeanRatioToOptimalLower, *b.MeanRatioToOptimalUpper))
			}
			t.row(row...)
		}
		return t.flush()
	}
	return nil
}

// provenRatio is the table's cell of a mean ratio to optimal over the decisions
// proven: "-" when none was (the JSON's mean then reads 0, a mean over nothing,
// which a table must not show as a ratio).
func provenRatio(mean, proven float64) string {
	if proven == 0 {
		return "-"
	}
	return fmt.Sprintf("%.4f", mean)
}

// nowFunc is the clock of compare's replay timings (tests stop a compare with it).
var nowFunc = time.Now

// formatMetric is a metric's value in a table.
func formatMetric(m sim.Metric, s *sim.Summary) string {
	if !m.Has(s) {
		return "-"
	}
	return strconv.FormatFloat(m.Value(s), 'f', m.Prec, 64)
}

// baselineRows are the table rows of an exact baseline's figures (sim --baseline,
// compare --baseline): name and value; none without a baseline.
func baselineRows(s *sim.Summary) [][2]string {
	if s.MeanRatioToOptimal == nil {
		return nil
	}
	return [][2]string{
		{"mean ratio to optimal (proven)", provenRatio(*s.MeanRatioToOptimal, *s.BaselineProven)},
		{"baseline decisions proven", fmt.Sprintf("%.1f%% (%d of %d)", 100**s.BaselineProven, *s.BaselineProvenDecisions, *s.BaselineDecisions)},
		{"ratio to optimal, certified (all decisions)", fmt.Sprintf("%.4f .. %.4f", *s.MeanRatioToOptimalLower, *s.MeanRatioToOptimalUpper)},
		{"baseline decisions bounded", fmt.Sprintf("%.1f%%", 100**s.BaselineBounded)},
	}
}

// perJobCSV writes one CSV row per job (sim.Config.JobDone), as the replay passes
// them on (the route metrics', distances' and ties' cells empty when they were not
// computed, the bounding box's on a graph, which has no coordinates; block_wait,
// the time from the first refusal for want of a block to the start, empty for a
// job never refused); with the exact baseline, five more
// columns before nodes: the optimum (or best found), whether it was proven, the
// ratio (0 when not proven), the proven lower bound and the total over it (the
// certified upper bound of the ratio, empty when there is none).
type perJobCSV struct {
	cw       *csv.Writer
	baseline bool
	noRoute  bool // route metrics not computed: their cells are empty
	noDist   bool // pairwise distances not computed: their cells are empty
	noTies   bool // tie statistics not computed: the ties cell is empty
	noBox    bool // a graph, no coordinates: the bounding box's cells are empty
	row      []string
	nodes    []byte
}

func newPerJobCSV(w io.Writer, rp *sim.Replay) *perJobCSV {
	m := rp.Spec.Metrics
	p := &perJobCSV{cw: csv.NewWriter(w), baseline: rp.Spec.Baseline != nil,
		noRoute: !m.Has(sim.MetricsRoute), noDist: !m.Has(sim.MetricsDist), noTies: !m.Has(sim.MetricsTies),
		noBox: !sim.HasCoordinates(rp.Machine)}
	head := []string{"id", "line", "arrival", "start", "end", "procs", "runtime", "estimate", "wait", "response",
		"slowdown", "total_pairwise_l1", "avg_pairwise_l1", "span", "ring_span", "bbox_volume", "bbox_sides", "components", "ties",
		"messages", "message_hops", "message_distance", "hop_bytes", "max_routes_on_a_link", "block_wait"}
	if p.baseline {
		head = append(head, "opt_total_pairwise_l1", "opt_proven", "ratio_to_optimal", "opt_lower_bound", "ratio_to_optimal_upper")
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
	if p.noRoute {
		row = append(row[:len(row)-5], "", "", "", "", "")
	}
	if p.noDist {
		row[11], row[12] = "", ""
	}
	if p.noTies {
		row[18] = ""
	}
	if p.noBox {
		row[15], row[16] = "", ""
	}
	blockWait := "" // the job was never refused for want of a block
	if j.WaitedForBlock {
		blockWait = i64(j.BlockWait)
	}
	row = append(row, blockWait)
	if p.baseline {
		upper := ""
		if j.OptBounded {
			upper = strconv.FormatFloat(j.RatioUpper, 'f', 6, 64)
		}
		row = append(row, i64(j.OptTotalL1), strconv.FormatBool(j.OptProven), strconv.FormatFloat(j.RatioToOptimal, 'f', 6, 64),
			i64(j.OptLowerBound), upper)
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
