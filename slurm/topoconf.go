package slurm

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/procalloc/procalloc/internal/textin"
	"github.com/procalloc/procalloc/topo"
	"github.com/procalloc/procalloc/topo/hostlist"
	"go.yaml.in/yaml/v3"
)

// BlockRootSwitch names the switch that ReadTopologyConf and ReadTopologyYAML
// put above the blocks of a topology/block configuration: Slurm's block plugin gives
// no links between blocks, so procalloc joins them through one switch (two hops inside
// a block, four between blocks).
const BlockRootSwitch = "block-root"

// ReadTopologyConf reads a Slurm topology.conf (topology.conf(5)): tree lines
// "SwitchName=S [Nodes=HOSTLIST] [Switches=HOSTLIST] [LinkSpeed=N]" or block lines
// "BlockName=B Nodes=HOSTLIST" (with "BlockSizes=..."), parameter names in any case,
// '#' comments. Hosts are numbered in order of first appearance, switches in order of
// their lines. A switch or block listed twice, a key given twice on one line, a child
// switch that is never defined, tree and block lines mixed, or a bad hostlist are
// errors naming the line.
func ReadTopologyConf(r io.Reader) (*topo.Graph, error) {
	type sw struct {
		name            string
		nodes, switches []string
		line            int
	}
	var sws []sw
	mode := ""
	first := map[string]int{}
	ls := textin.NewLines(r)
	for ls.Next() {
		line, fields := ls.Line(), ls.Fields()
		var s sw
		s.line = line
		kind := ""
		seen := map[string]string{}
		for _, f := range fields {
			k, v, ok := strings.Cut(f, "=")
			if !ok {
				return nil, fmt.Errorf("line %d: %q is not KEY=VALUE", line, f)
			}
			// A repeated key (Nodes=n[1-4] Nodes=n[5-6]) is refused: which one Slurm
			// keeps is not something to guess.
			if prev, dup := seen[strings.ToLower(k)]; dup {
				return nil, fmt.Errorf("line %d: %s given twice (%s and %s); give it once", line, k, prev, f)
			}
			seen[strings.ToLower(k)] = f
			var err error
			switch strings.ToLower(k) {
			case "switchname", "blockname":
				if kind != "" {
					return nil, fmt.Errorf("line %d: two names on one line", line)
				}
				kind = strings.ToLower(k)
				s.name = v
			case "nodes":
				if s.nodes, err = hostlist.Expand(v); err != nil {
					return nil, fmt.Errorf("line %d: Nodes=%s: %w", line, v, err)
				}
			case "switches":
				if s.switches, err = hostlist.Expand(v); err != nil {
					return nil, fmt.Errorf("line %d: Switches=%s: %w", line, v, err)
				}
			case "blocksizes":
				var vals []*yaml.Node
				for _, b := range strings.Split(v, ",") {
					vals = append(vals, &yaml.Node{Kind: yaml.ScalarNode, Value: b, Line: line})
				}
				if err := checkBlockSizes(vals); err != nil {
					return nil, err
				}
			case "linkspeed":
			default:
				return nil, fmt.Errorf("line %d: unknown parameter %q (want SwitchName, Nodes, Switches, LinkSpeed, BlockName, BlockSizes)", line, k)
			}
		}
		if kind == "" {
			if strings.EqualFold(strings.SplitN(fields[0], "=", 2)[0], "blocksizes") {
				continue
			}
			return nil, fmt.Errorf("line %d: no SwitchName= or BlockName=", line)
		}
		if mode != "" && mode != kind {
			return nil, fmt.Errorf("line %d: SwitchName and BlockName lines mixed (tree and block topologies are separate files)", line)
		}
		mode = kind
		if s.name == "" {
			return nil, fmt.Errorf("line %d: empty %s", line, kind)
		}
		if l, dup := first[s.name]; dup {
			return nil, fmt.Errorf("line %d: %s %s listed twice (first on line %d)", line, kind, s.name, l)
		}
		first[s.name] = line
		if kind == "blockname" && len(s.switches) > 0 {
			return nil, fmt.Errorf("line %d: a block has Nodes=, not Switches=", line)
		}
		if len(s.nodes) == 0 && len(s.switches) == 0 {
			return nil, fmt.Errorf("line %d: %s %s has neither Nodes= nor Switches=", line, kind, s.name)
		}
		sws = append(sws, s)
	}
	if err := ls.Err(); err != nil {
		return nil, err
	}
	if len(sws) == 0 {
		return nil, fmt.Errorf("no SwitchName= or BlockName= lines")
	}
	tb := &treeBuilder{}
	for _, s := range sws {
		tb.add(s.name, s.nodes, s.switches, fmt.Sprintf("line %d", s.line))
	}
	return tb.build(mode == "blockname")
}

