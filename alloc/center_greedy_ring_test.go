package alloc

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestRingKeyBoundsMatchesScan checks ringKeyBounds, the closed form of the greedy
// collector's per-axis bounds along a ring (greedyCollectShells' boundK), against a
// scan of the whole ring: for random sides (odd and even, 1 to 40), centers, radii w
// with 2w <= side/2 and multisets of coordinates within w of the center (empty, one
// coordinate repeated, spread), the least total over the ring and the least over
// the coordinates D or more away, for every D > w.
func TestRingKeyBoundsMatchesScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(34, 5))
	ringDist := func(u, v, side int) int {
		t := abs(u - v)
		return min(t, side-t)
	}
	trials := 20000
	if testing.Short() {
		trials = 4000
	}
	checked := 0
	for range trials {
		side := 1 + rng.IntN(40)
		h := side / 2
		c := rng.IntN(side)
		w := rng.IntN(h/2 + 1)
		var coords []int
		switch n := rng.IntN(12); {
		case n == 0: // nothing summed
		case n < 3: // one coordinate, repeated
			u := (c + rng.IntN(2*w+1) - w + side) % side
			for range 1 + rng.IntN(5) {
				coords = append(coords, u)
			}
		default:
			for range n {
				coords = append(coords, (c+rng.IntN(2*w+1)-w+side)%side)
			}
		}
		k := make([]int, side)
		for u := range side {
			for _, v := range coords {
				k[u] += ringDist(u, v, side)
			}
		}
		least := math.MaxInt
		for _, v := range k {
			least = min(least, v)
		}
		for D := w + 1; D <= side; D++ {
			far := math.MaxInt
			for u := range side {
				if ringDist(u, c, side) >= D {
					far = min(far, k[u])
				}
			}
			gl, gf := ringKeyBounds(k, c, w, D, h)
			if gl != least || gf != far {
				t.Fatalf("side %d, center %d, w %d, D %d, coordinates %v: ringKeyBounds = (%d, %d), scan (%d, %d)", side, c, w, D, coords, gl, gf, least, far)
			}
			checked++
		}
	}
	t.Logf("%d (ring, D) pairs", checked)
}
