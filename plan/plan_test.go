package plan

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/internal/ctxtest"
	"github.com/procalloc/procalloc/internal/fabrictest"
	"github.com/procalloc/procalloc/sim"
	"github.com/procalloc/procalloc/slurm"
	"github.com/procalloc/procalloc/topo"
	"github.com/procalloc/procalloc/topo/hostlist"
)

// sampleOptions are the repository's sample: the ibnetdiscover fat tree (16 hosts
// on 4 leaves, cabled round-robin), plan/testdata/slurm.conf and the sacct trace.
// versionedOptions is sampleOptions (no trace) for Slurm version ver with the
// site's slurm.conf conf and jobs synthetic jobs.
func versionedOptions(t testing.TB, ver Version, jobs int, conf string) Options {
	t.Helper()
	opt := sampleOptions(t, false)
	opt.Version, opt.VersionSource = ver, "test"
	opt.SyntheticJobs = jobs
	opt.SlurmConf = []byte(conf)
	return opt
}

func sampleOptions(t testing.TB, withTrace bool) Options {
	t.Helper()
	g := fabrictest.SampleFabric(t, "../topo/testdata")
	conf, err := os.ReadFile("testdata/slurm.conf")
	if err != nil {
		t.Fatal(err)
	}
	opt := Options{Machine: g, MachineSource: "fattree.ibnetdiscover", SlurmConf: conf, SlurmConfPath: "testdata/slurm.conf", TimeLimit: 10 * time.Second, Seed: 1}
	if withTrace {
		tr, err := sim.ReadTraceFile("../sim/testdata/sacct-fattree.txt", sim.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		opt.Trace, opt.TracePath = tr, "sacct-fattree.txt"
	}
	return opt
}

func file(p *Plan, name string) []byte {
	for _, f := range p.Files {
		if f.Name == name {
			return f.Data
		}
	}
	return nil
}

// The sample end to end: the ordering is certified optimal (F 56 against 88 for
// name order, docs/fabric.md), production's placements (as-run) are what the
// emulation of the current configuration predicts (production placed every job
// along name order), the deployments that carry the ordering put more jobs on one
// leaf, and every file of item 5 is there with the report's keys.
func TestPlanSample(t *testing.T) {
	p, err := Make(context.Background(), sampleOptions(t, true))
	if err != nil {
		t.Fatal(err)
	}
	r := &p.Report
	if r.Ordering.Objective != 56 || r.Ordering.Status != "optimal" || r.Ordering.Bound == nil || *r.Ordering.Bound != 56 || r.Ordering.NameOrder != 88 {
		t.Errorf("ordering %+v", r.Ordering)
	}
	cur := p.reportOf(KindCurrent)
	// as-run is production: its predictions are the trace's node lists.
	var want strings.Builder
	want.WriteString("job_id,line,submit,start,end,nodes,node_list\n")
	for _, j := range p.Jobs {
		hl, _ := hostlist.Compress(j.NodeList.Names())
		fmt.Fprintf(&want, "%d,%d,%d,%d,%d,%d,%q\n", j.ID, j.Line, j.Arrival, j.Started, j.Started+j.Runtime, j.Procs, hl)
	}
	if got := string(file(p, "predictions/as-run.csv")); got != want.String() {
		t.Errorf("as-run predictions:\n%s\nwant\n%s", got, want.String())
	}
	for _, k := range []Kind{KindWeights, KindNames, KindTree} {
		d := p.reportOf(k)
		if !d.Supported || d.Metrics == nil || *d.Metrics.PctOneLeaf <= *cur.Metrics.PctOneLeaf || d.ChangeVsCurrent == nil || *d.ChangeVsCurrent >= 0 {
			t.Errorf("%s: %+v", k, d)
		}
	}
	for _, k := range []Kind{KindBlock, KindTorus3D} {
		if d := p.reportOf(k); d.Supported || d.NeedsVersion == "" || d.Metrics != nil {
			t.Errorf("%s on 22.05: %+v", k, d)
		}
	}
	if r.Recommended == string(KindCurrent) || r.Recommended == string(KindAsRun) {
		t.Errorf("recommended %s: %s", r.Recommended, r.Recommendation)
	}
	for _, name := range []string{"ordering.pairs", "slurm.conf", "report.json", "report.html", "apply.txt"} {
		if file(p, name) == nil {
			t.Errorf("no %s", name)
		}
	}
	var js map[string]any
	if err := json.Unmarshal(file(p, "report.json"), &js); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"recommended", "deployments", "unmatched_hosts", "ordering"} {
		if _, ok := js[k]; !ok {
			t.Errorf("report.json has no %q", k)
		}
	}
	d0 := js["deployments"].([]any)[0].(map[string]any)
	for _, k := range []string{"name", "supported", "needs_version", "metrics"} {
		if _, ok := d0[k]; !ok {
			t.Errorf("deployment has no %q", k)
		}
	}
	m := d0["metrics"].(map[string]any)
	for _, k := range []string{"mean_pairwise_hops", "mean_leaves_spanned", "pct_one_leaf"} {
		if _, ok := m[k]; !ok {
			t.Errorf("metrics have no %q", k)
		}
	}
	o := js["ordering"].(map[string]any)
	for _, k := range []string{"objective", "bound", "gap"} {
		if _, ok := o[k]; !ok {
			t.Errorf("ordering has no %q", k)
		}
	}
	h := string(file(p, "report.html"))
	if !strings.Contains(h, "<svg") || strings.Contains(h, "http://") && !strings.Contains(h, `xmlns="http://www.w3.org/2000/svg"`) || strings.Contains(h, "<script") || strings.Contains(h, "src=") {
		t.Errorf("report.html not one self-contained page")
	}
	if !strings.Contains(h, r.Recommendation[:20]) {
		t.Errorf("report.html lacks the recommendation")
	}
}