// treeBuilder assembles tree and block topologies from switch records.
type treeBuilder struct {
	recs []treeRec
}

type treeRec struct {
	name            string
	nodes, switches []string
	where           string
}

func (tb *treeBuilder) add(name string, nodes, switches []string, where string) {
	tb.recs = append(tb.recs, treeRec{name, nodes, switches, where})
}

func (tb *treeBuilder) build(blocks bool) (*topo.Graph, error) {
	if err := tb.checkAcyclic(); err != nil {
		return nil, err
	}
	f := topo.NewFabric()
	seen := map[string]bool{}
	for _, s := range tb.recs {
		for _, n := range s.nodes {
			if !seen[n] {
				seen[n] = true
				if err := f.AddHost(n); err != nil {
					return nil, fmt.Errorf("%s: %w", s.where, err)
				}
			}
		}
	}
	for _, s := range tb.recs {
		if err := f.AddSwitch(s.name); err != nil {
			return nil, fmt.Errorf("%s: switch %s: %w (a switch and a node cannot share a name)", s.where, s.name, err)
		}
	}
	if blocks && len(tb.recs) > 1 {
		if err := f.AddSwitch(BlockRootSwitch); err != nil {
			return nil, fmt.Errorf("a block is named %q, which procalloc uses for the switch joining the blocks", BlockRootSwitch)
		}
	}
	for _, s := range tb.recs {
		for _, n := range s.nodes {
			if err := f.Link(s.name, n); err != nil {
				return nil, fmt.Errorf("%s: %w", s.where, err)
			}
		}
		for _, c := range s.switches {
			if found, isSw := f.Has(c); !found || !isSw {
				return nil, fmt.Errorf("%s: switch %s names child switch %q, which is not defined", s.where, s.name, c)
			}
			if err := f.Link(s.name, c); err != nil {
				return nil, fmt.Errorf("%s: %w", s.where, err)
			}
		}
		if blocks && len(tb.recs) > 1 {
			f.Link(s.name, BlockRootSwitch)
		}
	}
	return f.Graph()
}

// checkAcyclic reports a cycle of switches (s1 a child of s2, s2 of s1, or a switch
// its own child): a tree topology has none, and Slurm's tree plugin would misplace
// jobs on one. A switch may have several parents (two spines over the same leaves).
func (tb *treeBuilder) checkAcyclic() error {
	idx := map[string]int{}
	for i, r := range tb.recs {
		idx[r.name] = i
	}
	state := make([]int8, len(tb.recs)) // 0 new, 1 on the path, 2 done
	var visit func(i int, path []string) error
	visit = func(i int, path []string) error {
		state[i] = 1
		path = append(path, tb.recs[i].name)
		for _, c := range tb.recs[i].switches {
			j, ok := idx[c]
			if !ok {
				continue // reported when linking
			}
			switch state[j] {
			case 1:
				k := slices.Index(path, c)
				return fmt.Errorf("%s: switches form a cycle: %s -> %s", tb.recs[j].where, strings.Join(path[k:], " -> "), c)
			case 0:
				if err := visit(j, path); err != nil {
					return err
				}
			}
		}
		state[i] = 2
		return nil
	}
	for i := range tb.recs {
		if state[i] == 0 {
			if err := visit(i, nil); err != nil {
				return err
			}
		}
	}
	return nil
}

