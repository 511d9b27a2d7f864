package plan

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/internal/textin"
	"github.com/procalloc/procalloc/internal/timelimit"
	"github.com/procalloc/procalloc/order"
	"github.com/procalloc/procalloc/sim"
	"github.com/procalloc/procalloc/slurm"
	"github.com/procalloc/procalloc/topo"
	"github.com/procalloc/procalloc/topo/hostlist"
)

// Options are the inputs of a plan: the site's network, its slurm.conf, optionally
// its topology.conf and job history, and how hard to work.
type Options struct {
	// Machine is the site's network: a fabric (a *topo.Graph whose hosts are named,
	// from ibnetdiscover or a topology file) or a synthetic machine or grid, whose
	// nodes Hosts names.
	Machine topo.Machine
	// Hosts names Machine's nodes in node-index order (--hostlist for meshes and
	// tori); nil: a graph's own host names.
	Hosts []string
	// MachineSource names the network in messages (a file name or spec).
	MachineSource string
	// MachineWarnings are what reading Machine warned of (a topology file's accepted
	// oddities, ibnetdiscover's dual-rail hosts and aggregation nodes): the report's
	// first warnings.
	MachineWarnings []string
	// SlurmConf is the site's slurm.conf, SlurmConfPath its name in messages.
	SlurmConf     []byte
	SlurmConfPath string // the slurm.conf's name in messages
	// SlurmConfDir is the directory slurmctld reads slurm.conf from (absolute),
	// where apply.txt installs the files (Plan.SlurmConfDir); "": the directory
	// of SlurmConfPath when that is absolute, else not known (apply.txt says so).
	SlurmConfDir string
	// ReadIncluded reads the files of the Include lines of slurm.conf and of
	// topology.conf, by the name slurm.ReadConfIncluding and
	// slurm.ParseTopologyConfIncluding make (a relative name joined to
	// SlurmConfPath's, or TopologyConfPath's, directory; SlurmConfPath "-",
	// standard input: a relative name is an error): the nodes, partitions and
	// settings of included files count, and a deployment writes each included
	// file it changes under its own name beside its slurm.conf (IncludedName),
	// slurm.conf keeping its Include lines. nil: Include lines are not followed
	// (a warning says so; a topology.conf's are an error).
	ReadIncluded func(name string) ([]byte, error)
	// TopologyConf is the site's topology.conf (tree, block or ring), nil when none; it is
	// the current configuration's topology when slurm.conf's TopologyPlugin uses it.
	// A topology.yaml (Slurm 25.05+, told apart by its content) is the current
	// configuration's whatever TopologyPlugin says: each partition's topology
	// (Topology=, else the cluster default), docs/plan.md "A site's topology.yaml".
	TopologyConf     []byte
	TopologyConfPath string // its name in messages and notes
	// Trace is the site's job history (an sacct trace: the as-run deployment and the
	// as-run schedule; SWF or converted traces are replayed with EASY); nil: a seeded
	// synthetic workload (SyntheticWorkload) stands in.
	Trace     *sim.Trace
	TracePath string // its name in messages and in Report.Workload.Path
	// ReadTrace, when set and Trace is nil, reads the job history in Make's
	// inputs' checks as soon as the network's hosts are matched to slurm.conf's
	// nodes (before the compute network is built, the topology file read and
	// the hosts ordered): hosts are the names a history's NodeList may hold,
	// the network's hosts by their Slurm node names (a host matched by
	// NodeHostname or short name under its NodeName), hostsOf names them in
	// messages ("the network FILE"), for sim.ReadOptions.Hosts and HostsOf, so
	// that a record naming another host stops the read at its line. Its error
	// is Make's, as it is. For a graph named by its own host names, whose
	// history's names are known only once they are matched (procalloc plan
	// --graph); with Hosts, read the history first (ReadOptions.Hosts of Hosts).
	ReadTrace func(ctx context.Context, hosts *hostlist.Table, hostsOf string) (*sim.Trace, error)
	// DropUnknownHosts drops the history's jobs whose NodeList names a host
	// that is not a compute host (a node slurm.conf no longer defines: retired
	// or renamed), counted in Report.Workload.DroppedUnknownHosts and said in
	// the recommendation, instead of refusing the history; read the history
	// with sim.ReadOptions.MarkHosts then, so that the read does not stop at
	// such a record. The replays and the recommendation rest on the jobs kept.
	DropUnknownHosts bool
	// From and To keep the history's jobs arriving in [From, To) (a month of a
	// year's history), as sim.Spec.From and To read them: whole seconds from
	// the history's start (its earliest Submit), or dates
	// YYYY-MM-DD[THH:MM:SS] in its time zone (an sacct history's: the zone it
	// was read in, sim.ReadOptions.Location); "" leaves that end open. The
	// replays, the checks of the history's hosts and DropUnknownHosts see the
	// window's jobs only (Report.Workload.Window); a window holding no job is
	// an error. Read the history with sim.ReadOptions.MarkHosts then, so that
	// a record outside the window naming a host the network lacks does not
	// stop the read.
	From, To string
	// Version is the site's Slurm, VersionSource where it came from (said in the
	// report); zero: DefaultVersion, with a note.
	Version       Version
	VersionSource string // e.g. "--slurm-version" or "scontrol --version"; said in the report
	// Weights are the weights of the ordering objective F (default list:1,0.5).
	Weights curves.Weights
	// TimeLimit, when positive, bounds the plan, from Make's start; zero (the zero
	// value) means no limit, as in every package of procalloc (negative, the old
	// spelling of none, is none too). procalloc plan's --time-limit passes
	// DefaultTimeLimit unless told otherwise. The ordering's solve gets at most
	// half of it; the replays stop when it is reached, and the report then covers
	// the workload's first jobs that every deployment replayed, saying so
	// (Workload.Stopped, a warning, the recommendation's words); the predictions
	// files are named for those jobs.
	// The deployments' builds (a few seconds at 10^5 hosts) stop at it too: a
	// deployment whose build it stops, and every later one, is not built (not
	// Supported, Why "not built: ..."), and the replays then cover no job.
	// Checking the inputs (slurm.conf's nodes, the hosts matched to them, the
	// compute hosts' network: seconds at 10^5 hosts under load) stops at it too,
	// and that is an error: nothing can be planned without them, so Make
	// returns an error wrapping the limit's cause (errors.Is
	// context.DeadlineExceeded) that says so, no plan. It counts from Start
	// (Make's start when zero): procalloc plan gives the moment it began to read
	// the input files, which it reads under the same limit; writing the files
	// after Make is outside it. Above 256
	// hosts the ordering's local search runs until its share, so the ordering (and
	// what follows from it) depends on the machine's speed and load unless a bound
	// proves it optimal first; without a limit the search does a fixed amount of
	// work, the replays run to their end, and the plan is the same on every
	// machine.
	TimeLimit time.Duration
	// Start is the moment TimeLimit counts from; zero: Make's start. A caller
	// that reads the inputs under the limit (procalloc plan: the network, the
	// hosts, slurm.conf, topology.conf, the history) gives the moment it began,
	// so that the plan ends near Start + TimeLimit whatever the reads took; a
	// Start so long ago that the limit has passed ends Make in its inputs'
	// checks, with their error.
	Start time.Time
	// Seed seeds the ordering's local search and the synthetic workload.
	Seed uint64
	// SyntheticJobs is the synthetic workload's job count (0: DefaultSyntheticJobs).
	SyntheticJobs int
	// Threshold is the relative gain in mean pairwise hops over the current
	// configuration below which the plan recommends keeping it (0:
	// DefaultThreshold).
	Threshold float64
	// Deployment, when set, is a deployment whose files are written besides the
	// recommended one's (in DIR/NAME/).
	Deployment Kind
	// BlockSize is the topology/block base block size (0: the hosts of a leaf
	// switch, cut down to a divisor of the host count).
	BlockSize int
	// Progress, when set, is told each stage as it starts.
	Progress func(stage string)
}