// slurmFromFiles builds the emulation of deployment d from its written files alone
// (slurm.conf as Slurm reads it, the topology file), the way a reader of the files
// would: node names, weights, topology, and with SwitchAsNodeRank the node order of
// the leaves and NodeName lines. The deployment's own emulator must agree with it.
func slurmFromFiles(t *testing.T, p *Plan, d *Deployment, ver Version) *alloc.SlurmAllocator {
	t.Helper()
	text := d.SlurmConf
	if d.Included != nil {
		text = []byte(putTogether(t, d)) // the included files as Slurm reads them
	}
	c, err := slurm.ReadConf(text)
	if err != nil {
		t.Fatal(err)
	}
	nodes, err := c.Nodes()
	if err != nil {
		t.Fatal(err)
	}
	byHost := map[string]slurm.ConfNode{}
	for _, n := range nodes {
		byHost[n.Hostname] = n
	}
	cfg := alloc.SlurmConfig{Names: make([]string, len(p.Names)), Weights: make([]uint32, len(p.Names))}
	for v, h := range p.Names {
		n, ok := byHost[h]
		if !ok {
			t.Fatalf("%s: host %s not in the written slurm.conf", d.Kind, h)
		}
		cfg.Names[v], cfg.Weights[v] = n.Name, n.Weight
	}
	plugin := strings.ToLower(c.Global("TopologyPlugin"))
	topology := d.Topology
	if topology == nil {
		topology = p.opt.TopologyConf // the site's file stays (weights)
		if p.siteTopologyIncluded != nil {
			topology = []byte(putTogetherFiles(t, topology, p.siteTopologyIncluded))
		}
	} else if d.TopologyIncluded != nil {
		topology = []byte(putTogetherFiles(t, topology, d.TopologyIncluded)) // as Slurm reads them
	}
	switch {
	case plugin == "topology/tree":
		tr, err := slurm.ParseTree(bytes.NewReader(topology))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(c.Global("TopologyParam"), "SwitchAsNodeRank") && ver.AtLeast(V2302) {
			// Node table: NodeName line order, stably sorted by leaf rank.
			pos := map[string]int{}
			for i, n := range nodes {
				pos[n.Name] = i
			}
			// Slurm's ranks: leaves 1, 2, ... in file order (a node on two leaves
			// keeps the later), 0 for a node on none.
			leaf := map[string]int{}
			for i, s := range tr.Switches {
				for _, n := range s.Nodes {
					leaf[n] = i + 1
				}
			}
			order := slices.Clone(cfg.Names)
			slices.SortStableFunc(order, func(a, b string) int { return pos[a] - pos[b] })
			slices.SortStableFunc(order, func(a, b string) int { return leaf[a] - leaf[b] })
			rename := map[string]string{}
			for i, n := range order {
				rename[n] = "z" + strings.Repeat("0", 6-len(itoa(i))) + itoa(i)
			}
			var buf bytes.Buffer
			for _, s := range tr.Switches {
				if s.Level == 0 {
					ns := make([]string, len(s.Nodes))
					for i, n := range s.Nodes {
						ns[i] = rename[n]
					}
					buf.WriteString("SwitchName=" + s.Name + " Nodes=" + strings.Join(ns, ",") + "\n")
				} else {
					var ch []string
					for _, c := range s.Children {
						ch = append(ch, tr.Switches[c].Name)
					}
					buf.WriteString("SwitchName=" + s.Name + " Switches=" + strings.Join(ch, ",") + "\n")
				}
			}
			if tr, err = slurm.ParseTree(&buf); err != nil {
				t.Fatal(err)
			}
			for v := range cfg.Names {
				cfg.Names[v] = rename[cfg.Names[v]]
			}
		}
		cfg.Tree = tr
	case plugin == "topology/block":
		b, err := slurm.ParseBlocks(bytes.NewReader(topology))
		if err != nil {
			t.Fatal(err)
		}
		cfg.Blocks = b
	}
	// From 26.05 a one-node job takes the free node of lowest weight, first in node
	// order (select/cons_tres _get_one_res), whatever the plugin.
	cfg.OneNodeByWeight = ver.AtLeast(V2605)
	// From 24.11 topology/tree takes a closer leaf only when it fits the rest and
	// lowers the counts above a used leaf (alloc.SlurmConfig.Tree2411).
	cfg.Tree2411 = ver.AtLeast(V2411)
	a, err := alloc.NewSlurm(p.Machine, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// samePlacements runs one random sequence of submissions (1 to 6 nodes) and
// releases, 400 steps, on a deployment's emulator (mine) and on the emulation built
// from its files (ref): every placement must be the same.
func samePlacements(t *testing.T, what string, mine alloc.Allocator, ref *alloc.SlurmAllocator, seed uint64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 3))
	var live [][]int
	for step := range 400 {
		if len(live) > 0 && (rng.IntN(3) == 0 || mine.NumFree() == 0) {
			i := rng.IntN(len(live))
			if err := mine.Release(live[i]); err != nil {
				t.Fatal(err)
			}
			if err := ref.Release(live[i]); err != nil {
				t.Fatal(err)
			}
			live = slices.Delete(live, i, i+1)
			continue
		}
		k := 1 + rng.IntN(min(mine.NumFree(), 6))
		a, errA := mine.Allocate(k)
		b, errB := ref.Allocate(k)
		if (errA == nil) != (errB == nil) || !slices.Equal(a, b) {
			t.Fatalf("%s, step %d, %d nodes: emulator %v %v, from the files %v %v", what, step, k, a, errA, b, errB)
		}
		if errA == nil {
			live = append(live, a)
		}
	}
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	s := ""
	for ; i > 0; i /= 10 {
		s = string(rune('0'+i%10)) + s
	}
	return s
}

