package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/internal/textin"
	"github.com/procalloc/procalloc/internal/timelimit"
	"github.com/procalloc/procalloc/plan"
	"github.com/procalloc/procalloc/sim"
	"github.com/procalloc/procalloc/sim/sweep"
	"github.com/procalloc/procalloc/slurm"
	"github.com/procalloc/procalloc/topo"
	"github.com/procalloc/procalloc/topo/hostlist"
)

// planMaxNodes bounds the machines plan takes (the replays keep a few words per node
// and deployment).
const planMaxNodes = 1 << 20

func init() {
	register(&command{
		name:       "plan",
		dirOutputs: []string{"o"}, // -o DIR
		summary:    "a site's fabric, slurm.conf and job history in; the certified ordering, every Slurm deployment of it replayed on the history, a recommendation and the files to deploy it out",
		usage:      "plan (--graph FILE | --machine SPEC (--hostlist EXPR | --hosts FILE)) --slurm-conf FILE [--slurm-conf-dir DIR] [--topology-conf FILE] [--trace FILE [--from TIME] [--to TIME] [--tz ZONE] [--drop-unknown-hosts]] [--slurm-version V] -o DIR",
		details: `The system engineer's job in one command. plan
  1. reads the network (--graph: ibnetdiscover with --node-name-map, a topology file,
     an edge list; or --machine with --hostlist naming its nodes) and slurm.conf (as
     slurmctld reads it: DEFAULT lines, quoted values, spaces around '='), and matches
     the network's hosts to slurm.conf's nodes by name (NodeName, else NodeHostname,
     else the short name of a host name with a domain): hosts slurm.conf lacks (login,
     storage, service nodes) are listed and left out of the ordering (they still
     route), nodes the network lacks are listed and keep their configuration;
  2. orders the compute hosts with procalloc order's machinery within half of
     --time-limit, reporting F, the proven bound and the gap next to Slurm's name
     order and the best curve (weights --weights, default list:1,0.5). Above 256
     hosts the search runs until its half unless a bound proves its ordering
     optimal first (status time_limit), so the ordering and all that follows depend
     on the machine's speed and load; --time-limit 0 (no limit) does a fixed amount
     of work instead, and gives the same plan on every machine;
  3. builds every deployment, each with the oldest Slurm that runs it:
       current  the site's configuration as read (weights, topology.conf or
                topology.yaml: each partition's topology)
       as-run   where production put the jobs (an sacct --trace with NodeList)
       weights  Weight=1..N along the ordering (Slurm: a sorted free list)
       names    nodes renamed cNNN in ordering order, NodeHostname kept (Slurm then
                does Best Fit along the ordering); partitions renamed along
       tree     topology/tree with the leaves in ordering order (23.02+: with
                TopologyParam=SwitchAsNodeRank and the NodeName lines in ordering
                order, each node in the file that defines it)
       block    topology/block, blocks of --block-size cut along the ordering (23.11+)
       torus3d  topology.yaml torus3d, for tori (26.05+)
     and replays the history under each through procalloc's emulation of Slurm's
     node selection (the jobs at their recorded starts with an sacct trace; EASY
     with another trace). The replays stop at --time-limit (counted from the
     command's start, reading the input files included): the report then covers the
     history's first N jobs (trace order) that every deployment replayed, the same
     jobs for each, and says so (report.json workload.stopped, a warning, the
     recommendation's words); the predictions are predictions/NAME.first-N-jobs.csv.
     The deployments' builds stop at it too: a deployment it stops, and every later
     one, is "not built" (said in the report; no files; one whose site rules it out,
     e.g. as-run without a history of NodeLists, says that instead), and no job is
     replayed. Reading the input files (the network, the hosts, slurm.conf,
     topology.conf, the history: seconds for a history of millions of jobs) and
     the checks of step 1 (slurm.conf's nodes, the hosts matched to them, the
     compute hosts' network: seconds at 10^5 hosts under load) stop at it too, and
     then nothing is planned: exit 1, an error naming the phase ("plan time limit
     3s reached while reading the history (--trace F): nothing planned"), nothing
     written. Only writing -o after is outside the limit (all files or none,
     0.05-0.1 s for the 15 MB of a 196,608-host plan).
     Without --trace a seeded synthetic workload stands in
     (--jobs, --seed): 20% one-node jobs, the others log-uniform 2 to N/2 nodes (half
     rounded to a power of two), run times log-uniform 1 min to 4 h, Poisson
     arrivals at offered load 0.9, EASY; the report says so. Each job is replayed
     on the nodes of its partition only, as Slurm places it: an sacct job in the
     partition it ran in (sacct's Partition column; a partition slurm.conf lacks
     goes to the default one, with a warning; a recorded node outside the job's
     partition is an error naming the line), a job that names none (SWF, converted,
     synthetic, sacct without Partition) in the Default=YES partition, where Slurm
     puts jobs submitted without -p (N above is that partition's hosts; without
     one, on the nodes of every partition, with a warning, as sim does). A job
     whose partition has too few free nodes at its recorded start waits (counted as
     "waited"). With one partition holding every host nothing changes;
  4. reports per deployment and per job-size class the mean pairwise hops of a
     job's nodes, the mean leaf switches a job spans and the % of jobs on one leaf
     (jobs of 2 or more nodes), the change against current and as-run, and
     recommends the best supported deployment that leaves no job pending or
     refused (a better one that does is named, with the count), or keeping the
     current configuration when the gain in mean pairwise hops is under
     --threshold.

Output directory -o DIR (checked before anything is read; created, at a symbolic
link's target too; files replaced atomically; nothing is written unless every
input checked; an older plan's files there that this one does not write are
removed, other files left alone):
  ordering.pairs          the ordering (node rank per line)
  ordering.hosts          the compute hosts' names in ordering order (names Open MPI or
                          MPICH would refuse or merge are warned of, as by curve
                          --format hosts; the file is written all the same)
  slurm.conf              the recommended deployment's slurm.conf (the site's, every
                          other line and attribute kept, Include lines too); for
                          "current" unchanged
  nodes.conf ...          each file of slurm.conf's (or topology.conf's) Include lines
                          that the deployment changes, in place (each node line stays
                          in its file), under its Include name when relative
                          (sub/x.conf), else its base name; files it leaves unchanged
                          are not written (apply.txt lists them)
  topology.conf|.yaml     its topology file, when it has one (names: the site's
                          topology.conf with the leaves' nodes renamed where they are,
                          its Include lines kept; tree and block write it whole)
  NAME/slurm.conf ...     the files of --deployment NAME as well (also when recommended),
                          with NAME/apply.txt, the steps that deploy them
  predictions/NAME.csv    with --trace: every job's predicted nodes per deployment
                          (job_id,line,submit,start,end,nodes,node_list); named
                          NAME.first-N-jobs.csv when --time-limit stopped the replays
  report.json             recommended, deployments (name, supported, needs_version,
                          metrics {mean_pairwise_hops, mean_leaves_spanned,
                          pct_one_leaf}, change_vs_current, by_size, pending,
                          waited), unmatched_hosts, missing_nodes, ordering
                          {objective, bound, gap, name_order, best_curve}, workload
                          (with partitions: jobs and hosts of each), caveats
  report.html             the report, one self-contained page (inline SVG)
  apply.txt               the steps: which files to back up and copy where (into
                          slurm.conf's directory, topology.conf and relative Include
                          names too; an absolute Include name where it names),
                          reconfigure or restart, and a job's SLURM_HOSTFILE along
                          the ordering (ordering.hosts)

slurm.conf's directory: slurmctld reads slurm.conf from its -f, else $SLURM_CONF,
else its built-in path ($(sysconfdir)/slurm.conf of its build: /etc/slurm for
Debian's packages, /etc/slurm-llnl for older ones, /usr/local/etc or PREFIX/etc
from source; scontrol show config | grep SLURM_CONF prints it), and topology.conf
and relative Include names in that directory. apply.txt uses --slurm-conf-dir DIR
when given, else the directory of --slurm-conf when its path is absolute (it then
is the file slurmctld reads), and says which; for a relative --slurm-conf (a copy?)
or standard input the directory is not known: apply.txt says so, and its commands
install into "${SLURM_CONF_DIR:?}", which the shell refuses until it is set.

The Slurm version comes from --slurm-version, else from scontrol --version when
scontrol is on PATH, else 22.05 (said in the report). Errors name the file and line;
a history node that is not a compute host (the network or slurm.conf lacks it: a
retired or renamed node) is an error naming the first few, unless
--drop-unknown-hosts, which drops every job naming one and says so: "procalloc
plan: dropped N jobs naming M hosts slurm.conf lacks (first: job J line L host
H)", report.json workload.dropped_unknown_hosts, and the recommendation's words
(the replays rest on the jobs kept).

--from TIME and --to TIME plan from part of the history (the last month of a year
of sacct output) as sim cuts a trace: the jobs arriving at or after --from and
before --to, each whole seconds from the history's start (its earliest Submit) or
a date YYYY-MM-DD[THH:MM:SS] in the history's time zone; --tz ZONE is the zone an
sacct history's times are in (default $TZ, else the system's: sacct prints local
times). Only the window's jobs are replayed, and only their hosts are checked
(--drop-unknown-hosts drops the window's jobs on retired hosts); the plan is the
one of the history cut to the window by hand. The text report and report.html
say it ("history window --from ...: the jobs arriving in [a s, b s) from the
history's start, N of its M jobs"), report.json in workload.window {from, to,
from_seconds, to_seconds, jobs, history_jobs}. A window that holds no job, ends
before it starts or names a date the zone skips is an error, in sim's words.
Ctrl-C stops
every phase, a read of standard input waiting on a pipe too; nothing is written then
(exit 130). Once the files are being written (0.05-0.1 s at 10^5 hosts) they are
let finish: the plan is then whole, exit 130.`,
		example: `procalloc plan --graph topo/testdata/fattree.ibnetdiscover --node-name-map topo/testdata/fattree.node-name-map --slurm-conf plan/testdata/slurm.conf --trace sim/testdata/sacct-fattree.txt -o out/plan
procalloc plan --graph topo/testdata/fattree.ibnetdiscover --node-name-map topo/testdata/fattree.node-name-map --slurm-conf plan/testdata/slurm.conf --trace sim/testdata/sacct-fattree-retired.txt --drop-unknown-hosts -o out/plan
procalloc plan --graph topo/testdata/fattree.ibnetdiscover --node-name-map topo/testdata/fattree.node-name-map --slurm-conf plan/testdata/slurm.conf --trace sim/testdata/sacct-fattree.txt --tz UTC --from 2026-11-02T08:05:00 --to 2026-11-02T09:05:00 -o out/plan
procalloc plan --graph topo/testdata/fattree.ibnetdiscover --node-name-map topo/testdata/fattree.node-name-map --slurm-conf plan/testdata/slurm.conf --trace sim/testdata/sacct-fattree-retired.txt --from 300 --drop-unknown-hosts -o out/plan
procalloc plan --graph topo/testdata/fattree.ibnetdiscover --node-name-map topo/testdata/fattree.node-name-map --slurm-conf /etc/slurm/slurm.conf --topology-conf /etc/slurm/topology.conf --slurm-version 23.11 -o out/plan --deployment names
procalloc plan --graph topo/testdata/fattree.ibnetdiscover --node-name-map topo/testdata/fattree.node-name-map --slurm-conf /etc/slurm/slurm.conf --topology-conf /etc/slurm/topology.yaml --slurm-version 26.05 -o out/plan
procalloc plan --machine torus:8x8x8 --hostlist 'nid[001-512]' --slurm-conf slurm.conf --slurm-version 26.05 --time-limit 30s -o out/torus-plan --json
procalloc plan --machine mesh:4x4 --hosts nodes.txt --slurm-conf plan/testdata/slurm.conf --slurm-conf-dir /etc/slurm --weights list:1,0.5,0.25 --jobs 5000 --seed 2 --threshold 0.1 --block-size 4 -o out/mesh-plan
procalloc plan --graph topo/testdata/fattree.ibnetdiscover --graph-format ibnetdiscover --node-name-map topo/testdata/fattree.node-name-map --slurm-conf plan/testdata/slurm.conf -o out/plan
procalloc plan --graph topo/testdata/topology.yaml --topology fabric --slurm-conf plan/testdata/slurm.conf -o out/plan`,
		yourFiles: []yourFile{yourNodes, {"slurm.conf", "your site's slurm.conf, defining the nodes nid[001-512]"}, {"/etc/slurm/slurm.conf", "your site's slurm.conf"}, {"/etc/slurm/topology.conf", "your site's topology.conf"}, {"/etc/slurm/topology.yaml", "your site's topology.yaml (Slurm 25.05 and later)"}},
		flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
			machine := fs.String("machine", "", "machine `SPEC` (mesh, torus, fattree:..., dragonfly:...); its nodes named by --hostlist or --hosts")
			gf := declareGraphFlags(fs)
			hs := declareHostFlags(fs, "Slurm node names of --machine's nodes")
			slurmConf := fs.String("slurm-conf", "", "the site's slurm.conf `FILE` (required; its Include lines are read, a relative name in its directory; with - (standard input) a relative Include name is an error: give the path)")
			confDir := fs.String("slurm-conf-dir", "", "the `DIR`ectory slurmctld reads slurm.conf from, where apply.txt installs the files (default: the directory of --slurm-conf when its path is absolute; needed for a copy, a relative name or standard input, else apply.txt says it is not known)")
			topoConf := fs.String("topology-conf", "", "the site's topology.conf `FILE` (tree, block or, Slurm 26.05+, ring), when slurm.conf's TopologyPlugin uses one (its Include lines are read as slurm.conf's; a relative name needs it in slurm.conf's directory); or its topology.yaml (Slurm 25.05+, told apart by content: every topology read, each partition placed by its Topology=, else the cluster_default one)")
			trace := fs.String("trace", "", "job history `FILE`: sacct -X -P output (see procalloc help sim), SWF or converted")
			// The history's window and time zone: sim's flags (the one table,
			// sweep.Flags), read as sim reads them (sim.CheckWindow,
			// Trace.WindowBounds, sim.TimeZoneLocation).
			window := map[string]*string{}
			for _, name := range []string{"from", "to", "tz"} {
				fl, _ := sweep.Lookup(name)
				window[name] = fs.String(fl.Name, fl.Default, fl.Usage)
			}
			dropUnknown := fs.Bool("drop-unknown-hosts", false, "drop the history's jobs whose NodeList names a host that is not a compute host (a node slurm.conf no longer defines: retired or renamed), counted and said in the report, instead of refusing the history")
			version := fs.String("slurm-version", "", "the site's Slurm `VERSION`, e.g. 22.05 (default: scontrol --version, else 22.05)")
			weights := fs.String("weights", "list:1,0.5", "weights `SPEC` of the ordering objective F")
			limit := fs.Duration("time-limit", defaultSolveLimit, "time limit of the plan, from the command's start (reading the input files included) to before -o is written: the ordering gets at most half, the deployments' builds and the replays stop at it and the report covers the jobs replayed under every deployment, saying so; reached while the input files are read or checked, nothing is planned (exit 1) (0: none, for a plan that is the same on every machine)")
			seed := fs.Uint64("seed", 1, "seed of the ordering's search and of the synthetic workload")
			jobs := fs.Int("jobs", plan.DefaultSyntheticJobs, "jobs of the synthetic workload (without --trace; at most 2000000, the cap on a trace's jobs)")
			threshold := fs.Float64("threshold", plan.DefaultThreshold, "recommend a change only when it cuts mean pairwise hops by at least this `FRACTION`")
			deployment := fs.String("deployment", "", "also write the files of deployment `NAME` (in DIR/NAME/)")
			blockSize := fs.Int("block-size", 0, "topology/block base block size (default: hosts per leaf switch)")
			out := fs.String("o", "", "output `DIR` (required)")
			asJSON := fs.Bool("json", false, "print report.json to stdout")
			return func(ctx context.Context, e *env, args []string) error {
				if len(args) > 0 {
					return usagef("unexpected arguments %q", args)
				}
				if *out == "" {
					return usagef("-o DIR is required (the plan's files go there)")
				}
				if *slurmConf == "" {
					return usagef("--slurm-conf FILE is required")
				}
				switch {
				case *limit < 0:
					return usagef("--time-limit %v: must not be negative (0: no limit)", *limit)
				case *jobs < 1:
					return usagef("--jobs %d: must be at least 1", *jobs)
				case *jobs > sim.DefaultMaxJobs:
					return usagef("--jobs %d: at most %d (the cap on a trace's jobs)", *jobs, sim.DefaultMaxJobs)
				case *blockSize < 0:
					return usagef("--block-size %d: must not be negative (0: hosts per leaf switch)", *blockSize)
				}
				if !(*threshold > 0 && *threshold < 1) {
					return usagef("--threshold %g: want a fraction in (0, 1)", *threshold)
				}
				if err := hs.check(); err != nil {
					return err
				}
				from, to := *window["from"], *window["to"]
				if (from != "" || to != "" || *window["tz"] != "") && *trace == "" {
					return usagef("--from, --to and --tz cut and read a history: give it with --trace FILE")
				}
				if err := sim.CheckWindow(from, to); err != nil {
					return specError(err)
				}
				loc, err := sim.TimeZoneLocation(envTimeZone(*window["tz"]))
				if err != nil {
					return specError(err)
				}
				// The time limit counts from here: the input files are read under
				// it (a history of millions of jobs, a fabric of 10^5 hosts take
				// seconds), and Make's deadline is the same (Options.Start).
				start := time.Now()
				lctx := ctx
				if *limit > 0 {
					var cancel context.CancelFunc
					lctx, cancel = context.WithDeadlineCause(ctx, start.Add(*limit), timelimit.Reached{Name: "plan time limit", Limit: *limit})
					defer cancel()
				}
				// reading is the error of an input's read (phase: "reading the
				// history ...") that ended with err: the interrupt's cause after
				// Ctrl-C; the limit's, naming the phase, when the limit ended it
				// (nothing planned, exit 1); else err.
				reading := func(what string, err error) error {
					switch {
					case ctx.Err() != nil:
						return context.Cause(ctx) // "procalloc plan: interrupted", nothing written
					case lctx.Err() != nil:
						return fmt.Errorf("%w while %s: nothing planned; give a longer time limit, or none", context.Cause(lctx), what)
					}
					return err
				}
				opt := plan.Options{TimeLimit: *limit, Start: start, Seed: *seed, SyntheticJobs: *jobs, Threshold: *threshold, BlockSize: *blockSize, From: from, To: to}
				if *deployment != "" {
					if opt.Deployment, err = plan.ParseKind(*deployment); err != nil {
						return usagef("--deployment: %v", err)
					}
				}
				if opt.Weights, err = curves.ParseWeights(*weights); err != nil {
					return usagef("--weights: %v", err)
				}
				if *version != "" {
					if opt.Version, err = plan.ParseVersion(*version); err != nil {
						return usagef("--slurm-version: %v", err)
					}
					opt.VersionSource = "--slurm-version"
				} else if v, ok := scontrolVersion(lctx); ok {
					opt.Version, opt.VersionSource = v, "scontrol --version"
				} else if lctx.Err() != nil {
					return reading("asking scontrol --version for Slurm's version", nil)
				}
				// Standard input ("-") is read under the limit too: a read waiting
				// on a pipe ends with it (stdinUntil), as with Ctrl-C.
				e.stdin = stdinUntil(lctx, e.stdin)
				network := "the network (--graph " + gf.file + ")"
				if *machine != "" {
					network = "the network (--machine " + textin.Clip(*machine) + ")"
				}
				m, warnings, err := loadMachineWarnings(lctx, e, *machine, gf, planMaxNodes, "plan handles")
				if err != nil {
					return reading("reading "+network, err)
				}
				opt.Machine, opt.MachineWarnings = m, warnings
				opt.MachineSource = gf.file
				if *machine != "" {
					opt.MachineSource = *machine
				}
				if _, isGraph := m.(*topo.Graph); isGraph && *machine == "" && hs.given() {
					return usagef("%s: a network read with --graph names its own hosts", hs.flag())
				}
				if hs.given() {
					if opt.Hosts, err = hs.read(lctx, e, m.N()); err != nil {
						return reading("reading the host names ("+hs.String()+")", err)
					}
				} else if _, isGraph := m.(*topo.Graph); !isGraph || *machine != "" {
					return usagef("--machine %s: name its nodes as slurm.conf does with --hostlist EXPR or --hosts FILE", *machine)
				}
				if opt.SlurmConf, err = readSmallFile(lctx, e, *slurmConf, "--slurm-conf"); err != nil {
					return reading("reading slurm.conf (--slurm-conf "+*slurmConf+")", err)
				}
				opt.SlurmConfPath = *slurmConf
				if *confDir != "" && !filepath.IsAbs(*confDir) {
					return usagef("--slurm-conf-dir %s: want an absolute path (the directory slurmctld reads slurm.conf from)", *confDir)
				}
				opt.SlurmConfDir = *confDir
				// Include lines (slurm.conf's and topology.conf's): a relative name is
				// in slurm.conf's directory, as slurmctld reads it
				// (slurm.ReadConfIncluding); from standard input ("-") it is an
				// error, never a name read in the working directory.
				opt.ReadIncluded = slurm.ReadIncluded
				if *topoConf != "" {
					if opt.TopologyConf, err = readSmallFile(lctx, e, *topoConf, "--topology-conf"); err != nil {
						return reading("reading topology.conf (--topology-conf "+*topoConf+")", err)
					}
					opt.TopologyConfPath = *topoConf
				}
				if *trace != "" {
					r, err := openInput(e, *trace)
					if err != nil {
						return fmt.Errorf("--trace: %w", err) // as --slurm-conf and --topology-conf
					}
					defer r.Close()
					// NodeLists counted against the network's hosts before a name is
					// made (a job on more is refused by its size), each name checked
					// against them at its record: with --hostlist or --hosts, here; a
					// graph's own names are matched to slurm.conf's nodes by name,
					// NodeHostname or short name first, so Make reads the history
					// as soon as they are (Options.ReadTrace), before its heavy
					// checks, with the same message.
					read := func(ctx context.Context, hosts *hostlist.Table, hostsOf string) (*sim.Trace, error) {
						// With --drop-unknown-hosts the records naming another host are
						// kept (marked), and Make drops their jobs; with a window, too,
						// and Make refuses (or drops) those of the window only.
						tr, err := sim.ReadTrace(textin.ContextReader(ctx, r), sim.ReadOptions{MaxHosts: m.N(), Hosts: hosts, HostsOf: hostsOf, Location: loc,
							MarkHosts: *dropUnknown || from != "" || to != ""})
						if err != nil && ctx.Err() == nil {
							if hinted := dropHint(err); hinted != nil {
								err = hinted
							}
							return nil, fmt.Errorf("--trace %s: %w", *trace, err)
						}
						return tr, err
					}
					opt.TracePath = *trace
					opt.DropUnknownHosts = *dropUnknown
					if opt.Hosts != nil {
						tr, err := read(lctx, hostlist.NewTable(opt.Hosts...), "the network "+opt.MachineSource)
						if err != nil && lctx.Err() != nil {
							return reading("reading the history (--trace "+*trace+")", err)
						}
						if err != nil {
							return err
						}
						opt.Trace = tr
					} else {
						opt.ReadTrace = read
					}
				}
				// The stage redrawn every 200 ms (with the time taken): plan tells
				// each stage once, and those of the first second are not drawn.
				var stage atomic.Value
				stage.Store("checking inputs")
				opt.Progress = func(s string) { stage.Store(s) }
				stopBar := newProgress(e, "plan", 0).live(func() (int64, string) { return 0, stage.Load().(string) })
				p, err := plan.Make(ctx, opt)
				stopBar()
				// Make's own refusal of hosts that are not compute hosts names
				// the library's option: the flag instead (the reader's refusal,
				// from read above, has its hint already).
				if uh := (*plan.UnknownHostsError)(nil); errors.As(err, &uh) {
					if hinted := dropHint(err); hinted != nil {
						return hinted
					}
				}
				if fe := (*sim.FieldError)(nil); errors.As(err, &fe) {
					return specError(err) // the window's ends, named by their flags, as sim names them
				}
				if err != nil {
					return err
				}
				if ctx.Err() != nil {
					// Ctrl-C after the plan was made: nothing written, as in every
					// phase before. The write itself (all files or none, 0.05 s at
					// 196,608 hosts) is let finish once begun.
					return context.Cause(ctx)
				}
				if d := p.Report.Workload.DroppedUnknownHosts; d != nil {
					e.notef("%s", d.Note())
				}
				if err := writePlanFiles(e, *out, p.Files); err != nil {
					return err
				}
				for _, w := range p.Report.Warnings {
					e.warnf("%s", w)
				}
				if *asJSON {
					return writeJSON(e.stdout, &p.Report)
				}
				return printPlan(e.stdout, &p.Report, *out)
			}
		},
	})
}

