package sim

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestPackRuns: the packed node lists of finished jobs waiting for an earlier one
// decode to the same nodes in the same order (runs, scattered, descending, repeats).
func TestPackRuns(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	cases := [][]int{{0}, {5, 6, 7, 8}, {9, 8, 7}, {1, 1, 2}, {3, 4, 10, 11, 12, 0, 1}}
	for range 200 {
		var nodes []int
		for range 1 + rng.IntN(20) {
			start, n := rng.IntN(100000), 1+rng.IntN(50)
			for v := range n {
				nodes = append(nodes, start+v)
			}
		}
		cases = append(cases, nodes, rng.Perm(300))
	}
	for _, nodes := range cases {
		runs := packRuns(nodes)
		if got := unpackRuns(runs); !slices.Equal(got, nodes) {
			t.Fatalf("%v: packed %v, unpacked %v", nodes, runs, got)
		}
		if len(runs) > 2*len(nodes) {
			t.Fatalf("%v: %d int32s packed", nodes, len(runs))
		}
	}
}
