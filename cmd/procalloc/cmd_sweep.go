package main

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/procalloc/procalloc/internal/buildid"
	"github.com/procalloc/procalloc/internal/textin"
	"github.com/procalloc/procalloc/sim"
	"github.com/procalloc/procalloc/sim/sweep"
	"github.com/procalloc/procalloc/slurm"
	"github.com/procalloc/procalloc/topo"
)

// sweepOutput is the JSON of "procalloc sweep".
type sweepOutput struct {
	Sweep   string `json:"sweep"`
	Results string `json:"results"`
	Shard   string `json:"shard"`
	Items   int    `json:"items"`   // items of this shard
	Skipped int    `json:"skipped"` // already done in the results file
	Ran     int    `json:"ran"`
	Failed  int    `json:"failed"`
	Stopped bool   `json:"stopped"` // interrupted: rerun to finish
	// notApplicable counts the failed items whose allocator does not apply to
	// their machine (sweep.Params.NotApplicable): no rerun mends them.
	notApplicable int
}

// shardFromEnv returns the shard of a Slurm array task (slurm.ArrayShard); an array
// that gives no shard is an error asking for --shard.
func shardFromEnv(getenv func(string) string) (i, n int, ok bool, err error) {
	i, n, ok, err = slurm.ArrayShard(getenv)
	if err != nil {
		return 0, 0, false, fmt.Errorf("%w; use --shard i/n", err)
	}
	return i, n, ok, nil
}

func parseShard(s string) (i, n int, err error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return 0, 0, fmt.Errorf("--shard %q: want i/n with 0 <= i < n, e.g. 0/4", s)
	}
	return i, n, nil
}