// ReadTopologyYAML reads a Slurm topology.yaml (topology.yaml(5)): a list of
// topologies, each "topology: NAME" with one of
//
//	tree:    switches: [{switch: S, children: HOSTLIST, nodes: HOSTLIST}, ...]
//	block:   block_sizes: [...], blocks: [{block: B, nodes: HOSTLIST}, ...]
//	torus3d: {toruses: [{name: T, dims: {x: X, y: Y, z: Z}, nodes: HOSTLIST,
//	         placements: [{dims: {x, y, z}, anchor_seed, anchor_spacing}, ...]}]}
//	         (Slurm 26.05's schema; one torus), nodes in x-fastest order, as Slurm's
//	         torus3d plugin places them; placements restrict job shapes, not the
//	         network, and are checked but not kept; the earlier
//	         torus3d: {name, dims, nodes} (or a list of one) is read too
//	flat:    true (no network: refused)
//
// name selects a topology; empty selects the one with cluster_default: true, else the
// only one. Errors name the line: unknown keys, a key given twice, two topologies of
// one name, a topology with two of tree/block/torus3d/flat, two cluster_default:
// true, a cycle of switches, block_sizes that are not increasing positive integers
// and a second YAML document are refused. Aliases (&list ... *list) read as the node
// they name; merge keys (<<) are unknown keys.
func ReadTopologyYAML(r io.Reader, name string) (*topo.Graph, error) {
	data, err := topo.ReadLimited(r, 64<<20)
	if err != nil {
		return nil, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if err == io.EOF {
			return nil, fmt.Errorf("empty topology.yaml: it is a list of topologies (- topology: NAME ...)")
		}
		return nil, err
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		line := extra.Line
		if len(extra.Content) > 0 {
			line = extra.Content[0].Line
		}
		return nil, fmt.Errorf("line %d: a second YAML document; a topology.yaml is one list of topologies", line)
	} else if err != io.EOF {
		return nil, err
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("a topology.yaml is a list of topologies (- topology: NAME ...)")
	}
	budget := 1 << 20
	if err := resolveAliases(doc.Content[0], &budget); err != nil {
		return nil, err
	}
	var pick *yaml.Node
	var names []string
	nameLine := map[string]int{}
	defaultLine := 0
	for _, t := range doc.Content[0].Content {
		if t.Kind != yaml.MappingNode {
			return nil, fmt.Errorf("line %d: a topology is a mapping", t.Line)
		}
		if err := checkTopologyYAML(t); err != nil {
			return nil, err
		}
		tn, _ := yamlScalar(t, "topology")
		if tn == "" {
			return nil, fmt.Errorf("line %d: topology without \"topology: NAME\"", t.Line)
		}
		if l, dup := nameLine[tn]; dup {
			return nil, fmt.Errorf("line %d: topology %s listed twice (first on line %d)", t.Line, tn, l)
		}
		nameLine[tn] = t.Line
		names = append(names, tn)
		def := false
		if c := yamlChild(t, "cluster_default"); c != nil {
			if c.Kind != yaml.ScalarNode || (c.Value != "true" && c.Value != "false") {
				return nil, fmt.Errorf("line %d: cluster_default: want true or false", c.Line)
			}
			if def = c.Value == "true"; def {
				if defaultLine != 0 {
					return nil, fmt.Errorf("line %d: a second cluster_default: true (the first on line %d)", c.Line, defaultLine)
				}
				defaultLine = c.Line
			}
		}
		switch {
		case name != "" && tn == name:
			pick = t
		case name == "" && def:
			pick = t
		}
	}
	if pick == nil {
		if name != "" {
			return nil, fmt.Errorf("no topology %q (the file has %s)", name, strings.Join(names, ", "))
		}
		if len(names) != 1 {
			return nil, fmt.Errorf("%d topologies (%s) and none has cluster_default: true; name one", len(names), strings.Join(names, ", "))
		}
		pick = doc.Content[0].Content[0]
	}
	tn, _ := yamlScalar(pick, "topology")
	switch {
	case yamlChild(pick, "tree") != nil:
		tb := &treeBuilder{}
		sws := yamlChild(yamlChild(pick, "tree"), "switches")
		if sws == nil || sws.Kind != yaml.SequenceNode {
			return nil, fmt.Errorf("line %d: tree needs a list \"switches\"", yamlChild(pick, "tree").Line)
		}
		first := map[string]int{}
		for _, s := range sws.Content {
			sn, _ := yamlScalar(s, "switch")
			if sn == "" {
				return nil, fmt.Errorf("line %d: a switch needs \"switch: NAME\"", s.Line)
			}
			if l, dup := first[sn]; dup {
				return nil, fmt.Errorf("line %d: switch %s listed twice (first on line %d)", s.Line, sn, l)
			}
			first[sn] = s.Line
			nodes, err := yamlHostlist(s, "nodes")
			if err != nil {
				return nil, err
			}
			children, err := yamlHostlist(s, "children")
			if err != nil {
				return nil, err
			}
			if len(nodes) == 0 && len(children) == 0 {
				return nil, fmt.Errorf("line %d: switch %s has neither nodes nor children", s.Line, sn)
			}
			tb.add(sn, nodes, children, fmt.Sprintf("line %d", s.Line))
		}
		return tb.build(false)
	case yamlChild(pick, "block") != nil:
		tb := &treeBuilder{}
		bl := yamlChild(yamlChild(pick, "block"), "blocks")
		if bl == nil || bl.Kind != yaml.SequenceNode {
			return nil, fmt.Errorf("line %d: block needs a list \"blocks\"", yamlChild(pick, "block").Line)
		}
		first := map[string]int{}
		for _, b := range bl.Content {
			bn, _ := yamlScalar(b, "block")
			if bn == "" {
				return nil, fmt.Errorf("line %d: a block needs \"block: NAME\"", b.Line)
			}
			if l, dup := first[bn]; dup {
				return nil, fmt.Errorf("line %d: block %s listed twice (first on line %d)", b.Line, bn, l)
			}
			first[bn] = b.Line
			nodes, err := yamlHostlist(b, "nodes")
			if err != nil {
				return nil, err
			}
			if len(nodes) == 0 {
				return nil, fmt.Errorf("line %d: block %s has no nodes", b.Line, bn)
			}
			tb.add(bn, nodes, nil, fmt.Sprintf("line %d", b.Line))
		}
		return tb.build(true)
	case yamlChild(pick, "torus3d") != nil:
		t := yamlChild(pick, "torus3d")
		if tl := yamlChild(t, "toruses"); tl != nil {
			if tl.Kind != yaml.SequenceNode {
				return nil, fmt.Errorf("line %d: toruses: want a list of tori", tl.Line)
			}
			t = tl
		}
		if t.Kind == yaml.SequenceNode {
			if len(t.Content) != 1 {
				return nil, fmt.Errorf("line %d: %d tori in one topology; procalloc reads one", t.Line, len(t.Content))
			}
			t = t.Content[0]
		}
		return torus3dOf(t)
	case yamlChild(pick, "flat") != nil:
		return nil, fmt.Errorf("line %d: topology %s is flat: it describes no network", pick.Line, tn)
	}
	return nil, fmt.Errorf("line %d: topology %s has none of tree, block, torus3d", pick.Line, tn)
}

