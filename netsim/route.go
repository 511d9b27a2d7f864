package netsim

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/procalloc/procalloc/topo"
)

// ErrNoRoute is wrapped when two endpoints of a network are not connected.
var ErrNoRoute = errors.New("no route")

// Router gives the deterministic route between two endpoints as a sequence of
// channel ids in 0..Channels()-1, appended to buf. A route never lists a channel twice.
// The routers of this package (NewRouter's) only read their tables in these
// methods, so several engines, also in concurrent goroutines, may share one: replays
// on one machine then build it, and find its distance classes (Engine), once.
type Router interface {
	// Endpoints is the number of nodes that send and receive (0..Endpoints()-1).
	Endpoints() int
	// Channels is the number of network channels (directed links, or virtual
	// channels of one, each a resource that one message holds at a time).
	Channels() int
	// Route appends the channels from src to dst, in the order the header takes
	// them, to buf and returns it; src == dst gives an empty route.
	Route(src, dst int, buf []int32) []int32
	// Spec names the network, e.g. "mesh:8x8 dor".
	Spec() string
}

// TiePolicy is the way dimension-order routing goes round a ring when the
// destination is exactly half way round, both ways equally long.
type TiePolicy uint8

const (
	// TiePositive goes the positive way: GridRouter (the message engine and the
	// static route metrics) and the flit engine when asked.
	TiePositive TiePolicy = iota
	// TieRandom tosses a coin per packet and dimension: BookSim2's dim_order_torus
	// and the flit engine's default (DefaultFlitConfig).
	TieRandom
)

// ringDirection is dimension-order routing's rule along one dimension of k nodes:
// the direction (0: positive, 1: negative) and number of hops from coordinate c to
// d. Along a mesh dimension the only way; round a ring the shorter way, a tie
// (d half way round) going by tie, coin() true meaning positive for TieRandom.
// GridRouter and the flit engine both route by it.
func ringDirection(c, d, k int32, wrap bool, tie TiePolicy, coin func() bool) (dir, steps int32) {
	if !wrap {
		if d < c {
			return 1, c - d
		}
		return 0, d - c
	}
	fwd := (d - c + k) % k
	switch {
	case 2*fwd < k:
		return 0, fwd
	case 2*fwd > k:
		return 1, k - fwd
	case tie == TieRandom && !coin():
		return 1, fwd
	}
	return 0, fwd
}

// GridRouter is dimension-ordered routing on a mesh or torus (Dally & Towles 2004
// §14.2): x first, then y, then z, each dimension corrected completely before the
// next. On a wrapped dimension the message goes the shorter way round; when both
// ways are equally long (an even ring, distance half of it) it goes in the
// positive direction. Each wrapped dimension has two virtual channels per link,
// the dateline scheme of Dally & Seitz 1987: a message uses virtual channel 0
// until it crosses the wraparound link of that dimension and channel 1 after, so
// wormhole routing on a torus cannot deadlock. The two virtual channels are
// separate resources of full bandwidth (the model does not share a link's
// bandwidth between them).
type GridRouter struct {
	g      *topo.Grid
	dims   []int
	wrap   []bool
	stride []int
	coord  [][]int32 // coord[j][node]
	vcs    int       // virtual channels per direction: 2 when some dimension wraps
}

// NewGridRouter returns dimension-ordered routing on g.
func NewGridRouter(g *topo.Grid) *GridRouter {
	r := &GridRouter{g: g, dims: g.Dims(), wrap: g.Wrap(), vcs: 1}
	if g.Wraps() {
		r.vcs = 2
	}
	s := 1
	for _, d := range r.dims {
		r.stride = append(r.stride, s)
		s *= d
	}
	for j, d := range r.dims {
		c := make([]int32, g.N())
		for v := range c {
			c[v] = int32((v / r.stride[j]) % d)
		}
		r.coord = append(r.coord, c)
	}
	return r
}

// Endpoints is the number of nodes of the grid.
func (r *GridRouter) Endpoints() int { return r.g.N() }

// Channels is nodes x dimensions x 2 directions x virtual channels.
func (r *GridRouter) Channels() int { return r.g.N() * len(r.dims) * 2 * r.vcs }

// Spec is the grid's spec followed by " dor".
func (r *GridRouter) Spec() string { return r.g.Spec() + " dor" }

// channel is the id of the link leaving node in dimension j, direction dir (0 for
// +, 1 for -), virtual channel vc.
func (r *GridRouter) channel(node, j, dir, vc int) int32 {
	return int32(((node*len(r.dims)+j)*2+dir)*r.vcs + vc)
}

// Channel is the id of the link leaving node along dimension j in the positive
// (dir = 0) or negative (dir = 1) direction, on virtual channel vc. Tests and
// callers that attach extra endpoints use it.
func (r *GridRouter) Channel(node, j, dir, vc int) int32 { return r.channel(node, j, dir, vc) }

