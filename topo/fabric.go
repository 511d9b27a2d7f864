package topo

import (
	"context"
	"fmt"
	"slices"
)

// Fabric collects the hosts, switches and links of a switched network by name (the
// readers of ibnetdiscover output and Slurm topology files, the synthetic fat trees
// and dragonflies) and builds its Graph: hosts first, in the order they were added,
// then switches in the order they were added.
type Fabric struct {
	names []string
	isSw  []bool
	index map[string]int
	links []uint64 // linkKey of fabric indices; repeats are dropped by Graph
}

// NewFabric returns an empty fabric.
func NewFabric() *Fabric {
	return &Fabric{index: map[string]int{}}
}

// Grow makes room for vertices more vertices and links more links, so that a
// reader that knows its sizes (a Slurm topology's switches and nodes) adds them
// without the growth of the fabric's tables (a 131,072-host fat tree's network cost
// 100 MB allocated, then 60; docs/reliability.md, wt-readmem).
func (f *Fabric) Grow(vertices, links int) {
	f.names = slices.Grow(f.names, vertices)
	f.isSw = slices.Grow(f.isSw, vertices)
	f.links = slices.Grow(f.links, links)
	if len(f.index) == 0 && vertices > 0 {
		f.index = make(map[string]int, vertices)
	}
}

// linkKey packs a link's two ends, smaller first, so that sorting puts repeats side
// by side.
func linkKey(a, b int) uint64 { return uint64(min(a, b))<<32 | uint64(max(a, b)) }

// AddHost adds a host (a node that gets ranks); a name already added is an error.
func (f *Fabric) AddHost(name string) error { return f.add(name, false) }

// AddSwitch adds a switch (a routing vertex); a name already added is an error.
func (f *Fabric) AddSwitch(name string) error { return f.add(name, true) }

func (f *Fabric) add(name string, sw bool) error {
	if name == "" {
		return fmt.Errorf("empty name")
	}
	if i, dup := f.index[name]; dup {
		what := "host"
		if f.isSw[i] {
			what = "switch"
		}
		return fmt.Errorf("%q is already a %s", name, what)
	}
	f.index[name] = len(f.names)
	f.names = append(f.names, name)
	f.isSw = append(f.isSw, sw)
	return nil
}

// Has reports whether name was added, and whether it is a switch.
func (f *Fabric) Has(name string) (found, isSwitch bool) {
	i, ok := f.index[name]
	return ok, ok && f.isSw[i]
}

// Link joins two added vertices. A self loop is an error; a link given again (parallel
// cables) is kept once: hop distances and shortest routes do not change.
func (f *Fabric) Link(a, b string) error {
	i, ok := f.index[a]
	if !ok {
		return fmt.Errorf("link to unknown %q", a)
	}
	j, ok := f.index[b]
	if !ok {
		return fmt.Errorf("link to unknown %q", b)
	}
	if i == j {
		return fmt.Errorf("self loop at %q", a)
	}
	f.links = append(f.links, linkKey(i, j))
	return nil
}

// Graph builds the network. Every host must have a link (a host cut off from the
// fabric cannot run a job with others); hosts are grouped under their switch (the
// switch of smallest index among a host's neighbours, in practice its only one), so
// that orderings can go switch by switch (Leung et al. 2002 §2.2).
func (f *Fabric) Graph() (*Graph, error) { return f.GraphContext(context.Background()) }

// GraphContext is Graph looking at ctx every few thousand hosts or links (a
// fabric of 10^5 hosts takes a tenth of a second or more); when ctx ends first it
// returns ctx's cause.
func (f *Fabric) GraphContext(ctx context.Context) (*Graph, error) {
	hosts, sws := make([]int, 0, len(f.isSw)), []int(nil)
	for i, sw := range f.isSw {
		if sw {
			sws = append(sws, i)
		} else {
			hosts = append(hosts, i)
		}
	}
	if len(hosts) == 0 {
		return nil, fmt.Errorf("the network has no hosts")
	}
	if len(f.names) > maxVertices {
		return nil, fmt.Errorf("%d vertices is too many (at most %d)", len(f.names), maxVertices)
	}
	pos := make([]int, len(f.names)) // fabric index -> vertex
	names := make([]string, 0, len(f.names))
	for _, i := range append(hosts, sws...) {
		pos[i] = len(names)
		names = append(names, f.names[i])
	}
	links := make([]uint64, len(f.links))
	for k, l := range f.links {
		links[k] = linkKey(pos[l>>32], pos[l&(1<<32-1)])
	}
	return switchedGraph(ctx, names, len(hosts), links)
}

// maxVertices bounds the vertices of a graph (indices must fit the hop index's
// 32-bit and packed link keys).
const maxVertices = 1 << 24

// switchedGraph builds the graph of names (hosts 0..hosts-1, then switches) and links
// (linkKey of vertex indices; repeats count once, links is reordered), and groups the
// hosts under their leaf switch. A host without a link is an error.
func switchedGraph(ctx context.Context, names []string, hosts int, links []uint64) (*Graph, error) {
	if ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	slices.Sort(links) // 20-30 ms for 4 x 10^5 links
	links = slices.Compact(links)
	if ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	g := newGraph(names)
	g.hosts = hosts
	deg := make([]int32, len(names))
	for _, l := range links {
		deg[l>>32]++
		deg[l&(1<<32-1)]++
	}
	// One backing array for all adjacency lists: no per-vertex growth.
	flat := make([]int, 2*len(links))
	at := 0
	for v, d := range deg {
		g.adj[v] = flat[at : at : at+int(d)]
		at += int(d)
	}
	for i, l := range links {
		if err := stopped(ctx, i); err != nil {
			return nil, err
		}
		g.addEdge(int(l>>32), int(l&(1<<32-1)))
	}
	under := map[int]int{} // switch vertex -> group index
	for v := range g.hosts {
		if err := stopped(ctx, v); err != nil {
			return nil, err
		}
		if len(g.adj[v]) == 0 {
			return nil, fmt.Errorf("host %q has no link", g.names[v])
		}
		leaf := g.LeafSwitch(v)
		if leaf < 0 {
			continue
		}
		gi, ok := under[leaf]
		if !ok {
			gi = len(g.groups)
			under[leaf] = gi
			g.groups = append(g.groups, Group{Name: g.names[leaf]})
		}
		g.groups[gi].Nodes = append(g.groups[gi].Nodes, v)
	}
	// Groups in switch order, so that "switch by switch" follows the file.
	leafOf := make(map[string]int, len(under))
	for sw, gi := range under {
		leafOf[g.groups[gi].Name] = sw
	}
	slices.SortStableFunc(g.groups, func(a, b Group) int { return leafOf[a.Name] - leafOf[b.Name] })
	return g, nil
}

// LeafSwitch returns the switch vertex host v's group is named after (its switch of
// smallest index), or -1 when v hangs on no switch.
func (g *Graph) LeafSwitch(v int) int {
	leaf := -1
	for _, w := range g.adj[v] {
		if w >= g.hosts && (leaf < 0 || w < leaf) {
			leaf = w
		}
	}
	return leaf
}
