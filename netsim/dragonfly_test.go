package netsim

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/topo"
)

var smallDragonflies = []string{
	"dragonfly:hosts_per_router=2,routers_per_group=4,intergroup_links=1,num_groups=9",
	"dragonfly:hosts_per_router=1,routers_per_group=3,intergroup_links=2,num_groups=5",
	"dragonfly:hosts_per_router=3,routers_per_group=2,intergroup_links=3,num_groups=4", // parallel links merged
	"dragonfly:hosts_per_router=2,routers_per_group=1,intergroup_links=1,num_groups=4", // one router a group
	"dragonfly:hosts_per_router=2,routers_per_group=5,intergroup_links=1,num_groups=1", // one group
	"dragonfly:hosts_per_router=4,routers_per_group=6,intergroup_links=2,num_groups=7",
}

// Every route of DragonflyRouter is a walk along the graph's links from the source
// to the destination, with at most one link between groups, no channel twice and
// at most 5 links; a host's route to its router's other hosts takes 2 links.
func TestDragonflyRoutes(t *testing.T) {
	for _, spec := range smallDragonflies {
		m, err := topo.ParseMachine(spec)
		if err != nil {
			t.Fatal(err)
		}
		g := m.(*topo.Graph)
		rt, err := NewRouter(m)
		if err != nil {
			t.Fatal(err)
		}
		r, ok := rt.(*DragonflyRouter)
		if !ok {
			t.Fatalf("%s: NewRouter gave %T", spec, rt)
		}
		// channel -> (tail, head) as GraphRouter numbers them
		var tail, head []int
		var nb []int
		for v := range g.Vertices() {
			for _, w := range g.Neighbors(v, nb[:0]) {
				tail, head = append(tail, v), append(head, w)
			}
		}
		if r.Channels() != len(tail) {
			t.Fatalf("%s: %d channels, want %d", spec, r.Channels(), len(tail))
		}
		grp := func(v int) int { return (v - g.N()) / r.a }
		var buf []int32
		for s := range g.N() {
			for d := range g.N() {
				buf = r.Route(s, d, buf[:0])
				if s == d {
					if len(buf) != 0 {
						t.Fatalf("%s: route %d->%d: %v", spec, s, d, buf)
					}
					continue
				}
				v, globals := s, 0
				seen := map[int32]bool{}
				for _, c := range buf {
					if tail[c] != v || seen[c] {
						t.Fatalf("%s: route %d->%d %v is not a walk", spec, s, d, buf)
					}
					seen[c] = true
					if tail[c] >= g.N() && head[c] >= g.N() && grp(tail[c]) != grp(head[c]) {
						globals++
					}
					v = head[c]
				}
				if v != d || globals > 1 || len(buf) > 5 || (s/r.p == d/r.p && len(buf) != 2) {
					t.Fatalf("%s: route %d->%d %v ends at %d with %d global links", spec, s, d, buf, v, globals)
				}
			}
		}
	}
}

// TestDragonflyLoadMatchesTrace: the all-to-all loads counted per router and group
// (dfLoad.count) equal those of tracing every pair's route with the router the
// replay uses (NewRouter's), on random and consecutive allocations of several
// small dragonflies, each from its spec and from an edge list (a fabric file).
func TestDragonflyLoadMatchesTrace(t *testing.T) {
	pat, err := ParsePattern("all-to-all")
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 11))
	var machines []topo.Machine
	for _, spec := range smallDragonflies {
		m0, err := topo.ParseMachine(spec)
		if err != nil {
			t.Fatal(err)
		}
		f, err := topo.ReadGraph(strings.NewReader(edgeList(m0.(*topo.Graph))))
		if err != nil {
			t.Fatal(err)
		}
		machines = append(machines, m0, f)
	}
	for _, m0 := range machines {
		spec := m0.Spec()
		m, err := NewMachineRouteMeter(m0, pat, 1)
		if err != nil {
			t.Fatal(err)
		}
		if m.df == nil {
			t.Fatalf("%s: not counted per router and group", spec)
		}
		n := m0.N()
		for trial := range 300 {
			k := 1 + rng.IntN(n)
			var nodes []int
			if trial%3 == 0 {
				start := rng.IntN(n - k + 1)
				for v := start; v < start+k; v++ {
					nodes = append(nodes, v)
				}
			} else {
				nodes = rng.Perm(n)[:k]
			}
			got, want := mustMeasure(t, m, trial, nodes), m.traced(trial, nodes)
			if got != want {
				t.Fatalf("%s, job on %v: %+v, trace %+v", spec, nodes, got, want)
			}
		}
	}
}

