package topo

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/procalloc/procalloc/internal/textin"
)

// Graph is an irregular network: vertices with names, undirected unit-length links,
// and optional groups (processors under a switch). Vertices 0..N-1 are the hosts, the
// nodes that get ranks and jobs; vertices N..Vertices()-1, when there are any, are
// switches: they route messages and count in hop distances but are never allocated
// (an InfiniBand fabric, a Slurm tree topology, a fat tree or a dragonfly). Hop
// distances come from a hop index built on first use (see Dist): exact, safe for
// concurrent use, and near O(Vertices) in memory on fabrics of 200,000 hosts.
type Graph struct {
	names  []string
	adj    [][]int
	groups []Group
	hosts  int          // vertices 0..hosts-1 are hosts, the rest switches
	edges  int          // links
	spec   string       // Spec() when set (synthetic machines)
	layout *synthLayout // the structure FatTree or Dragonfly built (structdist.go), else nil

	// Built on first use: the name index (Lookup) and the hop index (Dist, or
	// BuildHopIndex, whose build a context may stop: hopMu, not a sync.Once).
	indexOnce sync.Once
	index     map[string]int
	hopMu     sync.Mutex
	hop       atomic.Pointer[hopIndex]
	// Recognised on first use (Dragonfly, structure.go).
	dragonflyOnce   sync.Once
	dragonfly       DragonflyShape
	isDragonfly     bool
	dragonflyReason string
	dfNum           dragonflyNumbering
	treeOnce        sync.Once
	tree            *TreeLevels
	treeReason      string
	// The layout of a dragonfly recognised from its links (a file's), for the
	// closed-form distances (structdist.go), built on first use.
	recLayoutOnce sync.Once
	recLayout     *synthLayout
}

// Group is a named set of nodes, such as the processors under one switch.
type Group struct {
	Name  string // a declared group's name, or the leaf switch's the hosts hang under
	Nodes []int  // node indices
}

type edge struct {
	a, b string
	line int
}

type groupDecl struct {
	name  string
	nodes []string
	line  int
}

// ReadGraph reads an edge list: one link "U V" (two node names) per line, '#' starting
// a comment. Names that are all non-negative integers are node indices 0..max;
// otherwise nodes are numbered in order of first appearance. "%node NAME" declares a
// node (fixing its index), "%group NAME: A B C" puts processors A, B, C under switch
// NAME, "%switch NAME" makes NAME a switch vertex, which routes but gets no rank (names
// are then names, not indices; hosts are grouped under their switch unless %group
// lines say otherwise). Self loops, repeated links and repeated directives are errors
// naming the line. A gzip or bzip2 file is decompressed as it is read
// (textin.Decompress).
func ReadGraph(r io.Reader) (*Graph, error) {
	return readGraph(context.Background(), textin.Decompress(r))
}

