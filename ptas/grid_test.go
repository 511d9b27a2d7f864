package ptas

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/procalloc/procalloc/geom"
	"github.com/procalloc/procalloc/internal/oracle"
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
// loop for unordered points. The same-set shortcut and the one for a center with
// the k nearest of the center before it run in some sequences and not others.
func TestGridLockstep(t *testing.T) {
	defer func(c, tr int, so bool) { blockMinCells, blockTrial, blockSorted = c, tr, so }(blockMinCells, blockTrial, blockSorted)
	defer func(s, d, l bool) { sameSetOn, sameAsPrevOn, sameAsLeftOn = s, d, l }(sameSetOn, sameAsPrevOn, sameAsLeftOn)
	defer func(c bool) { compBoundWithBlocks = c }(compBoundWithBlocks)
	blockMinCells = 0 // the block bounds on these small meshes too
	r := rand.New(rand.NewPCG(32, 1))
	seqs, steps := 400, 12
	if testing.Short() {
		seqs = 150
	}
	decisions := 0
	for seq := range seqs {
		W, H := 1+r.IntN(24), 1+r.IntN(24)
		// The blocks' sorted visit from the start or after 1-4 blocks (a box of
		// 24x24 has 9) when they pay, and
		// now and then the lexicographic scan alone.
		blockTrial, blockSorted = seq%5, seq%7 != 6
		// The same-set shortcut (on in use) left out in a fourth.
		sameSetOn = seq%4 != 3
		// The shortcut for a center with the k nearest of the one before it (on in
		// use) left out in a third.
		sameAsPrevOn, sameAsLeftOn = seq%3 != 2, seq%6 != 1
		// The bound from the points left out with the blocks' (off in use) in half.
		compBoundWithBlocks = seq%2 == 0
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
			nfree := releaseRandomJobs(r, free, &jobs)
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
			want, wc, wantTot := plainAnswer(t, pr, nil, false)
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
			wantG, wgc, wantGTot := plainAnswer(t, pr, pts, true)
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

// TestWindowMinMatchesBruteForce checks blockBounds.windowMin against every window
// of k consecutive values and against every k-subset on small inputs.
func TestWindowMinMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(32, 9))
	var b blockBounds
	for c := range 3000 {
		b.vals, b.caps = b.vals[:0], b.caps[:0]
		v := int64(r.IntN(5))
		var all []int64
		for range 1 + r.IntN(5) {
			m := int64(1 + r.IntN(3))
			b.vals, b.caps = append(b.vals, v), append(b.caps, m)
			for range m {
				all = append(all, v)
			}
			v += int64(1 + r.IntN(6))
		}
		k := 1 + r.IntN(len(all)+1)
		// Every subset of k of the values (at most 15 of them).
		want := int64(-1)
		if k <= len(all) {
			for mask := 0; mask < 1<<len(all); mask++ {
				var sel []int64
				for i := range all {
					if mask&(1<<i) != 0 {
						sel = append(sel, all[i])
					}
				}
				if len(sel) != k {
					continue
				}
				var tot int64
				for i := range sel {
					for j := i + 1; j < len(sel); j++ {
						tot += absInt64(sel[j] - sel[i])
					}
				}
				if want < 0 || tot < want {
					want = tot
				}
			}
		} else {
			want = 0
		}
		if got := b.windowMin(k); got != want {
			t.Fatalf("case %d: values %v caps %v, k = %d: windowMin %d, brute force %d", c, b.vals, b.caps, k, got, want)
		}
	}
	// Larger inputs against every window of k consecutive values, summed plainly.
	for c := range 3000 {
		b.vals, b.caps = b.vals[:0], b.caps[:0]
		v := int64(r.IntN(5))
		var all []int64
		for range 1 + r.IntN(30) {
			m := int64(1 + r.IntN(6))
			b.vals, b.caps = append(b.vals, v), append(b.caps, m)
			for range m {
				all = append(all, v)
			}
			v += int64(1 + r.IntN(9))
		}
		k := 1 + r.IntN(len(all))
		want := int64(-1)
		for i := 0; i+k <= len(all); i++ {
			var tot int64
			for a := i; a < i+k; a++ {
				tot += all[a] * int64(2*(a-i)-k+1) // sorted: the a-th value against the ones before and after
			}
			if want < 0 || tot < want {
				want = tot
			}
		}
		if got := b.windowMin(k); got != want {
			t.Fatalf("large case %d: values %v caps %v, k = %d: windowMin %d, every window %d", c, b.vals, b.caps, k, got, want)
		}
	}
}