// A graph that only claims to be a dragonfly (another spec, or a dragonfly spec on
// another graph) gets no DragonflyRouter.
func TestDragonflyRouterNeedsTheStructure(t *testing.T) {
	ft, err := topo.ParseMachine("fattree:4,4:8")
	if err != nil {
		t.Fatal(err)
	}
	if NewDragonflyRouter(ft.(*topo.Graph)) != nil {
		t.Fatal("a fat tree taken for a dragonfly")
	}
}

// smallDragonflyGraphs are the small dragonflies from their specs, each followed
// by the same network numbered at random (rng) in a file.
func smallDragonflyGraphs(t *testing.T, rng *rand.Rand) []*topo.Graph {
	t.Helper()
	var gs []*topo.Graph
	for _, spec := range smallDragonflies {
		m, err := topo.ParseMachine(spec)
		if err != nil {
			t.Fatal(err)
		}
		g := m.(*topo.Graph)
		f, err := topo.ReadGraph(strings.NewReader(relabelledEdgeList(g, relabelling(g, rng, false))))
		if err != nil {
			t.Fatal(err)
		}
		gs = append(gs, g, f)
	}
	return gs
}

// The flit engine routes hop by hop (DragonflyRouter.next); walking next from every
// source to every destination visits exactly the heads of Route's channels, so both
// engines and the static metrics take the same routes. Then a packet sent alone
// through the flit engine arrives after as many hops as Route has channels.
func TestDragonflyNextIsRoute(t *testing.T) {
	for _, g := range smallDragonflyGraphs(t, rand.New(rand.NewPCG(34, 5))) {
		m, spec := topo.Machine(g), g.Spec()
		r := NewDragonflyRouter(g)
		if r == nil {
			t.Fatalf("%s: not a dragonfly", spec)
		}
		var buf []int32
		for s := range g.N() {
			for d := range g.N() {
				if s == d {
					continue
				}
				buf = r.Route(s, d, buf[:0])
				v := s
				for i, c := range buf {
					w := r.next(d, v)
					if want := int(r.adj[c]); w != want {
						t.Fatalf("%s: %d->%d hop %d from %d: next %d, Route's channel leads to %d", spec, s, d, i, v, w, want)
					}
					v = w
				}
				if v != d {
					t.Fatalf("%s: %d->%d: the walk ends at %d", spec, s, d, v)
				}
			}
		}
		cfg := DefaultFlitConfig(m)
		cfg.VCs, cfg.HopClasses = 5, true
		for _, p := range [][2]int{{0, g.N() - 1}, {1, g.N() / 2}, {g.N() - 1, 0}} {
			if p[0] == p[1] {
				continue
			}
			var got *Delivery
			e, err := NewFlitEngine(m, cfg, func(d *Delivery) { c := *d; got = &c })
			if err != nil {
				t.Fatal(err)
			}
			if err := e.Send(Message{Src: int32(p[0]), Dst: int32(p[1])}); err != nil {
				t.Fatal(err)
			}
			if err := e.Run(10000); err != nil {
				t.Fatal(err)
			}
			if got == nil {
				t.Fatalf("%s: %d->%d not delivered", spec, p[0], p[1])
			}
			if want := len(r.Route(p[0], p[1], nil)); got.Hops != want {
				t.Fatalf("%s: %d->%d: %d hops in the flit engine, Route has %d channels", spec, p[0], p[1], got.Hops, want)
			}
		}
	}
}