// readGraph is ReadGraph looking at ctx while it builds the network (the lines
// stop on their own when r is a textin.ContextReader); ctx's cause when it ends.
func readGraph(ctx context.Context, r io.Reader) (*Graph, error) {
	var (
		order    []string
		seen     = map[string]bool{}
		declared = map[string]int{} // %node NAME -> line
		grouped  = map[string]int{} // %group NAME -> line
		switches = map[string]int{} // %switch NAME -> line
		swOrder  []string
		edges    []edge
		groups   []groupDecl
	)
	note := func(name string) {
		if !seen[name] {
			seen[name] = true
			order = append(order, name)
		}
	}
	lines := textin.NewLines(r)
	for lines.Next() {
		line, text, f := lines.Line(), lines.Text(), lines.Fields()
		switch {
		case f[0] == "%node":
			if len(f) != 2 {
				return nil, fmt.Errorf("line %d: %%node takes one name, got %d", line, len(f)-1)
			}
			if first, dup := declared[f[1]]; dup {
				return nil, fmt.Errorf("line %d: %%node %s declared again (first on line %d)", line, f[1], first)
			}
			declared[f[1]] = line
			note(f[1])
		case f[0] == "%switch":
			if len(f) != 2 {
				return nil, fmt.Errorf("line %d: %%switch takes one name, got %d", line, len(f)-1)
			}
			if first, dup := switches[f[1]]; dup {
				return nil, fmt.Errorf("line %d: switch %s listed twice (first on line %d)", line, f[1], first)
			}
			switches[f[1]] = line
			swOrder = append(swOrder, f[1])
			note(f[1])
		case f[0] == "%group":
			rest := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(text), "%group"))
			name, members, ok := strings.Cut(rest, ":")
			name = strings.TrimSpace(name)
			if !ok || name == "" || len(strings.Fields(name)) != 1 {
				return nil, fmt.Errorf("line %d: want %%group NAME: NODE NODE (one or more nodes)", line)
			}
			ms := strings.Fields(members)
			if len(ms) == 0 {
				return nil, fmt.Errorf("line %d: group %q has no nodes", line, name)
			}
			if first, dup := grouped[name]; dup {
				return nil, fmt.Errorf("line %d: %%group %s declared again (first on line %d)", line, name, first)
			}
			grouped[name] = line
			groups = append(groups, groupDecl{name, ms, line})
		case strings.HasPrefix(f[0], "%"):
			return nil, fmt.Errorf("line %d: unknown directive %q (want %%node, %%group or %%switch)", line, f[0])
		default:
			if len(f) != 2 {
				return nil, fmt.Errorf("line %d: want two node names \"U V\", got %d fields", line, len(f))
			}
			if f[0] == f[1] {
				return nil, fmt.Errorf("line %d: self loop at node %q", line, f[0])
			}
			note(f[0])
			note(f[1])
			edges = append(edges, edge{f[0], f[1], line})
		}
	}
	if err := lines.Err(); err != nil {
		return nil, err
	}
	if len(order) == 0 {
		return nil, fmt.Errorf("no nodes in graph")
	}
	if len(switches) > 0 {
		return edgeListFabric(ctx, order, switches, swOrder, edges, groups)
	}
	// All-integer names are indices 0..max.
	numeric := true
	maxID := -1
	for _, name := range order {
		v, err := strconv.Atoi(name)
		if err != nil || v < 0 || strconv.Itoa(v) != name {
			numeric = false
			break
		}
		maxID = max(maxID, v)
	}
	var names []string
	if numeric {
		if maxID >= 1<<24 {
			return nil, fmt.Errorf("node index %d is too large (at most %d nodes)", maxID, 1<<24)
		}
		if maxID+1 != len(order) {
			// Indices name nodes 0..max: a gap would be a node that no line mentions,
			// cut off from the rest (a typo such as "0 16777215" would make millions).
			for i := 0; i <= maxID; i++ {
				if !seen[strconv.Itoa(i)] {
					return nil, fmt.Errorf("node indices go up to %d but node %d appears on no line; number nodes 0..N-1 (declare a node without links with %%node %d)", maxID, i, i)
				}
			}
		}
		names = make([]string, maxID+1)
		for i := range names {
			names[i] = strconv.Itoa(i)
		}
	} else {
		names = order
	}
	g := newGraph(names)
	index := g.nameIndex()
	linked := linkSet{}
	for i, e := range edges {
		if err := stopped(ctx, i); err != nil {
			return nil, err
		}
		a, b := index[e.a], index[e.b]
		if !linked.add(a, b) {
			return nil, fmt.Errorf("line %d: link %s-%s given twice", e.line, e.a, e.b)
		}
		g.addEdge(a, b)
	}
	if err := g.setGroups(groups); err != nil {
		return nil, err
	}
	return g, nil
}

// setGroups replaces g's groups by the declared ones; a name that is no host, or a
// host in two groups, is an error naming the line.
func (g *Graph) setGroups(groups []groupDecl) error {
	g.groups = nil
	inGroup := map[int]string{}
	index := g.nameIndex()
	for _, gd := range groups {
		grp := Group{Name: gd.name}
		for _, m := range gd.nodes {
			i, ok := index[m]
			switch {
			case !ok:
				return fmt.Errorf("line %d: group %q names unknown node %q", gd.line, gd.name, m)
			case g.IsSwitch(i):
				return fmt.Errorf("line %d: group %q names switch %q; groups hold hosts", gd.line, gd.name, m)
			}
			if other, dup := inGroup[i]; dup {
				return fmt.Errorf("line %d: node %q is already in group %q", gd.line, m, other)
			}
			inGroup[i] = gd.name
			grp.Nodes = append(grp.Nodes, i)
		}
		g.groups = append(g.groups, grp)
	}
	return nil
}