// Defaults of Options. DefaultTimeLimit is procalloc plan's --time-limit default;
// Make applies no limit of its own (Options.TimeLimit zero: none).
const (
	DefaultTimeLimit     = 60 * time.Second
	DefaultSyntheticJobs = 2000
	DefaultThreshold     = 0.05
)

// DefaultWeights returns F's weights when Options.Weights is nil: w(1) = 1,
// w(2) = 0.5. Each call returns a new slice, so a plan (or its caller) that changes
// its weights does not change the next plan's default, as a shared variable would.
func DefaultWeights() curves.Weights { return curves.Weights{1, 0.5} }

// Plan is a finished plan: the report, the deployments (each can give the
// allocator that predicts Slurm's placements under it), the ordering and the files
// to write.
type Plan struct {
	Report Report // report.json: what was read, the ordering, the deployments' metrics, the recommendation
	// Deployments are every deployment, in Kinds order.
	Deployments []*Deployment
	// Machine is the network of the compute hosts (the hosts slurm.conf defines; a
	// fabric's other hosts become routing vertices), Names the Slurm node name of
	// each of its nodes.
	Machine topo.Machine
	Names   []string // the Slurm node name of each node of Machine, by index
	// Order is the certified ordering of Machine's nodes.
	Order curves.Order
	// Jobs are the jobs replayed (the trace's or the synthetic ones).
	Jobs []sim.Job
	// Files are the output files, relative paths, in the order they are written.
	Files []File

	conf       *slurm.Conf
	nodes      []slurm.ConfNode // conf.Nodes(), expanded once (150 MB at 131,072 nodes)
	confNodes  map[string]slurm.ConfNode
	computeSet map[string]int // Slurm name -> node of Machine
	// siteIncluded are the site's included files as read (unchanged), for the
	// deployments that keep slurm.conf.
	siteIncluded []slurm.IncludedFile
	// siteTopologyIncluded are the included files of the site's topology.conf
	// as read, nil when it has none.
	siteTopologyIncluded []slurm.IncludedFile
	includedAs           map[string]string // path -> IncludedName (of both files' included files)
	// topology is the site's topology.conf as read (with its included files),
	// nil without one.
	topology *slurm.Topology
	// topoYAML is the site's topology.yaml (Options.TopologyConf read as one:
	// every topology), nil without one; partTopology the topology index of
	// each partition whose Topology= names one, confParts slurm.conf's
	// partitions as read (topoyaml.go).
	topoYAML     *slurm.TopologyYAML
	partTopology map[string]int
	confParts    []slurm.ConfPartition
	leaf         []int32 // leaf switch of each node, -1 when none
	opt          Options
	sched        sim.Sched
	progressMu   sync.Mutex
	// partitions (partition.go)
	parts       []planPartition
	mparts      *slurm.MachinePartitions // slurm.conf's partitions on the compute hosts; nil when not read
	partsMatter bool                     // some partition lacks a compute host: the replays keep jobs in theirs
	replayParts map[string][]int         // sim.Config.Partitions; nil when partitions change nothing
	// limitJobs are the jobs of the history in the partitions their
	// State and limits are said of (limitWarnings), said once the replays
	// tell how many were replayed (sayLimits), at Report.Warnings[limitAt].
	limitJobs []sim.Job
	limitAt   int
	// unbuilt are the deployments the time limit left unbuilt (buildDeployments).
	unbuilt []Kind
}

