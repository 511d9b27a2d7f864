package plan

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/internal/sortedset"
	"github.com/procalloc/procalloc/internal/textin"
	"github.com/procalloc/procalloc/slurm"
	"github.com/procalloc/procalloc/topo"
	"github.com/procalloc/procalloc/topo/hostlist"
)

// Kind names a deployment: a way to hand the ordering (or nothing) to Slurm.
type Kind string

// The deployments, in the order the report lists them.
const (
	// KindCurrent is the site's configuration as read: its weights, its topology.
	KindCurrent Kind = "current"
	// KindAsRun is where production put the jobs (an sacct trace's NodeList).
	KindAsRun Kind = "as-run"
	// KindWeights is Weight=RANK+1 along the ordering: Slurm takes the lowest free
	// weights first, a sorted free list.
	KindWeights Kind = "weights"
	// KindNames renames the nodes so that natural name order is the ordering (the
	// hosts keep their NodeHostname/NodeAddr): Slurm then does Best Fit along it.
	KindNames Kind = "names"
	// KindTree is topology/tree with the leaf switches in ordering order (from
	// 23.02 with TopologyParam=SwitchAsNodeRank).
	KindTree Kind = "tree"
	// KindBlock is topology/block (23.11+): blocks cut along the ordering.
	KindBlock Kind = "block"
	// KindTorus3D is topology.yaml's torus3d (26.05+), for tori.
	KindTorus3D Kind = "torus3d"
)

// kinds backs Kinds; only this package changes it.
var kinds = []Kind{KindCurrent, KindAsRun, KindWeights, KindNames, KindTree, KindBlock, KindTorus3D}

// Kinds returns the deployments in report order.
// Each call returns a new slice: changing it changes nothing in the package.
func Kinds() []Kind { return slices.Clone(kinds) }

// ParseKind reads a deployment name.
func ParseKind(s string) (Kind, error) {
	if k := Kind(s); slices.Contains(kinds, k) {
		return k, nil
	}
	return "", fmt.Errorf("deployment %q: want one of %s%s", s, kindList(), textin.DidYouMean(s, strings.Split(kindList(), ", ")))
}

func kindList() string {
	s := make([]string, len(kinds))
	for i, k := range kinds {
		s[i] = string(k)
	}
	return strings.Join(s, ", ")
}

// NeedsVersion is the oldest Slurm that runs deployment k (zero: any).
func (k Kind) NeedsVersion() Version {
	switch k {
	case KindBlock:
		return V2311
	case KindTorus3D:
		return V2605
	}
	return Version{}
}

// Deployment is one way to configure the site's Slurm, with the files that do it
// and the emulation of Slurm's placements under it.
type Deployment struct {
	Kind Kind // which deployment (Kinds)
	// Supported says the site's Slurm runs it and it applies to this machine and
	// input; Why says why not.
	Supported bool
	Why       string // empty when Supported
	// SlurmConf is the slurm.conf of the deployment (the site's with the changes
	// merged; every other line and attribute kept, Include lines too); nil for
	// as-run.
	SlurmConf []byte
	// Included are the files of slurm.conf's Include lines (Options.ReadIncluded),
	// each with its lines as the deployment changes them (Changed: it differs
	// from the site's); nil when none was followed.
	Included []slurm.IncludedFile
	// TopologyName is "topology.conf" or "topology.yaml" and Topology its content,
	// when the deployment has a topology file.
	TopologyName string
	Topology     []byte // the topology file's content; nil without one
	// TopologyIncluded are the files of topology.conf's Include lines when
	// Topology is the site's topology.conf, as read or edited line by line
	// (current, names; Changed: it differs from the site's); nil when
	// Topology is written whole (tree, block) or has none.
	TopologyIncluded []slurm.IncludedFile
	// Settings are the slurm.conf settings it changes, for the report and apply.txt.
	Settings []string
	// Notes are its caveats.
	Notes []string

	plan *Plan
	// names is the Slurm node name of each node of Plan.Machine under this
	// deployment; cfg the emulated Slurm configuration.
	names []string
	cfg   alloc.SlurmConfig
	torus *torusConfig
	// parts, when set, are the selections of a configuration whose partitions
	// use different topologies (a topology.yaml with Topology=), in place of
	// cfg and torus.
	parts *partRules
	// planNotes are notes of the plan's (Report.Notes) the build found, added
	// when it ends: an abandoned build writes nothing the plan keeps.
	planNotes []string
}

// setConf sets the deployment's slurm.conf and included files.
func (d *Deployment) setConf(f *slurm.ConfFiles) {
	d.SlurmConf, d.Included = f.SlurmConf, f.Included
}

// NodeName returns the name Slurm gives node v of Plan.Machine under this
// deployment (renamed under names).
func (d *Deployment) NodeName(v int) string { return d.names[v] }

// NodeNames returns the Slurm node names of Plan.Machine's nodes under this
// deployment, in node order.
func (d *Deployment) NodeNames() []string { return slices.Clone(d.names) }

// Machine is the network the allocator places on (Plan.Machine).
func (d *Deployment) Machine() topo.Machine { return d.plan.Machine }

// Allocator returns a fresh allocator (every node free) that places jobs on
// Plan.Machine as Slurm does under this deployment: alloc's emulation of Slurm's
// cons_tres selection (slurm:consec, slurm:tree, slurm:block) or of torus3d, with
// this deployment's node names, weights and topology; for as-run, the recorded
// placements (an alloc.Placer). An unsupported deployment is an error.
func (d *Deployment) Allocator() (alloc.Allocator, error) {
	if !d.Supported {
		return nil, fmt.Errorf("deployment %s is not supported here: %s", d.Kind, d.Why)
	}
	switch {
	case d.Kind == KindAsRun:
		a, err := alloc.Parse(alloc.AsRunName, d.plan.Machine, alloc.Options{Names: d.plan.Names})
		if err != nil {
			return nil, fmt.Errorf("deployment %s: %w", d.Kind, err)
		}
		return a, nil
	case d.parts != nil:
		return d.newPartSwitch(d.parts)
	}
	return d.emulatorOf(d.cfg, d.torus)
}

// emulatorOf is the emulator of one selection: torus3d when torus is set, else
// alloc's Slurm emulation of cfg on the site's version.
func (d *Deployment) emulatorOf(cfg alloc.SlurmConfig, torus *torusConfig) (emulator, error) {
	if torus != nil {
		return newTorus3D(d.plan.Machine, torus)
	}
	cfg.OneNodeByWeight = d.plan.opt.Version.AtLeast(V2605)
	cfg.Tree2411 = d.plan.opt.Version.AtLeast(V2411)
	a, err := alloc.NewSlurm(d.plan.Machine, cfg)
	if err != nil {
		return nil, fmt.Errorf("deployment %s: %w", d.Kind, err)
	}
	return a, nil
}

