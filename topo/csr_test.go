package topo

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// csrOf returns g's adjacency in compressed rows.
func csrOf(g *Graph) CSR {
	c := CSR{Off: make([]int32, g.Vertices()+1)}
	var nb []int
	for v := range g.Vertices() {
		for _, w := range g.Neighbors(v, nb[:0]) {
			c.Adj = append(c.Adj, int32(w))
		}
		c.Off[v+1] = int32(len(c.Adj))
	}
	return c
}

// randomSparse is a graph of n vertices and up to edges random edges (no loop,
// no repeat; several components, often), and its csrOf.
func randomSparse(t *testing.T, r *rand.Rand, n, edges int) (*Graph, CSR) {
	t.Helper()
	var es [][2]int
	seen := map[[2]int]bool{}
	for range edges {
		a, b := r.IntN(n), r.IntN(n)
		if k := [2]int{min(a, b), max(a, b)}; a != b && !seen[k] {
			seen[k] = true
			es = append(es, k)
		}
	}
	g, err := NewGraphFromEdges(n, es)
	if err != nil {
		t.Fatal(err)
	}
	return g, csrOf(g)
}

// TestHopRowMatchesDistRowAndBreadthFirst checks HopRow, in both distance types and
// with its buffers reused, against DistRow's search over the adjacency lists and the
// visiting order of BreadthFirst, on random sparse graphs with several components.
func TestHopRowMatchesDistRowAndBreadthFirst(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for trial := range 40 {
		n := 2 + r.IntN(60)
		g, c := randomSparse(t, r, n, r.IntN(2*n))
		if c.Vertices() != n {
			t.Fatalf("trial %d: %d vertices, want %d", trial, c.Vertices(), n)
		}
		d32 := make([]int32, n)
		d := make([]int, n)
		var q32, q []int32
		level := make([]int, n)
		for src := range n {
			q32 = HopRow(c, int32(src), d32, q32)
			q = HopRow(c, int32(src), d, q)
			want := g.DistRow(src)
			if !slices.Equal(d32, want) {
				t.Fatalf("trial %d src %d: int32 row %v, DistRow %v", trial, src, d32, want)
			}
			for v := range n {
				if d[v] != int(want[v]) {
					t.Fatalf("trial %d src %d: int row %v, DistRow %v", trial, src, d, want)
				}
			}
			for i := range level {
				level[i] = -1
			}
			order := BreadthFirst(g, src, level, nil, nil)
			if len(order) != len(q32) || !slices.Equal(q32, q) {
				t.Fatalf("trial %d src %d: queues %v and %v, BreadthFirst %v", trial, src, q32, q, order)
			}
			for i, v := range order {
				if q32[i] != int32(v) {
					t.Fatalf("trial %d src %d: queue %v, BreadthFirst %v", trial, src, q32, order)
				}
			}
		}
	}
}

// HopRows64 gives every source of a batch its HopRow distances, each vertex reported
// once per source at its distance, on random sparse graphs with several components
// and up to 64 sources, repeated ones included; it returns its passes: one a hop of
// the longest of its searches, and the last, which finds nothing.
func TestHopRows64MatchesHopRow(t *testing.T) {
	r := rand.New(rand.NewPCG(64, 9))
	for trial := range 60 {
		n := 2 + r.IntN(200)
		_, c := randomSparse(t, r, n, r.IntN(3*n))
		srcs := make([]int32, 1+r.IntN(64))
		for i := range srcs {
			srcs[i] = int32(r.IntN(n))
		}
		got := make([][]int32, len(srcs))
		for b := range got {
			got[b] = slices.Repeat([]int32{-1}, n)
		}
		s1, s2, s3 := make([]uint64, n), make([]uint64, n), make([]uint64, n)
		passes := HopRows64(c, srcs, s1, s2, s3, func(v int32, bits uint64, d int) {
			for b := range srcs {
				if bits&(1<<b) != 0 {
					if got[b][v] >= 0 {
						t.Fatalf("trial %d: vertex %d reported twice to source %d", trial, v, b)
					}
					got[b][v] = int32(d)
				}
			}
		})
		want := make([]int32, n)
		longest := 0
		for b, s := range srcs {
			HopRow(c, s, want, nil)
			if !slices.Equal(got[b], want) {
				t.Fatalf("trial %d source %d (%d): %v, HopRow %v", trial, b, s, got[b], want)
			}
			longest = max(longest, int(slices.Max(want)))
		}
		if passes != longest+1 {
			t.Errorf("trial %d: %d passes, want %d (the longest distance and one)", trial, passes, longest+1)
		}
	}
}