// File is one output file.
type File struct {
	Name string // relative path, slash-separated, e.g. "report.json" or "predictions/tree.csv"
	Data []byte // the file's content
}

// InputError is an input that did not check: the file (and line) it names.
type InputError struct {
	File string // the input's name as Options gives it (SlurmConfPath, ...); Err names the line
	Err  error  // what is wrong with it
}

// Error returns "FILE: ERR".
func (e *InputError) Error() string { return e.File + ": " + e.Err.Error() }

// Unwrap returns Err.
func (e *InputError) Unwrap() error { return e.Err }

// Make checks every input, orders the compute hosts, replays the workload under
// every deployment the site's Slurm supports, and returns the plan with its files;
// nothing is written (the caller writes Plan.Files). When ctx ends, every phase
// stops and Make returns ctx's cause, no plan. Options.TimeLimit is not an error
// once the inputs are checked: the ordering keeps its best so far, and replays
// stopped by it give a plan over the jobs every deployment replayed, saying so
// (Report.Workload.Stopped); reached while they are checked, it is one (no plan).
func Make(ctx context.Context, opt Options) (*Plan, error) {
	if opt.Machine == nil {
		return nil, errors.New("plan: no machine")
	}
	if opt.Weights == nil {
		opt.Weights = DefaultWeights()
	}
	if opt.SyntheticJobs <= 0 {
		opt.SyntheticJobs = DefaultSyntheticJobs
	}
	if opt.SyntheticJobs > sim.DefaultMaxJobs {
		// As a trace of more jobs is refused (sim.ReadOptions.MaxJobs); 10^14 jobs
		// panicked allocating them.
		return nil, fmt.Errorf("plan: %d synthetic jobs: at most %d", opt.SyntheticJobs, sim.DefaultMaxJobs)
	}
	if opt.Threshold <= 0 {
		opt.Threshold = DefaultThreshold
	}
	if opt.From != "" || opt.To != "" {
		if opt.Trace == nil && opt.ReadTrace == nil {
			return nil, errors.New("plan: a history window (From, To) without a history (Trace)")
		}
		if err := sim.CheckWindow(opt.From, opt.To); err != nil {
			return nil, fmt.Errorf("plan: history window: %w", err)
		}
	}
	if opt.SlurmConfPath == "" {
		opt.SlurmConfPath = "slurm.conf"
	}
	if opt.SlurmConfDir != "" && !filepath.IsAbs(opt.SlurmConfDir) {
		return nil, fmt.Errorf("plan: slurm.conf's directory %q: want an absolute path (where slurmctld reads slurm.conf)", opt.SlurmConfDir)
	}
	if opt.Deployment != "" && !slices.Contains(kinds, opt.Deployment) {
		return nil, fmt.Errorf("deployment %q: want one of %s", opt.Deployment, kindList())
	}
	start := opt.Start
	if start.IsZero() {
		start = time.Now()
	}
	p := &Plan{opt: opt}
	r := &p.Report
	r.Threshold = opt.Threshold
	var deadline time.Time // zero: none
	if opt.TimeLimit > 0 {
		deadline = start.Add(opt.TimeLimit)
		r.TimeLimit = opt.TimeLimit.Seconds()
	}
	if opt.Version.IsZero() {
		opt.Version, opt.VersionSource = DefaultVersion, "default"
		r.Notes = append(r.Notes, fmt.Sprintf("Slurm version not given (--slurm-version) and scontrol not found: assuming %s", DefaultVersion))
	}
	p.opt = opt
	r.SlurmVersion, r.SlurmVersionSource = opt.Version.String(), opt.VersionSource
	// The checks', the builds' and the replays' context: ends at the deadline too.
	ictx, bctx, rctx := ctx, ctx, ctx
	if !deadline.IsZero() {
		lctx, cancel := context.WithDeadlineCause(ctx, deadline, timelimit.Reached{Name: "plan time limit", Limit: opt.TimeLimit})
		defer cancel()
		ictx, bctx, rctx = lctx, lctx, lctx
	}
	for _, h := range []struct {
		hook func(context.Context) (context.Context, context.CancelFunc)
		ctx  *context.Context
	}{{checkContext, &ictx}, {buildContext, &bctx}, {replayContext, &rctx}} {
		if h.hook != nil {
			var cancel context.CancelFunc
			*h.ctx, cancel = h.hook(ctx)
			defer cancel()
		}
	}
	p.progress("checking inputs")
	if err := p.checkInputs(ictx); err != nil {
		if ctx.Err() != nil {
			return nil, context.Cause(ctx) // "interrupted", as the later stages say it
		}
		if ictx.Err() != nil {
			// Without the inputs checked there is nothing to order or build: no
			// plan, no file (the command exits 1), rather than a run that goes on
			// seconds past the limit the user gave.
			return nil, fmt.Errorf("%w while checking the inputs (slurm.conf's nodes, the hosts matched to them, the compute hosts' network, the history): nothing planned; give a longer time limit, or none", context.Cause(ictx))
		}
		return nil, err
	}
	p.progress("ordering")
	if err := p.order(ctx, deadline); err != nil {
		return nil, err
	}
	p.progress("deployments")
	if err := p.buildDeployments(ctx, bctx); err != nil {
		return nil, err
	}
	if err := p.replay(ctx, rctx); err != nil {
		return nil, err
	}
	p.recommend()
	for _, l := range []*[]string{&r.UnmatchedHosts, &r.MissingNodes, &r.Warnings, &r.Notes, &r.Caveats, &r.Partitions} {
		if *l == nil {
			*l = []string{} // [] in report.json, not null
		}
	}
	if err := p.files(); err != nil {
		return nil, err
	}
	return p, nil
}