// Every deployment's emulator places jobs exactly as the emulation built from its
// written files does, through random sequences of submissions and releases, on
// 22.05 and 26.05 (where tree is SwitchAsNodeRank with reordered NodeName lines and
// block applies); and the files say what the deployment means: weights along the
// ordering, names whose natural order is the ordering with the hosts kept.
func TestDeploymentFilesMatchEmulation(t *testing.T) {
	siteTopo, err := os.ReadFile("../topo/testdata/topology.conf")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		ver      Version
		siteTree bool
	}{{Version{Major: 22, Minor: 5}, false}, {Version{Major: 26, Minor: 5}, false}, {Version{Major: 22, Minor: 5}, true}, {Version{Major: 26, Minor: 5}, true}} {
		ver := c.ver
		opt := sampleOptions(t, false)
		opt.Version, opt.VersionSource = ver, "test"
		opt.SyntheticJobs = 50
		// A DEFAULT line between node lines: the tree's reordering must keep what
		// each node inherits.
		opt.SlurmConf = []byte("NodeName=DEFAULT CPUs=1\nNodeName=node[01-08] RealMemory=10\nNodeName=DEFAULT Features=x\nNodeName=node[09-16]\nPartitionName=all Nodes=node[01-16] OverSubscribe=EXCLUSIVE\n")
		if c.siteTree {
			// The site runs topology/tree (with SwitchAsNodeRank, which 26.05 obeys).
			opt.SlurmConf = append(opt.SlurmConf, "TopologyPlugin=topology/tree\nTopologyParam=SwitchAsNodeRank\n"...)
			opt.TopologyConf, opt.TopologyConfPath = siteTopo, "topology.conf"
		}
		p, err := Make(context.Background(), opt)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range p.Deployments {
			if !d.Supported || d.Kind == KindAsRun || d.Kind == KindTorus3D {
				continue
			}
			mine, err := d.Allocator()
			if err != nil {
				t.Fatal(err)
			}
			samePlacements(t, fmt.Sprintf("Slurm %s, %s", ver, d.Kind), mine, slurmFromFiles(t, p, d, ver), uint64(ver.Major))
		}
		// What the files say.
		rank := p.Order.Ranks()
		wc, _ := slurm.ReadConf(p.Deployment(KindWeights).SlurmConf)
		wn, _ := wc.Nodes()
		for _, n := range wn {
			if v := p.computeSet[n.Name]; n.Weight != uint32(rank[v]+1) {
				t.Errorf("weights: %s Weight=%d, rank %d", n.Name, n.Weight, rank[v])
			}
		}
		nd := p.Deployment(KindNames)
		nc, _ := slurm.ReadConf(nd.SlurmConf)
		nn, _ := nc.Nodes()
		byName := map[string]slurm.ConfNode{}
		var newNames []string
		for _, n := range nn {
			byName[n.Name] = n
			newNames = append(newNames, n.Name)
		}
		slices.SortFunc(newNames, hostlist.NaturalCompare)
		for r, v := range p.Order {
			n := byName[newNames[r]]
			if n.Hostname != p.Names[v] || n.Addr != p.Names[v] {
				t.Errorf("names: rank %d is %s with host %s addr %s, want host %s", r, n.Name, n.Hostname, n.Addr, p.Names[v])
			}
		}
		parts, _ := nc.Partitions(nil)
		if hl, _ := hostlist.Compress(newNames); len(parts) != 1 || parts[0].Nodes != hl {
			t.Errorf("names: partition %+v, want Nodes=%s", parts, hl)
		}
		// Inheritance kept through the tree's reordering: node09-16 have Features=x.
		tc, _ := slurm.ReadConf(p.Deployment(KindTree).SlurmConf)
		tn, err := tc.Nodes()
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range tn {
			l := &tc.Lines[n.Index]
			f, ok := l.Get("Features")
			if !ok {
				for _, dp := range n.Defaults {
					if dp.Key == "Features" {
						f, ok = dp.Value, true
					}
				}
			}
			if want := n.Name >= "node09"; ok != want || ok && f != "x" {
				t.Errorf("Slurm %s tree: %s Features %q %v", ver, n.Name, f, ok)
			}
		}
	}
}