func torus3dOf(t *yaml.Node) (*topo.Graph, error) {
	if t.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("line %d: torus3d is a mapping", t.Line)
	}
	if yamlChild(t, "regions") != nil {
		return nil, fmt.Errorf("line %d: torus3d regions are not supported; give dims and nodes", t.Line)
	}
	d := yamlChild(t, "dims")
	if d == nil {
		return nil, fmt.Errorf("line %d: torus3d needs dims: {x: X, y: Y, z: Z}", t.Line)
	}
	dims := make([]int, 3)
	for j, k := range []string{"x", "y", "z"} {
		s, line := yamlScalar(d, k)
		v, err := strconv.Atoi(s)
		if err != nil || v < 1 || v > 1<<16 {
			return nil, fmt.Errorf("line %d: torus3d dims %s = %q: want a positive integer", max(line, d.Line), k, s)
		}
		dims[j] = v
	}
	nodes, err := yamlHostlist(t, "nodes")
	if err != nil {
		return nil, err
	}
	if len(nodes) != dims[0]*dims[1]*dims[2] {
		return nil, fmt.Errorf("line %d: torus3d %dx%dx%d = %d positions but %d nodes", t.Line, dims[0], dims[1], dims[2], dims[0]*dims[1]*dims[2], len(nodes))
	}
	grid, err := topo.NewGrid(dims, []bool{true, true, true})
	if err != nil {
		return nil, err
	}
	f := topo.NewFabric()
	for _, n := range nodes {
		if err := f.AddHost(n); err != nil {
			return nil, fmt.Errorf("line %d: torus3d nodes: %w", t.Line, err)
		}
	}
	var nb []int
	for a := range grid.N() {
		for _, b := range grid.Neighbors(a, nb[:0]) {
			f.Link(nodes[a], nodes[b])
		}
	}
	return f.Graph()
}