func absInt64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// TestBlockBoundBelowEveryCenter checks blockBounds against the definition: on random
// free sets of boxes up to 30x30, MM's centers and Gen-Alg's, the bound of every
// block never exceeds the total of the k nearest by (distance, index) of any center
// in it; TestGridLockstep checks the scan that uses it.
func TestBlockBoundBelowEveryCenter(t *testing.T) {
	r := rand.New(rand.NewPCG(32, 11))
	cases, checked, dropped := 200, 0, 0
	if testing.Short() {
		cases = 80
	}
	for c := range cases {
		pts, W, H := randomPlaneSet(r, 30, 0.8)
		n := len(pts)
		if n < 2 {
			continue
		}
		k := 1 + r.IntN(n-1)
		pr, err := newProblem(pts, k)
		if err != nil {
			t.Fatal(err)
		}
		g, x0, y0 := testGridScan(pts, k)
		_ = pr
		onPoints := c%2 == 1
		blk := newBlockBounds(len(g.xs), len(g.ys))
		if onPoints {
			g.centers = []int32{} // bound takes the radii added below
		}
		type center struct{ xi, yi, thr int }
		var cs []center
		thrs := make([]int32, len(g.xs)*len(g.ys))
		for xi := range g.xs {
			for yi := range g.ys {
				if onPoints {
					ci := g.firstCol[g.xs[xi]]
					p := g.colPre[int(ci)*(g.H+1):]
					if y := g.ys[yi]; p[y+1]-p[y] == 0 {
						continue // not a point: not a Gen-Alg center
					}
				}
				thr := g.radius(xi, yi, 0)
				if onPoints {
					blk.add(xi, yi, g.xs[xi], g.ys[yi], thr)
				}
				thrs[xi*len(g.ys)+yi] = int32(thr)
				cs = append(cs, center{xi, yi, thr})
			}
		}
		dist := make([]int, n)
		for _, ce := range cs {
			cx, cy := g.xs[ce.xi], g.ys[ce.yi]
			for i, p := range pts {
				dist[i] = absInt(p[0]-x0-cx) + absInt(p[1]-y0-cy)
			}
			var tot int64
			sel := nearestByIndex(dist, k)
			for a, i := range sel {
				for _, j := range sel[a+1:] {
					tot += int64(absInt(pts[i][0]-pts[j][0]) + absInt(pts[i][1]-pts[j][1]))
				}
			}
			lb := blk.bound(g, blk.block(ce.xi, ce.yi), thrs)
			if lb > tot {
				t.Fatalf("case %d (%dx%d, %d points, k = %d), center (%d, %d): block bound %d above its total %d", c, W, H, n, k, cx, cy, lb, tot)
			}
			checked++
			if lb*5 >= tot*4 {
				dropped++
			}
		}
	}
	t.Logf("%d centers checked, bound within 80%% of the total for %d", checked, dropped)
}

// testGridScan builds gridScan's tables for pts through gridSearch's own set-up
// (gridSetUp, MM's centers) and returns it with the box's corner.
func testGridScan(pts [][]int, k int) (*gridScan, int, int) {
	b := geom.BoundingBox(pts)
	x0, y0 := b.Min[0], b.Min[1]
	g, _ := gridSetUp(new(gridBufs), pts, k, x0, y0, b.Max[0]-x0+1, b.Max[1]-y0+1, false)
	return g, x0, y0
}

