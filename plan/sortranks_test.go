package plan

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// sortRanks sorts like slices.Sort, by bitmap or by comparisons, and leaves its
// bitmap zero.
func TestSortRanks(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 9))
	for _, n := range []int{1, 63, 64, 65, 1000, 5000} {
		bm := make([]uint64, (n+63)/64)
		for range 200 {
			k := 1 + rng.IntN(n)
			ranks := make([]int32, k)
			for i, v := range rng.Perm(n)[:k] {
				ranks[i] = int32(v)
			}
			want := slices.Sorted(slices.Values(ranks))
			sortRanks(ranks, bm)
			if !slices.Equal(ranks, want) {
				t.Fatalf("n %d: %v, want %v", n, ranks, want)
			}
			if slices.ContainsFunc(bm, func(w uint64) bool { return w != 0 }) {
				t.Fatalf("n %d: bitmap left set", n)
			}
		}
	}
}
