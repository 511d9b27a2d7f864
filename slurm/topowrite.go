package slurm

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/internal/sortedset"
	"github.com/procalloc/procalloc/internal/textin"
	"github.com/procalloc/procalloc/internal/timelimit"
	"github.com/procalloc/procalloc/topo"
	"github.com/procalloc/procalloc/topo/hostlist"
)

// Network formats that carry an ordering through a Slurm topology file rather than a
// ranking; they are written from the machine and an ordering (curve --format).
const (
	// FormatTopology: topology.conf for topology/tree with the leaf switches in the
	// order the ordering first reaches them and each leaf's nodes in ordering order;
	// with TopologyParam=SwitchAsNodeRank (Slurm 23.02 and later) Slurm ranks nodes
	// by leaf switch order.
	FormatTopology curves.Format = "slurm-topology"
	// FormatTorus3D: topology.yaml for topology/torus3d (Slurm 26.05 and later): the
	// torus's dimensions, its nodes in x-fastest coordinate order and the placements
	// (job shapes) Slurm may start.
	FormatTorus3D curves.Format = "slurm-torus3d"
	// FormatBlock: topology.conf for topology/block: BlockName lines cutting the
	// ordering into consecutive blocks, and BlockSizes.
	FormatBlock curves.Format = "slurm-block"
)

// networkFormats backs NetworkFormats; only this package changes it.
var networkFormats = []curves.Format{FormatTopology, FormatTorus3D, FormatBlock}

// NetworkFormats returns the formats above.
// Each call returns a new slice: changing it changes nothing in the package.
func NetworkFormats() []curves.Format { return slices.Clone(networkFormats) }

// WriteTopology writes a tree topology.conf of machine m whose leaf switches follow
// ordering o, and returns warnings about what Slurm will not obey. hosts names the
// nodes (nil: the machine's names, node indices on grids). The file is built as a
// Topology (Tree) and checked by the rules of ParseTopologyConf before it is written,
// so that slurm:tree and Slurm accept what it writes. Every machine gets one tree:
//
//   - A switched network (ibnetdiscover, topology.conf, fattree:): the switches with
//     hosts are the leaves, written first in the order o first reaches a host of each,
//     their nodes in o's order (a hostlist keeping that order); then the upper
//     switches (topo.UpperSwitches) with their children one level down. Links between
//     switches of one level cannot be said in a tree file; they are counted in a
//     comment.
//   - When those switches form several trees (a dragonfly's routers, which have hosts
//     and no switch above them), procalloc adds virtual switches so that Slurm can
//     place a job across them: one per dragonfly group (topo's Graph.Dragonfly: a
//     dragonfly: spec's groups, or those recognised from a file's links), named
//     procalloc-group<N>, and procalloc-root over the groups (a group of one router
//     goes under the root itself). Slurm then keeps a job inside one router, else
//     one group, else anywhere; a warning says so. When the links allow other groups
//     too (Graph.DragonflyGroupsCertain) a warning says the groups are not certain;
//     on a network that is no dragonfly the groups are guessed from links that close
//     triangles, and a warning says that. (Without the virtual switches each router
//     is a tree of its own and Slurm never places a job larger than one router.)
//   - A network without switches (mesh:, torus:, an edge list of hosts) gets a
//     virtual tree along the ordering: leaves procalloc-leaf<N> of 16 consecutive
//     nodes of o, switches procalloc-sw<L>-<N> over 4 consecutive switches of the
//     level below, up to one root; with a locality-preserving ordering (Hilbert) a
//     subtree is a compact part of the machine. A warning says so.
//
// The warnings (measured on Slurm 22.05.8 and 26.05.3, read in 26.11's source, docs
// in package slurm): Slurm keeps no node order inside a leaf (it takes a leaf's nodes
// in its node-index order: strnatcmp name order, or with SwitchAsNodeRank the order of
// slurm.conf's NodeName lines, because slurmctld sorts its node table by leaf rank
// with glibc's stable qsort; measured on 26.05.3 with the lines reversed), so a leaf
// whose nodes o visits in another order is named; an ordering that interleaves leaves
// comes out grouped by leaf; TopologyParam=SwitchAsNodeRank, which makes the leaf
// order the node rank, exists only from Slurm 23.02 (22.05 accepts and ignores it,
// and the leaf order then only breaks ties between equally good leaves).
func WriteTopology(w io.Writer, m topo.Machine, o curves.Order, hosts []string) (warnings []string, err error) {
	return WriteTopologyContext(context.Background(), w, m, o, hosts)
}