// TestBlockBoundMatchesPlainEnvelope checks blockBounds.bound, whose envelopes take
// the minimum over the block's lines only on those lines, against the envelopes as
// defined (the minimum over every line of the block, at every column and row) on
// random free sets: the two bounds must be equal, block by block, for MM's centers
// and Gen-Alg's.
func TestBlockBoundMatchesPlainEnvelope(t *testing.T) {
	r := rand.New(rand.NewPCG(32, 17))
	cases, blocks := 300, 0
	if testing.Short() {
		cases = 100
	}
	for c := range cases {
		pts, W, H := randomPlaneSet(r, 40, 0.8)
		n := len(pts)
		if n < 2 {
			continue
		}
		k := 1 + r.IntN(n-1)
		g, _, _ := testGridScan(pts, k)
		onPoints := c%2 == 1
		blk := newBlockBounds(len(g.xs), len(g.ys))
		if onPoints {
			g.centers = []int32{}
		}
		thrs := make([]int32, len(g.xs)*len(g.ys))
		for xi := range g.xs {
			for yi := range g.ys {
				if onPoints && (xi+yi)%3 == 0 {
					continue // some lines of a block without a center
				}
				thr := g.radius(xi, yi, 0)
				if onPoints {
					blk.add(xi, yi, g.xs[xi], g.ys[yi], thr)
				}
				thrs[xi*len(g.ys)+yi] = int32(thr)
			}
		}
		var ref blockBounds
		for bl := range blk.lb {
			if onPoints && blk.ext[4*bl] == blockNone {
				continue // no center: never bounded
			}
			got := blk.bound(g, bl, thrs)
			if want := blockBoundPlain(&ref, blk, g, bl); got != want {
				t.Fatalf("case %d (%dx%d, %d points, k = %d), block %d: bound %d, with the plain envelopes %d", c, W, H, n, k, bl, got, want)
			}
			blocks++
		}
	}
	t.Logf("%d blocks compared", blocks)
}

// blockBoundPlain is blockBounds.bound of block bl of b (its centers added) with the
// envelopes taken as defined, scratch in ref.
func blockBoundPlain(ref, b *blockBounds, g *gridScan, bl int) int64 {
	bx, by := bl/b.nby*blockSide, bl%b.nby*blockSide
	e := b.ext[4*bl : 4*bl+4]
	axis := func(lo, hi []int32, vs []int, base, elo, ehi int, pre []int32, size int) int64 {
		ref.vals, ref.caps = ref.vals[:0], ref.caps[:0]
		for vi := range vs {
			v := vs[vi]
			if v < elo || v > ehi {
				continue
			}
			l, h := int(blockNone), -int(blockNone)
			for j := range blockSide {
				if lo[j] == blockNone {
					continue
				}
				d := absInt(v - vs[base+j])
				l, h = min(l, int(lo[j])+d), max(h, int(hi[j])-d)
			}
			l, h = max(l, 0), min(h, size-1)
			if l > h {
				continue
			}
			p := pre[vi*(size+1) : (vi+1)*(size+1)]
			if c := p[h+1] - p[l]; c > 0 {
				ref.vals, ref.caps = append(ref.vals, int64(v)), append(ref.caps, int64(c))
			}
		}
		return ref.windowMin(g.k)
	}
	lbx := axis(b.colLo[bl*blockSide:(bl+1)*blockSide], b.colHi[bl*blockSide:(bl+1)*blockSide], g.xs, bx, int(e[0]), int(e[1]), g.colPre, g.H)
	lby := axis(b.rowLo[bl*blockSide:(bl+1)*blockSide], b.rowHi[bl*blockSide:(bl+1)*blockSide], g.ys, by, int(e[2]), int(e[3]), g.rowPre, g.W)
	return lbx + lby
}