// TestDragonflyRelabelled: a dragonfly file numbered otherwise than its spec is
// recognised (topo.Graph.Dragonfly) and routed minimally by DragonflyRouter, whose
// loads counted per router and group (dfLoad.count) are those of tracing its
// routes. Its routes follow the order of the groups' lowest vertices and of the
// routers inside a group: where the file keeps those orders (hosts at random, the
// routers interleaved across groups) every route is the spec's, vertex for vertex,
// and every job's loads and pairwise distances are the spec's; numbered at random,
// the distances are still the spec's and the loads still the trace's.
func TestDragonflyRelabelled(t *testing.T) {
	pat, err := ParsePattern("all-to-all")
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(34, 2))
	kept := 0
	defer func() {
		if kept < len(smallDragonflies)-2 {
			t.Errorf("the spec's routes compared on %d dragonflies only", kept)
		}
	}()
	for _, spec := range smallDragonflies {
		m0, err := topo.ParseMachine(spec)
		if err != nil {
			t.Fatal(err)
		}
		g := m0.(*topo.Graph)
		n := g.N()
		want, err := NewMachineRouteMeter(g, pat, 1)
		if err != nil {
			t.Fatal(err)
		}
		for _, keep := range []bool{true, false} {
			at := relabelling(g, rng, keep)
			f, err := topo.ReadGraph(strings.NewReader(relabelledEdgeList(g, at)))
			if err != nil {
				t.Fatal(err)
			}
			name := fmt.Sprintf("%s, relabelled (orders kept: %v)", spec, keep)
			rt, err := NewRouter(f)
			if err != nil {
				t.Fatal(err)
			}
			r, ok := rt.(*DragonflyRouter)
			if !ok {
				t.Fatalf("%s: router %T (%s)", name, rt, f.DragonflyReason())
			}
			if keep {
				// The spec's groups (with 2 routers a group, the links may also
				// split into other pairs: then the routes differ).
				sh, _ := g.Dragonfly()
				for u := range sh.RoutersPerGroup * sh.Groups {
					if fu := f.DragonflyRouterIndex(at[n+u]); fu != u {
						if sh.RoutersPerGroup > 2 {
							t.Fatalf("%s: the spec's router %d is router %d of the file", name, u, fu)
						}
						keep = false
					}
				}
			}
			if keep {
				kept++
				rs, err := NewRouter(g)
				if err != nil {
					t.Fatal(err)
				}
				var a, b []int32
				for s := range n {
					for d := range n {
						a, b = rs.Route(s, d, a[:0]), r.Route(at[s], at[d], b[:0])
						va, vb := routerVertices(t, rs, s, a), routerVertices(t, r, at[s], b)
						for i := range va {
							va[i] = int32(at[va[i]])
						}
						if !slices.Equal(va, vb) {
							t.Fatalf("%s: route %d -> %d visits %v, the spec's %v", name, s, d, vb, va)
						}
					}
				}
			}
			m, err := NewMachineRouteMeter(f, pat, 1)
			if err != nil {
				t.Fatal(err)
			}
			if m.df == nil {
				t.Fatalf("%s: not counted per router and group", name)
			}
			for trial := range 200 {
				k := 1 + rng.IntN(n)
				nodes := rng.Perm(n)[:k]
				mapped := make([]int, k)
				for i, h := range nodes {
					mapped[i] = at[h]
				}
				got := mustMeasure(t, m, trial, mapped)
				if tr := m.traced(trial, mapped); got != tr {
					t.Fatalf("%s, job on %v: %+v, trace %+v", name, mapped, got, tr)
				}
				if w := mustMeasure(t, want, trial, nodes); keep && got != w {
					t.Fatalf("%s, job on %v: %+v, the spec's %+v", name, mapped, got, w)
				}
				ds, _ := g.PairDistSum(nodes)
				if df, ok := f.PairDistSum(mapped); !ok || df != ds {
					t.Fatalf("%s, job on %v: pairwise distances %d (%v), the spec's %d", name, mapped, df, ok, ds)
				}
			}
		}
	}
}
