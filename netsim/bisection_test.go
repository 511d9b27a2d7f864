package netsim

import (
	"math"
	"math/rand/v2"
	"testing"
)

// bruteBisection counts, for every axis, the channels one way across the cut that
// halves that axis (coordinate < k/2 against the rest), from the grid's links
// themselves, and returns the least 4 x crossing / N.
func bruteBisection(dims []int, wrap []bool) float64 {
	n := 1
	for _, d := range dims {
		n *= d
	}
	best := 0.0
	for axis, d := range dims {
		if d < 2 {
			continue
		}
		cross := 0
		coord := make([]int, len(dims))
		for range n {
			// The link from coord to its +1 neighbour along axis (wrapping if the axis
			// wraps and d > 2: with 2 nodes the wrap link is the same pair).
			c := coord[axis]
			next := c + 1
			if next == d {
				if !wrap[axis] || d == 2 {
					next = -1
				} else {
					next = 0
				}
			}
			if next >= 0 && (c < d/2) != (next < d/2) {
				cross++
			}
			for j := range coord {
				if coord[j]++; coord[j] < dims[j] {
					break
				}
				coord[j] = 0
			}
		}
		// cross counts links crossing in either sense along +1; a link is two channels
		// (one each way), so the channels one way across are cross.
		b := 4 * float64(cross) / float64(n)
		if best == 0 || b < best {
			best = b
		}
	}
	return best
}

// The bound is the narrowest cut over every axis, wrap counted per axis: the same
// machine rotated gives the same bound (mesh:8x8:wrap=x said 1.0, wrap=y 0.5), and
// mesh:16x12:wrap=x is bound by its 12-node axis (1/3, not 0.5).
func TestBisectionBoundIsTheNarrowestCut(t *testing.T) {
	for _, tc := range []struct {
		dims []int
		wrap []bool
		want float64
	}{
		{[]int{8, 8}, []bool{false, false}, 0.5},
		{[]int{8, 8}, []bool{true, false}, 0.5},
		{[]int{8, 8}, []bool{false, true}, 0.5},
		{[]int{8, 8}, []bool{true, true}, 1},
		{[]int{16, 12}, []bool{true, false}, 1.0 / 3},
		{[]int{12, 16}, []bool{false, true}, 1.0 / 3},
		{[]int{16, 12}, []bool{false, true}, 0.25},
		{[]int{16, 12}, []bool{false, false}, 0.25},
		{[]int{4, 4, 4}, []bool{false, false, false}, 1},
		{[]int{8, 1}, []bool{false, false}, 0.5},
		{[]int{1}, []bool{false}, 0},
	} {
		if got := BisectionBound(tc.dims, tc.wrap); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%v wrap %v: %v, want %v", tc.dims, tc.wrap, got, tc.want)
		}
	}
	rng := rand.New(rand.NewPCG(24, 13))
	for range 300 {
		k := 1 + rng.IntN(3)
		dims, wrap := make([]int, k), make([]bool, k)
		for i := range dims {
			dims[i] = 1 + 2*rng.IntN(6) // even sizes (and 1): the cut halves exactly
			if dims[i] > 1 {
				dims[i]++
				dims[i] -= dims[i] % 2
			}
			wrap[i] = dims[i] > 2 && rng.IntN(2) == 0
		}
		want := bruteBisection(dims, wrap)
		if got := BisectionBound(dims, wrap); math.Abs(got-want) > 1e-12 {
			t.Fatalf("%v wrap %v: %v, the links' narrowest halving cut %v", dims, wrap, got, want)
		}
		// Rotations: every cyclic shift of the axes gives the same bound.
		for s := 1; s < k; s++ {
			d2, w2 := append(dims[s:], dims[:s]...), append(wrap[s:], wrap[:s]...)
			if got := BisectionBound(d2, w2); math.Abs(got-want) > 1e-12 {
				t.Fatalf("%v wrap %v rotated to %v %v: %v, want %v", dims, wrap, d2, w2, got, want)
			}
		}
	}
}