func init() {
	register(&command{
		name:       "sweep",
		dirOutputs: []string{"per-job"}, // --per-job DIR
		summary:    "run a grid of replays from a sweep file (YAML or JSON), sharded, resumable; --sbatch for Slurm job arrays",
		usage:      "sweep SPEC|- -o RESULTS.jsonl [--shard i/n] [-j N] | sweep SPEC --sbatch --shards N | sweep SPEC|- --list",
		details: `A sweep file lists what to vary; the sweep is the product of the lists:

  name: bunde2004                  # optional; default: the file's name
  traces: [SDSC-Par-1996-3.1-cln.swf.gz]   # relative to the sweep file
  machines: [mesh:16x22, mesh:16x16]
  allocators: [bf:hilbert-trunc, mc, mc1x1, genalg]
  schedulers: [fcfs]               # default [fcfs]
  contract: [1, 0.8, 0.6, 0.4, 0.2]  # load factors (sim --contract); default [1]
  patterns: [all-to-all, n-body]   # sim --comm; "none" replays without; default [none]
  seeds: [1]                       # sim --seed and --comm-seed; default [1]; see below
  engines: [message, flit]         # sim --engine (with patterns); default [message]
  flags: [--from, 1996-10-01, --to, 1997-01-01, --drop-larger]   # other sim flags, e.g. --vcs 2
                                   # or --hostlist, 'node[0001-0352]' (host names, as sim)

JSON with the same keys works too. An unknown key is an error naming it and its line;
so, before any item runs, are an unknown machine kind or allocator and flags that
would fail every item (an unknown flag, a value that does not parse), and flags that
set what a key sets (--alloc, --sched, --contract, --comm, --seed, --comm-seed,
--engine, --trace, --machine but empty beside --graph): the results would name the
key's entry. Relative file names in the file (traces, files the flags name such as
--hosts or --graph, an allocator's ranking file or topology.conf) are read from the
sweep file's directory, wherever the sweep is started. A run (not --sbatch or
--list) also refuses, before any item runs, a file its items name that is not there.
Items are numbered in one fixed order: traces, machines, schedulers, load factors,
patterns, seeds, engines, then allocators innermost. Each item is the replay "procalloc sim"
runs with the same flags (the library's, in this process); all cores are used (-j).
Results do not depend on -j, --shard, the machine or the directory the sweep runs
from (apart from the timings, which merge leaves out), with two exceptions: an sacct
trace's local times are read in the zone of $TZ where each item runs unless flags
give --tz, so give it (flags: [--tz, UTC]) when shards or reruns may run elsewhere
(each result names its zone, time_zone); and --baseline exact finds and proves what
it can within --baseline-time-limit, which depends on the machine's speed.

An item with a pattern replays with communication (sim --comm): its result has the
network's figures (comm: messages, mean latency, busiest link, run time fraction),
the metrics comm_messages, comm_mean_latency_cycles, comm_max_link_messages,
comm_max_link_load and comm_run_time_fraction of merge --csv and plot --y; items of
pattern none have none of them (empty cells, not zeros). On a dragonfly or graph
whose routes could wait in a cycle the message engine gives the links distance
classes by itself, so engines: [message] runs there to the end (comm.distance_classes
in the result says how many; docs/comm.md, "Deadlock"). examples/comm-dragonfly.yaml
is such a sweep over a mesh and a dragonfly, with the merge and plot to follow.

SPEC may be - to read the sweep file from standard input: relative file names are
then taken from the current directory, and the sweep is named "stdin" unless it has a
name: key. Results and resuming work as with a file (items are known by their
parameters); --sbatch needs a file, which the array tasks read.

Results (-o): one JSON line per finished item, appended whole and flushed to disk:
{"sweep", "sweep_id" (a hash of the grid), "build" (the procalloc build that ran
it, as "procalloc version" names it), "index", "key" (a hash of the item's
parameters), "params", "status" (ok or failed), "error", "result" (the item's sim
--json), "seconds", "alloc_time" (the time inside the allocator)}; merge leaves out
the timings, seconds and alloc_time. A rerun skips items
already done, so a killed or preempted run resumes where it stopped; a torn last
line is cut off and its item redone; a damaged line elsewhere (spliced or cut short)
is skipped with a warning and its item redone; failed items are retried. Editing the
sweep file changes the keys of the items it changes, never old results. A results
file of another sweep (another name), or a file in which no line is a results line,
is refused.
The results file is locked (flock) while a sweep writes it: a second sweep on the
same file stops with "another process is writing this results file" before running
anything. Run concurrent sweeps (shards) into files of their own and merge them. On
a file system without flock (Lustre without -o flock) a warning says so and the
sweep runs unlocked.
-o may name a device or FIFO (/dev/null, /dev/stdout): lines are then written
through, nothing is read back or synced, so nothing resumes. A failed write (a full
disk; /dev/full's "no space left on device") stops the sweep at the first line that
failed, exit 1.

Before the first item runs (and for --sbatch and --list) the machine specs and the allocator
names are checked: a bad one is an error naming its entry, not a failed item per
trace; so are the schedulers, patterns and engines (a misspelt one is an error naming
its line, two spellings of one pattern, nbody and n-body, are one value listed twice). So is an allocator that applies to none of the machines (bf:hilbert, which
needs a 2^k x 2^k mesh, on mesh:10x10; a misspelt argument): each allocator is built
on each machine of up to 65,536 nodes. Allocators that apply to some machines only
(mc1x1 beside a fat tree) are a warning, one line per machine naming those whose
items there will fail; a sweep file without them or the machine leaves them out.
The traces, and the files an allocator reads (a ranking), are checked by the items.
A seed changes a replay only through the replicas of --replicate N (flags), the
random pattern (patterns: [random]), --task-order random and the flit engine's
ties (engines: [flit]); several seeds without any of these would replay the same
items once per seed and are refused.
Limits (errors naming them, rather than running out of memory): a sweep file of at
most 4 MiB and 1,000,000 items (the product of its lists' lengths); results lines of
at most 16 MiB and results files of at most 8 GiB. Of a sweep file's decoding errors
(an entry of the wrong type: a list where a value goes), the first 10 are listed and
the rest counted ("N more errors not listed"). A value listed twice in a list
(contract: [1, 1.0], seeds: [1, 1]) would make two items one replay and is refused;
so are seeds that are not integers from 0 to 2^64-1 and control characters (a
newline) in the name, list entries and flags.

Sharding: --shard i/n runs the items whose index mod n is i. Inside a Slurm array
task, without --shard, i is (SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN) /
SLURM_ARRAY_TASK_STEP and n is SLURM_ARRAY_TASK_COUNT, for arrays --array=MIN-MAX:STEP
(a list such as --array=1,3,7 needs --shard). --sbatch prints a ready sbatch script
for --shards tasks (at most 4,000,001, Slurm's largest MaxArraySize), every path and
name in it quoted for the shell, each task asking for --cpus CPUs (default 2; also
its -j): on nodes with fewer, sbatch refuses the script with "CPU count per node can
not be satisfied", so give --cpus 1 there (the loopback cluster of
scripts/slurm-cluster.sh has 1-CPU nodes). Add your site's #SBATCH lines
(--partition, --time) to the script; the results files and the tasks' logs go to
the directory sbatch runs in; "procalloc merge" then joins the shards' files. The
script gives each task --shard TASK_ID/N, so "sbatch --array=3,7 SCRIPT" reruns tasks
3 and 7 alone (before, a task resubmitted alone took its shard from Slurm's
variables, which then describe an array of one task, and ran every item). More
--shards than items is a warning naming the tasks that would run nothing.
--list prints the items (with --shard i/n, the shard's) and exits, after the checks
a run makes before its first item (the same errors and exit 1, the same warnings).

--per-job DIR writes each item's per-job rows (the CSV of sim --per-job) to
DIR/KEY.csv as the item runs, KEY being the item's key in the results file (and in
--list); a file appears whole when its item ends, and a redone item rewrites it.
Items already done in the results file are not rerun, so they get no file: a
warning counts those DIR lacks (run into a new results file for their rows).
A run killed with SIGKILL leaves hidden temporaries, .KEY.csv.procalloc-HOST-PID-N;
the next sweep over DIR removes those of this host whose process no longer runs.
Those of live processes (concurrent shards) and of other hosts (shards on other
nodes of a shared file system, whose processes cannot be seen from here) stay:
remove those by hand once their runs have ended.`,
		example: `procalloc sweep examples/demo-sweep.yaml -o demo.jsonl
procalloc sweep examples/comm-dragonfly.yaml -o comm.jsonl
procalloc sweep - --list < examples/demo-sweep.yaml
procalloc sweep examples/bunde2004.yaml --shard 2/4 -o bunde.shard-2.jsonl
mkdir -p perjob && procalloc sweep examples/demo-sweep.yaml -o demo-perjob.jsonl --per-job perjob/
procalloc sweep examples/bunde2004.yaml --sbatch --shards 16 > bunde.sbatch && sbatch bunde.sbatch
procalloc sweep examples/bunde2004.yaml --sbatch --shards 16 --cpus 8 -o bunde.jsonl > bunde.sbatch
procalloc sweep examples/demo-sweep.yaml -o demo.jsonl -j 4 --json
procalloc merge bunde.shard-*.jsonl --spec examples/bunde2004.yaml -o bunde.jsonl --csv bunde.csv`,
		yourFiles: []yourFile{yourShards},
		flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
			out := fs.String("o", "", "append results to `FILE` (plain JSON lines, not compressed; created if missing; locked while the sweep runs)")
			shard := fs.String("shard", "", "run shard `i/n`: the items whose index mod n is i (default: from the Slurm array environment, else all)")
			jobs := fs.Int("j", runtime.GOMAXPROCS(0), "items run at the same time")
			sbatch := fs.Bool("sbatch", false, "print an sbatch script that runs the sweep as a Slurm job array of --shards tasks, and exit")
			shards := fs.Int("shards", 4, "array tasks of the --sbatch script (1 to 4000001)")
			cpus := fs.Int("cpus", 2, "CPUs per array task in the --sbatch script (and -j of each task)")
			list := fs.Bool("list", false, "print the items (index, key, parameters; with --json a JSON array of index, key, params, args) and exit")
			asJSON := fs.Bool("json", false, "print a JSON summary at the end")
			perJob := fs.String("per-job", "", "write each item's per-job CSV (sim --per-job) to `DIR`/KEY.csv, KEY being the item's key")
			return func(ctx context.Context, e *env, args []string) error {
				if len(args) != 1 {
					return usagef("want one sweep file (or - for standard input), got %d arguments", len(args))
				}
				if *sbatch && args[0] == "-" {
					return usagef("--sbatch needs the sweep file's path, which the array tasks read: not - (standard input)")
				}
				if *sbatch && (*shards < 1 || *shards > maxArrayTasks || *cpus < 1) {
					return usagef("--shards %d --cpus %d: want 1 <= --shards <= %d (Slurm's largest MaxArraySize) and --cpus >= 1", *shards, *cpus, maxArrayTasks)
				}
				spec, err := readSpec(e, args[0])
				if err != nil {
					return err
				}
				items := spec.Items()
				if *list {
					if *shard != "" { // the shard's items; a wrong --shard is an error here too
						i, n, err := parseShard(*shard)
						if err != nil {
							return usageError{err.Error()}
						}
						if items, err = sweep.Shard(items, i, n); err != nil {
							return usageError{err.Error()}
						}
					}
					if *sbatch || *out != "" || *perJob != "" {
						// --list prints and exits: a results file, per-job directory
						// or script would be ignored without a word.
						return usagef("--list prints the items and exits: it takes no --sbatch, -o or --per-job")
					}
					// A preview checks what the run would: a sweep file the run
					// refuses (an allocator on none of its machines, seeds no item
					// uses) is refused here with the same exit, and its warnings
					// are shown; a --list that printed the items in silence hid them.
					if err := checkSpec(e, args[0], spec); err != nil {
						return err
					}
					if *asJSON {
						type listed struct {
							Index  int          `json:"index"`
							Key    string       `json:"key"`
							Params sweep.Params `json:"params"`
							Args   []string     `json:"args"` // sim's flags that replay it
						}
						out := make([]listed, len(items))
						for i, it := range items {
							out[i] = listed{it.Index, it.Key, it.Params, it.Params.Args("")}
						}
						return writeJSON(e.stdout, out)
					}
					w := bufio.NewWriter(e.stdout)
					for _, it := range items {
						fmt.Fprintf(w, "%d\t%s\t%s\n", it.Index, it.Key, strings.Join(it.Params.Args(""), " "))
					}
					return w.Flush()
				}
				if err := checkSpec(e, args[0], spec); err != nil {
					return err
				}
				if *sbatch && *asJSON {
					return usagef("--json does not go with --sbatch: its output is the script (each array task's summary can be JSON: put --json in the script's command)")
				}
				if *sbatch {
					if len(items) < *shards {
						e.warnf("--shards %d for %d items: array tasks %d to %d run nothing (--shards %d gives each task one item)", *shards, len(items), len(items), *shards-1, len(items))
					}
					return writeSbatch(e.stdout, args[0], spec, *shards, *cpus, *out)
				}
				if *out == "" {
					return usagef("-o RESULTS.jsonl is required: results are appended there")
				}
				if *out == "-" {
					// Elsewhere "-o -" is standard output; here it made a file named "-".
					return usagef("-o -: a sweep appends its results to a file it reads back to resume; give a file (or -o /dev/stdout to stream the lines, without resuming)")
				}
				if format, plain := textin.CompressedName(*out); format != "" {
					// A new (or empty) results file under a compressed name would hold
					// plain lines, which gzip -dc refuses ("not in gzip format"); an
					// existing one is told by its content (sweep.OpenResults).
					if st, err := os.Stat(*out); err != nil || st.Mode().IsRegular() && st.Size() == 0 {
						then := fmt.Sprintf("compress it when the sweep is done (%s %s): merge and plot read it so", format, plain)
						if format == "xz" || format == "zstd" {
							then = "gzip it when the sweep is done: merge and plot read gzip and bzip2, not " + format
						}
						return usagef("-o %s: a sweep writes its results plain, not %s (it appends a line per item, synced, and reads them back to resume a killed run): give -o %s, and %s", *out, format, plain, then)
					}
				}
				if *perJob != "" {
					if st, err := os.Stat(*perJob); err != nil || !st.IsDir() {
						return usagef("--per-job %s: want an existing directory (each item's rows go to DIR/KEY.csv)", *perJob)
					}
				}
				if *jobs < 1 {
					return usagef("-j %d: must be at least 1", *jobs)
				}
				si, sn := 0, 1
				inArray := false // the shard is a Slurm array task's
				if *shard != "" {
					if si, sn, err = parseShard(*shard); err != nil {
						return usageError{err.Error()}
					}
					inArray = os.Getenv("SLURM_ARRAY_TASK_ID") != "" // --sbatch's script gives --shard
				} else if i, n, ok, err := shardFromEnv(os.Getenv); err != nil {
					return usageError{err.Error()}
				} else if ok {
					if i < 0 || i >= n {
						return usagef("Slurm array task %d of %d is out of range (is --array 0-%d?)", i, n, n-1)
					}
					si, sn = i, n
					inArray = true
				}
				mine, err := sweep.Shard(items, si, sn)
				if err != nil {
					return usageError{err.Error()}
				}
				if err := spec.CheckFiles(mine); err != nil {
					return fmt.Errorf("%s: %w", args[0], err)
				}
				res, err := sweep.OpenResults(*out, spec.Name)
				if errors.Is(err, sweep.ErrLocked) {
					return fmt.Errorf("%w: wait for it to finish, or give each concurrent run its own -o file (one per --shard) and merge them", err)
				}
				if err != nil {
					return err
				}
				defer res.Close()
				warnResults(e.stderr, *out, res)
				o := sweepOutput{Sweep: spec.Name, Results: *out, Shard: fmt.Sprintf("%d/%d", si, sn), Items: len(mine)}
				var todo []sweep.Item
				noCSV := 0 // items already done whose per-job file --per-job DIR lacks
				for _, it := range mine {
					if _, ok := res.Done[it.Key]; ok {
						o.Skipped++
						if *perJob != "" {
							if _, err := os.Stat(filepath.Join(*perJob, it.Key+".csv")); err != nil {
								noCSV++
							}
						}
					} else {
						todo = append(todo, it)
					}
				}
				if noCSV > 0 {
					// Done items are not rerun, so --per-job would leave them without rows
					// in silence (help sweep's examples did, run in order).
					fmt.Fprintf(e.stderr, "procalloc sweep: warning: %d items already done in %s have no per-job file in %s and are not rerun: for their rows, run the sweep into a new results file\n", noCSV, *out, *perJob)
				}
				if *perJob != "" {
					// A SIGKILLed run (a batch system's, after its grace) left the
					// hidden temporaries of the items it was writing; a redone item's
					// file sweeps its own, the others (items done since, or no
					// longer in the sweep) stayed for good.
					removeStaleTemps(*perJob, nil)
				}
				for _, w := range sweepTiesWarnings(spec, todo) {
					e.warnf("%s: %s", args[0], w)
				}
				if err := runSweepItems(ctx, e, spec, todo, res, *jobs, *perJob, &o); err != nil {
					return err
				}
				w := e.stdout
				if *asJSON {
					if err := writeJSON(w, o); err != nil {
						return err
					}
				} else {
					fmt.Fprintf(w, "sweep %s, shard %s: %d items, %d already done, %d run, %d failed -> %s\n", o.Sweep, o.Shard, o.Items, o.Skipped, o.Ran, o.Failed, o.Results)
					if o.Stopped && inArray {
						// In the task's log (scancel, a preemption): the command is the script's.
						fmt.Fprintln(w, "interrupted: submit the array's script again (sbatch) to finish: each task resumes its results file")
					} else if o.Stopped {
						fmt.Fprintln(w, "interrupted: run the same command again to finish")
					}
				}
				// The exit status is the same with --json (it was 0 there, failed
				// items or not, so a script checking it went on with them).
				switch {
				case o.Failed > 0 && o.notApplicable == o.Failed:
					return fmt.Errorf("%s failed (their errors are in %s): their allocator does not apply to their machine (warned before the run), which no rerun mends", textin.CountNoun(o.Failed, "item"), o.Results)
				case o.notApplicable > 0:
					return fmt.Errorf("%s failed (their errors are in %s; a rerun retries them, and they fail the same way until what their errors name is mended); %d of them no rerun mends: their allocator does not apply to their machine (warned before the run)", textin.CountNoun(o.Failed, "item"), o.Results, o.notApplicable)
				case o.Failed > 0:
					return fmt.Errorf("%s failed (their errors are in %s; a rerun retries them)", textin.CountNoun(o.Failed, "item"), o.Results)
				}
				return nil
			}
		},
	})
}

