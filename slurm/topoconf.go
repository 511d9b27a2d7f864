package slurm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/procalloc/procalloc/internal/textin"
	"github.com/procalloc/procalloc/internal/timelimit"
	"github.com/procalloc/procalloc/topo"
	"go.yaml.in/yaml/v3"
)

// ParseTopologyConf reads a Slurm topology.conf (topology.conf(5)) into a Topology:
// a topology/tree file of lines "SwitchName=S Nodes=HOSTLIST|Switches=HOSTLIST
// [LinkSpeed=N]", a topology/block file of lines "BlockName=B [Nodes=HOSTLIST]"
// and "BlockSizes=S1,S2,..." (Slurm 24.05 on) or "BlockLevels=LEVELS" (Slurm 23.11;
// parseBlockLevels, and 23.11's block rules: newBlocks2311), or a topology/ring
// file (Slurm 26.05 on) of lines "RingName=R [Nodes=HOSTLIST]", the nodes in ring
// order, into the Rings a topology.yaml's ring: gives. It is the one reader
// of topology.conf; its rules are
// slurmctld's (parse_config.c, and topology/tree's, topology/block's and
// topology/ring's _read_topo_file and validation; Slurm 22.05 for trees, as
// alloc's slurm:tree emulates, 26.05 for blocks and rings):
//
//   - lines are read as slurm.conf's (readConfLines: both files go through
//     s_p_parse_file): '#' comments, '\' continuations, escapes, quoted values,
//     spaces around '=', keys in any case; an operator (Nodes+=) is read as '='
//     with a warning, as Slurm ignores it here; an Include line is refused
//     (Slurm reads the included file): ParseTopologyConfIncluding follows it;
//   - a line starts with SwitchName= (tree), BlockName=, BlockSizes= or
//     BlockLevels= (block) or RingName= (ring); kinds mixed are refused (each
//     plugin's options table knows only its own keys: another's stops slurmctld,
//     "Parsing error at unrecognized key"), and so are
//     BlockSizes= and BlockLevels= in one file (no Slurm knows both);
//   - a switch line knows Nodes, Switches and LinkSpeed (an unsigned integer), a block
//     or ring line knows Nodes, a BlockSizes or BlockLevels line nothing else; any other
//     key, a KEY= without a value (Slurm's parser cannot read it) and a bad hostlist
//     are refused, an
//     unknown key named with the known key when it is a near miss;
//   - refused as slurmctld refuses them at startup: a switch or block defined twice, a
//     switch with both Nodes= and Switches= or neither (Slurm 25.05 and later accept
//     an empty switch), a child switch that is not defined or the switch itself,
//     switches whose levels do not resolve within 21 passes in file order (a cycle),
//     no switch with nodes, no block, a BlockSizes value that is not positive, not a
//     power-of-two multiple of the first or more than 2^15 times it, no node in any
//     block and no BlockSizes, a ring defined twice (ring_record_validate: "Ring
//     (%s) has already been defined"); a node listed twice in one ring is refused
//     too (Rings.addRing, as in a topology.yaml); a node on two rings and a ring
//     without Nodes= are accepted, as Slurm accepts them; a ring of more than
//     MaxRingSize nodes is checked where its names are matched to the machine's
//     (Slurm counts only the nodes slurm.conf has);
//   - accepted as Slurm accepts them, with a warning: a key given twice on a line or
//     BlockSizes= or BlockLevels= on two lines (Slurm keeps the last: "specified
//     more than once, latest value used"), a BlockSizes value with trailing
//     characters (Slurm's atoi reads "8x" as 8), a BlockLevels value with characters
//     bit_unfmt skips, a node on two leaf switches, several root switches.
//
// Errors name the line.
func ParseTopologyConf(r io.Reader) (*Topology, error) {
	return parseTopologyConfReader(context.Background(), r, nil)
}

// ParseTopologyConfContext is ParseTopologyConf looking at ctx every few thousand
// names (a 131,072-host fat tree's file takes 0.2-0.5 s to parse): a cancelled ctx
// returns an error wrapping its cause.
func ParseTopologyConfContext(ctx context.Context, r io.Reader) (*Topology, error) {
	return parseTopologyConfReader(ctx, r, nil)
}

// ParseTopologyConfIncluding is ParseTopologyConf following the file's Include
// lines as slurmctld does: topology/tree's and topology/block's readers
// (_read_topo_file, Slurm 22.05 to 26.05) go through s_p_parse_file, slurm.conf's
// reader, and so through the same Include directive, and so does this (the one
// implementation, ReadConfIncluding's): "include" in any case, an absolute name
// as it is, a relative one in the directory of path (the topology.conf's name;
// "-": standard input, a relative name is an error), nested Include lines,
// errors naming the Include line, the lines of an included file named by their
// file ("FILE line N"). %c is always an error (topology.conf's options table has
// no ClusterName: Slurm's "Did not get ClusterName for include path"). confPath,
// when not "", is slurm.conf's name: Slurm reads topology.conf beside slurm.conf
// and 23.02 on join a relative name to slurm.conf's directory (22.05 to
// topology.conf's), so a relative name is refused when the two directories
// differ. open reads a file (os.ReadFile; a map for tests). It looks at ctx as
// ParseTopologyConfContext does, the included files' lines as the file's: a
// cancelled ctx returns an error wrapping its cause.
func ParseTopologyConfIncluding(ctx context.Context, r io.Reader, path, confPath string, open func(name string) ([]byte, error)) (*Topology, error) {
	return parseTopologyConfReader(ctx, r, topologyIncluder(path, confPath, open))
}

// parseTopologyConfReader is parseTopologyConf of what r holds.
func parseTopologyConfReader(ctx context.Context, r io.Reader, inc *includer) (*Topology, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	return parseTopologyConf(ctx, data, inc)
}

// topologyIncluder follows a topology.conf's Include lines (nil open: none).
func topologyIncluder(path, confPath string, open func(string) ([]byte, error)) *includer {
	if open == nil {
		return nil
	}
	inc := newIncluder(path, confPath, open)
	inc.topology = true
	return inc
}

// ctxEvery is how many names (hosts and switches) the topology readers handle
// between looks at their context: a 131,072-host fat tree's topology.conf (8 MB,
// 9,000 lines of hostlists) took 0.8 s to parse and 0.5 s to turn into a network
// in one piece (1.5 s on a loaded machine); 4,096 names are a few milliseconds.
// It is timelimit.Looker's interval, which they look with.
const ctxEvery = timelimit.LookEvery

