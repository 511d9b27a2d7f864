package plan

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/internal/textin"
	"github.com/procalloc/procalloc/slurm"
	"github.com/procalloc/procalloc/topo"
)

// A site's topology.yaml (Slurm 25.05 and later) as the current configuration.
// What slurmctld does, read in Slurm 26.05.3's sources:
//
//   - src/interfaces/topology.c, topology_g_init: when topology.yaml exists
//     (next to slurm.conf) it is read, and TopologyPlugin and topology.conf are
//     not; without it the one topology is TopologyPlugin with topology.conf,
//     named "default". _process_conf sorts the topologies with cluster_default
//     first (qsort by _cmp_tctx, which glibc's merge sort keeps in file order
//     otherwise);
//   - src/slurmctld/partition_mgr.c, set_part_topology_idx: a partition without
//     Topology= gets topology index 0 (the cluster_default one, else the first
//     listed); with Topology=NAME the topology of that name
//     (topology_g_get(TOPO_DATA_TCTX_IDX), _get_tctx_index_by_name: exact,
//     case-sensitive), and a name that is none stops slurmctld's configuration
//     ("Invalid partition topology", read_config.c);
//   - select/cons_tres's job_test.c evaluates a job's nodes with its partition's
//     topology (job_ptr->part_ptr->topology_idx), and
//     topology_g_generate_node_ranking ranks the nodes by topology 0 only;
//   - each topology's nodes are read with node_name2bitmap(best_effort): a name
//     that is no node of slurm.conf is logged ("Invalid hostnames in switch
//     configuration", block_record.c and torus3d_record.c alike) and left out.
//
// The current deployment then emulates each partition with its topology's
// selection: tree slurm:tree, block slurm:block, ring slurm:ring, flat
// slurm:consec, torus3d plan's torus3d; partitions of different topologies with one emulator each,
// every change of the machine told to all, each decision made by the job's
// partition's (partSwitch).

// isTopologyYAML reports whether a topology file is a topology.yaml (its first
// meaningful line "- topology: ...", as --graph and slurm:tree:FILE tell them
// apart: slurm.DetectGraphFormat).
func isTopologyYAML(data []byte) bool {
	f, err := slurm.DetectGraphFormat(data)
	return err == nil && f == "slurm-topology-yaml"
}

// readTopologyYAML reads Options.TopologyConf as a topology.yaml, every
// topology (slurm.ParseTopologyYAMLAll), and checks it against slurm.conf: the
// version (25.05 on) and each topology's nodes (none of slurm.conf's: the file
// of another cluster, an error; some: left out, as slurmctld does, with a
// warning).
func (p *Plan) readTopologyYAML(ctx context.Context) error {
	opt := p.opt
	y, err := slurm.ParseTopologyYAMLAll(ctx, bytes.NewReader(opt.TopologyConf))
	if err != nil && ctx.Err() != nil {
		return context.Cause(ctx)
	}
	if err != nil {
		return &InputError{opt.TopologyConfPath, fmt.Errorf("topology.yaml: %w", err)}
	}
	if !opt.Version.AtLeast(V2505) {
		return &InputError{opt.TopologyConfPath, fmt.Errorf("line %d: a topology.yaml, which Slurm reads from 25.05 on (src/interfaces/topology.c, topology_g_init); Slurm %s (%s) reads TopologyPlugin and topology.conf: give the topology.conf it runs, or the Slurm version the site runs (--slurm-version 25.05 or later)", y.Topologies[0].Line, opt.Version, opt.VersionSource)}
	}
	for _, e := range y.Topologies {
		if e.Topology != nil && (e.Torus != nil || e.Rings != nil) && !opt.Version.AtLeast(V2605) {
			// slurmctld loads every topology of the file, used or not.
			return &InputError{opt.TopologyConfPath, fmt.Errorf("line %d: topology %s is %s, which Slurm has from 26.05 on; the site's is %s (%s)", e.Line, e.Name, e.Kind(), opt.Version, opt.VersionSource)}
		}
	}
	r := &p.Report
	for _, w := range y.Warnings {
		r.Warnings = append(r.Warnings, opt.TopologyConfPath+": "+w)
	}
	for i := range y.Topologies {
		e := &y.Topologies[i]
		if e.Topology == nil {
			continue
		}
		for _, w := range e.Warnings {
			r.Warnings = append(r.Warnings, fmt.Sprintf("%s: topology %s: %s", opt.TopologyConfPath, e.Name, w))
		}
		if err := p.checkTopologyNodes(e.Topology, fmt.Sprintf("line %d: topology %s: ", e.Line, e.Name), "topology "+e.Name+" names", "topology.yaml"); err != nil {
			return err
		}
	}
	p.topoYAML = y
	return nil
}