// TestGridSortedVisitFullBalls checks the blocks' sorted visit where full balls
// decide: mostly free meshes (a few busy cells, most centers' k nearest the lattice
// shape) with k up to a full ball's size, the sorted visit taking over after the first
// block, MM and Gen-Alg with and without the best total as the floor, against the
// plain searchers.
func TestGridSortedVisitFullBalls(t *testing.T) {
	defer func(c, tr int, so bool) { blockMinCells, blockTrial, blockSorted = c, tr, so }(blockMinCells, blockTrial, blockSorted)
	blockMinCells, blockTrial, blockSorted = 0, 0, true // sorted from the first center
	r := rand.New(rand.NewPCG(32, 23))
	cases := 600
	if testing.Short() {
		cases = 200
	}
	for c := range cases {
		W, H := 3+r.IntN(22), 3+r.IntN(22)
		busy := r.Float64() * 0.06
		var pts [][]int
		for x := range W {
			for y := range H {
				if r.Float64() >= busy {
					pts = append(pts, []int{x, y})
				}
			}
		}
		d := 1 + r.IntN(3) // k between the sizes of full balls of radius d-1 and d
		k := min(2*d*d-2*d+2+r.IntN(4*d), len(pts)-1)
		if k < 1 {
			continue
		}
		pr, err := newProblem(pts, k)
		if err != nil {
			t.Fatal(err)
		}
		want, wc, wantTot := plainAnswer(t, pr, nil, false)
		for _, fl := range []float64{0, wantTot} {
			got, gc, err := mmGrid(context.Background(), pr, fl)
			if err != nil || !slices.Equal(got, want) || !slices.Equal(gc, wc) {
				t.Fatalf("case %d (%dx%d, %d points, k = %d, floor %v): MM grid %v at %v (%v), plain %v at %v", c, W, H, len(pts), k, fl, got, gc, err, want, wc)
			}
		}
		want, wc, wantTot = plainAnswer(t, pr, pts, true)
		for _, fl := range []float64{0, wantTot} {
			got, gc, ok, err := gridSearch(context.Background(), pr, fl, true)
			if err != nil || !ok || !slices.Equal(got, want) || !slices.Equal(gc, wc) {
				t.Fatalf("case %d (%dx%d, %d points, k = %d, floor %v): Gen-Alg grid %v at %v (%v, %v), plain %v at %v", c, W, H, len(pts), k, fl, got, gc, ok, err, want, wc)
			}
		}
	}
}