// parseTopologyConf is ParseTopologyConf looking at ctx every ctxEvery names (and
// at the first line) and before the switches' rules; a cancelled ctx returns its
// cause.
func parseTopologyConf(ctx context.Context, data []byte, inc *includer) (*Topology, error) {
	t := &Topology{}
	look := timelimit.Looker{Ctx: ctx, Work: timelimit.LookEvery}
	warns := warnCap{list: &t.Warnings}
	warn := warns.add
	var sws []switchRec
	var blks []blockRec
	var rings []Ring
	var sizes []int
	sizesRaw, sizesLine, sizesAt := "", 0, ""
	levelsRaw, levelsLine, levelsAt := "", 0, ""
	kind, kindAt := "", ""
	var budget nameBudget
	// The lines as s_p_parse_file reads them (slurm.conf's reader): comments,
	// continuations, escapes, quotes, spaces around '='.
	// The lines are split looking at ctx every ctxEvery/4 lines (a topology.conf
	// of 10^5 hosts has tens of thousands, a leaf's names each).
	lines := 0
	conf, err := readConfLines(data, func([]ConfPair) error {
		if lines++; lines%(ctxEvery/4) == 0 && ctx.Err() != nil {
			return context.Cause(ctx)
		}
		return nil
	}, inc)
	if err != nil && ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	if err != nil {
		return nil, err
	}
	for _, l := range conf.Lines {
		if err := look.Stopped(1); err != nil {
			return nil, err
		}
		line, at := l.First, l.Where()
		if l.Kind() == "include" {
			if inc != nil {
				continue // followed: its file's lines come next
			}
			return nil, fmt.Errorf("%s: Include: not followed here (Slurm reads the included file as part of topology.conf); give the topology.conf by its path (--graph FILE, --topology-conf FILE), whose Include lines are followed", at)
		}
		field := func(i int) string { return l.Pairs[i].Key + "=" + l.Pairs[i].Value } // for messages
		kv := make([][2]string, len(l.Pairs))
		for i, p := range l.Pairs {
			if p.Op != "" {
				warn(fmt.Sprintf("%s: %s%s=%s: Slurm reads it as %s=%s (the operator is ignored in topology.conf)", at, p.Key, p.Op, textin.Clip(p.Value), p.Key, textin.Clip(p.Value)))
			}
			kv[i] = [2]string{strings.ToLower(p.Key), p.Value}
		}
		head := kv[0][0]
		var lineKind string
		var keys []string // the keys the line may have after its first
		switch head {
		case "switchname":
			lineKind, keys = "tree", []string{"nodes", "switches", "linkspeed"}
		case "blockname":
			lineKind, keys = "block", []string{"nodes"}
		case "blocksizes", "blocklevels":
			lineKind = "block"
		case "ringname":
			lineKind, keys = "ring", []string{"nodes"}
		default:
			return nil, fmt.Errorf("%s: a line starts with SwitchName= (topology/tree), BlockName= or BlockSizes= (topology/block; BlockLevels= in Slurm 23.11) or RingName= (topology/ring, Slurm 26.05), not %s=%s", at, textin.Clip(l.Pairs[0].Key), didYouMean(topoConfKeys, l.Pairs[0].Key))
		}
		if kind != "" && kind != lineKind {
			return nil, fmt.Errorf("%s: %s lines mixed with %s (%s is topology/%s): topology/tree reads only SwitchName lines, topology/block only BlockName and BlockSizes, topology/ring only RingName (another plugin's key stops slurmctld: \"Parsing error at unrecognized key\")", at, topoLineKinds[lineKind], topoLineKinds[kind], kindAt, kind)
		}
		if kind == "" {
			kind, kindAt = lineKind, at
		}
		val := map[string]int{} // a key's last pair
		for i, p := range kv[1:] {
			if !slices.Contains(keys, p[0]) {
				k := l.Pairs[i+1].Key
				switch {
				case head == "blockname" && (p[0] == "blocksizes" || p[0] == "blocklevels"):
					return nil, fmt.Errorf("%s: %s= on a block's line (give it a line of its own)", at, k)
				case head == "blocksizes" || head == "blocklevels":
					h := l.Pairs[0].Key
					return nil, fmt.Errorf("%s: %s= after %s= (%s= takes a line of its own)", at, k, h, h)
				case head == "blockname" && (p[0] == "switches" || p[0] == "linkspeed" || p[0] == "switchname"):
					return nil, fmt.Errorf("%s: %s= is topology/tree, not topology/block", at, k)
				case head == "switchname" && (p[0] == "blockname" || p[0] == "blocksizes" || p[0] == "blocklevels"):
					return nil, fmt.Errorf("%s: %s= is topology/block, not topology/tree", at, k)
				case p[0] == head:
					return nil, fmt.Errorf("%s: two %s= on one line (one line per %s)", at, k, map[string]string{"switchname": "switch", "blockname": "block", "ringname": "ring"}[head])
				case p[0] == "ringname" || head == "ringname" && topoKeyPlugin[p[0]] != "":
					return nil, fmt.Errorf("%s: %s= is topology/%s, not topology/%s", at, k, topoKeyPlugin[p[0]], lineKind)
				}
				want, table := "Nodes, Switches, LinkSpeed", topoSwitchKeys
				if head == "blockname" || head == "ringname" {
					want, table = "Nodes", topoNodesKeys
				}
				return nil, fmt.Errorf("%s: unknown key %q (a %s line takes %s%s; Slurm: \"Parsing error at unrecognized key\", fatal)", at, textin.Clip(k), l.Pairs[0].Key, want, didYouMean(table, k))
			}
			if prev, dup := val[p[0]]; dup {
				warn(fmt.Sprintf("%s: %s given twice (%s and %s); Slurm uses the last (\"specified more than once, latest value used\")", at, textin.Clip(l.Pairs[i+1].Key), textin.Clip(field(prev)), textin.Clip(field(i+1))))
			}
			val[p[0]] = i + 1
		}
		value := func(k string) (string, bool) {
			i, ok := val[k]
			if !ok {
				return "", false
			}
			return l.Pairs[i].Value, true
		}
		hosts := func(k string) ([]string, bool, error) {
			v, ok := value(k)
			if !ok {
				return nil, false, nil
			}
			out, err := budget.expand(v)
			if err != nil {
				return nil, true, fmt.Errorf("%s: %s: %w", at, textin.Clip(field(val[k])), err)
			}
			look.Work += len(out)
			return out, true, nil
		}
		switch head {
		case "switchname":
			s := switchRec{name: kv[0][1], line: line, file: l.File}
			var err error
			if s.nodes, s.hasNodes, err = hosts("nodes"); err != nil {
				return nil, err
			}
			if s.children, s.hasChildren, err = hosts("switches"); err != nil {
				return nil, err
			}
			if v, ok := value("linkspeed"); ok && !isUint32(v) {
				return nil, fmt.Errorf("%s: LinkSpeed=%s: want an unsigned integer", at, textin.Clip(v))
			}
			if sws == nil {
				sws = make([]switchRec, 0, len(conf.Lines))
			}
			sws = append(sws, s)
		case "blockname":
			b := blockRec{name: kv[0][1], line: line, file: l.File}
			var err error
			if b.nodes, _, err = hosts("nodes"); err != nil {
				return nil, err
			}
			if blks == nil {
				blks = make([]blockRec, 0, len(conf.Lines))
			}
			blks = append(blks, b)
		case "ringname":
			r := Ring{Name: kv[0][1], Line: line, File: l.File}
			var err error
			if r.Nodes, _, err = hosts("nodes"); err != nil {
				return nil, err
			}
			rings = append(rings, r)
		case "blocksizes":
			if sizesLine != 0 {
				warn(fmt.Sprintf("%s: BlockSizes= given again (first on %s); Slurm uses the last (\"specified more than once, latest value used\")", at, sizesAt))
			}
			sizesRaw, sizesLine, sizesAt = kv[0][1], line, at
		case "blocklevels":
			if levelsLine != 0 {
				warn(fmt.Sprintf("%s: BlockLevels= given again (first on %s); Slurm uses the last (\"specified more than once, latest value used\")", at, levelsAt))
			}
			levelsRaw, levelsLine, levelsAt = kv[0][1], line, at
		}
	}
	var levels uint16
	if levelsLine != 0 {
		var odd bool
		if levels, odd, err = parseBlockLevels(levelsRaw); err != nil {
			return nil, fmt.Errorf("%s: BlockLevels=%s: %w (Slurm 23.11: \"Invalid BlockLevels\", fatal)", levelsAt, textin.Clip(levelsRaw), err)
		}
		if odd {
			warn(fmt.Sprintf("%s: BlockLevels=%s is read as levels %s (Slurm's bit_unfmt skips characters other than digits, '-' and ',')", levelsAt, textin.Clip(levelsRaw), textin.Clip(formatLevels(levels))))
		}
	}
	if sizesLine != 0 {
		// Slurm checks the value it keeps, the last.
		vals, odd, err := parseBlockSizes(sizesRaw)
		if err != nil {
			return nil, fmt.Errorf("%s: BlockSizes=%s: %w (Slurm: \"Invalid BlockSizes value\")", sizesAt, textin.Clip(sizesRaw), err)
		}
		if len(odd) > 0 {
			warn(fmt.Sprintf("%s: BlockSizes value %q is read as %d, as Slurm's atoi reads it", sizesAt, textin.Clip(odd[0]), mustAtoi(odd[0])))
		}
		sizes = vals
	}
	if ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	switch kind {
	case "":
		return nil, fmt.Errorf("no SwitchName=, BlockName= or RingName= lines")
	case "tree":
		t.Tree, err = newTree(sws, treeRules{}, warn, &look)
	case "block":
		t.Blocks, err = newBlocks(blks, sizes, sizesLine, sizesAt, levels, levelsLine, levelsAt, warn, &look)
	case "ring":
		t.Rings = &Rings{Format: "topology.conf", Rings: make([]Ring, 0, len(rings))}
		seen := make(map[string]int, len(rings))
		for _, r := range rings {
			if err = t.Rings.addRing(r, seen); err != nil {
				break
			}
		}
	}
	if err != nil {
		return nil, err
	}
	warns.done()
	t.conf = conf
	return t, nil
}