// WriteTopologyContext is WriteTopology looking at ctx every few thousand names
// (the switches' rules, the lines written: 0.4 s for a 131,072-host fat tree, more
// under load): a cancelled ctx returns its cause, and what was written to w is
// partial.
func WriteTopologyContext(ctx context.Context, w io.Writer, m topo.Machine, o curves.Order, hosts []string) (warnings []string, err error) {
	look := timelimit.NewLooker(ctx)
	if err := look.Stopped(0); err != nil {
		return nil, err
	}
	n := m.N()
	if err := o.Validate(n); err != nil {
		return nil, err
	}
	if hosts != nil && len(hosts) != n {
		return nil, fmt.Errorf("%d host names for %d nodes", len(hosts), n)
	}
	g, _ := m.(*topo.Graph)
	name := func(v int) string {
		if hosts == nil && g != nil {
			return g.Name(v)
		}
		return curves.HostName(hosts, v)
	}
	var recs []switchRec
	var leafHosts [][]int // hosts of each leaf record, in o's order
	lost := 0
	if g != nil && g.Vertices() > g.N() {
		leaves, lh := topo.LeafOrder(g, o)
		inTree := 0
		for _, hs := range lh {
			inTree += len(hs)
		}
		if inTree != n {
			return nil, fmt.Errorf("%d of %d hosts hang on no switch; topology.conf needs every node under a switch", n-inTree, n)
		}
		for i, leaf := range leaves {
			r := switchRec{name: g.Name(leaf), hasNodes: true}
			for _, v := range lh[i] {
				r.nodes = append(r.nodes, name(v))
			}
			recs = append(recs, r)
		}
		leafHosts = lh
		sws, children := topo.UpperSwitches(g)
		for i, sw := range sws {
			if len(children[i]) == 0 {
				continue
			}
			r := switchRec{name: g.Name(sw), hasChildren: true}
			for _, c := range children[i] {
				r.children = append(r.children, g.Name(c))
			}
			recs = append(recs, r)
		}
		lost = sameLevelLinks(g)
		t, err := newTree(recs, treeRules{}, func(string) {}, look)
		if err != nil && ctx.Err() != nil {
			return nil, err
		}
		if err != nil {
			return nil, fmt.Errorf("the switches of %s make no topology.conf Slurm accepts: %w", m.Spec(), err)
		}
		if tops := t.Tops(); len(tops) > 1 {
			var add []switchRec
			add, warnings = joinTops(g, t, tops)
			recs = append(recs, add...)
		}
	} else {
		recs, leafHosts = virtualTree(o, name)
		warnings = append(warnings, fmt.Sprintf("%s has no switches: the tree is virtual, along the ordering: leaves procalloc-leaf<N> of %d consecutive nodes, switches over %d consecutive switches of the level below, up to one root (Slurm keeps a job in the smallest such subtree that holds it)", m.Spec(), virtualLeaf, virtualFanout))
	}
	for i := range recs {
		recs[i].line = i + 1
	}
	t, err := newTree(recs, treeRules{}, func(string) {}, look)
	if err != nil && ctx.Err() != nil {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("procalloc would write a topology.conf Slurm refuses: %w", err)
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "# topology.conf (topology/tree) written by procalloc: leaf switches in ordering order.")
	fmt.Fprintln(bw, "# In slurm.conf: TopologyPlugin=topology/tree and TopologyParam=SwitchAsNodeRank,")
	fmt.Fprintln(bw, "# so that Slurm ranks nodes by the order of the leaf switches below (Slurm 23.02+;")
	fmt.Fprintln(bw, "# inside a leaf in the order of slurm.conf's NodeName lines, not the order written).")
	if err := t.writeConf(bw, look); err != nil {
		return nil, err
	}
	if lost > 0 {
		fmt.Fprintf(bw, "# %d links between switches of one level are not expressible in a tree and left out\n", lost)
	}
	if err := bw.Flush(); err != nil {
		return nil, err
	}
	var reordered []string
	for i, s := range t.Switches {
		if s.Level == 0 && !slices.IsSortedFunc(s.Nodes, hostlist.NaturalCompare) {
			reordered = append(reordered, t.Switches[i].Name)
		}
	}
	if len(reordered) > 0 {
		which := fmt.Sprintf("%d leaves (%s) list their nodes", len(reordered), textin.FirstFew(reordered, 5, ", "))
		if len(reordered) == 1 {
			which = fmt.Sprintf("1 leaf (%s) lists its nodes", reordered[0])
		}
		warnings = append(warnings, fmt.Sprintf("Slurm keeps no node order inside a leaf switch: it takes a leaf's nodes in its node name order (strnatcmp), not in the order written (with TopologyParam=SwitchAsNodeRank, Slurm 23.02+, in the order of slurm.conf's NodeName lines: list those in ordering order too); %s in another order", which))
	}
	if grouped := slices.Concat(leafHosts...); !slices.Equal(grouped, []int(o)) {
		warnings = append(warnings, "the ordering goes back and forth between leaf switches; a tree topology keeps each leaf's nodes together, so Slurm follows the ordering grouped by leaf")
	}
	warnings = append(warnings, "TopologyParam=SwitchAsNodeRank (node rank = leaf line order, then slurm.conf's NodeName line order inside a leaf) exists from Slurm 23.02; Slurm 22.05 accepts it and ignores it, and there the leaf order only breaks ties between equally good leaves; with node weights as well, the weights win")
	return warnings, nil
}

