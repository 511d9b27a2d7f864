package order

import (
	"context"
	"fmt"
	"slices"

	"github.com/procalloc/procalloc/topo"
)

// The multilevel scheme of the scalable path, after the multilevel heuristics for
// linear ordering problems (Safro, Ron and Brandt, "A multilevel algorithm for the
// minimum 2-sum problem", J. Graph Algorithms and Applications 10(2):237-258, 2006,
// http://jgaa.info/): coarsen the machine (a grid into boxes of 2 along every
// axis of at least 4 nodes; a graph into its groups, the nodes under one switch),
// order the coarse machine (recursively: its own curves, multilevel and line
// search), expand every coarse node into its members, and hand the result to the
// line search as one more starting ordering.

// clusterMachine is the coarse level of a graph: the fine network itself, with only
// one representative per cluster ranked (coarse node i is the first member of cluster
// i) and every other vertex, the clusters' other members included, routing like a
// switch. So its hop distances are exactly the fine distances of the representatives
// and Neighbors is the fine network's, relabelled: a topo.Machine like any other.
type clusterMachine struct {
	m    topo.Machine
	reps []int   // coarse vertex i < len(reps) -> fine vertex
	vert []int32 // coarse vertex -> fine vertex, the ranked ones first
	pos  []int32 // fine vertex -> coarse vertex
}

func newClusterMachine(m topo.Machine, reps []int) *clusterMachine {
	nv := topo.Vertices(m)
	c := &clusterMachine{m: m, reps: reps, vert: make([]int32, 0, nv), pos: make([]int32, nv)}
	for i := range c.pos {
		c.pos[i] = -1
	}
	for _, r := range reps {
		c.pos[r] = int32(len(c.vert))
		c.vert = append(c.vert, int32(r))
	}
	for v := range c.pos {
		if c.pos[v] < 0 {
			c.pos[v] = int32(len(c.vert))
			c.vert = append(c.vert, int32(v))
		}
	}
	return c
}

func (c *clusterMachine) N() int        { return len(c.reps) }
func (c *clusterMachine) Vertices() int { return len(c.vert) }
func (c *clusterMachine) Dist(a, b int) int {
	if a == b {
		return 0
	}
	return c.m.Dist(c.reps[a], c.reps[b])
}

// Neighbors appends the coarse vertices one hop from a, ascending.
func (c *clusterMachine) Neighbors(a int, dst []int) []int {
	from := len(dst)
	dst = c.m.Neighbors(int(c.vert[a]), dst)
	for i := from; i < len(dst); i++ {
		dst[i] = int(c.pos[dst[i]])
	}
	slices.Sort(dst[from:])
	return dst
}
func (c *clusterMachine) Spec() string { return "clusters of " + c.m.Spec() }

// clusters holds cluster c's members in mem[off[c]:off[c+1]].
type clusters struct {
	off []int32
	mem []int32
}

func (cl *clusters) members(c int) []int32 { return cl.mem[cl.off[c]:cl.off[c+1]] }

// byLabel groups the nodes 0..len(label)-1 by label (0..k-1), members ascending.
func byLabel(label []int32, k int) *clusters {
	cl := &clusters{off: make([]int32, k+1), mem: make([]int32, len(label))}
	for _, c := range label {
		cl.off[c+1]++
	}
	for c := 0; c < k; c++ {
		cl.off[c+1] += cl.off[c]
	}
	fill := make([]int32, k)
	copy(fill, cl.off[:k])
	for v, c := range label {
		cl.mem[fill[c]] = int32(v)
		fill[c]++
	}
	return cl
}

