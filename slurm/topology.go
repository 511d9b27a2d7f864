package slurm

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/procalloc/procalloc/internal/textin"
	"github.com/procalloc/procalloc/internal/timelimit"
	"github.com/procalloc/procalloc/topo"
)

// Topology is one Slurm topology, read once from a topology.conf
// (ParseTopologyConf) or a topology.yaml (ParseTopologyYAML), in the one typed form
// every consumer uses: the network graph of --graph (Graph), alloc's slurm:tree
// (Tree) and slurm:block (Blocks) emulators, and the writers, which build a Topology
// and print it (WriteConf). Exactly one of Tree, Blocks, Torus and Rings is set.
//
// The rules are Slurm's: what slurmctld refuses at startup (fatal) is an error naming
// the line; what it accepts and logs (a key given twice on a line, a node on two leaf
// switches, several roots, a BlockSizes value with trailing characters, children of
// a topology.yaml leaf) is accepted as Slurm reads it and reported in Warnings.
// Where Slurm versions differ the version is named (doc comments of ParseTopologyConf
// and ParseTopologyYAML).
type Topology struct {
	Tree   *Tree   // topology/tree: switches and leaves
	Blocks *Blocks // topology/block: blocks and block sizes
	Torus  *Torus  // topology/torus3d (topology.yaml only)
	Rings  *Rings  // topology/ring (RingName= lines, a topology.yaml's ring:)
	// Warnings are what Slurm accepts but logs, one sentence each, naming the line.
	Warnings []string
	// conf is the topology.conf's lines as read (with its included files when
	// its Include lines were followed), for EditLines; nil for a topology.yaml
	// or a Topology built in memory.
	conf *Conf
}

// Kind names the topology plugin of t: "tree", "block", "torus3d" or "ring".
func (t *Topology) Kind() string {
	switch {
	case t.Tree != nil:
		return "tree"
	case t.Blocks != nil:
		return "block"
	case t.Rings != nil:
		return "ring"
	}
	return "torus3d"
}

// Tree is a topology/tree configuration the way slurmctld holds it (Slurm 22.05's
// src/plugins/topology/tree/topology_tree.c, _validate_switches; switch_record.c in
// later versions): the switch table in file order, each switch's level, parent and
// children, the leaves' node names. The selection code (cons_tres _eval_nodes_topo)
// walks this table in index order and breaks ties by it, so the order of the lines is
// part of the model.
type Tree struct {
	Switches []Switch // in file order, Slurm's switch index
	byName   map[string]int
	// switch links, both ways: switch i's neighbours are links.Adj[links.Off[i]:links.Off[i+1]]
	links topo.CSR
}

// Switch is one SwitchName= line (one "switch:" entry of a topology.yaml).
type Switch struct {
	Name string // the SwitchName= value (a topology.yaml switch's name)
	Line int    // its 1-based line in the file
	// File is the included file of its line (as read, an Include line of the
	// topology.conf followed: ParseTopologyConfIncluding); "" for the file itself.
	File string
	// Nodes are the expanded Nodes= of a leaf switch, in the file's order (Slurm keeps
	// only the set: a leaf's nodes are taken in node-index order).
	Nodes []string
	// Children are the switches of Switches=, as indices into Tree.Switches, in the
	// file's order.
	Children []int
	// Level is 0 for a leaf, else one more than the highest level of its children
	// (Slurm's rule: a switch over a leaf and a level-1 switch is at level 2).
	Level int
	// Parent is the index of the parent switch as slurmctld 22.05 sets it:
	// the last switch in file order whose Switches= lists this one; a switch that no
	// line lists keeps the zeroed field, 0: the first switch of the file, not itself
	// (Slurm 24.11 and later mark it SWITCH_NO_PARENT instead). The leaf comparison
	// climbs these links (see alloc's slurm:tree). IsRoot tells the two apart.
	Parent int
	// IsRoot is set when no switch lists this one as a child.
	IsRoot bool
}

