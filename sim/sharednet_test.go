package sim

import (
	"cmp"
	"context"
	"reflect"
	"testing"
)

// TestReplaysShareTheRouting: the replays of one machine share its routing, the
// message engine's router (so its distance classes are found once) or the flit
// engine's tables (netsim.FlitNetwork): the copies of a Replay (compare's
// allocators) and specs given one Networks (a sweep's items, compare's load
// factors) get the same machine and routing; a replay on the shared routing reports
// what it reports on its own; a replay without Networks builds its own.
func TestReplaysShareTheRouting(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		engine Engine
		set    func(*Spec)
		// routing is the shared routing in a configuration, nil without it.
		routing func(*Comm) any
		// ok says whether a report has the communication figures looked for.
		ok func(*Report) bool
	}{
		{EngineMessage, func(s *Spec) { s.To, s.Comm = "200000", "all-to-all" },
			func(c *Comm) any {
				if c.Router == nil {
					return nil
				}
				return c.Router
			},
			func(r *Report) bool { return r.Comm.DistanceClasses == 3 && r.Jobs > 0 }},
		{EngineFlit, func(s *Spec) {
			s.To, s.Comm, s.DropLarger = "400000", "n-body", true
			s.Flit.HopClasses, s.Flit.VCs = true, 3 // deadlock-free on a dragonfly
		},
			func(c *Comm) any {
				if c.FlitNetwork == nil {
					return nil
				}
				return c.FlitNetwork
			},
			func(r *Report) bool { return r.Comm.Messages > 0 && r.Jobs > 1 }},
	} {
		t.Run(cmp.Or(string(c.engine), "message"), func(t *testing.T) {
			spec := func(a string, nets *Networks) Spec {
				s := DefaultSpec()
				s.Trace = "testdata/KTH-SP2-1996-2.converted.txt.gz"
				s.MachineSpec, s.Alloc, s.Engine = "dragonfly:hosts_per_router=2,routers_per_group=4,intergroup_links=1,num_groups=13", a, c.engine
				c.set(&s)
				s.Networks = nets
				return s
			}
			prep := func(s Spec) *Replay {
				t.Helper()
				rp, err := s.Prepare()
				if err != nil {
					t.Fatal(err)
				}
				return rp
			}
			routing := func(rp *Replay) any {
				t.Helper()
				cfg, err := rp.Config(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if cfg.Comm == nil || cfg.Comm.Engine != c.engine || c.routing(cfg.Comm) == nil {
					t.Fatalf("%s: no routing in the configuration", rp.Spec.Alloc)
				}
				return c.routing(cfg.Comm)
			}
			nets := &Networks{}
			a, b := prep(spec("bf:rcm", nets)), prep(spec("bf:name-order", nets))
			if a.Machine != b.Machine {
				t.Error("two specs given one Networks built the machine twice")
			}
			ra := routing(a)
			if routing(b) != ra {
				t.Error("two specs given one Networks built the routing twice")
			}
			cp := *a
			cp.Spec.Alloc = "ff:name-order"
			if routing(&cp) != ra {
				t.Error("a copy of the replay (compare's next allocator) built the routing again")
			}
			alone := prep(spec("bf:name-order", nil))
			if alone.Machine == a.Machine || routing(alone) == ra {
				t.Error("a spec without Networks took the shared machine or routing")
			}
			// The same figures on the shared routing as on one's own.
			for _, p := range []*Replay{b, &cp} {
				own := prep(spec(p.Spec.Alloc, nil))
				got, err := p.Run(ctx)
				if err != nil {
					t.Fatal(err)
				}
				want, err := own.Run(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if got.Comm == nil || !c.ok(got) {
					t.Fatalf("%s: not the communication figures looked for (%d jobs): %+v", p.Spec.Alloc, got.Jobs, got.Comm)
				}
				got.Seconds, want.Seconds = 0, 0
				got.AllocTime, want.AllocTime = nil, nil
				if !reflect.DeepEqual(got.Summary, want.Summary) {
					t.Errorf("%s: the replay on the shared routing reports\n%+v\non its own\n%+v", p.Spec.Alloc, got.Summary, want.Summary)
				}
			}
		})
	}
}

// A Networks drops a machine with the last replay announced for it (Expect), keeps
// it while one is left, and keeps the machines of replays never announced; the
// function of a replay that does not take part, and a second call, change nothing.
func TestNetworksDropAMachineAfterItsLastReplay(t *testing.T) {
	spec := func(machine string, nets *Networks) *Spec {
		s := DefaultSpec()
		s.Trace, s.To = "testdata/KTH-SP2-1996-2.converted.txt.gz", "200000"
		s.MachineSpec, s.Alloc, s.Comm, s.DropLarger = machine, "bf:rcm", "all-to-all", true
		s.Networks = nets
		return &s
	}
	prep := func(s *Spec) *Replay {
		t.Helper()
		rp, err := s.Prepare()
		if err != nil {
			t.Fatal(err)
		}
		return rp
	}
	nets := &Networks{}
	mesh, torus := spec("mesh:10x10", nets), spec("torus:8x8", nets)
	none := spec("mesh:10x10", nets)
	none.Comm = ""
	endMesh1, endMesh2, endTorus, endNone := nets.Expect(mesh), nets.Expect(mesh), nets.Expect(torus), nets.Expect(none)
	if got := nets.Machines(); got != 0 {
		t.Fatalf("%d machines held before any replay, want 0", got)
	}
	first := prep(mesh).Machine
	endMesh1()
	endMesh1() // a second call changes nothing
	endNone()  // nor does one of a replay without communication
	if got := nets.Machines(); got != 1 {
		t.Fatalf("after the first of two mesh replays, %d machines held, want 1", got)
	}
	if prep(mesh).Machine != first {
		t.Error("the second mesh replay built the machine again")
	}
	endMesh2()
	if got := nets.Machines(); got != 0 {
		t.Fatalf("after the last mesh replay, %d machines held, want 0", got)
	}
	prep(torus)
	if got := nets.Machines(); got != 1 {
		t.Fatalf("during the torus replay, %d machines held, want 1", got)
	}
	endTorus()
	if got := nets.Machines(); got != 0 {
		t.Fatalf("after the torus replay, %d machines held, want 0", got)
	}
	// Replays never announced keep their machine for the next.
	again := prep(mesh).Machine
	if again == first {
		t.Error("a mesh replay after the last announced one got the dropped machine")
	}
	if prep(mesh).Machine != again || nets.Machines() != 1 {
		t.Error("replays never announced do not share their machine")
	}
}