// EditLines rewrites the topology.conf t was read from, as Conf.EditLines
// rewrites a slurm.conf: edit is called with every logical line but the
// Include lines (its index and the line, whose File names its included file)
// and returns the lines that replace it (nil: keep it byte for byte); the output
// is the topology.conf (ConfFiles.SlurmConf) and each file its followed Include
// lines name, each with its own lines, the Include lines kept: the site's
// layout. ConfFiles.ReadTopology reads the output back. An error for a
// Topology not read from a topology.conf (a topology.yaml, one built in
// memory).
func (t *Topology) EditLines(edit func(li int, l *ConfLine) ([]string, error)) (*ConfFiles, error) {
	if t.conf == nil {
		return nil, fmt.Errorf("a topology/%s configuration not read from a topology.conf: no lines to edit", t.Kind())
	}
	out, err := t.conf.EditLines(edit, nil)
	if err != nil {
		return nil, err
	}
	out.topology = true
	return out, nil
}

// The keys of topology.conf, as the options tables of topology/tree's and
// topology/block's _read_topo_file and line handlers spell them (Slurm 22.05.8
// src/plugins/topology/tree/topology_tree.c 605, 26.05.3 tree/switch_record.c 155
// and block/block_record.c 83; 23.11.11's block/topology_block.c 170 has BlockLevels
// for BlockSizes).
var (
	topoConfKeys   = []confKey{{Name: "BlockLevels"}, {Name: "BlockName"}, {Name: "BlockSizes"}, {Name: "RingName"}, {Name: "SwitchName"}}
	topoSwitchKeys = []confKey{{Name: "LinkSpeed"}, {Name: "Nodes"}, {Name: "Switches"}}
	topoNodesKeys  = []confKey{{Name: "Nodes"}} // a BlockName or RingName line's
	// topoKeyPlugin is the plugin whose lines a key (lower case) belongs to,
	// for messages; topoLineKinds names a plugin's lines.
	topoKeyPlugin = map[string]string{"switchname": "tree", "switches": "tree", "linkspeed": "tree", "blockname": "block", "blocksizes": "block", "blocklevels": "block", "ringname": "ring"}
	topoLineKinds = map[string]string{"tree": "SwitchName", "block": "BlockName/BlockSizes", "ring": "RingName"}
)

func mustAtoi(s string) int { n, _ := atoi(s); return n }

// isUint32 reports whether v is what Slurm's s_p_handle_uint32 reads: a decimal
// number below 2^32, or UNLIMITED or INFINITE.
func isUint32(v string) bool {
	if strings.EqualFold(v, "UNLIMITED") || strings.EqualFold(v, "INFINITE") {
		return true
	}
	n, err := strconv.ParseUint(v, 10, 32)
	return err == nil && n < 1<<32-1
}