// checkTopologyNodes checks the nodes a site's topology names against
// slurm.conf's: none of them (the file of another cluster) is an error, some
// of them a warning (slurmctld leaves the others out, and so does the
// emulation). at begins the error ("line N: topology T: ", "" for the file),
// names the warning ("topology T names"), file is the file's kind.
func (p *Plan) checkTopologyNodes(t *slurm.Topology, at, names, file string) error {
	opt := p.opt
	known, unknown, firstAt, first := 0, 0, "", ""
	for where, ns := range topologyNodes(t) {
		for _, n := range ns {
			if _, ok := p.confNodes[n]; ok {
				known++
				continue
			}
			if unknown++; unknown == 1 {
				firstAt, first = where, n
			}
		}
	}
	switch {
	case unknown > 0 && known == 0:
		return &InputError{opt.TopologyConfPath, fmt.Errorf("%snone of its %d nodes is a node of %s (%s names %s; slurm.conf's first nodes: %s): is it this cluster's %s?", at, unknown, opt.SlurmConfPath, firstAt, first, strings.Join(nodeNames(p.nodes[:min(3, len(p.nodes))]), ", "), file)}
	case unknown > 0:
		// A line of the file itself named with the file, one of a file its
		// Include lines name by that file (as the reader's messages do).
		if strings.HasPrefix(firstAt, "line ") {
			firstAt = opt.TopologyConfPath + " " + firstAt
		}
		p.Report.Warnings = append(p.Report.Warnings, fmt.Sprintf("%s: %s %s slurm.conf lacks (first: %s): slurmctld leaves such names out (\"Invalid hostnames in ... configuration\"), and so does the emulation", firstAt, names, textin.CountNoun(unknown, "node"), first))
	}
	return nil
}

// topologyNodes lists t's nodes by the line that names them ("line N", or
// "FILE line N" in a file a topology.conf's Include lines name): a tree's
// leaves, a block's nodes, a torus's, a ring's.
func topologyNodes(t *slurm.Topology) func(yield func(string, []string) bool) {
	return func(yield func(string, []string) bool) {
		switch {
		case t.Tree != nil:
			for _, s := range t.Tree.Switches {
				if s.Level == 0 && !yield(slurm.LineRef(s.File, s.Line), s.Nodes) {
					return
				}
			}
		case t.Blocks != nil:
			for _, b := range t.Blocks.Blocks {
				if !yield(slurm.LineRef(b.File, b.Line), b.Nodes) {
					return
				}
			}
		case t.Torus != nil:
			// Positions its regions leave empty ("") are no names.
			yield(slurm.LineRef("", t.Torus.Line), slices.DeleteFunc(slices.Clone(t.Torus.Nodes), func(n string) bool { return n == "" }))
		case t.Rings != nil:
			for _, r := range t.Rings.Rings {
				if !yield(slurm.LineRef(r.File, r.Line), r.Nodes) {
					return
				}
			}
		}
	}
}

// checkPartitionTopologies resolves each partition's Topology= (Slurm 25.05
// on): with a topology.yaml the index of the topology it names
// (p.partTopology), without one the only name Slurm has, "default". A name
// that is none is an error naming slurm.conf's line, as slurmctld stops
// ("Invalid partition topology").
func (p *Plan) checkPartitionTopologies() error {
	for i := range p.confParts {
		pt := &p.confParts[i]
		if pt.Topology == "" {
			continue
		}
		if p.topoYAML == nil {
			if pt.Topology == "default" {
				continue
			}
			what := "the site has no topology.yaml (--topology-conf)"
			if p.opt.TopologyConf != nil {
				what = fmt.Sprintf("%s is a topology.conf", p.opt.TopologyConfPath)
			}
			return &InputError{p.opt.SlurmConfPath, fmt.Errorf("%s: PartitionName=%s Topology=%s: %s, so Slurm's one topology is TopologyPlugin's, named \"default\"; slurmctld stops (\"Invalid partition topology\"): give the site's topology.yaml, or Topology=default", pt.Where(), pt.Name, pt.Topology, what)}
		}
		ti := p.topoYAML.Index(pt.Topology)
		if ti < 0 {
			return &InputError{p.opt.SlurmConfPath, fmt.Errorf("%s: PartitionName=%s Topology=%s: %s has no topology %q (it has %s; names are case-sensitive); slurmctld stops (\"Invalid partition topology\")", pt.Where(), pt.Name, pt.Topology, p.opt.TopologyConfPath, pt.Topology, p.topoYAML.Names())}
		}
		if p.partTopology == nil {
			p.partTopology = map[string]int{}
		}
		p.partTopology[pt.Name] = ti
	}
	return nil
}