// maxArrayTasks is the most tasks a Slurm job array can have.
const maxArrayTasks = slurm.MaxArraySize

// readSpec reads a sweep file, or standard input for "-" (relative file names then
// from the current directory).
func readSpec(e *env, path string) (*sweep.Spec, error) {
	if path != "-" {
		return sweep.ReadFile(path)
	}
	s, err := sweep.Read(e.stdin, "-")
	if err != nil {
		return nil, err
	}
	s.Dir = "."
	return s, nil
}

// checkSpec runs the checks a sweep file passes before anything runs (Spec.Check)
// and prints its warnings: pairs of an allocator and a machine it does not apply
// to, whose items will fail, said before the run, the script or the list, not after.
func checkSpec(e *env, path string, spec *sweep.Spec) error {
	if err := spec.Check(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	for _, w := range spec.Warnings() {
		e.warnf("%s: %s", path, w)
	}
	return nil
}

// warnResults says on stderr what opening a results file found amiss.
func warnResults(w io.Writer, path string, res *sweep.Results) {
	switch {
	case res.CutLines > 1:
		fmt.Fprintf(w, "procalloc sweep: warning: %s: lines %d-%d (%d lines) at its end were torn or damaged (writes cut short): cut off, their items are redone\n", path, res.Cut, res.Cut+res.CutLines-1, res.CutLines)
	case res.Cut > 0:
		fmt.Fprintf(w, "procalloc sweep: warning: %s: line %d was torn (a write cut short): cut off, its item is redone\n", path, res.Cut)
	}
	switch n := len(res.Damaged); {
	case n == 1:
		fmt.Fprintf(w, "procalloc sweep: warning: %s: 1 damaged line skipped (%s): its item is redone\n", path, lineList(res.Damaged))
	case n > 1:
		fmt.Fprintf(w, "procalloc sweep: warning: %s: %d damaged lines skipped (%s): their items are redone\n", path, n, lineList(res.Damaged))
	}
	// Items done by another build are kept, not redone: said here, and by merge.
	other := map[string]int{}
	for _, l := range res.Done {
		if l.Build != buildid.ID() {
			other[l.BuildName()]++
		}
	}
	if len(other) > 0 {
		var each []string
		for _, b := range slices.Sorted(maps.Keys(other)) {
			each = append(each, fmt.Sprintf("%d by %s", other[b], b))
		}
		fmt.Fprintf(w, "procalloc sweep: warning: %s holds items done by other builds of procalloc than this one (%s): %s; they are kept, not redone, and merge will name both builds (give -o a new file to run them all with this build)\n", path, buildid.ID(), strings.Join(each, ", "))
	}
	if res.NoLock != nil {
		fmt.Fprintf(w, "procalloc sweep: warning: %s cannot be locked (%v): a second sweep on this file at the same time would not be stopped\n", path, res.NoLock)
	}
}

// lineList writes the first line numbers of a list.
func lineList(lines []int) string {
	all := make([]string, len(lines))
	for i, l := range lines {
		all[i] = fmt.Sprintf("line %d", l)
	}
	return textin.FirstFew(all, 5, ", ")
}

// runSweepItems runs the items (sweep.Spec.Run), jobs at a time, appending each
// result as it ends; with perJobDir, each item's per-job rows go to
// perJobDir/KEY.csv.
func runSweepItems(ctx context.Context, e *env, spec *sweep.Spec, todo []sweep.Item, res *sweep.Results, jobs int, perJobDir string, o *sweepOutput) error {
	p := newProgress(e, "sweep", int64(len(todo)))
	var done int64
	var writeErr error
	nets := &sim.Networks{} // the items on one machine share it and its router, until the last
	spec.Run(ctx, todo, sweep.Runner{Workers: jobs, Networks: nets,
		Replay: func(it sweep.Item) (sim.Runner, error) {
			s, err := sweepItemSpec(spec, it)
			if err != nil {
				return nil, err
			}
			s.Networks = nets
			if perJobDir != "" {
				return &perJobRunner{e: e, spec: s, path: filepath.Join(perJobDir, it.Key+".csv")}, nil
			}
			return &s, nil
		},
		Error: func(it sweep.Item, err error) error { return sweepItemError(spec, it, err) },
		// A failed write (a full disk) stops the items still running too: their
		// results could not be kept.
		Done: func(line sweep.Line) error {
			printWarnings(e, line.Warnings)
			if err := res.Append(line); err != nil {
				writeErr = err
				return err
			}
			o.Ran++
			if line.Status != sweep.StatusOK {
				o.Failed++
				if line.Params.NotApplicable(spec.Dir) != nil {
					o.notApplicable++
				}
			}
			done++
			p.Update(done, fmt.Sprintf("%d/%d items, %d failed", done, len(todo), o.Failed))
			return nil
		}})
	p.Done()
	o.Stopped = ctx.Err() != nil && o.Ran < len(todo)
	if writeErr != nil {
		return fmt.Errorf("writing results: %w", writeErr)
	}
	return nil
}

// sweepTiesWarnings are sim's warning of slow tie counting (tiesCostWarning) for
// the items a sweep is about to run: one per machine they replay an allocator of
// the MC1x1 family on, in the sweep file's words (its flags list sets --metrics,
// the same for every item), in the order of the items.
func sweepTiesWarnings(spec *sweep.Spec, items []sweep.Item) []string {
	var s sim.Spec
	if sweep.ApplyFlags(&s, spec.Flags) != nil {
		return nil // each item fails with the flag's error
	}
	var machines []string
	allocs := map[string][]string{}
	for _, it := range items {
		m := it.Params.Machine
		if _, ok := allocs[m]; !ok {
			machines = append(machines, m)
		}
		if !slices.Contains(allocs[m], it.Params.Alloc) {
			allocs[m] = append(allocs[m], it.Params.Alloc)
		}
	}
	var out []string
	for _, name := range machines {
		m, err := topo.ParseMachine(name)
		if err != nil {
			continue // the items fail with the machine's error
		}
		if w := tiesCostWarning(m, s.Metrics, allocs[name], "the sweep file's flags"); w != "" {
			out = append(out, w)
		}
	}
	return out
}

// perJobRunner runs a sweep item as "sim --per-job FILE" does: rows written as jobs
// finish, the file replaced atomically when the replay ends and left as it was when
// it fails. An item is known by its key, so a rerun that redoes it rewrites its file.
type perJobRunner struct {
	e    *env
	spec sim.Spec
	path string
}

func (r *perJobRunner) Run(ctx context.Context) (*sim.Report, error) {
	var rep *sim.Report
	rows, err := stageStream(r.e, "--per-job", r.path, func(w io.Writer) error {
		rp, err := r.spec.PrepareContext(ctx)
		if err != nil {
			return err
		}
		pw := newPerJobCSV(w, rp)
		rp.Spec.JobDone = pw.write
		if rep, err = rp.Run(ctx); err != nil {
			return err
		}
		return pw.flush()
	})
	if err == nil {
		err = commitOutputs(r.e, []*output{rows})
	}
	return rep, err
}

// sweepItemSpec is the replay of a sweep item: the library's (sweep.Params.Replay:
// its parameters, then its flags on the sim.Spec fields they name, files included),
// its errors naming sim's flags.
func sweepItemSpec(spec *sweep.Spec, it sweep.Item) (sim.Spec, error) {
	s, err := it.Params.Replay(spec.Dir)
	if fe := (*sweep.FlagError)(nil); errors.As(err, &fe) {
		return s, usageError{fe.Error()}
	}
	if err != nil {
		return s, sweepSpecError(err)
	}
	s.TimeZone = envTimeZone(s.TimeZone) // sacct times: as sim without --tz
	return s, nil
}

// writeSbatch prints a Slurm job-array script for the sweep.
func writeSbatch(w io.Writer, specPath string, spec *sweep.Spec, shards, cpus int, out string) error {
	abs, err := filepath.Abs(specPath)
	if err != nil {
		return err
	}
	bin, err := os.Executable()
	if err != nil {
		return err
	}
	if err := oneLine("-o", out); err != nil {
		return usageError{err.Error()}
	}
	return sbatchScript(w, bin, abs, spec, shards, cpus, out)
}

// sbatchScript writes the job-array script running bin on the sweep file abs. Every
// value on a command line is one single-quoted shell word, so that spaces, quotes,
// $(...) and backquotes in paths, names or -o stay literal; #SBATCH lines, which
// sbatch splits and expands (% patterns) itself, get the name with everything but
// letters, digits and ._+- replaced by _. A control character (a newline) in any
// value would end a line of the script, so it is an error naming the value.
func sbatchScript(w io.Writer, bin, abs string, spec *sweep.Spec, shards, cpus int, out string) error {
	for _, v := range [][2]string{{"the procalloc executable's path", bin}, {"the sweep file's path", abs}, {"the sweep's name", spec.Name}, {"-o", out}} {
		if err := oneLine(v[0], v[1]); err != nil {
			return err
		}
	}
	prefix := out
	if prefix == "" {
		prefix = spec.Name
	}
	prefix = strings.TrimSuffix(prefix, ".jsonl")
	slurmName := strings.Map(func(r rune) rune {
		if r < 0x80 && (unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("._+-", r)) {
			return r
		}
		return '_'
	}, spec.Name)
	q := textin.ShellQuote
	_, err := fmt.Fprintf(w, `#!/bin/bash
# procalloc sweep %[1]s as a Slurm job array of %[2]d tasks; each task runs the items
# whose index mod %[2]d is its index and appends them to its own results file
# (resumable: resubmitting reruns only what is missing; "sbatch --array=3,7 SCRIPT"
# reruns tasks 3 and 7 only: each task's shard is its task ID). When all have finished:
#   %[3]s merge %[4]s*.jsonl --spec %[5]s -o %[6]s --csv %[7]s
#SBATCH --job-name=procalloc-%[8]s
#SBATCH --array=0-%[9]d
#SBATCH --cpus-per-task=%[10]d
#SBATCH --output=%[8]s_%%A_%%a.out
set -euo pipefail
exec %[3]s sweep %[5]s --shard "${SLURM_ARRAY_TASK_ID}"/%[2]d -j %[10]d -o %[4]s"${SLURM_ARRAY_TASK_ID}"'.jsonl'
`, q(spec.Name), shards, q(bin), q(prefix+".shard-"), q(abs), q(prefix+".jsonl"), q(prefix+".csv"), slurmName, shards-1, cpus)
	return err
}

// oneLine refuses control characters (a newline) in a value written into a script.
func oneLine(what, v string) error {
	if i := strings.IndexFunc(v, unicode.IsControl); i >= 0 {
		return fmt.Errorf("%s %q: control character %U cannot be written into an sbatch script", what, v, []rune(v[i:])[0])
	}
	return nil
}

func init() {
	register(&command{
		name:    "merge",
		inPlace: []string{""}, // the merged file holds its inputs' lines
		summary: "join the results files of a sweep's shards: one line per item, in item order; report missing and failed items",
		usage:   "merge FILES...|- [--spec SPEC] [-o MERGED.jsonl] [--csv FILE]",
		details: `Reads results files written by "procalloc sweep" (for instance one per Slurm array
task), keeps one line per item (a successful one over failures), sorts them by item
index and leaves out the timings, so that the merge of n shards is byte for byte the
merge of a single run. With --spec, items of the sweep that have no line are listed
as missing, and lines of items the (edited) sweep file no longer has are left out;
without it, gaps in the item indices are listed as missing (items after the last
line found cannot be checked).
Files of different sweeps are refused, and so are files in which no line is a
results line. Lines carry their sweep's id (a hash of its grid), so that without
--spec the shards of two sweep files of one name (in different folders) are refused
too; with --spec the items' keys decide. Lines name the build of procalloc that
wrote them: shards of two or more builds are merged with a warning naming each
build's files (--json: "builds"); lines written before lines named it are
"unknown".
A damaged line (cut short by a crash, or spliced by two sweeps writing one file
before results files were locked) is skipped with a warning: its item is then
missing unless another line has it; without --spec, merge cannot tell which items
damaged lines held, so it exits 1 when there are any. Exits 1 when any item is
missing or failed (after writing what there is), saying the way out of each: a
rerun of their shards for missing items, and for failed ones once what their errors
name is mended; no rerun for an item whose allocator does not apply to its machine
(the pair sweep warned of before it ran; --json: "not_applicable"). When the missing items are whole
shards' (no item of theirs has a line: a task that never ran or whose file was
not given), merge names them, i/n with the smallest n that sets them apart, to run
again. --csv writes one row per item: its
parameters (engine, after seed, when some item runs the flit engine;
comm_distance_classes, as in compare --csv, when some item's network had distance
classes), its status,
the build that ran it (the line's build; unknown for lines written before lines
named it) and the metrics of "sim --json"; when some item has a pattern, the
network's too (comm_messages, comm_mean_latency_cycles, comm_max_link_messages,
comm_max_link_load, comm_run_time_fraction: the metrics of its comm object, its key
after comm_), empty on the items without one. Numbers are written in plain decimals
with every digit (3311031, not 3.311031e+06), as compare --csv writes them.
A file - is standard input (once); --spec - reads the sweep file from standard input
(then no results file may be -). Lines are at most 16 MiB, files at most 8 GiB, a
sweep file at most 4 MiB.`,
		example: `procalloc merge bunde.shard-*.jsonl --spec examples/bunde2004.yaml -o bunde.jsonl --csv bunde.csv
cat bunde.shard-*.jsonl | procalloc merge - --spec examples/bunde2004.yaml > bunde.jsonl
procalloc merge bunde.shard-*.jsonl -o bunde.jsonl --json`,
		yourFiles: []yourFile{yourShards},
		flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
			specPath := fs.String("spec", "", "the sweep `file`, to list missing items (- for standard input)")
			out := fs.String("o", "", "write the merged JSON lines to `FILE` instead of stdout")
			csvOut := fs.String("csv", "", "also write a CSV table to `FILE`")
			asJSON := fs.Bool("json", false, "report (items, failed, missing) as JSON: on stdout when -o and --csv name files, else on stderr (stdout then has the merged lines or the CSV)")
			return func(ctx context.Context, e *env, args []string) error {
				if len(args) == 0 {
					return usagef("want at least one results file")
				}
				if n := countStdin(append([]string{*specPath}, args...)); n > 1 {
					return usagef("standard input (-) given %d times: it can be read once", n)
				}
				var spec *sweep.Spec
				if *specPath != "" {
					var err error
					if spec, err = readSpec(e, *specPath); err != nil {
						return err
					}
				}
				ins, closeAll, err := openResultsInputs(e, args)
				if err != nil {
					return err
				}
				rep, err := sweep.MergeInputs(ins, spec)
				closeAll()
				if err != nil {
					return err
				}
				warnDamaged(e.stderr, "merge", rep.Damaged)
				warnBuilds(e.stderr, "merge", rep.Builds)
				if len(rep.Lines) == 0 && spec == nil {
					// Without --spec nothing says what is missing: an empty merge
					// (empty or wrong files) succeeded, writing an empty -o.
					return fmt.Errorf("no results lines in %s: nothing to merge", strings.Join(args, ", "))
				}
				// The merged results and their CSV all or none.
				if err := writeOutputs(e,
					namedOutput{"-o", *out, func(w io.Writer) error {
						for _, l := range rep.Lines {
							b, err := json.Marshal(l)
							if err != nil {
								return err
							}
							if _, err := w.Write(append(b, '\n')); err != nil {
								return err
							}
						}
						return nil
					}},
					namedOutput{"--csv", *csvOut, func(w io.Writer) error { return writeSweepCSV(w, rep.Lines) }}); err != nil {
					return err
				}
				if *asJSON {
					type item struct {
						Index int    `json:"index"`
						Key   string `json:"key"`
						Error string `json:"error,omitempty"`
						// NotApplicable: the item's allocator does not apply to its
						// machine, so every run fails it (notApplicable).
						NotApplicable bool `json:"not_applicable,omitempty"`
					}
					r := struct {
						Items   int    `json:"items"`
						Failed  []item `json:"failed"`
						Missing []item `json:"missing"`
						Extra   int    `json:"extra_lines_left_out"`
						// Builds are the builds of procalloc that wrote the lines,
						// with their files: more than one is warned of.
						Builds []sweep.BuildSource `json:"builds"`
					}{Items: len(rep.Lines), Failed: []item{}, Missing: []item{}, Extra: rep.Extra, Builds: rep.Builds}
					if r.Builds == nil {
						r.Builds = []sweep.BuildSource{}
					}
					for _, l := range rep.Failed {
						r.Failed = append(r.Failed, item{l.Index, l.Key, l.Error, notApplicable(spec, l)})
					}
					for _, it := range rep.Missing {
						r.Missing = append(r.Missing, item{Index: it.Index, Key: it.Key})
					}
					// The report goes where a pipe reads it (merge -o m.jsonl --json |
					// python3 -m json.tool), unless the merged lines or the CSV are
					// written there.
					w := e.stdout
					if writesStdout(*out) || *csvOut != "" && writesStdout(*csvOut) {
						w = e.stderr
					}
					if err := writeJSON(w, r); err != nil {
						return err
					}
					if len(rep.Failed) > 0 || len(rep.Missing) > 0 || (spec == nil && len(rep.Damaged) > 0) {
						return errors.New("the sweep is incomplete")
					}
					return nil
				}
				fmt.Fprintf(e.stderr, "merge: %d items, %d failed, %d missing", len(rep.Lines), len(rep.Failed), len(rep.Missing))
				if rep.Extra > 0 {
					fmt.Fprintf(e.stderr, ", %d lines of items no longer in the sweep left out", rep.Extra)
				}
				fmt.Fprintln(e.stderr)
				for _, l := range rep.Failed {
					fmt.Fprintf(e.stderr, "  failed #%d %s: %s\n", l.Index, strings.Join(l.Params.Args(""), " "), l.Error)
				}
				n, shards := missingShards(rep)
				if n > 0 {
					var list, ids []string
					for _, r := range shards {
						list = append(list, fmt.Sprintf("%d/%d", r, n))
						ids = append(ids, strconv.Itoa(r))
					}
					fmt.Fprintf(e.stderr, "  the %d missing items are those of shard %s (index mod %d): run sweep --shard %s again, or submit those tasks of the array's script again (sbatch --array=%s SCRIPT; each resumes its results file), then merge again\n",
						len(rep.Missing), strings.Join(list, ", "), n, strings.Join(list, ", --shard "), strings.Join(ids, ","))
				}
				for i, it := range rep.Missing {
					if i == 20 {
						fmt.Fprintf(e.stderr, "  ... and %d more missing\n", len(rep.Missing)-20)
						break
					}
					where := fmt.Sprintf("in shard i/n with i = %d mod n", it.Index)
					if n > 0 {
						where = fmt.Sprintf("shard %d/%d", it.Index%n, n)
					}
					if spec == nil {
						fmt.Fprintf(e.stderr, "  missing #%d (%s; its parameters need --spec)\n", it.Index, where)
						continue
					}
					fmt.Fprintf(e.stderr, "  missing #%d (%s) %s\n", it.Index, where, strings.Join(it.Params.Args(""), " "))
				}
				if spec == nil {
					fmt.Fprintln(e.stderr, "  (without --spec, items after the last one found cannot be checked)")
				}
				if len(rep.Failed) > 0 || len(rep.Missing) > 0 {
					return incompleteError(spec, rep)
				}
				if spec == nil && len(rep.Damaged) > 0 {
					return errors.New("the sweep may be incomplete: damaged lines were skipped; rerun their shards (the sweep redoes their items), or merge with --spec to list what is missing")
				}
				return nil
			}
		},
	})
}

