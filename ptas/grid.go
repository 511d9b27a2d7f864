package ptas

import (
	"cmp"
	"context"
	"math"
	"slices"
	"sync"

	"github.com/procalloc/procalloc/geom"
)

// maxGridCells bounds the prefix-count tables of mmGrid (columns x rows of the
// bounding box, in each orientation); larger inputs use the sweep.
const maxGridCells = 1 << 20

// mmGridFits reports whether mmGrid applies: two dimensions, integer coordinates and
// a bounding box small enough for per-column and per-row prefix counts.
func mmGridFits[T geom.Number](pr *problem[T]) bool {
	if pr.d != 2 || !allIntegral(pr.pts) {
		return false
	}
	b := pr.bounds()
	w, h := float64(b.Max[0]-b.Min[0])+1, float64(b.Max[1]-b.Min[1])+1
	return w <= maxGridCells && h <= maxGridCells && w*h <= maxGridCells
}

// mmGridPays reports whether mmGrid applies and is expected to be faster than
// mmSweep (both give the same result). With density rho of the points in their
// bounding box, the k nearest lie within radius about sqrt(k / (2 rho)); mmGrid
// spends about 10 ns per column and row within that radius of a center, mmSweep about
// 12 ns per chosen point plus 20 ns per point of a column (measured on meshes and on
// sparse random points).
func mmGridPays[T geom.Number](pr *problem[T]) bool {
	if !mmGridFits(pr) {
		return false
	}
	b := pr.bounds()
	w, h := int(b.Max[0]-b.Min[0])+1, int(b.Max[1]-b.Min[1])+1
	seenX, seenY := make([]bool, w), make([]bool, h)
	nx, ny := 0, 0
	for _, p := range pr.pts {
		if x := int(p[0] - b.Min[0]); !seenX[x] {
			seenX[x] = true
			nx++
		}
		if y := int(p[1] - b.Min[1]); !seenY[y] {
			seenY[y] = true
			ny++
		}
	}
	n, k := float64(pr.n), float64(pr.k)
	r := math.Sqrt(k / (2 * n / (float64(w) * float64(h))))
	units := min(float64(nx), (2*r+1)*float64(nx)/float64(w)) + min(float64(ny), (2*r+1)*float64(ny)/float64(h))
	centers := float64(nx) * float64(ny)
	grid := centers*10*units + 2*float64(nx*h+ny*w)
	sweep := centers * (12*k + 20*n/float64(nx))
	return grid < sweep
}