// buildDeployments makes every deployment with its files and emulation. ctx is
// the plan's (Ctrl-C: Make returns its cause); lctx ends at the plan's time limit
// too (lctx == ctx without one). A deployment whose build the time limit stops,
// or that it reaches before its build, is not built: Supported false, Why "not
// built: ..." saying which of the two, and listed in p.unbuilt; the others are
// whole.
func (p *Plan) buildDeployments(ctx, lctx context.Context) error {
	var cur *Deployment // the current configuration, which later builds read
	for _, k := range kinds {
		// Each takes up to a second or two on 131,072 hosts (a topology.conf
		// written and read back, slurm.conf rewritten). Each is run by untilDone,
		// which returns as soon as ctx or the time limit ends (as the ordering
		// and the replays do; Ctrl-C here waited for the build, about a second,
		// up to the watchdog under load), and the build itself looks at lctx
		// every few thousand nodes, so that one abandoned stops within
		// milliseconds rather than running on in the background.
		// Each build makes a Deployment of its own and reads cur, never
		// p.Deployments: an abandoned build writes nothing the plan keeps.
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		d := &Deployment{Kind: k, plan: p, names: p.Names, Supported: true}
		if need := k.NeedsVersion(); !need.IsZero() && !p.opt.Version.AtLeast(need) {
			d.Supported, d.Why = false, fmt.Sprintf("needs Slurm %s or later (the site's is %s)", need, p.opt.Version)
		} else if why := p.unsupported(k); why != "" {
			// Known without building: said so even when the time limit comes
			// before the build (it is the true reason, not "not built").
			d.Supported, d.Why = false, why
		}
		if d.Supported && lctx.Err() != nil {
			d.Supported, d.Why = false, fmt.Sprintf("not built: %v before its build", context.Cause(lctx))
			p.unbuilt = append(p.unbuilt, k)
		} else if d.Supported {
			built := *d
			err := untilDone(lctx, func() error {
				err := p.build(lctx, &built, cur)
				if buildEnded != nil {
					buildEnded(k, err)
				}
				return err
			})
			switch {
			case err != nil && ctx.Err() != nil:
				return context.Cause(ctx)
			case err != nil && lctx.Err() != nil && errors.Is(err, context.Cause(lctx)):
				d.Supported, d.Why = false, fmt.Sprintf("not built: %v during its build", context.Cause(lctx))
				p.unbuilt = append(p.unbuilt, k)
			case err != nil:
				return fmt.Errorf("deployment %s: %w", k, err)
			default:
				d = &built
				p.Report.Notes = append(p.Report.Notes, d.planNotes...)
			}
		}
		if k == KindCurrent {
			cur = d
		}
		p.Deployments = append(p.Deployments, d)
	}
	return nil
}

// buildStarted and buildEnded, when set (by a test), are called as each
// deployment's build starts and as it returns (also when abandoned: untilDone).
var (
	buildStarted func(Kind)
	buildEnded   func(Kind, error)
)