// notApplicable reports whether failed line l is an item whose allocator does not
// apply to its machine (sweep.Params.NotApplicable, the check the sweep warned of
// before it ran): every run fails it again.
func notApplicable(spec *sweep.Spec, l sweep.Line) bool {
	dir := "."
	if spec != nil {
		dir = spec.Dir
	}
	return l.Params.NotApplicable(dir) != nil
}

// incompleteError is merge's closing error for a sweep with missing or failed
// items, with the way out of each: a rerun of their shards runs the missing
// items and retries the failed ones, which fail the same way until their
// error's cause is mended (a file, the flags), and fails again, whatever is
// mended, an item whose allocator does not apply to its machine.
func incompleteError(spec *sweep.Spec, rep *sweep.MergeReport) error {
	nA := 0
	for _, l := range rep.Failed {
		if notApplicable(spec, l) {
			nA++
		}
	}
	var ways []string
	switch failed := len(rep.Failed) - nA; {
	case len(rep.Missing) > 0 && failed > 0:
		ways = append(ways, "rerun the shards with missing or failed items (a rerun retries the failed ones; unmended, they fail the same way)")
	case len(rep.Missing) > 0:
		ways = append(ways, "rerun the shards with missing items")
	case failed > 0:
		ways = append(ways, "rerun the shards with failed items once what their errors name is mended (a rerun retries them; unmended, they fail the same way)")
	}
	if nA > 0 {
		ways = append(ways, fmt.Sprintf("%s failed because its allocator does not apply to its machine (warned before the sweep ran), which no rerun mends: a sweep file without that machine or allocator leaves such items out", textin.CountNoun(nA, "item")))
	}
	return errors.New("the sweep is incomplete: " + strings.Join(ways, "; "))
}