// gridSearchTotal is MM with TiesByIndex for integer points in the plane (onPoints
// false; "mmGrid"), or Gen-Alg's search with TiesByIndex (onPoints: the centers are
// the points, in input order), which takes the grid only for points in ascending
// (x, y) order whose rotated table fits (gridScan); ok is false when it does not
// apply. It returns the winner's total pairwise distance too, which the scan has
// computed (so the result need not sum it again).
//
// The cost per center depends on the radius of the k nearest, not on k. For a
// center c let thr be the k-th smallest distance: the candidate is every point at
// distance < thr plus the lowest-index points at distance exactly thr. Per column
// (distinct x) and per row (distinct y) the points are counted by prefix sums over
// the other coordinate, so the number of points within distance r, and the
// candidate's x and y marginals (points per column and per row), cost O(1) per
// column and row within r of c; the points at distance thr are read from per-cell
// lists. The total pairwise L1 distance is the sum of the 1D totals of the two
// marginals. thr changes by at most the step between consecutive centers, so it is
// found by a short walk. Centers are visited in lexicographic order and the first
// strictly smallest total wins: the same subset and center as mmSweep.
func gridSearchTotal[T geom.Number](ctx context.Context, pr *problem[T], floor float64, onPoints bool) (best []int, bestCenter []T, total int64, ok bool, err error) {
	n, k := pr.n, pr.k
	pts := pr.pts
	b := pr.bounds()
	x0, y0 := int(b.Min[0]), int(b.Min[1])
	W, H := int(b.Max[0])-x0+1, int(b.Max[1])-y0+1
	if onPoints {
		if s := W + H; s*s > rotBallsMaxCells {
			return nil, nil, 0, false, nil
		}
	}
	// The tables live in pooled buffers: an allocator searches once per decision,
	// on one machine, and allocating them afresh (megabytes at 65,536 nodes) cost
	// garbage collections.
	bufs := gridPool.Get().(*gridBufs)
	defer gridPool.Put(bufs)
	g, ordered := gridSetUp(bufs, pts, k, x0, y0, W, H, onPoints)
	if g == nil {
		return nil, nil, 0, false, nil // Gen-Alg's scan needs the free list's order
	}
	xs, ys, px, py := g.xs, g.ys, g.px, g.py
	colOf, rowOf := bufs.colOf, g.rowOf
	nx, ny := len(xs), len(ys)
	firstCol, lastCol, firstRow, lastRow := g.firstCol, g.lastCol, g.firstRow, g.lastRow
	full, rot := g.full, g.rot
	colPre, rowPre := g.colPre, g.rowPre
	fullTot := int64(-1) // the total of the first center whose ball is full

	bufs.cntX, bufs.cntY = grow(bufs.cntX, nx), grow(bufs.cntY, ny)
	cntX, cntY := bufs.cntX, bufs.cntY
	ring := bufs.ring[:0]
	defer func() { bufs.ring = ring[:0] }()
	bestX, bestY := -1, -1
	var bestTot int64
	thrCol := 0  // thr of the previous column's first center
	loopXs := xs // the centers' columns for the loop below (the path for unordered points)
	if ordered && rot.pre != nil {
		if onPoints {
			bufs.centers = growRaw(bufs.centers, 2*n)
			g.centers = bufs.centers
			for i := range n {
				g.centers[2*i], g.centers[2*i+1] = colOf[px[i]], rowOf[py[i]]
			}
		}
		bestX, bestY, bestTot, err = g.search(ctx, floor)
		if err != nil {
			return nil, nil, 0, true, err
		}
		loopXs = nil
	}
	// The loop below reads the points at distance thr from cell lists: points of
	// cell (xi, y) at cellPts[cellStart[xi*H+y]:cellStart[xi*H+y+1]], ascending by
	// index (built only for it: the bounded scan above does not read them).
	var cellStart, cellPts []int32
	if loopXs != nil {
		bufs.cellStart = grow(bufs.cellStart, nx*H+1)
		cellStart = bufs.cellStart
		for i := range pts {
			cellStart[int(colOf[px[i]])*H+py[i]+1]++
		}
		for c := 1; c < len(cellStart); c++ {
			cellStart[c] += cellStart[c-1]
		}
		bufs.cellPts = grow(bufs.cellPts, n)
		cellPts = bufs.cellPts
		bufs.fill = append(bufs.fill[:0], cellStart[:len(cellStart)-1]...)
		fill := bufs.fill
		for i := range pts {
			c := int(colOf[px[i]])*H + py[i]
			cellPts[fill[c]] = int32(i)
			fill[c]++
		}
	}
centers:
	for cxi, cx := range loopXs {
		if err := context.Cause(ctx); err != nil {
			return nil, nil, 0, true, err
		}
		thr := thrCol
		for cyi, cy := range ys {
			// colBall counts the points within distance r of (cx, cy) column by
			// column.
			colBall := func(r int) int {
				var c int32
				for xi := int(firstCol[max(cx-r, 0)]); xi <= int(lastCol[min(cx+r, W-1)]); xi++ {
					rem := r - absInt(xs[xi]-cx)
					p := colPre[xi*(H+1) : (xi+1)*(H+1)]
					c += p[min(cy+rem+1, H)] - p[max(cy-rem, 0)]
				}
				return int(c)
			}
			// A full ball after the first ties with it at best: passed over.
			isFull := full.at(cx, cy)
			if isFull && fullTot >= 0 {
				thr = full.d
				if cyi == 0 {
					thrCol = thr
				}
				continue
			}
			// thr, the smallest r with at least k points within r: per column, the
			// points at distance < thr (cntX) and at distance thr; thr moves by one
			// until below < k <= below + onRing. The walk is monotone.
			// Each step of the walk counts a ball in O(1) (rotBalls); the columns
			// are then read once, at thr. (Without the table, on a long thin box,
			// the counts come from the columns.)
			for rot.pre == nil {
				if thr > 0 && colBall(thr-1) >= k {
					thr--
				} else if colBall(thr) < k {
					thr++
				} else {
					break
				}
			}
			for rot.pre != nil {
				if thr > 0 && rot.ball(cx, cy, thr-1) >= k {
					thr--
				} else if rot.ball(cx, cy, thr) < k {
					thr++
				} else {
					break
				}
			}
			xlo, xhi := int(firstCol[max(cx-thr, 0)]), int(lastCol[min(cx+thr, W-1)])
			var below, onRing int32
			for xi := xlo; xi <= xhi; xi++ {
				rem := thr - absInt(xs[xi]-cx)
				p := colPre[xi*(H+1) : (xi+1)*(H+1)]
				lo, hi := cy-rem, cy+rem
				in := p[min(hi+1, H)] - p[max(lo, 0)]
				var bel int32
				if rem > 0 {
					bel = p[min(hi, H)] - p[max(lo+1, 0)]
				}
				cntX[xi] = bel
				below += bel
				onRing += in - bel
			}
			if cyi == 0 {
				thrCol = thr
			}
			// Rows: the points at distance < thr.
			ylo, yhi := int(firstRow[max(cy-thr, 0)]), int(lastRow[min(cy+thr, H-1)])
			r := thr - 1
			for yi := ylo; yi <= yhi; yi++ {
				rem := r - absInt(ys[yi]-cy)
				var m int32
				if rem >= 0 {
					p := rowPre[yi*(W+1) : (yi+1)*(W+1)]
					m = p[min(cx+rem, W-1)+1] - p[max(cx-rem, 0)]
				}
				cntY[yi] = m
			}
			// The k - below lowest-index points at distance exactly thr.
			take := int32(k) - below
			if ordered || take == onRing {
				// Whole cells in index order (or all of them): count by cell.
				for xi := xlo; xi <= xhi && take > 0; xi++ {
					rem := thr - absInt(xs[xi]-cx)
					if y := cy - rem; y >= 0 {
						c := xi*H + y
						if m := min(cellStart[c+1]-cellStart[c], take); m > 0 {
							cntX[xi] += m
							cntY[rowOf[y]] += m
							take -= m
						}
					}
					if y := cy + rem; rem > 0 && y < H && take > 0 {
						c := xi*H + y
						if m := min(cellStart[c+1]-cellStart[c], take); m > 0 {
							cntX[xi] += m
							cntY[rowOf[y]] += m
							take -= m
						}
					}
				}
			} else {
				ring = ring[:0]
				for xi := xlo; xi <= xhi; xi++ {
					rem := thr - absInt(xs[xi]-cx)
					if y := cy - rem; y >= 0 {
						c := xi*H + y
						ring = append(ring, cellPts[cellStart[c]:cellStart[c+1]]...)
					}
					if y := cy + rem; rem > 0 && y < H {
						c := xi*H + y
						ring = append(ring, cellPts[cellStart[c]:cellStart[c+1]]...)
					}
				}
				slices.Sort(ring)
				for _, p := range ring[:take] {
					cntX[colOf[px[p]]]++
					cntY[rowOf[py[p]]]++
				}
			}
			tot := pairwiseCounts(cntX[xlo:xhi+1], xs[xlo:xhi+1], k) + pairwiseCounts(cntY[ylo:yhi+1], ys[ylo:yhi+1], k)
			if isFull {
				fullTot = tot
			}
			if bestX < 0 || tot < bestTot {
				bestX, bestY, bestTot = cxi, cyi, tot
				if floor > 0 && float64(tot) <= floor {
					break centers // no later center is strictly better
				}
			}
		}
	}
	// The winning center's subset, directly: the k smallest by (distance, index).
	cx, cy := xs[bestX], ys[bestY]
	bufs.dist = grow(bufs.dist, n)
	dist := bufs.dist
	for i := range pts {
		dist[i] = absInt(px[i]-cx) + absInt(py[i]-cy)
	}
	best = nearestByIndex(dist, k)
	bestCenter = []T{T(cx + x0), T(cy + y0)}
	return best, bestCenter, bestTot, true, nil
}

