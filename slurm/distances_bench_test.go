package slurm

import (
	"bytes"
	"testing"
)

// BenchmarkTreeDistancesFatTree131k times one switches_dist row (Tree.DistancesQueue,
// the search slurm:tree's leaf rows come from) on the topology.conf procalloc writes of
// fattree:16,16:16,16:16,16:32 (28,672 switches), sources cycling over the switches.
func BenchmarkTreeDistancesFatTree131k(b *testing.B) {
	conf := bytes.NewReader(fatTree131kConf(b, "name-order", false))
	tr, err := ParseTree(conf)
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