// checkContext, buildContext and replayContext, when set (by a test), give the
// inputs' checks', the deployments' builds' and the replays' context in place of
// the deadline's: one that ends, as a deadline would, while ctx goes on.
var checkContext, buildContext, replayContext func(ctx context.Context) (context.Context, context.CancelFunc)

// heavyChecks, when set (by a test), is called where the inputs' heavy checks
// begin: the compute network built and checked connected (seconds at 10^5 hosts).
var heavyChecks func()

// progress tells Options.Progress a stage, one call at a time (replays run
// concurrently).
func (p *Plan) progress(s string) {
	if p.opt.Progress != nil {
		p.progressMu.Lock()
		defer p.progressMu.Unlock()
		p.opt.Progress(s)
	}
}

// checkInputs reads slurm.conf, matches the network's hosts to its nodes (matchHosts), builds
// the compute machine, reads the site's topology file and checks the history. It
// looks at ctx between these steps and while it builds the compute machine (a
// second or more at 10^5 hosts, docs/plan.md).
func (p *Plan) checkInputs(ctx context.Context) error {
	opt := p.opt
	r := &p.Report
	if ctx.Err() != nil { // Ctrl-C while the CLI read the machine and the names
		return context.Cause(ctx)
	}
	var conf *slurm.Conf
	var err error
	if opt.ReadIncluded != nil {
		conf, err = slurm.ReadConfIncluding(opt.SlurmConf, opt.SlurmConfPath, opt.ReadIncluded)
	} else {
		conf, err = slurm.ReadConf(opt.SlurmConf)
	}
	if err != nil {
		return &InputError{opt.SlurmConfPath, err}
	}
	p.conf = conf
	for _, w := range opt.MachineWarnings {
		r.Warnings = append(r.Warnings, opt.MachineSource+": "+w)
	}
	for _, w := range conf.KeysNotIn(opt.Version) {
		// The site runs its slurm.conf, so the version or the file is not the site's.
		r.Warnings = append(r.Warnings, fmt.Sprintf("slurm.conf %s: Slurm %d.%02d refuses it (\"Parsing error at unrecognized key\", fatal), and so the deployments' slurm.conf; is the Slurm version (%s) the site's?", w, opt.Version.Major, opt.Version.Minor, opt.VersionSource))
	}
	for _, w := range conf.RemovedKeys(opt.Version) {
		r.Warnings = append(r.Warnings, fmt.Sprintf("slurm.conf %s: Slurm %d.%02d stops at it, and so at the deployments' slurm.conf; is the Slurm version (%s) the site's, and the file the one it runs?", w, opt.Version.Major, opt.Version.Minor, opt.VersionSource))
	}
	nodes, err := conf.NodesContext(ctx)
	if err != nil {
		return &InputError{opt.SlurmConfPath, err}
	}
	p.nodes = nodes
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	if len(nodes) == 0 {
		hint := ""
		if conf.Includes > 0 {
			hint = fmt.Sprintf(" (Include lines are not followed: %s; give the file that defines the nodes, or one slurm.conf with the NodeName lines)", includedFiles(conf))
		}
		return &InputError{opt.SlurmConfPath, fmt.Errorf("no NodeName lines define a node%s", hint)}
	}
	p.confNodes = make(map[string]slurm.ConfNode, len(nodes))
	for _, n := range nodes {
		p.confNodes[n.Name] = n
	}
	m := opt.Machine
	names := opt.Hosts
	g, isGraph := m.(*topo.Graph)
	if names == nil {
		if !isGraph {
			return fmt.Errorf("%s: a machine without host names: give the Slurm node names of its nodes (--hostlist or --hosts)", m.Spec())
		}
		names = make([]string, g.N())
		for i := range names {
			names[i] = g.Name(i)
		}
	} else if len(names) != m.N() {
		return fmt.Errorf("%d host names for the %d nodes of %s", len(names), m.N(), m.Spec())
	}
	node, renamed, err := matchHosts(ctx, names, nodes, p.confNodes)
	if err != nil {
		return err
	}
	var compute []int
	matched := make(map[string]bool, len(names))
	for v, h := range names {
		if node[v] == "" {
			r.UnmatchedHosts = append(r.UnmatchedHosts, h)
			continue
		}
		compute = append(compute, v)
		matched[node[v]] = true
	}
	for _, n := range nodes {
		if !matched[n.Name] {
			r.MissingNodes = append(r.MissingNodes, n.Name)
		}
	}
	if renamed > 0 {
		// The network names these hosts by host name (a fabric dump: the first
		// word of a NodeDescription is the host's hostname): the compute machine
		// below carries their Slurm node names instead.
		first := 0
		for node[first] == "" || node[first] == names[first] {
			first++
		}
		r.Warnings = append(r.Warnings, fmt.Sprintf("%d hosts of the network are slurm.conf nodes by their NodeHostname or short host name, not their NodeName, e.g. host %s is node %s", renamed, names[first], node[first]))
		// The others keep their names (those that route stay in the network): none
		// is a NodeName, or its host would have matched it.
		slurmNames := slices.Clone(names)
		for v, n := range node {
			if n != "" {
				slurmNames[v] = n
			}
		}
		names = slurmNames
	}
	slices.SortFunc(r.UnmatchedHosts, hostlist.NaturalCompare)
	if len(compute) == 0 {
		return &InputError{opt.SlurmConfPath, fmt.Errorf("none of the %d hosts of %s is a node of the slurm.conf (first hosts: %s; first nodes: %s): a host is the node of its NodeName, of its NodeHostname, or of its short name; give the nodes NodeHostname= the network's host names (Slurm's own way), or rename the fabric's hosts to the NodeNames with a node-name-map (--node-name-map: GUID \"name\" lines)",
			len(names), opt.MachineSource, textin.FirstFew(names, 4, ", "), textin.FirstFew(nodeNames(nodes), 4, ", "))}
	}
	if len(compute) < 2 {
		return fmt.Errorf("only %d host of %s is a node of the slurm.conf: nothing to order", len(compute), opt.MachineSource)
	}
	if opt.Trace == nil && opt.ReadTrace != nil {
		// The history's hosts checked at their record, before the heavy checks
		// (the compute network, the topology file: seconds at 10^5 hosts).
		tr, err := opt.ReadTrace(ctx, hostlist.NewTable(names...), "the network "+opt.MachineSource)
		if err != nil {
			return err
		}
		p.opt.Trace = tr
	}
	switch n := len(r.UnmatchedHosts); {
	case n == 1:
		r.Warnings = append(r.Warnings, fmt.Sprintf("1 host of the network is not a node of the slurm.conf (a login, storage or service node?) and is left out: %s", compressed(r.UnmatchedHosts)))
	case n > 1:
		r.Warnings = append(r.Warnings, fmt.Sprintf("%d hosts of the network are not nodes of the slurm.conf (login, storage or service nodes?) and are left out: %s", n, compressed(r.UnmatchedHosts)))
	}
	switch n := len(r.MissingNodes); {
	case n == 1:
		r.Warnings = append(r.Warnings, fmt.Sprintf("1 node of the slurm.conf is not a host of the network and keeps its configuration: %s", compressed(r.MissingNodes)))
	case n > 1:
		r.Warnings = append(r.Warnings, fmt.Sprintf("%d nodes of the slurm.conf are not hosts of the network and keep their configuration: %s", n, compressed(r.MissingNodes)))
	}
	var future []string
	for _, n := range nodes {
		if matched[n.Name] && strings.EqualFold(n.State, "FUTURE") {
			future = append(future, n.Name)
		}
	}
	// Slurm keeps them out of every allocation (and out of scontrol show nodes)
	// until an administrator makes them available.
	switch n := len(future); {
	case n == 1:
		r.Warnings = append(r.Warnings, fmt.Sprintf("1 node is State=FUTURE in slurm.conf (%s): Slurm allocates nothing on it until it is made available (scontrol update or a restart with another State=); the ordering and the deployments include it, and the replays use it as if it were", compressed(future)))
	case n > 1:
		r.Warnings = append(r.Warnings, fmt.Sprintf("%d nodes are State=FUTURE in slurm.conf (%s): Slurm allocates none of them until they are made available (scontrol update or a restart with another State=); the ordering and the deployments include them, and the replays use them as if they were", n, compressed(future)))
	}
	if len(conf.Included) > 0 {
		site, err := conf.EditLines(func(int, *slurm.ConfLine) ([]string, error) { return nil, nil }, nil)
		if err != nil {
			return &InputError{opt.SlurmConfPath, err}
		}
		p.siteIncluded = site.Included
		r.Warnings = append(r.Warnings, fmt.Sprintf("slurm.conf's Include lines were followed (%s): a deployment writes each included file it changes under its own name beside its slurm.conf, which keeps its Include lines; apply.txt says where each goes and which files stay as they are", includedFiles(conf)))
	}
	if conf.Includes > 0 {
		r.Warnings = append(r.Warnings, fmt.Sprintf("slurm.conf's Include lines are not followed (%s): nodes and settings of the included files are not seen, and the deployments' slurm.conf keeps the lines; check that no included file sets NodeName, TopologyPlugin or TopologyParam lines, which Slurm would read as well", includedFiles(conf)))
	}
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	if heavyChecks != nil {
		heavyChecks()
	}
	if len(compute) == m.N() && (!isGraph || opt.Hosts == nil) && renamed == 0 {
		// A graph renamed by Hosts is rebuilt below, so that its hosts carry the
		// Slurm names (the topology writers and as-run read them from the graph).
		p.Machine = m
		p.Names = names
	} else {
		cm, err := computeMachine(ctx, m, names, compute)
		if err != nil {
			return err
		}
		p.Machine = cm
		p.Names = make([]string, len(compute))
		for i, v := range compute {
			p.Names[i] = names[v]
		}
	}
	if cg, ok := p.Machine.(*topo.Graph); ok {
		if err := cg.CheckConnected(); err != nil {
			return fmt.Errorf("the compute hosts of %s: %w", opt.MachineSource, err)
		}
	}
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	p.computeSet = make(map[string]int, len(p.Names))
	for v, n := range p.Names {
		p.computeSet[n] = v
	}
	// ordering.hosts is a hosts file (a job's SLURM_HOSTFILE, or mpirun's and
	// mpiexec's --hostfile): what the MPI launchers would do to its names, as
	// "curve --format hosts" warns of them. The file is still written: Slurm reads
	// the names as they are.
	for _, w := range curves.LauncherWarnings(curves.FormatHosts, p.Names) {
		r.Warnings = append(r.Warnings, "ordering.hosts: "+w)
	}
	p.leaf = leaves(p.Machine)
	r.Machine = p.Machine.Spec()
	r.Hosts = p.Machine.N()
	if err := p.checkPartitions(); err != nil {
		return err
	}
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	if opt.TopologyConf != nil && isTopologyYAML(opt.TopologyConf) {
		if err := p.readTopologyYAML(ctx); err != nil {
			return err
		}
	} else if opt.TopologyConf != nil {
		var t *slurm.Topology
		var err error
		if opt.ReadIncluded != nil {
			t, err = slurm.ParseTopologyConfIncluding(ctx, bytes.NewReader(opt.TopologyConf), opt.TopologyConfPath, opt.SlurmConfPath, opt.ReadIncluded)
		} else {
			t, err = slurm.ParseTopologyConfContext(ctx, bytes.NewReader(opt.TopologyConf))
		}
		if err != nil && ctx.Err() != nil {
			return context.Cause(ctx)
		}
		if err != nil {
			return &InputError{opt.TopologyConfPath, fmt.Errorf("topology.conf: %w", err)}
		}
		p.topology = t
		if _, err := p.currentTopology(); err != nil {
			return err
		}
		site, err := t.EditLines(func(int, *slurm.ConfLine) ([]string, error) { return nil, nil })
		if err != nil {
			return &InputError{opt.TopologyConfPath, err}
		}
		p.siteTopologyIncluded = site.Included
	}
	if err := p.checkPartitionTopologies(); err != nil {
		return err
	}
	if len(p.partTopology) > 0 && len(p.parts) > 0 {
		// Partitions of different topologies decide by different rules: the
		// replays keep each job in its partition, and the current
		// configuration's emulation is told it (partSwitch).
		def := p.topoYAML.Default()
		for _, ti := range p.partTopology {
			p.partsMatter = p.partsMatter || ti != def
		}
	}
	if n := len(p.siteIncluded) + len(p.siteTopologyIncluded); n > 0 {
		var err error
		if p.includedAs, err = includedNames(slices.Concat(p.siteIncluded, p.siteTopologyIncluded)); err != nil {
			return &InputError{opt.SlurmConfPath, err}
		}
	}
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	return p.checkWorkload()
}