// missingShards finds the smallest shard count n under which the missing items
// and the items that have lines fall in different shards (no index mod n holds
// both), and the missing shards: the shards whose results files are absent or
// unfinished, the ones to run again. A merge of 2 of 3 shards listed 42 items "in
// shard i/n with i = 2 mod n", 5 mod n, 8 mod n, ... for the user to work out
// that they were all shard 2/3's. 0 when no n below the items' count separates
// them (a single run cut short: its missing items are every shard's) with
// shards of two items or more.
func missingShards(rep *sweep.MergeReport) (n int, shards []int) {
	if len(rep.Missing) == 0 || len(rep.Lines) == 0 {
		return 0, nil
	}
	size := 0
	for _, l := range rep.Lines {
		size = max(size, l.Index+1)
	}
	for _, it := range rep.Missing {
		size = max(size, it.Index+1)
	}
	present := make([]bool, size)
	for _, l := range rep.Lines {
		present[l.Index] = true
	}
	// absent reports whether the indices r, r+n, r+2n, ... have no line.
	absent := func(r, n int) bool {
		for j := r; j < size; j += n {
			if present[j] {
				return false
			}
		}
		return true
	}
	first := rep.Missing[0].Index
	total := len(rep.Missing) + len(rep.Lines)
	// Shards of two items or more: with few lines almost any n sets them apart
	// (lines 0, 6 and 9 of 12 gave "shards 1/9, 2/9, 3/9, 4/9, 5/9, 7/9, 8/9").
	for n := 2; n <= total/2 && n <= 4096; n++ {
		// The first missing item's shard, in O(size/n), rules out most n at once.
		if !absent(first%n, n) {
			continue
		}
		var rs []int
		ok := true
		for _, it := range rep.Missing {
			r := it.Index % n
			if slices.Contains(rs, r) {
				continue
			}
			if !absent(r, n) {
				ok = false
				break
			}
			rs = append(rs, r)
		}
		if ok {
			slices.Sort(rs)
			return n, rs
		}
	}
	return 0, nil
}