// Route appends the dimension-ordered route from src to dst.
func (r *GridRouter) Route(src, dst int, buf []int32) []int32 {
	if r.vcs == 1 && len(r.dims) == 2 {
		return r.route2DMesh(src, dst, buf)
	}
	return r.routeAnyGrid(src, dst, buf)
}

// routeAnyGrid is Route on any mesh or torus.
func (r *GridRouter) routeAnyGrid(src, dst int, buf []int32) []int32 {
	cur := src
	for j, d := range r.dims {
		a, b := int(r.coord[j][src]), int(r.coord[j][dst])
		if a == b {
			continue
		}
		dir32, steps32 := ringDirection(int32(a), int32(b), int32(d), r.wrap[j], TiePositive, nil)
		dir, steps := int(dir32), int(steps32)
		if !r.wrap[j] {
			// Along a mesh dimension the channel ids of successive hops are evenly
			// spaced: step from node to node by the stride.
			ch := r.channel(cur, j, dir, 0)
			delta := int32(r.stride[j] * len(r.dims) * 2 * r.vcs)
			move := r.stride[j]
			if dir == 1 {
				delta, move = -delta, -move
			}
			for range steps {
				buf = append(buf, ch)
				ch += delta
			}
			cur += steps * move
			continue
		}
		vc, x := 0, a
		for range steps {
			buf = append(buf, r.channel(cur, j, dir, vc))
			nx := x + 1
			if dir == 1 {
				nx = x - 1
			}
			switch {
			case nx == d:
				nx, vc = 0, 1 // crossed the dateline
			case nx < 0:
				nx, vc = d-1, 1
			}
			cur += (nx - x) * r.stride[j]
			x = nx
		}
	}
	return buf
}

// runs2DMesh appends route2DMesh's route as runs of evenly spaced channel ids: the
// x hops, then the y hops (no run for a dimension without hops).
func (r *GridRouter) runs2DMesh(src, dst int, runs []routeRun) []routeRun {
	xs, ys := r.coord[0], r.coord[1]
	dx := int32(xs[dst]) - int32(xs[src])
	dy := int32(ys[dst]) - int32(ys[src])
	ch := int32(src * 4)
	if dx != 0 {
		step := int32(4)
		if dx < 0 {
			ch++
			step, dx = -4, -dx
		}
		runs = append(runs, routeRun{ch, step, dx})
		ch = (ch + step*dx) &^ 3
	}
	if dy != 0 {
		step := int32(4 * r.stride[1])
		ch += 2
		if dy < 0 {
			ch++
			step, dy = -step, -dy
		}
		runs = append(runs, routeRun{ch, step, dy})
	}
	return runs
}

