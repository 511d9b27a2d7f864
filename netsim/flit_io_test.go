package netsim

import (
	"slices"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/topo"
)

// xyNodes lists the nodes an x-then-y route on mesh g visits from a to b, a
// included and b not: the routers whose mesh output ports a packet uses.
func xyNodes(g *topo.Grid, a, b int) []int {
	X := g.Dims()[0]
	x, y := a%X, a/X
	bx, by := b%X, b/X
	var out []int
	for x != bx {
		out = append(out, x+y*X)
		if x < bx {
			x++
		} else {
			x--
		}
	}
	for y != by {
		out = append(out, x+y*X)
		if y < by {
			y++
		} else {
			y--
		}
	}
	return out
}

// TestFlitIOLonePacket sends one packet at a time between every pair of endpoints
// of meshes with I/O nodes, on an empty network, and checks against IORouter and
// the message engine: the same endpoints (N..N+K-1 the I/O nodes), the same number
// of links (the I/O link included), the lone-packet latency of the flit engine's
// pipeline for that many links, and the links themselves: the routers whose
// outputs carried the packet's flits are exactly those of the x-y route between
// the attachment nodes, a packet to I/O node j leaves through the I/O port of
// attach(j)'s router, and one from it through its own router's link.
func TestFlitIOLonePacket(t *testing.T) {
	for _, spec := range []string{"mesh:4x4:io=left", "mesh:4x4:io=top", "mesh:5x3:io=right:2", "mesh:3x4:io=bottom"} {
		g, err := topo.ParseSpec(spec)
		if err != nil {
			t.Fatal(err)
		}
		io := g.IO()
		n, K := g.N(), io.Count
		cfg := DefaultFlitConfig(g)
		cfg.PacketFlits = 4
		var got []Delivery
		e, err := NewFlitEngine(g, cfg, func(d *Delivery) { got = append(got, *d) })
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		if e.nterm != n+K || len(e.routers) != n+K {
			t.Fatalf("%s: %d terminals, %d routers; want %d", spec, e.nterm, len(e.routers), n+K)
		}
		r, err := NewIORouter(g)
		if err != nil {
			t.Fatal(err)
		}
		var mdv []Delivery
		me, err := NewEngine(r, DefaultParams(), func(d *Delivery) { mdv = append(mdv, *d) })
		if err != nil {
			t.Fatal(err)
		}
		stages := int64(cfg.RoutingDelay + cfg.VCAllocDelay + cfg.SwitchAllocDelay + cfg.SwitchDelay)
		nd := int32(2 * len(g.Dims()))
		ioPorts := 0
		for v := range n {
			if e.routers[v].np == nd+2 {
				ioPorts++
			} else if e.routers[v].np != nd+1 {
				t.Fatalf("%s: router %d has %d ports", spec, v, e.routers[v].np)
			}
		}
		if ioPorts != K {
			t.Fatalf("%s: %d routers with an I/O port, want %d", spec, ioPorts, K)
		}
		pairs := 0
		for s := range n + K {
			for d := range n + K {
				if s < n && d < n && (s+d)%3 != 0 {
					continue // compute pairs: a third of them suffices (the mesh is tested elsewhere)
				}
				pairs++
				got = got[:0]
				before := slices.Clone(e.portFlits)
				if err := e.Send(Message{Src: int32(s), Dst: int32(d), Tag: 7}); err != nil {
					t.Fatal(err)
				}
				q := e.Now()
				for !e.Idle() || len(got) == 0 {
					if err := e.Run(e.Now() + 1); err != nil {
						t.Fatal(err)
					}
					if e.Now()-q > 10000 {
						t.Fatalf("%s: %d -> %d never arrived", spec, s, d)
					}
				}
				if err := e.Run(e.Now() + 8); err != nil { // the last credits come home
					t.Fatal(err)
				}
				h := int64(len(r.Route(s, d, nil)))
				if len(got) != 1 {
					t.Fatalf("%s: %d -> %d: %d deliveries", spec, s, d, len(got))
				}
				dv := got[0]
				want := 1 + 2 + h*(stages+int64(cfg.LinkDelay)) + stages + 1 + int64(cfg.PacketFlits) - 1
				if dv.Src != int32(s) || dv.Dst != int32(d) || dv.Tag != 7 || dv.Hops != int(h) || dv.Arrived-dv.Queued != want {
					t.Fatalf("%s: %d -> %d: delivered %+v, latency %d; want %d hops, latency %d", spec, s, d, dv, dv.Arrived-dv.Queued, h, want)
				}
				mdv = mdv[:0]
				me.Send(Message{Src: int32(s), Dst: int32(d), Tag: 7})
				if err := me.Run(me.Now() + 1000); err != nil {
					t.Fatal(err)
				}
				if len(mdv) != 1 || mdv[0].Message != dv.Message || mdv[0].Hops != dv.Hops {
					t.Fatalf("%s: %d -> %d: message engine delivered %+v, flit engine %+v", spec, s, d, mdv, dv)
				}
				// The ports used: every router-to-router output on the route carried
				// the packet's flits, and no other port.
				from, to := s, d
				if s >= n {
					from = io.Attach(s - n)
				}
				if d >= n {
					to = io.Attach(d - n)
				}
				var usedOut []int32
				for p := range e.portFlits {
					if e.portFlits[p] != before[p] {
						if e.portFlits[p]-before[p] != int64(cfg.PacketFlits) {
							t.Fatalf("%s: %d -> %d: port %d carried %d flits", spec, s, d, p, e.portFlits[p]-before[p])
						}
						usedOut = append(usedOut, int32(p))
					}
				}
				var usedRouters, wantRouters []int32
				for _, p := range usedOut {
					usedRouters = append(usedRouters, e.portRouter[p])
				}
				if s >= n && s != d {
					wantRouters = append(wantRouters, int32(s))
				}
				for _, v := range xyNodes(g, from, to) {
					wantRouters = append(wantRouters, int32(v))
				}
				if d >= n && s != d {
					a := int32(io.Attach(d - n))
					wantRouters = append(wantRouters, a)
					// The attachment's port 2n+1, linked to I/O node d's router.
					ap := e.routers[a].base + nd + 1
					if !slices.Contains(usedOut, ap) || e.outDown[ap] != e.routers[d].base {
						t.Fatalf("%s: %d -> I/O node %d: attachment %d's I/O port %d not used (used %v)", spec, s, d-n, a, ap, usedOut)
					}
				}
				if s >= n && s != d && !slices.Contains(usedOut, e.routers[s].base) {
					t.Fatalf("%s: I/O node %d -> %d: its link not used (used %v)", spec, s-n, d, usedOut)
				}
				slices.Sort(usedRouters)
				slices.Sort(wantRouters)
				if !slices.Equal(usedRouters, wantRouters) || int64(len(usedOut)) != h {
					t.Fatalf("%s: %d -> %d: flits left routers %v, want %v (%d links)", spec, s, d, usedRouters, wantRouters, h)
				}
			}
		}
		checkDrained(t, e, spec)
		if st := e.Stats(); st.Delivered != int64(pairs) {
			t.Fatalf("%s: %d delivered of %d", spec, st.Delivered, pairs)
		}
	}
}