// RenameNodes returns a copy of t whose leaves hold their nodes renamed by rename,
// in Slurm's node name order (hostlist.NaturalCompare); the switches, their links
// and their order are t's.
func (t *Tree) RenameNodes(rename func(node string) string) *Tree {
	c := *t
	c.Switches = slices.Clone(t.Switches)
	for i, s := range c.Switches {
		if s.Level != 0 {
			continue
		}
		ns := make([]string, len(s.Nodes))
		for j, n := range s.Nodes {
			ns[j] = rename(n)
		}
		slices.SortFunc(ns, hostlist.NaturalCompare)
		c.Switches[i].Nodes = ns
	}
	return &c
}

// WriteConf writes the tree's SwitchName lines in its order: a leaf's Nodes= and an
// upper switch's Switches= as hostlists keeping the order of the names.
func (t *Tree) WriteConf(w io.Writer) error {
	return t.writeConf(w, &timelimit.Looker{Ctx: context.Background()})
}

// writeConf is WriteConf looking at look's context every few thousand names.
func (t *Tree) writeConf(w io.Writer, look *timelimit.Looker) error {
	for _, s := range t.Switches {
		if err := look.Stopped(1 + len(s.Nodes) + len(s.Children)); err != nil {
			return err
		}
		var names []string
		key := "Nodes"
		if s.Level == 0 {
			names = s.Nodes
		} else {
			key = "Switches"
			for _, c := range s.Children {
				names = append(names, t.Switches[c].Name)
			}
		}
		hl, err := hostlist.Compress(names)
		if err != nil {
			return err
		}
		if err := writeConfLine(w, ConfPair{Key: "SwitchName", Value: s.Name}, ConfPair{Key: key, Value: hl}); err != nil {
			return err
		}
	}
	return nil
}

// writeConfLine writes pairs as one line of a file in slurm.conf's syntax
// (topology.conf), escaped and quoted as Slurm reads them back (FormatPairs): a
// block of a node named "#0" (read from "Nodes=\#0") was written "Nodes=#0",
// which Slurm reads as a comment, a BlockName without nodes.
func writeConfLine(w io.Writer, pairs ...ConfPair) error {
	line, err := FormatPairs(pairs)
	if err != nil {
		return err
	}
	_, err = io.WriteString(w, line+"\n")
	return err
}

// The virtual tree of a network without switches (WriteTopology).
const (
	virtualLeaf   = 16
	virtualFanout = 4
)

