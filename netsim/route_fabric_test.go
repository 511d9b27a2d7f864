package netsim

import (
	"strings"
	"testing"

	"github.com/procalloc/procalloc/topo"
)

// On fat trees the destination-modulo rule spreads one host's routes over every top
// switch (with the smallest-index rule they all climbed through one), and the routes
// stay shortest.
func TestFatTreeRoutesSpread(t *testing.T) {
	for _, c := range []struct {
		shape string
		tops  int
	}{{"4,4:8", 4}, {"4,4:4,4:8", 16}} {
		m, err := topo.ParseMachine("fattree:" + c.shape)
		if err != nil {
			t.Fatal(err)
		}
		g := m.(*topo.Graph)
		r, err := NewGraphRouter(g)
		if err != nil {
			t.Fatal(err)
		}
		lv := topo.SwitchLevels(g)
		top := 0
		for _, l := range lv {
			top = max(top, l)
		}
		// Channel -> the vertex it leads to, from the router's own tables.
		used := map[int]bool{}
		for dst := 1; dst < g.N(); dst++ {
			if got := len(r.Route(0, dst, nil)); got != g.Dist(0, dst) {
				t.Fatalf("%s: route 0->%d has %d hops, distance %d", c.shape, dst, got, g.Dist(0, dst))
			}
			for v := 0; v != dst; v = int(r.next[dst*r.nv+v]) {
				if v >= g.N() && lv[v-g.N()] == top {
					used[v] = true
				}
			}
		}
		if len(used) != c.tops {
			t.Fatalf("%s: host 0's routes climb through %d of %d top switches", c.shape, len(used), c.tops)
		}
	}
}

// A fabric whose next-hop table would not fit is refused before the table is
// allocated, naming the sizes (200,704 hosts x 214,272 vertices would be 328 GiB).
func TestGraphRouterRefusesHugeTables(t *testing.T) {
	m, err := topo.ParseMachine("fattree:32,32:32,32:196")
	if err != nil {
		t.Fatal(err)
	}
	_, err = NewRouter(m)
	if err == nil || !strings.Contains(err.Error(), "200704 hosts x 214272 vertices") {
		t.Fatalf("error %v, want the table's size", err)
	}
}