// TestFlitIOConservation loads a mesh with I/O nodes well past what the I/O links
// carry, compute nodes writing to I/O nodes and I/O nodes sending back, and checks
// that every packet arrives once, at its destination, and that the network drains
// to its initial state (no deadlock: the I/O links are leaves of the x-y routes).
func TestFlitIOConservation(t *testing.T) {
	g, err := topo.ParseSpec("mesh:6x5:io=left")
	if err != nil {
		t.Fatal(err)
	}
	n, K := g.N(), g.IO().Count
	for _, vcs := range []int{1, 3} {
		cfg := DefaultFlitConfig(g)
		cfg.VCs, cfg.PacketFlits = vcs, 7
		seen := map[int32]int{}
		var sent, got int64
		e, err := NewFlitEngine(g, cfg, func(d *Delivery) {
			got++
			seen[d.Tag]++
			if d.Dst != d.Tag%int32(n+K) {
				t.Fatalf("bad delivery %+v", *d)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		rng := NewRand(4, 2)
		for range 2000 {
			for s := range n + K {
				if rng.Float64() < 0.5/float64(cfg.PacketFlits) {
					var d int32
					if s < n {
						d = int32(n) + int32(rng.Uint64n(uint64(K))) // a write
						if rng.Float64() < 0.3 {
							d = int32(rng.Uint64n(uint64(n)))
						}
					} else {
						d = int32(rng.Uint64n(uint64(n + K)))
					}
					if err := e.Send(Message{Src: int32(s), Dst: d, Tag: int32(sent)*int32(n+K) + d}); err != nil {
						t.Fatal(err)
					}
					sent++
				}
			}
			if err := e.Run(e.Now() + 1); err != nil {
				t.Fatalf("%d VCs: %v", vcs, err)
			}
		}
		for !e.Idle() {
			if err := e.Run(e.Now() + 100); err != nil {
				t.Fatalf("%d VCs: %v", vcs, err)
			}
		}
		if err := e.Run(e.Now() + 10); err != nil {
			t.Fatal(err)
		}
		if got != sent || int64(len(seen)) != sent {
			t.Fatalf("%d VCs: sent %d, %d deliveries of %d distinct", vcs, sent, got, len(seen))
		}
		checkDrained(t, e, g.Spec())
		// Every virtual channel has a name, those of the I/O links naming their I/O
		// node: both ports of its router and the attachment's port for it.
		io := 0
		for v := range e.iv {
			if s := e.vcName(int32(v)); strings.Contains(s, "I/O node") {
				io++
			}
		}
		if want := 3 * K * vcs; io != want {
			t.Errorf("%d VCs: %d virtual channels named after an I/O node, want %d", vcs, io, want)
		}
	}
}

// TestFlitIOEndpoints: the I/O nodes stay terminals N..N+K-1 (a message beyond is
// refused), and uniform traffic on a mesh with I/O nodes runs among the compute
// nodes, as on the mesh without them.
func TestFlitIOEndpoints(t *testing.T) {
	g, _ := topo.ParseSpec("mesh:4x4:io=left")
	e, err := NewFlitEngine(g, DefaultFlitConfig(g), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Send(Message{Src: 0, Dst: 20}); err == nil {
		t.Error("a message to endpoint 20 of 16 compute and 4 I/O nodes was accepted")
	}
	if err := e.Send(Message{Src: 19, Dst: 0}); err != nil {
		t.Errorf("a message from I/O node 3 refused: %v", err)
	}
	if got, want := e.ZeroLoadLatency(), mustFlit(t, topo.Mesh(4, 4)).ZeroLoadLatency(); got != want {
		t.Errorf("zero-load latency %v with I/O nodes, %v without", got, want)
	}
}

func mustFlit(t *testing.T, m topo.Machine) *FlitEngine {
	t.Helper()
	e, err := NewFlitEngine(m, DefaultFlitConfig(m), nil)
	if err != nil {
		t.Fatal(err)
	}
	return e
}
