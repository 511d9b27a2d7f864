package alloc

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/procalloc/procalloc/topo"
)

// Gen-Alg on a fat tree: a job that fits on a leaf gets one leaf (total hops 2 per
// pair, the optimum); under random allocate/release every job gets k distinct free
// hosts and its total equals the best center's, recomputed here from scratch.
func TestGraphGenAlg(t *testing.T) {
	m, err := topo.ParseMachine("fattree:4,4:4,4:4")
	if err != nil {
		t.Fatal(err)
	}
	g := m.(*topo.Graph)
	a, err := Parse("genalg", g, Options{})
	if err != nil {
		t.Fatal(err)
	}
	nodes, _ := a.Allocate(3)
	for _, v := range nodes[1:] {
		if g.Dist(nodes[0], v) != 2 {
			t.Fatalf("3 hosts on an empty fat tree: %v not on one leaf", nodes)
		}
	}
	a.Release(nodes)
	rng := rand.New(rand.NewPCG(1, 2))
	busy := make([]bool, g.N())
	var jobs [][]int
	total := func(set []int) int {
		s := 0
		for i, u := range set {
			for _, v := range set[i+1:] {
				s += g.Dist(u, v)
			}
		}
		return s
	}
	for step := 0; step < 400; step++ {
		if len(jobs) > 0 && rng.IntN(3) == 0 {
			i := rng.IntN(len(jobs))
			for _, v := range jobs[i] {
				busy[v] = false
			}
			if err := a.Release(jobs[i]); err != nil {
				t.Fatal(err)
			}
			jobs = slices.Delete(jobs, i, i+1)
			continue
		}
		k := 1 + rng.IntN(8)
		if k > a.NumFree() {
			continue
		}
		var free []int
		for v := range g.N() {
			if !busy[v] {
				free = append(free, v)
			}
		}
		best := -1
		for _, c := range free {
			cand := slices.Clone(free)
			slices.SortStableFunc(cand, func(x, y int) int { return g.Dist(c, x) - g.Dist(c, y) })
			if s := total(cand[:k]); best < 0 || s < best {
				best = s
			}
		}
		got, err := a.Allocate(k)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != k || total(got) != best {
			t.Fatalf("step %d: k=%d got %v (total %d), best center gives %d", step, k, got, total(got), best)
		}
		for _, v := range got {
			if busy[v] {
				t.Fatalf("step %d: node %d given twice", step, v)
			}
			busy[v] = true
		}
		jobs = append(jobs, got)
	}
}