// virtualTree returns the switches of the virtual tree along ordering o: leaves of
// virtualLeaf consecutive nodes, then levels of switches over virtualFanout
// consecutive switches of the level below, up to one root.
func virtualTree(o curves.Order, name func(int) string) (recs []switchRec, leafHosts [][]int) {
	var level []string
	for i := 0; i < len(o); i += virtualLeaf {
		r := switchRec{name: fmt.Sprintf("procalloc-leaf%d", len(level)+1), hasNodes: true}
		run := o[i:min(i+virtualLeaf, len(o))]
		for _, v := range run {
			r.nodes = append(r.nodes, name(v))
		}
		recs = append(recs, r)
		leafHosts = append(leafHosts, run)
		level = append(level, r.name)
	}
	for l := 1; len(level) > 1; l++ {
		var next []string
		for i := 0; i < len(level); i += virtualFanout {
			r := switchRec{name: fmt.Sprintf("procalloc-sw%d-%d", l, len(next)+1), hasChildren: true, children: level[i:min(i+virtualFanout, len(level))]}
			recs = append(recs, r)
			next = append(next, r.name)
		}
		level = next
	}
	return recs, leafHosts
}

// joinTops returns virtual switches joining the separate trees of t (tops, switch
// indices of t; t's switches are g's, by name): one per group of tops, and a root
// over the groups and the tops in no group (a group of one), with warnings saying so.
// On a dragonfly (g.Dragonfly: its spec's groups, or those recognised from its
// links) a group is a dragonfly group; when g's links allow other groups as well
// (g.DragonflyGroupsCertain) a warning says so and why. On other graphs the groups
// are guessed from links that close triangles (dragonflyGroupsGuessed), and a warning
// says that too.
func joinTops(g *topo.Graph, t *Tree, tops []int) ([]switchRec, []string) {
	vertex := map[string]int{}
	for v := g.N(); v < g.Vertices(); v++ {
		vertex[g.Name(v)] = v
	}
	tv := make([]int, len(tops)) // graph vertex of each top
	for p, i := range tops {
		tv[p] = vertex[t.Switches[i].Name]
	}
	var warnings []string
	var groupOf []int // per top, a group key
	kind := ""
	if sh, ok := g.Dragonfly(); ok {
		groupOf = make([]int, len(tops))
		for p, v := range tv {
			if r := g.DragonflyRouterIndex(v); r >= 0 {
				groupOf[p] = r / sh.RoutersPerGroup
			} else { // a dragonfly's switches are its routers; kept for safety
				groupOf = nil
				break
			}
		}
		kind = fmt.Sprintf("the routers of one dragonfly group; %d groups, %d routers each", sh.Groups, sh.RoutersPerGroup)
		if certain, why := g.DragonflyGroupsCertain(); groupOf != nil && !certain {
			warnings = append(warnings, fmt.Sprintf("the dragonfly groups of %s are not certain: %s; procalloc-group<N> hold the groups of %d routers procalloc's recognition took (the first split it finds: groups of consecutive switches first, then the largest groups), one reading of the links among others", g.Spec(), why, sh.RoutersPerGroup))
		}
	}
	if groupOf == nil {
		groupOf = dragonflyGroupsGuessed(g, tv)
		why := g.DragonflyReason()
		if why == "" {
			why = "its switches are not all routers"
		}
		kind = "leaf switches joined by links that close triangles"
		warnings = append(warnings, fmt.Sprintf("%s is no dragonfly procalloc recognises (%s), so its groups are not known: procalloc-group<N> are guessed, leaf switches joined by a link that closes more than half as many triangles as the most any link of either closes (a dragonfly group's all-to-all links; groups of fewer than four routers are not told apart)", g.Spec(), why))
	}
	// Groups in the order of their first top (the ordering's order of the leaves).
	slot := map[int]int{}
	var groups [][]int
	for p := range tops {
		k, ok := slot[groupOf[p]]
		if !ok {
			k = len(groups)
			slot[groupOf[p]] = k
			groups = append(groups, nil)
		}
		groups[k] = append(groups[k], p)
	}
	unique := func(base string) string {
		name := base
		for i := 2; ; i++ {
			if _, taken := vertex[name]; !taken {
				if _, taken := t.Index(name); !taken {
					return name
				}
			}
			name = fmt.Sprintf("%s-%d", base, i)
		}
	}
	var recs []switchRec
	root := switchRec{name: unique("procalloc-root"), hasChildren: true}
	nGroups := 0
	for _, gr := range groups {
		if len(gr) == 1 {
			root.children = append(root.children, t.Switches[tops[gr[0]]].Name)
			continue
		}
		nGroups++
		r := switchRec{name: unique(fmt.Sprintf("procalloc-group%d", nGroups)), hasChildren: true}
		for _, p := range gr {
			r.children = append(r.children, t.Switches[tops[p]].Name)
		}
		recs = append(recs, r)
		root.children = append(root.children, r.name)
	}
	if len(root.children) > 1 { // else the one group's switch is the root
		recs = append(recs, root)
	}
	w := fmt.Sprintf("the switches form %d separate trees (%s has no switch above its leaf switches); procalloc adds %d virtual group switches (procalloc-group<N>: %s; a group of one switch goes under the root itself) and procalloc-root above them, so that Slurm keeps a job inside one leaf switch, else one group, else places it anywhere; without them Slurm never places a job larger than one tree", len(tops), g.Spec(), nGroups, kind)
	return recs, append([]string{w}, warnings...)
}

