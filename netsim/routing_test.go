package netsim

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/internal/ctxtest"
	"github.com/procalloc/procalloc/topo"
)

// edgeList writes g as topo.ReadGraph reads it: hosts, then switches, in index
// order, then every link once.
func edgeList(g *topo.Graph) string {
	return relabelledEdgeList(g, nil)
}

// relabelledEdgeList writes g as an edge list in which g's vertex v, under its
// name, is the file's vertex at[v] (hosts among hosts, switches among switches;
// nil: v).
func relabelledEdgeList(g *topo.Graph, at []int) string {
	n, nv := g.N(), g.Vertices()
	if at == nil {
		at = make([]int, nv)
		for v := range at {
			at[v] = v
		}
	}
	names := make([]string, nv) // the file's vertex i
	for v := range nv {
		names[at[v]] = g.Name(v)
	}
	var b strings.Builder
	for i, name := range names {
		if i < n {
			fmt.Fprintf(&b, "%%node %s\n", name)
		} else {
			fmt.Fprintf(&b, "%%switch %s\n", name)
		}
	}
	var nb []int
	for v := range nv {
		for _, w := range g.Neighbors(v, nb[:0]) {
			if v < w {
				fmt.Fprintf(&b, "%s %s\n", g.Name(v), g.Name(w))
			}
		}
	}
	return b.String()
}

// relabelling returns a numbering for relabelledEdgeList: hosts at random; the
// switches at random too, or (keepOrder) position by position across the groups
// (the first router of every group, then the second, ...), which keeps the order
// of the groups' lowest vertices and of the routers inside a group.
func relabelling(g *topo.Graph, rng *rand.Rand, keepOrder bool) []int {
	n, nv := g.N(), g.Vertices()
	at := make([]int, nv)
	copy(at, rng.Perm(n))
	sw := rng.Perm(nv - n)
	if keepOrder {
		sh, ok := g.Dragonfly()
		if !ok {
			panic("not a dragonfly")
		}
		a, G := sh.RoutersPerGroup, sh.Groups
		for r := range a * G {
			sw[r] = r%a*G + r/a
		}
	}
	for v := n; v < nv; v++ {
		at[v] = n + sw[v-n]
	}
	return at
}