// route2DMesh is Route on a 2D mesh (the engine's most frequent case), written
// out: x, then y, the channel ids of successive hops evenly spaced.
func (r *GridRouter) route2DMesh(src, dst int, buf []int32) []int32 {
	xs, ys := r.coord[0], r.coord[1]
	dx := int(xs[dst]) - int(xs[src])
	dy := int(ys[dst]) - int(ys[src])
	n := len(buf)
	if need := abs(dx) + abs(dy); cap(buf)-n < need {
		buf = slices.Grow(buf, need)
	}
	// channel(node, j, dir, 0) = (node*2+j)*2+dir; a step of +-stride nodes moves
	// the id by +-4*stride.
	ch := int32(src * 4)
	if dx != 0 {
		step := int32(4)
		if dx < 0 {
			ch++ // dir 1
			step, dx = -4, -dx
		}
		out := buf[n : n+dx]
		for i := range out {
			out[i] = ch
			ch += step
		}
		n += dx
		ch = ch &^ 3 // back to (node*2+0)*2+0 of the node reached
	}
	if dy != 0 {
		step := int32(4 * r.stride[1])
		ch += 2 // dimension 1, dir 0
		if dy < 0 {
			ch++
			step, dy = -step, -dy
		}
		out := buf[n : n+dy]
		for i := range out {
			out[i] = ch
			ch += step
		}
		n += dy
	}
	return buf[:n]
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// GraphRouter routes along shortest paths of a graph. The tie rule: from a vertex v at
// distance d from destination dst, among the c neighbours one hop closer (in index
// order) the message takes number (dst / c^e) mod c, e = ecc - 1 - d with ecc the
// largest distance from dst to a host (e clamped at 0): destination-modulo spreading,
// the D-mod-K rule of InfiniBand fat-tree routing, one digit of dst per level climbed.
// Routes are deterministic, every prefix of a route is a shortest path, and on a fat
// tree the destinations are spread over the upper switches instead of all climbing
// through the one of smallest index (which capped uniform traffic on
// fattree:4,4:4,4:8 at 0.040 flits/cycle/node). Hosts (vertices below N()) send and receive; switches only forward.
// It stores a next-hop table of channels, 4 bytes an entry, hosts x the vertices other
// than pendant hosts (a host with one link takes it to every destination): on a
// dragonfly of 10,240 hosts on 2,560 routers 105 MB instead of 524 MB.
type GraphRouter struct {
	g      *topo.Graph
	nextCh []int32 // nextCh[dst*ncol+col[v]]: the channel from v one hop closer to host dst (-1 at dst)
	col    []int32 // vertex -> its column of nextCh, or -1-c for a pendant host whose link is channel c
	head   []int32 // head[c]: the vertex channel c leads to
	edges  int
	n, nv  int
	ncol   int
	// pairHops is the sum of the route lengths over all ordered pairs of hosts,
	// summed from the searches that built the table: routes are shortest paths.
	pairHops int64
	off      []int32 // off[v]+i: the channel from v to its i-th neighbour
	// longestRR is the most router-to-router links (those of no pendant host) of
	// any route, for the message engine's distance classes (hopClasses).
	longestRR int
	hc        classMemo // the distance classes (hopclass.go)
}

// row returns the next-hop row of host dst, for hop.
func (r *GraphRouter) row(dst int) []int32 { return r.nextCh[dst*r.ncol : (dst+1)*r.ncol] }

// hop returns the channel from v one hop closer to the destination of row (v is not
// the destination).
func (r *GraphRouter) hop(row []int32, v int) int32 {
	if c := r.col[v]; c >= 0 {
		return row[c]
	}
	return -1 - r.col[v]
}

// next returns the neighbour of v one hop closer to host dst (v != dst).
func (r *GraphRouter) next(dst, v int) int { return int(r.head[r.hop(r.row(dst), v)]) }

// MaxRouteTable bounds the entries (hosts x vertices) of a GraphRouter's next-hop
// table: 4 bytes each, 1 GiB in all; a fabric of 10,240 hosts on 2,560 switches
// takes 100 MiB, a fat tree of 200,704 hosts on 13,568 switches would take 10 GiB
// and is refused.
const MaxRouteTable = 1 << 28

// NewGraphRouter builds the next-hop table of g; it fails when some pair of hosts
// is not connected, naming one such pair, and, before allocating, when the table
// would have more than MaxRouteTable entries. It is NewGraphRouterContext without
// a context.
func NewGraphRouter(g *topo.Graph) (*GraphRouter, error) {
	return NewGraphRouterContext(context.Background(), g)
}

// NewGraphRouterContext is NewGraphRouter under ctx: it looks at ctx every
// routerBuildEvery vertices of the links' listing and before each host's
// breadth-first search (a table of 2^28 entries takes minutes), and returns ctx's
// cause when ctx ends first.
func NewGraphRouterContext(ctx context.Context, g *topo.Graph) (*GraphRouter, error) {
	if ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	n, nv := g.N(), g.Vertices()
	// Channel ids: the directed links in order of their tail, then of their head
	// (neighbour lists are ascending), so the channel from v to its i-th neighbour
	// is off[v]+i.
	off := make([]int32, nv+1)
	var nb []int
	var adj []int32
	for v := range nv {
		if v%routerBuildEvery == 0 && ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		for _, w := range g.Neighbors(v, nb[:0]) {
			adj = append(adj, int32(w))
		}
		off[v+1] = int32(len(adj))
	}
	col := make([]int32, nv)
	ncol := 0
	for v := range nv {
		if v < n && off[v+1]-off[v] == 1 {
			col[v] = -1 - off[v]
			continue
		}
		col[v] = int32(ncol)
		ncol++
	}
	if int64(n)*int64(ncol) > MaxRouteTable {
		return nil, fmt.Errorf("graph %s: a next-hop table of %d hosts x %d vertices (pendant hosts aside) would take %d MiB, more than the %d MiB netsim allows; simulate a smaller machine",
			g.Spec(), n, ncol, int64(n)*int64(ncol)*4>>20, int64(MaxRouteTable)*4>>20)
	}
	r := &GraphRouter{g: g, n: n, nv: nv, ncol: ncol, col: col, nextCh: make([]int32, n*ncol)}
	r.edges = int(off[nv])
	r.head, r.off = adj, off
	var closer, closerIdx []int
	links := topo.CSR{Off: off, Adj: adj}
	dist := make([]int32, nv)
	var queue []int32
	for dst := range n {
		if ctx.Err() != nil { // a search of every vertex, and its row
			return nil, context.Cause(ctx)
		}
		// Breadth-first distances from dst, in a reused row.
		queue = topo.HopRow(links, int32(dst), dist, queue)
		ecc := int32(0)
		pd := int32(0) // dst's pendant link
		if col[dst] < 0 {
			pd = 1
		}
		for h, d := range dist[:n] {
			ecc = max(ecc, d)
			r.pairHops += int64(d) // -1 (unreachable) is refused below
			if h != dst && d > 0 {
				rr := d - pd
				if col[h] < 0 {
					rr--
				}
				r.longestRR = max(r.longestRR, int(rr))
			}
		}
		row := r.row(dst)
		for v := range nv {
			if v == dst || dist[v] < 0 {
				if v < n && v != dst {
					return nil, fmt.Errorf("graph %s: %s and %s are not connected: %w", g.Spec(), g.Name(v), g.Name(dst), ErrNoRoute)
				}
				if col[v] >= 0 {
					row[col[v]] = -1
				}
				continue
			}
			if col[v] < 0 {
				continue // a pendant host: its one link
			}
			closer, closerIdx = closer[:0], closerIdx[:0]
			for i, w := range adj[off[v]:off[v+1]] { // ascending
				if dist[w] == dist[v]-1 {
					closer = append(closer, int(w))
					closerIdx = append(closerIdx, i)
				}
			}
			q := dst
			for e := ecc - 1 - dist[v]; e > 0 && q > 0; e-- {
				q /= len(closer)
			}
			row[col[v]] = off[v] + int32(closerIdx[q%len(closer)])
		}
	}
	return r, nil
}

// Endpoints is the number of hosts.
func (r *GraphRouter) Endpoints() int { return r.n }

// chanLayout is depRouter's: the channels are the directed links by tail.
func (r *GraphRouter) chanLayout() (off, head []int32, n int) { return r.off, r.head, r.n }

// classes is depRouter's.
func (r *GraphRouter) classes() *classMemo { return &r.hc }

// chanDeps is depRouter's: per destination, each vertex's channel towards it and
// the next one, O(hosts x vertices other than pendant hosts), the table's size.
func (r *GraphRouter) chanDeps(ctx context.Context, dep func(c1, c2 int32)) (int, error) {
	for dst := range r.n {
		if dst%64 == 0 && ctx.Err() != nil { // 64 rows of every vertex each
			return 0, context.Cause(ctx)
		}
		row := r.row(dst)
		for v := range r.nv {
			if v == dst || r.col[v] < 0 {
				continue // a pendant host's link starts a route: no channel before it
			}
			c1 := row[r.col[v]]
			if c1 < 0 {
				continue // a switch no host reaches
			}
			w := int(r.head[c1])
			if w == dst {
				continue
			}
			c2 := r.hop(row, w)
			if int(r.head[c2]) == dst && r.col[dst] < 0 {
				continue // the last link, into a pendant host
			}
			dep(c1, c2)
		}
	}
	return r.longestRR, nil
}

// Channels is the number of directed links (twice the edges).
func (r *GraphRouter) Channels() int { return r.edges }

// Spec is the graph's spec followed by " shortest".
func (r *GraphRouter) Spec() string { return r.g.Spec() + " shortest" }

// Route appends the shortest route from src to dst.
func (r *GraphRouter) Route(src, dst int, buf []int32) []int32 {
	row := r.row(dst)
	for v := src; v != dst; {
		c := r.hop(row, v)
		buf = append(buf, c)
		v = int(r.head[c])
	}
	return buf
}

// NewRouter returns the router of a machine: dimension-ordered routing on a grid,
// minimal routing on a dragonfly (DragonflyRouter), shortest paths on another graph.
// It is NewRouterContext without a context.
func NewRouter(m topo.Machine) (Router, error) {
	return NewRouterContext(context.Background(), m)
}

// NewRouterContext is NewRouter under ctx: a dragonfly's and a graph's router
// look at ctx while they are built (NewDragonflyRouterContext,
// NewGraphRouterContext), and ctx's cause is returned when it ends first.
func NewRouterContext(ctx context.Context, m topo.Machine) (Router, error) {
	if m == nil {
		return nil, errors.New("netsim: no router without a machine (nil)")
	}
	switch g := m.(type) {
	case *topo.Grid:
		return NewGridRouter(g), nil
	case *topo.Graph:
		df, err := NewDragonflyRouterContext(ctx, g)
		if err != nil {
			return nil, err
		}
		if df != nil {
			return df, nil
		}
		r, err := NewGraphRouterContext(ctx, g)
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		if err != nil {
			return nil, fmt.Errorf("%w (no dragonfly either, whose minimal routing needs no table: %s)", err, g.DragonflyReason())
		}
		return r, nil
	}
	return nil, fmt.Errorf("netsim: no router for machine %s", m.Spec())
}
