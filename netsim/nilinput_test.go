package netsim

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/topo"
)

// TestNilInputsAreErrors: a nil machine, router or pattern is an error from the
// constructors, not a nil dereference later.
func TestNilInputsAreErrors(t *testing.T) {
	if _, err := NewRouter(nil); err == nil {
		t.Error("NewRouter(nil): no error")
	}
	if _, err := NewEngine(nil, DefaultParams(), nil); err == nil {
		t.Error("NewEngine(nil router): no error")
	}
	if _, err := NewMachineRouteMeter(topo.Mesh(2, 2), nil, 0); err == nil {
		t.Error("NewMachineRouteMeter(nil pattern): no error")
	}
	r, err := NewRouter(topo.Mesh(2, 2))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewEngine(r, DefaultParams(), nil); err != nil {
		t.Errorf("NewEngine on a 2x2 mesh: %v", err)
	}
}

// TestSendOutsideTheNetworkIsAnError: both engines refuse a message whose source or
// destination is not an endpoint (the message engine indexed out of range before),
// queue nothing for it, and still deliver a good message sent after it.
func TestSendOutsideTheNetworkIsAnError(t *testing.T) {
	r, err := NewRouter(topo.Mesh(2, 2))
	if err != nil {
		t.Fatal(err)
	}
	e, err := NewEngine(r, DefaultParams(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []Message{{Src: -1, Dst: 0}, {Src: 4, Dst: 0}, {Src: 0, Dst: 4}, {Src: 0, Dst: -3}, {Src: 1 << 30, Dst: 1}} {
		if err := e.Send(m); err == nil || !strings.Contains(err.Error(), "endpoints of") {
			t.Errorf("message engine: Send(%d -> %d) = %v, want an error naming the endpoints", m.Src, m.Dst, err)
		}
	}
	if !e.Idle() {
		t.Fatal("a refused message was queued")
	}
	if err := e.Send(Message{Src: 0, Dst: 3}); err != nil {
		t.Fatalf("Send(0 -> 3) on a 2x2 mesh: %v", err)
	}
	if err := e.Run(1 << 20); err != nil {
		t.Fatal(err)
	}
	if !e.Idle() {
		t.Error("the good message was not delivered")
	}
}

// TestMeasureNodeOutsideTheNetwork: Measure and MeasureContext refuse a node that
// is not an endpoint with an error naming it and the zero load, on every kind of
// meter (MeasureContext indexed out of range, then Measure panicked).
func TestMeasureNodeOutsideTheNetwork(t *testing.T) {
	var machines []topo.Machine
	for _, spec := range []string{"mesh:3x3", "torus:3x3", "fattree:3,3:3", "dragonfly:hosts_per_router=1,routers_per_group=3,intergroup_links=1,num_groups=3", ""} {
		var m topo.Machine
		var err error
		if spec == "" { // a ring of 9 hosts: a graph (GraphRouter)
			m, err = topo.ReadGraph(strings.NewReader("n0 n1\nn1 n2\nn2 n3\nn3 n4\nn4 n5\nn5 n6\nn6 n7\nn7 n8\nn8 n0\n"))
		} else {
			m, err = topo.ParseMachine(spec)
		}
		if err != nil {
			t.Fatal(err)
		}
		machines = append(machines, m)
	}
	for _, mc := range machines {
		for _, name := range []string{"all-to-all", "n-body"} {
			pat, err := ParsePattern(name)
			if err != nil {
				t.Fatal(err)
			}
			m, err := NewMachineRouteMeter(mc, pat, 1)
			if err != nil {
				t.Fatal(err)
			}
			for _, bad := range []int{-1, 9, 1 << 40} {
				l, err := m.MeasureContext(context.Background(), 0, []int{0, bad, 2})
				if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("node %d", bad)) || l != (RouteLoad{}) {
					t.Errorf("%s, %s: node %d: MeasureContext %+v, err %v, want no load and an error naming it", mc.Spec(), pat.Name(), bad, l, err)
				}
				l, err2 := m.Measure(0, []int{0, bad, 2})
				if err2 == nil || err2.Error() != err.Error() || l != (RouteLoad{}) {
					t.Errorf("%s, %s: node %d: Measure %+v, err %v, want MeasureContext's error %v", mc.Spec(), pat.Name(), bad, l, err2, err)
				}
			}
			for _, ok := range [][]int{{0, 4, 8}, {8, 0}} {
				a, err := m.Measure(0, ok)
				if err != nil || a.Messages == 0 {
					t.Errorf("%s, %s: nodes %v: %+v, %v", mc.Spec(), pat.Name(), ok, a, err)
				}
			}
		}
	}
}