// includedFiles lists the files of slurm.conf's Include lines, each with its line
// ("line 129: /etc/slurm/partition.conf"; "nodes.conf line 3: racks.conf" for a
// nested one).
func includedFiles(c *slurm.Conf) string {
	var fs []string
	for i := range c.Lines {
		if l := &c.Lines[i]; l.Kind() == "include" && len(l.Pairs) > 0 {
			fs = append(fs, fmt.Sprintf("%s: %s", l.Where(), l.Pairs[0].Value))
		}
	}
	return strings.Join(fs, ", ")
}

// matchHosts returns the slurm.conf node of each host of the network (names, by
// index; "" for none) and how many were matched otherwise than by NodeName. A
// host is the node of its NodeName, else the one node whose NodeHostname it is,
// else, for a host name with a domain (node01.example.org), the node of its
// short name by NodeName or NodeHostname: a fabric dump names hosts by host name
// (rdma-ndd's "%h"), which Slurm's NodeHostname is ("hostname -s"; the NodeName
// by default), and a slurm.conf renamed by the names deployment keeps it. NodeName
// matches are taken first, and a node is matched once (a later host of the same
// node is unmatched). A host name twice is an error.
func matchHosts(ctx context.Context, names []string, nodes []slurm.ConfNode, byName map[string]slurm.ConfNode) (node []string, renamed int, err error) {
	byHost := map[string]string{} // NodeHostname -> NodeName where they differ; "" when nodes share it
	for _, n := range nodes {
		if n.Hostname != "" && n.Hostname != n.Name {
			if _, dup := byHost[n.Hostname]; dup {
				byHost[n.Hostname] = ""
			} else {
				byHost[n.Hostname] = n.Name
			}
		}
	}
	node = make([]string, len(names))
	taken := make(map[string]bool, len(names))
	seen := make(map[string]bool, len(names))
	for v, h := range names {
		if v%ctxEvery == 0 && ctx.Err() != nil {
			return nil, 0, context.Cause(ctx)
		}
		if seen[h] {
			return nil, 0, fmt.Errorf("host name %s given twice", h)
		}
		seen[h] = true
		if _, ok := byName[h]; ok {
			node[v], taken[h] = h, true
		}
	}
	if len(byHost) == 0 && !slices.ContainsFunc(names, func(h string) bool { return strings.Contains(h, ".") }) {
		return node, 0, nil
	}
	lookup := func(h string) string {
		if _, ok := byName[h]; ok {
			return h
		}
		return byHost[h]
	}
	for v, h := range names {
		if v%ctxEvery == 0 && ctx.Err() != nil {
			return nil, 0, context.Cause(ctx)
		}
		if node[v] != "" {
			continue
		}
		n := byHost[h]
		if short, _, ok := strings.Cut(h, "."); n == "" && ok && short != "" {
			n = lookup(short)
		}
		if n != "" && !taken[n] {
			node[v], taken[n] = n, true
			renamed++
		}
	}
	return node, renamed, nil
}

