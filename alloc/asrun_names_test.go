package alloc

import (
	"strings"
	"testing"

	"github.com/procalloc/procalloc/topo"
	"github.com/procalloc/procalloc/topo/hostlist"
)

// Options.Names names a grid's nodes for as-run and Slurm's emulators; a count that
// does not fit or a name given twice is refused, naming it.
func TestOptionsNames(t *testing.T) {
	m, _ := topo.ParseSpec("mesh:2x2")
	a, err := Parse("as-run", m, Options{Names: []string{"d", "c", "b", "a"}})
	if err != nil {
		t.Fatal(err)
	}
	nodes, err := a.(Placer).Place(hostlist.NewTable().List([]string{"a", "c"}))
	if err != nil || len(nodes) != 2 || nodes[0] != 1 || nodes[1] != 3 {
		t.Fatalf("Place(a, c) = %v, %v; want [1 3]", nodes, err)
	}
	if _, err := a.(Placer).Place(hostlist.NewTable().List([]string{"0"})); err == nil || !strings.Contains(err.Error(), `"0"`) {
		t.Fatalf("an index where names are given: %v", err)
	}
	for _, spec := range []string{"as-run", "slurm:consec"} {
		if _, err := Parse(spec, m, Options{Names: []string{"a", "b", "c"}}); err == nil || !strings.Contains(err.Error(), "3 host names for the 4 nodes") {
			t.Errorf("%s with 3 names: %v", spec, err)
		}
		if _, err := Parse(spec, m, Options{Names: []string{"a", "b", "a", "c"}}); err == nil || !strings.Contains(err.Error(), `host "a" is named twice`) {
			t.Errorf("%s with a name twice: %v", spec, err)
		}
	}
}