// nearestByIndex returns the k indices smallest by (dist, index), ascending: every
// index closer than the k-th smallest distance, then the lowest ones at it.
func nearestByIndex(dist []int, k int) []int {
	maxd := slices.Max(dist)
	cnt := make([]int, maxd+2)
	for _, v := range dist {
		cnt[v+1]++
	}
	for v := 1; v < len(cnt); v++ {
		cnt[v] += cnt[v-1]
	}
	thr := 0
	for cnt[thr+1] < k {
		thr++
	}
	atThr := k - cnt[thr]
	best := make([]int, 0, k)
	for i, v := range dist {
		if v < thr || v == thr && atThr > 0 {
			if v == thr {
				atThr--
			}
			best = append(best, i)
		}
	}
	return best
}

// spanIndexInto turns idx (offset -> index of the distinct value at that offset,
// -1 if none; the first and last offsets are used) into first[v], the index of the
// first value at offset >= v, and last[v], that of the last value at offset <= v,
// written into first and last (of idx's length).
func spanIndexInto(idx, first, last []int32) ([]int32, []int32) {
	cur := int32(-1)
	for v, i := range idx {
		if i >= 0 {
			cur = i
		}
		last[v] = cur
	}
	for v := len(idx) - 1; v >= 0; v-- {
		if idx[v] >= 0 {
			cur = idx[v]
		}
		first[v] = cur
	}
	return first, last
}

// pairwiseCounts is the total pairwise distance of a multiset of k values given as
// counts cnt[i] of the ascending values vals[i]: the value at sorted position q
// contributes v (2q - k + 1).
func pairwiseCounts(cnt []int32, vals []int, k int) int64 {
	var tot int64
	q := 0
	vals = vals[:len(cnt)]
	for i, m32 := range cnt {
		m := int(m32) // m = 0 adds nothing
		tot += int64(vals[i]) * int64(m*(2*q+m-k))
		q += m
	}
	return tot
}