// partRule is the emulated selection of one topology of the current
// configuration: Slurm's cons_tres with cfg's topology (none: flat), or
// torus3d.
type partRule struct {
	cfg   alloc.SlurmConfig
	torus *torusConfig
}

// partRules are the selections of a configuration whose partitions use
// different topologies: rules[0] is the cluster default's (partitions without
// Topology=, jobs of no partition), of maps a partition to its rule.
type partRules struct {
	rules []partRule
	of    map[string]int
}

// withWeights returns rs with every cons_tres rule's weights w (the weights
// deployment on such a site; torus3d ignores weights).
func (rs *partRules) withWeights(w []uint32) *partRules {
	out := &partRules{rules: slices.Clone(rs.rules), of: rs.of}
	for i := range out.rules {
		out.rules[i].cfg.Weights = w
	}
	return out
}

// buildCurrentYAML models the current configuration of a site with a
// topology.yaml: each partition's topology (Topology=, else the cluster
// default's), the nodes ranked by the default topology when it is a tree with
// SwitchAsNodeRank (topology_g_generate_node_ranking reads topology 0).
func (p *Plan) buildCurrentYAML(ctx context.Context, d *Deployment) error {
	y := p.topoYAML
	d.TopologyName, d.Topology = "topology.yaml", p.opt.TopologyConf
	if tp := p.conf.Global("TopologyPlugin"); tp != "" {
		d.Notes = append(d.Notes, fmt.Sprintf("slurm.conf's TopologyPlugin=%s is not used: Slurm reads topology.yaml when it exists (src/interfaces/topology.c, topology_g_init)", tp))
	}
	base := d.cfg // names, weights
	var rename map[string]string
	if e := &y.Topologies[y.Default()]; e.Topology != nil && e.Tree != nil && p.switchAsNodeRank() {
		t, err := restrictTree(e.Tree, p.Names)
		if err != nil {
			return &InputError{p.opt.TopologyConfPath, err}
		}
		var synth []string
		if synth, rename, err = p.nodeRanking(ctx, t, p.confOrder()); err != nil {
			return err
		}
		base.Names = synth
	}
	why, err := p.useYAMLRules(d, base, rename)
	if err != nil {
		return err
	}
	note := fmt.Sprintf("the current configuration is modelled from %s (topology.yaml): %s", p.opt.TopologyConfPath, strings.Join(why, "; "))
	d.Notes = append(d.Notes, note)
	d.planNotes = append(d.planNotes, note)
	return nil
}

// useYAMLRules makes d emulate the site's topology.yaml (each partition by its
// topology's rule, yamlRule), on the names and weights of base, rename (nil:
// none) the node names the rules take in place of the file's; why says which
// topology decides which partitions.
func (p *Plan) useYAMLRules(d *Deployment, base alloc.SlurmConfig, rename map[string]string) (why []string, err error) {
	y := p.topoYAML
	def := y.Default()
	// The topologies in use: the default first, then the partitions' in
	// slurm.conf order.
	used := []int{def}
	of := map[string]int{}
	for _, pt := range p.confParts {
		ti, ok := p.partTopology[pt.Name]
		if !ok {
			continue
		}
		k := slices.Index(used, ti)
		if k < 0 {
			k = len(used)
			used = append(used, ti)
		}
		of[pt.Name] = k
	}
	rules := make([]partRule, len(used))
	for k, ti := range used {
		e := &y.Topologies[ti]
		rule, note, err := p.yamlRule(e, base, rename)
		if err != nil {
			return nil, err
		}
		rules[k] = rule
		if note != "" {
			d.Notes = append(d.Notes, note)
		}
		which := fmt.Sprintf("topology %s (%s, line %d", e.Name, e.Kind(), e.Line)
		switch {
		case k == 0 && e.ClusterDefault:
			which += "; cluster_default: true"
		case k == 0 && len(y.Topologies) > 1:
			which += "; no topology has cluster_default: true, Slurm takes the first listed"
		}
		which += ")"
		if k == 0 {
			why = append(why, which+" for the partitions without Topology=")
		} else {
			var ps []string
			for _, pt := range p.confParts {
				if j, ok := of[pt.Name]; ok && j == k {
					ps = append(ps, pt.Name)
				}
			}
			why = append(why, fmt.Sprintf("%s for partition %s", which, strings.Join(ps, ", ")))
		}
	}
	// Partitions that name the default topology decide as those without.
	for name, k := range of {
		if k == 0 {
			delete(of, name)
		}
	}
	if len(rules) == 1 {
		d.cfg, d.torus = rules[0].cfg, rules[0].torus
		return why, nil
	}
	d.parts = &partRules{rules: rules, of: of}
	return why, nil
}