// Torus is a topology/torus3d torus (topology.yaml): its dimensions and its nodes in
// x-fastest coordinate order, as Slurm's torus3d plugin places them.
type Torus struct {
	Name  string   // the topology's name in the topology.yaml
	Line  int      // the line of its entry
	Dims  [3]int   // X, Y, Z
	Nodes []string // X*Y*Z node names, x fastest; "" where no node is (regions)
	// Placements are the job shapes of its placements (their dims), in the
	// file's order; nil when it lists none.
	Placements []Box
	// OwnAnchors is set when some placement gives an anchor_seed other than 0
	// or an anchor_spacing other than its own dims (Slurm's torus3d_record.c,
	// _build_placement_anchors): anchors Box.Anchors does not list.
	OwnAnchors bool
	// Empty counts the positions that hold no node: those a torus given by
	// regions leaves uncovered (Nodes[i] == "").
	Empty int
}

// Rings is a topology/ring configuration (Slurm 26.05 on; read from a
// topology.conf's "RingName=R Nodes=HOSTLIST" lines or a topology.yaml's
// "ring: {rings: [...]}", the same rings either way): its rings in file order,
// Slurm's ring index (src/plugins/topology/ring/ring_record.c,
// ring_record_validate).
type Rings struct {
	Rings []Ring // in file order: the ring index, which breaks ties
	// Format is the kind of file they were read from, "topology.conf" or
	// "topology.yaml", for messages ("": built in memory).
	Format string
}

// Ring is one ring of a topology/ring configuration: its nodes in ring order
// (the hostlist's order, as hostlist_shift gives them; position i is next to
// i-1 and i+1, the last next to the first).
type Ring struct {
	Name string // its RingName= value ("ring:" name)
	Line int    // the line of its entry
	// File is the included file of its line (a topology.conf's Include line
	// followed); "" for the file itself.
	File  string
	Nodes []string // in ring order, as listed
}

// Where names ring i's line in messages: "topology.conf line N" (the file
// the rings were read from, by its kind), or "FILE line N" for a line of an
// included file.
func (r *Rings) Where(i int) string {
	rg := &r.Rings[i]
	if rg.File == "" && r.Format != "" {
		return r.Format + " " + LineRef("", rg.Line)
	}
	return LineRef(rg.File, rg.Line)
}

// addRing appends rg to rs with the checks both formats share: a name given
// twice stops slurmctld (ring_record_validate: "Ring (%s) has already been
// defined", fatal); a node listed twice in one ring is refused here (Slurm
// would put it at two positions of the ring, nodes_map, and count it twice in
// a segment). A node on two rings is accepted, as Slurm accepts it; more than
// MaxRingSize nodes is checked where the nodes are matched to slurm.conf's
// (Slurm counts only those): alloc's slurm:ring, plan. seen maps the names
// so far to their index in rs.
func (rs *Rings) addRing(rg Ring, seen map[string]int) error {
	at := LineRef(rg.File, rg.Line)
	if j, dup := seen[rg.Name]; dup {
		first := &rs.Rings[j]
		return fmt.Errorf("%s: ring %s defined twice (first on %s; Slurm: \"Ring (%s) has already been defined\", fatal)", at, textin.Clip(rg.Name), LineRef(first.File, first.Line), textin.Clip(rg.Name))
	}
	pos := make(map[string]int, len(rg.Nodes))
	for i, n := range rg.Nodes {
		if j, dup := pos[n]; dup {
			return fmt.Errorf("%s: ring %s lists node %s twice (positions %d and %d): Slurm would put it at both positions and count it twice in a job's segment", at, textin.Clip(rg.Name), textin.Clip(n), j, i)
		}
		pos[n] = i
	}
	seen[rg.Name] = len(rs.Rings)
	rs.Rings = append(rs.Rings, rg)
	return nil
}

// MaxRingSize is the most nodes a ring holds (ring_record.h, MAX_RING_SIZE;
// ring_record_validate stops slurmctld with "Ring (%s) is bigger than 16",
// counting the names that are nodes of slurm.conf).
const MaxRingSize = 16

