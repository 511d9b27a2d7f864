package geom

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestSelectMatchesSort(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for trial := 0; trial < 3000; trial++ {
		n := 1 + r.IntN(40)
		span := 1 + r.IntN(6) // many duplicates
		if trial%2 == 0 {
			span = 1000
		}
		a := make([]int, n)
		for i := range a {
			a[i] = r.IntN(span)
		}
		sorted := slices.Sorted(slices.Values(a))
		rank := r.IntN(n)
		b := slices.Clone(a)
		if got := Select(b, rank); got != sorted[rank] {
			t.Fatalf("Select(%v, %d) = %d, want %d", a, rank, got, sorted[rank])
		}
		for i, v := range b {
			if (i < rank && v > b[rank]) || (i > rank && v < b[rank]) {
				t.Fatalf("Select(%v, %d) left %v: not partitioned at %d", a, rank, b, i)
			}
		}
		m := r.IntN(n + 2)
		want := 0
		for _, v := range sorted[:min(m, n)] {
			want += v
		}
		if got := SumSmallest(slices.Clone(a), m); got != want {
			t.Fatalf("SumSmallest(%v, %d) = %d, want %d", a, m, got, want)
		}
	}
}
