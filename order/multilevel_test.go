package order

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/topo"
)

// checkMachineContract checks topo.Machine's contract on m: Neighbors ascending,
// within the vertices and symmetric, and Dist between nodes equal to the hop distance
// over Neighbors (a breadth-first search from every node), zero on the diagonal.
func checkMachineContract(t *testing.T, m topo.Machine) {
	t.Helper()
	nv := topo.Vertices(m)
	adj := make([][]int, nv)
	for v := range nv {
		adj[v] = m.Neighbors(v, nil)
		if !slices.IsSorted(adj[v]) {
			t.Fatalf("%s: Neighbors(%d) = %v not ascending", m.Spec(), v, adj[v])
		}
		for _, x := range adj[v] {
			if x < 0 || x >= nv || x == v {
				t.Fatalf("%s: Neighbors(%d) has %d (%d vertices)", m.Spec(), v, x, nv)
			}
		}
	}
	for v := range nv {
		for _, x := range adj[v] {
			if _, ok := slices.BinarySearch(adj[x], v); !ok {
				t.Fatalf("%s: %d lists %d as neighbour, not the reverse", m.Spec(), v, x)
			}
		}
	}
	level := make([]int, nv)
	for a := range m.N() {
		for i := range level {
			level[i] = -1
		}
		topo.BreadthFirst(m, a, level, nil, nil)
		for b := range m.N() {
			if d := m.Dist(a, b); d != level[b] {
				t.Fatalf("%s: Dist(%d, %d) = %d, hop distance over Neighbors %d", m.Spec(), a, b, d, level[b])
			}
		}
	}
}

// checkClusters checks that cl partitions the n nodes into k clusters, members
// ascending, and that expanding any coarse order gives an ordering of all n nodes
// with every cluster contiguous.
func checkClusters(t *testing.T, m topo.Machine, cl *clusters, k int, rng *rand.Rand) {
	t.Helper()
	n := m.N()
	seen := make([]bool, n)
	for c := range k {
		mem := cl.members(c)
		if len(mem) == 0 || !slices.IsSorted(mem) {
			t.Fatalf("%s: cluster %d members %v", m.Spec(), c, mem)
		}
		for _, v := range mem {
			if seen[v] {
				t.Fatalf("%s: node %d in two clusters", m.Spec(), v)
			}
			seen[v] = true
		}
	}
	if slices.Contains(seen, false) {
		t.Fatalf("%s: a node is in no cluster", m.Spec())
	}
	co := rng.Perm(k)
	o := expand(context.Background(), m, cl, co)
	if err := curves.Order(o).Validate(n); err != nil {
		t.Fatalf("%s: expanded order: %v", m.Spec(), err)
	}
	at := 0
	for _, c := range co {
		mem := cl.members(c)
		got := slices.Clone(o[at : at+len(mem)])
		slices.Sort(got)
		for i, v := range mem {
			if got[i] != int(v) {
				t.Fatalf("%s: cluster %d not contiguous at ranks %d..%d", m.Spec(), c, at, at+len(mem)-1)
			}
		}
		at += len(mem)
	}
}

// TestMultilevelCoarseMachine: the coarse level of the multilevel scheme is a
// topo.Machine that keeps the contract (hop distances over its Neighbors), its
// distances are the fine distances of the clusters' first members, and its clusters
// partition the machine and expand into orderings that keep them contiguous; on
// grids the coarse machine is the grid of 2x boxes.
func TestMultilevelCoarseMachine(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	coarsened := 0
	// Graphs with groups: switched fabrics with %group lines, hosts with one or two
	// switch links and some host-to-host links (paths through other clusters' members).
	for trial := range 6 {
		var sb strings.Builder
		switches, hosts := 3+rng.IntN(4), 12+rng.IntN(20)
		for s := range switches {
			fmt.Fprintf(&sb, "%%switch s%d\n", s)
		}
		for s := 1; s < switches; s++ {
			fmt.Fprintf(&sb, "s%d s%d\n", rng.IntN(s), s)
		}
		under := make([][]string, switches)
		for h := range hosts {
			a := rng.IntN(switches)
			fmt.Fprintf(&sb, "h%d s%d\n", h, a)
			under[a] = append(under[a], fmt.Sprintf("h%d", h))
			if trial%2 == 1 && rng.IntN(4) == 0 {
				fmt.Fprintf(&sb, "h%d h%d\n", h, (h+1+rng.IntN(hosts-1))%hosts)
			}
		}
		for s, hs := range under {
			if len(hs) > 1 && s != 0 { // switch 0's hosts stay ungrouped: singleton clusters
				fmt.Fprintf(&sb, "%%group s%d: %s\n", s, strings.Join(hs, " "))
			}
		}
		g, err := topo.ReadGraph(strings.NewReader(sb.String()))
		if err != nil {
			t.Fatalf("trial %d: %v\n%s", trial, err, sb.String())
		}
		coarse, cl, what := coarsen(g)
		if coarse == nil {
			continue // fewer than 3 clusters, or every node its own
		}
		coarsened++
		cm, ok := coarse.(*clusterMachine)
		if !ok || what == "" {
			t.Fatalf("trial %d: coarse level %T %q", trial, coarse, what)
		}
		checkMachineContract(t, cm)
		for a := range cm.N() {
			for b := range cm.N() {
				if want := g.Dist(int(cl.members(a)[0]), int(cl.members(b)[0])); cm.Dist(a, b) != want {
					t.Fatalf("trial %d: coarse Dist(%d, %d) = %d, fine %d", trial, a, b, cm.Dist(a, b), want)
				}
			}
		}
		checkClusters(t, g, cl, cm.N(), rng)
		// The coarse level orders like any machine (identity and line search only).
		if o := heuristicOrder(context.Background(), cm, curves.Weights{1, 0.5}, false, 1, 1); curves.Order(o).Validate(cm.N()) != nil {
			t.Fatalf("trial %d: coarse order %v", trial, o)
		}
	}
	if coarsened < 4 {
		t.Fatalf("only %d of 6 random fabrics had a coarse level", coarsened)
	}
	for _, spec := range []string{"mesh:9x6", "torus:8x4", "mesh:4x4x5:wrap=z"} {
		m := mustMachine(t, spec)
		coarse, cl, _ := coarsen(m)
		cg, ok := coarse.(*topo.Grid)
		if !ok {
			t.Fatalf("%s: coarse level %T", spec, coarse)
		}
		checkMachineContract(t, cg)
		checkClusters(t, m, cl, cg.N(), rng)
		g := m.(*topo.Grid)
		c, cc := make([]int, len(g.Dims())), make([]int, len(g.Dims()))
		for k := range cg.N() {
			cc = cg.Coord(k, cc)
			for _, v := range cl.members(k) {
				c = g.Coord(int(v), c)
				for j := range c {
					if g.Dims()[j] >= 4 {
						c[j] /= 2
					}
				}
				if !slices.Equal(c, cc) {
					t.Fatalf("%s: node %d in box %v, not %v", spec, v, c, cc)
				}
			}
		}
	}
	if coarse, _, _ := coarsen(topo.Mesh(3, 3)); coarse != nil {
		t.Fatalf("mesh:3x3 has no coarsening, got %s", coarse.Spec())
	}
}
