package netsim

import (
	"bytes"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/slurm"
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
			for v := 0; v != dst; v = r.next(dst, v) {
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
// allocated, naming the sizes (200,704 hosts x 13,568 switches would be 10 GiB).
func TestGraphRouterRefusesHugeTables(t *testing.T) {
	m, err := topo.ParseMachine("fattree:32,32:32,32:196")
	if err != nil {
		t.Fatal(err)
	}
	_, err = NewRouter(m)
	if err == nil || !strings.Contains(err.Error(), "200704 hosts x 13568 vertices") {
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
	graphs = append(graphs, sampleFabrics(t)...)
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
			got, want := m.allToAllGraphLoad(nodes), m.traced(job, nodes)
			if got != want {
				t.Fatalf("%s, job on %v: in-tree count %+v, trace %+v", g.Spec(), nodes, got, want)
			}
		}
	}
}

// The subtree count of a fat tree (treeModel) equals the trace of every route, on
// merlin fat trees of 1 to 4 levels, Slurm-like trees and real fabrics where the
// model applies, for random job node sets and runs of consecutive hosts; where it
// does not apply (dragonflies, a ring) the meter says so and counts on in-trees.
func TestAllToAllTreeLoadMatchesTrace(t *testing.T) {
	type fabric struct {
		g     *topo.Graph
		model bool // the tree model must apply
	}
	var fabrics []fabric
	for _, spec := range []string{"fattree:4,4:8", "fattree:4,4:4,4:8", "fattree:2,2:2,2:2,2:2,2:2", "fattree:3,3:6",
		"fattree:4,2:4,2:4", "fattree:2,4:2,4:8", "fattree:3,2:4,3:6", "fattree:5", "fattree:2,3:3,2:4,2:4",
		"fattree:4,4:4,4:4,4:4,4:4"} {
		m, err := topo.ParseMachine(spec)
		if err != nil {
			t.Fatal(err)
		}
		fabrics = append(fabrics, fabric{m.(*topo.Graph), true})
	}
	for _, spec := range []string{"dragonfly:hosts_per_router=2,routers_per_group=4,intergroup_links=1,num_groups=9",
		"dragonfly:hosts_per_router=1,routers_per_group=3,intergroup_links=2,num_groups=5"} {
		m, err := topo.ParseMachine(spec)
		if err != nil {
			t.Fatal(err)
		}
		fabrics = append(fabrics, fabric{m.(*topo.Graph), false})
	}
	for _, g := range sampleFabrics(t) {
		fabrics = append(fabrics, fabric{g, false})
	}
	for _, text := range []string{
		// a two-level tree, a three-level tree with uneven fan-out
		"%switch s\n%switch t\n%switch u\na s\nb s\nc t\nd t\ns u\nt u\n",
		"%switch s\n%switch t\n%switch u\n%switch v\n%switch w\n%switch x\n%switch y\na s\nb s\nc s\nd t\ne u\nf u\ng x\ns v\nt v\nu v\nx y\nv w\ny w\n",
		"0 1\n1 2\n2 3\n3 0\n1 4\n",
	} {
		g, err := topo.ReadGraph(strings.NewReader(text))
		if err != nil {
			t.Fatal(err)
		}
		fabrics = append(fabrics, fabric{g, strings.HasPrefix(text, "%")})
	}
	pat, err := ParsePattern("all-to-all")
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(9, 10))
	modelled := 0
	for _, f := range fabrics {
		g := f.g
		r, err := NewGraphRouter(g)
		if err != nil {
			t.Fatal(err)
		}
		m := NewRouteMeter(r, pat, 1)
		_, why := newTreeModel(g)
		if f.model && m.tree == nil {
			t.Fatalf("%s: the tree model does not apply: %s", g.Spec(), why)
		}
		if m.tree == nil {
			t.Logf("%s: in-trees (%s)", g.Spec(), why)
			continue
		}
		modelled++
		lean, err := NewMachineRouteMeter(g, pat, 1)
		if err != nil {
			t.Fatal(err)
		}
		if lean.tree == nil || lean.r != nil {
			t.Fatalf("%s: NewMachineRouteMeter built a router (tree model %v)", g.Spec(), lean.tree != nil)
		}
		jobs := 40
		for job := range jobs {
			k := 2 + rng.IntN(min(g.N(), 300)-1)
			if job == 0 {
				k = min(g.N(), 600)
			}
			var nodes []int
			if job%2 == 1 {
				off := rng.IntN(g.N() - k + 1)
				for i := range k {
					nodes = append(nodes, off+i)
				}
			} else {
				nodes = rng.Perm(g.N())[:k]
			}
			got, want := mustMeasure(t, m, job, nodes), m.traced(job, nodes)
			if got != want {
				t.Fatalf("%s, job on %d hosts %v: subtree count %+v, trace %+v", g.Spec(), k, nodes, got, want)
			}
			if got := mustMeasure(t, lean, job, nodes); got != want {
				t.Fatalf("%s, job on %d hosts: NewMachineRouteMeter %+v, trace %+v", g.Spec(), k, got, want)
			}
		}
		for _, nodes := range [][]int{{0}, {}} {
			if got := mustMeasure(t, m, 0, nodes); got != (RouteLoad{}) {
				t.Fatalf("%s, job on %v: %+v, want nothing", g.Spec(), nodes, got)
			}
		}
	}
	if modelled < 10 {
		t.Fatalf("the tree model applied to %d fabrics", modelled)
	}
}