// ReadTopologyConf reads a topology.conf (ParseTopologyConf) and returns its network
// (Topology.Graph).
func ReadTopologyConf(r io.Reader) (*topo.Graph, error) {
	t, err := ParseTopologyConf(r)
	if err != nil {
		return nil, err
	}
	return t.Graph()
}

// ParseTree reads a topology/tree topology.conf (ParseTopologyConf) and returns its
// switches; a topology/block file is an error.
func ParseTree(r io.Reader) (*Tree, error) {
	t, err := ParseTopologyConf(r)
	if err != nil {
		return nil, fmt.Errorf("topology.conf: %w", err)
	}
	return t.TreeOf()
}

// ParseBlocks reads a topology/block topology.conf (ParseTopologyConf) and returns its
// blocks; a topology/tree file is an error.
func ParseBlocks(r io.Reader) (*Blocks, error) {
	t, err := ParseTopologyConf(r)
	if err != nil {
		return nil, fmt.Errorf("topology.conf: %w", err)
	}
	return t.BlocksOf()
}

// TreeOf returns t's tree, or an error naming what t is instead.
func (t *Topology) TreeOf() (*Tree, error) {
	if t.Tree == nil {
		return nil, fmt.Errorf("a topology/%s configuration, not topology/tree (SwitchName= lines)", t.Kind())
	}
	return t.Tree, nil
}

// BlocksOf returns t's blocks, or an error naming what t is instead.
func (t *Topology) BlocksOf() (*Blocks, error) {
	if t.Blocks == nil {
		return nil, fmt.Errorf("a topology/%s configuration, not topology/block (BlockName= lines)", t.Kind())
	}
	return t.Blocks, nil
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
//	         torus3d: {name, dims, nodes} (or a list of one) is read too; regions:
//	         [{anchor: {x, y, z}, dims: {x, y, z}, nodes: HOSTLIST}, ...] in place of
//	         nodes put each region's nodes at its positions (torusRegions)
//	ring:    rings: [{ring: R, nodes: HOSTLIST}, ...] (Slurm 26.05; nodes in ring
//	         order; a selection rule, no network: Topology.Graph refuses it)
//	flat:    true (no network: refused)
//
// name selects a topology; empty selects the one with cluster_default: true (the
// first of several, as Slurm takes it, with a warning), else the only one. Errors
// name the line: unknown keys, a key given twice, two topologies of one name, a
// topology with two of tree/block/torus3d/flat and a second YAML document are
// refused. Switches and blocks follow the rules
// of ParseTopologyConf (topology.yaml exists from Slurm 25.05, whose rules differ in
// two places: a switch with nodes and children is a leaf whose children Slurm ignores
// with a warning, and a switch with neither is an empty leaf); block_sizes are checked
// as BlockSizes= (a list of integers). Aliases (&list ... *list) read as the node they
// name; merge keys (<<) are unknown keys.
func ParseTopologyYAML(r io.Reader, name string) (*Topology, error) {
	return parseTopologyYAML(context.Background(), r, name)
}

// parseTopologyYAML is ParseTopologyYAML looking at ctx while the YAML is decoded
// (each read of its decoder, 512 bytes), at each switch or block and every ctxEvery
// names; a cancelled ctx returns its cause, not the decoder's wording of it.
func parseTopologyYAML(ctx context.Context, r io.Reader, name string) (*Topology, error) {
	doc, err := readTopologyYAMLDoc(ctx, r)
	if err != nil {
		return nil, err
	}
	pick := -1
	for i, e := range doc.entries {
		if name != "" && e.name == name || name == "" && e.clusterDefault {
			pick = i
			break
		}
	}
	if pick < 0 {
		if name != "" {
			return nil, fmt.Errorf("no topology %q (the file has %s)%s", name, strings.Join(doc.names(), ", "), textin.DidYouMean(name, doc.names()))
		}
		if len(doc.entries) != 1 {
			return nil, fmt.Errorf("%d topologies (%s) and none has cluster_default: true; name one", len(doc.entries), strings.Join(doc.names(), ", "))
		}
		pick = 0
	}
	t, flat, err := yamlTopologyOf(ctx, doc.entries[pick].node)
	if err != nil {
		return nil, err
	}
	if flat {
		return nil, fmt.Errorf("line %d: topology %s is flat: it describes no network", doc.entries[pick].line, doc.entries[pick].name)
	}
	t.Warnings = append(doc.warnings, t.Warnings...)
	return t, nil
}

// TopologyYAML is a topology.yaml read whole, as slurmctld reads it (Slurm 25.05
// and later; src/interfaces/topology.c, topology_g_init): every topology it
// lists, each checked by the rules of ParseTopologyYAML, flat ones included.
type TopologyYAML struct {
	Topologies []YAMLTopology // in file order
	// Warnings are what Slurm accepts of the list itself but procalloc says
	// (a second cluster_default: true), naming the line; each topology's own
	// are in its Topology.
	Warnings []string
}

// YAMLTopology is one topology of a topology.yaml.
type YAMLTopology struct {
	Name           string // its "topology:" name, what a partition's Topology= names
	Line           int    // the line of its entry
	ClusterDefault bool   // cluster_default: true
	// Topology is its tree, block or torus3d; nil for a flat topology
	// (topology/flat: no topology, Slurm's node order).
	*Topology
}

// Kind names the topology plugin of e: "tree", "block", "torus3d" or "flat".
func (e *YAMLTopology) Kind() string {
	if e.Topology == nil {
		return "flat"
	}
	return e.Topology.Kind()
}

// Default returns the index of the topology slurmctld gives the partitions
// without Topology= (and uses outside partitions): topology_g_init sorts the
// topologies with cluster_default first (_process_conf, qsort by _cmp_tctx,
// equal otherwise, which glibc's merge sort keeps in file order) and
// set_part_topology_idx (src/slurmctld/partition_mgr.c) gives such a partition
// index 0: the first topology with cluster_default: true, else the first
// listed.
func (y *TopologyYAML) Default() int {
	for i := range y.Topologies {
		if y.Topologies[i].ClusterDefault {
			return i
		}
	}
	return 0
}

// Index returns the index of the topology named name (case-sensitive, as
// topology.c's _get_tctx_index_by_name compares), -1 when there is none.
func (y *TopologyYAML) Index(name string) int {
	for i := range y.Topologies {
		if y.Topologies[i].Name == name {
			return i
		}
	}
	return -1
}

// Names lists the topologies' names in file order, comma-separated.
func (y *TopologyYAML) Names() string {
	s := make([]string, len(y.Topologies))
	for i := range y.Topologies {
		s[i] = y.Topologies[i].Name
	}
	return strings.Join(s, ", ")
}

// ParseTopologyYAMLAll reads every topology of a topology.yaml (the rules and
// errors of ParseTopologyYAML, each topology read as ParseTopologyYAML reads the
// one it selects; a flat topology is read as one with no Topology), looking at
// ctx as ParseTopologyYAML does: what procalloc plan models a site's current
// configuration from, a partition's Topology= selecting one.
func ParseTopologyYAMLAll(ctx context.Context, r io.Reader) (*TopologyYAML, error) {
	doc, err := readTopologyYAMLDoc(ctx, r)
	if err != nil {
		return nil, err
	}
	out := &TopologyYAML{Warnings: doc.warnings}
	for _, e := range doc.entries {
		t, _, err := yamlTopologyOf(ctx, e.node)
		if err != nil {
			return nil, err
		}
		out.Topologies = append(out.Topologies, YAMLTopology{Name: e.name, Line: e.line, ClusterDefault: e.clusterDefault, Topology: t})
	}
	return out, nil
}

// yamlDoc is a topology.yaml's list of topologies, each's keys checked.
type yamlDoc struct {
	entries  []yamlEntry
	warnings []string // what Slurm accepts of the list (a second cluster_default)
}

type yamlEntry struct {
	name           string
	line           int
	clusterDefault bool
	node           *yaml.Node
}

func (d *yamlDoc) names() []string {
	s := make([]string, len(d.entries))
	for i, e := range d.entries {
		s[i] = e.name
	}
	return s
}

// readTopologyYAMLDoc decodes a topology.yaml and checks its list of topologies:
// each a mapping of known keys with a name, no name twice, at most one
// cluster_default: true.
func readTopologyYAMLDoc(ctx context.Context, r io.Reader) (*yamlDoc, error) {
	data, err := textin.ReadAll(r, MaxConfFileBytes, "the file")
	if err != nil {
		return nil, err
	}
	if err := checkSlurmFileStart(data); err != nil {
		return nil, fmt.Errorf("line 1: %w", err)
	}
	dec := yaml.NewDecoder(textin.ContextReader(ctx, bytes.NewReader(data)))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		if err == io.EOF {
			return nil, fmt.Errorf("empty topology.yaml: it is a list of topologies (- topology: NAME ...)")
		}
		return nil, err
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); ctx.Err() != nil {
		return nil, context.Cause(ctx)
	} else if err == nil {
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
	out := &yamlDoc{}
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
		def := false
		if c := yamlChild(t, "cluster_default"); c != nil {
			if c.Kind != yaml.ScalarNode || (c.Value != "true" && c.Value != "false") {
				return nil, fmt.Errorf("line %d: cluster_default: want true or false", c.Line)
			}
			if def = c.Value == "true"; def {
				if defaultLine != 0 {
					// topology_g_init sorts the cluster_default ones first,
					// in file order (qsort by _cmp_tctx; glibc's merge
					// sort): the first is topology 0, the default.
					out.warnings = append(out.warnings, fmt.Sprintf("line %d: a second cluster_default: true (the first on line %d): Slurm takes the first", c.Line, defaultLine))
					def = false
				} else {
					defaultLine = c.Line
				}
			}
		}
		out.entries = append(out.entries, yamlEntry{name: tn, line: t.Line, clusterDefault: def, node: t})
	}
	if len(out.entries) == 0 {
		return nil, fmt.Errorf("line %d: an empty list: a topology.yaml lists at least one topology (- topology: NAME ...)", doc.Content[0].Line)
	}
	return out, nil
}