// torus3d: the emulator gives the placements Slurm 26.05.3 gave on a 4x2x2 torus
// (README, "Block, torus3d and SwitchAsNodeRank"), through frees, and refuses a
// size without a placement.
func TestTorus3DMeasured(t *testing.T) {
	g, err := topo.ParseSpec("torus:4x2x2")
	if err != nil {
		t.Fatal(err)
	}
	dims, _ := slurm.TorusDims(g)
	tor, err := newTorus3D(g, &torusConfig{dims: dims, placements: slurm.DefaultPlacements(dims)})
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, 16)
	for i := range names {
		names[i] = "node" + string(rune('0'+(i+1)/10)) + string(rune('0'+(i+1)%10))
	}
	hl := func(nodes []int) string {
		var s []string
		for _, v := range nodes {
			s = append(s, names[v])
		}
		h, _ := hostlist.Compress(s)
		return h
	}
	jobs := map[string][]int{}
	for _, step := range []struct {
		k    int
		free string
		want string
	}{
		{k: 8, want: "node[01-02,05-06,09-10,13-14]"},
		{free: "node[01-02,05-06,09-10,13-14]"},
		{k: 4, want: "node[01-02,05-06]"},
		{k: 1, want: "node09"},
		{k: 2, want: "node[03-04]"},
		{free: "node[01-02,05-06]"},
		{k: 3, want: "node[05-07]"},
		{k: 2, want: "node[01-02]"},
		{free: "node[03-04]"},
		{k: 4, want: "node[11-12,15-16]"},
		{k: 1, want: "node10"},
	} {
		if step.free != "" {
			if err := tor.Release(jobs[step.free]); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := tor.Allocate(step.k)
		if err != nil || hl(got) != step.want {
			t.Fatalf("%d nodes: %s %v, Slurm gave %s", step.k, hl(got), err, step.want)
		}
		jobs[hl(got)] = got
	}
	if _, err := tor.Allocate(5); err == nil || !strings.Contains(err.Error(), "no placement of 5 nodes") {
		t.Errorf("5 nodes: %v", err)
	}
}

