package ptas

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestGrid3SameAsBelowMatchesDefinition checks sameAsBelow and rowMeet on random
// free sets of random boxes (points in (x, y, z) order, k from 1 to n): for every
// center of every row and the one a plane below it, sameAsBelow must answer
// whether the two centers' points closer than their radii are the same and their
// points within them too (computed from the distances), and whenever it says so
// the two k nearest by (distance, index) must be the same points; rowMeet must
// count the two balls' common points for random radii.
func TestGrid3SameAsBelowMatchesDefinition(t *testing.T) {
	r := rand.New(rand.NewPCG(34, 9))
	cases := 600
	if testing.Short() {
		cases = 200
	}
	var pairs, shown, equal, meets int
	for c := range cases {
		W, H, L := 1+r.IntN(6), 1+r.IntN(6), 2+r.IntN(8)
		density := 0.2 + 0.8*r.Float64()
		var pts [][]int
		for x := range W {
			for y := range H {
				for z := range L {
					if r.Float64() < density {
						pts = append(pts, []int{x + 3, y - 1, z})
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
			k = n - r.IntN(min(n, 4)) // most of the points: many centers share them
		}
		g, px, py, pz, _ := grid3ScanT(t, pts, k, c)
		type center struct {
			thr, below, within int
			in, on             []bool // closer than thr, within thr
			near               []int
		}
		dists := func(cx, cy, cz int) []int {
			d := make([]int, n)
			for i := range n {
				d[i] = absInt(px[i]-cx) + absInt(py[i]-cy) + absInt(pz[i]-cz)
			}
			return d
		}
		for cx := range g.W {
			for cy := range g.H {
				g.setRow(cx, cy, true)
				var prev center
				for cz := range g.L {
					thr := g.walk(cx, cy, cz, r.IntN(g.W+g.H+g.L))
					cur := center{thr: thr, below: g.sumIn, within: g.sumOut, in: make([]bool, n), on: make([]bool, n)}
					d := dists(cx, cy, cz)
					for i, v := range d {
						cur.in[i], cur.on[i] = v < thr, v <= thr
					}
					cur.near = nearestByIndex(d, k)
					if cz > 0 {
						got := g.sameAsBelow(cz, cur.thr, cur.below, cur.within, prev.thr, prev.below, prev.within)
						want := slices.Equal(cur.in, prev.in) && slices.Equal(cur.on, prev.on)
						same := slices.Equal(cur.near, prev.near)
						if got != want || got && !same {
							t.Fatalf("case %d (%dx%dx%d, n = %d, k = %d), center (%d, %d, %d): sameAsBelow %v, same balls %v, same k nearest %v", c, W, H, L, n, k, cx, cy, cz, got, want, same)
						}
						pairs++
						if got {
							shown++
						}
						if same {
							equal++
						}
						// rowMeet for radii the row's tables hold.
						r1, r2 := r.IntN(g.rowTop+1), r.IntN(g.rowTop+1)
						dp := dists(cx, cy, cz-1)
						want2 := 0
						for i := range n {
							if d[i] <= r1 && dp[i] <= r2 {
								want2++
							}
						}
						if got := g.rowMeet(cz, r1, r2); got != want2 {
							t.Fatalf("case %d, center (%d, %d, %d): rowMeet(%d, %d) = %d, want %d", c, cx, cy, cz, r1, r2, got, want2)
						}
						meets++
					}
					prev = cur
				}
			}
		}
		g.release()
	}
	t.Logf("%d center pairs, %d with the same k nearest, %d of them shown; %d meets", pairs, equal, shown, meets)
	if shown == 0 || shown == pairs {
		t.Fatalf("%d of %d pairs shown: the cases do not exercise both answers", shown, pairs)
	}
}
