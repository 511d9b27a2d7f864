package sortedset

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestCommonBruteForce checks Common and Overlap against a count by membership
// over random ascending sets, int and int32, the empty set among them.
func TestCommonBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	set := func() []int {
		var s []int
		for v := range 30 {
			if rng.IntN(3) == 0 {
				s = append(s, v)
			}
		}
		return s
	}
	for range 500 {
		a, b := set(), set()
		want := 0
		for _, v := range a {
			if slices.Contains(b, v) {
				want++
			}
		}
		if got := Common(a, b); got != want {
			t.Fatalf("Common(%v, %v) = %d, want %d", a, b, got, want)
		}
		if got := Overlap(a, b); got != (want > 0) {
			t.Fatalf("Overlap(%v, %v) = %v, want %v", a, b, got, want > 0)
		}
		a32, b32 := make([]int32, len(a)), make([]int32, len(b))
		for i, v := range a {
			a32[i] = int32(v)
		}
		for i, v := range b {
			b32[i] = int32(v)
		}
		if got := Common(a32, b32); got != want {
			t.Fatalf("Common[int32](%v, %v) = %d, want %d", a, b, got, want)
		}
	}
}
