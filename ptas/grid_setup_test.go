package ptas

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestGridSortedBuildMatchesScattered checks the one-pass tables of points in
// ascending (x, y) order (grid_setup.go) against the ones built by clearing,
// scattering and summing in place, both through gridSearch's set-up (gridSetUp,
// gridSortedBuild on and off): the columns' and rows' prefix counts, rotBalls'
// table and compBound's weights equal entry for entry, on random point sets of
// boxes up to 24x24, a third with coinciding points; and where no column has a run
// of 2d + 1 points on consecutive cells (the skipped build) no center has a full
// ball.
func TestGridSortedBuildMatchesScattered(t *testing.T) {
	rng := rand.New(rand.NewPCG(32, 8))
	defer func() { gridSortedBuild = true }()
	cases := 3000
	if testing.Short() {
		cases = 800
	}
	skipped, fullSeen := 0, 0
	for c := range cases {
		W, H := 1+rng.IntN(24), 1+rng.IntN(24)
		density := rng.Float64()
		dups := c%3 == 0
		var pts [][2]int
		for x := range W {
			for y := range H {
				if rng.Float64() < density {
					pts = append(pts, [2]int{x, y})
					for dups && rng.IntN(4) == 0 {
						pts = append(pts, [2]int{x, y})
					}
				}
			}
		}
		if len(pts) == 0 {
			continue
		}
		n := len(pts)
		in := make([][]int, n)
		for i := range pts {
			in[i] = pts[i][:]
		}
		// The same set-up both ways (a: scattered, b: one pass), over the W x H box.
		k := 1 + rng.IntN(n)
		var a, b gridBufs
		gridSortedBuild = false
		gridSetUp(&a, in, k, 0, 0, W, H, false)
		gridSortedBuild = true
		gridSetUp(&b, in, k, 0, 0, W, H, false)
		if !b.sorted || a.sorted {
			t.Fatalf("case %d: the set-up took the wrong build (sorted %v, %v)", c, a.sorted, b.sorted)
		}
		px, py := b.px, b.py
		if !slices.Equal(a.colPre, b.colPre) || !slices.Equal(a.rowPre, b.rowPre) {
			t.Fatalf("case %d (%dx%d, %d points): line prefix counts differ:\ncols %v\n     %v\nrows %v\n     %v", c, W, H, n, a.colPre, b.colPre, a.rowPre, b.rowPre)
		}
		if !slices.Equal(a.rot.pre, b.rot.pre) || a.rot.h != b.rot.h || a.rot.u != b.rot.u {
			t.Fatalf("case %d (%dx%d, %d points): rotBalls' tables differ", c, W, H, n)
		}
		ca, cb := newCompBound(px, py, W, H, k), newCompBoundIn(px, py, W, H, k, &b.byA)
		if !slices.Equal(ca.wt, cb.wt) || ca.pf != cb.pf || ca.dmin != cb.dmin {
			t.Fatalf("case %d (%dx%d, %d points): compBound's tables differ", c, W, H, n)
		}
		ca.release()
		cb.release()
		// The longest run of points on consecutive cells of one column.
		occ := make(map[[2]int]bool)
		for _, p := range pts {
			occ[p] = true
		}
		maxRun := 0
		for x := range W {
			run := 0
			for y := range H {
				if occ[[2]int{x, y}] {
					run++
					maxRun = max(maxRun, run)
				} else {
					run = 0
				}
			}
		}
		for _, k := range []int{1, 2, 5, 13, 25, 41, 61, 85, 1 + rng.IntN(n)} {
			if maxRun >= 2*fullD(k)+1 {
				continue
			}
			skipped++
			f := newFullBalls(px, py, W, H, k, true)
			for cx := range W {
				for cy := range H {
					if f.at(cx, cy) {
						t.Fatalf("case %d (%dx%d): k = %d, longest column run %d < %d, yet (%d, %d) has a full ball", c, W, H, k, maxRun, 2*fullD(k)+1, cx, cy)
					}
				}
			}
		}
		if f := newFullBalls(px, py, W, H, 5, true); len(f.pre) > 0 {
			for cx := range W {
				for cy := range H {
					if f.at(cx, cy) {
						fullSeen++
					}
				}
			}
		}
	}
	if skipped == 0 || fullSeen == 0 {
		t.Fatalf("the cases reach neither side: %d skipped builds, %d full balls", skipped, fullSeen)
	}
	t.Logf("%d skipped full-ball builds checked; %d full balls at k = 5", skipped, fullSeen)
}