// RingsOf returns t's rings, or an error naming what t is instead.
func (t *Topology) RingsOf() (*Rings, error) {
	if t.Rings == nil {
		return nil, fmt.Errorf("a topology/%s configuration, not topology/ring (RingName= lines, a topology.yaml's ring: rings)", t.Kind())
	}
	return t.Rings, nil
}

// where names the switch's line in messages: "line N", or "FILE line N" in an
// included file.
func (s *Switch) where() string { return LineRef(s.File, s.Line) }

// LineRef names line of file in messages: "line N" in the file read, "FILE line
// N" in a file its Include lines name: the one way a configuration file's line is
// named, here (ConfLine.Where, ConfError) and by its callers (plan).
func LineRef(file string, line int) string {
	if file == "" {
		return fmt.Sprintf("line %d", line)
	}
	return fmt.Sprintf("%s line %d", file, line)
}

// switchRec is a switch as read, before Slurm's rules resolve it.
type switchRec struct {
	name                  string
	line                  int
	file                  string // the included file of its line, "" for the file itself
	nodes, children       []string
	hasNodes, hasChildren bool
}

// treeRules says how a format's switches are checked: topology.conf refuses a switch
// with both Nodes= and Switches= and one with neither (Slurm 22.05 to 26.11: "has
// both child switches and nodes", and to 25.04 "lacks children"); topology.yaml
// (Slurm 25.05 and later) reads the first as a leaf, its children ignored with a
// warning, and the second as an empty leaf.
type treeRules struct{ yaml bool }

// maxTreePasses is how many passes slurmctld makes to resolve switch levels before
// it gives up ("Switch configuration is not a tree"): depth 1 to 21.
const maxTreePasses = 21