// dragonflyGroupsGuessed returns a group key per switch vertex of tops (separate
// trees of a graph that is no dragonfly Dragonfly recognises): tops joined by a link
// in more than half as many triangles as the link of either end that closes the most
// share a group. In a dragonfly group of A routers a local link closes A-2 triangles,
// a global link about as many as there are global links between two groups, so
// groups of fewer than four routers are not told apart: a guess, which joinTops says.
func dragonflyGroupsGuessed(g *topo.Graph, tops []int) []int {
	isTop := map[int]int{} // graph vertex -> position in tops
	for p, v := range tops {
		isTop[v] = p
	}
	nb := func(v int) []int {
		out := slices.Clone(g.Neighbors(v, nil))
		slices.Sort(out)
		return out
	}
	parent := make([]int, len(tops))
	for i := range parent {
		parent[i] = i
	}
	find := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	type link struct{ a, b, tri int }
	var links []link
	maxTri := make([]int, len(tops))
	adj := map[int][]int{}
	for v := range isTop {
		adj[v] = nb(v)
	}
	for v, pv := range isTop {
		for _, w := range adj[v] {
			pw, ok := isTop[w]
			if !ok || w < v {
				continue
			}
			tri := sortedset.Common(adj[v], adj[w])
			links = append(links, link{pv, pw, tri})
			maxTri[pv] = max(maxTri[pv], tri)
			maxTri[pw] = max(maxTri[pw], tri)
		}
	}
	for _, l := range links {
		if l.tri > 0 && 2*l.tri > max(maxTri[l.a], maxTri[l.b]) {
			parent[find(l.a)] = find(l.b)
		}
	}
	out := make([]int, len(tops))
	for p := range out {
		out[p] = find(p)
	}
	return out
}

func sameLevelLinks(g *topo.Graph) int {
	lv := topo.SwitchLevels(g)
	n, count := g.N(), 0
	var nb []int
	for v := n; v < g.Vertices(); v++ {
		for _, w := range g.Neighbors(v, nb[:0]) {
			if w > v && lv[w-n] == lv[v-n] {
				count++
			}
		}
	}
	return count
}

// Box is the shape of a torus3d placement: X x Y x Z nodes.
type Box struct {
	X, Y, Z int // nodes along each axis
}

// Size is the number of nodes of b.
func (b Box) Size() int { return b.X * b.Y * b.Z }

// String returns "XxYxZ", e.g. "2x2x4".
func (b Box) String() string { return fmt.Sprintf("%dx%dx%d", b.X, b.Y, b.Z) }

// Anchors lists the node sets of placement b on a torus of dims in the order
// Slurm's torus3d plugin builds them (torus3d_record.c: anchor_seed 0 and
// anchor_spacing the placement's own dims, so x positions 0, X, 2X, ... modulo the
// torus until they come back to 0, likewise y and z; x outermost, z innermost;
// boxes wrap around). Nodes are numbered x fastest; each set is sorted. The
// anchor of index (i*len(o[1])+j)*len(o[2])+l, o = b.Origins(dims), is
// b.NodesAt(dims, [3]int{o[0][i], o[1][j], o[2][l]}).
func (b Box) Anchors(dims [3]int) [][]int {
	o := b.Origins(dims)
	var out [][]int
	for _, ax := range o[0] {
		for _, ay := range o[1] {
			for _, az := range o[2] {
				out = append(out, b.NodesAt(dims, [3]int{ax, ay, az}))
			}
		}
	}
	return out
}