// resolveAliases replaces every alias in the tree under n by the node it names, so
// that "nodes: *list" reads as the list; budget bounds the nodes visited (aliases can
// multiply a small file's tree).
func resolveAliases(n *yaml.Node, budget *int) error {
	for i, c := range n.Content {
		if *budget--; *budget < 0 {
			return fmt.Errorf("line %d: the aliases expand to too many YAML nodes", c.Line)
		}
		for depth := 0; c.Kind == yaml.AliasNode; depth++ {
			if c.Alias == nil || depth > 100 {
				return fmt.Errorf("line %d: an alias that names nothing", c.Line)
			}
			c = c.Alias
		}
		n.Content[i] = c
		if err := resolveAliases(c, budget); err != nil {
			return err
		}
	}
	return nil
}

// topologyKeys are the keys of topology.yaml(5) that procalloc reads, by mapping.
var topologyKeys = map[string][]string{
	"topology":     {"topology", "cluster_default", "tree", "block", "torus3d", "flat"},
	"tree":         {"switches"},
	"switch":       {"switch", "children", "nodes"},
	"block":        {"block_sizes", "blocks"},
	"block entry":  {"block", "nodes"},
	"torus3d":      {"toruses", "name", "dims", "nodes", "regions", "placements"},
	"torus":        {"name", "dims", "nodes", "regions", "placements"},
	"torus3d dims": {"x", "y", "z"},
	"placement":    {"dims", "anchor_seed", "anchor_spacing"},
}

// checkKeys reports a key of mapping m (a what) that is not in topologyKeys[what], or
// one given twice.
func checkKeys(m *yaml.Node, what string) error {
	if m.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: %s: want a mapping", m.Line, what)
	}
	seen := map[string]int{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := m.Content[i]
		if l, dup := seen[k.Value]; dup {
			return fmt.Errorf("line %d: key %q given twice in a %s (first on line %d)", k.Line, k.Value, what, l)
		}
		seen[k.Value] = k.Line
		if !slices.Contains(topologyKeys[what], k.Value) {
			return fmt.Errorf("line %d: unknown key %q in a %s (want %s)", k.Line, k.Value, what, strings.Join(topologyKeys[what], ", "))
		}
	}
	return nil
}

