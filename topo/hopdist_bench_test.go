package topo

import (
	"math/rand/v2"
	"testing"
)

// benchDist looks up the distances of random host pairs on the machine of spec; the
// hop index is built before the timer starts, and its size is reported as index-B.
func benchDist(b *testing.B, spec string, asGraph bool) {
	m, err := ParseMachine(spec)
	if err != nil {
		b.Fatal(err)
	}
	if asGraph {
		m = GraphOf(m)
	}
	r := rand.New(rand.NewPCG(1, 2))
	pairs := make([][2]int, 1<<16)
	for i := range pairs {
		pairs[i] = [2]int{r.IntN(m.N()), r.IntN(m.N())}
	}
	m.Dist(0, m.N()-1)
	b.ReportAllocs()
	b.ResetTimer()
	sum := 0
	for i := 0; b.Loop(); i++ {
		p := pairs[i&(len(pairs)-1)]
		sum += m.Dist(p[0], p[1])
	}
	if sum < 0 {
		b.Fatal("disconnected")
	}
	if g, ok := m.(*Graph); ok {
		b.ReportMetric(float64(g.hopIndex().bytes()), "index-B")
	}
}

func BenchmarkDistFatTree10k(b *testing.B)  { benchDist(b, "fattree:16,16:16,16:40", false) }
func BenchmarkDistFatTree100k(b *testing.B) { benchDist(b, "fattree:32,32:32,32:98", false) }
func BenchmarkDistFatTree200k(b *testing.B) { benchDist(b, "fattree:32,32:32,32:196", false) }
func BenchmarkDistDragonfly10k(b *testing.B) {
	benchDist(b, "dragonfly:hosts_per_router=4,routers_per_group=32,intergroup_links=3,num_groups=80", false)
}
func BenchmarkDistDragonfly100k(b *testing.B) {
	benchDist(b, "dragonfly:hosts_per_router=4,routers_per_group=32,intergroup_links=1,num_groups=782", false)
}
func BenchmarkDistGrid10k(b *testing.B)        { benchDist(b, "mesh:100x100", false) }
func BenchmarkDistGrid100k(b *testing.B)       { benchDist(b, "mesh:316x316", false) }
func BenchmarkDistGridAsGraph10k(b *testing.B) { benchDist(b, "mesh:100x100", true) }

// bytes returns the memory the index holds (its slices; the row cache as it stands).
func (h *hopIndex) bytes() int {
	n := 4*(len(h.anchor)+len(h.class)+len(h.q.Off)+len(h.q.Adj)+len(h.key)+len(h.labOff)+len(h.labHub)) +
		len(h.t8) + 2*len(h.t16) + 2*len(h.labDist) + 2*len(h.lmk)
	h.mu.Lock()
	for e := h.lru.Front(); e != nil; e = e.Next() {
		n += 4 * len(e.Value.(*qRow).dist)
	}
	h.mu.Unlock()
	return n
}

// BenchmarkHopIndexBuildDragonfly10k times building the hop index of the dragonfly of
// BenchmarkDistDragonfly10k (its key table: one breadth-first row of Q per key).
func BenchmarkHopIndexBuildDragonfly10k(b *testing.B) {
	m, err := ParseMachine("dragonfly:hosts_per_router=4,routers_per_group=32,intergroup_links=3,num_groups=80")
	if err != nil {
		b.Fatal(err)
	}
	g := m.(*Graph)
	for b.Loop() {
		mustHopIndex(b, g, "")
	}
}
