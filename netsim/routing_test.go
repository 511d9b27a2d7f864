package netsim

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/topo"
)

// edgeList writes g as topo.ReadGraph reads it: hosts, then switches, in index
// order, then every link once.
func edgeList(g *topo.Graph) string {
	var b strings.Builder
	for v := range g.Vertices() {
		if g.IsSwitch(v) {
			fmt.Fprintf(&b, "%%switch %s\n", g.Name(v))
		} else {
			fmt.Fprintf(&b, "%%node %s\n", g.Name(v))
		}
	}
	var nb []int
	for v := range g.Vertices() {
		for _, w := range g.Neighbors(v, nb[:0]) {
			if v < w {
				fmt.Fprintf(&b, "%s %s\n", g.Name(v), g.Name(w))
			}
		}
	}
	return b.String()
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
