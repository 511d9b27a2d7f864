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

// TestMeasureNodeOutsideTheNetwork: MeasureContext refuses a node that is not an
// endpoint with an error naming it, on every kind of meter (it indexed out of range).
func TestMeasureNodeOutsideTheNetwork(t *testing.T) {
	ft, err := topo.ParseMachine("fattree:3,3:3")
	if err != nil {
		t.Fatal(err)
	}
	for _, mc := range []topo.Machine{topo.Mesh(3, 3), topo.Torus(3, 3), ft} {
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
				_, err := m.MeasureContext(context.Background(), 0, []int{0, bad, 2})
				if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("node %d", bad)) {
					t.Errorf("%s, %s: node %d: err %v, want one naming it", mc.Spec(), pat.Name(), bad, err)
				}
			}
			if _, err := m.MeasureContext(context.Background(), 0, []int{0, 4, 8}); err != nil {
				t.Errorf("%s, %s: nodes 0, 4, 8: %v", mc.Spec(), pat.Name(), err)
			}
		}
	}
}