// coarsen returns the coarse machine of m with the clusters its nodes stand for, or
// nil when m has no coarsening (a graph without groups, a grid too small).
func coarsen(m topo.Machine) (coarse topo.Machine, cl *clusters, what string) {
	switch m := m.(type) {
	case *topo.Grid:
		dims, wrap := m.Dims(), m.Wrap()
		cd := make([]int, len(dims))
		cw := make([]bool, len(dims))
		shrink := false
		for j, d := range dims {
			cd[j], cw[j] = d, wrap[j]
			if d >= 4 {
				cd[j], cw[j] = (d+1)/2, wrap[j] && d%2 == 0
				shrink = true
			}
		}
		if !shrink {
			return nil, nil, ""
		}
		cg, err := topo.NewGrid(cd, cw)
		if err != nil {
			return nil, nil, ""
		}
		label := make([]int32, m.N())
		c := make([]int, len(dims))
		for v := range label {
			c = m.Coord(v, c)
			for j := range c {
				if cd[j] != dims[j] {
					c[j] /= 2
				}
			}
			label[v] = int32(cg.Index(c))
		}
		coarse, cl = cg, byLabel(label, cg.N())
		what = fmt.Sprintf("boxes of %s ordered as %s, expanded", m.Spec(), cg.Spec())
	case *topo.Graph:
		groups := m.Groups()
		if len(groups) == 0 {
			return nil, nil, ""
		}
		label := make([]int32, m.N())
		for v := range label {
			label[v] = -1
		}
		k := 0
		for _, g := range groups {
			for _, v := range g.Nodes {
				label[v] = int32(k)
			}
			k++
		}
		for v := range label {
			if label[v] < 0 {
				label[v] = int32(k)
				k++
			}
		}
		if k < 3 || k == m.N() {
			return nil, nil, ""
		}
		cl = byLabel(label, k)
		reps := make([]int, k)
		for i := range reps {
			reps[i] = int(cl.members(i)[0])
		}
		coarse = newClusterMachine(m, reps)
		what = fmt.Sprintf("%d groups (switches) ordered, expanded", k)
	default:
		return nil, nil, ""
	}
	return coarse, cl, what
}

// multilevel returns the multilevel ordering of sr.m, or nil when the machine has no
// coarsening (a graph without groups, a grid too small) or ctx ended first.
func (sr *scalableRun) multilevel(ctx context.Context, depth int) ([]int, string) {
	coarse, cl, what := coarsen(sr.m)
	if coarse == nil {
		return nil, ""
	}
	cctx, cancel := subContext(ctx, 0.3)
	co := heuristicOrder(cctx, coarse, sr.w, sr.ring, sr.seed+1, depth+1)
	cancel()
	if co == nil || ctx.Err() != nil {
		return nil, ""
	}
	o := expand(ctx, sr.m, cl, co)
	if o == nil {
		return nil, ""
	}
	return o, what
}

// expand lays the clusters out in the coarse order; inside a cluster (of at most 64
// nodes; larger ones keep index order) the members follow a greedy path: each next
// member the nearest to the last one placed (the first the nearest to the previous
// cluster's last), ties to the member farthest from the next cluster's first member,
// then to the smaller index, so that the path ends near the next cluster. nil when
// ctx ends first.
func expand(ctx context.Context, m topo.Machine, cl *clusters, co []int) []int {
	out := make([]int, 0, len(cl.mem))
	prev := -1
	var used []bool
	for i, c := range co {
		if i&63 == 0 && ctx.Err() != nil {
			return nil
		}
		mem := cl.members(c)
		next := -1
		if i+1 < len(co) {
			next = int(cl.members(co[i+1])[0])
		}
		if len(mem) > 64 {
			for _, v := range mem {
				out = append(out, int(v))
			}
			prev = int(mem[len(mem)-1])
			continue
		}
		used = append(used[:0], make([]bool, len(mem))...)
		for range mem {
			bj, bd, bn := -1, 0, 0
			for j, v := range mem {
				if used[j] {
					continue
				}
				d := 0
				if prev >= 0 {
					d = m.Dist(prev, int(v))
				}
				dn := 0
				if next >= 0 {
					dn = m.Dist(int(v), next)
				}
				if bj < 0 || d < bd || (d == bd && dn > bn) {
					bj, bd, bn = j, d, dn
				}
			}
			used[bj] = true
			prev = int(mem[bj])
			out = append(out, prev)
		}
	}
	return out
}