func newGraph(names []string) *Graph {
	return &Graph{names: names, adj: make([][]int, len(names)), hosts: len(names)}
}

// addEdge links a and b; the caller makes sure the link is new.
func (g *Graph) addEdge(a, b int) {
	g.adj[a] = append(g.adj[a], b)
	g.adj[b] = append(g.adj[b], a)
	g.edges++
}

// nameIndex returns the map from vertex name to index, built on first use.
func (g *Graph) nameIndex() map[string]int {
	g.indexOnce.Do(func() {
		g.index = make(map[string]int, len(g.names))
		for i, n := range g.names {
			g.index[n] = i
		}
	})
	return g.index
}

// linkSet remembers links by their two ends, to refuse a link given twice.
type linkSet map[uint64]struct{}

// add records the link a-b and reports whether it is new.
func (s linkSet) add(a, b int) bool {
	key := uint64(min(a, b))<<32 | uint64(max(a, b))
	if _, dup := s[key]; dup {
		return false
	}
	s[key] = struct{}{}
	return true
}

// NewGraphFromEdges builds a graph on nodes 0..n-1 (named by their index) from edges;
// self loops, repeated edges and out-of-range nodes are errors.
func NewGraphFromEdges(n int, edges [][2]int) (*Graph, error) {
	if n < 1 {
		return nil, fmt.Errorf("topo: a graph needs at least one node")
	}
	names := make([]string, n)
	for i := range names {
		names[i] = strconv.Itoa(i)
	}
	g := newGraph(names)
	linked := linkSet{}
	for k, e := range edges {
		a, b := e[0], e[1]
		switch {
		case a < 0 || a >= n || b < 0 || b >= n:
			return nil, fmt.Errorf("topo: edge %d (%d,%d) leaves nodes 0..%d", k, a, b, n-1)
		case a == b:
			return nil, fmt.Errorf("topo: edge %d is a self loop at %d", k, a)
		case !linked.add(a, b):
			return nil, fmt.Errorf("topo: edge %d (%d,%d) given twice", k, a, b)
		}
		g.addEdge(a, b)
	}
	return g, nil
}

// GraphOf returns the graph of a machine's links (for grids: one link per neighbour pair).
func GraphOf(m Machine) *Graph {
	if g, ok := m.(*Graph); ok {
		return g
	}
	names := make([]string, m.N())
	for i := range names {
		names[i] = strconv.Itoa(i)
	}
	g := newGraph(names)
	var nb []int
	for a := 0; a < m.N(); a++ {
		nb = m.Neighbors(a, nb[:0])
		for i, b := range nb {
			// Neighbors come ascending: a repeat (a ring of two) is the previous one.
			if a < b && (i == 0 || nb[i-1] != b) {
				g.addEdge(a, b)
			}
		}
	}
	return g
}

// N returns the number of hosts (the nodes that get ranks); switches are not counted.
func (g *Graph) N() int { return g.hosts }

// Vertices returns the number of vertices: hosts, then switches.
func (g *Graph) Vertices() int { return len(g.names) }

// IsSwitch reports whether vertex v is a switch (a routing vertex, never allocated).
func (g *Graph) IsSwitch(v int) bool { return v >= g.hosts }

// Name returns vertex i's name (a host's for i < N()).
func (g *Graph) Name(i int) string { return g.names[i] }

// Lookup returns the index of the vertex with the given name (a host when < N()).
func (g *Graph) Lookup(name string) (int, bool) {
	i, ok := g.nameIndex()[name]
	return i, ok
}

// Groups returns the declared groups (switches), possibly none.
func (g *Graph) Groups() []Group { return g.groups }

// Edges returns the number of links.
func (g *Graph) Edges() int { return g.edges }

// Neighbors appends the vertices one hop from a, ascending; on a graph with switches
// they include switch vertices (>= N()): see Vertices.
func (g *Graph) Neighbors(a int, dst []int) []int {
	start := len(dst)
	dst = append(dst, g.adj[a]...)
	slices.Sort(dst[start:])
	return dst
}

