package topo

import (
	"fmt"
	"slices"
)

// DragonflyShape is the structure of a dragonfly (Kim, Dally, Scott and Abts,
// "Technology-Driven, Highly-Scalable Dragonfly Topology", ISCA 2008): Groups groups
// of RoutersPerGroup routers, every two routers of a group joined, HostsPerRouter
// hosts on each router, and at least one global link between any two groups.
// Hosts are numbered router by router (host h on router h / HostsPerRouter) and
// routers group by group (router r, counted from the first switch vertex, in group
// r / RoutersPerGroup), as Dragonfly builds them.
type DragonflyShape struct {
	HostsPerRouter, RoutersPerGroup, Groups int
}

// Dragonfly returns the dragonfly structure of g when g has one, however g was made
// (a "dragonfly:" spec or a fabric file with the same numbering): the structure is
// recognised from the links alone, once, and every user of it (netsim's minimal
// routing, its route loads) asks here.
//
// A dragonfly built by Dragonfly has recorded its shape (synthLayout, which
// PairDistSum's closed form reads too): that record is returned as it is.
func (g *Graph) Dragonfly() (DragonflyShape, bool) {
	if l := g.layout; l != nil && l.span == nil && l.a > 0 {
		return DragonflyShape{HostsPerRouter: l.p, RoutersPerGroup: l.a, Groups: l.groups}, true
	}
	g.dragonflyOnce.Do(func() { g.dragonfly, g.isDragonfly = recogniseDragonfly(g) })
	return g.dragonfly, g.isDragonfly
}

// recogniseDragonfly finds the shape: the hosts per router from the first router's
// hosts, the routers per group among the lengths of the run of routers joined to
// the first router (a global link may lengthen the run), each checked in full.
func recogniseDragonfly(g *Graph) (DragonflyShape, bool) {
	n, nv := g.N(), g.Vertices()
	nr := nv - n
	if n < 1 || nr < 1 {
		return DragonflyShape{}, false
	}
	p := 0
	for h := 0; h < n && len(g.adj[h]) == 1 && g.adj[h][0] == n; h++ {
		p++
	}
	if p < 1 || n%p != 0 || n/p != nr {
		return DragonflyShape{}, false
	}
	// The routers n+1, n+2, ... joined to router n: the group is a prefix of them.
	joined := map[int]bool{}
	for _, w := range g.adj[n] {
		joined[w] = true
	}
	run := 1
	for joined[n+run] {
		run++
	}
	for a := run; a >= 1; a-- {
		if nr%a != 0 {
			continue
		}
		s := DragonflyShape{HostsPerRouter: p, RoutersPerGroup: a, Groups: nr / a}
		if s.fits(g) {
			return s, true
		}
	}
	return DragonflyShape{}, false
}

// fits checks that g has shape s: hosts on their routers only, every group's routers
// joined to each other, every other router link a global one, and every two groups
// linked.
func (s DragonflyShape) fits(g *Graph) bool {
	n, p, a, G := g.N(), s.HostsPerRouter, s.RoutersPerGroup, s.Groups
	for h := range n {
		if len(g.adj[h]) != 1 || g.adj[h][0] != n+h/p {
			return false
		}
	}
	linked := make([]bool, G*G)
	for r := range a * G {
		u := n + r
		grp := r / a
		hosts, local := 0, 0
		for _, w := range g.adj[u] {
			switch {
			case w < n:
				hosts++ // on u: checked above from the host's side
			case (w-n)/a == grp:
				local++
			default:
				linked[grp*G+(w-n)/a] = true
			}
		}
		if hosts != p || local != a-1 {
			return false
		}
	}
	for A := range G {
		for B := range G {
			if A != B && !linked[A*G+B] {
				return false
			}
		}
	}
	return true
}

// TreeLevels is the level structure of a tree-like fabric (a fat tree, a Slurm
// tree, an ibnetdiscover fat tree): level 0 holds the switches of the hosts, every
// host pendant on one; level l+1 the switches first met above level l; every link
// between switches joins adjacent levels and hosts hang below level 0 only.
type TreeLevels struct {
	// Level is each vertex's level (-1 for a host).
	Level []int32
	// ByLevel lists the switches of each level in ascending order.
	ByLevel [][]int32
}

// TreeLevels returns g's level structure, or ok false with the reason g has none.
// It is recognised once; every user (netsim's closed-form route loads of a fat
// tree) asks here.
func (g *Graph) TreeLevels() (levels *TreeLevels, reason string) {
	g.treeOnce.Do(func() { g.tree, g.treeReason = recogniseTreeLevels(g) })
	return g.tree, g.treeReason
}

func recogniseTreeLevels(g *Graph) (*TreeLevels, string) {
	n, nv := g.N(), g.Vertices()
	if n < 2 || nv == n {
		return nil, "fewer than 2 hosts or no switch"
	}
	level := make([]int32, nv)
	for v := range level {
		level[v] = -1
	}
	var front []int32
	for h := range n {
		nb := g.adj[h]
		if len(nb) != 1 || nb[0] < n {
			return nil, fmt.Sprintf("host %s is not pendant on a switch", g.Name(h))
		}
		if level[nb[0]] < 0 {
			level[nb[0]] = 0
			front = append(front, int32(nb[0]))
		}
	}
	t := &TreeLevels{Level: level}
	for l := int32(0); len(front) > 0; l++ {
		slices.Sort(front)
		t.ByLevel = append(t.ByLevel, front)
		var next []int32
		for _, v := range front {
			for _, w := range g.adj[v] {
				if w >= n && level[w] < 0 {
					level[w] = l + 1
					next = append(next, int32(w))
				}
			}
		}
		front = next
	}
	for v := n; v < nv; v++ {
		if level[v] < 0 {
			return nil, "a switch is not above any host"
		}
		for _, w := range g.adj[v] {
			if w < n {
				if level[v] != 0 {
					return nil, "a host hangs below level 0"
				}
				continue
			}
			if d := level[w] - level[v]; d != 1 && d != -1 {
				return nil, "a link does not join adjacent levels"
			}
		}
	}
	return t, ""
}