// Bad input names the file and the line; hosts and nodes that do not match are
// listed, not invented.
func TestPlanBadInput(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		conf, want string
	}{
		{"NodeName=node[01-16] CPUs\n", "testdata/slurm.conf: line 1: \"CPUs\" is not KEY=VALUE"},
		{"ClusterName=x\nNodeName=node[01-16] NodeAddr=10.0.0.[1-17]\n", "testdata/slurm.conf: line 2: NodeAddr=10.0.0.[1-17] gives 17 values for 16 node names"},
		{"NodeName=other[1-4]\n", "none of the 16 hosts of fattree.ibnetdiscover is a node of the slurm.conf"},
		{"NodeName=node[01-16]\nTopologyPlugin=topology/tree\n", "TopologyPlugin=topology/tree needs its topology.conf"},
	} {
		opt := sampleOptions(t, false)
		opt.SlurmConf = []byte(c.conf)
		if _, err := Make(ctx, opt); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.conf, err, c.want)
		}
	}
	// A synthetic workload of 10^14 jobs panicked allocating it.
	opt := sampleOptions(t, false)
	opt.SyntheticJobs = 1e14
	if _, err := Make(ctx, opt); err == nil || !strings.Contains(err.Error(), "100000000000000 synthetic jobs: at most") {
		t.Errorf("10^14 synthetic jobs: %v", err)
	}
	// A history naming hosts the network lacks: the first few, with lines.
	opt = sampleOptions(t, true)
	hosts := opt.Trace.Jobs[0].NodeList.Table()
	opt.Trace.Jobs[0].NodeList = hosts.List([]string{"node01", "gpu7", "node03", "node04"})
	second := opt.Trace.Jobs[1].NodeList.Names()
	second[0] = "gpu8"
	opt.Trace.Jobs[1].NodeList = hosts.List(second)
	_, err := Make(ctx, opt)
	if err == nil || !strings.Contains(err.Error(), "sacct-fattree.txt: 2 node names of the history are not hosts of the network fattree.ibnetdiscover: gpu7 (line 2), gpu8 (line 5)") {
		t.Errorf("history: %v", err)
	}
	// One such host: said in the singular.
	opt = sampleOptions(t, true)
	opt.Trace.Jobs[0].NodeList = opt.Trace.Jobs[0].NodeList.Table().List([]string{"node01", "gpu7", "node03", "node04"})
	_, err = Make(ctx, opt)
	if err == nil || !strings.Contains(err.Error(), "sacct-fattree.txt: 1 node name of the history is not a host of the network fattree.ibnetdiscover: gpu7 (line 2) (") {
		t.Errorf("history naming one host the network lacks: %v", err)
	}
	// The way out is the library's option, not a command's flag.
	var uh *UnknownHostsError
	if !errors.As(err, &uh) || !strings.HasSuffix(err.Error(), "(retired or renamed nodes? Options.DropUnknownHosts drops their jobs, counted)") || strings.Contains(err.Error(), "--") {
		t.Errorf("history naming a host the network lacks: %v", err)
	}
	// Hosts slurm.conf lacks are listed and left out; nodes the network lacks listed.
	opt = sampleOptions(t, false)
	opt.SyntheticJobs = 30
	opt.SlurmConf = []byte("NodeName=node[01-14],login1\nPartitionName=p Nodes=ALL\n")
	p, err := Make(ctx, opt)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(p.Report.UnmatchedHosts, []string{"node15", "node16"}) || !slices.Equal(p.Report.MissingNodes, []string{"login1"}) || p.Machine.N() != 14 {
		t.Errorf("unmatched %v missing %v, %d compute hosts", p.Report.UnmatchedHosts, p.Report.MissingNodes, p.Machine.N())
	}
	// The left-out hosts still route: distances between compute hosts unchanged.
	full := sampleOptions(t, false).Machine.(*topo.Graph)
	cg := p.Machine.(*topo.Graph)
	for a := range cg.N() {
		for b := range cg.N() {
			fa, _ := full.Lookup(cg.Name(a))
			fb, _ := full.Lookup(cg.Name(b))
			if cg.Dist(a, b) != full.Dist(fa, fb) {
				t.Fatalf("%s-%s: %d hops, %d in the full network", cg.Name(a), cg.Name(b), cg.Dist(a, b), full.Dist(fa, fb))
			}
		}
	}
	if !strings.Contains(strings.Join(p.Report.Caveats, " "), "not OverSubscribe=EXCLUSIVE") {
		t.Errorf("no shared-node caveat: %v", p.Report.Caveats)
	}
}

