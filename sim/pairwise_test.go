package sim

import (
	"math/rand/v2"
	"testing"
)

// pairwise1D around a ring is the sum over pairs of the shorter way around, by
// brute force over the pairs, on random counts of rings of 1 to 40 values.
func TestPairwise1DRing(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for range 2000 {
		d := 1 + rng.IntN(40)
		cnt := make([]int64, d)
		for i := range cnt {
			if rng.IntN(3) == 0 {
				cnt[i] = rng.Int64N(5)
			}
		}
		var want int64
		for u := range d {
			for v := u + 1; v < d; v++ {
				want += cnt[u] * cnt[v] * int64(min(v-u, d-(v-u)))
			}
		}
		if got := pairwise1D(cnt, true); got != want {
			t.Fatalf("ring %v: %d, pairs %d", cnt, got, want)
		}
	}
}