// TestGridScoreEveryCenter checks the plane's per-center pieces against the plain
// definition, center by center, on random free sets (young and fragmented boxes up
// to 20x20, k from 1 to all but one, so many ties at the k-th distance): the radius
// walk's thr and counts below and within it, from a random start, against the
// sorted distances; score without a limit against the total of the k nearest by
// (distance, index); and score with a random limit, with and without a bound on
// the y total (the true y total or a random smaller one), which must give the
// total exactly when it is within the limit and report a drop only when it is not.
func TestGridScoreEveryCenter(t *testing.T) {
	r := rand.New(rand.NewPCG(32, 29))
	cases, centers := 3000, 0
	if testing.Short() {
		cases = 1000
	}
	for c := range cases {
		pts, W, H := randomPlaneSet(r, 20, 0.9)
		n := len(pts)
		if n < 2 {
			continue
		}
		k := 1 + r.IntN(n-1)
		g, x0, y0 := testGridScan(pts, k)
		dist := make([]int, n)
		for xi := range g.xs {
			for yi := range g.ys {
				cx, cy := g.xs[xi], g.ys[yi]
				for i, p := range pts {
					dist[i] = absInt(p[0]-x0-cx) + absInt(p[1]-y0-cy)
				}
				sorted := slices.Sorted(slices.Values(dist))
				wantThr, wantBelow, wantWithin := sorted[k-1], 0, 0
				for _, d := range sorted {
					if d < wantThr {
						wantBelow++
					}
					if d <= wantThr {
						wantWithin++
					}
				}
				// The walk from a random radius (each step reuses the count its
				// previous step read).
				thr, below, within := g.radiusCounts(xi, yi, r.IntN(W+H))
				if thr != wantThr || below != wantBelow || within != wantWithin {
					t.Fatalf("case %d (%dx%d, k = %d), center (%d, %d): thr %d below %d within %d, want %d, %d and %d", c, W, H, k, cx, cy, thr, below, within, wantThr, wantBelow, wantWithin)
				}
				var tx, ty int64
				sel := nearestByIndex(dist, k)
				for a, i := range sel {
					for _, j := range sel[a+1:] {
						tx += int64(absInt(pts[i][0] - pts[j][0]))
						ty += int64(absInt(pts[i][1] - pts[j][1]))
					}
				}
				want := tx + ty
				if got, ok := g.score(cx, cy, thr, below, math.MaxInt64, 0); !ok || got != want {
					t.Fatalf("case %d (%dx%d, k = %d), center (%d, %d): score %d (%v), the k nearest by (distance, index) total %d", c, W, H, k, cx, cy, got, ok, want)
				}
				for _, yLB := range []int64{0, ty, r.Int64N(ty + 1)} {
					limit := want - 2 + r.Int64N(5)
					got, ok := g.score(cx, cy, thr, below, limit, yLB)
					if ok != (want <= limit) || ok && got != want {
						t.Fatalf("case %d (%dx%d, k = %d), center (%d, %d), limit %d, y bound %d: score %d (%v), total %d", c, W, H, k, cx, cy, limit, yLB, got, ok, want)
					}
				}
				centers++
			}
		}
	}
	t.Logf("%d centers checked", centers)
}

// randomPlaneSet draws a box of 1..side x 1..side cells and keeps each cell with
// probability 1 - busy, busy uniform in [0, maxBusy): the random free sets of the
// plane's tests, in (x, y) order, with the box's width and height.
func randomPlaneSet(r *rand.Rand, side int, maxBusy float64) (pts [][]int, W, H int) {
	W, H = 1+r.IntN(side), 1+r.IntN(side)
	busy := r.Float64() * maxBusy
	for x := range W {
		for y := range H {
			if r.Float64() >= busy {
				pts = append(pts, []int{x, y})
			}
		}
	}
	return pts, W, H
}

// releaseRandomJobs ends random jobs of the lockstep tests' decision streams (each
// job the cells it holds), one in three steps and always while fewer than two cells
// are free, and returns how many cells are free.
func releaseRandomJobs(r *rand.Rand, free []bool, jobs *[][]int) (nfree int) {
	for _, f := range free {
		if f {
			nfree++
		}
	}
	for len(*jobs) > 0 && (nfree < 2 || r.IntN(3) == 0) {
		js := *jobs
		j := r.IntN(len(js))
		for _, c := range js[j] {
			free[c] = true
			nfree++
		}
		js[j] = js[len(js)-1]
		*jobs = js[:len(js)-1]
	}
	return nfree
}

// plainAnswer is the plain searcher's answer under TiesByIndex: MM over every
// center (onPoints false) or Gen-Alg over the points pts in order; the chosen
// indices sorted, the center and the total.
func plainAnswer(t *testing.T, pr *problem[int], pts [][]int, onPoints bool) (sel, center []int, tot float64) {
	t.Helper()
	sr := newSearcher(pr, TiesByIndex, metricL1, scorePairwise)
	defer sr.release()
	if onPoints {
		for _, p := range pts {
			sr.try(p)
		}
	} else if err := mmCenters(context.Background(), pr, TiesByIndex, func(c []int) bool { sr.try(c); return false }); err != nil {
		t.Fatal(err)
	}
	sel = slices.Clone(sr.bestSel)
	slices.Sort(sel)
	return sel, slices.Clone(sr.bestCenter), float64(sr.bestScore)
}

