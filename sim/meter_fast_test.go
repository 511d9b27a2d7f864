package sim

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/topo"
)

// The meter's fast paths (components counting switches when every host of the job
// hangs on one switch only; ring span read from a bitmap for large jobs) agree
// with definitions checked by brute force: components by union-find over the
// job's hosts joined when linked or on a common switch, ring span as the shortest
// arc holding every rank, tried from each of them. On a fat tree and a dragonfly
// (the fast components path), on a fabric with hosts on two switches and a host
// linked to a host (the search), and on a torus; random jobs of 1 to n nodes, in
// random order and sorted.
func TestMeterFastPathsMatchDefinitions(t *testing.T) {
	var b strings.Builder
	// Hosts h0..h11 on switches s0..s3; h3 and h7 also on another switch, h10-h11
	// linked to each other, h11 on no switch.
	b.WriteString("%switch s0\n%switch s1\n%switch s2\n%switch s3\n")
	for h := range 10 {
		fmt.Fprintf(&b, "h%d s%d\n", h, h/3)
	}
	b.WriteString("h3 s2\nh7 s0\nh10 s3\nh10 h11\ns0 s1\ns1 s2\ns2 s3\n")
	multi, err := topo.ReadGraph(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	machines := []topo.Machine{multi}
	for _, spec := range []string{"fattree:4,4:4,4:8", "dragonfly:hosts_per_router=3,routers_per_group=4,intergroup_links=2,num_groups=5", "torus:6x5"} {
		m, err := topo.ParseMachine(spec)
		if err != nil {
			t.Fatal(err)
		}
		machines = append(machines, m)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	fastUsed := 0
	for _, m := range machines {
		mt, err := newMeter(context.Background(), m, alloc.CompatDefault, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		n := m.N()
		for trial := range 400 {
			k := 1 + rng.IntN(n)
			if trial%4 == 0 {
				k = 1 + rng.IntN(min(n, 6))
			}
			nodes := rng.Perm(n)[:k]
			if trial%3 == 0 {
				slices.Sort(nodes)
			}
			if got, want := mt.components(nodes), componentsByUnion(m, nodes); got != want {
				t.Fatalf("%s: job %v: %d components, want %d", m.Spec(), nodes, got, want)
			}
			if got, want := mt.ringSpan(nodes), ringSpanByArcs(nodes, n); got != want {
				t.Fatalf("%s: job %v: ring span %d, want %d", m.Spec(), nodes, got, want)
			}
			if g, ok := m.(*topo.Graph); ok && !slices.ContainsFunc(nodes, func(v int) bool { return mt.hostSw[v] < 0 }) && g != multi {
				fastUsed++
			}
		}
		// The bitmap is left clear between jobs.
		for _, w := range mt.bits {
			if w != 0 {
				t.Fatalf("%s: ring span bitmap not cleared", m.Spec())
			}
		}
	}
	if fastUsed == 0 {
		t.Fatal("no job took the components fast path")
	}
	// On the fabric: h3, h7 (two switches), h10 and h11 (a host link) are off the
	// fast path, the others on it.
	mt, _ := newMeter(context.Background(), multi, alloc.CompatDefault, nil, false)
	for v := range multi.N() {
		name := multi.Name(v)
		off := name == "h3" || name == "h7" || name == "h10" || name == "h11"
		if (mt.hostSw[v] < 0) != off {
			t.Errorf("host %s: switch %d", name, mt.hostSw[v])
		}
	}
}

// componentsByUnion counts the components of the job's hosts, two joined when
// linked or on a common switch (a grid: when linked).
func componentsByUnion(m topo.Machine, nodes []int) int {
	g := topo.GraphOf(m)
	parent := map[int]int{}
	var find func(int) int
	find = func(x int) int {
		if parent[x] != x {
			parent[x] = find(parent[x])
		}
		return parent[x]
	}
	in := map[int]bool{}
	for _, v := range nodes {
		parent[v], in[v] = v, true
	}
	_, isGraph := m.(*topo.Graph)
	for _, u := range nodes {
		for _, w := range g.Neighbors(u, nil) {
			if in[w] {
				parent[find(u)] = find(w)
			}
			if isGraph && w >= m.N() {
				for _, x := range g.Neighbors(w, nil) {
					if in[x] {
						parent[find(u)] = find(x)
					}
				}
			}
		}
	}
	roots := map[int]bool{}
	for _, v := range nodes {
		roots[find(v)] = true
	}
	return len(roots)
}

// ringSpanByArcs is the length of the shortest arc of the ring 0..n-1 holding
// every rank, tried from each rank.
func ringSpanByArcs(ranks []int, n int) int {
	best := n + 1
	for _, s := range ranks {
		l := 0
		for _, r := range ranks {
			l = max(l, (r-s+n)%n)
		}
		best = min(best, l+1)
	}
	return best
}