// checkTopologyYAML checks one topology's keys at every level, that it has exactly
// one of tree, block, torus3d and flat, and its block_sizes.
func checkTopologyYAML(t *yaml.Node) error {
	if err := checkKeys(t, "topology"); err != nil {
		return err
	}
	var kinds []string
	for _, k := range []string{"tree", "block", "torus3d", "flat"} {
		if yamlChild(t, k) != nil {
			kinds = append(kinds, k)
		}
	}
	if len(kinds) > 1 {
		return fmt.Errorf("line %d: one topology with %s: give each its own entry", t.Line, strings.Join(kinds, " and "))
	}
	entries := func(parent *yaml.Node, list, what string) error {
		if parent.Kind != yaml.MappingNode {
			return nil // reported where the topology is read
		}
		l := yamlChild(parent, list)
		if l == nil || l.Kind != yaml.SequenceNode {
			return nil
		}
		for _, e := range l.Content {
			if err := checkKeys(e, what); err != nil {
				return err
			}
		}
		return nil
	}
	if tr := yamlChild(t, "tree"); tr != nil {
		if err := checkKeys(tr, "tree"); err != nil {
			return err
		}
		return entries(tr, "switches", "switch")
	}
	if b := yamlChild(t, "block"); b != nil {
		if err := checkKeys(b, "block"); err != nil {
			return err
		}
		if bs := yamlChild(b, "block_sizes"); bs != nil {
			if bs.Kind != yaml.SequenceNode && bs.Kind != yaml.ScalarNode {
				return fmt.Errorf("line %d: block_sizes: want a list of positive integers", bs.Line)
			}
			var vals []*yaml.Node
			if bs.Kind == yaml.ScalarNode {
				vals = []*yaml.Node{bs}
			} else {
				vals = bs.Content
			}
			if err := checkBlockSizes(vals); err != nil {
				return err
			}
		}
		return entries(b, "blocks", "block entry")
	}
	if tor := yamlChild(t, "torus3d"); tor != nil {
		var tori []*yaml.Node
		switch {
		case tor.Kind == yaml.SequenceNode:
			tori = tor.Content
		case yamlChild(tor, "toruses") != nil:
			if err := checkKeys(tor, "torus3d"); err != nil {
				return err
			}
			if len(tor.Content) != 2 {
				return fmt.Errorf("line %d: torus3d has toruses and other keys; the tori go in toruses", tor.Line)
			}
			if tl := yamlChild(tor, "toruses"); tl.Kind == yaml.SequenceNode {
				tori = tl.Content
			}
		default:
			tori = []*yaml.Node{tor}
		}
		for _, e := range tori {
			if err := checkKeys(e, "torus"); err != nil {
				return err
			}
			if d := yamlChild(e, "dims"); d != nil {
				if err := checkKeys(d, "torus3d dims"); err != nil {
					return err
				}
			}
			if err := checkPlacements(e); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkPlacements checks a torus's placements: each a mapping of dims, anchor_seed
// and anchor_spacing, each of those {x, y, z} with non-negative integers, dims
// positive and within the torus's dims (as Slurm's torus3d_record.c refuses them).
func checkPlacements(torus *yaml.Node) error {
	pl := yamlChild(torus, "placements")
	if pl == nil {
		return nil
	}
	if pl.Kind != yaml.SequenceNode {
		return fmt.Errorf("line %d: placements: want a list", pl.Line)
	}
	var tdims [3]int
	if d := yamlChild(torus, "dims"); d != nil {
		for j, k := range []string{"x", "y", "z"} {
			v, _ := yamlScalar(d, k)
			tdims[j], _ = strconv.Atoi(v)
		}
	}
	for _, p := range pl.Content {
		if err := checkKeys(p, "placement"); err != nil {
			return err
		}
		for _, key := range []string{"dims", "anchor_seed", "anchor_spacing"} {
			d := yamlChild(p, key)
			if d == nil {
				if key == "dims" {
					return fmt.Errorf("line %d: a placement needs dims: {x, y, z}", p.Line)
				}
				continue
			}
			if err := checkKeys(d, "torus3d dims"); err != nil {
				return err
			}
			for j, k := range []string{"x", "y", "z"} {
				s, line := yamlScalar(d, k)
				v, err := strconv.Atoi(s)
				if s == "" && key != "dims" {
					continue
				}
				if err != nil || v < 0 || key == "dims" && (v < 1 || tdims[j] > 0 && v > tdims[j]) {
					return fmt.Errorf("line %d: placement %s %s = %q: want an integer within the torus", max(line, d.Line), key, k, s)
				}
			}
		}
	}
	return nil
}

// checkBlockSizes reports block sizes that are not positive integers in increasing
// order (Slurm's BlockSizes: the block sizes jobs may be planned on).
func checkBlockSizes(vals []*yaml.Node) error {
	prev := 0
	for _, v := range vals {
		n, err := strconv.Atoi(strings.TrimSpace(v.Value))
		if v.Kind != yaml.ScalarNode || err != nil || n < 1 || n > 1<<30 {
			return fmt.Errorf("line %d: block_sizes: %q is not a positive integer", v.Line, v.Value)
		}
		if n <= prev {
			return fmt.Errorf("line %d: block_sizes: %d after %d; want increasing sizes", v.Line, n, prev)
		}
		prev = n
	}
	return nil
}

func yamlChild(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

func yamlScalar(m *yaml.Node, key string) (string, int) {
	c := yamlChild(m, key)
	if c == nil || c.Kind != yaml.ScalarNode {
		return "", 0
	}
	return c.Value, c.Line
}

func yamlHostlist(m *yaml.Node, key string) ([]string, error) {
	c := yamlChild(m, key)
	if c == nil {
		return nil, nil
	}
	var parts []string
	switch c.Kind {
	case yaml.ScalarNode:
		parts = []string{c.Value}
	case yaml.SequenceNode:
		for _, e := range c.Content {
			parts = append(parts, e.Value)
		}
	default:
		return nil, fmt.Errorf("line %d: %s: want a hostlist", c.Line, key)
	}
	out, err := hostlist.Expand(strings.Join(parts, ","))
	if err != nil {
		return nil, fmt.Errorf("line %d: %s: %w", c.Line, key, err)
	}
	return out, nil
}