// newTree applies Slurm's rules to the switches read from a file. where names the
// file kind in errors ("topology.conf").
// look stops it when its context ends (nil: never).
func newTree(recs []switchRec, rules treeRules, warn func(string), look *timelimit.Looker) (*Tree, error) {
	if look == nil {
		look = &timelimit.Looker{Ctx: context.Background()}
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("no switches (Slurm: \"No switches configured\")")
	}
	t := &Tree{byName: make(map[string]int, len(recs)), Switches: make([]Switch, 0, len(recs))}
	hasNodes := false
	nodes := 0 // the leaves' names, to size leafOf
	for _, r := range recs {
		if err := look.Stopped(1 + len(r.nodes) + len(r.children)); err != nil {
			return nil, err
		}
		if r.name == "" {
			return nil, fmt.Errorf("%s: a switch without a name", LineRef(r.file, r.line))
		}
		if prev, dup := t.byName[r.name]; dup {
			return nil, fmt.Errorf("%s: switch %s already defined on %s", LineRef(r.file, r.line), r.name, t.Switches[prev].where())
		}
		s := Switch{Name: r.name, Line: r.line, File: r.file, IsRoot: true}
		switch {
		case r.hasNodes && r.hasChildren && !rules.yaml:
			return nil, fmt.Errorf("%s: switch %s has both Nodes= and Switches= (Slurm: \"has both child switches and nodes\"); a switch is a leaf or an upper switch", LineRef(r.file, r.line), r.name)
		case r.hasNodes:
			if r.hasChildren {
				warn(fmt.Sprintf("%s: switch %s has nodes and children; Slurm reads it as a leaf and ignores its children (\"Ignoring children switches\")", LineRef(r.file, r.line), r.name))
			}
			s.Nodes = r.nodes
			hasNodes = hasNodes || len(r.nodes) > 0
			nodes += len(r.nodes)
		case r.hasChildren:
			s.Level = -1
		case !rules.yaml:
			return nil, fmt.Errorf("%s: switch %s has neither Nodes= nor Switches= (Slurm 22.05 to 25.04: \"lacks children\")", LineRef(r.file, r.line), r.name)
		}
		t.byName[r.name] = len(t.Switches)
		t.Switches = append(t.Switches, s)
	}
	for i, r := range recs {
		if t.Switches[i].Level == 0 {
			continue // a leaf's children are ignored
		}
		if len(r.children) > 0 {
			t.Switches[i].Children = make([]int, 0, len(r.children))
		}
		for _, c := range r.children {
			j, ok := t.byName[c]
			if !ok || j == i {
				return nil, fmt.Errorf("%s: switch %s has invalid child switch %q (not defined, or itself)", LineRef(r.file, r.line), r.name, c)
			}
			t.Switches[i].Children = append(t.Switches[i].Children, j)
			t.Switches[j].Parent = i // the last line listing it wins, as in slurmctld
			t.Switches[j].IsRoot = false
		}
	}
	adjOff := make([]int32, len(t.Switches)+1)
	for i, s := range t.Switches {
		adjOff[i+1] += int32(len(s.Children))
		for _, c := range s.Children {
			adjOff[c+1]++
		}
	}
	for i := range t.Switches {
		adjOff[i+1] += adjOff[i]
	}
	adj := make([]int32, adjOff[len(t.Switches)])
	fill := slices.Clone(adjOff)
	for i, s := range t.Switches {
		for _, c := range s.Children {
			adj[fill[i]] = int32(c)
			fill[i]++
			adj[fill[c]] = int32(i)
			fill[c]++
		}
	}
	t.links = topo.CSR{Off: adjOff, Adj: adj}
	if !hasNodes {
		return nil, fmt.Errorf("no switch has nodes (Slurm: \"switches contain no nodes\")")
	}
	// Levels as slurmctld resolves them: passes in file order until every upper switch
	// has all its children resolved, at most maxTreePasses.
	for pass := 1; ; pass++ {
		if err := look.Stopped(len(t.Switches)); err != nil {
			return nil, err
		}
		left := -1
		for i := range t.Switches {
			s := &t.Switches[i]
			if s.Level >= 0 {
				continue
			}
			lv := 0
			for _, c := range s.Children {
				cl := t.Switches[c].Level
				if cl < 0 {
					lv = -1
					break
				}
				lv = max(lv, cl+1)
			}
			if lv < 0 {
				if left < 0 {
					left = i
				}
				continue
			}
			s.Level = lv
		}
		if left < 0 {
			break
		}
		if pass >= maxTreePasses {
			if c := t.cycleFrom(left); c != "" {
				return nil, fmt.Errorf("%s: switches form a cycle: %s (Slurm: \"Switch configuration is not a tree\")", t.Switches[left].where(), c)
			}
			return nil, fmt.Errorf("%s: switch %s: levels not resolved after %d passes in file order (Slurm: \"Switch configuration is not a tree\"); list child switches before their parents", t.Switches[left].where(), t.Switches[left].Name, maxTreePasses)
		}
	}
	// What slurmctld logs but accepts.
	if tops := t.Tops(); len(tops) > 1 {
		var names []string
		for _, i := range tops {
			names = append(names, t.Switches[i].Name)
		}
		warn(fmt.Sprintf("%d separate trees (tops %s): Slurm accepts it (\"no switch can reach all nodes through its descendants\") and never places a job across two trees", len(tops), textin.FirstFew(names, 5, ", ")))
	}
	leafOf := make(map[string]int, nodes)
	var multi []string
	for i, s := range t.Switches {
		if err := look.Stopped(1 + len(s.Nodes)); err != nil {
			return nil, err
		}
		for _, n := range s.Nodes {
			if l, ok := leafOf[n]; ok && l != i {
				multi = append(multi, n)
			} else {
				leafOf[n] = i
			}
		}
	}
	if len(multi) > 0 {
		slices.Sort(multi)
		multi = slices.Compact(multi)
		warn(fmt.Sprintf("%d node(s) on two leaf switches (%s); Slurm accepts it (\"Multiple leaf switches contain nodes\")", len(multi), textin.FirstFew(multi, 5, ", ")))
	}
	return t, nil
}

