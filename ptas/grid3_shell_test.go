package ptas

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestGrid3ShellMarginals checks takeWhole, the marginals per plane y and z of
// the points at L1 distance thr from a place with x below a cut, read from the
// rotated tables, against the plain count cell by cell, on random free sets of
// small and degenerate boxes (1 x n x m and its turns, 2 x 2 x 2, full and sparse
// sets, and sets with a busy slab inside one dimension, as a torus's wraparound
// leaves them, for each dimension): every place of the box as the center (MM's centers and beyond: the
// faces, edges and corners of the box), every radius from 0 to past the box's
// diameter, and every cut from below the box to past it (none taken, the center's
// plane, all taken).
func TestGrid3ShellMarginals(t *testing.T) {
	r := rand.New(rand.NewPCG(32, 41))
	sets := 400
	if testing.Short() {
		sets = 150
	}
	checked, nonzero := 0, 0
	for c := range sets {
		var W, H, L int
		switch c % 8 {
		case 0:
			W, H, L = 1, 1+r.IntN(7), 1+r.IntN(7)
		case 1:
			W, H, L = 1+r.IntN(7), 1, 1+r.IntN(7)
		case 2:
			W, H, L = 1+r.IntN(7), 1+r.IntN(7), 1
		case 3:
			W, H, L = 2, 2, 2
		default:
			W, H, L = 1+r.IntN(8), 1+r.IntN(8), 1+r.IntN(8)
		}
		busy := []float64{0, 0.1, 0.5, 0.9}[r.IntN(4)]
		// Sets 4 to 6 of every 8: what a job placed across a torus's seam in
		// dimension c%8 - 4 leaves, both ends of that dimension free and a
		// slab of the middle busy (the scan takes the free set's bounding box
		// in plain coordinates, so the shells meet the gap inside the box).
		seam, lo, hi := c%8-4, 0, -1
		if seam >= 0 && seam <= 2 {
			span := []int{W, H, L}[seam]
			lo = 1 + r.IntN(max(span-2, 1))
			hi = lo + r.IntN(max(span-1-lo, 1))
		}
		var pts [][]int
		for x := range W {
			for y := range H {
				for z := range L {
					if seam >= 0 && seam <= 2 {
						if v := []int{x, y, z}[seam]; v >= lo && v <= hi {
							continue
						}
					}
					if r.Float64() >= busy {
						pts = append(pts, []int{x, y, z})
					}
				}
			}
		}
		if len(pts) < 2 {
			continue
		}
		g, _, _, _, _ := grid3ScanT(t, pts, 1, c)
		W, H, L = g.W, g.H, g.L // the points' bounding box
		wantY, wantZ := make([]int32, H), make([]int32, L)
		for cx := range W {
			for cy := range H {
				for cz := range L {
					for thr := 0; thr <= W+H+L; thr++ {
						for xcut := -1; xcut <= W+1; xcut++ {
							clear(wantY)
							clear(wantZ)
							for x := range min(xcut, W) {
								for y := range H {
									for z := range L {
										if g.occ[(x*H+y)*L+z] && abs(x-cx)+abs(y-cy)+abs(z-cz) == thr {
											wantY[y]++
											wantZ[z]++
										}
									}
								}
							}
							clear(g.addY[:H])
							clear(g.addZ[:L])
							g.takeWhole(cx, cy, cz, thr, xcut)
							if !slices.Equal(g.addY[:H], wantY) || !slices.Equal(g.addZ[:L], wantZ) {
								t.Fatalf("set %d (%dx%dx%d), center (%d,%d,%d), thr %d, x < %d: per y %v per z %v, cell by cell %v and %v", c, W, H, L, cx, cy, cz, thr, xcut, g.addY[:H], g.addZ[:L], wantY, wantZ)
							}
							checked++
							if slices.ContainsFunc(wantY, func(v int32) bool { return v != 0 }) {
								nonzero++
							}
						}
					}
				}
			}
		}
		clear(g.addY[:H])
		clear(g.addZ[:L])
		g.release()
	}
	if nonzero < checked/10 {
		t.Fatalf("%d of %d cases with a taken point: the cases miss the point", nonzero, checked)
	}
	t.Logf("%d centers, radii and cuts checked, %d with taken points", checked, nonzero)
}

// TestGrid3ScoreShellTables checks score with the whole taken planes' marginals
// always from the tables (shellTablesMin 0) and never (-1) against the plain
// total of the k nearest by (distance, index), at every MM center of random free
// sets, exactly and with limits below it.
func TestGrid3ScoreShellTables(t *testing.T) {
	r := rand.New(rand.NewPCG(32, 43))
	sets := 600
	if testing.Short() {
		sets = 200
	}
	defer func(v int) { shellTablesMin = v }(shellTablesMin)
	centers := 0
	for c := range sets {
		W, H, L := 1+r.IntN(8), 1+r.IntN(8), 1+r.IntN(8)
		busy := []float64{0, 0.2, 0.5, 0.8}[r.IntN(4)]
		pts := randomFree3(r, W, H, L, busy)
		if len(pts) < 3 {
			continue
		}
		k := 2 + r.IntN(len(pts)-2)
		g, px, py, pz, _ := grid3ScanT(t, pts, k, c)
		dist := make([]int, len(pts))
		thr := 0
		for u := 0; u < len(g.centers); u += 3 {
			cx, cy, cz := int(g.centers[u]), int(g.centers[u+1]), int(g.centers[u+2])
			g.setRow(cx, cy, true)
			thr = g.walk(cx, cy, cz, thr)
			for i := range pts {
				dist[i] = abs(px[i]-cx) + abs(py[i]-cy) + abs(pz[i]-cz)
			}
			sel := nearestByIndex(dist, k)
			var total int64
			for i, a := range sel {
				for _, b := range sel[i+1:] {
					total += int64(dist3(px, py, pz, a, b))
				}
			}
			for _, m := range []int{0, -1} {
				shellTablesMin = m
				if got, ok := g.score(cx, cy, cz, thr, math.MaxInt64); !ok || got != total {
					t.Fatalf("set %d, center (%d,%d,%d), shellTablesMin %d: score %d (%v), total %d", c, cx, cy, cz, m, got, ok, total)
				}
				for _, limit := range []int64{total / 2, total * 9 / 10, total - 1} {
					if got, ok := g.score(cx, cy, cz, thr, limit); ok || got <= limit || got > total {
						t.Fatalf("set %d, center (%d,%d,%d), shellTablesMin %d, limit %d: score %d (%v), total %d", c, cx, cy, cz, m, limit, got, ok, total)
					}
				}
				if slices.ContainsFunc(g.addY[:g.H], func(v int32) bool { return v != 0 }) || slices.ContainsFunc(g.addZ[:g.L], func(v int32) bool { return v != 0 }) {
					t.Fatalf("set %d, center (%d,%d,%d): addY or addZ not cleared", c, cx, cy, cz)
				}
			}
			centers++
		}
		g.release()
	}
	t.Logf("%d centers checked", centers)
}

func dist3(px, py, pz []int, a, b int) int {
	return abs(px[a]-px[b]) + abs(py[a]-py[b]) + abs(pz[a]-pz[b])
}