// Origins returns, per axis, the anchors' origins of placement b on a torus of
// dims in Slurm's order: 0, side, 2*side, ... modulo the axis until they come back
// to 0 (the multiples of gcd(side, axis), dims[a]/gcd of them). Sides must be
// positive.
func (b Box) Origins(dims [3]int) [3][]int {
	axis := func(size, step int) []int {
		out := []int{0}
		for p := step % size; p != 0; p = (p + step) % size {
			out = append(out, p)
		}
		return out
	}
	return [3][]int{axis(dims[0], b.X), axis(dims[1], b.Y), axis(dims[2], b.Z)}
}

// NodesAt returns the nodes of placement b with its origin at coordinates origin
// on a torus of dims, sorted, each once: the box wraps around, and a side longer
// than its axis covers the axis once.
func (b Box) NodesAt(dims [3]int, origin [3]int) []int {
	d := dims
	nodes := make([]int, 0, b.Size())
	for dz := range b.Z {
		for dy := range b.Y {
			for dx := range b.X {
				x, y, z := (origin[0]+dx)%d[0], (origin[1]+dy)%d[1], (origin[2]+dz)%d[2]
				nodes = append(nodes, x+y*d[0]+z*d[0]*d[1])
			}
		}
	}
	slices.Sort(nodes)
	return slices.Compact(nodes)
}

// CompactBox returns the most compact box of k nodes that fits in a torus of dims
// (three sizes): the smallest sum of sides (surface), ties to the box longest in x,
// then y. ok is false when no box of k nodes fits.
func CompactBox(dims [3]int, k int) (b Box, ok bool) {
	best := 0
	for x := 1; x <= dims[0] && x <= k; x++ {
		if k%x != 0 {
			continue
		}
		for y := 1; y <= dims[1] && y <= k/x; y++ {
			if (k/x)%y != 0 {
				continue
			}
			z := k / x / y
			if z > dims[2] {
				continue
			}
			if s := x + y + z; !ok || s < best || s == best && (x > b.X || x == b.X && y > b.Y) {
				b, best, ok = Box{x, y, z}, s, true
			}
		}
	}
	return b, ok
}

// DefaultPlacements returns one placement per job size a torus of dims can hold as a
// box (every size whose CompactBox exists), smallest first: torus3d starts only jobs
// whose size matches a placement, so this lets every size that has a box run.
func DefaultPlacements(dims [3]int) []Box {
	var out []Box
	for k := 1; k <= dims[0]*dims[1]*dims[2]; k++ {
		if b, ok := CompactBox(dims, k); ok {
			out = append(out, b)
		}
	}
	return out
}

// ParsePlacements reads a --placements list: comma-separated job sizes (each becomes
// its CompactBox) or box shapes XxYxZ, for a torus of dims. A size with no box, a
// shape larger than the torus and a size given twice are errors naming the item.
func ParsePlacements(s string, dims [3]int) ([]Box, error) {
	var out []Box
	seen := map[int]string{}
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		var b Box
		if strings.Contains(item, "x") {
			// Sscanf skips spaces and newlines between the numbers and takes signs and
			// leading zeros; the shape must be written as String writes it, as a
			// size must ("2x2x1\n8" is not the shape 2x2x1).
			n, _ := fmt.Sscanf(item, "%dx%dx%d", &b.X, &b.Y, &b.Z)
			if n != 3 || b.String() != item || b.X < 1 || b.Y < 1 || b.Z < 1 {
				return nil, fmt.Errorf("placement %q: want a job size or a shape XxYxZ", item)
			}
			if b.X > dims[0] || b.Y > dims[1] || b.Z > dims[2] {
				return nil, fmt.Errorf("placement %s does not fit in the %dx%dx%d torus", b, dims[0], dims[1], dims[2])
			}
		} else {
			var k int
			if _, err := fmt.Sscanf(item, "%d", &k); err != nil || k < 1 || fmt.Sprint(k) != item {
				return nil, fmt.Errorf("placement %q: want a job size or a shape XxYxZ", item)
			}
			var ok bool
			if b, ok = CompactBox(dims, k); !ok {
				return nil, fmt.Errorf("placement %d: no box of %d nodes fits in the %dx%dx%d torus", k, k, dims[0], dims[1], dims[2])
			}
		}
		if prev, dup := seen[b.Size()]; dup {
			return nil, fmt.Errorf("placement %q: size %d already given by %q (Slurm would overlap them)", item, b.Size(), prev)
		}
		seen[b.Size()] = item
		out = append(out, b)
	}
	slices.SortStableFunc(out, func(a, b Box) int { return a.Size() - b.Size() })
	return out, nil
}