// computeMachine is m with only the nodes compute as hosts (in that order). The
// other hosts of a fabric are dropped when they hang on one link (no route passes
// them) and otherwise stay as routing vertices, so that hop distances between
// compute hosts do not change. It returns ctx's cause, wrapped, when ctx ends first
// (looked at every ctxEvery vertices: the whole takes a second or more at 10^5
// hosts).
func computeMachine(ctx context.Context, m topo.Machine, names []string, compute []int) (*topo.Graph, error) {
	stopped := func(v int) error {
		if v%ctxEvery == 0 && ctx.Err() != nil {
			return fmt.Errorf("the compute hosts' network: %w", context.Cause(ctx))
		}
		return nil
	}
	g := topo.GraphOf(m)
	keep := make([]bool, g.Vertices()) // as a host
	drop := make([]bool, g.Vertices())
	for _, v := range compute {
		keep[v] = true
	}
	var nb []int
	for v := range g.N() {
		if err := stopped(v); err != nil {
			return nil, err
		}
		if !keep[v] && len(g.Neighbors(v, nb[:0])) <= 1 {
			drop[v] = true
		}
	}
	vname := func(v int) string {
		if v < len(names) {
			return names[v]
		}
		return g.Name(v)
	}
	f := topo.NewFabric()
	for i, v := range compute {
		if err := stopped(i); err != nil {
			return nil, err
		}
		if err := f.AddHost(names[v]); err != nil {
			return nil, err
		}
	}
	for v := range g.Vertices() {
		if err := stopped(v); err != nil {
			return nil, err
		}
		if !keep[v] && !drop[v] {
			if err := f.AddSwitch(vname(v)); err != nil {
				return nil, err
			}
		}
	}
	for v := range g.Vertices() {
		if err := stopped(v); err != nil {
			return nil, err
		}
		if drop[v] {
			continue
		}
		for _, w := range g.Neighbors(v, nb[:0]) {
			if v < w && !drop[w] {
				if err := f.Link(vname(v), vname(w)); err != nil {
					return nil, err
				}
			}
		}
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("the compute hosts' network: %w", context.Cause(ctx))
	}
	return f.Graph()
}

