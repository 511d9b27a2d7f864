package ptas

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestGrid3Lockstep plays random allocate/release sequences on 3D boxes as an
// allocator does (free nodes in free-list order; each request given MM's or
// Gen-Alg's answer; random jobs released) and checks at every request that
// grid3Search returns exactly the plain searcher's subset and center for MM (every
// combination of distinct coordinates) and Gen-Alg (the free nodes in order), ties
// included: young free sets with full balls, k near the free count, fragments;
// with no floor and with the best total as the floor.
func TestGrid3Lockstep(t *testing.T) {
	r := rand.New(rand.NewPCG(32, 3))
	seqs, steps := 250, 10
	if testing.Short() {
		seqs = 100
	}
	decisions := 0
	defer func(on, nested bool, shell int) {
		grid3SameOn, grid3NestedOn, shellTablesMin = on, nested, shell
	}(grid3SameOn, grid3NestedOn, shellTablesMin)
	shellDefault := shellTablesMin
	for seq := range seqs {
		grid3SameOn = seq%3 != 2   // sameAsBelow's shortcut on and off
		grid3NestedOn = seq%4 != 3 // sameAsNested's too
		// The taken planes' marginals from the tables always, as tuned, never.
		shellTablesMin = []int{0, shellDefault, -1}[seq%5%3]
		W, H, L := 1+r.IntN(8), 1+r.IntN(8), 1+r.IntN(8)
		if seq%10 == 9 {
			// Larger boxes: larger radii, rows' tables over more radii.
			W, H, L = 6+r.IntN(9), 6+r.IntN(9), 6+r.IntN(9)
		}
		free := make([]bool, W*H*L)
		for i := range free {
			free[i] = true
		}
		var jobs [][]int
		for range steps {
			nfree := releaseRandomJobs(r, free, &jobs)
			if nfree < 2 {
				break
			}
			var pts [][]int
			var cells []int
			for c, f := range free {
				if f {
					pts = append(pts, []int{c/(H*L) - 2, c / L % H, c%L + 5})
					cells = append(cells, c)
				}
			}
			var k int
			switch r.IntN(4) {
			case 0:
				k = nfree - 1 - r.IntN(min(3, nfree-1))
			case 1:
				d := r.IntN(3)
				k = min((2*d+1)*(2*d*d+2*d+3)/3, nfree-1) // a full ball's size
			default:
				k = 1 + r.IntN(min(nfree-1, 1+W*H*L/3))
			}
			pr, err := newProblem(pts, k)
			if err != nil {
				t.Fatal(err)
			}
			var answers [][]int
			for _, onPoints := range []bool{false, true} {
				got, gc, tot, ok, err := grid3Search(context.Background(), pr, 0, onPoints, nil)
				if err != nil || !ok {
					t.Fatalf("sequence %d: grid3Search: ok %v, %v", seq, ok, err)
				}
				want, wc, wantTot := plainAnswer(t, pr, pts, onPoints)
				// The total returned is the winner's (the results' Total, not
				// summed again: gridResult).
				if !slices.Equal(got, want) || !slices.Equal(gc, wc) || float64(tot) != wantTot {
					t.Fatalf("sequence %d (%dx%dx%d), k = %d of %d free, Gen-Alg %v: grid3 %v at %v total %d, plain %v at %v total %v", seq, W, H, L, k, nfree, onPoints, got, gc, tot, want, wc, wantTot)
				}
				// With the best total as the floor (the search may stop at it).
				if fl, flc, ft, _, err := grid3Search(context.Background(), pr, wantTot, onPoints, nil); err != nil || !slices.Equal(fl, want) || !slices.Equal(flc, wc) || float64(ft) != wantTot {
					t.Fatalf("sequence %d, k = %d, Gen-Alg %v, floor %v: grid3 %v at %v total %d (%v), plain %v at %v", seq, k, onPoints, wantTot, fl, flc, ft, err, want, wc)
				}
				// Every ball counted directly instead of from the rows' tables.
				grid3RowTables = false
				dg, dc, dt, _, err := grid3Search(context.Background(), pr, 0, onPoints, nil)
				grid3RowTables = true
				if err != nil || !slices.Equal(dg, want) || !slices.Equal(dc, wc) || float64(dt) != wantTot {
					t.Fatalf("sequence %d, k = %d, Gen-Alg %v, without row tables: grid3 %v at %v total %d (%v), plain %v at %v", seq, k, onPoints, dg, dc, dt, err, want, wc)
				}
				decisions++
				answers = append(answers, got)
			}
			job := make([]int, 0, k)
			for _, i := range answers[r.IntN(2)] {
				free[cells[i]] = false
				job = append(job, cells[i])
			}
			jobs = append(jobs, job)
		}
	}
	t.Logf("%d decisions compared", decisions)
}