// readSmallFile reads a configuration file whole (at most slurm.MaxConfFileBytes),
// stopping when ctx ends.
func readSmallFile(ctx context.Context, e *env, path, flag string) ([]byte, error) {
	r, err := openInput(e, path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", flag, err)
	}
	defer r.Close()
	data, err := textin.ReadAll(textin.ContextReader(ctx, r), slurm.MaxConfFileBytes, "the file")
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", flag, path, err)
	}
	return data, nil
}

// scontrolVersion asks scontrol --version, when scontrol is on PATH.
func scontrolVersion(ctx context.Context) (plan.Version, bool) {
	path, err := exec.LookPath("scontrol")
	if err != nil {
		return plan.Version{}, false
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "--version").Output()
	if err != nil {
		return plan.Version{}, false
	}
	v, err := plan.ParseVersion(string(bytes.TrimSpace(out)))
	return v, err == nil
}

// writePlanFiles writes the plan's files into dir (created), all or none: the
// directories are made first, then writeOutputs stages every file and moves them
// into place only when all were written, so a failure part of the way (a full
// disk) leaves an older plan as it was and no directory it made.
//
// An older plan's files in dir (those its report.json lists) that this plan does
// not write are removed once the new files are in place, with the directories
// they leave empty: a plan written over another kept, say, predictions/tree.csv
// beside predictions/tree.first-3543-jobs.csv, or a --deployment's directory of
// the run before, as if this plan had written them. Other files are left alone.
// A symbolic link dir is followed, to a directory not made yet too (made there,
// as a file output is written at its link's target).
func writePlanFiles(e *env, given string, files []plan.File) (err error) {
	dir, err := resolveTarget(given)
	if err != nil {
		return fmt.Errorf("-o %w", err)
	}
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return fmt.Errorf("-o %s: not a directory", given)
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("-o %s: %w", given, err)
	}
	stale := olderPlanFiles(dir, files)
	var made []string // directories made, outermost first
	defer func() {
		if err != nil {
			for i := len(made) - 1; i >= 0; i-- {
				os.Remove(made[i])
			}
		}
	}()
	outs := make([]namedOutput, len(files))
	for i, f := range files {
		path := filepath.Join(dir, filepath.FromSlash(f.Name))
		if err := mkdirAll(filepath.Dir(path), &made); err != nil {
			return fmt.Errorf("-o %s: %w", given, err)
		}
		outs[i] = namedOutput{"-o", path, func(w io.Writer) error { _, err := w.Write(f.Data); return err }}
	}
	if err := writeOutputs(e, outs...); err != nil {
		return err
	}
	for _, name := range stale {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			e.warnf("-o %s: %s is left from an older plan: %v", given, name, unwrapPath(err))
			continue
		}
		for d := filepath.Dir(path); d != dir && strings.HasPrefix(d, dir); d = filepath.Dir(d) {
			if os.Remove(d) != nil { // not empty
				break
			}
		}
	}
	return nil
}