// cycleFrom returns a cycle of Switches= links reachable from switch i, written
// "a -> b -> a", or "" when there is none.
func (t *Tree) cycleFrom(i int) string {
	state := make([]int8, len(t.Switches))
	var path []int
	var found string
	var visit func(v int) bool
	visit = func(v int) bool {
		state[v] = 1
		path = append(path, v)
		for _, c := range t.Switches[v].Children {
			if state[c] == 1 {
				k := slices.Index(path, c)
				var names []string
				for _, p := range path[k:] {
					names = append(names, t.Switches[p].Name)
				}
				found = strings.Join(append(names, t.Switches[c].Name), " -> ")
				return true
			}
			if state[c] == 0 && visit(c) {
				return true
			}
		}
		state[v] = 2
		path = path[:len(path)-1]
		return false
	}
	visit(i)
	return found
}

// Index returns the index of the switch named name.
func (t *Tree) Index(name string) (int, bool) {
	i, ok := t.byName[name]
	return i, ok
}

// Tops returns one switch of each separate tree (each connected set of switches
// that holds a node), the first of its highest level in file order, in the order of
// the trees' first switches. A file of several trees gives several.
func (t *Tree) Tops() []int {
	comp := make([]int, len(t.Switches))
	for i := range comp {
		comp[i] = -1
	}
	var tops []int
	below := t.holdsNodes()
	var queue []int
	for i := range t.Switches {
		if comp[i] >= 0 || !below[i] {
			continue
		}
		top := i
		comp[i] = i
		queue = append(queue[:0], i)
		for h := 0; h < len(queue); h++ {
			v := queue[h]
			if lv, tl := t.Switches[v].Level, t.Switches[top].Level; lv > tl || lv == tl && v < top {
				top = v
			}
			for _, w := range t.Links(v) {
				if comp[w] < 0 && below[w] {
					comp[w] = i
					queue = append(queue, int(w))
				}
			}
		}
		tops = append(tops, top)
	}
	return tops
}

// holdsNodes reports, per switch, whether a node is below it.
func (t *Tree) holdsNodes() []bool {
	has := make([]bool, len(t.Switches))
	maxLevel := 0
	for _, s := range t.Switches {
		maxLevel = max(maxLevel, s.Level)
	}
	for lv := 0; lv <= maxLevel; lv++ {
		for i, s := range t.Switches {
			if s.Level != lv {
				continue
			}
			has[i] = len(s.Nodes) > 0
			for _, c := range s.Children {
				has[i] = has[i] || has[c]
			}
		}
	}
	return has
}

// Links returns the switches linked to switch i (its children and the switches that
// list it), distinct or not as the file lists them; the slice must not be changed.
func (t *Tree) Links(i int) []int32 { return t.links.Adj[t.links.Off[i]:t.links.Off[i+1]] }

// LinkCSR returns the switch links as one adjacency (Links(i) is its row i), for
// searches over them (topo.HopRow, topo.HopRows64); it must not be changed.
func (t *Tree) LinkCSR() topo.CSR { return t.links }

// Distances returns the hop counts from switch from to every switch along the
// parent-child links of Switches= (slurmctld's switches_dist), -1 for a switch not
// connected to it. dst is reused when large enough.
func (t *Tree) Distances(from int, dst []int) []int {
	dst, _ = t.DistancesQueue(from, dst, nil)
	return dst
}

// DistancesQueue is Distances with the breadth-first queue given (reused when large
// enough) and returned, so that repeated calls allocate nothing.
func (t *Tree) DistancesQueue(from int, dst []int, queue []int32) ([]int, []int32) {
	n := len(t.Switches)
	if cap(dst) < n {
		dst = make([]int, n)
	}
	dst = dst[:n]
	queue = topo.HopRow(t.links, int32(from), dst, queue)
	return dst, queue[:0]
}