// yamlTopologyOf reads one topology of a topology.yaml (its keys checked):
// its Topology, or flat true for a flat one.
func yamlTopologyOf(ctx context.Context, pick *yaml.Node) (out *Topology, flat bool, err error) {
	look := timelimit.Looker{Ctx: ctx, Work: timelimit.LookEvery}
	tn, _ := yamlScalar(pick, "topology")
	out = &Topology{}
	warns := warnCap{list: &out.Warnings}
	warn := warns.add
	lists := nameBudget{ctx: ctx}
	switch {
	case yamlChild(pick, "tree") != nil:
		sws := yamlChild(yamlChild(pick, "tree"), "switches")
		if sws == nil || sws.Kind != yaml.SequenceNode {
			return nil, false, fmt.Errorf("line %d: tree needs a list \"switches\"", yamlChild(pick, "tree").Line)
		}
		recs := make([]switchRec, 0, len(sws.Content))
		for _, s := range sws.Content {
			if err := look.Stopped(1); err != nil {
				return nil, false, err
			}
			sn, _ := yamlScalar(s, "switch")
			if sn == "" {
				return nil, false, fmt.Errorf("line %d: a switch needs \"switch: NAME\"", s.Line)
			}
			r := switchRec{name: sn, line: s.Line, hasNodes: yamlChild(s, "nodes") != nil, hasChildren: yamlChild(s, "children") != nil}
			if r.nodes, err = yamlHostlist(&lists, s, "nodes"); err != nil {
				return nil, false, err
			}
			if r.children, err = yamlHostlist(&lists, s, "children"); err != nil {
				return nil, false, err
			}
			look.Work += len(r.nodes) + len(r.children)
			recs = append(recs, r)
		}
		if out.Tree, err = newTree(recs, treeRules{yaml: true}, warn, &look); err != nil {
			return nil, false, err
		}
	case yamlChild(pick, "block") != nil:
		blk := yamlChild(pick, "block")
		bl := yamlChild(blk, "blocks")
		if bl == nil || bl.Kind != yaml.SequenceNode {
			return nil, false, fmt.Errorf("line %d: block needs a list \"blocks\"", blk.Line)
		}
		recs := make([]blockRec, 0, len(bl.Content))
		for _, b := range bl.Content {
			if err := look.Stopped(1); err != nil {
				return nil, false, err
			}
			bn, _ := yamlScalar(b, "block")
			if bn == "" {
				return nil, false, fmt.Errorf("line %d: a block needs \"block: NAME\"", b.Line)
			}
			r := blockRec{name: bn, line: b.Line}
			if r.nodes, err = yamlHostlist(&lists, b, "nodes"); err != nil {
				return nil, false, err
			}
			look.Work += len(r.nodes)
			recs = append(recs, r)
		}
		var sizes []int
		sizesLine := 0
		if bs := yamlChild(blk, "block_sizes"); bs != nil {
			if sizes, err = yamlBlockSizes(bs); err != nil {
				return nil, false, err
			}
			sizesLine = bs.Line
		}
		if out.Blocks, err = newBlocks(recs, sizes, sizesLine, LineRef("", sizesLine), 0, 0, "", warn, &look); err != nil {
			return nil, false, err
		}
	case yamlChild(pick, "torus3d") != nil:
		t := yamlChild(pick, "torus3d")
		if tl := yamlChild(t, "toruses"); tl != nil {
			if tl.Kind != yaml.SequenceNode {
				return nil, false, fmt.Errorf("line %d: toruses: want a list of tori", tl.Line)
			}
			t = tl
		}
		if t.Kind == yaml.SequenceNode {
			if len(t.Content) != 1 {
				return nil, false, fmt.Errorf("line %d: %d tori in one topology; procalloc reads one", t.Line, len(t.Content))
			}
			t = t.Content[0]
		}
		if out.Torus, err = torus3dOf(t, &lists); err != nil {
			return nil, false, err
		}
	case yamlChild(pick, "ring") != nil:
		if out.Rings, err = yamlRings(yamlChild(pick, "ring"), &lists, &look); err != nil {
			return nil, false, err
		}
	case yamlChild(pick, "flat") != nil:
		return nil, true, nil
	default:
		return nil, false, fmt.Errorf("line %d: topology %s has none of tree, block, torus3d, ring, flat", pick.Line, tn)
	}
	warns.done()
	return out, false, nil
}

