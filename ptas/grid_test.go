package ptas

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestGridMatchesSweep checks that mmGrid returns exactly mmSweep's subset and center
// (both TiesByIndex MM) on random integer point sets in the plane: partly occupied
// meshes in free-list and shuffled order, and clustered points with duplicates and
// gaps between coordinate values (in random and in ascending (x, y) order), for k
// from 1 to n-1; and mmGrid on the same points as float64.
func TestGridMatchesSweep(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	trials := 400
	if testing.Short() {
		trials = 100
	}
	for trial := 0; trial < trials; trial++ {
		var pts [][]int
		switch trial % 3 {
		case 0, 1: // mesh with a random fraction busy
			X, Y := 1+r.IntN(20), 1+r.IntN(20)
			busy := r.Float64()
			for x := 0; x < X; x++ {
				for y := 0; y < Y; y++ {
					if r.Float64() >= busy {
						pts = append(pts, []int{x - 5, y + 3})
					}
				}
			}
			if trial%3 == 1 {
				r.Shuffle(len(pts), func(i, j int) { pts[i], pts[j] = pts[j], pts[i] })
			}
		default: // duplicates and gaps
			n, span := 2+r.IntN(60), 1+r.IntN(12)
			for i := 0; i < n; i++ {
				pts = append(pts, []int{3 * r.IntN(span), r.IntN(span) * (1 + r.IntN(2))})
			}
			if trial%2 == 0 { // ascending (x, y): cells of several points read in order
				slices.SortStableFunc(pts, func(a, b []int) int { return slices.Compare(a, b) })
			}
		}
		if len(pts) < 2 {
			continue
		}
		fpts := make([][]float64, len(pts))
		for i, p := range pts {
			fpts[i] = []float64{float64(p[0]), float64(p[1])}
		}
		for _, k := range []int{1, 2, 1 + r.IntN(len(pts)-1), len(pts) / 2, len(pts) - 1} {
			if k < 1 || k >= len(pts) {
				continue
			}
			pr, err := newProblem(pts, k)
			if err != nil {
				t.Fatal(err)
			}
			if !mmGridFits(pr) {
				t.Fatalf("trial %d: grid does not fit", trial)
			}
			gi, gc, err := mmGrid(context.Background(), pr, 0)
			if err != nil {
				t.Fatal(err)
			}
			si, scen, err := mmSweep(context.Background(), pr)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(gi, si) || !slices.Equal(gc, scen) {
				t.Fatalf("trial %d, n = %d, k = %d: grid %v at %v, sweep %v at %v\npoints %v", trial, len(pts), k, gi, gc, si, scen, pts)
			}
			// The same points as float64 (integral values) take the grid too.
			fpr, err := newProblem(fpts, k)
			if err != nil {
				t.Fatal(err)
			}
			if !mmGridFits(fpr) {
				t.Fatalf("trial %d: grid does not fit float64 points", trial)
			}
			fi, fc, err := mmGrid(context.Background(), fpr, 0)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(fi, gi) || fc[0] != float64(gc[0]) || fc[1] != float64(gc[1]) {
				t.Fatalf("trial %d, k = %d: float64 grid %v at %v, int grid %v at %v", trial, k, fi, fc, gi, gc)
			}
		}
	}
}

