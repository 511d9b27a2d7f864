package netsim

import (
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
