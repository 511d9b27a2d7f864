package netsim

import (
	"testing"

	"github.com/procalloc/procalloc/topo"
)

// BenchmarkNewGraphRouterFatTree1024 times the next-hop table of fattree:4,4:4,4:4,4:4,4:4
// (1,024 hosts): one breadth-first row per host destination, then the tie rule.
func BenchmarkNewGraphRouterFatTree1024(b *testing.B) {
	g, err := topo.FatTree("4,4:4,4:4,4:4,4:4")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := NewGraphRouter(g); err != nil {
			b.Fatal(err)
		}
	}
}