// ctxEvery is how many vertices plan's loops over a network handle between looks
// at the context.
const ctxEvery = 1 << 12

// leaves returns the leaf switch of each node of m (-1 for every node of a grid, or
// of a graph whose hosts hang on no switch).
func leaves(m topo.Machine) []int32 {
	out := make([]int32, m.N())
	g, ok := m.(*topo.Graph)
	for v := range out {
		out[v] = -1
		if ok {
			out[v] = int32(g.LeafSwitch(v))
		}
	}
	return out
}

// hasLeaves reports whether every node hangs on a switch.
func (p *Plan) hasLeaves() bool {
	for _, l := range p.leaf {
		if l < 0 {
			return false
		}
	}
	return true
}

// checkPartitions reads the partitions: the nodes of each on the compute hosts,
// which the replays keep each job in (partition.go), the hosts in no partition,
// and a caveat when jobs may share nodes, which the emulation does not model.
func (p *Plan) checkPartitions() error {
	parts, err := p.conf.Partitions(p.nodes)
	if err != nil {
		return &InputError{p.opt.SlurmConfPath, err}
	}
	p.confParts = parts
	r := &p.Report
	sel := strings.ToLower(p.conf.Global("SelectType"))
	whole := sel == "select/linear"
	var shared []string
	inPart := map[string]bool{}
	all := false
	for _, pt := range parts {
		r.Partitions = append(r.Partitions, pt.Name)
		ptAll := strings.EqualFold(pt.Nodes, "ALL")
		all = all || ptAll
		for _, h := range pt.Hosts {
			inPart[h] = true
		}
		if whole || strings.HasPrefix(pt.OverSubscribe, "EXCLUSIVE") {
			continue
		}
		shared = append(shared, pt.Name)
	}
	if p.conf.Includes == 0 && len(parts) > 0 {
		// With Include lines not followed, partitions may be defined elsewhere:
		// every job may have every compute host, as before partitions were read.
		p.partitionSets(parts)
	}
	if !all && p.conf.Includes == 0 {
		// Slurm runs no job on a node of no partition, nor do the replays.
		var none []string
		for _, n := range p.Names {
			if !inPart[n] {
				none = append(none, n)
			}
		}
		switch {
		case len(parts) == 0:
			r.Warnings = append(r.Warnings, "slurm.conf has no PartitionName line: Slurm runs no job (slurmctld 22.05 stops: \"No PartitionName information available\"), the replays use every compute host")
		case len(none) == 1:
			r.Warnings = append(r.Warnings, fmt.Sprintf("1 compute host is in no partition (%s): Slurm runs no job on it, nor do the replays (each job is kept in its partition)", compressed(none)))
		case len(none) > 1:
			r.Warnings = append(r.Warnings, fmt.Sprintf("%d compute hosts are in no partition (%s): Slurm runs no job on them, nor do the replays (each job is kept in its partition)", len(none), compressed(none)))
		}
	}
	if len(shared) > 0 {
		r.Caveats = append(r.Caveats, fmt.Sprintf("partitions %s are not OverSubscribe=EXCLUSIVE (SelectType %s): jobs that ask for fewer CPUs than a node has may share nodes, which the emulation does not model (it places whole nodes); predictions hold for whole-node jobs (--exclusive) only",
			strings.Join(shared, ", "), orDefault(p.conf.Global("SelectType"), "default")))
	}
	return nil
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

func nodeNames(ns []slurm.ConfNode) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = n.Name
	}
	return out
}