// yamlRule is the emulation of topology e of the site's topology.yaml, on the
// names and weights of base; rename (nil: none) gives the names of
// SwitchAsNodeRank's ranking. A torus3d the emulation cannot follow (anchors
// of its own, several placements of a size, no placement, nodes that are not
// the compute hosts) is modelled as flat, note saying why.
func (p *Plan) yamlRule(e *slurm.YAMLTopology, base alloc.SlurmConfig, rename map[string]string) (rule partRule, note string, err error) {
	rule.cfg = base
	rn := func(n string) string {
		if m, ok := rename[n]; ok {
			return m
		}
		return n
	}
	switch e.Kind() {
	case "tree":
		t, err := restrictTree(e.Tree, p.Names)
		if err != nil {
			return rule, "", &InputError{p.opt.TopologyConfPath, err}
		}
		if rename != nil {
			t = t.RenameNodes(rn)
		}
		rule.cfg.Tree = t
	case "block":
		b := e.Blocks
		if rename != nil {
			c := *b
			c.Blocks = slices.Clone(b.Blocks)
			for i := range c.Blocks {
				ns := make([]string, len(c.Blocks[i].Nodes))
				for j, n := range c.Blocks[i].Nodes {
					ns[j] = rn(n)
				}
				c.Blocks[i].Nodes = ns
			}
			b = &c
		}
		rule.cfg.Blocks = b
	case "ring":
		rs, err := p.siteRings(e.Rings, "topology "+e.Name+": ", rn)
		if err != nil {
			return rule, "", err
		}
		rule.cfg.Rings = rs
	case "torus3d":
		tc, why := p.torusOf(e.Torus)
		if why != "" {
			return rule, fmt.Sprintf("topology %s (torus3d, line %d) is not emulated: %s; modelled as flat (Slurm's node order)", e.Name, e.Line, why), nil
		}
		rule.torus = tc
	}
	return rule, "", nil
}

// siteRings are the site's rings as slurmctld keeps them, for slurm:ring
// (a topology.yaml's ring topology, what naming it in messages, or a
// topology.conf's RingName= lines, what ""): ring_record_validate leaves out a
// name slurm.conf lacks (with "Invalid hostnames in ring configuration"), and
// a ring of more than MaxRingSize of slurm.conf's nodes stops slurmctld; the
// names the network lacks are left out too, rn renames the rest (SwitchAsNodeRank's
// ranking; nil: none).
func (p *Plan) siteRings(in *slurm.Rings, what string, rn func(string) string) (*slurm.Rings, error) {
	have := make(map[string]bool, len(p.Names))
	for _, n := range p.Names {
		have[n] = true
	}
	if rn == nil {
		rn = func(n string) string { return n }
	}
	rs := &slurm.Rings{Rings: slices.Clone(in.Rings), Format: in.Format}
	for i := range rs.Rings {
		r := &rs.Rings[i]
		var ns []string
		known := 0
		for _, n := range r.Nodes {
			if _, ok := p.confNodes[n]; ok {
				known++
			}
			if have[n] {
				ns = append(ns, rn(n))
			}
		}
		if known > slurm.MaxRingSize {
			at := slurm.LineRef(r.File, r.Line)
			return nil, &InputError{p.opt.TopologyConfPath, fmt.Errorf("%s: %sring %s has %d of slurm.conf's nodes; Slurm's rings hold at most %d (ring_record.c, ring_record_validate: \"Ring (%s) is bigger than %d\", fatal)", at, what, r.Name, known, slurm.MaxRingSize, r.Name, slurm.MaxRingSize)}
		}
		r.Nodes = ns
	}
	return rs, nil
}