// ReadTopologyYAML reads a topology.yaml (ParseTopologyYAML) and returns the network
// of the topology name selects (Topology.Graph).
func ReadTopologyYAML(r io.Reader, name string) (*topo.Graph, error) {
	t, err := ParseTopologyYAML(r, name)
	if err != nil {
		return nil, err
	}
	return t.Graph()
}

// yamlBlockSizes reads block_sizes: a list of integers (or one), checked as
// BlockSizes= is.
func yamlBlockSizes(bs *yaml.Node) ([]int, error) {
	if bs.Kind != yaml.SequenceNode && bs.Kind != yaml.ScalarNode {
		return nil, fmt.Errorf("line %d: block_sizes: want a list of positive integers", bs.Line)
	}
	vals := []*yaml.Node{bs}
	if bs.Kind == yaml.SequenceNode {
		vals = bs.Content
	}
	var out []int
	for _, v := range vals {
		n, err := strconv.Atoi(strings.TrimSpace(v.Value))
		if v.Kind != yaml.ScalarNode || err != nil || n < 1 || n > 1<<30 {
			return nil, fmt.Errorf("line %d: block_sizes: %q is not a positive integer", v.Line, textin.Clip(v.Value))
		}
		out = append(out, n)
	}
	if err := checkBlockSizes(out); err != nil {
		return nil, fmt.Errorf("line %d: block_sizes: %w (Slurm: \"Invalid BlockSizes value\")", bs.Line, err)
	}
	return out, nil
}