// countStdin counts the arguments that are "-".
func countStdin(args []string) int {
	n := 0
	for _, a := range args {
		if a == "-" {
			n++
		}
	}
	return n
}

// openResultsInputs opens results files, "-" being standard input; closeAll closes them.
func openResultsInputs(e *env, paths []string) (ins []sweep.Input, closeAll func(), err error) {
	var files []io.Closer
	closeAll = func() {
		for _, f := range files {
			f.Close()
		}
	}
	for _, p := range paths {
		r, err := openInput(e, p)
		if err != nil {
			closeAll()
			return nil, nil, err
		}
		files = append(files, r)
		name := inputName(p)
		ins = append(ins, sweep.Input{Name: name, R: r})
	}
	return ins, closeAll, nil
}

// warnBuilds says on stderr when the lines a merge read were written by more than
// one build of procalloc (sweep.MergeReport.Builds), naming each build's files.
func warnBuilds(w io.Writer, cmd string, builds []sweep.BuildSource) {
	if len(builds) < 2 {
		return
	}
	var each []string
	for _, b := range builds {
		name := b.Build
		if name == buildid.Unknown {
			name += " (lines that name no build: written before results lines did)"
		}
		each = append(each, fmt.Sprintf("%s: %s in %s", name, textin.CountNoun(b.Lines, "line"), textin.FirstFew(b.Files, 5, ", ")))
	}
	fmt.Fprintf(w, "procalloc %s: warning: the results lines were written by %d different builds of procalloc, whose replays may differ (a shard rerun after an upgrade?): %s; to compare like with like, run the sweep again with one build (into new files) and merge that\n", cmd, len(builds), strings.Join(each, "; "))
}

