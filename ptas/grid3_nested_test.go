package ptas

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestGrid3SameAsNestedMatchesDefinition checks sameAsNested on random free sets
// of random boxes (points in (x, y, z) order, k from 1 to n, radii from walk with
// and without the rows' tables): for every center and each of its neighbours one
// step lower along x, y and z, it must answer exactly whether the radii are one
// apart and the two centers' points closer than their radii are the same and their
// points within them too (computed from the distances), and whenever it says so
// the two k nearest by (distance, index) must be the same points.
func TestGrid3SameAsNestedMatchesDefinition(t *testing.T) {
	r := rand.New(rand.NewPCG(35, 11))
	cases := 500
	if testing.Short() {
		cases = 150
	}
	var pairs, shown, equal, equalApart [3]int
	for c := range cases {
		W, H, L := 1+r.IntN(7), 1+r.IntN(7), 1+r.IntN(7)
		density := 0.1 + 0.9*r.Float64()
		var pts [][]int
		for x := range W {
			for y := range H {
				for z := range L {
					if r.Float64() < density {
						pts = append(pts, []int{x - 2, y + 4, z + 1})
					}
				}
			}
		}
		n := len(pts)
		if n < 2 {
			continue
		}
		k := 1 + r.IntN(n)
		if c%3 == 0 {
			k = n - r.IntN(min(n, 4))
		}
		g, px, py, pz, _ := grid3ScanT(t, pts, k, c)
		type center struct {
			thr, below, within int
			in, on             []bool // closer than thr, within thr
			near               []int
		}
		cells := make([]center, g.W*g.H*g.L)
		for cx := range g.W {
			for cy := range g.H {
				g.setRow(cx, cy, c%2 == 0)
				for cz := range g.L {
					thr := g.walk(cx, cy, cz, r.IntN(g.W+g.H+g.L))
					cur := center{thr: thr, below: g.sumIn, within: g.sumOut, in: make([]bool, n), on: make([]bool, n)}
					d := make([]int, n)
					for i := range n {
						d[i] = absInt(px[i]-cx) + absInt(py[i]-cy) + absInt(pz[i]-cz)
						cur.in[i], cur.on[i] = d[i] < thr, d[i] <= thr
					}
					cur.near = nearestByIndex(d, k)
					cells[(cx*g.H+cy)*g.L+cz] = cur
					for j, step := range []int{g.H * g.L, g.L, 1} {
						if [3]int{cx, cy, cz}[j] == 0 {
							continue
						}
						prev := cells[(cx*g.H+cy)*g.L+cz-step]
						got := sameAsNested(cur.thr, cur.below, cur.within, prev.thr, prev.below, prev.within)
						apart := absInt(cur.thr-prev.thr) == 1
						want := apart && slices.Equal(cur.in, prev.in) && slices.Equal(cur.on, prev.on)
						same := slices.Equal(cur.near, prev.near)
						if got != want || got && !same {
							t.Fatalf("case %d (%dx%dx%d, n = %d, k = %d), center (%d, %d, %d) against the one before along axis %d: sameAsNested %v, radii %d and %d, same balls %v, same k nearest %v",
								c, W, H, L, n, k, cx, cy, cz, j, got, cur.thr, prev.thr, want, same)
						}
						pairs[j]++
						if got {
							shown[j]++
						}
						if same {
							equal[j]++
							if apart {
								equalApart[j]++
							}
						}
					}
				}
			}
		}
		g.release()
	}
	t.Logf("center pairs along x, y, z: %v; with the same k nearest %v, of them with radii one apart %v, shown %v", pairs, equal, equalApart, shown)
	for j := range 3 {
		if shown[j] == 0 || shown[j] == pairs[j] {
			t.Fatalf("axis %d: %d of %d pairs shown: the cases do not exercise both answers", j, shown[j], pairs[j])
		}
	}
}

// TestGrid3WalkedStore checks the walked centers' store of sameAsNested: a center
// is found only in its own slab while that slab is the current one or the one
// before, never from a slab two back whose storage was reused, nor after the
// stamps wrap around.
func TestGrid3WalkedStore(t *testing.T) {
	g := &grid3Scan{H: 3, L: 4}
	for _, start := range []int32{0, math.MaxInt32 - 2} {
		g.stamp, g.slabX = start, [2]int{-1, -1}
		for x := range 6 {
			g.enterSlab(x)
			if x > 0 {
				if _, ok := g.walkedAt(x, 1, 2); ok {
					t.Fatalf("stamps from %d: slab %d holds (1, 2) before it was walked (kept in slab %d)", start, x, x-2)
				}
				if w, ok := g.walkedAt(x-1, 1, 2); !ok || w.thr != int32(x-1) {
					t.Fatalf("stamps from %d: slab %d's (1, 2) lost in slab %d: %v %v", start, x-1, x, w, ok)
				}
			}
			if _, ok := g.walkedAt(x-2, 1, 2); ok && x >= 2 {
				t.Fatalf("stamps from %d: slab %d found in slab %d", start, x-2, x)
			}
			g.sumIn, g.sumOut = x, x+1
			g.keepWalked(1, 2, x, int64(x))
			if w, ok := g.walkedAt(x, 1, 2); !ok || w.thr != int32(x) || w.below != int32(x) || w.within != int32(x+1) || w.val != int64(x) {
				t.Fatalf("stamps from %d: slab %d: kept (1, 2) read back as %v %v", start, x, w, ok)
			}
			if _, ok := g.walkedAt(x, 0, 2); ok {
				t.Fatalf("stamps from %d: slab %d: (0, 2) found, never kept", start, x)
			}
		}
	}
}