// yamlRings reads a topology's "ring:" mapping (topology.yaml(5), "Ring
// definitions"): rings, a list of {ring: NAME, nodes: HOSTLIST} or one such
// mapping (data_parser's TOPOLOGY_RING_CONFIG_ARRAY takes either), checked as
// Slurm 26.05.3's ring_record.c, ring_record_validate, stops slurmctld: no ring
// ("No rings configured"), a ring without a name ("Can't create a ring without a
// name"), and the checks topology.conf's RingName= lines get too
// (Rings.addRing: a name given twice, a node twice in one ring).
func yamlRings(rg *yaml.Node, lists *nameBudget, look *timelimit.Looker) (*Rings, error) {
	rl := yamlChild(rg, "rings")
	var items []*yaml.Node
	switch {
	case rl == nil:
		return nil, fmt.Errorf("line %d: ring needs \"rings\": a list of {ring: NAME, nodes: HOSTLIST}", rg.Line)
	case rl.Kind == yaml.MappingNode:
		items = []*yaml.Node{rl}
	case rl.Kind == yaml.SequenceNode:
		items = rl.Content
	default:
		return nil, fmt.Errorf("line %d: rings: want a list of {ring: NAME, nodes: HOSTLIST}", rl.Line)
	}
	if len(items) == 0 {
		return nil, fmt.Errorf("line %d: rings: an empty list (Slurm: \"No rings configured\", fatal)", rl.Line)
	}
	out := &Rings{Format: "topology.yaml"}
	seen := map[string]int{}
	for _, r := range items {
		if err := look.Stopped(1); err != nil {
			return nil, err
		}
		name, _ := yamlScalar(r, "ring")
		if name == "" {
			return nil, fmt.Errorf("line %d: a ring needs \"ring: NAME\" (Slurm: \"Can't create a ring without a name\", fatal)", r.Line)
		}
		nodes, err := yamlHostlist(lists, r, "nodes")
		if err != nil {
			return nil, err
		}
		look.Work += len(nodes)
		if err := out.addRing(Ring{Name: name, Line: r.Line, Nodes: nodes}, seen); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func torus3dOf(t *yaml.Node, lists *nameBudget) (*Torus, error) {
	if t.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("line %d: torus3d is a mapping", t.Line)
	}
	d := yamlChild(t, "dims")
	if d == nil {
		return nil, fmt.Errorf("line %d: torus3d needs dims: {x: X, y: Y, z: Z}", t.Line)
	}
	tor := &Torus{Line: t.Line}
	tor.Name, _ = yamlScalar(t, "name")
	for j, k := range []string{"x", "y", "z"} {
		s, line := yamlScalar(d, k)
		v, err := strconv.Atoi(s)
		if err != nil || v < 1 || v > 1<<16 {
			return nil, fmt.Errorf("line %d: torus3d dims %s = %q: want a positive integer", max(line, d.Line), k, textin.Clip(s))
		}
		tor.Dims[j] = v
	}
	if rg := yamlChild(t, "regions"); rg != nil {
		if yamlChild(t, "nodes") != nil {
			return nil, fmt.Errorf("line %d: torus3d with nodes and regions (Slurm: \"Torus3d configuration cannot specify both nodes and regions\")", t.Line)
		}
		if err := torusRegions(tor, rg, lists); err != nil {
			return nil, err
		}
	} else {
		nodes, err := yamlHostlist(lists, t, "nodes")
		if err != nil {
			return nil, err
		}
		if p := tor.Dims[0] * tor.Dims[1] * tor.Dims[2]; len(nodes) != p {
			return nil, fmt.Errorf("line %d: torus3d %dx%dx%d = %d positions but %d nodes", t.Line, tor.Dims[0], tor.Dims[1], tor.Dims[2], p, len(nodes))
		}
		tor.Nodes = nodes
	}
	if pl := yamlChild(t, "placements"); pl != nil && pl.Kind == yaml.SequenceNode {
		// Checked by checkPlacements: dims positive, within the torus.
		xyz := func(d *yaml.Node) (v [3]int, given [3]bool) {
			for j, k := range []string{"x", "y", "z"} {
				s, _ := yamlScalar(d, k)
				v[j], _ = strconv.Atoi(s)
				given[j] = s != ""
			}
			return v, given
		}
		for _, p := range pl.Content {
			d, _ := xyz(yamlChild(p, "dims"))
			tor.Placements = append(tor.Placements, Box{X: d[0], Y: d[1], Z: d[2]})
			if s := yamlChild(p, "anchor_seed"); s != nil {
				if v, _ := xyz(s); v != [3]int{} {
					tor.OwnAnchors = true
				}
			}
			if s := yamlChild(p, "anchor_spacing"); s != nil {
				v, given := xyz(s)
				for j := range 3 {
					if given[j] && v[j] != d[j] {
						tor.OwnAnchors = true
					}
				}
			}
		}
	}
	return tor, nil
}

// torusRegions places a torus's regions (topology.yaml(5): "regions", in place
// of nodes) as Slurm 26.05.3's torus3d_record.c, _validate_regions_config, does:
// a region {anchor: {x, y, z}, dims: {x, y, z}, nodes: HOSTLIST} (a list of them,
// or one) puts its nodes, x fastest within the region, at the torus positions
// anchor + (x, y, z); it must have nodes ("Torus3d region missing nodes"), fit
// in the torus without wrapping ("Torus3d region dims exceed torus
// dimensions"), name as many nodes as it has positions ("Torus3d region node
// count does not match dims") and overlap no earlier region ("Torus3d region
// overlaps existing nodes"): each an error naming the region's line, as each
// stops slurmctld. Positions no region covers hold no node (Nodes[i] == "",
// counted in Torus.Empty): eval_nodes_torus3d.c skips an anchor whose box holds
// fewer nodes than the placement's size (_check_anchor).
func torusRegions(tor *Torus, rg *yaml.Node, lists *nameBudget) error {
	var items []*yaml.Node
	switch rg.Kind {
	case yaml.MappingNode:
		items = []*yaml.Node{rg}
	case yaml.SequenceNode:
		items = rg.Content
	default:
		return fmt.Errorf("line %d: regions: want a list of {anchor, dims, nodes}", rg.Line)
	}
	X, Y, Z := tor.Dims[0], tor.Dims[1], tor.Dims[2]
	tor.Nodes = make([]string, X*Y*Z)
	from := make([]int, X*Y*Z) // the line of the region at each position
	for _, r := range items {
		var anchor, dims [3]int
		for i, key := range []string{"anchor", "dims"} {
			m := yamlChild(r, key)
			if m == nil {
				continue
			}
			for j, k := range []string{"x", "y", "z"} {
				v, line := yamlScalar(m, k)
				if v == "" {
					continue
				}
				n, err := strconv.Atoi(v)
				if err != nil || n < 0 || n > 1<<16 {
					return fmt.Errorf("line %d: region %s %s = %q: want a non-negative integer", max(line, m.Line), key, k, textin.Clip(v))
				}
				if i == 0 {
					anchor[j] = n
				} else {
					dims[j] = n
				}
			}
		}
		nodes, err := yamlHostlist(lists, r, "nodes")
		if err != nil {
			return err
		}
		if len(nodes) == 0 {
			return fmt.Errorf("line %d: a region without nodes (Slurm: \"Torus3d region missing nodes\", fatal)", r.Line)
		}
		for j := range 3 {
			if anchor[j]+dims[j] > tor.Dims[j] {
				return fmt.Errorf("line %d: region anchor %v + dims %v leaves the %dx%dx%d torus (regions do not wrap; Slurm: \"Torus3d region dims exceed torus dimensions\", fatal)", r.Line, anchor, dims, X, Y, Z)
			}
		}
		if size := dims[0] * dims[1] * dims[2]; len(nodes) != size {
			return fmt.Errorf("line %d: region %dx%dx%d = %d positions but %d nodes (Slurm: \"Torus3d region node count does not match dims\", fatal)", r.Line, dims[0], dims[1], dims[2], size, len(nodes))
		}
		for i, n := range nodes {
			x, y, z := anchor[0]+i%dims[0], anchor[1]+(i/dims[0])%dims[1], anchor[2]+i/(dims[0]*dims[1])
			pos := x + X*(y+Y*z)
			if from[pos] != 0 {
				return fmt.Errorf("line %d: region overlaps the region of line %d at (%d, %d, %d) (Slurm: \"Torus3d region overlaps existing nodes\", fatal)", r.Line, from[pos], x, y, z)
			}
			from[pos] = r.Line
			tor.Nodes[pos] = n
		}
	}
	for _, n := range tor.Nodes {
		if n == "" {
			tor.Empty++
		}
	}
	return nil
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
	"topology":     {"topology", "cluster_default", "tree", "block", "torus3d", "ring", "flat"},
	"ring":         {"rings"},
	"ring entry":   {"ring", "nodes"},
	"tree":         {"switches"},
	"switch":       {"switch", "children", "nodes"},
	"block":        {"block_sizes", "blocks"},
	"block entry":  {"block", "nodes"},
	"torus3d":      {"toruses", "name", "dims", "nodes", "regions", "placements"},
	"torus":        {"name", "dims", "nodes", "regions", "placements"},
	"torus3d dims": {"x", "y", "z"},
	"region":       {"anchor", "dims", "nodes"},
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
// one of tree, block, torus3d, ring and flat, and its block_sizes.
func checkTopologyYAML(t *yaml.Node) error {
	if err := checkKeys(t, "topology"); err != nil {
		return err
	}
	var kinds []string
	for _, k := range []string{"tree", "block", "torus3d", "ring", "flat"} {
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
		return entries(b, "blocks", "block entry")
	}
	if r := yamlChild(t, "ring"); r != nil {
		if err := checkKeys(r, "ring"); err != nil {
			return err
		}
		if one := yamlChild(r, "rings"); one != nil && one.Kind == yaml.MappingNode {
			return checkKeys(one, "ring entry")
		}
		return entries(r, "rings", "ring entry")
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
			if rg := yamlChild(e, "regions"); rg != nil {
				regions := []*yaml.Node{rg}
				if rg.Kind == yaml.SequenceNode {
					regions = rg.Content
				}
				for _, r := range regions {
					if err := checkKeys(r, "region"); err != nil {
						return err
					}
					for _, k := range []string{"anchor", "dims"} {
						if d := yamlChild(r, k); d != nil {
							if err := checkKeys(d, "torus3d dims"); err != nil {
								return err
							}
						}
					}
				}
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

func yamlHostlist(budget *nameBudget, m *yaml.Node, key string) ([]string, error) {
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
			// A list or mapping inside the list has no Value: it would drop
			// its names without a word.
			if e.Kind != yaml.ScalarNode {
				return nil, fmt.Errorf("line %d: %s: an item of the list is not a hostlist (a nested list or mapping)", e.Line, key)
			}
			parts = append(parts, e.Value)
		}
	default:
		return nil, fmt.Errorf("line %d: %s: want a hostlist", c.Line, key)
	}
	out, err := budget.expand(strings.Join(parts, ","))
	if err != nil {
		return nil, fmt.Errorf("line %d: %s: %w", c.Line, key, err)
	}
	return out, nil
}

// MaxWarnings is the most warnings a topology.conf or topology.yaml lists one by
// one: a generated file with the same slip on every line (Nodes+= on 200,000
// switches) made a 29 MB stderr. The rest are counted in one last warning.
const MaxWarnings = 20

// warnCap collects a parse's warnings, the first MaxWarnings in full.
type warnCap struct {
	list *[]string
	more int
}

func (w *warnCap) add(s string) {
	if len(*w.list) < MaxWarnings {
		*w.list = append(*w.list, s)
		return
	}
	w.more++
}

// done appends the count of the warnings not listed.
func (w *warnCap) done() {
	if w.more > 0 {
		*w.list = append(*w.list, fmt.Sprintf("%d more warnings not listed (the first %d are)", w.more, MaxWarnings))
	}
}

// RenameTopologyYAMLNodes rewrites a topology.yaml with its node names changed,
// every other byte kept (comments, layout, switch, block and ring names): each
// hostlist of nodes (a tree switch's nodes, a block's, a ring's, a torus's and
// its regions') is replaced by rename(list, ordered), written double-quoted in
// place of the original scalar (an item of a YAML list item by item). ordered
// says whether the list's order is a position order Slurm reads (a ring's, a
// torus's, a region's: keep it) or a set (a switch's, a block's: any order).
// The file is first read as ParseTopologyYAMLAll reads it (its errors); a
// hostlist written over several lines, or with escapes, cannot be replaced in
// place and is an error naming its line.
func RenameTopologyYAMLNodes(ctx context.Context, data []byte, rename func(list string, ordered bool) (string, error)) ([]byte, error) {
	if _, err := ParseTopologyYAMLAll(ctx, bytes.NewReader(data)); err != nil {
		return nil, err
	}
	doc, err := readTopologyYAMLDoc(ctx, bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	type edit struct {
		at, end int
		text    string
	}
	var edits []edit
	seen := map[[2]int]bool{}
	lineStart := []int{0}
	for i, c := range data {
		if c == '\n' {
			lineStart = append(lineStart, i+1)
		}
	}
	scalar := func(s *yaml.Node, ordered bool) error {
		if seen[[2]int{s.Line, s.Column}] {
			return nil // an alias's target, done
		}
		seen[[2]int{s.Line, s.Column}] = true
		if s.Line < 1 || s.Line > len(lineStart) {
			return fmt.Errorf("line %d: internal error: no such line", s.Line)
		}
		at := lineStart[s.Line-1]
		for col := 1; col < s.Column && at < len(data) && data[at] != '\n'; col++ {
			_, size := utf8.DecodeRune(data[at:])
			at += size
		}
		rest := data[at:]
		if s.Anchor != "" && bytes.HasPrefix(rest, []byte("&"+s.Anchor)) {
			skip := len(s.Anchor) + 1
			for skip < len(rest) && (rest[skip] == ' ' || rest[skip] == '\t') {
				skip++
			}
			at += skip
			rest = data[at:]
		}
		var token string
		switch s.Style {
		case 0:
			token = s.Value
		case yaml.DoubleQuotedStyle:
			token = `"` + s.Value + `"`
		case yaml.SingleQuotedStyle:
			token = `'` + s.Value + `'`
		}
		if token == "" || !bytes.HasPrefix(rest, []byte(token)) || strings.ContainsAny(s.Value, "\n\\\"'") {
			return fmt.Errorf("line %d: the node list %q cannot be renamed in place (write it as a hostlist on one line, plain or quoted)", s.Line, textin.Clip(s.Value))
		}
		out, err := rename(s.Value, ordered)
		if err != nil {
			return fmt.Errorf("line %d: %w", s.Line, err)
		}
		edits = append(edits, edit{at, at + len(token), `"` + out + `"`})
		return nil
	}
	nodesOf := func(m *yaml.Node, ordered bool) error {
		c := yamlChild(m, "nodes")
		if c == nil {
			return nil
		}
		if c.Kind == yaml.ScalarNode {
			return scalar(c, ordered)
		}
		for _, e := range c.Content {
			if err := scalar(e, ordered); err != nil {
				return err
			}
		}
		return nil
	}
	items := func(n *yaml.Node) []*yaml.Node {
		switch {
		case n == nil:
			return nil
		case n.Kind == yaml.SequenceNode:
			return n.Content
		}
		return []*yaml.Node{n}
	}
	for _, e := range doc.entries {
		t := e.node
		var err error
		for _, s := range items(yamlChild(yamlChild(t, "tree"), "switches")) {
			err = errors.Join(err, nodesOf(s, false))
		}
		for _, b := range items(yamlChild(yamlChild(t, "block"), "blocks")) {
			err = errors.Join(err, nodesOf(b, false))
		}
		for _, r := range items(yamlChild(yamlChild(t, "ring"), "rings")) {
			err = errors.Join(err, nodesOf(r, true))
		}
		if tor := yamlChild(t, "torus3d"); tor != nil {
			if tl := yamlChild(tor, "toruses"); tl != nil {
				tor = tl
			}
			for _, one := range items(tor) {
				err = errors.Join(err, nodesOf(one, true))
				for _, r := range items(yamlChild(one, "regions")) {
					err = errors.Join(err, nodesOf(r, true))
				}
			}
		}
		if err != nil {
			return nil, err
		}
	}
	slices.SortFunc(edits, func(a, b edit) int { return a.at - b.at })
	var out bytes.Buffer
	prev := 0
	for _, e := range edits {
		out.Write(data[prev:e.at])
		out.WriteString(e.text)
		prev = e.end
	}
	out.Write(data[prev:])
	return out.Bytes(), nil
}