// TestDragonflyFromFileRoutesLikeSpec: the dragonfly structure is recognised from
// the links (topo.Graph.Dragonfly), so the same dragonfly read from an edge list
// gets DragonflyRouter and the very routes of its spec, in both engines.
func TestDragonflyFromFileRoutesLikeSpec(t *testing.T) {
	for _, spec := range smallDragonflies {
		m, err := topo.ParseMachine(spec)
		if err != nil {
			t.Fatal(err)
		}
		g := m.(*topo.Graph)
		var want topo.DragonflyShape
		if _, err := fmt.Sscanf(strings.ReplaceAll(strings.TrimPrefix(spec, "dragonfly:"), ",", " "),
			"hosts_per_router=%d routers_per_group=%d intergroup_links=%d num_groups=%d",
			&want.HostsPerRouter, &want.RoutersPerGroup, new(int), &want.Groups); err != nil {
			t.Fatal(err)
		}
		got, ok := g.Dragonfly()
		if !ok || (got != want && want.RoutersPerGroup > 1 && want.Groups > 1) {
			t.Errorf("%s: recognised %+v, %v; want %+v", spec, got, ok, want)
		}
		f, err := topo.ReadGraph(strings.NewReader(edgeList(g)))
		if err != nil {
			t.Fatal(err)
		}
		if f.N() != g.N() || f.Vertices() != g.Vertices() {
			t.Fatalf("%s: the edge list reads back as %d hosts, %d vertices", spec, f.N(), f.Vertices())
		}
		rs, err := NewRouter(g)
		if err != nil {
			t.Fatal(err)
		}
		rf, err := NewRouter(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := rf.(*DragonflyRouter); !ok {
			t.Fatalf("%s from a file: router %T, want the dragonfly's minimal routing", spec, rf)
		}
		var a, b []int32
		for s := range g.N() {
			for d := range g.N() {
				a, b = rs.Route(s, d, a[:0]), rf.Route(s, d, b[:0])
				if !slices.Equal(a, b) {
					t.Fatalf("%s: route %d -> %d is %v from the spec, %v from the file", spec, s, d, a, b)
				}
			}
		}
	}
}

// routerVertices turns a route of r (channel ids) from src into the vertices it
// visits: grid nodes (and I/O nodes after the compute nodes) or graph vertices.
func routerVertices(t *testing.T, r Router, src int, route []int32) []int32 {
	t.Helper()
	out := []int32{int32(src)}
	var gridNext func(ch int32) int32
	gridOf := func(gr *GridRouter) func(ch int32) int32 {
		nd := int32(len(gr.dims))
		return func(ch int32) int32 {
			x := ch / int32(gr.vcs)
			dir := x % 2
			x /= 2
			j, node := x%nd, x/nd
			c, k := gr.coord[j][node], int32(gr.dims[j])
			nc := c + 1
			if dir == 1 {
				nc = c - 1
			}
			nc = (nc + k) % k
			return node + (nc-c)*int32(gr.stride[j])
		}
	}
	switch r := r.(type) {
	case *GridRouter:
		gridNext = gridOf(r)
	case *IORouter:
		mesh := gridOf(r.mesh)
		gridNext = func(ch int32) int32 {
			if ch < r.base {
				return mesh(ch)
			}
			j := (ch - r.base) / 2
			if (ch-r.base)%2 == 0 {
				return int32(r.n) + j // attachment -> I/O node j
			}
			return int32(r.attach[j])
		}
	case *GraphRouter:
		gridNext = func(ch int32) int32 { return r.head[ch] }
	case *DragonflyRouter:
		gridNext = func(ch int32) int32 { return r.adj[ch] }
	default:
		t.Fatalf("no channel map for %T", r)
	}
	for _, ch := range route {
		out = append(out, gridNext(ch))
	}
	return out
}

// TestOneRoutingLayer: the flit engine takes, hop for hop, the routes of the
// router the message engine and the static route metrics take (NewRouter, and
// NewIORouter with I/O nodes): the same vertices, not only as many, on meshes, a 3D
// mesh, tori (with TiePositive; TieRandom goes either way at a tie, and otherwise
// the same), a mesh with I/O nodes, a fat tree and dragonflies.
func TestOneRoutingLayer(t *testing.T) {
	var machines []topo.Machine
	for _, spec := range []string{"mesh:5x4", "mesh:3x3x2", "torus:6x4", "torus:4x3x2", "mesh:6x4:io=left",
		"fattree:4,2:4", smallDragonflies[0], smallDragonflies[2]} {
		m, err := topo.ParseMachine(spec)
		if err != nil {
			t.Fatal(err)
		}
		machines = append(machines, m)
	}
	for _, m := range machines {
		for _, tie := range []TiePolicy{TiePositive, TieRandom} {
			var r Router
			var err error
			if g, ok := m.(*topo.Grid); ok && g.IO() != nil {
				r, err = NewIORouter(g)
			} else {
				r, err = NewRouter(m)
			}
			if err != nil {
				t.Fatal(err)
			}
			cfg := DefaultFlitConfig(m)
			cfg.PacketFlits, cfg.Tie, cfg.Seed = 2, tie, 3
			paths := map[int32][]int32{}
			var e *FlitEngine
			e, err = NewFlitEngine(m, cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			e.headHop = func(pkt, gop int32) {
				paths[pkt] = append(paths[pkt], e.portRouter[e.outDown[gop]])
			}
			var buf []int32
			n := r.Endpoints()
			for s := range n {
				for d := range n {
					e.Reset()
					clear(paths)
					if err := e.Send(Message{Src: int32(s), Dst: int32(d)}); err != nil {
						t.Fatal(err)
					}
					if err := e.Run(2000); err != nil {
						t.Fatal(err)
					}
					got := append([]int32{int32(s)}, paths[0]...)
					want := routerVertices(t, r, s, r.Route(s, d, buf[:0]))
					if slices.Equal(got, want) {
						continue
					}
					if tie == TieRandom && len(got) == len(want) {
						if g, ok := m.(*topo.Grid); ok && g.Wraps() {
							continue // a tie may have gone the other way
						}
					}
					t.Fatalf("%s, tie policy %d: %d -> %d: flit engine %v, message engine and static metrics %v", m.Spec(), tie, s, d, got, want)
				}
			}
		}
	}
}

// The message engine's zero-load latency sums the hops of all pairs of a mesh or
// torus per dimension (gridPairHops) instead of routing n^2 pairs (hours on
// mesh:256x256, with Ctrl-C unseen): the same total, to the bit, as routing every
// ordered pair with dimension-ordered routing, on meshes, tori, mixed wraps and
// odd and even rings; and a router other than a grid's stops when ctx ends.
func TestZeroLoadLatencyGridSum(t *testing.T) {
	for _, spec := range []string{"mesh:1x7", "mesh:5x4", "torus:6x5", "torus:4x4x3", "mesh:5x4x3:wrap=xz", "mesh:3x2x2x3:wrap=w", "torus:7"} {
		g, err := topo.ParseMachine(spec)
		if err != nil {
			t.Fatal(err)
		}
		r := NewGridRouter(g.(*topo.Grid))
		n := r.Endpoints()
		hops := routedHops(r)
		if got := gridPairHops(r.dims, r.wrap); got != hops {
			t.Errorf("%s: per-dimension sum %d, routes %d", spec, got, hops)
		}
		p := Params{MessageFlits: 8, RouterDelay: 3}
		want := float64(hops)/float64(n*(n-1))*3 + 8
		if got := ZeroLoadLatency(r, p); got != want {
			t.Errorf("%s: ZeroLoadLatency %v, want %v", spec, got, want)
		}
	}
	// Dragonflies (DragonflyRouter.pairHops, by pairs of routers) against routing
	// every pair; other graphs (GraphRouter.pairHops) below.
	for _, spec := range []string{"dragonfly:hosts_per_router=2,routers_per_group=4,intergroup_links=1,num_groups=9",
		"dragonfly:hosts_per_router=3,routers_per_group=4,intergroup_links=2,num_groups=5",
		"dragonfly:hosts_per_router=1,routers_per_group=6,intergroup_links=1,num_groups=3"} {
		g, err := topo.ParseMachine(spec)
		if err != nil {
			t.Fatal(err)
		}
		r, err := NewRouter(g)
		if err != nil {
			t.Fatal(err)
		}
		dr, ok := r.(*DragonflyRouter)
		if !ok {
			t.Fatalf("%s: router %T", spec, r)
		}
		hops := routedHops(r)
		if got := dr.pairHops(); got != hops {
			t.Errorf("%s: by router pairs %d, routes %d", spec, got, hops)
		}
	}
}

// On a graph router (fat trees, edge lists, a mesh given as a graph) the sum of
// all pairs' hops comes from the breadth-first searches that built the routes,
// equal to routing every pair; no pair is routed for the zero-load latency, so
// it is there even with the context ended (it used to route every pair: minutes
// on 16,384 hosts).
func TestZeroLoadLatencyGraphSum(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var graphs []*topo.Graph
	for _, spec := range []string{"fattree:4,4:8", "fattree:2,2:3,3:4", "mesh:5x4"} {
		m, err := topo.ParseMachine(spec)
		if err != nil {
			t.Fatal(err)
		}
		graphs = append(graphs, topo.GraphOf(m))
	}
	for _, text := range []string{"%switch s\n%switch t\n%switch u\na s\nb s\nc t\nd t\ns u\nt u\ng u\nc d\n", "0 1\n1 2\n2 3\n3 0\n1 3\n3 4\n"} {
		g, err := topo.ReadGraph(strings.NewReader(text))
		if err != nil {
			t.Fatal(err)
		}
		graphs = append(graphs, g)
	}
	for _, g := range graphs {
		r, err := NewGraphRouter(g)
		if err != nil {
			t.Fatal(err)
		}
		hops := routedHops(r)
		if r.pairHops != hops {
			t.Errorf("%s: summed from the searches %d, routes %d", g.Spec(), r.pairHops, hops)
		}
		n := r.Endpoints()
		p := Params{MessageFlits: 8, RouterDelay: 3}
		want := float64(hops)/float64(n*(n-1))*3 + 8
		if got, err := zeroLoadLatency(ctx, r, p); err != nil || got != want {
			t.Errorf("%s: zero-load latency %v (%v), want %v without routing a pair", g.Spec(), got, err, want)
		}
	}
}

// The flit traffic runs look at their context every pollCycles(n) cycles, about
// 2^18 node-cycles: on 65,536 nodes 4 cycles, not 1,024 (a cycle there costs
// milliseconds; Ctrl-C waited for the watchdog); small networks keep 1,024.
func TestFlitTrafficPollsByNetworkSize(t *testing.T) {
	for n, want := range map[int]int64{16: 1024, 256: 1024, 4096: 64, 65536: 4, 1 << 20: 1} {
		if got := pollCycles(n); got != want {
			t.Errorf("pollCycles(%d) = %d, want %d", n, got, want)
		}
	}
	e := mustFlit(t, topo.Mesh(4, 4))
	e.gen = func(int64) {} // a generator: the engine does not skip idle cycles
	err := runPolled(ctxtest.StopAfter(3), e, 100, 4)
	if !errors.Is(err, context.Canceled) || e.Now() != 12 {
		t.Errorf("stopped at cycle %d (%v), want 12: three pieces of 4 cycles", e.Now(), err)
	}
	if err := runPolled(context.Background(), e, 100, 4); err != nil || e.Now() != 100 {
		t.Errorf("at cycle %d (%v), want 100", e.Now(), err)
	}
}

// routedHops sums the hops of r's routes over every ordered pair of its endpoints.
func routedHops(r Router) int64 {
	n := r.Endpoints()
	var hops int64
	var buf []int32
	for s := range n {
		for d := range n {
			if s != d {
				buf = r.Route(s, d, buf[:0])
				hops += int64(len(buf))
			}
		}
	}
	return hops
}

// The message engine holds a 2D mesh's routes (with or without I/O nodes) as runs
// of evenly spaced channel ids; written out they are the router's routes, on every
// pair of meshes with and without I/O nodes along each side.
func TestRouteRunsAreTheRoutes(t *testing.T) {
	expand := func(runs []routeRun) []int32 {
		var out []int32
		for _, r := range runs {
			if r.count <= 0 {
				t.Fatalf("empty run %+v", r)
			}
			for i := range r.count {
				out = append(out, r.first+i*r.step)
			}
		}
		return out
	}
	for _, spec := range []string{"mesh:5x4", "mesh:1x6", "mesh:7x1", "mesh:6x5:io=left", "mesh:6x5:io=right", "mesh:4x6:io=top", "mesh:4x6:io=bottom:2"} {
		m, err := topo.ParseMachine(spec)
		if err != nil {
			t.Fatal(err)
		}
		g := m.(*topo.Grid)
		var r Router
		var runs func(src, dst int) []routeRun
		if g.IO() != nil {
			ior, err := NewIORouter(g)
			if err != nil {
				t.Fatal(err)
			}
			r, runs = ior, func(s, d int) []routeRun { return ior.routeRuns(s, d, nil) }
		} else {
			gr := NewGridRouter(g)
			r, runs = gr, func(s, d int) []routeRun { return gr.runs2DMesh(s, d, nil) }
		}
		for s := range r.Endpoints() {
			for d := range r.Endpoints() {
				want := r.Route(s, d, nil)
				if got := expand(runs(s, d)); !slices.Equal(got, want) {
					t.Fatalf("%s %d->%d: runs give %v, the route is %v", spec, s, d, got, want)
				}
			}
		}
	}
}

// On a large 2D mesh and I/O mesh (runsMinNodes nodes, lowered here) a message in
// flight holds its route in a fixed 72 bytes, whatever its length: no slot writes
// a route out (they were ~1.6 KB each across mesh:448x448:io=left, two thirds of
// batch's heap).
func TestEngineHoldsMeshRoutesAsRuns(t *testing.T) {
	defer func(n int) { runsMinNodes = n }(runsMinNodes)
	runsMinNodes = 1600
	for _, spec := range []string{"mesh:40x40", "mesh:40x40:io=left"} {
		m, err := topo.ParseMachine(spec)
		if err != nil {
			t.Fatal(err)
		}
		g := m.(*topo.Grid)
		var r Router = NewGridRouter(g)
		if g.IO() != nil {
			if r, err = NewIORouter(g); err != nil {
				t.Fatal(err)
			}
		}
		delivered := 0
		e, err := NewEngine(r, DefaultParams(), func(*Delivery) { delivered++ })
		if err != nil {
			t.Fatal(err)
		}
		n := r.Endpoints()
		for s := range n {
			e.Send(Message{Src: int32(s), Dst: int32(n - 1 - s)})
		}
		if err := e.Run(1 << 20); err != nil || delivered != n {
			t.Fatalf("%s: %d of %d delivered (%v)", spec, delivered, n, err)
		}
		for id, sl := range e.slots {
			if cap(sl.route) != 0 {
				t.Fatalf("%s: slot %d wrote out a route of %d channels", spec, id, len(sl.route))
			}
		}
		if len(e.slots) < n/2 {
			t.Errorf("%s: %d slots for %d messages sent at once", spec, len(e.slots), n)
		}
	}
}