// untilDone runs f in a goroutine of its own and returns its error, or ctx's
// cause as soon as ctx ends. An abandoned f runs until it sees ctx ended (f
// should look at it often) and its result is dropped: it must write nothing its
// caller reads after an early return (Make then returns the cause, and the plan
// is never seen).
func untilDone(ctx context.Context, f func() error) error {
	if ctx.Done() == nil { // never ends
		return f()
	}
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// build makes deployment d of its kind (Supported on entry; a build may find it
// unsupported here and say why); cur is the current configuration's deployment
// (nil when d is it). ctx is looked at as the build starts, between its steps
// and every few thousand nodes inside them (the files written and read back); a
// build it stops returns its cause.
func (p *Plan) build(ctx context.Context, d, cur *Deployment) error {
	if buildStarted != nil {
		buildStarted(d.Kind)
	}
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	var err error
	switch d.Kind {
	case KindCurrent:
		err = p.buildCurrent(ctx, d)
	case KindAsRun:
		// Nothing to build: the replay places the jobs where they ran.
	case KindWeights:
		err = p.buildWeights(ctx, d, cur)
	case KindNames:
		err = p.buildNames(ctx, d, cur)
	case KindTree:
		err = p.buildTree(ctx, d)
	case KindBlock:
		err = p.buildBlock(ctx, d)
	case KindTorus3D:
		err = p.buildTorus3D(d)
	}
	if err != nil && ctx.Err() != nil {
		return context.Cause(ctx) // stopped, not an input's error
	}
	return err
}

// looks returns a function that, told of n more nodes (or names) handled, looks
// at ctx once every ctxEvery of them and returns its cause once it has ended: the
// builds' loops over 10^5 nodes (the slurm.conf edits, the names) stop within a
// few milliseconds of it, so that a build the time limit or Ctrl-C abandons
// (untilDone) ends too instead of running on in the background.
func looks(ctx context.Context) func(n int) error {
	work := 0
	return func(n int) error {
		if work += n; work < ctxEvery {
			return nil
		}
		work = 0
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		return nil
	}
}

// unsupported says why deployment kind k cannot run on this site when that is
// known without building it (the history, the network, its leaves: cheap
// checks), "" otherwise; a build may still find it unsupported (names of a
// topology/block site). Its version is checked apart (Kind.NeedsVersion).
func (p *Plan) unsupported(k Kind) string {
	switch k {
	case KindAsRun:
		if !p.hasNodeLists() {
			return "needs a job history that records where jobs ran (an sacct trace with NodeList)"
		}
	case KindTree:
		if _, ok := p.Machine.(*topo.Graph); !ok || !p.hasLeaves() {
			return "needs a switched network (every host on a leaf switch)"
		}
	case KindBlock:
		if !p.hasLeaves() {
			return "for switched networks (every host on a leaf switch)"
		}
		if p.blockSize() < 2 {
			return fmt.Sprintf("no block size of 2 or more divides the %d hosts (Slurm wants every block to hold the base size)", len(p.Names))
		}
	case KindTorus3D:
		g, ok := p.Machine.(*topo.Grid)
		if !ok {
			return "for tori (a --machine torus:XxYxZ)"
		}
		if _, err := slurm.TorusDims(g); err != nil {
			return err.Error()
		}
	}
	return ""
}

// Deployment returns the deployment of kind k.
func (p *Plan) Deployment(k Kind) *Deployment {
	for _, d := range p.Deployments {
		if d.Kind == k {
			return d
		}
	}
	return nil
}

// currentWeights are the compute nodes' weights as slurm.conf gives them.
func (p *Plan) currentWeights() []uint32 {
	w := make([]uint32, len(p.Names))
	for v, n := range p.Names {
		w[v] = p.confNodes[n].Weight
	}
	return w
}

func (p *Plan) topologyPlugin() string {
	return strings.ToLower(strings.TrimSpace(p.conf.Global("TopologyPlugin")))
}

func (p *Plan) switchAsNodeRank() bool {
	for _, s := range strings.Split(p.conf.Global("TopologyParam"), ",") {
		if strings.EqualFold(strings.TrimSpace(s), "SwitchAsNodeRank") {
			return true
		}
	}
	return false
}

// buildCurrent models the site's configuration: its weights, its topology plugin
// with its topology.conf.
func (p *Plan) buildCurrent(ctx context.Context, d *Deployment) error {
	d.SlurmConf, d.Included = p.opt.SlurmConf, p.siteIncluded
	d.cfg = alloc.SlurmConfig{Names: p.Names, Weights: p.currentWeights()}
	if p.topoYAML != nil {
		return p.buildCurrentYAML(ctx, d)
	}
	switch plugin := p.topologyPlugin(); plugin {
	case "", "topology/none", "topology/flat", "topology/default":
		if p.opt.TopologyConf != nil {
			d.planNotes = append(d.planNotes, fmt.Sprintf("%s is not used by the current configuration: slurm.conf has no TopologyPlugin=topology/tree, topology/block or topology/ring", p.opt.TopologyConfPath))
		}
	case "topology/tree":
		if p.opt.TopologyConf == nil {
			return &InputError{p.opt.SlurmConfPath, fmt.Errorf("TopologyPlugin=topology/tree needs its topology.conf to model the current configuration: give --topology-conf")}
		}
		t, err := p.currentTopology()
		if err != nil {
			return err
		}
		if t == nil {
			return &InputError{p.opt.TopologyConfPath, fmt.Errorf("a topology/%s file, but slurm.conf says TopologyPlugin=topology/tree", p.topology.Kind())}
		}
		t, err = restrictTree(t, p.Names)
		if err != nil {
			return &InputError{p.opt.TopologyConfPath, err}
		}
		d.TopologyName, d.Topology, d.TopologyIncluded = "topology.conf", p.opt.TopologyConf, p.siteTopologyIncluded
		if p.switchAsNodeRank() && p.opt.Version.AtLeast(V2302) {
			return p.rankedTree(ctx, d, t, p.confOrder())
		}
		d.cfg.Tree = t
	case "topology/block":
		if p.opt.TopologyConf == nil {
			return &InputError{p.opt.SlurmConfPath, fmt.Errorf("TopologyPlugin=topology/block needs its topology.conf to model the current configuration: give --topology-conf")}
		}
		b, err := p.topology.BlocksOf()
		if err != nil {
			return &InputError{p.opt.TopologyConfPath, err}
		}
		d.TopologyName, d.Topology, d.TopologyIncluded = "topology.conf", p.opt.TopologyConf, p.siteTopologyIncluded
		d.cfg.Blocks = b
	case "topology/ring":
		// Slurm 26.05's topology/ring reads RingName= lines from topology.conf
		// when there is no topology.yaml (ring_record.c, _read_topo_file).
		if p.opt.TopologyConf == nil {
			return &InputError{p.opt.SlurmConfPath, fmt.Errorf("TopologyPlugin=topology/ring needs its topology.conf (RingName= lines) to model the current configuration: give --topology-conf")}
		}
		if !p.opt.Version.AtLeast(V2605) {
			return &InputError{p.opt.SlurmConfPath, fmt.Errorf("TopologyPlugin=topology/ring, which Slurm has from 26.05 on; the site's is %s (%s)", p.opt.Version, p.opt.VersionSource)}
		}
		r, err := p.topology.RingsOf()
		if err != nil {
			return &InputError{p.opt.TopologyConfPath, fmt.Errorf("slurm.conf says TopologyPlugin=topology/ring: %w", err)}
		}
		if err := p.checkTopologyNodes(p.topology, "", "its rings name", "topology.conf"); err != nil {
			return err
		}
		if d.cfg.Rings, err = p.siteRings(r, "", nil); err != nil {
			return err
		}
		d.TopologyName, d.Topology, d.TopologyIncluded = "topology.conf", p.opt.TopologyConf, p.siteTopologyIncluded
		note := fmt.Sprintf("the current configuration is modelled from %s (topology.conf): topology/ring, %d rings (RingName= lines) of at most %d nodes; a job of more nodes than every ring never starts", p.opt.TopologyConfPath, len(r.Rings), slurm.MaxRingSize)
		d.Notes = append(d.Notes, note)
		d.planNotes = append(d.planNotes, note)
	default:
		d.Notes = append(d.Notes, fmt.Sprintf("TopologyPlugin=%s is not emulated: modelled as no topology plugin", p.conf.Global("TopologyPlugin")))
	}
	return nil
}

// restrictTree drops from the leaves the nodes the network does not have (Slurm
// knows them; the emulation does not), so that the emulator accepts the tree.
func restrictTree(t *slurm.Tree, names []string) (*slurm.Tree, error) {
	have := make(map[string]bool, len(names))
	for _, n := range names {
		have[n] = true
	}
	c := *t
	c.Switches = slices.Clone(t.Switches)
	for i := range c.Switches {
		s := &c.Switches[i]
		if s.Level != 0 {
			continue
		}
		s.Nodes = slices.DeleteFunc(slices.Clone(s.Nodes), func(n string) bool { return !have[n] })
	}
	return &c, nil
}

// confOrder is the order of the compute nodes' NodeName lines in slurm.conf (the
// node table's order before slurmctld sorts it).
func (p *Plan) confOrder() []int {
	o := make([]int, 0, len(p.Names))
	for _, n := range p.nodes {
		if v, ok := p.computeSet[n.Name]; ok {
			o = append(o, v)
		}
	}
	return o
}

// leavesAcrossFiles counts the leaves of t whose compute nodes, in lineOrder,
// are not in ordering order (their nodes are defined in more than one file),
// out of the leaves, and names the files of slurm.conf that hold compute nodes.
func (p *Plan) leavesAcrossFiles(t *slurm.Tree, lineOrder []int) (n, of int, files string) {
	rank := p.Order.Ranks()
	pos := make([]int, len(lineOrder))
	for i, v := range lineOrder {
		pos[v] = i
	}
	for _, s := range t.Switches {
		if s.Level != 0 {
			continue
		}
		of++
		var vs []int
		for _, name := range s.Nodes {
			if v, ok := p.computeSet[name]; ok {
				vs = append(vs, v)
			}
		}
		slices.SortFunc(vs, func(a, b int) int { return cmp.Compare(pos[a], pos[b]) })
		if !slices.IsSortedFunc(vs, func(a, b int) int { return cmp.Compare(rank[a], rank[b]) }) {
			n++
		}
	}
	var names []string
	for _, v := range lineOrder {
		f := p.conf.Lines[p.confNodes[p.Names[v]].Index].File
		if f == "" {
			f = "slurm.conf"
		}
		if !slices.Contains(names, f) {
			names = append(names, f)
		}
	}
	return n, of, strings.Join(names, ", ")
}

// rankedTree sets d's emulation to topology/tree with SwitchAsNodeRank (23.02+):
// slurmctld's node table sorted by the rank of a node's leaf in the file (stable:
// inside a leaf the NodeName lines' order, lineOrder). As in Slurm's
// topology_p_generate_node_ranking (src/plugins/topology/tree/topology_tree.c) the
// leaves are ranked 1, 2, ... in file order, a node on two leaves keeps the later
// leaf's rank, and a node on no leaf keeps rank 0, before every leaf's nodes. The
// emulator sorts by name, so it is given names that sort into that order, and the
// tree renamed alike.
//
// It looks at ctx every 4,096 nodes of each step (0.2 s at 196,608 hosts under
// load, where the limit and Ctrl-C waited for it) and returns its cause when ctx
// has ended.
func (p *Plan) rankedTree(ctx context.Context, d *Deployment, t *slurm.Tree, lineOrder []int) error {
	synth, rename, err := p.nodeRanking(ctx, t, lineOrder)
	if err != nil {
		return err
	}
	stopped := looks(ctx)
	c := *t
	c.Switches = slices.Clone(t.Switches)
	for i := range c.Switches {
		s := &c.Switches[i]
		if s.Level != 0 {
			continue
		}
		ns := make([]string, len(s.Nodes))
		for j, n := range s.Nodes {
			if err := stopped(1); err != nil {
				return err
			}
			ns[j] = rename[n]
		}
		s.Nodes = ns
	}
	d.cfg.Names, d.cfg.Tree = synth, &c
	return nil
}

// nodeRanking is SwitchAsNodeRank's node order of tree t (rankedTree): names
// of the compute nodes that sort into it (synth, by node) and the map from
// their Slurm names.
func (p *Plan) nodeRanking(ctx context.Context, t *slurm.Tree, lineOrder []int) (synth []string, rename map[string]string, err error) {
	stopped := looks(ctx)
	leafRank := map[string]int{}
	r := 1
	for _, s := range t.Switches {
		if s.Level == 0 {
			for _, n := range s.Nodes {
				if err := stopped(1); err != nil {
					return nil, nil, err
				}
				leafRank[n] = r
			}
			r++
		}
	}
	rank := make([]int, len(p.Names)) // leafRank of each node, looked up once
	for v, n := range p.Names {
		if err := stopped(1); err != nil {
			return nil, nil, err
		}
		rank[v] = leafRank[n]
	}
	order := slices.Clone(lineOrder)
	if err := sortedset.SortStableContext(ctx, order, func(a, b int) int { return cmp.Compare(rank[a], rank[b]) }); err != nil {
		return nil, nil, err
	}
	synth = make([]string, len(p.Names))
	rename = make(map[string]string, len(p.Names))
	for i, v := range order {
		if err := stopped(1); err != nil {
			return nil, nil, err
		}
		synth[v] = fmt.Sprintf("x%09d", i)
		rename[p.Names[v]] = synth[v]
	}
	return synth, rename, nil
}

// buildWeights merges Weight=RANK+1 into slurm.conf (MergeWeights); the site's
// topology stays (with weights the weights win: Slurm takes the lowest weights
// first, and topology/tree only chooses among equal weights).
func (p *Plan) buildWeights(ctx context.Context, d, cur *Deployment) error {
	out, warnings, err := slurm.MergeWeightsConf(ctx, p.conf, p.nodes, p.Order, p.Names)
	if err != nil && ctx.Err() != nil {
		return context.Cause(ctx)
	}
	if err != nil {
		return &InputError{p.opt.SlurmConfPath, err}
	}
	d.setConf(out)
	d.Notes = append(d.Notes, warnings...)
	d.Settings = []string{fmt.Sprintf("Weight=1..%d on the NodeName lines of the compute nodes, along the ordering", len(p.Order))}
	if ws := p.currentWeights(); slices.Min(ws) != slices.Max(ws) {
		d.Notes = append(d.Notes, fmt.Sprintf("the site's own weights (%d to %d), which may encode a preference such as keeping GPU nodes for last, are replaced", slices.Min(ws), slices.Max(ws)))
	}
	w := make([]uint32, len(p.Names))
	for r, v := range p.Order {
		w[v] = uint32(r + 1)
	}
	d.cfg = alloc.SlurmConfig{Names: p.Names, Weights: w}
	if cur != nil && cur.Supported {
		d.cfg.Tree, d.cfg.Blocks, d.cfg.Rings, d.torus = cur.cfg.Tree, cur.cfg.Blocks, cur.cfg.Rings, cur.torus
		if cur.parts != nil {
			// Each partition keeps its topology (a topology.yaml's Topology=).
			d.parts = cur.parts.withWeights(w)
		}
		if cur.cfg.Tree != nil && !slices.Equal(cur.cfg.Names, p.Names) {
			// SwitchAsNodeRank's order: keep it (the NodeName lines do not move).
			d.cfg.Names = cur.cfg.Names
		}
		if cur.Topology != nil {
			d.Notes = append(d.Notes, "the site's topology file stays; with distinct weights Slurm takes the lowest free weights first, and the topology only breaks ties")
		}
	}
	d.Notes = append(d.Notes, "Slurm allocates the free nodes of lowest Weight: a sorted free list along the ordering, not Best Fit (measured on Slurm 22.05.8)")
	return nil
}

// dropPartitionTopology is the edit of slurm.conf's lines for a deployment that
// writes its own topology file on a site whose partitions name topologies of
// its topology.yaml (Topology=, Slurm 25.05 on): the key removed from every
// PartitionName line (DEFAULT too), since slurmctld stops on a name its
// topologies lack ("Invalid partition topology"); nil when no line has it.
func (p *Plan) dropPartitionTopology() func(li int, l *slurm.ConfLine) ([]string, error) {
	if len(p.partTopology) == 0 && !slices.ContainsFunc(p.confParts, func(c slurm.ConfPartition) bool { return c.Topology != "" }) {
		return nil
	}
	return func(li int, l *slurm.ConfLine) ([]string, error) {
		if l.Kind() != "partitionname" {
			return nil, nil
		}
		if _, ok := l.Get("Topology"); !ok {
			return nil, nil
		}
		return lineOf(slices.DeleteFunc(slices.Clone(l.Pairs), func(c slurm.ConfPair) bool { return strings.EqualFold(c.Key, "Topology") }), l.Comment)
	}
}

// lineOf is a line of pairs with comment (an edited line's own, kept).
func lineOf(pairs []slurm.ConfPair, comment string) ([]string, error) {
	s, err := slurm.FormatPairs(pairs)
	if err != nil {
		return nil, err
	}
	if comment != "" {
		s += " " + comment
	}
	return []string{s}, nil
}

// setGlobals returns conf with the global settings of set (key, value) replaced
// where they are (every line of that key) or appended; a value "" deletes the key.
func setGlobals(conf *slurm.Conf, set [][2]string, edit func(li int, l *slurm.ConfLine) ([]string, error)) (*slurm.ConfFiles, error) {
	done := map[string]bool{}
	out, err := conf.EditLines(func(li int, l *slurm.ConfLine) ([]string, error) {
		for _, kv := range set {
			if l.Kind() == strings.ToLower(kv[0]) && len(l.Pairs) == 1 {
				if done[kv[0]] || kv[1] == "" {
					return []string{}, nil
				}
				done[kv[0]] = true
				s, err := slurm.FormatPairs([]slurm.ConfPair{{Key: l.Pairs[0].Key, Value: kv[1]}})
				if err != nil {
					return nil, err
				}
				return []string{s}, nil
			}
		}
		if edit != nil {
			return edit(li, l)
		}
		return nil, nil
	}, nil)
	if err != nil {
		return nil, err
	}
	var add []string
	for _, kv := range set {
		if !done[kv[0]] && kv[1] != "" {
			add = append(add, kv[0]+"="+kv[1])
		}
	}
	if len(add) == 0 {
		return out, nil
	}
	c2, err := out.Read()
	if err != nil {
		return nil, err
	}
	return c2.EditLines(func(int, *slurm.ConfLine) ([]string, error) { return nil, nil }, append([]string{"# added by procalloc plan"}, add...))
}

// topologyParam returns TopologyParam with SwitchAsNodeRank added (on) or removed.
func (p *Plan) topologyParam(on bool) string {
	var out []string
	for _, s := range strings.Split(p.conf.Global("TopologyParam"), ",") {
		if s = strings.TrimSpace(s); s != "" && !strings.EqualFold(s, "SwitchAsNodeRank") {
			out = append(out, s)
		}
	}
	if on {
		out = append(out, "SwitchAsNodeRank")
	}
	return strings.Join(out, ",")
}

// equalWeights returns the slurm.conf line edit that gives every compute node one
// weight (the smallest of theirs) when their weights differ, so that weights do not
// override the order a deployment sets up; nil when they are equal.
func (p *Plan) equalWeights(d *Deployment) (func(l *slurm.ConfLine, ns []slurm.ConfNode) []slurm.ConfPair, uint32) {
	ws := p.currentWeights()
	lo, hi := slices.Min(ws), slices.Max(ws)
	if lo == hi {
		return nil, lo
	}
	d.Settings = append(d.Settings, fmt.Sprintf("Weight=%d on every compute node (their weights differed, %d to %d, and weights win over node order and topology)", lo, lo, hi))
	return func(l *slurm.ConfLine, ns []slurm.ConfNode) []slurm.ConfPair {
		return []slurm.ConfPair{{Key: "Weight", Value: strconv.FormatUint(uint64(lo), 10)}}
	}, lo
}

// buildTree writes a topology.conf with the leaves in ordering order (WriteTopology)
// and sets TopologyPlugin=topology/tree (and from 23.02 SwitchAsNodeRank).
func (p *Plan) buildTree(ctx context.Context, d *Deployment) error {
	g := p.Machine.(*topo.Graph) // unsupported: a switched network
	var buf bytes.Buffer
	warnings, err := slurm.WriteTopologyContext(ctx, &buf, g, p.Order, nil)
	if err != nil {
		return err
	}
	d.TopologyName, d.Topology = "topology.conf", buf.Bytes()
	ranked := p.opt.Version.AtLeast(V2302)
	if !ranked {
		d.Notes = append(d.Notes, warnings...)
	}
	t, err := readBack(ctx, d.Topology, (*slurm.Topology).TreeOf)
	if err != nil {
		return err
	}
	set := [][2]string{{"TopologyPlugin", "topology/tree"}}
	if ranked || p.switchAsNodeRank() {
		set = append(set, [2]string{"TopologyParam", p.topologyParam(ranked)})
	}
	eq, w := p.equalWeights(d)
	var conf *slurm.ConfFiles
	var lineOrder []int
	if ranked {
		// SwitchAsNodeRank orders a leaf's nodes by their NodeName lines: write
		// them in ordering order.
		var extra []slurm.ConfPair
		if eq != nil {
			extra = eq(nil, nil)
		}
		reordered, lo, err := p.reorderNodeLines(ctx, p.Order, extra)
		if err != nil {
			return err
		}
		lineOrder = lo
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		c, err := reordered.Read()
		if err != nil {
			return fmt.Errorf("internal error: the reordered slurm.conf does not read back: %w", err)
		}
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		if conf, err = setGlobals(c, set, p.dropPartitionTopology()); err != nil {
			return &InputError{p.opt.SlurmConfPath, err}
		}
	} else if conf, err = p.confWith(ctx, set, eq); err != nil {
		return err
	}
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	d.setConf(conf)
	d.Settings = append(d.Settings, "TopologyPlugin=topology/tree")
	ws := make([]uint32, len(p.Names))
	for i := range ws {
		ws[i] = w
	}
	d.cfg = alloc.SlurmConfig{Names: p.Names, Weights: ws}
	if ranked {
		d.Settings = append(d.Settings, "TopologyParam=SwitchAsNodeRank (Slurm 23.02+: node order = leaf order, then NodeName line order)",
			"the compute nodes' NodeName lines in ordering order, each in the file that defined it (values they inherited from NodeName=DEFAULT lines made explicit where the move would change them)")
		note := "Slurm " + p.opt.Version.String() + " with SwitchAsNodeRank ranks nodes by leaf line, then by NodeName line: both written in ordering order, so Slurm follows the ordering inside a leaf too"
		if n, of, files := p.leavesAcrossFiles(t, lineOrder); n > 0 {
			note = fmt.Sprintf("Slurm %s with SwitchAsNodeRank ranks nodes by leaf line, then by NodeName line: the leaves are written in ordering order, and the NodeName lines in ordering order inside each file of slurm.conf (%s); %d of %d leaves hold nodes of more than one of them, and inside those Slurm follows the ordering file by file (each node stays in the file that defines it; the emulation follows the files written)", p.opt.Version, files, n, of)
		}
		if p.opt.Version.AtLeast(V2605) {
			note += "; a one-node job takes the first free node in that order (26.05's one-node path, select/cons_tres _get_one_res), larger jobs follow the tree selection as in 22.05 (measured on Slurm 26.05.3, plan/realslurm_test.go)"
		} else {
			note += "; the tree selection is emulated as Slurm 22.05 does it, one-node jobs included (Slurm's source: 26.05 is the first release that places them outside the plugin); measured on 22.05.8 and 26.05.3, not on this release"
		}
		d.Notes = append(d.Notes, note)
		return p.rankedTree(ctx, d, t, lineOrder)
	}
	d.cfg.Tree = t
	return nil
}

// readBack reads back the topology.conf a build wrote, under ctx (ParseTree and
// ParseBlocks do not look at one: 0.6 s for a 131,072-host fat tree's), and
// returns what of takes from it (the tree, the blocks).
func readBack[T any](ctx context.Context, data []byte, of func(*slurm.Topology) (T, error)) (T, error) {
	var none T
	t, err := slurm.ParseTopologyConfContext(ctx, bytes.NewReader(data))
	if err != nil && ctx.Err() != nil {
		return none, context.Cause(ctx)
	}
	if err != nil {
		return none, fmt.Errorf("internal error: the written topology.conf does not read back: %w", err)
	}
	x, err := of(t)
	if err != nil {
		return none, fmt.Errorf("internal error: the written topology.conf does not read back: %w", err)
	}
	return x, nil
}

// reorderNodeLines returns slurm.conf with the compute nodes' NodeName lines in
// order (node indices of Plan.Machine) inside each file of the configuration:
// the compute nodes of one file (the slurm.conf, or an included file) stay in
// that file, at the place of its first NodeName line that defines a compute
// node, consecutive nodes of one original line kept on one line; the other nodes
// keep their lines and places, and a file whose compute nodes are already in
// order (and get no extra pairs) keeps its lines byte for byte. extra are pairs
// set on every moved line. A moved node that would inherit other
// NodeName=DEFAULT values at its new place gets the values of its old place
// written out. lineOrder is the compute nodes' order in the files written (the
// order Slurm reads their NodeName lines in).
func (p *Plan) reorderNodeLines(ctx context.Context, order curves.Order, extra []slurm.ConfPair) (files *slurm.ConfFiles, lineOrder []int, err error) {
	stopped := looks(ctx)
	byName := make(map[string]slurm.ConfNode, len(p.nodes))
	byLine := map[int][]slurm.ConfNode{}
	type fileNodes struct {
		first          int              // the index in Lines of its first line defining a compute node
		insertDefaults []slurm.ConfPair // the NodeName=DEFAULT values there
		was, want      []int            // its compute nodes in line order, in order
		moves          bool             // its lines are rewritten: extra pairs, or want differs from was
	}
	byFile := map[string]*fileNodes{} // by ConfLine.File
	for k, n := range p.nodes {
		byName[n.Name] = n
		byLine[n.Index] = p.nodes[k-n.Pos : k+1 : k+1] // a line's nodes are a run of p.nodes
		v, ok := p.computeSet[n.Name]
		if !ok {
			continue
		}
		file := p.conf.Lines[n.Index].File
		f := byFile[file]
		if f == nil {
			f = &fileNodes{first: n.Index, insertDefaults: n.Defaults}
			byFile[file] = f
		}
		f.was = append(f.was, v)
	}
	for _, v := range order {
		f := byFile[p.conf.Lines[byName[p.Names[v]].Index].File]
		f.want = append(f.want, v)
	}
	// Once per file: asked per node, slices.Equal of two long equal prefixes was
	// quadratic (10 s of the tree's build of 131,072 hosts).
	for _, f := range byFile {
		f.moves = len(extra) > 0 || !slices.Equal(f.was, f.want)
	}
	moves := func(f *fileNodes) bool { return f.moves }
	// Where each compute node is read from: its line and place on it, the
	// nodes of a file that moves all on its first line, in order.
	type at struct{ line, pos int }
	where := make([]at, len(p.Names))
	for _, f := range byFile {
		for i, v := range f.want {
			if moves(f) {
				where[v] = at{f.first, i}
			} else {
				n := byName[p.Names[v]]
				where[v] = at{n.Index, n.Pos}
			}
		}
	}
	lineOrder = make([]int, len(p.Names))
	for i := range lineOrder {
		lineOrder[i] = i
	}
	slices.SortFunc(lineOrder, func(a, b int) int {
		return cmp.Or(cmp.Compare(where[a].line, where[b].line), cmp.Compare(where[a].pos, where[b].pos))
	})
	out, err := p.conf.Edit(p.nodes, func(l *slurm.ConfLine, ns []slurm.ConfNode) ([]string, error) {
		if err := stopped(len(ns)); err != nil {
			return nil, err
		}
		li := ns[0].Index
		if !slices.ContainsFunc(ns, func(n slurm.ConfNode) bool { return p.isCompute(n.Name) }) {
			return nil, nil
		}
		f := byFile[l.File]
		if !moves(f) {
			return nil, nil // in order already: the file as the site wrote it
		}
		lines := []string{}
		if li == f.first {
			for i := 0; i < len(f.want); {
				n := byName[p.Names[f.want[i]]]
				j := i + 1
				for j < len(f.want) {
					m := byName[p.Names[f.want[j]]]
					if m.Index != n.Index || m.Pos != n.Pos+(j-i) {
						break
					}
					j++
				}
				ol := &p.conf.Lines[n.Index]
				set := slices.Clone(extra)
				if !slices.Equal(n.Defaults, f.insertDefaults) {
					for _, dp := range n.Defaults {
						if _, onLine := ol.Get(dp.Key); !onLine && !slices.ContainsFunc(set, func(q slurm.ConfPair) bool { return strings.EqualFold(q.Key, dp.Key) }) {
							set = append(set, dp)
						}
					}
				}
				s, err := slurm.SplitNodeLine(ol, byLine[n.Index], [2]int{n.Pos, n.Pos + (j - i)}, set)
				if err != nil {
					return nil, err
				}
				if err := stopped(j - i); err != nil {
					return nil, err
				}
				lines = append(lines, s)
				i = j
			}
		}
		return p.splitComputeRuns(lines, l, ns, nil, nil) // the other nodes stay
	})
	if err != nil {
		return nil, nil, &InputError{p.opt.SlurmConfPath, err}
	}
	return out, lineOrder, nil
}

// confWith returns slurm.conf with the global settings set and, when nodeSet is
// given, the pairs it returns set on the compute nodes of every NodeName line. A
// line that also defines nodes the network lacks is split so that those keep their
// values (the report promises they keep their configuration).
func (p *Plan) confWith(ctx context.Context, set [][2]string, nodeSet func(l *slurm.ConfLine, ns []slurm.ConfNode) []slurm.ConfPair) (*slurm.ConfFiles, error) {
	conf := p.conf
	if nodeSet != nil {
		stopped := looks(ctx)
		out, err := p.conf.Edit(p.nodes, func(l *slurm.ConfLine, ns []slurm.ConfNode) ([]string, error) {
			if err := stopped(len(ns)); err != nil {
				return nil, err
			}
			if !slices.ContainsFunc(ns, func(n slurm.ConfNode) bool { return p.isCompute(n.Name) }) {
				return nil, nil
			}
			return p.splitComputeRuns(nil, l, ns, nil, func(run []slurm.ConfNode) ([]slurm.ConfPair, error) { return nodeSet(l, run), nil })
		})
		if err != nil {
			return nil, &InputError{p.opt.SlurmConfPath, err}
		}
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		if conf, err = out.Read(); err != nil {
			return nil, err
		}
	}
	if ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	out, err := setGlobals(conf, set, p.dropPartitionTopology())
	if err != nil {
		return nil, &InputError{p.opt.SlurmConfPath, err}
	}
	return out, nil
}

// splitComputeRuns appends to lines the NodeName line l (defining the nodes ns)
// split into its runs of compute and of other nodes (slurm.SplitNodeLine), in order:
// each run of other nodes with its own values, each compute run with the pairs set
// returns for it; with set nil the compute runs are left out (another line holds
// them). A compute run is the longest from its first node i on; with together, only
// while together(i, j) holds for each further node j.
func (p *Plan) splitComputeRuns(lines []string, l *slurm.ConfLine, ns []slurm.ConfNode, together func(i, j int) bool, set func(run []slurm.ConfNode) ([]slurm.ConfPair, error)) ([]string, error) {
	for i := 0; i < len(ns); {
		compute := p.isCompute(ns[i].Name)
		j := i + 1
		for j < len(ns) && p.isCompute(ns[j].Name) == compute && (!compute || together == nil || together(i, j)) {
			j++
		}
		if compute && set == nil {
			i = j
			continue
		}
		var pairs []slurm.ConfPair
		if compute {
			var err error
			if pairs, err = set(ns[i:j]); err != nil {
				return nil, err
			}
		}
		s, err := slurm.SplitNodeLine(l, ns, [2]int{i, j}, pairs)
		if err != nil {
			return nil, err
		}
		lines = append(lines, s)
		i = j
	}
	return lines, nil
}

func (p *Plan) isCompute(name string) bool {
	if p.computeSet == nil {
		p.computeSet = make(map[string]int, len(p.Names))
		for v, n := range p.Names {
			p.computeSet[n] = v
		}
	}
	_, ok := p.computeSet[name]
	return ok
}

// blockSize is the topology/block base size: Options.BlockSize, else the most
// hosts on one leaf switch, cut down to a divisor of the host count.
func (p *Plan) blockSize() int {
	n := len(p.Names)
	size := p.opt.BlockSize
	if size <= 0 {
		per := map[int32]int{}
		for _, l := range p.leaf {
			per[l]++
		}
		for _, c := range per {
			size = max(size, c)
		}
	}
	for size > 1 && n%size != 0 {
		size--
	}
	return size
}

// buildBlock writes a topology/block topology.conf of blocks cut along the
// ordering (WriteBlockContext) and sets TopologyPlugin=topology/block.
func (p *Plan) buildBlock(ctx context.Context, d *Deployment) error {
	size := p.blockSize() // unsupported: 2 or more
	var buf bytes.Buffer
	write := slurm.WriteBlockContext
	if !p.opt.Version.AtLeast(V2405) {
		write = slurm.WriteBlockLevelsContext // 23.11 reads BlockLevels=, not BlockSizes=
	}
	if err := write(ctx, &buf, p.Order, p.Names, size); err != nil {
		return err
	}
	d.TopologyName, d.Topology = "topology.conf", buf.Bytes()
	b, err := readBack(ctx, d.Topology, (*slurm.Topology).BlocksOf)
	if err != nil {
		return err
	}
	eq, w := p.equalWeights(d)
	conf, err := p.confWith(ctx, [][2]string{{"TopologyPlugin", "topology/block"}, {"TopologyParam", p.topologyParam(false)}}, eq)
	if err != nil {
		return err
	}
	d.setConf(conf)
	d.Settings = append(d.Settings, "TopologyPlugin=topology/block", fmt.Sprintf("blocks of %d nodes along the ordering", size))
	ws := make([]uint32, len(p.Names))
	for i := range ws {
		ws[i] = w
	}
	d.cfg = alloc.SlurmConfig{Names: p.Names, Weights: ws, Blocks: b}
	d.Notes = append(d.Notes, "the block selection is emulated as Slurm 26.05.3 does it (measured); among equally free blocks Slurm takes the later one, inside a block natural name order")
	return nil
}

// renamePrefix picks the prefix of the new node names: "c", or the first of "cn",
// "cx", ... whose names collide with no node or host name of the slurm.conf.
func (p *Plan) renamePrefix(ctx context.Context, width int) (string, error) {
	taken := map[string]bool{}
	stopped := looks(ctx)
	for _, n := range p.confNodes {
		if err := stopped(1); err != nil {
			return "", err
		}
		taken[n.Name], taken[n.Hostname] = true, true
	}
	for _, pre := range []string{"c", "cn", "cx", "rank", "ordered"} {
		ok := true
		for r := range len(p.Names) {
			if err := stopped(1); err != nil {
				return "", err
			}
			if taken[fmt.Sprintf("%s%0*d", pre, width, r+1)] {
				ok = false
				break
			}
		}
		if ok {
			return pre, nil
		}
	}
	return "procalloc-rank", nil
}

// buildNames renames the compute nodes so that natural name order is the ordering:
// NodeName=cNNN in rank order, NodeHostname the host's (so slurmd and the network
// stay), partitions' node lists renamed along.
func (p *Plan) buildNames(ctx context.Context, d, cur *Deployment) error {
	n := len(p.Names)
	width := len(strconv.Itoa(n))
	pre, err := p.renamePrefix(ctx, width)
	if err != nil {
		return err
	}
	stopped := looks(ctx)
	newName := make([]string, n)
	rank := p.Order.Ranks()
	rename := make(map[string]string, n)
	for v := range p.Names {
		newName[v] = fmt.Sprintf("%s%0*d", pre, width, rank[v]+1)
		rename[p.Names[v]] = newName[v]
	}
	eq, w := p.equalWeights(d)
	out, err := p.conf.Edit(p.nodes, func(l *slurm.ConfLine, ns []slurm.ConfNode) ([]string, error) {
		if err := stopped(len(ns)); err != nil {
			return nil, err
		}
		if !slices.ContainsFunc(ns, func(x slurm.ConfNode) bool { return p.isCompute(x.Name) }) {
			return nil, nil
		}
		_, hasHost := l.Get("NodeHostname")
		// A run keeps consecutive ranks: its new names are one hostlist range.
		consecutive := func(i, j int) bool {
			return rank[p.computeSet[ns[j].Name]] == rank[p.computeSet[ns[i].Name]]+(j-i)
		}
		return p.splitComputeRuns(nil, l, ns, consecutive, func(run []slurm.ConfNode) ([]slurm.ConfPair, error) {
			if err := stopped(len(run)); err != nil {
				return nil, err
			}
			var nn, old []string
			for _, x := range run {
				nn = append(nn, rename[x.Name])
				old = append(old, x.Name)
			}
			hl, err := hostlist.Compress(nn)
			if err != nil {
				return nil, err
			}
			set := []slurm.ConfPair{{Key: l.Pairs[0].Key, Value: hl}}
			if !hasHost {
				oh, err := hostlist.Compress(old)
				if err != nil {
					return nil, err
				}
				set = append(set, slurm.ConfPair{Key: "NodeHostname", Value: oh})
			}
			if eq != nil {
				set = append(set, eq(l, ns)...)
			}
			return set, nil
		})
	})
	if err != nil {
		return &InputError{p.opt.SlurmConfPath, err}
	}
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	c2, err := out.Read()
	if err != nil {
		return fmt.Errorf("internal error: the renamed slurm.conf does not read back: %w", err)
	}
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	// Node lists elsewhere in slurm.conf: partitions, node sets, DownNodes,
	// SuspendExcNodes (which slurmctld ignores whole when a name is not a node:
	// power_save.c "Invalid SuspendExcNodes ... ignored", so the excluded nodes
	// would be powered down).
	//
	// A list is read one name at a time (hostlist.Each), each name kept once
	// (slurmctld drops repeats), so that it costs its distinct names and not its
	// length: at most the nodes of slurm.conf, and as many names again that are
	// none of them (NodeSet names, feature{F}, nodes of an unread Include file);
	// more such names than the nodes is a typo, refused before it is made.
	known := make(map[string]bool, len(p.nodes))
	for _, n := range p.nodes {
		known[n.Name] = true
	}
	renameList := func(list string) (string, bool, error) {
		var hs []string
		seen := map[string]bool{}
		changed, others := false, 0
		err := hostlist.Each(ctx, list, func(h string) error {
			if seen[h] {
				return nil
			}
			seen[h] = true
			if nn, ok := rename[h]; ok {
				hs, changed = append(hs, nn), true
				return nil
			}
			if !known[h] {
				if others++; others > len(p.nodes) {
					return fmt.Errorf("more than %d distinct names that are not nodes of slurm.conf, which has %d (a typo?)", len(p.nodes), len(p.nodes))
				}
			}
			hs = append(hs, h)
			return nil
		})
		if err != nil {
			return "", false, err
		}
		slices.SortFunc(hs, hostlist.NaturalCompare)
		out, err := hostlist.Compress(hs)
		return out, changed, err
	}
	editLists := func(li int, l *slurm.ConfLine) ([]string, error) {
		switch l.Kind() {
		case "partitionname", "nodeset":
			return renameNodeList(l, "Nodes", renameList)
		case "downnodes":
			return renameNodeList(l, "DownNodes", renameList)
		case "suspendexcnodes":
			return renameNodeList(l, "SuspendExcNodes", func(v string) (string, bool, error) { return renameExcNodes(v, renameList) })
		}
		return nil, nil
	}
	// The lists are checked on the site's slurm.conf first, so that an error
	// names the line the user wrote, not the renamed file's (whose NodeName
	// lines were split in runs): the lists are the same text in both.
	if _, err := p.conf.EditLines(editLists, nil); err != nil {
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		return &InputError{p.opt.SlurmConfPath, err}
	}
	out, err = c2.EditLines(editLists, nil)
	if err != nil {
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		return fmt.Errorf("internal error: the renamed slurm.conf's node lists: %w", err)
	}
	d.setConf(out)
	d.names = newName
	ws := make([]uint32, n)
	for i := range ws {
		ws[i] = w
	}
	d.cfg = alloc.SlurmConfig{Names: newName, Weights: ws}
	d.Settings = append(d.Settings, fmt.Sprintf("NodeName=%s%0*d..%s%0*d in ordering order, NodeHostname the host's; partitions' node lists renamed", pre, width, 1, pre, width, n))
	// renameOrdered renames a list whose order is positions (a ring's, a
	// torus's): each name in place, the order kept.
	renameOrdered := func(list string) (string, bool, error) {
		names, err := hostlist.ExpandContext(ctx, list)
		if err != nil {
			return "", false, err
		}
		changed := false
		for i, h := range names {
			if nn, ok := rename[h]; ok {
				names[i], changed = nn, true
			}
		}
		out, err := hostlist.CompressContext(ctx, names)
		return out, changed, err
	}
	if cur != nil && cur.TopologyName == "topology.yaml" {
		// The site's topology.yaml with every topology's nodes renamed in
		// place (slurm.RenameTopologyYAMLNodes): a switch's or block's list as
		// a set, a ring's, torus's or region's in its order (positions), so
		// that each partition keeps its topology, on the new names.
		if e := &p.topoYAML.Topologies[p.topoYAML.Default()]; e.Topology != nil && e.Tree != nil && p.switchAsNodeRank() && p.opt.Version.AtLeast(V2302) {
			d.Supported, d.Why = false, "the site's SwitchAsNodeRank orders nodes by leaf, not by name: use the tree deployment"
			return nil
		}
		renamed, err := slurm.RenameTopologyYAMLNodes(ctx, p.opt.TopologyConf, func(list string, ordered bool) (string, error) {
			if !ordered {
				out, _, err := renameList(list)
				return out, err
			}
			out, _, err := renameOrdered(list)
			return out, err
		})
		if err != nil {
			if ctx.Err() != nil {
				return context.Cause(ctx)
			}
			return &InputError{p.opt.TopologyConfPath, err}
		}
		if _, err := slurm.ParseTopologyYAMLAll(ctx, bytes.NewReader(renamed)); err != nil {
			if ctx.Err() != nil {
				return context.Cause(ctx)
			}
			return fmt.Errorf("internal error: the renamed topology.yaml does not read back: %w", err)
		}
		if _, err := p.useYAMLRules(d, d.cfg, rename); err != nil {
			return err
		}
		d.TopologyName, d.Topology = "topology.yaml", renamed
		d.Settings = append(d.Settings, "topology.yaml: every topology's nodes renamed (a ring's, torus's and region's in their order)")
	} else if cur != nil && cur.Topology != nil {
		if cur.cfg.Blocks != nil || cur.cfg.Tree == nil && cur.cfg.Rings == nil {
			d.Supported, d.Why = false, "renaming a topology/block configuration is not done: the block file names the old nodes"
			return nil
		}
		// The site's topology.conf line by line: the leaves' node lists (as
		// sets) or the rings' (in ring order) renamed where they are (an
		// included file in place), every other line kept.
		files, err := p.topology.EditLines(func(li int, l *slurm.ConfLine) ([]string, error) {
			switch l.Kind() {
			case "switchname":
				return renameNodeList(l, "Nodes", renameList)
			case "ringname":
				return renameNodeList(l, "Nodes", renameOrdered)
			}
			return nil, nil
		})
		if err != nil {
			return &InputError{p.opt.TopologyConfPath, err}
		}
		back, err := files.ReadTopology(ctx)
		if err != nil {
			return fmt.Errorf("internal error: the renamed topology.conf does not read back: %w", err)
		}
		if cur.cfg.Rings != nil {
			if _, err := back.RingsOf(); err != nil {
				return fmt.Errorf("internal error: the renamed topology.conf: %w", err)
			}
			// The site's rings as emulated, on the new names (what the
			// renamed file says, the names slurm.conf lacks left out).
			if d.cfg.Rings, err = p.siteRings(p.topology.Rings, "", func(n string) string {
				if m, ok := rename[n]; ok {
					return m
				}
				return n
			}); err != nil {
				return err
			}
			d.TopologyName, d.Topology, d.TopologyIncluded = "topology.conf", files.SlurmConf, files.Included
			d.Settings = append(d.Settings, "topology.conf: the rings' nodes renamed, each ring's order kept")
		} else {
			t, err := back.TreeOf()
			if err != nil {
				return fmt.Errorf("internal error: the renamed topology.conf: %w", err)
			}
			if t, err = restrictTree(t, newName); err != nil {
				return err
			}
			d.TopologyName, d.Topology, d.TopologyIncluded = "topology.conf", files.SlurmConf, files.Included
			if p.switchAsNodeRank() && p.opt.Version.AtLeast(V2302) {
				d.Supported, d.Why = false, "the site's SwitchAsNodeRank orders nodes by leaf, not by name: use the tree deployment"
				return nil
			}
			d.cfg.Tree = t
		}
	}
	d.Notes = append(d.Notes, "renaming nodes: every file and script that names them (gres.conf, topology.conf, reservations, monitoring, accounting) must follow; jobs and reservations on the old names must be drained first")
	d.Notes = append(d.Notes, "Slurm then does Best Fit along natural name order, which is the ordering (measured on Slurm 22.05.8)")
	return nil
}

// renameExcNodes renames the nodes of a SuspendExcNodes value: a hostlist, or
// (Slurm 23.02 on) "HOSTLIST:COUNT" entries joined by commas, read as power_save.c's
// _parse_exc_nodes does (a hostlist up to ':', a count up to ',').
func renameExcNodes(v string, renameList func(string) (string, bool, error)) (string, bool, error) {
	if !strings.Contains(v, ":") {
		return renameList(v)
	}
	var parts []string
	changed := false
	for rest := v; rest != ""; {
		hl, after, _ := strings.Cut(rest, ":")
		count, next, _ := strings.Cut(after, ",")
		r, ch, err := renameList(hl)
		if err != nil {
			return "", false, err
		}
		changed = changed || ch
		if count != "" {
			r += ":" + count
		}
		parts = append(parts, r)
		rest = next
	}
	return strings.Join(parts, ","), changed, nil
}

// renameNodeList returns line l with the node lists of key renamed by rename
// (which says whether it changed a name), its comment kept; nil when no name
// changes (the line kept byte for byte). ALL stays ALL.
func renameNodeList(l *slurm.ConfLine, key string, rename func(list string) (string, bool, error)) ([]string, error) {
	changed := false
	pairs := slices.Clone(l.Pairs)
	for i := range pairs {
		if !strings.EqualFold(pairs[i].Key, key) || strings.EqualFold(pairs[i].Value, "ALL") {
			continue
		}
		v, ch, err := rename(pairs[i].Value)
		if err != nil {
			return nil, fmt.Errorf("%s=%s: %w", pairs[i].Key, pairs[i].Value, err)
		}
		pairs[i].Value, changed = v, changed || ch
	}
	if !changed {
		return nil, nil
	}
	return lineOf(pairs, l.Comment)
}

// buildTorus3D writes a topology.yaml torus3d for a torus of at most three
// dimensions (WriteTorus3D, the default placements).
func (p *Plan) buildTorus3D(d *Deployment) error {
	g := p.Machine.(*topo.Grid) // unsupported: a torus
	dims, err := slurm.TorusDims(g)
	if err != nil {
		return err
	}
	placements := slurm.DefaultPlacements(dims)
	var buf bytes.Buffer
	if err := slurm.WriteTorus3D(&buf, g, p.Names, placements); err != nil {
		return err
	}
	d.TopologyName, d.Topology = "topology.yaml", buf.Bytes()
	d.SlurmConf, d.Included = p.opt.SlurmConf, p.siteIncluded
	if drop := p.dropPartitionTopology(); drop != nil {
		// The site's topology.yaml is replaced: its topologies' names go.
		files, err := setGlobals(p.conf, nil, drop)
		if err != nil {
			return &InputError{p.opt.SlurmConfPath, err}
		}
		d.setConf(files)
		d.Settings = append(d.Settings, "Topology= removed from the PartitionName lines (it named topologies of the site's topology.yaml, which this one replaces)")
	}
	d.torus = &torusConfig{dims: dims, placements: placements}
	d.Settings = append(d.Settings, "topology.yaml next to slurm.conf (torus3d; Slurm 26.05 then ignores TopologyPlugin)")
	d.Notes = append(d.Notes, "torus3d places every job on a box of its size's placement: a job whose size has no placement is refused at submission; the ordering does not enter")
	return nil
}
