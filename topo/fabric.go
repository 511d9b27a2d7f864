package topo

import (
	"fmt"
	"slices"
)

// Fabric collects the hosts, switches and links of a switched network by name (the
// readers of ibnetdiscover output and Slurm topology files, the synthetic fat trees
// and dragonflies) and builds its Graph: hosts first, in the order they were added,
// then switches in the order they were added.
type Fabric struct {
	names  []string
	isSw   []bool
	index  map[string]int
	links  [][2]int
	linked map[[2]int]bool
}

// NewFabric returns an empty fabric.
func NewFabric() *Fabric {
	return &Fabric{index: map[string]int{}, linked: map[[2]int]bool{}}
}

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
	key := [2]int{min(i, j), max(i, j)}
	if !f.linked[key] {
		f.linked[key] = true
		f.links = append(f.links, key)
	}
	return nil
}

// Graph builds the network. Every host must have a link (a host cut off from the
// fabric cannot run a job with others); hosts are grouped under their switch (the
// switch of smallest index among a host's neighbours, in practice its only one), so
// that orderings can go switch by switch (Leung et al. 2002 §2.2).
func (f *Fabric) Graph() (*Graph, error) {
	var hosts, sws []int
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
	if len(f.names) > 1<<24 {
		return nil, fmt.Errorf("%d vertices is too many (at most %d)", len(f.names), 1<<24)
	}
	pos := make([]int, len(f.names)) // fabric index -> vertex
	names := make([]string, 0, len(f.names))
	for _, i := range slices.Concat(hosts, sws) {
		pos[i] = len(names)
		names = append(names, f.names[i])
	}
	g := newGraph(names)
	g.hosts = len(hosts)
	for _, l := range f.links {
		g.addEdge(pos[l[0]], pos[l[1]])
	}
	under := map[int]int{} // switch vertex -> group index
	for v := range g.hosts {
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
	slices.SortStableFunc(g.groups, func(a, b Group) int { return g.index[a.Name] - g.index[b.Name] })
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
