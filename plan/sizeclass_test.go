package plan

import "testing"

// The report's size classes (2, 3-4, 5-8, ...) by hand and by their definition: k
// lies in (hi/2, hi] with hi the least power of two >= k, and consecutive classes
// meet. No test looked at them: a power of two put in the class above passed.
func TestSizeClass(t *testing.T) {
	for _, c := range []struct{ k, lo, hi int }{{1, 1, 1}, {2, 2, 2}, {3, 3, 4}, {4, 3, 4}, {5, 5, 8}, {8, 5, 8}, {9, 9, 16}, {1024, 513, 1024}, {1025, 1025, 2048}} {
		if lo, hi := sizeClass(c.k); lo != c.lo || hi != c.hi {
			t.Errorf("sizeClass(%d) = %d-%d, want %d-%d", c.k, lo, hi, c.lo, c.hi)
		}
	}
	prevHi := 2
	for k := 3; k <= 5000; k++ {
		hi := 1
		for hi < k {
			hi *= 2
		}
		lo, gotHi := sizeClass(k)
		if gotHi != hi || lo != hi/2+1 || lo > prevHi+1 {
			t.Fatalf("sizeClass(%d) = %d-%d, want %d-%d", k, lo, gotHi, hi/2+1, hi)
		}
		prevHi = gotHi
	}
}