// TestGridLockstep plays random allocate/release sequences on meshes, as an
// allocator does (free nodes in free-list order, each request given MM's or
// Gen-Alg's answer, random jobs released), and checks at every request that mmGrid
// and Gen-Alg's gridSearch (the bounded scan of ordered points) return exactly the
// plain searcher's subset and center: every center tried in order (MM's candidates;
// the free nodes), k nearest by (distance, index), the first strictly best; with
// no floor and with the best total as the floor.
// Meshes of many equal totals (young free sets, full balls, k near the free count)
// exercise the tie rule; a tenth of the sequences also run with rotBalls off, the
// loop for unordered points.
func TestGridLockstep(t *testing.T) {
	r := rand.New(rand.NewPCG(32, 1))
	seqs, steps := 400, 12
	if testing.Short() {
		seqs = 150
	}
	decisions := 0
	for seq := range seqs {
		W, H := 1+r.IntN(24), 1+r.IntN(24)
		noRot := seq%10 == 9
		if noRot {
			rotBallsMaxCells = 0
		}
		free := make([]bool, W*H)
		for i := range free {
			free[i] = true
		}
		var jobs [][]int // cells held
		for range steps {
			// Release a random job now and then, more often when the mesh is full.
			nfree := 0
			for _, f := range free {
				if f {
					nfree++
				}
			}
			for len(jobs) > 0 && (nfree < 2 || r.IntN(3) == 0) {
				j := r.IntN(len(jobs))
				for _, c := range jobs[j] {
					free[c] = true
					nfree++
				}
				jobs[j] = jobs[len(jobs)-1]
				jobs = jobs[:len(jobs)-1]
			}
			if nfree < 2 {
				break
			}
			var pts [][]int
			var cells []int
			for x := range W {
				for y := range H {
					if free[x*H+y] {
						pts = append(pts, []int{x + 3, y - 2})
						cells = append(cells, x*H+y)
					}
				}
			}
			var k int
			switch r.IntN(4) {
			case 0:
				k = nfree - 1 - r.IntN(min(3, nfree-1))
			case 1:
				d := r.IntN(4)
				k = min(2*d*d+2*d+1, nfree-1) // a full ball's size
			default:
				k = 1 + r.IntN(min(nfree-1, 1+W*H/3))
			}
			pr, err := newProblem(pts, k)
			if err != nil {
				t.Fatal(err)
			}
			got, gc, err := mmGrid(context.Background(), pr, 0)
			if err != nil {
				t.Fatal(err)
			}
			sr := newSearcher(pr, TiesByIndex, metricL1, scorePairwise)
			if err := mmCenters(context.Background(), pr, TiesByIndex, func(c []int) bool { sr.try(c); return false }); err != nil {
				t.Fatal(err)
			}
			want, wc, wantTot := slices.Clone(sr.bestSel), slices.Clone(sr.bestCenter), float64(sr.bestScore)
			sr.release()
			slices.Sort(want)
			if !slices.Equal(got, want) || !slices.Equal(gc, wc) {
				t.Fatalf("sequence %d (%dx%d), k = %d of %d free: grid %v at %v, plain %v at %v", seq, W, H, k, nfree, got, gc, want, wc)
			}
			// With the best total as the floor (the search may stop at it).
			if fl, flc, err := mmGrid(context.Background(), pr, wantTot); err != nil || !slices.Equal(fl, want) || !slices.Equal(flc, wc) {
				t.Fatalf("sequence %d, k = %d, floor %v: grid %v at %v (%v), plain %v at %v", seq, k, wantTot, fl, flc, err, want, wc)
			}
			// Gen-Alg: the free nodes as centers, in order.
			gg, ggc, ok, err := gridSearch(context.Background(), pr, 0, true)
			if noRot {
				if ok {
					t.Fatalf("sequence %d: Gen-Alg's grid ran without rotated counts", seq)
				}
			}
			if err != nil || !ok && !noRot {
				t.Fatalf("sequence %d: Gen-Alg's grid: ok %v, %v", seq, ok, err)
			}
			sr = newSearcher(pr, TiesByIndex, metricL1, scorePairwise)
			for _, p := range pts {
				sr.try(p)
			}
			wantG, wgc, wantGTot := slices.Clone(sr.bestSel), slices.Clone(sr.bestCenter), float64(sr.bestScore)
			sr.release()
			slices.Sort(wantG)
			if ok && (!slices.Equal(gg, wantG) || !slices.Equal(ggc, wgc)) {
				t.Fatalf("sequence %d (%dx%d), k = %d of %d free: Gen-Alg grid %v at %v, plain %v at %v", seq, W, H, k, nfree, gg, ggc, wantG, wgc)
			}
			if fl, flc, _, err := gridSearch(context.Background(), pr, wantGTot, true); ok && (err != nil || !slices.Equal(fl, wantG) || !slices.Equal(flc, wgc)) {
				t.Fatalf("sequence %d, k = %d, floor %v: Gen-Alg grid %v at %v (%v), plain %v at %v", seq, k, wantGTot, fl, flc, err, wantG, wgc)
			}
			decisions++
			if ok && r.IntN(2) == 0 {
				got = gg // play Gen-Alg's answer
			}
			job := make([]int, 0, k)
			for _, i := range got {
				free[cells[i]] = false
				job = append(job, cells[i])
			}
			jobs = append(jobs, job)
		}
		rotBallsMaxCells = 4 * maxGridCells
	}
	t.Logf("%d decisions compared", decisions)
}

// TestCompBoundBelowEveryCenter checks compBound against the definition: on random
// free sets of boxes up to 20x20 (young and fragmented, k from a fifth of the points
// to all but one), for every cell of the box as a center, the bound from its radius
// and inner count never exceeds the total of its k nearest by (distance, index).
func TestCompBoundBelowEveryCenter(t *testing.T) {
	r := rand.New(rand.NewPCG(32, 7))
	cases, centers, tight := 300, 0, 0
	if testing.Short() {
		cases = 120
	}
	for c := range cases {
		W, H := 1+r.IntN(20), 1+r.IntN(20)
		busy := r.Float64() * 0.8
		var px, py []int
		for x := range W {
			for y := range H {
				if r.Float64() >= busy {
					px, py = append(px, x), append(py, y)
				}
			}
		}
		n := len(px)
		if n < 2 {
			continue
		}
		k := n/5 + 1 + r.IntN(n-n/5-1)
		cb := newCompBound(px, py, W, H, k)
		dist := make([]int, n)
		for cx := range W {
			for cy := range H {
				for i := range n {
					dist[i] = absInt(px[i]-cx) + absInt(py[i]-cy)
				}
				sel := nearestByIndex(dist, k)
				var tot int64
				thr, below := 0, 0
				for a, i := range sel {
					thr = max(thr, dist[i])
					for _, j := range sel[a+1:] {
						tot += int64(absInt(px[i]-px[j]) + absInt(py[i]-py[j]))
					}
				}
				for _, i := range sel {
					if dist[i] < thr {
						below++
					}
				}
				lb := cb.lb(cx, cy, thr, below)
				if lb > tot {
					t.Fatalf("case %d (%dx%d, %d points, k = %d), center (%d, %d): bound %d above the total %d", c, W, H, n, k, cx, cy, lb, tot)
				}
				centers++
				if lb == tot {
					tight++
				}
			}
		}
		cb.release()
	}
	t.Logf("%d centers checked, bound equal to the total for %d", centers, tight)
}