// TreeRootSwitch names the switch that Graph puts above the separate trees of a
// topology.conf with several (Tree.Tops; Slurm 22.05 to 26.11 accept it with "no
// switch can reach all nodes through its descendants"). Slurm places no job across
// two trees: its top switch must hold the whole job (_eval_nodes_topo), and switches
// of different trees are at INFINITE distance, so a job larger than every tree never
// starts. procalloc joins the trees through this one switch, linked to the top switch
// of each, so that hop distances between hosts of different trees are finite (through
// the tops and this switch) for the replay's metrics and for allocators that are not
// Slurm's; slurm:tree never places a job across it, as Slurm does not.
const TreeRootSwitch = "tree-root"

// BlockRootSwitch names the switch that Graph puts above the blocks of a
// topology/block configuration: Slurm's block plugin gives no links between blocks,
// so procalloc joins them through one switch (two hops inside a block, four between
// blocks).
const BlockRootSwitch = "block-root"

// Graph returns the network t describes, for --graph: hosts numbered in order of
// first appearance, then the switches (or blocks) in file order; a tree's switches
// linked to their nodes and child switches, several roots joined by TreeRootSwitch;
// blocks joined by BlockRootSwitch; a torus's nodes by its wraparound links. A switch
// with no node below it (an empty topology.yaml leaf) is left out. A switch named like
// a node (Slurm keeps the two apart) is the vertex NAME~switch.
func (t *Topology) Graph() (*topo.Graph, error) {
	return t.graph(context.Background())
}

// graph is Graph looking at ctx every ctxEvery names; a cancelled ctx returns its
// cause.
func (t *Topology) graph(ctx context.Context) (*topo.Graph, error) {
	look := timelimit.NewLooker(ctx)
	switch {
	case t.Tree != nil:
		return t.Tree.graph(look)
	case t.Blocks != nil:
		return t.Blocks.graph(look)
	case t.Torus != nil:
		if err := look.Stopped(0); err != nil {
			return nil, err
		}
		return t.Torus.graph()
	case t.Rings != nil:
		return nil, fmt.Errorf("a topology/ring configuration (line %d) lists rings of at most %d nodes with no switches: it is a rule of Slurm's node selection (slurm:ring, procalloc plan), not a network; give the network another way (--graph, --machine)", t.Rings.Rings[0].Line, MaxRingSize)
	}
	return nil, fmt.Errorf("an empty topology")
}

// switchVertex returns the vertex name of a switch (or block) called name: name
// itself, or, when a node already has it (Slurm keeps switch and node names apart),
// name~switch (then name~switch2, ...).
func switchVertex(f *topo.Fabric, name string) string {
	v := name
	for i := 1; ; i++ {
		if found, _ := f.Has(v); !found {
			return v
		}
		v = name + "~switch"
		if i > 1 {
			v += fmt.Sprint(i)
		}
	}
}

func addHosts(look *timelimit.Looker, f *topo.Fabric, seen map[string]bool, names []string, at string) error {
	if err := look.Stopped(1 + len(names)); err != nil {
		return err
	}
	for _, n := range names {
		if !seen[n] {
			seen[n] = true
			if err := f.AddHost(n); err != nil {
				return fmt.Errorf("%s: %w", at, err)
			}
		}
	}
	return nil
}

