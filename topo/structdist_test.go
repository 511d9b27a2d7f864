package topo

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// bfsPairSum is the sum of the breadth-first distances between the pairs of nodes,
// one search per node over the whole graph.
func bfsPairSum(g *Graph, nodes []int) int64 {
	dist := make([]int, g.Vertices())
	var sum int64
	for i, s := range nodes {
		for v := range dist {
			dist[v] = -1
		}
		dist[s] = 0
		queue := []int{s}
		for h := 0; h < len(queue); h++ {
			u := queue[h]
			for _, w := range g.adj[u] {
				if dist[w] < 0 {
					dist[w] = dist[u] + 1
					queue = append(queue, w)
				}
			}
		}
		for _, t := range nodes[i+1:] {
			sum += int64(dist[t])
		}
	}
	return sum
}

// randomJob draws k distinct hosts: scattered, or a run of consecutive hosts.
func randomJob(rng *rand.Rand, n int) []int {
	k := 1 + rng.IntN(min(n, 64))
	if rng.IntN(3) == 0 {
		start := rng.IntN(n - k + 1)
		nodes := make([]int, k)
		for i := range nodes {
			nodes[i] = start + i
		}
		return nodes
	}
	return rng.Perm(n)[:k]
}

// The closed-form sums of the synthetic fat trees and dragonflies are the
// breadth-first ones, on random jobs of random machines.
func TestStructuredPairDistSum(t *testing.T) {
	rng := rand.New(rand.NewPCG(34, 2))
	var machines []*Graph
	for _, shape := range []string{"8", "4,2:4", "4,4:4,4:8", "2,2:3,3:4", "3,1:2,2:2,3:4", "4,2:4,4:2"} {
		g, err := FatTree(shape)
		if err != nil {
			t.Fatal(shape, err)
		}
		machines = append(machines, g)
	}
	for range 25 {
		p, a, l, G := 1+rng.IntN(3), 1+rng.IntN(6), 1+rng.IntN(3), 1+rng.IntN(12)
		g, err := Dragonfly(p, a, l, G)
		if err != nil {
			t.Fatal(p, a, l, G, err)
		}
		g.spec = fmt.Sprintf("dragonfly:%d,%d,%d,%d", p, a, l, G)
		machines = append(machines, g)
	}
	for _, g := range machines {
		if g.layout == nil {
			t.Fatalf("%s: no layout", g.Spec())
		}
		for range 40 {
			nodes := randomJob(rng, g.N())
			got, ok := g.PairDistSum(nodes)
			if want := bfsPairSum(g, nodes); !ok || got != want {
				t.Fatalf("%s, job %v: closed form %d (%v), breadth-first %d", g.Spec(), nodes, got, ok, want)
			}
		}
	}
}
