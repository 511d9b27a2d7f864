package slurm

import (
	"bytes"
	"testing"

	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/topo"
)

// BenchmarkTreeDistancesFatTree131k times one switches_dist row (Tree.DistancesQueue,
// the search slurm:tree's leaf rows come from) on the topology.conf procalloc writes of
// fattree:16,16:16,16:16,16:32 (28,672 switches), sources cycling over the switches.
func BenchmarkTreeDistancesFatTree131k(b *testing.B) {
	g, err := topo.FatTree("16,16:16,16:16,16:32")
	if err != nil {
		b.Fatal(err)
	}
	o, err := curves.Generate("name-order", g)
	if err != nil {
		b.Fatal(err)
	}
	var conf bytes.Buffer
	if _, err := WriteTopology(&conf, g, o, nil); err != nil {
		b.Fatal(err)
	}
	tr, err := ParseTree(&conf)
	if err != nil {
		b.Fatal(err)
	}
	var dist []int
	var queue []int32
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		dist, queue = tr.DistancesQueue(i%len(tr.Switches), dist, queue)
	}
}