// torusOf is the torus3d emulation of a site's torus, or why it cannot be
// emulated. Slurm (torus3d_record.c) sorts the placements by size
// (_placement_cmp) and eval_nodes_torus3d.c tries each placement of the job's
// size; the emulation follows one placement a size with the default anchors
// (anchor_seed 0, anchor_spacing its dims: slurm.Box.Anchors), as
// slurm.WriteTorus3D writes them and Slurm 26.05.3 was measured on.
func (p *Plan) torusOf(t *slurm.Torus) (*torusConfig, string) {
	switch {
	case len(t.Placements) == 0:
		return nil, "it lists no placements"
	case t.OwnAnchors:
		return nil, "a placement gives anchor_seed or anchor_spacing of its own"
	case len(t.Nodes)-t.Empty != len(p.Names):
		return nil, fmt.Sprintf("its %d nodes are not the %d compute hosts", len(t.Nodes)-t.Empty, len(p.Names))
	}
	pl := slices.Clone(t.Placements)
	slices.SortStableFunc(pl, func(a, b slurm.Box) int { return cmp.Compare(a.Size(), b.Size()) })
	for i := 1; i < len(pl); i++ {
		if pl[i].Size() == pl[i-1].Size() {
			return nil, fmt.Sprintf("two placements of %d nodes (%s, %s)", pl[i].Size(), pl[i-1], pl[i])
		}
	}
	at := make([]int, len(t.Nodes))
	identity := true
	for pos, n := range t.Nodes {
		if n == "" {
			// A position its regions leave without a node: boxes that hold it
			// are skipped (torus3D).
			at[pos], identity = -1, false
			continue
		}
		v, ok := p.computeSet[n]
		if !ok {
			return nil, fmt.Sprintf("its node %s is not a compute host", n)
		}
		at[pos] = v
		identity = identity && v == pos
	}
	if identity {
		at = nil
	}
	return &torusConfig{dims: t.Dims, placements: pl, nodeAt: at}, ""
}

// partSwitch emulates a configuration whose partitions use different
// topologies (partRules): one emulator per topology, each told every change of
// the machine (a job's start, its end, the nodes a replay holds), a decision
// made by the emulator of the partition the replay names (UsePartition,
// alloc.PartitionRuled). Their free states are the same: the free-state
// questions go to the first.
type partSwitch struct {
	ems []emulator
	of  map[string]int
	cur int
}

// newPartSwitch builds the emulators of rs on the plan's machine.
func (d *Deployment) newPartSwitch(rs *partRules) (*partSwitch, error) {
	ps := &partSwitch{of: rs.of}
	for _, r := range rs.rules {
		em, err := d.emulatorOf(r.cfg, r.torus)
		if err != nil {
			return nil, err
		}
		ps.ems = append(ps.ems, em)
	}
	return ps, nil
}

func (ps *partSwitch) Name() string          { return "slurm:by-partition" }
func (ps *partSwitch) Machine() topo.Machine { return ps.ems[0].Machine() }
func (ps *partSwitch) NumFree() int          { return ps.ems[0].NumFree() }
func (ps *partSwitch) IsFree(v int) bool     { return ps.ems[0].IsFree(v) }

// AppendFreeIn appends the free nodes of set (alloc.Mask's bulk path).
func (ps *partSwitch) AppendFreeIn(dst []int, set []uint64) []int {
	return ps.ems[0].AppendFreeIn(dst, set)
}

// UsePartition makes the next decisions those of partition name's topology
// (a partition not named in Topology=, or none: the cluster default's).
func (ps *partSwitch) UsePartition(name string) error {
	ps.cur = ps.of[name] // 0 when absent
	return nil
}

// Allocate places a k-node job by the current partition's emulator; the
// others take its nodes.
func (ps *partSwitch) Allocate(k int) ([]int, error) {
	nodes, err := ps.ems[ps.cur].Allocate(k)
	if err != nil {
		return nodes, err
	}
	for i, em := range ps.ems {
		if i != ps.cur {
			if err := em.Occupy(nodes); err != nil {
				return nil, fmt.Errorf("%s: internal error: %w", ps.Name(), err)
			}
		}
	}
	return nodes, nil
}

// Release frees nodes in every emulator.
func (ps *partSwitch) Release(nodes []int) error {
	for _, em := range ps.ems {
		if err := em.Release(nodes); err != nil {
			return err
		}
	}
	return nil
}

// Occupy marks nodes busy in every emulator.
func (ps *partSwitch) Occupy(nodes []int) error {
	for _, em := range ps.ems {
		if err := em.Occupy(nodes); err != nil {
			return err
		}
	}
	return nil
}
