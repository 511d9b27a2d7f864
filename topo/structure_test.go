package topo

import (
	"strings"
	"testing"
)

// TestStructureRecognised: a dragonfly's shape and a fat tree's levels are found
// from the links; machines without them are not taken for them.
func TestStructureRecognised(t *testing.T) {
	df, err := Dragonfly(2, 4, 1, 5)
	if err != nil {
		t.Fatal(err)
	}
	want := DragonflyShape{HostsPerRouter: 2, RoutersPerGroup: 4, Groups: 5}
	if s, ok := df.Dragonfly(); !ok || s != want {
		t.Errorf("dragonfly 2,4,1,5: shape %+v, %v", s, ok)
	}
	// From the links alone (a file's dragonfly has no builder's record).
	if s, ok := recogniseDragonfly(df); !ok || s != want {
		t.Errorf("dragonfly 2,4,1,5: recognised %+v, %v", s, ok)
	}
	ft, err := ParseMachine("fattree:4,4:4,4:8")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := ft.(*Graph).Dragonfly(); ok {
		t.Error("a fat tree was taken for a dragonfly")
	}
	tl, reason := ft.(*Graph).TreeLevels()
	if tl == nil || len(tl.ByLevel) != 3 {
		t.Fatalf("fattree:4,4:4,4:8: levels %v (%s), want 3", tl, reason)
	}
	if tl, _ := df.TreeLevels(); tl != nil {
		t.Error("a dragonfly was taken for a tree (its global links join routers of one level)")
	}
	ring, err := ReadGraph(strings.NewReader("%switch a\n%switch b\n%switch c\nh1 a\nh2 b\nh3 c\na b\nb c\nc a\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := ring.Dragonfly(); !ok {
		t.Error("three routers joined in a ring with a host each: one group of a dragonfly, not recognised")
	}
	if tl, reason := ring.TreeLevels(); tl != nil || reason == "" {
		t.Errorf("a ring of switches taken for a tree: %v", tl)
	}
}