// Without a trace the synthetic workload stands in, is seeded, and the report
// says so.
func TestPlanSynthetic(t *testing.T) {
	a := SyntheticWorkload(100, 500, 3)
	b := SyntheticWorkload(100, 500, 3)
	if !slices.EqualFunc(a, b, func(x, y sim.Job) bool { return x.Procs == y.Procs && x.Runtime == y.Runtime && x.Arrival == y.Arrival }) {
		t.Fatal("not deterministic")
	}
	ones := 0
	for i, j := range a {
		if j.Procs < 1 || j.Procs > 50 || j.Runtime < 60 || j.Runtime > 4*3600 || i > 0 && j.Arrival < a[i-1].Arrival {
			t.Fatalf("job %+v", j)
		}
		if j.Procs == 1 {
			ones++
		}
	}
	if ones < 70 || ones > 130 {
		t.Errorf("%d one-node jobs of 500, want about 100", ones)
	}
	opt := sampleOptions(t, false)
	opt.SyntheticJobs = 200
	p, err := Make(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	if p.Report.Workload.Source != "synthetic" || !strings.Contains(strings.Join(p.Report.Notes, " "), "synthetic workload stands in") || p.reportOf(KindAsRun).Supported {
		t.Errorf("workload %+v notes %v", p.Report.Workload, p.Report.Notes)
	}
}

// Ctrl-C (a cancelled context) stops the plan with the context's error: nothing to
// write.
func TestPlanCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	t0 := time.Now()
	_, err := Make(ctx, sampleOptions(t, false))
	if !errors.Is(err, context.Canceled) || time.Since(t0) > 2*time.Second {
		t.Fatalf("%v after %v", err, time.Since(t0))
	}
}

