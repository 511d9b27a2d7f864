package sim

import (
	"context"
	"reflect"
	"testing"

	"github.com/procalloc/procalloc/netsim"
)

// TestReplaysShareTheRouter: the replays of one machine share its message-engine
// router, so its distance classes are found once: the copies of a Replay (compare's
// allocators) and specs given one Networks (a sweep's items, compare's load factors)
// get the same machine and router; a replay on the shared router reports what it
// reports on its own; a replay without Networks builds its own.
func TestReplaysShareTheRouter(t *testing.T) {
	ctx := context.Background()
	spec := func(a string, nets *Networks) Spec {
		s := DefaultSpec()
		s.Trace, s.To = "testdata/KTH-SP2-1996-2.converted.txt.gz", "200000"
		s.MachineSpec, s.Alloc, s.Comm = "dragonfly:hosts_per_router=2,routers_per_group=4,intergroup_links=1,num_groups=13", a, "all-to-all"
		s.Networks = nets
		return s
	}
	nets := &Networks{}
	prep := func(s Spec) *Replay {
		t.Helper()
		rp, err := s.Prepare()
		if err != nil {
			t.Fatal(err)
		}
		return rp
	}
	router := func(rp *Replay) any {
		t.Helper()
		cfg, err := rp.Config(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Comm == nil || cfg.Comm.Router == nil {
			t.Fatalf("%s: no router in the configuration", rp.Spec.Alloc)
		}
		return cfg.Comm.Router
	}
	a, b := prep(spec("bf:rcm", nets)), prep(spec("bf:name-order", nets))
	if a.Machine != b.Machine {
		t.Error("two specs given one Networks built the machine twice")
	}
	ra := router(a)
	if router(b) != ra {
		t.Error("two specs given one Networks built the router twice")
	}
	c := *a
	c.Spec.Alloc = "ff:name-order"
	if router(&c) != ra {
		t.Error("a copy of the replay (compare's next allocator) built the router again")
	}
	alone := prep(spec("bf:name-order", nil))
	if alone.Machine == a.Machine || router(alone) == ra {
		t.Error("a spec without Networks took the shared machine or router")
	}
	// The same figures on the shared router as on one's own.
	for _, p := range []*Replay{b, &c} {
		own := prep(spec(p.Spec.Alloc, nil))
		got, err := p.Run(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want, err := own.Run(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got.Comm == nil || got.Comm.DistanceClasses != 3 || got.Jobs == 0 {
			t.Fatalf("%s: no distance classes or no jobs: %+v", p.Spec.Alloc, got.Comm)
		}
		got.Seconds, want.Seconds = 0, 0
		got.AllocTime, want.AllocTime = nil, nil
		if !reflect.DeepEqual(got.Summary, want.Summary) {
			t.Errorf("%s: the replay on the shared router reports\n%+v\non its own\n%+v", p.Spec.Alloc, got.Summary, want.Summary)
		}
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

// The flit engine's tables (netsim.FlitNetwork) are shared as the message engine's
// router is: the copies of a Replay and specs given one Networks get the machine's
// one, a spec without Networks its own, and a replay on the shared tables reports
// what it reports on its own tables.
func TestFlitReplaysShareTheTables(t *testing.T) {
	ctx := context.Background()
	spec := func(a string, nets *Networks) Spec {
		s := DefaultSpec()
		s.Trace, s.To, s.DropLarger = "testdata/KTH-SP2-1996-2.converted.txt.gz", "400000", true
		s.MachineSpec, s.Alloc, s.Comm, s.Engine = "dragonfly:hosts_per_router=2,routers_per_group=4,intergroup_links=1,num_groups=13", a, "n-body", EngineFlit
		s.Flit.HopClasses, s.Flit.VCs = true, 3 // deadlock-free on a dragonfly
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
	tables := func(rp *Replay) *netsim.FlitNetwork {
		t.Helper()
		cfg, err := rp.Config(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Comm == nil || cfg.Comm.FlitNetwork == nil || cfg.Comm.FlitNetwork.Machine() != rp.Machine {
			t.Fatalf("%s: no flit tables of the machine in the configuration", rp.Spec.Alloc)
		}
		return cfg.Comm.FlitNetwork
	}
	nets := &Networks{}
	a, b := prep(spec("bf:rcm", nets)), prep(spec("bf:name-order", nets))
	if a.Machine != b.Machine {
		t.Error("two flit specs given one Networks built the machine twice")
	}
	ta := tables(a)
	if tables(b) != ta {
		t.Error("two flit specs given one Networks built the tables twice")
	}
	c := *a
	c.Spec.Alloc = "ff:name-order"
	if tables(&c) != ta {
		t.Error("a copy of the flit replay (compare's next allocator) built the tables again")
	}
	if alone := prep(spec("bf:rcm", nil)); tables(alone) == ta {
		t.Error("a spec without Networks took the shared tables")
	}
	for _, p := range []*Replay{b} {
		own := prep(spec(p.Spec.Alloc, nil))
		got, err := p.Run(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want, err := own.Run(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got.Comm == nil || got.Comm.Messages == 0 || got.Jobs < 2 {
			t.Fatalf("%s: no messages or under two jobs: %d jobs, %+v", p.Spec.Alloc, got.Jobs, got.Comm)
		}
		got.Seconds, want.Seconds = 0, 0
		got.AllocTime, want.AllocTime = nil, nil
		if !reflect.DeepEqual(got.Summary, want.Summary) {
			t.Errorf("%s: the flit replay on the shared tables reports\n%+v\non its own\n%+v", p.Spec.Alloc, got.Summary, want.Summary)
		}
	}
}