// olderPlanFiles are the files the plan in dir (its report.json's "files") wrote
// that files does not hold: plain relative names inside dir naming regular files
// (nothing else is removed, whatever an edited report.json says).
func olderPlanFiles(dir string, files []plan.File) []string {
	data, err := os.ReadFile(filepath.Join(dir, "report.json"))
	if err != nil {
		return nil
	}
	var old struct {
		Files []string `json:"files"`
	}
	if json.Unmarshal(data, &old) != nil {
		return nil
	}
	now := map[string]bool{}
	for _, f := range files {
		now[f.Name] = true
	}
	var stale []string
	for _, name := range old.Files {
		if now[name] || !filepath.IsLocal(filepath.FromSlash(name)) {
			continue
		}
		if fi, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(name))); err != nil || !fi.Mode().IsRegular() {
			continue
		}
		stale = append(stale, name)
	}
	return stale
}

// mkdirAll is os.MkdirAll that appends the directories it makes to made, outermost
// first.
func mkdirAll(dir string, made *[]string) error {
	if fi, err := os.Stat(dir); err == nil {
		if !fi.IsDir() {
			return fmt.Errorf("%s: not a directory", dir)
		}
		return nil
	}
	if parent := filepath.Dir(dir); parent != dir {
		if err := mkdirAll(parent, made); err != nil {
			return err
		}
	}
	if err := os.Mkdir(dir, 0o777); err != nil {
		if fi, serr := os.Stat(dir); serr == nil && fi.IsDir() {
			return nil // made meanwhile
		}
		return err
	}
	*made = append(*made, dir)
	return nil
}