// The deployments are built one at a time with a look at ctx between them: each
// takes up to a second on 131,072 hosts (the tree's topology.conf, the weights'
// slurm.conf), and Ctrl-C there waited for the command's watchdog.
func TestBuildDeploymentsStopsBetweenKinds(t *testing.T) {
	p := &Plan{opt: sampleOptions(t, false)}
	p.opt.Weights, p.opt.Version = DefaultWeights(), DefaultVersion
	if err := p.checkInputs(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := p.order(context.Background(), time.Time{}); err != nil {
		t.Fatal(err)
	}
	err := p.buildDeployments(ctxtest.StopAfter(2), context.Background())
	if !errors.Is(err, context.Canceled) || len(p.Deployments) != 2 {
		t.Errorf("%v after %d deployments, want context.Canceled after 2 of %d", err, len(p.Deployments), len(kinds))
	}
}

func TestParseVersion(t *testing.T) {
	for s, want := range map[string]Version{"22.05": {Major: 22, Minor: 5}, "slurm 22.05.8": {Major: 22, Minor: 5, Patch: 8}, "slurm-wlm 23.11.4": {Major: 23, Minor: 11, Patch: 4}, "26.05": {Major: 26, Minor: 5}, "slurm 23.11.4-1\n": {Major: 23, Minor: 11, Patch: 4}, "(23.02)": {Major: 23, Minor: 2}} {
		if v, err := ParseVersion(s); err != nil || v != want {
			t.Errorf("%q: %v %v", s, v, err)
		}
	}
	// Not a version standing alone (these read as 05.05, 22.05 and 22.05 before).
	for _, s := range []string{"", "22", "22.13", "x.y", "2205.05", "22.055", "1.22.05", "22.05.99999999999999999999"} {
		if _, err := ParseVersion(s); err == nil {
			t.Errorf("%q accepted", s)
		}
	}
	if !(Version{Major: 23, Minor: 2}).AtLeast(V2302) || (Version{Major: 22, Minor: 5, Patch: 8}).AtLeast(V2302) || !(Version{Major: 26, Minor: 5}).AtLeast(V2311) {
		t.Error("AtLeast")
	}
}

// A synthetic fabric named by a hostlist: the topology files name the Slurm nodes,
// not the fabric's own host names.
func TestPlanRenamedFabric(t *testing.T) {
	m, err := topo.ParseMachine("fattree:4,4:4,4:4")
	if err != nil {
		t.Fatal(err)
	}
	names, _ := hostlist.Expand("cn[001-064]")
	opt := Options{Machine: m, Hosts: names, MachineSource: "fattree", SlurmConf: []byte("NodeName=cn[001-064] CPUs=1\nPartitionName=p Nodes=ALL OverSubscribe=EXCLUSIVE\n"),
		Version: V2311, VersionSource: "test", SyntheticJobs: 100, TimeLimit: 5 * time.Second}
	p, err := Make(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []Kind{KindTree, KindBlock} {
		d := p.Deployment(k)
		if !d.Supported || !strings.Contains(string(d.Topology), "Nodes=cn") || strings.Contains(string(d.Topology), "Nodes=h") {
			t.Errorf("%s: %v\n%s", k, d.Why, d.Topology)
		}
	}
}

// A mesh named by a hostlist with an sacct history: as-run replays production
// (placements by name on a grid), and every deployment's replay keeps production's
// schedule (as-run: the same starts).
func TestPlanGridHistory(t *testing.T) {
	m, err := topo.ParseMachine("mesh:4x4")
	if err != nil {
		t.Fatal(err)
	}
	names, _ := hostlist.Expand("node[01-16]")
	tr := syntheticHistory(t, m, names, 300)
	opt := Options{Machine: m, Hosts: names, MachineSource: "mesh:4x4", SlurmConf: []byte("NodeName=node[01-16]\nPartitionName=p Nodes=ALL OverSubscribe=EXCLUSIVE\n"),
		Trace: tr, TracePath: "history", Version: V2311, VersionSource: "test", TimeLimit: 5 * time.Second}
	p, err := Make(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	// syntheticHistory placed jobs with the same emulation of Slurm's default
	// selection (before 26.05's one-node path, hence 23.11 here): current, built
	// from slurm.conf, predicts it exactly (this checks the
	// path from slurm.conf to the emulator and the as-run schedule, not the
	// emulation itself, which alloc's tests check against a real Slurm).
	if a, b := file(p, "predictions/as-run.csv"), file(p, "predictions/current.csv"); a == nil || !bytes.Equal(a, b) {
		t.Errorf("current does not predict a history made by Slurm's default selection")
	}
	starts := func(csv []byte) []string {
		var out []string
		for _, l := range strings.Split(string(csv), "\n") {
			f := strings.Split(l, ",")
			if len(f) > 4 {
				out = append(out, f[3])
			}
		}
		return out
	}
	for _, d := range p.Report.Deployments {
		if d.Supported && d.Predictions != "" && !slices.Equal(starts(file(p, d.Predictions)), starts(file(p, "predictions/as-run.csv"))) {
			t.Errorf("%s: starts differ from production's", d.Name)
		}
	}
	opt.Version = V2605
	if p, err = Make(context.Background(), opt); err != nil {
		t.Fatal(err)
	}
	if d := p.reportOf(KindTorus3D); d.Supported {
		t.Errorf("torus3d on a mesh: %+v", d)
	}
}

// SwitchAsNodeRank's node table as Slurm's topology_p_generate_node_ranking makes
// it (src/plugins/topology/tree/topology_tree.c): leaves ranked in file order, a
// node on two leaves ranked by the later one, a node on no leaf (rank 0) first;
// equal ranks keep the NodeName lines' order.
func TestRankedTreeOrder(t *testing.T) {
	tr, err := slurm.ParseTree(strings.NewReader("SwitchName=l1 Nodes=a,b\nSwitchName=l2 Nodes=c,b\nSwitchName=l3 Nodes=d\nSwitchName=s Switches=l[1-3]\n"))
	if err != nil {
		t.Fatal(err)
	}
	p := &Plan{Names: []string{"a", "b", "c", "d", "e"}}
	d := &Deployment{}
	lines := []int{4, 3, 2, 1, 0} // NodeName lines: e, d, c, b, a
	if err := p.rankedTree(context.Background(), d, tr, lines); err != nil {
		t.Fatal(err)
	}
	// Ranks: e 0 (no leaf), a 1, b 2 (l2, the later leaf), c 2, d 3; within rank 2
	// the line order: c before b.
	order := slices.Clone(p.Names)
	slices.SortFunc(order, func(x, y string) int {
		return strings.Compare(d.cfg.Names[slices.Index(p.Names, x)], d.cfg.Names[slices.Index(p.Names, y)])
	})
	if want := []string{"e", "a", "c", "b", "d"}; !slices.Equal(order, want) {
		t.Errorf("node table %v, want %v", order, want)
	}
}

// The README's plan example quotes, for production's placements (as-run, and current,
// which predicts them), mean pairwise hops 3.880 over 7 multi-node jobs, 3.43 leaves
// spanned and 0.0 % of jobs on one leaf; docs/fabric.md a mean total of 45.714 hops. Worked out here by hand from the trace's
// node lists: each multi-node job's mean hop distance over its node pairs by
// breadth-first search (Graph.DistRow), its leaf switches counted, then means over
// the jobs.
func TestPlanSampleAsRunByHand(t *testing.T) {
	opt := sampleOptions(t, true)
	p, err := Make(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	g := opt.Machine.(*topo.Graph)
	var hops, total, leaves, oneLeaf float64
	jobs := 0
	for _, j := range p.Jobs {
		names := j.NodeList.Names()
		if len(names) < 2 {
			continue
		}
		var nodes []int
		for _, h := range names {
			v, ok := g.Lookup(h)
			if !ok {
				t.Fatalf("job %d: host %s not in the fabric", j.ID, h)
			}
			nodes = append(nodes, v)
		}
		sum, pairs := 0, 0
		leafSet := map[int]bool{}
		for a, u := range nodes {
			row := g.DistRow(u)
			for _, v := range nodes[a+1:] {
				sum += int(row[v])
				pairs++
			}
			leafSet[g.LeafSwitch(u)] = true
		}
		hops += float64(sum) / float64(pairs)
		total += float64(sum)
		leaves += float64(len(leafSet))
		if len(leafSet) == 1 {
			oneLeaf++
		}
		jobs++
	}
	n := float64(jobs)
	hops, total, leaves, oneLeaf = hops/n, total/n, leaves/n, 100*oneLeaf/n
	if jobs != 7 || len(p.Jobs) != 7 || fmt.Sprintf("%.3f %.2f %.1f", hops, leaves, oneLeaf) != "3.880 3.43 0.0" {
		t.Errorf("by hand: %d multi-node jobs of %d, mean hops %.4f, leaves %.3f, %.1f %% on one leaf; README: 7 of 7, 3.880, 3.43, 0.0", jobs, len(p.Jobs), hops, leaves, oneLeaf)
	}
	// docs/fabric.md's compare table: as-run's mean total hops per job 45.714.
	if fmt.Sprintf("%.3f", total) != "45.714" {
		t.Errorf("by hand: mean total pairwise hops %.4f; docs/fabric.md: 45.714", total)
	}
	for _, k := range []Kind{KindAsRun, KindCurrent} {
		d := p.reportOf(k)
		if d == nil || d.Metrics == nil || d.Metrics.Jobs != jobs || math.Abs(d.Metrics.MeanPairwiseHops-hops) > 1e-9 ||
			d.Metrics.MeanLeavesSpanned == nil || math.Abs(*d.Metrics.MeanLeavesSpanned-leaves) > 1e-9 ||
			d.Metrics.PctOneLeaf == nil || math.Abs(*d.Metrics.PctOneLeaf-oneLeaf) > 1e-9 {
			t.Errorf("%s: report %+v, by hand %d jobs, %.4f hops, %.3f leaves, %.1f %%", k, d, jobs, hops, leaves, oneLeaf)
		}
	}
}
