package alloc

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/topo"
	"github.com/procalloc/procalloc/topo/hostlist"
)

// NewAsRun is Parse("as-run") without Options: on a grid (nodes named by index) and
// on a graph (its host names) the two place every recorded list on the same nodes,
// refuse the same lists, and neither chooses nodes itself.
func TestNewAsRunMatchesParse(t *testing.T) {
	g, err := topo.ReadGraph(strings.NewReader("%switch s\na s\nb s\nc s\nd s\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		m     topo.Machine
		lists [][]string
	}{
		{topo.Mesh(4, 4), [][]string{{"15", "0"}, {"3", "7", "11"}, {"16"}, {"0"}}},
		{g, [][]string{{"c", "a"}, {"d"}, {"e"}, {"a"}}},
	} {
		parsed, err := Parse("as-run", c.m, Options{})
		if err != nil {
			t.Fatal(err)
		}
		built := NewAsRun(c.m)
		if _, err := built.Allocate(1); !errors.Is(err, ErrNoPlacement) {
			t.Fatalf("%s: NewAsRun's Allocate: %v", c.m.Spec(), err)
		}
		for _, l := range c.lists {
			want, werr := parsed.(Placer).Place(hostlist.NewTable().List(l))
			got, gerr := built.Place(hostlist.NewTable().List(l))
			if !slices.Equal(got, want) || (gerr == nil) != (werr == nil) || built.NumFree() != parsed.NumFree() {
				t.Fatalf("%s: Place(%v): NewAsRun %v, %v (%d free); Parse %v, %v (%d free)", c.m.Spec(), l, got, gerr, built.NumFree(), want, werr, parsed.NumFree())
			}
		}
	}
}