func printPlan(w io.Writer, r *plan.Report, dir string) error {
	fmt.Fprintf(w, "recommendation  %s\n", r.Recommendation)
	fmt.Fprintf(w, "network         %s, %s; Slurm %s (%s)\n", r.Machine, textin.CountNoun(r.Hosts, "compute host"), r.SlurmVersion, r.SlurmVersionSource)
	fmt.Fprintf(w, "workload        %s, %s, schedule %s\n", r.Workload.Source, textin.CountNoun(r.Workload.Jobs, "job"), r.Workload.Sched)
	if hw := r.Workload.Window; hw != nil {
		fmt.Fprintf(w, "history window  %s\n", hw.Text())
	}
	if len(r.Workload.Partitions) > 0 {
		var ps []string
		for _, pt := range r.Workload.Partitions {
			ps = append(ps, fmt.Sprintf("%s %s on %s", pt.Name, textin.CountNoun(pt.Jobs, "job"), textin.CountNoun(pt.Hosts, "host")))
		}
		fmt.Fprintf(w, "partitions      %s\n", strings.Join(ps, "; "))
	}
	if st := r.Workload.Stopped; st != nil {
		fmt.Fprintf(w, "replayed        the first %d of %d jobs only (%s during %s)\n", st.Jobs, r.Workload.Jobs, st.Reason, st.During)
	}
	o := r.Ordering
	bound := "none"
	if o.Bound != nil {
		bound = fmt.Sprintf("%s (gap %.3g%%, %s)", fmtNum(*o.Bound), 100**o.Gap, o.BoundSource)
	}
	best := ""
	if o.BestCurve != nil {
		best = fmt.Sprintf(", best curve %s %s", o.BestCurve.Name, fmtNum(o.BestCurve.Objective))
	}
	fmt.Fprintf(w, "ordering        F %s (%s), bound %s; name order %s%s\n\n", fmtNum(o.Objective), o.Status, bound, fmtNum(o.NameOrder), best)
	// waited: a column only when partitions made jobs wait (report.json's waited).
	waited := false
	for _, d := range r.Deployments {
		waited = waited || d.Waited > 0
	}
	head := []string{"deployment", "supported", "mean hops", "leaves", "% one leaf", "vs current", "pending", "refused"}
	if waited {
		head = append(head, "waited")
	}
	t := newTable(w, head...)
	var notes []string
	for _, d := range r.Deployments {
		sup := "yes"
		switch {
		case !d.Supported && d.NeedsVersion != "" && strings.HasPrefix(d.Reason, "needs Slurm"):
			sup = "no: " + d.NeedsVersion + "+"
		case !d.Supported:
			sup = "no (below)"
			notes = append(notes, d.Name+": "+d.Reason)
		}
		name := d.Name
		if d.Name == r.Recommended {
			name += " *"
		}
		c := make([]string, len(head))
		c[0], c[1] = name, sup
		if m := d.Metrics; m != nil {
			c[2] = fmt.Sprintf("%.3f", m.MeanPairwiseHops)
			if m.MeanLeavesSpanned != nil {
				c[3], c[4] = fmt.Sprintf("%.2f", *m.MeanLeavesSpanned), fmt.Sprintf("%.1f", *m.PctOneLeaf)
			}
			c[6], c[7] = fmt.Sprint(d.Pending), fmt.Sprint(d.Refused)
			if waited {
				c[8] = fmt.Sprint(d.Waited)
			}
		}
		if d.ChangeVsCurrent != nil {
			c[5] = fmt.Sprintf("%+.1f%%", 100**d.ChangeVsCurrent)
		}
		t.row(c...)
	}
	if err := t.flush(); err != nil {
		return err
	}
	for _, n := range notes {
		if strings.Contains(n, ": not built: ") { // the time limit (plan.Options.TimeLimit)
			fmt.Fprintf(w, "%s\n", n)
			continue
		}
		fmt.Fprintf(w, "not supported: %s\n", n)
	}
	_, err := fmt.Fprintf(w, "\nwritten to %s: %s\n", dir, strings.Join(r.Files, " "))
	return err
}
