package netsim

import (
	"bytes"
	"math/rand/v2"
	"os"
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

// The all-to-all route load of a graph, counted on in-trees, is the traced one: on
// fat trees, dragonflies, the sample fabrics and graphs with hosts on several links,
// host-host links and no switches at all, for random jobs of every size.
func TestAllToAllGraphLoadMatchesTrace(t *testing.T) {
	var graphs []*topo.Graph
	for _, spec := range []string{"fattree:4,4:8", "fattree:4,4:4,4:8", "fattree:2,2:2,2:2,2:2,2:2", "fattree:3,3:6",
		"dragonfly:hosts_per_router=2,routers_per_group=4,intergroup_links=1,num_groups=9",
		"dragonfly:hosts_per_router=1,routers_per_group=3,intergroup_links=2,num_groups=5"} {
		m, err := topo.ParseMachine(spec)
		if err != nil {
			t.Fatal(err)
		}
		graphs = append(graphs, m.(*topo.Graph))
	}
	for _, f := range []string{"fattree.ibnetdiscover-p", "topology.conf", "topology.yaml"} {
		b, err := os.ReadFile("../topo/testdata/" + f)
		if err != nil {
			t.Fatal(err)
		}
		g, err := topo.ReadGraphFormat(bytes.NewReader(b), topo.GraphReadOptions{})
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		graphs = append(graphs, g)
	}
	for _, text := range []string{
		"%switch s\n%switch t\na s\nb s\nc s\nc t\nd t\nd e\ne t\nf e\n",
		"%switch s\n%switch t\n%switch u\na s\nb s\nc t\nd t\ns u\nt u\ng u\n",
		"0 1\n1 2\n2 3\n3 0\n1 4\n",
	} {
		g, err := topo.ReadGraph(strings.NewReader(text))
		if err != nil {
			t.Fatal(err)
		}
		graphs = append(graphs, g)
	}
	torus, err := topo.ParseSpec("torus:5x4")
	if err != nil {
		t.Fatal(err)
	}
	graphs = append(graphs, topo.GraphOf(torus))
	rng := rand.New(rand.NewPCG(7, 8))
	for _, g := range graphs {
		r, err := NewGraphRouter(g)
		if err != nil {
			t.Fatal(err)
		}
		pat, err := ParsePattern("all-to-all")
		if err != nil {
			t.Fatal(err)
		}
		m := NewRouteMeter(r, pat, 1)
		if m.graph == nil {
			t.Fatalf("%s: the all-to-all meter does not count on in-trees", g.Spec())
		}
		for job := range 60 {
			k := 1 + rng.IntN(g.N())
			if job == 0 {
				k = g.N()
			}
			nodes := rng.Perm(g.N())[:k]
			got, want := m.allToAllGraphLoad(nodes), m.enumerate(job, nodes)
			if got != want {
				t.Fatalf("%s, job on %v: in-tree count %+v, trace %+v", g.Spec(), nodes, got, want)
			}
		}
	}
}