// warnDamaged says on stderr which damaged lines a merge skipped.
func warnDamaged(w io.Writer, cmd string, damaged []string) {
	if len(damaged) == 0 {
		return
	}
	if len(damaged) == 1 {
		fmt.Fprintf(w, "procalloc %s: warning: 1 damaged results line skipped (%s): its item is missing unless another line has it\n", cmd, damaged[0])
		return
	}
	fmt.Fprintf(w, "procalloc %s: warning: %d damaged results lines skipped (%s): their items are missing unless other lines have them\n", cmd, len(damaged), textin.FirstFew(damaged, 5, "; "))
}

// resultMetrics reads the numbers of a line's result (sim.SummaryNumbers: its
// numeric top-level keys and its comm object's as comm_KEY), every metric of
// sim.Metrics it holds under the metric's key.
func resultMetrics(l sweep.Line) map[string]float64 { return sim.SummaryNumbers(l.Result) }

// tableMetrics are the metrics of a CSV's columns: sim.Metrics, the network's
// (group comm) only when comm says some row ran with a communication model, so
// that the CSV of replays without one keeps the columns it always had.
func tableMetrics(comm bool) []sim.Metric {
	return slices.DeleteFunc(sim.Metrics(), func(m sim.Metric) bool { return !comm && m.Group == sim.MetricsComm })
}