func absInt(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// fullBalls finds the centers whose k nearest are the same shape as on an empty
// lattice. With the points in ascending (x, y) order and distinct, a center whose
// box of half-side d (the radius of the smallest L1 ball holding k lattice points)
// lies in the points' box with a point on every cell takes every cell within d-1
// and then the shell's lowest-index cells, which in (x, y) order are the same cells
// relative to the center wherever it is: every such center has the same total, so
// only the first in the search's order can win, and the others cost a box count. TestFullBallsShortcut checks the answers against the definition on
// mostly free meshes.
type fullBalls struct {
	d    int
	w, h int
	pre  []int32 // pre[x*(h+1)+y]: points with x offset < x and y offset < y; empty: shortcut off
}

func newFullBalls(px, py []int, w, h, k int, ordered bool) fullBalls {
	var f fullBalls
	f.build(len(px), func(i int) (int, int) { return px[i], py[i] }, w, h, k, ordered)
	return f
}

// build prepares f for the n points at offsets at(i) in a w x h box, reusing its
// table (the lattice path keeps it between calls).
func (f *fullBalls) build(n int, at func(i int) (x, y int), w, h, k int, ordered bool) {
	f.w, f.h, f.d = w, h, fullD(k)
	f.pre = f.pre[:0] // empty: shortcut off (the array is kept)
	if !ordered || 2*f.d+1 > min(w, h) {
		return
	}
	s := h + 1
	f.pre = grow(f.pre, (w+1)*s)
	for i := range n {
		x, y := at(i)
		c := (x+1)*s + y + 1
		if f.pre[c] != 0 {
			f.pre = f.pre[:0] // coinciding points
			return
		}
		f.pre[c] = 1
	}
	for x := 1; x <= w; x++ {
		row, prev := f.pre[x*s:(x+1)*s], f.pre[(x-1)*s:x*s]
		var run int32
		for y := 1; y <= h; y++ {
			run += row[y]
			row[y] = prev[y] + run
		}
	}
}

// fullD is the radius of the smallest L1 ball of the lattice holding k points.
func fullD(k int) int {
	d := 0
	for 2*d*d+2*d+1 < k {
		d++
	}
	return d
}

// none prepares f as build does when no center of the w x h box can have a full
// ball: the shortcut off.
func (f *fullBalls) none(w, h, k int) {
	f.w, f.h, f.d = w, h, fullD(k)
	f.pre = f.pre[:0]
}

// at reports whether the center at offsets (cx, cy) has a full ball.
func (f *fullBalls) at(cx, cy int) bool {
	d := f.d
	if len(f.pre) == 0 || cx-d < 0 || cy-d < 0 || cx+d >= f.w || cy+d >= f.h {
		return false
	}
	s := f.h + 1
	x0, x1, y0, y1 := cx-d, cx+d+1, cy-d, cy+d+1
	c := f.pre[x1*s+y1] - f.pre[x0*s+y1] - f.pre[x1*s+y0] + f.pre[x0*s+y0]
	return int(c) == (2*d+1)*(2*d+1)
}

// blockBoundsOn turns blockBounds on, for boxes of at least blockMinCells cells,
// or of blockMinCellsLargeK cells when k is at least blockLargeK (tests lower
// blockMinCells to reach small meshes). Below that a decision's scan is short and
// the blocks' set-up did not pay: SDSC's first 60 days unscaled on mesh:64x64, mm,
// 1.41 s of CPU without them, 1.57 s with them (alternating runs at load 19); with
// the cheaper bounds and the sorted visit, blocks from 4,096 cells for every k
// still cost 4% there (1.02-1.05 against 1.08-1.09 s, k <= 416) but saved 10% on
// issue 32's workload (mesh:128x128, where the free nodes' box is often smaller
// than the mesh: 1.92 against 1.74 ms per decision); from 4,096 cells only for
// k >= 512 the first is unchanged (1.00-1.02 s) and the second keeps the saving
// (1.78 ms; one run each at load 5).
var (
	blockBoundsOn                    = true
	blockMinCells                    = 1 << 14
	blockMinCellsLargeK, blockLargeK = 1 << 12, 512
)

// rotBallsMaxCells bounds rotBalls' table (tests set it to 0 to take the
// column counts).
var rotBallsMaxCells = 4 * maxGridCells

// rotBalls counts points in L1 balls in O(1): a ball is a square in rotated
// coordinates (x + y, x - y), read off a 2D prefix sum over them (as the lattice
// path's ball; here points may coincide).
type rotBalls struct {
	h, u int
	pre  []int32 // pre[a*(u+1)+b]: points with x+y < a and x-y+h-1 < b
}

// build prepares r for the points at offsets (px[i], py[i]) of a w x h box,
// reusing its table; no table when it would exceed rotBallsMaxCells.
func (r *rotBalls) build(px, py []int, w, h int) {
	if s := w + h; s*s > rotBallsMaxCells {
		r.h, r.u = h, w+h-1
		r.pre = nil // no table
		return
	}
	rotFill(r, px, py, w, h)
}

// rotFill writes r's table for the points at offsets (px[i], py[i]) of a w x h box
// whatever its size: rotBalls.build, and the lattice path (centerLattice.reset), whose
// lattices are bounded before.
func rotFill[T int | int32](r *rotBalls, px, py []T, w, h int) {
	r.h, r.u = h, w+h-1
	s := r.u + 1
	r.pre = grow(r.pre, s*s)
	for i := range px {
		x, y := int(px[i]), int(py[i])
		r.pre[(x+y+1)*s+x-y+h]++
	}
	for a := 1; a < s; a++ {
		prev, cur := r.pre[(a-1)*s:a*s], r.pre[a*s:(a+1)*s]
		var acc int32
		for b := 1; b < s; b++ {
			acc += cur[b]
			cur[b] = prev[b] + acc
		}
	}
}

// ball counts the points within L1 distance rad of (cx, cy) (offsets), as an int.
func (r *rotBalls) ball(cx, cy, rad int) int {
	s := r.u + 1
	a0, a1 := max(cx+cy-rad, 0), min(cx+cy+rad, r.u-1)+1
	b0, b1 := max(cx-cy+r.h-1-rad, 0), min(cx-cy+r.h-1+rad, r.u-1)+1
	if a0 >= a1 || b0 >= b1 {
		return 0
	}
	return int(r.pre[a1*s+b1] - r.pre[a0*s+b1] - r.pre[a1*s+b0] + r.pre[a0*s+b0])
}

// gridScan is mmGrid's search over the centers for points in ascending (x, y) order
// with rotBalls' table (every allocator call: free lists are in that order). It
// visits the same centers and keeps the same winner, the first in lexicographic
// order with the smallest total, with two changes that only skip work:
//
//   - A center's total is summed in one pass over its columns and one over its rows
//     as sum over gaps between consecutive values of g L (k - L), L the points
//     before the gap: every term is >= 0, so the running sum is a lower bound, and
//     the center is dropped as soon as it exceeds the best total (or reaches it,
//     for a center after the best in lexicographic order, which would lose the tie).
//   - The first center scored is the one with the smallest k-th distance (thr),
//     taken as the incumbent before the scan in lexicographic order, so the drop
//     above bites from the first centers on. A center before it with an equal total
//     still replaces it (ties go to the first in order, as in the plain loop).
//
// thr and the number of points closer than thr come from rotBalls in O(1); the
// points at distance thr taken are the lowest cells of the columns in column order,
// lower cell first (the ordered input makes that index order), as in mmGrid's loop.
type gridScan struct {
	k                                    int
	W, H                                 int
	xs, ys                               []int
	firstCol, lastCol, firstRow, lastRow []int32
	colPre, rowPre                       []int32
	rowOf                                []int32
	full                                 *fullBalls
	rot                                  *rotBalls
	centers                              []int32   // Gen-Alg: column and row index of each center in order; nil: MM's product
	px, py                               []int     // the points' offsets (compBound's table)
	bufs                                 *gridBufs // pooled scratch (nil: allocate)
	distinct                             bool      // no two points coincide (the same-set shortcut needs it)
}

// search returns the winning center as indices into xs and ys, and its total.
func (g *gridScan) search(ctx context.Context, floor float64) (bestX, bestY int, bestTot int64, err error) {
	nx, ny := len(g.xs), len(g.ys)
	count := nx * ny
	at := func(t int) (xi, yi int) { return t / ny, t % ny }
	if g.centers != nil {
		count = len(g.centers) / 2
		at = func(t int) (xi, yi int) { return int(g.centers[2*t]), int(g.centers[2*t+1]) }
	}
	// Allocators pass the lattice optimum as the floor: when the first full ball
	// reaches it, only the centers before it can still win (with an equal total),
	// and only they are scored, each thr walked from the previous one's.
	if floor > 0 {
		for f := range count {
			xi, yi := at(f)
			if !g.full.at(g.xs[xi], g.ys[yi]) {
				continue
			}
			best, _ := g.scoreAt(xi, yi, g.full.d, math.MaxInt64)
			if float64(best) > floor {
				break
			}
			bestPos, bestTot, thr := f, best, g.full.d
			for t := range f {
				xi, yi := at(t)
				thr = g.radius(xi, yi, thr)
				if tot, ok := g.scoreAt(xi, yi, thr, best); ok {
					bestPos, bestTot = t, tot // the first center at the floor
					break
				}
			}
			bestX, bestY = at(bestPos)
			return bestX, bestY, bestTot, nil
		}
	}
	// thr of every center, walked from the previous one's (MM: from the previous
	// column's first center); the seed is the first with the smallest.
	var thrs, belows, withins []int32 // per center: thr, and the points closer than thr and within it
	if g.bufs != nil {
		g.bufs.thrs, g.bufs.belows, g.bufs.withins = grow(g.bufs.thrs, count), grow(g.bufs.belows, count), grow(g.bufs.withins, count)
		thrs, belows, withins = g.bufs.thrs, g.bufs.belows, g.bufs.withins
	} else {
		thrs, belows, withins = make([]int32, count), make([]int32, count), make([]int32, count)
	}
	thrCol, thr, seed := 0, 0, 0
	// Blocks of centers bounded at once (blockBounds), where its sums stay exact.
	var blk *blockBounds
	cells := g.W * g.H
	if blockBoundsOn && (cells >= blockMinCells || cells >= blockMinCellsLargeK && g.k >= blockLargeK) && compBoundFits(4*len(g.px), g.W+g.H) {
		if g.bufs != nil {
			blk = &g.bufs.blk
			blk.reset(len(g.xs), len(g.ys))
		} else {
			blk = newBlockBounds(len(g.xs), len(g.ys))
		}
	}
	xPrev := -1
	for t, xi, yi := 0, 0, 0; t < count; t++ {
		if g.centers != nil {
			xi, yi = at(t)
		} else if t > 0 {
			if yi++; yi == ny { // MM: position xi * ny + yi, counted without a division
				xi, yi = xi+1, 0
			}
		}
		// A column's first center walks from the previous column's first one
		// (MM: row 0; Gen-Alg: its lowest point), not from the previous
		// column's last, a column's height away.
		colFirst := yi == 0
		if g.centers != nil {
			colFirst = xi != xPrev
			xPrev = xi
		}
		if colFirst {
			thr = thrCol
		}
		var below, within int
		thr, below, within = g.radiusCounts(xi, yi, thr)
		if colFirst {
			thrCol = thr
		}
		thrs[t], belows[t], withins[t] = int32(thr), int32(below), int32(within)
		if blk != nil && g.centers != nil {
			blk.add(xi, yi, g.xs[xi], g.ys[yi], thr) // MM's are read in bound
		}
		if thr < int(thrs[seed]) {
			seed = t
		}
	}
	// With k close to the number of points, a center whose bound from the points
	// left out (compBound) exceeds the limit is dropped without reading its ball;
	// not where the blocks are bounded (compBoundWithBlocks).
	var comp *compBound
	if n := len(g.px); n > 0 && (blk == nil || compBoundWithBlocks) && g.k*compBoundMinShare[1] >= n*compBoundMinShare[0] && compBoundFits(n, g.W+g.H) {
		var byA *pointBuckets
		if g.bufs != nil && g.bufs.sorted {
			byA = &g.bufs.byA
		}
		comp = newCompBoundIn(g.px, g.py, g.W, g.H, g.k, byA)
		defer comp.release()
	}
	eval := func(t, xi, yi int, limit, yLB int64) (int64, bool) {
		thr := int(thrs[t])
		cx, cy := g.xs[xi], g.ys[yi]
		below := int(belows[t])
		if comp != nil {
			if lb := comp.lb(cx, cy, thr, below); lb > limit {
				return lb, false
			}
		}
		return g.score(cx, cy, thr, below, limit, yLB)
	}
	sx, sy := at(seed)
	bestTot, _ = eval(seed, sx, sy, math.MaxInt64, 0)
	bestPos := seed
	// same: the center at position t has the best's k nearest (takesKnown), so its
	// total is bestTot: it takes the best's place when it comes before it and is
	// passed over after it, without being scored.
	q := &knownSet{pos: -1}
	if g.bufs != nil {
		q = &g.bufs.same
		q.pos = -1
	}
	same := func(t, xi, yi int) bool {
		if !sameSetOn || !g.distinct {
			return false
		}
		if q.pos != bestPos {
			xi, yi := at(bestPos)
			g.setKnown(q, bestPos, g.xs[xi], g.ys[yi], int(thrs[bestPos]), int(belows[bestPos]))
		}
		if !g.takesKnown(q, g.xs[xi], g.ys[yi], int(thrs[t])) {
			return false
		}
		if t < bestPos {
			bestPos, q.pos = t, t // the same set: Q stays
		}
		return true
	}
	// dup: the center at position t has the k nearest of an earlier one, the one at
	// t - 1 or the one in the column before on the same row (sameAsPrev), so its
	// total is that center's: it never comes first among the smallest and is
	// passed over, whatever became of the earlier center.
	var colStart []int // Gen-Alg: the position of each column's first point
	if g.centers != nil && sameAsPrevOn {
		if g.bufs != nil {
			g.bufs.colStart = grow(g.bufs.colStart, len(g.xs))
			colStart = g.bufs.colStart
		} else {
			colStart = make([]int, len(g.xs))
		}
		for xi := 1; xi < len(g.xs); xi++ {
			colStart[xi] = colStart[xi-1] + int(g.colPre[xi*(g.H+1)-1])
		}
	}
	dupOf := func(t, p, xi, yi, xp, yp int) bool {
		return g.sameAsPrev(g.xs[xi], g.ys[yi], int(thrs[t]), int(belows[t]), int(withins[t]),
			g.xs[xp], g.ys[yp], int(thrs[p]), int(belows[p]), int(withins[p]))
	}
	dup := func(t, xi, yi int) bool {
		if !sameAsPrevOn || t == 0 {
			return false
		}
		xp, yp := xi, yi-1 // MM: the center at t - 1
		if g.centers != nil {
			xp, yp = at(t - 1)
		} else if yi == 0 {
			xp, yp = xi-1, ny-1
		}
		if dupOf(t, t-1, xi, yi, xp, yp) {
			return true
		}
		if xi == 0 || !sameAsLeftOn {
			return false
		}
		if g.centers == nil {
			return dupOf(t, t-ny, xi, yi, xi-1, yi)
		}
		y, s := g.ys[yi], g.H+1
		if g.colPre[(xi-1)*s+y+1] == g.colPre[(xi-1)*s+y] {
			return false // no point there
		}
		p := colStart[xi-1] + int(g.colPre[(xi-1)*s+y])
		xp, yp = at(p)
		return dupOf(t, p, xi, yi, xp, yp)
	}
	fullSeen := false // a full ball was scored or dropped: every later one ties with it at best
	from := -1        // where the blocks' sorted visit takes over (below)
	for t, xi, yi := 0, 0, 0; t < count; t++ {
		if g.centers != nil {
			xi, yi = at(t)
		} else if t > 0 {
			if yi++; yi == ny { // MM, as in the walk above
				xi, yi = xi+1, 0
			}
		}
		if t&1023 == 1023 {
			if err := context.Cause(ctx); err != nil {
				return 0, 0, 0, err
			}
		}
		if floor > 0 && float64(bestTot) <= floor && t >= bestPos {
			break // no later center is strictly better
		}
		if blk != nil && blockSorted && blk.tried() >= blockTrial {
			from = t // the blocks pay here: the rest in order of their bounds
			break
		}
		isFull := g.full.at(g.xs[xi], g.ys[yi])
		if isFull && fullSeen {
			continue
		}
		fullSeen = fullSeen || isFull
		if t == seed {
			continue // scored first
		}
		limit := bestTot - 1 // after the best: only a smaller total wins
		if t < bestPos {
			limit = bestTot // before it: an equal total wins the tie
		}
		var yLB int64 // a bound on the center's y total (its block's rows part)
		if blk != nil {
			blk0, bl := blk, blk.block(xi, yi)
			fresh := blk.lb[bl] < 0
			if blk.bound(g, bl, thrs) > limit {
				if fresh {
					blk.dropped++
				}
				continue // no center of its block can win
			}
			if fresh && blk.tried() >= blockTrial && blk.dropped*blockTrialShare < blk.tried() {
				blk = nil // they rarely drop a block here: not worth their cost
			}
			yLB = blk0.lbY[bl]
		}
		if dup(t, xi, yi) || same(t, xi, yi) {
			continue
		}
		if tot, ok := eval(t, xi, yi, limit, yLB); ok {
			bestTot, bestPos = tot, t
		}
	}
	if from >= 0 {
		// The centers from position from on, block by block in increasing order of
		// the blocks' bounds (ties by block), each block's in position order, so a
		// good incumbent comes early and the blocks left once one's bound exceeds
		// the best total are all passed over. The winner is still the first
		// strictly smallest in position order: a center is dropped only when its
		// total (or a bound on it) exceeds bestTot, or equals it with the center
		// after bestPos, and every change of the best lowers (bestTot, bestPos)
		// lexicographically, so no dropped center could have been the plain loop's
		// winner. Of the full balls only the first in position order can win
		// (they all have one total); the floor leaves only centers before bestPos;
		// a center with an earlier center's k nearest (dup) ties it and comes after it.
		fstar := -1 // the full ball still to be tried: the first at or after from
		if !fullSeen && len(g.full.pre) > 0 {
			for t := from; t < count; t++ {
				if xi, yi := at(t); g.full.at(g.xs[xi], g.ys[yi]) {
					fstar = t
					break
				}
			}
		}
		members := blk.members(g, from, count, at)
		// allDup: every center of block bl from position from on has an earlier
		// center's k nearest. MM's blocks are first tried whole: when the corners of
		// the block grown by the row below it share the k nearest of that row's
		// first center (sharesBelow, three sameAsPrev tests), every center of the
		// block has them; else column by column, each column grown by the center
		// below it (one test), and a column that fails center by center (dup). On
		// issue 32's workload at 65,536 nodes (mm) the whole blocks show 36% of the
		// blocks found wholly dup, all their columns another 31%.
		allDup := func(bl int) bool {
			if g.centers != nil || !sameAsPrevOn {
				return !slices.ContainsFunc(members(bl), func(t int32) bool { xi, yi := at(int(t)); return !dup(int(t), xi, yi) })
			}
			bx, by := bl/blk.nby*blockSide, bl%blk.nby*blockSide
			ex, ey := min(bx+blockSide, nx)-1, min(by+blockSide, ny)-1
			if g.sharesBelow(bx, by, ex, ey, thrs, belows, withins) {
				return true
			}
			for xi := bx; xi <= ex; xi++ {
				if g.sharesBelow(xi, by, xi, ey, thrs, belows, withins) {
					continue
				}
				for yi := max(by, from-xi*ny); yi <= ey; yi++ {
					if !dup(xi*ny+yi, xi, yi) {
						return false
					}
				}
			}
			return true
		}
		order := blk.order[:0]
		for bl := range blk.lb {
			// A block whose centers all have an earlier center's k nearest (dup)
			// is passed over without its bound (on issue 32's workload at 65,536
			// nodes, 44% of the blocks bounded here).
			if allDup(bl) {
				continue
			}
			blk.bound(g, bl, thrs)
			order = append(order, int32(bl))
		}
		slices.SortFunc(order, func(a, b int32) int {
			if la, lb := blk.lb[a], blk.lb[b]; la != lb {
				return cmp.Compare(la, lb)
			}
			return cmp.Compare(a, b)
		})
		blk.order = order
		visited := 0
		for _, bl := range order {
			lbBl := blk.lb[bl]
			if lbBl > bestTot {
				break // this block and every later one: no center can even tie
			}
			for _, t32 := range members(int(bl)) {
				t := int(t32)
				if visited++; visited&1023 == 1023 {
					if err := context.Cause(ctx); err != nil {
						return 0, 0, 0, err
					}
				}
				if floor > 0 && float64(bestTot) <= floor && t >= bestPos {
					continue // only a center before the best can still tie it
				}
				xi, yi := at(t)
				if t != fstar && g.full.at(g.xs[xi], g.ys[yi]) {
					continue // a full ball after the first ties with it at best
				}
				if t == seed {
					continue
				}
				limit := bestTot - 1
				if t < bestPos {
					limit = bestTot
				}
				if lbBl > limit || dup(t, xi, yi) || same(t, xi, yi) {
					continue
				}
				if tot, ok := eval(t, xi, yi, limit, blk.lbY[bl]); ok {
					bestTot, bestPos = tot, t
				}
			}
		}
	}
	bestX, bestY = at(bestPos)
	return bestX, bestY, bestTot, nil
}

// gridBufs are gridSearch's tables, kept between calls (gridPool).
type gridBufs struct {
	px, py, xs, ys, dist                               []int
	colOf, rowOf, firstCol, lastCol, firstRow, lastRow []int32
	colPre, rowPre, cellStart, cellPts, fill           []int32
	cntX, cntY, ring, thrs, belows, withins            []int32
	rowX, centers                                      []int32
	colStart                                           []int
	sorted                                             bool // byA holds this call's points (the tables were built sorted)
	byRow, byA                                         pointBuckets
	full                                               fullBalls
	rot                                                rotBalls
	blk                                                blockBounds
	same                                               knownSet
}

var gridPool = sync.Pool{New: func() any { return new(gridBufs) }}

// sameSetOn turns on gridScan's shortcut for centers whose k nearest are the best's
// (takesKnown). On issue 32's workload (mm on mesh:128x128) 7.2% of the centers
// scored tie the best exactly, and 94% of those (a sample of 11,831) have the best's
// k nearest: they cost 15% of the columns and rows the scan read (20% on
// mesh:256x256), each read to the end, as a tie must be.
var sameSetOn = true

// gridSortedBuild makes gridSearch write its tables in one pass from points in
// ascending (x, y) order (grid_setup.go); tests turn it off to compare.
var gridSortedBuild = true

// blockSorted turns on the blocks' sorted visit (gridScan.search) once they pay.
var blockSorted = true

// radius walks thr to the k-th smallest distance from the center at column xi
// and row yi.
func (g *gridScan) radius(xi, yi, thr int) int {
	thr, _ = g.radiusBelow(xi, yi, thr)
	return thr
}

// radiusBelow is radius that also returns the number of points closer than thr,
// which its last step counted.
func (g *gridScan) radiusBelow(xi, yi, thr int) (int, int) {
	thr, below, _ := g.radiusCounts(xi, yi, thr)
	return thr, below
}

// radiusCounts is radiusBelow that also returns the number of points within thr.
// Each step of the walk reuses the count its previous step read: after thr - 1
// holds k points, the ball within the new thr is that one; after thr holds fewer,
// the ball below the new thr is that one (one ball count per step instead of two).
func (g *gridScan) radiusCounts(xi, yi, thr int) (int, int, int) {
	cx, cy := g.xs[xi], g.ys[yi]
	below, within := -1, -1 // the counts within thr - 1 and thr; -1: not read
	for {
		if below < 0 {
			below = 0
			if thr > 0 {
				below = g.rot.ball(cx, cy, thr-1)
			}
		}
		if thr > 0 && below >= g.k {
			thr, within, below = thr-1, below, -1
			continue
		}
		if within < 0 {
			within = g.rot.ball(cx, cy, thr)
		}
		if within < g.k {
			thr, below, within = thr+1, within, -1
			continue
		}
		return thr, below, within
	}
}

// scoreAt is score for the center at column xi and row yi, of radius thr.
func (g *gridScan) scoreAt(xi, yi, thr int, limit int64) (int64, bool) {
	cx, cy := g.xs[xi], g.ys[yi]
	below := 0
	if thr > 0 {
		below = g.rot.ball(cx, cy, thr-1)
	}
	return g.score(cx, cy, thr, below, limit, 0)
}

// score returns the total pairwise L1 distance of the k nearest of (cx, cy) by
// (distance, index), given thr, their largest distance, and below, the number of
// points closer than thr; false as soon as a lower bound on it exceeds limit. yLB
// is a lower bound on their y total (0 for none): during the x pass the running
// x sum plus yLB bounds the total, so a center can be dropped before its rows are
// read.
//
// The k - below points taken at distance thr are the lowest cells of the shell's
// columns, leftmost column first and lower cell first (index order): every shell
// cell left of a cut column, and at the cut column cutLo points of its lower cell
// and cutHi of its upper one. The x pass finds the cut; the y pass counts each
// row's taken shell points from it, reading the row's two shell cells next to the
// ends of its ball interval, which it reads anyway.
func (g *gridScan) score(cx, cy, thr, below int, limit, yLB int64) (int64, bool) {
	k := int64(g.k)
	xlo, xhi := int(g.firstCol[max(cx-thr, 0)]), int(g.lastCol[min(cx+thr, g.W-1)])
	limX := limit - yLB // the x pass's running sum plus yLB bounds the total
	sh := shellCols(g.colPre, g.xs, xlo, xhi, g.H, cx, cy, thr, int32(g.k-below), k, limX)
	if sh.tot > limX {
		return sh.tot, false
	}
	tot, ok := plainCols(g.colPre, g.xs, sh.xi, xhi, g.H, cx, cy, thr, k, sh.L, sh.tot, limX)
	if !ok {
		return tot, false
	}
	ylo, yhi := int(g.firstRow[max(cy-thr, 0)]), int(g.lastRow[min(cy+thr, g.H-1)])
	return rowsPass(g.rowPre, g.ys, ylo, yhi, g.W, cx, cy, thr, sh.cutX, sh.cutLo, sh.cutHi, k, tot, limit)
}

// shellRun is shellCols' result: the running x sum and count after the columns up
// to the cut column (xi is the one after it), or a sum above the limit.
type shellRun struct {
	tot, L       int64
	xi, cutX     int
	cutLo, cutHi int32
}

// shellCols runs score's x pass over the columns from xlo while shell points are
// still to be taken (take of them), each column's points closer than thr and its
// shell cells, lower first; it stops at the cut column or once the running sum
// exceeds lim. The ball within thr holds at least k points, so take reaches 0 by
// column xhi (at offset cx + thr at most).
//
// A column at offset x holds the shell cells yl, yh = cy -+ (thr - |x - cx|) and
// between them its points closer than thr. The columns come in runs, each read
// without clamps by a loop of its own, with few values live: the one at cx - thr
// and the one at cx + thr (yl == yh: one cell); those left of cx with both cells
// in the box (yl = cl - x, yh = ch + x) up to leftEnd, and those right of cx with
// both in it from rightFrom; between them, the columns with one cell outside the
// box (the lower one if the center is nearer the box's bottom) and, within d of
// cx, those with both outside (the whole column, no shell point). A column before
// the cut adds its closed interval from yl to yh (clamped to the box); the cut
// column ends the pass.
func shellCols(colPre []int32, xs []int, xlo, xhi, H, cx, cy, thr int, take int32, k, lim int64) shellRun {
	s := H + 1
	slack, L := lim, int64(0) // slack: lim less the running sum, dropped once negative
	prev, xi := xs[xlo], xlo
	b := xi * s
	if x := xs[xi]; x == cx-thr { // its one shell cell, at cy; no sum yet
		if slack < 0 {
			return shellRun{tot: lim - slack}
		}
		c := colPre[b+cy+1] - colPre[b+cy]
		if c >= take {
			return shellRun{tot: lim - slack, L: int64(take), xi: xi + 1, cutX: x, cutLo: take}
		}
		take -= c
		L += int64(c)
		xi, b = xi+1, b+s
	}
	leftEnd := min(cx, cx-thr+cy, cx-thr+H-1-cy)
	for cl, ch := cy-thr+cx, cy+thr-cx; xi <= xhi; xi, b = xi+1, b+s {
		x := xs[xi]
		if x > leftEnd {
			break
		}
		slack -= int64(x-prev) * L * (k - L)
		if slack < 0 {
			return shellRun{tot: lim - slack}
		}
		prev = x
		jl, jh := b+cl-x, b+ch+x
		p0, p1, p2, p3 := colPre[jl], colPre[jl+1], colPre[jh], colPre[jh+1]
		if lo, hi := p1-p0, p3-p2; lo+hi >= take {
			lo = min(lo, take)
			return shellRun{tot: lim - slack, L: L + int64(p2-p1+take), xi: xi + 1, cutX: x, cutLo: lo, cutHi: take - lo}
		} else {
			take -= lo + hi
		}
		L += int64(p3 - p0)
	}
	rightFrom := max(cx+1, cx+thr-cy, cx+thr+cy-H+1)
	d := thr - max(cy+1, H-cy) // columns within d of cx: both cells outside the box
	if cy+1 < H-cy {           // the lower cell outside: the closed interval from 0 to yh
		for top := cy + thr; xi <= xhi; xi, b = xi+1, b+s {
			x := xs[xi]
			if x >= rightFrom {
				break
			}
			slack -= int64(x-prev) * L * (k - L)
			if slack < 0 {
				return shellRun{tot: lim - slack}
			}
			prev = x
			e := absInt(x - cx)
			if e <= d {
				L += int64(colPre[b+H])
				continue
			}
			j := b + top - e
			p2, p3 := colPre[j], colPre[j+1]
			if p3-p2 >= take {
				return shellRun{tot: lim - slack, L: L + int64(p2+take), xi: xi + 1, cutX: x, cutHi: take}
			}
			take -= p3 - p2
			L += int64(p3)
		}
	} else { // the upper cell outside: the closed interval from yl to H - 1
		for bot := cy - thr; xi <= xhi; xi, b = xi+1, b+s {
			x := xs[xi]
			if x >= rightFrom {
				break
			}
			slack -= int64(x-prev) * L * (k - L)
			if slack < 0 {
				return shellRun{tot: lim - slack}
			}
			prev = x
			e := absInt(x - cx)
			pH := colPre[b+H]
			if e <= d {
				L += int64(pH)
				continue
			}
			j := b + bot + e
			p0, p1 := colPre[j], colPre[j+1]
			if p1-p0 >= take {
				return shellRun{tot: lim - slack, L: L + int64(pH-p1+take), xi: xi + 1, cutX: x, cutLo: take}
			}
			take -= p1 - p0
			L += int64(pH - p0)
		}
	}
	for cl, ch := cy-thr-cx, cy+thr+cx; xi <= xhi; xi, b = xi+1, b+s {
		x := xs[xi]
		if x >= cx+thr {
			break
		}
		slack -= int64(x-prev) * L * (k - L)
		if slack < 0 {
			return shellRun{tot: lim - slack}
		}
		prev = x
		jl, jh := b+cl+x, b+ch-x
		p0, p1, p2, p3 := colPre[jl], colPre[jl+1], colPre[jh], colPre[jh+1]
		if lo, hi := p1-p0, p3-p2; lo+hi >= take {
			lo = min(lo, take)
			return shellRun{tot: lim - slack, L: L + int64(p2-p1+take), xi: xi + 1, cutX: x, cutLo: lo, cutHi: take - lo}
		} else {
			take -= lo + hi
		}
		L += int64(p3 - p0)
	}
	// The column at cx + thr, if any, is the last: its one cell holds the take.
	if xi <= xhi {
		x := xs[xi]
		slack -= int64(x-prev) * L * (k - L)
		if slack < 0 {
			return shellRun{tot: lim - slack}
		}
		c := colPre[b+cy+1] - colPre[b+cy]
		lo := min(c, take)
		return shellRun{tot: lim - slack, L: L + int64(lo), xi: xi + 1, cutX: x, cutLo: lo}
	}
	return shellRun{tot: lim - slack, L: L, xi: xi, cutX: -1}
}

// plainCols continues score's x pass over the columns xi..xhi (after the cut
// column: only their points closer than thr) from the running count L and sum
// tot; false once the sum exceeds lim. A function of its own, with few live
// values (the sum as rem, lim less it; k - L as R), so that they stay in
// registers.
func plainCols(colPre []int32, xs []int, xi, xhi, H, cx, cy, thr int, k, L, tot, lim int64) (int64, bool) {
	rem, R := lim-tot, k-L
	top, bot := cy+thr, cy-thr+1 // a column at distance e from cx: rows bot+e .. top-e-1
	prev := xs[xi-1]
	b := xi * (H + 1) // the column's prefix counts start at colPre[b]
	for _, x := range xs[xi : xhi+1] {
		rem -= int64(x-prev) * L * R
		if rem < 0 {
			return lim - rem, false
		}
		prev = x
		e := absInt(x - cx)
		hi, lo := min(top-e, H), max(bot+e, 0)
		var m int64
		if hi > lo {
			m = int64(colPre[b+hi] - colPre[b+lo])
		}
		L, R = L+m, R-m
		b += H + 1
	}
	return lim - rem, true
}

// rowsPass is score's y pass over the rows ylo..yhi, adding to the x sum tot;
// false once the total exceeds limit. The k - below points taken at distance thr
// are the lowest cells of the shell's columns, leftmost column first and lower
// cell first (index order): every shell cell left of the cut column cutX, and at
// the cut column cutLo points of its lower cell and cutHi of its upper one. A
// row's points closer than thr are its columns xl + 1 .. xr - 1 (xl, xr = cx -+
// (thr - |y - cy|)); its shell cells (xl, y) and (xr, y) left of the cut column
// widen that interval by one at either end, so a row costs two reads, and the cut
// column's share is added in the one or two rows where a shell cell lies on it.
// The loop keeps few values live (the running sum as rem, the limit less it; k - L
// as R; cx and thr folded into xl0 and xr0) so that they stay in registers.
func rowsPass(rowPre []int32, ys []int, ylo, yhi, W, cx, cy, thr, cutX int, cutLo, cutHi int32, k, tot, limit int64) (int64, bool) {
	rem := limit - tot // dropped once negative
	L, R := int64(0), k
	prev := ys[ylo]
	xl0, xr0 := cx-thr, cx+thr
	b := ylo * (W + 1) // the row's prefix counts start at rowPre[b]
	for _, y := range ys[ylo : yhi+1] {
		rem -= int64(y-prev) * L * R
		if rem < 0 {
			return limit - rem, false
		}
		prev = y
		dy := absInt(y - cy)
		xl, xr := xl0+dy, xr0-dy
		a, z := xl+1, xr // the columns [a, z) of the row's taken points
		if xl < cutX {
			a = xl
		}
		if xr < cutX {
			z = xr + 1 // with xl == xr the row's one cell is counted once, as [xl, xr + 1)
		}
		a, z = max(a, 0), min(z, W)
		var m int64
		if a < z {
			m = int64(rowPre[b+z] - rowPre[b+a])
		}
		if xl == cutX || xr == cutX { // once, also when xl == xr
			if y > cy {
				m += int64(cutHi)
			} else {
				m += int64(cutLo)
			}
		}
		L, R = L+m, R-m
		b += W + 1
	}
	return limit - rem, true
}