func (t *Tree) graph(look *timelimit.Looker) (*topo.Graph, error) {
	f := topo.NewFabric()
	names, links := 0, 0
	for _, s := range t.Switches {
		names += len(s.Nodes)
		links += len(s.Nodes) + len(s.Children)
	}
	f.Grow(names+len(t.Switches)+1, links+len(t.Switches))
	seen := make(map[string]bool, names)
	for _, s := range t.Switches {
		if err := addHosts(look, f, seen, s.Nodes, s.where()); err != nil {
			return nil, err
		}
	}
	// A switch with no node below it has no link to the network.
	hasNodes := t.holdsNodes()
	vname := make([]string, len(t.Switches))
	for i, s := range t.Switches {
		if !hasNodes[i] {
			continue
		}
		vname[i] = switchVertex(f, s.Name)
		if err := f.AddSwitch(vname[i]); err != nil {
			return nil, fmt.Errorf("%s: switch %s: %w", s.where(), s.Name, err)
		}
	}
	for i, s := range t.Switches {
		if !hasNodes[i] {
			continue
		}
		if err := look.Stopped(1 + len(s.Nodes) + len(s.Children)); err != nil {
			return nil, err
		}
		for _, n := range s.Nodes {
			if err := f.Link(vname[i], n); err != nil {
				return nil, fmt.Errorf("%s: %w", s.where(), err)
			}
		}
		for _, c := range s.Children {
			if hasNodes[c] {
				if err := f.Link(vname[i], vname[c]); err != nil {
					return nil, fmt.Errorf("%s: %w", s.where(), err)
				}
			}
		}
	}
	if tops := t.Tops(); len(tops) > 1 {
		root := switchVertex(f, TreeRootSwitch)
		if err := f.AddSwitch(root); err != nil {
			return nil, err
		}
		for _, r := range tops {
			f.Link(root, vname[r])
		}
	}
	if err := look.Stopped(ctxEvery); err != nil {
		return nil, err
	}
	return f.GraphContext(look.Ctx)
}

func (b *Blocks) graph(look *timelimit.Looker) (*topo.Graph, error) {
	f := topo.NewFabric()
	names := 0
	for _, blk := range b.Blocks {
		names += len(blk.Nodes)
	}
	f.Grow(names+len(b.Blocks)+1, names+len(b.Blocks))
	seen := make(map[string]bool, names)
	for _, blk := range b.Blocks {
		if err := addHosts(look, f, seen, blk.Nodes, LineRef(blk.File, blk.Line)); err != nil {
			return nil, err
		}
	}
	var used []Block
	var vname []string
	for _, blk := range b.Blocks {
		if len(blk.Nodes) == 0 {
			continue // an empty block has no link to the network
		}
		v := switchVertex(f, blk.Name)
		if err := f.AddSwitch(v); err != nil {
			return nil, fmt.Errorf("%s: block %s: %w", LineRef(blk.File, blk.Line), blk.Name, err)
		}
		used, vname = append(used, blk), append(vname, v)
	}
	if len(used) == 0 {
		// Slurm accepts it when BlockSizes is set (newBlocks); as a network it
		// has nothing to order.
		return nil, fmt.Errorf("no block has nodes (Nodes=): the network has no hosts")
	}
	root := ""
	if len(used) > 1 {
		root = switchVertex(f, BlockRootSwitch)
		if err := f.AddSwitch(root); err != nil {
			return nil, err
		}
	}
	for i, blk := range used {
		if err := look.Stopped(1 + len(blk.Nodes)); err != nil {
			return nil, err
		}
		for _, n := range blk.Nodes {
			if err := f.Link(vname[i], n); err != nil {
				return nil, fmt.Errorf("%s: %w", LineRef(blk.File, blk.Line), err)
			}
		}
		if root != "" {
			f.Link(vname[i], root)
		}
	}
	if err := look.Stopped(ctxEvery); err != nil {
		return nil, err
	}
	return f.GraphContext(look.Ctx)
}

func (tr *Torus) graph() (*topo.Graph, error) {
	if tr.Empty > 0 {
		return nil, fmt.Errorf("line %d: torus3d: its regions leave %d of its %d positions without a node; the network there is not described (a router with no host, or none): give the network another way (--graph, --machine)", tr.Line, tr.Empty, len(tr.Nodes))
	}
	grid, err := topo.NewGrid(tr.Dims[:], []bool{true, true, true})
	if err != nil {
		return nil, err
	}
	f := topo.NewFabric()
	for _, n := range tr.Nodes {
		if err := f.AddHost(n); err != nil {
			return nil, fmt.Errorf("line %d: torus3d nodes: %w", tr.Line, err)
		}
	}
	var nb []int
	for a := range grid.N() {
		for _, b := range grid.Neighbors(a, nb[:0]) {
			f.Link(tr.Nodes[a], tr.Nodes[b])
		}
	}
	return f.Graph()
}
