package alloc

import (
	"strings"
	"testing"

	"github.com/procalloc/procalloc/topo"
)

// opt needs node coordinates and a positive budget: clear errors otherwise.
func TestOptBadInput(t *testing.T) {
	g, err := topo.NewGraphFromEdges(4, [][2]int{{0, 1}, {1, 2}, {2, 3}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Parse("opt", g, Options{}); err == nil || !strings.Contains(err.Error(), "coordinates") {
		t.Errorf("opt on a graph: %v", err)
	}
	for _, spec := range []string{"opt:nodes=0", "opt:nodes=-5", "opt:5", "opt:nodes=x"} {
		if _, err := Parse(spec, topo.Mesh(4, 4), Options{}); err == nil || !strings.Contains(err.Error(), "nodes=N") {
			t.Errorf("%s: %v", spec, err)
		}
	}
	a, err := Parse("opt:nodes=500", topo.Mesh(4, 4), Options{})
	if err != nil || a.Name() != "opt:nodes=500" {
		t.Fatalf("%v %v", a, err)
	}
}