// writeSweepCSV writes one row per results line. The engine column comes after
// seed when some item runs the flit engine (without it the rows of a sweep over
// engines could not be told apart); a sweep on the message engine alone keeps the
// columns it always had. comm_distance_classes (distanceClassesColumn, as compare
// --csv) comes after them when some item's network had distance classes. The build column, after status, is the build that ran
// the item (sweep.Line.Build; buildid.Unknown for a line that names none, as
// merge's warning and --json's builds say). The network's metrics (comm_...) are
// columns when some item has a pattern, empty on the items without one. The
// fields are written by encoding/csv, as compare's and sim's CSVs are: quoted when
// they hold a comma, a quote, a CR or LF, or start with a space.
func writeSweepCSV(w io.Writer, lines []sweep.Line) error {
	metrics := tableMetrics(slices.ContainsFunc(lines, func(l sweep.Line) bool { return l.Params.Pattern != "none" }))
	engines := slices.ContainsFunc(lines, func(l sweep.Line) bool { return l.Params.Engine != sim.EngineMessage })
	values := make([]map[string]float64, len(lines))
	for i, l := range lines {
		values[i] = resultMetrics(l)
	}
	classes := slices.ContainsFunc(values, func(mv map[string]float64) bool { return mv[distanceClassesColumn] > 0 })
	header := []string{"index", "key", "trace", "machine", "alloc", "sched", "contract", "pattern", "seed", "status", "build"}
	if engines {
		header = slices.Insert(header, len(header)-2, "engine")
	}
	if classes {
		header = slices.Insert(header, len(header)-2, distanceClassesColumn)
	}
	for _, m := range metrics {
		header = append(header, m.Key)
	}
	cw := csv.NewWriter(w)
	if err := cw.Write(header); err != nil {
		return err
	}
	for i, l := range lines {
		p := l.Params
		row := []string{strconv.Itoa(l.Index), l.Key, p.Trace, p.Machine, p.Alloc, string(p.Sched),
			strconv.FormatFloat(p.Contract, 'g', -1, 64), p.Pattern, strconv.FormatUint(p.Seed, 10), string(l.Status), l.BuildName()}
		if engines {
			row = slices.Insert(row, len(row)-2, p.Engine.String())
		}
		mv := values[i]
		if classes {
			row = slices.Insert(row, len(row)-2, distanceClassesCell(int(mv[distanceClassesColumn])))
		}
		for _, m := range metrics {
			if v, ok := mv[m.Key]; ok {
				row = append(row, csvNumber(v))
			} else {
				row = append(row, "")
			}
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// sweepItemError is the error of item it that goes into its results line:
// sweepSpecError's, and for a trace procalloc does not decompress (xz, zstd) the
// command that decompresses it to a file first and replays the item from there,
// as sim --trace FILE's hint (decompressHint) gives it: an item has no standard
// input of its own.
func sweepItemError(spec *sweep.Spec, it sweep.Item, err error) error {
	err = sweepSpecError(err)
	args := append([]string{"sim"}, it.Params.Args(spec.Dir)...)
	if hint := decompressHintTo(err, args, true); hint != "" {
		return fmt.Errorf("%w; %s (or list the decompressed file under the sweep file's traces)", err, hint)
	}
	return err
}

// sweepSpecError is specError for a sweep item, whose machine comes from the sweep
// file's machines key, its engine from engines and its other sim flags from its
// flags list: a job larger than the machine and a deadlock are told the ways out in
// those terms.
func sweepSpecError(err error) error {
	if de, ok := err.(*sim.DeadlockError); ok {
		// The ways out in the sweep file's words: engines is its key, the flit
		// engine's options go in its flags list.
		return &sim.DeadlockError{Err: de.Err, WayOut: de.WayOut, Name: sweepFileField}
	}
	if errors.Is(err, sim.ErrTooLarge) {
		return fmt.Errorf("%w: list a machine of at least that many nodes under the sweep file's machines key, or add --drop-larger to its flags list to replay the trace without such jobs", err)
	}
	return specError(err)
}

// sweepFileField names a sim.Spec field as a sweep file sets it: engines is a key,
// every other field a flag of its flags list.
func sweepFileField(field string) string {
	if field == "Engine" {
		return "the sweep file's engines:"
	}
	return specFlag(field) + " (in the sweep file's flags)"
}