// TorusDims returns the three torus3d dimensions of grid g (missing dimensions are
// 1), or an error when g is not a torus of at most three dimensions.
func TorusDims(g *topo.Grid) ([3]int, error) {
	dims := g.Dims()
	if len(dims) > 3 {
		return [3]int{}, fmt.Errorf("torus3d describes at most three dimensions, not %d", len(dims))
	}
	for j, wr := range g.Wrap() {
		if !wr && dims[j] > 2 {
			return [3]int{}, fmt.Errorf("%s is not a torus (dimension %d has no wraparound); torus3d describes tori", g.Spec(), j)
		}
	}
	d := [3]int{1, 1, 1}
	copy(d[:], dims)
	return d, nil
}

// WriteTorus3D writes a topology.yaml with one torus3d topology for a torus of at
// most three dimensions, in the schema of Slurm 26.05's topology.yaml(5):
//
//	torus3d: {toruses: [{name, dims: {x, y, z}, nodes: HOSTLIST, placements: [{dims: {x, y, z}}, ...]}]}
//
// nodes in x-fastest coordinate order (node index order), as Slurm's
// torus3d_record.c maps them; hosts names the nodes (nil: node indices). Slurm starts
// only jobs whose size matches a placement: placements nil means DefaultPlacements.
// The ordering does not enter: torus3d places jobs by coordinates.
func WriteTorus3D(w io.Writer, g *topo.Grid, hosts []string, placements []Box) error {
	d, err := TorusDims(g)
	if err != nil {
		return err
	}
	if hosts != nil && len(hosts) != g.N() {
		return fmt.Errorf("%d host names for %d nodes", len(hosts), g.N())
	}
	if placements == nil {
		placements = DefaultPlacements(d)
	}
	for _, b := range placements {
		if b.X < 1 || b.Y < 1 || b.Z < 1 || b.X > d[0] || b.Y > d[1] || b.Z > d[2] {
			return fmt.Errorf("placement %s does not fit in the %dx%dx%d torus", b, d[0], d[1], d[2])
		}
	}
	names := make([]string, g.N())
	for i := range names {
		names[i] = curves.HostName(hosts, i)
	}
	hl, err := hostlist.Compress(names)
	if err != nil {
		return err
	}
	sizes := make([]string, len(placements))
	for i, b := range placements {
		sizes[i] = fmt.Sprint(b.Size())
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "# topology.yaml (topology/torus3d, Slurm 26.05 and later) written by procalloc;")
	fmt.Fprintln(bw, "# nodes in x-fastest order. Slurm starts only jobs of the placement sizes:")
	fmt.Fprintf(bw, "# %s nodes.\n", strings.Join(sizes, ", "))
	fmt.Fprintln(bw, "- topology: torus")
	fmt.Fprintln(bw, "  cluster_default: true")
	fmt.Fprintln(bw, "  torus3d:")
	fmt.Fprintln(bw, "    toruses:")
	fmt.Fprintln(bw, "      - name: torus")
	fmt.Fprintf(bw, "        dims: {x: %d, y: %d, z: %d}\n", d[0], d[1], d[2])
	fmt.Fprintf(bw, "        nodes: %q\n", hl)
	fmt.Fprintln(bw, "        placements:")
	for _, b := range placements {
		fmt.Fprintf(bw, "          - dims: {x: %d, y: %d, z: %d}\n", b.X, b.Y, b.Z)
	}
	return bw.Flush()
}