// TestGrid3BoundsBelowTotal checks grid3Scan's bounds against the definition on
// random free sets of 3D boxes, at every MM center, with and without the rows'
// tables: walk's thr is the k-th smallest distance, zBound is at most the z
// axis's pairwise total of the k nearest by (distance, index), and score returns
// the exact total when the limit allows it and otherwise a value above the limit
// and at most the total.
func TestGrid3BoundsBelowTotal(t *testing.T) {
	r := rand.New(rand.NewPCG(32, 5))
	cases := 60
	if testing.Short() {
		cases = 25
	}
	centers := 0
	for c := range cases {
		W, H, L := 2+r.IntN(9), 2+r.IntN(9), 2+r.IntN(9)
		busy := r.Float64() * 0.9
		pts := randomFree3(r, W, H, L, busy)
		if len(pts) < 3 {
			continue
		}
		k := 2 + r.IntN(len(pts)-2)
		g, px, py, pz, _ := grid3ScanT(t, pts, k, c)
		axisTotal := func(v []int, sel []int) int64 {
			var s int64
			for i, a := range sel {
				for _, b := range sel[i+1:] {
					s += int64(abs(v[a] - v[b]))
				}
			}
			return s
		}
		for _, tables := range []bool{true, false} {
			grid3RowTables = tables
			thr := 0
			for u := 0; u < len(g.centers); u += 3 {
				cx, cy, cz := int(g.centers[u]), int(g.centers[u+1]), int(g.centers[u+2])
				g.setRow(cx, cy, tables)
				thr = g.walk(cx, cy, cz, thr)
				dist := make([]int, len(pts))
				for i := range pts {
					dist[i] = abs(px[i]-cx) + abs(py[i]-cy) + abs(pz[i]-cz)
				}
				sel := nearestByIndex(dist, k)
				want := 0
				for _, i := range sel {
					want = max(want, dist[i])
				}
				if thr != want {
					t.Fatalf("case %d, center (%d,%d,%d): walk %d, k-th distance %d", c, cx, cy, cz, thr, want)
				}
				zt, total := axisTotal(pz, sel), axisTotal(px, sel)+axisTotal(py, sel)+axisTotal(pz, sel)
				if zb := g.zBound(cz, thr); zb > zt {
					t.Fatalf("case %d, center (%d,%d,%d), k = %d: zBound %d above the z total %d", c, cx, cy, cz, k, zb, zt)
				}
				if got, ok := g.score(cx, cy, cz, thr, total); !ok || got != total {
					t.Fatalf("case %d, center (%d,%d,%d): score %d (%v), total %d", c, cx, cy, cz, got, ok, total)
				}
				for _, limit := range []int64{0, total / 4, total / 2, total * 3 / 4, total * 9 / 10, total - 1} {
					if got, ok := g.score(cx, cy, cz, thr, limit); ok || got <= limit || got > total {
						t.Fatalf("case %d, center (%d,%d,%d), limit %d: score %d (%v), total %d", c, cx, cy, cz, limit, got, ok, total)
					}
				}
				centers++
			}
		}
		grid3RowTables = true
	}
	t.Logf("%d centers checked", centers)
}

// TestGrid3FullMatchesCube checks the full-ball shortcut's test (full) against
// its definition, a cube of half-side dFull inside the box with a point on every
// cell, at every cell of random boxes: dense free sets with full cubes, sparse
// ones without (where setFull skips the prefix counts: no run of 2 dFull + 1
// points along z), and k around the sizes of full balls.
func TestGrid3FullMatchesCube(t *testing.T) {
	r := rand.New(rand.NewPCG(32, 9))
	cases := 300
	if testing.Short() {
		cases = 120
	}
	checked, fulls, skipped := 0, 0, 0
	for c := range cases {
		W, H, L := 3+r.IntN(8), 3+r.IntN(8), 3+r.IntN(8)
		busy := []float64{0, 0.02, 0.1, 0.4}[r.IntN(4)]
		var pts [][]int
		occ := make([]bool, W*H*L)
		for x := range W {
			for y := range H {
				for z := range L {
					if r.Float64() >= busy {
						pts = append(pts, []int{x, y, z})
						occ[(x*H+y)*L+z] = true
					}
				}
			}
		}
		if len(pts) < 3 {
			continue
		}
		d := r.IntN(3)
		k := min(max(2, (2*d+1)*(2*d*d+2*d+3)/3-1+r.IntN(3)), len(pts)-1)
		g, _, _, _, lo := grid3ScanT(t, pts, k, c)
		if len(g.pre) == 0 {
			skipped++
		}
		cube := func(cx, cy, cz int) bool {
			e := g.dFull
			if 2*e+1 > min(g.W, g.H, g.L) || cx-e < 0 || cy-e < 0 || cz-e < 0 || cx+e >= g.W || cy+e >= g.H || cz+e >= g.L {
				return false
			}
			for x := cx - e; x <= cx+e; x++ {
				for y := cy - e; y <= cy+e; y++ {
					for z := cz - e; z <= cz+e; z++ {
						if !occ[((x+lo[0])*H+y+lo[1])*L+z+lo[2]] {
							return false
						}
					}
				}
			}
			return true
		}
		for x := range g.W {
			for y := range g.H {
				for z := range g.L {
					want := cube(x, y, z)
					if got := g.full(x, y, z); got != want {
						t.Fatalf("case %d (%dx%dx%d, k = %d, dFull %d), cell (%d,%d,%d): full %v, cube %v", c, W, H, L, k, g.dFull, x, y, z, got, want)
					}
					if want {
						fulls++
					}
					checked++
				}
			}
		}
		g.release()
	}
	if fulls == 0 || skipped == 0 {
		t.Fatalf("%d full cells, %d boxes without prefix counts: the cases miss a side", fulls, skipped)
	}
	t.Logf("%d cells checked, %d full, %d boxes without prefix counts", checked, fulls, skipped)
}