// TestGridResultTotal checks the total the plane's grid search takes from its scan
// (gridResult): on partly busy meshes in free-list order, Gen-Alg's and MM's
// totals on the grid path equal the brute-force total of the indices returned,
// with and without the best total as the floor, and equal the indices and total
// of the same points as float64 (whose result sums the total afresh).
func TestGridResultTotal(t *testing.T) {
	defer func(g bool, mk, mc int) { genAlgGrid, genAlgGridMinK, genAlgGridMinCells = g, mk, mc }(genAlgGrid, genAlgGridMinK, genAlgGridMinCells)
	genAlgGrid, genAlgGridMinK, genAlgGridMinCells = true, 1, 1
	r := rand.New(rand.NewPCG(5, 3))
	trials := 300
	if testing.Short() {
		trials = 80
	}
	checked := 0
	for trial := range trials {
		W, H := 2+r.IntN(30), 2+r.IntN(30)
		busy := r.Float64()
		var pts [][]int
		for x := range W {
			for y := range H {
				if r.Float64() >= busy {
					pts = append(pts, []int{x + 7, y - 2})
				}
			}
		}
		if len(pts) < 3 {
			continue
		}
		fpts := make([][]float64, len(pts))
		for i, p := range pts {
			fpts[i] = []float64{float64(p[0]), float64(p[1])}
		}
		k := 2 + r.IntN(len(pts)-2)
		brute := func(idx []int) float64 {
			sel := make([][]int, len(idx))
			for i, j := range idx {
				sel[i] = pts[j]
			}
			return float64(oracle.PairwiseL1Brute(sel))
		}
		for _, floor := range []bool{false, true} {
			opt := Options{Ties: TiesByIndex}
			if floor {
				res, err := GenAlg(pts, k, opt)
				if err != nil {
					t.Fatal(err)
				}
				opt.Floor = res.Total
			}
			res, err := GenAlg(pts, k, opt)
			if err != nil {
				t.Fatal(err)
			}
			fres, err := GenAlg(fpts, k, opt)
			if err != nil {
				t.Fatal(err)
			}
			if want := brute(res.Indices); res.Total != want || fres.Total != want || !slices.Equal(res.Indices, fres.Indices) {
				t.Fatalf("trial %d, %dx%d, k = %d, floor %v: Gen-Alg total %v (float64 input: %v, %v), the indices give %v",
					trial, W, H, k, opt.Floor, res.Total, fres.Total, slices.Equal(res.Indices, fres.Indices), want)
			}
			pr, err := newProblem(pts, k)
			if err != nil {
				t.Fatal(err)
			}
			idx, _, tot, ok, err := gridSearchTotal(t.Context(), pr, opt.Floor, false)
			if err != nil || !ok {
				t.Fatalf("trial %d: MM's grid search: %v, %v", trial, ok, err)
			}
			if want := brute(idx); float64(tot) != want {
				t.Fatalf("trial %d, %dx%d, k = %d, floor %v: MM's grid total %d, the indices give %v", trial, W, H, k, opt.Floor, tot, want)
			}
			checked++
		}
	}
	if checked < trials {
		t.Fatalf("only %d searches checked", checked)
	}
}

// mmGrid is gridSearchTotal's MM (the centers of the lattice), without the total.
func mmGrid[T geom.Number](ctx context.Context, pr *problem[T], floor float64) (best []int, bestCenter []T, err error) {
	best, bestCenter, _, _, err = gridSearchTotal(ctx, pr, floor, false)
	return best, bestCenter, err
}

// gridSearch is gridSearchTotal without the total.
func gridSearch[T geom.Number](ctx context.Context, pr *problem[T], floor float64, onPoints bool) (best []int, bestCenter []T, ok bool, err error) {
	best, bestCenter, _, ok, err = gridSearchTotal(ctx, pr, floor, onPoints)
	return best, bestCenter, ok, err
}