func compressed(names []string) string {
	s := slices.Clone(names)
	slices.SortFunc(s, hostlist.NaturalCompare)
	if hl, err := hostlist.Compress(s); err == nil {
		return hl
	}
	return strings.Join(s, ",")
}

// order computes the certified ordering of the compute hosts (order.SolveOrdering,
// the machinery of procalloc order, within half the time limit and before the
// deadline), name order and the best curve.
func (p *Plan) order(ctx context.Context, deadline time.Time) error {
	opt := p.opt
	if g, ok := p.Machine.(*topo.Graph); ok {
		// The hop index the ordering's first distance would build, a second or
		// so at 10^5 hosts, is built here where Ctrl-C stops it (not counted in
		// the ordering's time limit).
		if err := g.BuildHopIndex(ctx); err != nil {
			if ctx.Err() != nil {
				return context.Cause(ctx)
			}
			return fmt.Errorf("ordering: %w", err)
		}
	}
	sctx, cancel := ctx, context.CancelFunc(func() {})
	limit := opt.TimeLimit
	if limit > 0 {
		// Half of the plan's limit, so that the replays have the other half at
		// least; less when the checks took more than half.
		limit = opt.TimeLimit / 2
		if !deadline.IsZero() {
			limit = max(time.Nanosecond, min(limit, time.Until(deadline)))
		}
		sctx, cancel = timelimit.WithTimeout(ctx, limit, "ordering time limit")
	}
	defer cancel()
	res, err := order.SolveOrdering(sctx, p.Machine, opt.Weights, order.OrderOptions{Options: order.Options{Method: order.MethodAuto, Seed: opt.Seed}})
	if err != nil {
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		return fmt.Errorf("ordering: %w", err)
	}
	// The scores after the solve are O(n K) distances each, seconds on a large edge
	// list (each distance a search): they stop on Ctrl-C too.
	f, err := curves.ObjectiveContext(ctx, p.Machine, res.Order, opt.Weights, false)
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	if err != nil {
		return fmt.Errorf("ordering: verifier: %w", err)
	}
	if f != res.Objective {
		return fmt.Errorf("ordering: internal error: reported F %v, verifier %v", res.Objective, f)
	}
	p.Order = res.Order
	o := &p.Report.Ordering
	o.Weights = opt.Weights.String()
	o.Objective = res.Objective
	o.Status = string(res.Status)
	o.BoundSource = res.BoundSource
	o.Seconds = res.Seconds
	o.TimeLimit = max(0, limit.Seconds())
	o.Notes = res.Notes
	if !math.IsInf(res.Bound, 0) && !math.IsNaN(res.Bound) {
		b, g := res.Bound, res.Gap
		o.Bound, o.Gap = &b, &g
	}
	// Name order (Slurm's node order without configuration) and the best curve.
	nameOrder := p.nameOrder()
	if o.NameOrder, err = curves.ObjectiveContext(ctx, p.Machine, nameOrder, opt.Weights, false); err != nil {
		return err
	}
	best, bestF := "", math.Inf(1)
	consider := func(name string, f float64) {
		if f < bestF || f == bestF && name < best {
			best, bestF = name, f
		}
	}
	for name, f := range res.Candidates {
		if curves.Summary(name) != "" && name != "name-order" {
			consider(name, f)
		}
	}
	if best == "" {
		for _, name := range curves.Applicable(p.Machine) {
			if name == "name-order" || ctx.Err() != nil {
				continue
			}
			co, err := curves.GenerateContext(ctx, name, p.Machine)
			if err != nil {
				continue
			}
			if f, err := curves.ObjectiveContext(ctx, p.Machine, co, opt.Weights, false); err == nil {
				consider(name, f)
			}
		}
	}
	if best != "" {
		o.BestCurve = &CurveScore{Name: best, Objective: bestF}
	}
	return nil
}

// nameOrder is Slurm's node order without configuration: natural name order
// (hostlist.NaturalCompare, slurmctld's sort).
func (p *Plan) nameOrder() curves.Order {
	o := make(curves.Order, len(p.Names))
	for i := range o {
		o[i] = i
	}
	slices.SortStableFunc(o, func(a, b int) int { return hostlist.NaturalCompare(p.Names[a], p.Names[b]) })
	return o
}

// currentTopology is the site's topology.conf as Slurm reads it (read by
// checkInputs, its Include lines followed): its tree, or nil for a block or
// ring configuration or none.
func (p *Plan) currentTopology() (*slurm.Tree, error) {
	t := p.topology
	if t == nil {
		return nil, nil
	}
	if t.Blocks != nil || t.Rings != nil {
		return nil, nil
	}
	tree, err := t.TreeOf()
	if err != nil {
		return nil, &InputError{p.opt.TopologyConfPath, err}
	}
	return tree, nil
}