// grid3ScanT builds the MM scan of pts for k nearest (case c of a random test),
// failing the test when the problem is refused or the scan does not apply.
func grid3ScanT(t *testing.T, pts [][]int, k, c int) (g *grid3Scan, px, py, pz []int, lo []int) {
	t.Helper()
	pr, err := newProblem(pts, k)
	if err != nil {
		t.Fatal(err)
	}
	if g, px, py, pz, lo = newGrid3Scan(pr, false); g == nil {
		t.Fatalf("case %d: no scan", c)
	}
	return g, px, py, pz, lo
}

// randomFree3 lists the free cells of a W x H x L box in x, y, z order, each cell
// busy with probability busy (one r.Float64 per cell, in that order): the random
// free sets of the 3D scan's tests.
func randomFree3(r *rand.Rand, W, H, L int, busy float64) [][]int {
	var pts [][]int
	for x := range W {
		for y := range H {
			for z := range L {
				if r.Float64() >= busy {
					pts = append(pts, []int{x, y, z})
				}
			}
		}
	}
	return pts
}

// TestGrid3RejectsUnordered checks that grid3Search takes only distinct points in
// ascending (x, y, z) order, the order its tie rule and tables rely on, and leaves
// any other input to the other paths (ok false): on random free sets of random
// boxes, the points in order are taken, and with two of them swapped (neighbours
// in the order, most often one line's, or any two) or one repeated in place of
// the next they are not.
func TestGrid3RejectsUnordered(t *testing.T) {
	r := rand.New(rand.NewPCG(32, 6))
	for trial := range 300 {
		W, H, L := 1+r.IntN(6), 1+r.IntN(6), 1+r.IntN(6)
		var pts [][]int
		for x := range W {
			for y := range H {
				for z := range L {
					if r.IntN(3) > 0 {
						pts = append(pts, []int{x + 3, y - 1, z})
					}
				}
			}
		}
		if len(pts) < 3 {
			continue
		}
		k := 1 + r.IntN(len(pts)-1)
		run := func(ps [][]int) bool {
			pr, err := newProblem(ps, k)
			if err != nil {
				t.Fatal(err)
			}
			_, _, _, ok, err := grid3Search(context.Background(), pr, 0, trial%2 == 0, nil)
			if err != nil {
				t.Fatal(err)
			}
			return ok
		}
		if !run(pts) {
			t.Fatalf("trial %d: points in order not taken", trial)
		}
		i := r.IntN(len(pts) - 1)
		j := i + 1
		if trial%3 > 0 {
			j += r.IntN(len(pts) - 1 - i)
		}
		swapped := slices.Clone(pts)
		swapped[i], swapped[j] = swapped[j], swapped[i]
		if run(swapped) {
			t.Fatalf("trial %d: points %d and %d swapped (%v, %v) taken", trial, i, j, pts[i], pts[j])
		}
		repeated := slices.Clone(pts)
		repeated[i+1] = repeated[i]
		pr, err := newProblem(repeated, k)
		if err != nil {
			t.Fatal(err) // repeated points are valid input (the other paths take them)
		}
		if _, _, _, ok, _ := grid3Search(context.Background(), pr, 0, trial%2 == 1, nil); ok {
			t.Fatalf("trial %d: point %d repeated (%v) taken", trial, i, pts[i])
		}
	}
}