// Spec names the graph: the synthetic machine's spec, or its size.
func (g *Graph) Spec() string {
	switch {
	case g.spec != "":
		return g.spec
	case g.hosts < len(g.names):
		return fmt.Sprintf("graph:%dhosts,%dswitches,%dlinks", g.hosts, len(g.names)-g.hosts, g.Edges())
	}
	return fmt.Sprintf("graph:%dnodes,%dlinks", g.N(), g.Edges())
}

// DistRow returns the hop distances from src to every vertex (-1 where unreachable),
// hosts then switches, by one breadth-first search: a new row on every call, which the
// caller owns. Nothing is cached: a caller after distances between pairs uses Dist,
// and one that walks all N rows pays N searches but never holds N rows.
func (g *Graph) DistRow(src int) []int32 {
	row := make([]int32, len(g.names))
	for i := range row {
		row[i] = -1
	}
	row[src] = 0
	queue := make([]int32, 1, len(g.names))
	queue[0] = int32(src)
	for head := 0; head < len(queue); head++ {
		a := queue[head]
		for _, b := range g.adj[a] {
			if row[b] < 0 {
				row[b] = row[a] + 1
				queue = append(queue, int32(b))
			}
		}
	}
	return row
}

// Connected reports whether every host can reach every other (CheckConnected).
func (g *Graph) Connected() bool { return g.CheckConnected() == nil }

// CheckConnected returns an error naming an unreachable host when some two hosts of
// g have no path between them: their hop distance, and any job's pairwise sum or
// route across them, is undefined. A switch no host reaches (a spare in a fabric
// dump) is no error: it carries no route between hosts.
func (g *Graph) CheckConnected() error {
	for i, d := range g.DistRow(0)[:g.hosts] {
		if d < 0 {
			return fmt.Errorf("graph is disconnected: node %q cannot be reached from node %q", g.names[i], g.names[0])
		}
	}
	return nil
}

// edgeListFabric builds an edge list with %switch lines: hosts in order of first
// appearance, then the switches in the order of their lines.
func edgeListFabric(ctx context.Context, order []string, switches map[string]int, swOrder []string, edges []edge, groups []groupDecl) (*Graph, error) {
	f := NewFabric()
	for _, n := range order {
		if _, sw := switches[n]; !sw {
			f.AddHost(n)
		}
	}
	for _, n := range swOrder {
		f.AddSwitch(n)
	}
	seen := map[[2]string]int{}
	for i, e := range edges {
		if err := stopped(ctx, i); err != nil {
			return nil, err
		}
		key := [2]string{min(e.a, e.b), max(e.a, e.b)}
		if first, dup := seen[key]; dup {
			return nil, fmt.Errorf("line %d: link %s-%s given twice (first on line %d)", e.line, e.a, e.b, first)
		}
		seen[key] = e.line
		if err := f.Link(e.a, e.b); err != nil {
			return nil, fmt.Errorf("line %d: %w", e.line, err)
		}
	}
	g, err := f.GraphContext(ctx)
	if err != nil {
		return nil, err
	}
	if len(groups) > 0 {
		if err := g.setGroups(groups); err != nil {
			return nil, err
		}
	}
	return g, nil
}

// HostSpacing returns the shortest hop distance between two distinct hosts (1 when
// two hosts share a link, 2 when they share a switch), -1 when no two hosts are
// connected. One breadth-first search from all hosts at once: every vertex takes the
// nearest host's label, and the closest pair is the cheapest link between two labels
// (dist(u) + 1 + dist(w)).
func (g *Graph) HostSpacing() int {
	nv := len(g.names)
	dist := make([]int32, nv)
	label := make([]int32, nv)
	queue := make([]int32, 0, nv)
	for v := range nv {
		dist[v], label[v] = -1, -1
		if v < g.hosts {
			dist[v], label[v] = 0, int32(v)
			queue = append(queue, int32(v))
		}
	}
	for head := 0; head < len(queue); head++ {
		a := queue[head]
		for _, b := range g.adj[a] {
			if dist[b] < 0 {
				dist[b], label[b] = dist[a]+1, label[a]
				queue = append(queue, int32(b))
			}
		}
	}
	best := -1
	for a, nb := range g.adj {
		for _, b := range nb {
			if label[a] >= 0 && label[b] >= 0 && label[a] != label[b] {
				if d := int(dist[a] + 1 + dist[b]); best < 0 || d < best {
					best = d
				}
			}
		}
	}
	return best
}
