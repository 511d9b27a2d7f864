package ptas

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestGrid3SegBoundBelowTotals checks segBound3 against the definition on random
// free sets of 3D boxes (meshes, and boxes with a busy slab inside one dimension
// as a job across a torus's seam leaves): for runs of 1-6 consecutive centers of
// every MM row, with each center's k-th distance as its radius (and, in every
// other case, radii raised by up to 2, still upper bounds), the bound is at most
// the exact total of the k nearest by (distance, index) of every center of the
// run, from the row's tables and from the planes z's stack alike; and with a room
// it returns either the same bound (when that is at most the room) or a value
// above the room and at most the bound. k is drawn small, near the free count
// and in between. The bound must meet the least total of the run in some cases
// (so that a bound one too high fails), and it does for runs of one center with
// k <= 2 at least.
func TestGrid3SegBoundBelowTotals(t *testing.T) {
	r := rand.New(rand.NewPCG(32, 77))
	sets := 1500
	if testing.Short() {
		sets = 400
	}
	defer func(gap bool) { grid3SegGap = gap }(grid3SegGap)
	runs, tight := 0, [2]int{}
	for c := range sets {
		W, H, L := 1+r.IntN(7), 1+r.IntN(7), 1+r.IntN(9)
		if c%10 == 9 {
			W, H, L = 5+r.IntN(6), 5+r.IntN(6), 5+r.IntN(8)
		}
		busy := []float64{0, 0.1, 0.3, 0.6, 0.9}[r.IntN(5)]
		seam, lo, hi := c%6-3, 0, -1
		if seam >= 0 {
			span := []int{W, H, L}[seam]
			lo = 1 + r.IntN(max(span-2, 1))
			hi = lo + r.IntN(max(span-1-lo, 1))
		}
		var pts [][]int
		for x := range W {
			for y := range H {
				for z := range L {
					if seam >= 0 {
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
		var k int
		switch r.IntN(4) {
		case 0:
			k = 1 + r.IntN(2)
		case 1:
			k = len(pts) - r.IntN(min(3, len(pts)))
		default:
			k = 1 + r.IntN(len(pts))
		}
		g, px, py, pz, _ := grid3ScanT(t, pts, k, c)
		n := len(pts)
		total := func(cx, cy, cz int) (int64, int) {
			dist := make([]int, n)
			for i := range n {
				dist[i] = abs(px[i]-cx) + abs(py[i]-cy) + abs(pz[i]-cz)
			}
			sel := nearestByIndex(dist, k)
			var s int64
			thr := 0
			for i, a := range sel {
				thr = max(thr, dist[a])
				for _, b := range sel[i+1:] {
					s += int64(dist3(px, py, pz, a, b))
				}
			}
			return s, thr
		}
		centers := g.centers
		for u := 0; u < len(centers); {
			cx, cy := int(centers[u]), int(centers[u+1])
			var rowZ []int32
			for ; u < len(centers) && int(centers[u]) == cx && int(centers[u+1]) == cy; u += 3 {
				rowZ = append(rowZ, centers[u+2])
			}
			i := r.IntN(len(rowZ))
			j := min(len(rowZ), i+1+r.IntN(6))
			zs := rowZ[i:j]
			rs := make([]int32, len(zs))
			raised := c%2 == 1
			least := int64(-1)
			for m, z := range zs {
				tot, thr := total(cx, cy, int(z))
				rs[m] = int32(thr)
				if raised {
					rs[m] += int32(r.IntN(3)) // upper bounds on the radii
				}
				if least < 0 || tot < least {
					least = tot
				}
			}
			// From the row's tables (walked out to the largest radius) and
			// from the planes z's stack, by gap terms and by windowMin (which
			// takes radii above the k-th distances too).
			g.setRow(cx, cy, true)
			g.rowBallGrow(int(zs[0]), int(slices.Max(rs)))
			for f, gap := range []bool{true, false} {
				if gap && raised {
					continue
				}
				grid3SegGap = gap
				lbT := g.segBound3(cx, cy, zs, rs, 1<<62, true)
				lbS := g.segBound3(cx, cy, zs, rs, 1<<62, false)
				if lbT != lbS {
					t.Fatalf("case %d (%dx%dx%d, k = %d), row (%d,%d), z %v, radii %v, gap terms %v: bound %d from the tables, %d from the stack", c, W, H, L, k, cx, cy, zs, rs, gap, lbT, lbS)
				}
				if lbT > least {
					t.Fatalf("case %d (%dx%dx%d, k = %d of %d), row (%d,%d), z %v, radii %v, gap terms %v: bound %d above the least total %d", c, W, H, L, k, n, cx, cy, zs, rs, gap, lbT, least)
				}
				if lbT == least {
					tight[f]++
				}
				room := int64(r.IntN(int(max(lbT, 1)) * 2))
				if got := g.segBound3(cx, cy, zs, rs, room, true); (lbT <= room && got != lbT) || (lbT > room && (got <= room || got > lbT)) {
					t.Fatalf("case %d, row (%d,%d), z %v, gap terms %v: room %d: %d, bound %d", c, cx, cy, zs, gap, room, got, lbT)
				}
				runs++
			}
			grid3SegGap = true
		}
		g.release()
	}
	if tight[0] == 0 || tight[1] == 0 {
		t.Fatalf("runs whose bound met their least total, gap terms and windowMin: %v; a bound one too high would pass", tight)
	}
	t.Logf("%d runs checked; with the bound at the least total: %d (gap terms), %d (windowMin)", runs, tight[0], tight[1])
}

// TestGrid3SegLockstep checks that the search with segments' bounds (segBound)
// returns the plain search's subset and center, ties included, for MM and
// Gen-Alg on random free sets (young, fragmented, k from 1 to the free count, with
// and without the best total as the floor), for segment lengths 2, 3, 4 and 8, and
// that the segments drop centers in the cases (so that the comparison covers
// them).
func TestGrid3SegLockstep(t *testing.T) {
	defer func(on bool, n int) { grid3SegOn, grid3SegLen = on, n }(grid3SegOn, grid3SegLen)
	grid3SegOn = true
	r := rand.New(rand.NewPCG(32, 78))
	sets := 500
	if testing.Short() {
		sets = 150
	}
	dropped, decisions := 0, 0
	for c := range sets {
		grid3SegLen = []int{2, 3, 4, 8}[c%4]
		W, H, L := 2+r.IntN(7), 2+r.IntN(7), 2+r.IntN(9)
		pts := randomFree3(r, W, H, L, []float64{0, 0.2, 0.5, 0.8}[r.IntN(4)])
		if len(pts) < 2 {
			continue
		}
		k := 1 + r.IntN(len(pts))
		if c%3 == 0 {
			k = len(pts) - r.IntN(min(3, len(pts)))
		}
		pr, err := newProblem(pts, k)
		if err != nil {
			t.Fatal(err)
		}
		for _, onPoints := range []bool{false, true} {
			want, wc, wantTot := plainAnswer(t, pr, pts, onPoints)
			for _, floor := range []float64{0, wantTot} {
				g, _, _, _, lo := newGrid3Scan(pr, onPoints)
				if g == nil {
					t.Fatalf("case %d: no scan", c)
				}
				g.segDropped = 0
				bt, err := g.search(context.Background(), floor)
				if err != nil {
					t.Fatal(err)
				}
				dropped += g.segDropped
				gc := []int{int(g.centers[3*bt]) + lo[0], int(g.centers[3*bt+1]) + lo[1], int(g.centers[3*bt+2]) + lo[2]}
				g.release()
				if !slices.Equal(gc, wc) {
					t.Fatalf("case %d (%dx%dx%d, k = %d of %d, Gen-Alg %v, floor %v, segments of %d): center %v, plain %v", c, W, H, L, k, len(pts), onPoints, floor, grid3SegLen, gc, wc)
				}
				got, _, _, err := grid3Search(context.Background(), pr, floor, onPoints, nil)
				if err != nil || !slices.Equal(got, want) {
					t.Fatalf("case %d, Gen-Alg %v, floor %v: grid3 %v (%v), plain %v", c, onPoints, floor, got, err, want)
				}
				decisions++
			}
		}
	}
	if dropped == 0 {
		t.Fatal("no center dropped by a segment's bound: the cases miss the path")
	}
	t.Logf("%d decisions compared, %d centers dropped by segments' bounds", decisions, dropped)
}

// TestGrid3SegPlanes pins the per-plane counts of segBound3's gap terms to their
// definitions on random free sets, for runs of 1-6 consecutive centers of every
// MM row with their k-th distances as radii: along z, caps is the plane's points
// within rs[j] of some center and los those within rs[j] - 1 of every center,
// both exactly (from the row's tables and from the planes z's stack); along y
// and x, los exactly the same intersection, and caps the points whose rotated
// coordinates lie in the rectangle spanned by the centers' diamonds, which holds
// the union. So a count one off in either direction fails here even where the
// bound stays below the totals.
func TestGrid3SegPlanes(t *testing.T) {
	r := rand.New(rand.NewPCG(32, 79))
	sets := 600
	if testing.Short() {
		sets = 200
	}
	planes := 0
	for c := range sets {
		W, H, L := 1+r.IntN(8), 1+r.IntN(8), 1+r.IntN(9)
		pts := randomFree3(r, W, H, L, []float64{0, 0.2, 0.5, 0.8}[r.IntN(4)])
		if len(pts) < 2 {
			continue
		}
		k := 1 + r.IntN(len(pts))
		g, px, py, pz, _ := grid3ScanT(t, pts, k, c)
		n := len(pts)
		centers := g.centers
		for u := 0; u < len(centers); {
			cx, cy := int(centers[u]), int(centers[u+1])
			var rowZ []int32
			for ; u < len(centers) && int(centers[u]) == cx && int(centers[u+1]) == cy; u += 3 {
				rowZ = append(rowZ, centers[u+2])
			}
			i := r.IntN(len(rowZ))
			zs := rowZ[i:min(len(rowZ), i+1+r.IntN(6))]
			rs := make([]int32, len(zs))
			for m, z := range zs {
				g.setRow(cx, cy, true)
				rs[m] = int32(g.walk(cx, cy, int(z), 0))
			}
			rMax := slices.Max(rs)
			g.setRow(cx, cy, true)
			g.rowBallGrow(int(zs[0]), int(rMax))
			// Per point: within rs[j] of some center, within rs[j] - 1 of
			// every center.
			inUnion, inAll := make([]bool, n), make([]bool, n)
			for q := range n {
				inAll[q] = true
				for j, z := range zs {
					d := abs(px[q]-cx) + abs(py[q]-cy) + abs(pz[q]-int(z))
					inUnion[q] = inUnion[q] || d <= int(rs[j])
					inAll[q] = inAll[q] && d <= int(rs[j])-1
				}
			}
			check := func(axis string, lo int, caps, los []int32, coord []int, capOf func(q int) bool) {
				for i := range caps {
					p := lo + i
					var wc, wl int32
					for q := range n {
						if coord[q] != p {
							continue
						}
						if capOf(q) {
							wc++
						}
						if inAll[q] {
							wl++
						}
					}
					if caps[i] != wc || los[i] != wl {
						t.Fatalf("case %d, row (%d,%d), z %v, radii %v, plane %s = %d: caps %d los %d, want %d and %d", c, cx, cy, zs, rs, axis, p, caps[i], los[i], wc, wl)
					}
					planes++
				}
			}
			zLo := max(int(zs[0]-rMax), 0)
			for _, tables := range []bool{true, false} {
				caps, los := g.segZPlanes(cx, cy, zs, rs, rMax, tables, nil, nil)
				if want := min(int(zs[len(zs)-1]+rMax), g.L-1) - zLo + 1; len(caps) != want {
					t.Fatalf("case %d: %d planes z, want %d", c, len(caps), want)
				}
				check("z", zLo, caps, los, pz, func(q int) bool { return inUnion[q] })
			}
			// The rectangle of the diamonds in the plane's rotated coordinates
			// (a + c, a - c), a and c the plane's two other axes.
			rect := func(a, ca int, pa, pc, pp []int, c0 int) func(q int) bool {
				return func(q int) bool {
					d := abs(pp[q] - c0)
					A, B := pa[q]+pc[q], pa[q]-pc[q]
					in := false
					aLo, aHi, bLo, bHi := 1<<30, -(1 << 30), 1<<30, -(1 << 30)
					for j, z := range zs {
						r := int(rs[j])
						aLo, aHi = min(aLo, ca+int(z)-r), max(aHi, ca+int(z)+r)
						bLo, bHi = min(bLo, ca-int(z)-r), max(bHi, ca-int(z)+r)
					}
					in = A >= aLo+d && A <= aHi-d && B >= bLo+d && B <= bHi-d
					if in && !inUnion[q] && d > int(rMax) {
						t.Fatalf("rectangle beyond the radius")
					}
					return in && d <= int(rMax)
				}
			}
			yLo := max(cy-int(rMax), 0)
			caps, los := g.segGapPlanes(&g.py, cx, cy, g.H, zs, rs, rMax, nil, nil)
			check("y", yLo, caps, los, py, rect(cx, cx, px, pz, py, cy))
			xLo := max(cx-int(rMax), 0)
			caps, los = g.segGapPlanes(&g.px, cy, cx, g.W, zs, rs, rMax, nil, nil)
			check("x", xLo, caps, los, px, rect(cy, cy, py, pz, px, cx))
			for q := range n {
				if inUnion[q] {
					// The union lies in the rectangles (checked through caps
					// above only by count): a point of the union in a plane
					// within rMax is in its plane's rectangle.
					if !rect(cx, cx, px, pz, py, cy)(q) || !rect(cy, cy, py, pz, px, cx)(q) {
						t.Fatalf("case %d, row (%d,%d), z %v, radii %v: point %v of the union outside a rectangle", c, cx, cy, zs, rs, pts[q])
					}
				}
			}
		}
		g.release()
	}
	t.Logf("%d planes checked", planes)
}