// The memo of in-tree counts answers a repeated node list with its own load and
// never another list's: a list differing in one node is counted again.
func TestRouteMemoAnswersOnlyTheSameList(t *testing.T) {
	m0, err := topo.ParseMachine("dragonfly:hosts_per_router=2,routers_per_group=4,intergroup_links=1,num_groups=9")
	if err != nil {
		t.Fatal(err)
	}
	pat, err := ParsePattern("all-to-all")
	if err != nil {
		t.Fatal(err)
	}
	gr, err := NewGraphRouter(m0.(*topo.Graph)) // shortest paths: in-trees
	if err != nil {
		t.Fatal(err)
	}
	m := NewRouteMeter(gr, pat, 1)
	if m.graph == nil || m.tree != nil {
		t.Fatal("the dragonfly is not counted on in-trees")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	n := m0.N()
	var lists [][]int
	for range 30 {
		nodes := rng.Perm(n)[:2+rng.IntN(n-2)]
		lists = append(lists, nodes)
		other := slices.Clone(nodes)
		for {
			other[0] = rng.IntN(n)
			if !slices.Contains(nodes[1:], other[0]) {
				break
			}
		}
		lists = append(lists, other, slices.Clone(nodes))
	}
	for round := range 2 {
		for i, nodes := range lists {
			got, want := mustMeasure(t, m, i, nodes), m.traced(i, nodes)
			if got != want {
				t.Fatalf("round %d, list %d %v: %+v, trace %+v", round, i, nodes, got, want)
			}
		}
	}
	if len(m.memo.m) == 0 {
		t.Fatal("the memo holds nothing")
	}
}

// sampleFabrics reads the sample fat tree of topo/testdata in three of its forms
// (ibnetdiscover -p, topology.conf, topology.yaml; slurm.ReadGraphFormat detects each).
func sampleFabrics(t testing.TB) []*topo.Graph {
	t.Helper()
	var gs []*topo.Graph
	for _, f := range []string{"fattree.ibnetdiscover-p", "topology.conf", "topology.yaml"} {
		b, err := os.ReadFile("../topo/testdata/" + f)
		if err != nil {
			t.Fatal(err)
		}
		g, err := slurm.ReadGraphFormat(bytes.NewReader(b), slurm.GraphReadOptions{})
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		gs = append(gs, g)
	}
	return gs
}
