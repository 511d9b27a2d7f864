package ptas

import (
	"context"
	"math"
	"sync"

	"github.com/procalloc/procalloc/geom"
)

// maxGrid3Cells bounds grid3Search's tables: the occupancy grid and the three
// stacks of rotated plane counts.
const maxGrid3Cells = 1 << 24

// grid3Search is MM (onPoints false) or Gen-Alg (onPoints: the points as centers,
// in input order) with TiesByIndex on distinct integer points of a 3D box in
// ascending (x, y, z) order (the free nodes of a 3D mesh or torus in free-list
// order), the 3D form of the plane's bounded scan (gridScan). ok is false when it
// does not apply (not 3D, fractional, unordered or coinciding points, tables over
// maxGrid3Cells), and the caller takes another path. total is the winner's total
// pairwise L1 distance, as score summed it.
//
// The points at L1 distance r from a center in the plane x = x' lie on a diamond of
// radius r - |x' - cx| around (cy, cz): its count is O(1) from the plane's rotated
// prefix sums (rotBalls), one stack of tables per axis. The centers of a row (cx,
// cy fixed) share the planes z, so their ball counts come in O(1) from the row's
// tables (rowRead), and the k-th distance thr costs O(1) per step of its walk; the
// candidate's marginal along each axis costs O(thr). The total is summed as in
// gridScan over nonnegative gap terms: a lower bound along z from the row's tables,
// then along y and x, then x exactly; the points at distance thr taken (the lowest
// indices: lowest x, then y, then z) are read from an occupancy grid only for the
// planes where some are taken, and only when those have not dropped the center. So
// a center is dropped as soon as the running sum shows it cannot win; the incumbent
// is the smallest thr of a sample of centers; full balls tie (as in ballSearch's
// shortcut) and only the first in order is scored, and a center with the k nearest
// of the center a plane below it on its row is passed over (sameAsBelow), and so
// is one with the k nearest of a walked neighbour one step lower along x, y or z
// whose radius is one apart (sameAsNested). The winner is the plain search's: the
// first center in order with the smallest total (TestGrid3Lockstep,
// TestGrid3BoundsBelowTotal).
func grid3Search[T geom.Number](ctx context.Context, pr *problem[T], floor float64, onPoints bool, memo *CenterMemo) (best []int, center []T, total int64, ok bool, err error) {
	g, px, py, pz, lo := newGrid3Scan(pr, onPoints)
	if g == nil {
		return nil, nil, 0, false, nil
	}
	// Gen-Alg (its centers the points) leaves the memo alone: its upkeep, a
	// diff and distance transform over the whole box every call, cost more than
	// the centers it dropped (issue 32's workload replayed in-process, CPU per
	// call with the memo and without: torus:16x16x16 246 and 225 µs,
	// 25x25x25 1,146 and 1,086, 32x32x32 2,700 and 2,595; docs/center-speed.md, "MM
	// and Gen-Alg on 3D meshes and tori"). MM's centers are most cells of the box, and
	// there it pays (25x25x25: 3,400 against 3,610 µs).
	if memo != nil && !onPoints {
		memo.prepare(g.occ, [3]int{int(lo[0]), int(lo[1]), int(lo[2])}, g.W, g.H, g.L)
		g.memo = memo
	}
	bestT, total, err := g.search(ctx, floor)
	if err != nil {
		g.release()
		return nil, nil, 0, true, err
	}
	cx, cy, cz := int(g.centers[3*bestT]), int(g.centers[3*bestT+1]), int(g.centers[3*bestT+2])
	// The winner's k nearest by (distance, index), directly.
	dist := grow(g.dist, pr.n)
	for i := range pr.n {
		dist[i] = abs(px[i]-cx) + abs(py[i]-cy) + abs(pz[i]-cz)
	}
	best = nearestByIndex(dist, pr.k)
	g.dist = dist
	g.release()
	center = []T{T(cx) + lo[0], T(cy) + lo[1], T(cz) + lo[2]}
	return best, center, total, true, nil
}

// newGrid3Scan builds grid3Search's tables and centers for pr; nil where the scan
// does not apply. px, py, pz are the points' offsets from the box's low corner lo.
func newGrid3Scan[T geom.Number](pr *problem[T], onPoints bool) (g *grid3Scan, px, py, pz []int, lo []T) {
	if pr.d != 3 || !allIntegral(pr.pts) {
		return nil, nil, nil, nil, nil
	}
	b := geom.BoundingBox(pr.pts)
	var span [3]int
	for j := range 3 {
		w := float64(b.Max[j]) - float64(b.Min[j]) + 1
		if w > maxGrid3Cells {
			return nil, nil, nil, nil, nil
		}
		span[j] = int(w)
	}
	W, H, L := span[0], span[1], span[2]
	cells := float64(W) * float64(H) * float64(L)
	tables := float64(W)*float64((H+L)*(H+L)) + float64(H)*float64((W+L)*(W+L)) + float64(L)*float64((W+H)*(W+H))
	if cells > maxGrid3Cells || tables > maxGrid3Cells {
		return nil, nil, nil, nil, nil
	}
	n, k := pr.n, pr.k
	g = grid3Pool.Get().(*grid3Scan)
	px, py, pz = grow(g.bufX, n), grow(g.bufY, n), grow(g.bufZ, n)
	g.bufX, g.bufY, g.bufZ = px, py, pz
	g.occ = grow(g.occ, W*H*L)
	// Ascending (x, y, z) order is ascending cell index (x*H + y)*L + z, as every
	// point lies in the box.
	last := -1
	for i, p := range pr.pts {
		x, y, z := int(p[0]-b.Min[0]), int(p[1]-b.Min[1]), int(p[2]-b.Min[2])
		px[i], py[i], pz[i] = x, y, z
		cell := (x*H+y)*L + z
		if cell <= last {
			g.release()
			return nil, nil, nil, nil, nil // unordered or coinciding
		}
		last = cell
		g.occ[cell] = true
	}
	g.k, g.W, g.H, g.L = k, W, H, L
	g.rowX, g.rowY, g.rowTop, g.rowTables = -1, 0, -1, false
	g.addY, g.addZ, g.innerY, g.innerZ = grow(g.addY, H), grow(g.addZ, L), grow(g.innerY, H), grow(g.innerZ, L)
	g.innerX = grow(g.innerX, W)
	g.zIn, g.zOut = grow(g.zIn, L), grow(g.zOut, L)
	g.memo = nil
	// The rows' tables grow a radius at a time (rowBallGrow), up to the box's L1
	// diameter; a box much longer in z than across (a row's tables over all its
	// radii would exceed 4 cells per point of the box) counts its balls directly.
	g.rowsOK = W+H+L <= 4*W*H
	// The rotated tables of every plane of each axis, over the plane's two other
	// axes, built in the previous call's storage (an allocator calls once per
	// decision).
	if !g.px.build(W, px, py, pz, H, L) || !g.py.build(H, py, px, pz, W, L) || !g.setZStack(px, py, pz) {
		g.release()
		return nil, nil, nil, nil, nil
	}
	g.setFull(px, py, pz)
	// The centers in order.
	if onPoints {
		g.centers = g.centers[:0]
		for i := range n {
			g.centers = append(g.centers, int32(px[i]), int32(py[i]), int32(pz[i]))
		}
	} else {
		distinct := func(vs []int, span int) []int {
			seen := make([]bool, span)
			for _, v := range vs {
				seen[v] = true
			}
			var out []int
			for v, s := range seen {
				if s {
					out = append(out, v)
				}
			}
			return out
		}
		xs, ys, zs := distinct(px, W), distinct(py, H), distinct(pz, L)
		g.centers = g.centers[:0]
		for _, x := range xs {
			for _, y := range ys {
				for _, z := range zs {
					g.centers = append(g.centers, int32(x), int32(y), int32(z))
				}
			}
		}
	}
	return g, px, py, pz, b.Min
}

// centerResult is the Result of a center search's winner (indices ascending).
func centerResult[T geom.Number](pr *problem[T], idx []int, c []T, guarantee float64) Result {
	cf := make([]float64, len(c))
	for j, v := range c {
		cf[j] = float64(v)
	}
	return Result{Indices: idx, Total: float64(newPairScorer(pr.pts, pr.k).total(idx)), Center: cf, Guarantee: guarantee}
}

// grid3On makes MM and Gen-Alg take grid3Search where it applies (tests turn it
// off to reach the ball path and the sweep).
var grid3On = true

// grid3Scan holds grid3Search's tables.
type grid3Scan struct {
	k       int
	W, H, L int
	occ     []bool     // occ[(x*H+y)*L+z]: a point there
	px, py  planeStack // per plane x (over y, z), y (over x, z)
	// The planes z (over x, y) as one stack: the rotated tables of all planes
	// interleaved, zs[i*L + z] entry i of plane z's table (of shape zShape), so a
	// row's counts at one radius, the same four entries of every plane, are four
	// runs of L (rowBallGrow, rowPlanes).
	zs         []int32
	zShape     rotBalls
	zAcc       []int32
	centers    []int32 // x, y, z of each center, in order
	addY, addZ []int32 // taken points at distance thr per y and per z (zero between calls)
	innerY     []int32 // per y, per z, per x: the points closer than thr of the center being scored
	innerZ     []int32
	innerX     []int32
	zIn, zOut  []int32 // per z: the plane counts of zBound without the row's tables
	taken      []int32 // per plane x: points at distance thr taken, as (x, count) pairs
	// The row's plane counts: for the centers of one row (cx, cy fixed), the
	// points of plane z within L1 distance r of (cx, cy) are rowT[r*L+z].q, for r
	// up to rowTop (counted a radius at a time as the walk needs them); .lo and
	// .hi there are the points within r of (cx, cy, z) in the planes up to z and
	// after z, so a center's ball count is O(1).
	rowT          []rowEntry
	rowTop        int
	rowX, rowY    int
	rowTables     bool // false: counted per ball (rows of few centers)
	rowsOK        bool // the box lets rows take tables
	sumIn, sumOut int  // walk's counts within thr - 1 and thr

	dFull int     // full-ball shortcut: the radius of the smallest L1 ball of Z^3 holding k points
	pre   []int32 // prefix counts of points over the box; nil: shortcut off

	memo *CenterMemo // values kept between calls; nil: none

	// The walked centers of the current slab x = const and the one before, per
	// (y, z) (sameAsNested): slabs[slabCur] is slab slabX[slabCur], its entries
	// current while their stamp is slabStamp's (stamp: the last slab's serial).
	slabs     [2][]walkedCenter
	slabX     [2]int
	slabStamp [2]int32
	slabCur   int
	stamp     int32

	// Storage kept for the next call (grid3Pool).
	bufX, bufY, bufZ []int
	dist             []int
}

// grid3Pool keeps grid3Scan's tables between calls: an allocator calls once per
// decision, and each call's tables (about 1 MB at 15,625 free nodes) would
// otherwise be garbage that brings the collector round every few decisions.
var grid3Pool = sync.Pool{New: func() any { return new(grid3Scan) }}

// release gives g back to grid3Pool; g must not be used after it.
func (g *grid3Scan) release() {
	g.memo = nil
	grid3Pool.Put(g)
}

// scoreKept is score, keeping its value in the memo.
func (g *grid3Scan) scoreKept(cx, cy, cz, thr int, limit int64) (int64, bool) {
	tot, ok := g.score(cx, cy, cz, thr, limit)
	if g.memo != nil {
		g.memo.keep(g.memo.cell(cx, cy, cz), g.k, thr, tot)
	}
	return tot, ok
}

// setFull prepares the full-ball shortcut (as ballSearch.setFull): with distinct
// points in ascending order, every center whose cube of half-side dFull lies in the
// box with a point on every cell takes the same shape of k nearest, so they tie.
func (g *grid3Scan) setFull(px, py, pz []int) {
	g.dFull = 0
	g.pre = g.pre[:0]
	for (2*g.dFull+1)*(2*g.dFull*g.dFull+2*g.dFull+3)/3 < g.k {
		g.dFull++
	}
	e := 2*g.dFull + 1
	if e > min(g.W, g.H, g.L) {
		return
	}
	// A full cube holds a run of e points along z (consecutive z in one row):
	// without one no center has a full ball, and the prefix counts are not built
	// (on the fragmented free sets of issue 32's workload they were 4 % of
	// Gen-Alg's time at torus:32x32x32).
	run, longest := 0, 0
	for i := range px {
		if i > 0 && px[i] == px[i-1] && py[i] == py[i-1] && pz[i] == pz[i-1]+1 {
			run++
		} else {
			run = 1
		}
		longest = max(longest, run)
	}
	if longest < e {
		return
	}
	H1, L1 := g.H+1, g.L+1
	g.pre = grow(g.pre, (g.W+1)*H1*L1)
	for i := range px {
		g.pre[(px[i]+1)*H1*L1+(py[i]+1)*L1+pz[i]+1] = 1
	}
	cumulate3(g.pre, H1, L1)
}

func (g *grid3Scan) full(cx, cy, cz int) bool {
	d := g.dFull
	if len(g.pre) == 0 || cx-d < 0 || cy-d < 0 || cz-d < 0 || cx+d >= g.W || cy+d >= g.H || cz+d >= g.L || !g.occ[(cx*g.H+cy)*g.L+cz] {
		return false // the cube out of the box, or its center (one of its cells) empty
	}
	H1, L1 := g.H+1, g.L+1
	X0, X1 := (cx-d)*H1*L1, (cx+d+1)*H1*L1
	Y0, Y1 := (cy-d)*L1, (cy+d+1)*L1
	Z0, Z1 := cz-d, cz+d+1
	p := g.pre
	c := p[X1+Y1+Z1] - p[X0+Y1+Z1] - p[X1+Y0+Z1] - p[X1+Y1+Z0] + p[X0+Y0+Z1] + p[X0+Y1+Z0] + p[X1+Y0+Z0] - p[X0+Y0+Z0]
	e := 2*d + 1
	return int(c) == e*e*e
}

// setRow makes the row plane counts those of the centers (cx, cy, *); tables
// false counts every ball directly (a row of few centers: the tables cost L
// counts per radius).
func (g *grid3Scan) setRow(cx, cy int, tables bool) {
	if cx != g.rowX || cy != g.rowY || tables != g.rowTables {
		g.rowX, g.rowY, g.rowTop, g.rowTables = cx, cy, -1, tables
	}
}

// A center's ball count from the row's tables (setRow's row): the points within
// L1 distance r of (cx, cy, cz) are those of the planes up to cz within r - (cz -
// z) of (cx, cy), and those after it. With the planes z' <= z within r - (z - z'),
// lo(z, r) = q(z, r) + lo(z-1, r-1), and hi(z, r) = q(z+1, r-1) + hi(z+1, r-1)
// for the planes after z. Once the tables reach r the count is one read
// (rowRead); rowBallGrow builds them a radius at a time.

// rowRead counts the points within L1 distance r of (cx, cy, cz) where the row's
// tables reach r (false elsewhere): one read, small enough to be inlined into
// walk.
func (g *grid3Scan) rowRead(cz, r int) (int, bool) {
	if uint(r) < uint(g.rowTop+1) { // 0 <= r <= rowTop (rowTop is -1 without tables)
		e := &g.rowT[r*g.L+cz]
		return int(e.lo + e.hi), true
	}
	return 0, false
}

// rowBallGrow counts the points within L1 distance r of (cx, cy, cz) where the
// row's tables do not reach r yet, growing them to r (or, for a row without
// tables, plane by plane).
func (g *grid3Scan) rowBallGrow(cz, r int) int {
	if r < 0 {
		return 0
	}
	if !g.rowTables {
		return g.rowPlanes(cz, r, nil)
	}
	L := g.L
	for g.rowTop < r {
		t := g.rowTop + 1
		if len(g.rowT) < (t+1)*L {
			n := max(2*len(g.rowT), (t+1)*L)
			g.rowT = append(g.rowT[:len(g.rowT):len(g.rowT)], make([]rowEntry, n-len(g.rowT))...)
		}
		cur := g.rowT[t*L : (t+1)*L]
		// The planes z share their shape, so the diamond's four corners in the
		// rotated tables are the same for all of them.
		i00, i01, i10, i11 := stackAt(&g.zShape, g.rowX, g.rowY).corners(t)
		zs := g.zs
		r00, r01, r10, r11 := zs[i00*L:(i00+1)*L], zs[i01*L:(i01+1)*L], zs[i10*L:(i10+1)*L], zs[i11*L:(i11+1)*L]
		r00, r01, r10, r11 = r00[:len(cur)], r01[:len(cur)], r10[:len(cur)], r11[:len(cur)]
		if t == 0 {
			for z := range cur {
				v := r11[z] - r01[z] - r10[z] + r00[z]
				cur[z] = rowEntry{q: v, lo: v}
			}
		} else {
			// One pass for the three (the row's tables are rebuilt for every
			// row: 14 % of Gen-Alg's instructions at torus:32x32x32).
			prev := g.rowT[(t-1)*L : t*L]
			prev = prev[:len(cur)]
			v := r11[0] - r01[0] - r10[0] + r00[0]
			cur[0].q, cur[0].lo = v, v
			for z := 1; z < len(cur); z++ {
				v := r11[z] - r01[z] - r10[z] + r00[z]
				cur[z].q, cur[z].lo = v, v+prev[z-1].lo
				cur[z-1].hi = prev[z].q + prev[z].hi
			}
			cur[len(cur)-1].hi = 0
		}
		g.rowTop = t
	}
	e := &g.rowT[r*L+cz]
	return int(e.lo + e.hi)
}

// rowEntry is one entry of the row's tables (grid3Scan.rowT): the points of one
// plane z within radius r of the row, and those within r of (cx, cy, z) in the
// planes up to z and after z.
type rowEntry struct{ q, lo, hi int32 }

// setZStack builds the stack of the planes z (zs): the rotated prefix sums of
// rotBalls.build for every plane at once, z innermost. False when a plane's table
// would exceed rotBallsMaxCells (as rotBalls.build).
func (g *grid3Scan) setZStack(px, py, pz []int) bool {
	W, H, L := g.W, g.H, g.L
	s := W + H
	g.zShape = rotBalls{h: H, u: s - 1}
	if s*s > rotBallsMaxCells {
		return false
	}
	zs := grow(g.zs, s*s*L)
	for i := range px {
		zs[((px[i]+py[i]+1)*s+px[i]-py[i]+H)*L+pz[i]]++
	}
	acc := grow(g.zAcc, L)
	for a := 1; a < s; a++ {
		clear(acc)
		prev, cur := zs[(a-1)*s*L:a*s*L], zs[a*s*L:(a+1)*s*L]
		for b := 1; b < s; b++ {
			c, p := cur[b*L:(b+1)*L], prev[b*L:(b+1)*L]
			for z := range c {
				acc[z] += c[z]
				c[z] = p[z] + acc[z]
			}
		}
	}
	g.zs, g.zAcc = zs, acc
	return true
}

// rotAt reads tables of one shape (a stack of planes' rotBalls) around one
// place for varying radii: s, u as the shape's, a and b the place's rotated
// coordinates (within 0..u-1, as every place of the plane's box).
type rotAt struct{ s, u, a, b int }

// stackAt is rotAt for place (x, y) of tables shaped as r.
func stackAt(r *rotBalls, x, y int) rotAt {
	return rotAt{s: r.u + 1, u: r.u, a: x + y, b: x - y + r.h - 1}
}

// corners returns the indices of the four table entries whose signed sum counts
// the points within rad >= 0 of the place (rotBalls.ball's arithmetic).
func (t rotAt) corners(rad int) (i00, i01, i10, i11 int) {
	a0, a1 := max(t.a-rad, 0)*t.s, min(t.a+rad+1, t.u)*t.s
	b0, b1 := max(t.b-rad, 0), min(t.b+rad+1, t.u)
	return a0 + b0, a0 + b1, a1 + b0, a1 + b1
}

// walk is radius from the row's plane counts (the centers of a row share the
// planes z: L counts per radius and row instead of 2 thr + 1 per ball), keeping
// the counts within thr - 1 and thr for score.
func (g *grid3Scan) walk(cx, cy, cz, thr int) int {
	thr = max(thr, 0)
	k := g.k
	in, ok := g.rowRead(cz, thr-1)
	if !ok {
		in = g.rowBallGrow(cz, thr-1)
	}
	out, ok := g.rowRead(cz, thr)
	if !ok {
		out = g.rowBallGrow(cz, thr)
	}
	for {
		switch {
		case thr > 0 && in >= k:
			thr--
			out = in
			if in, ok = g.rowRead(cz, thr-1); !ok {
				in = g.rowBallGrow(cz, thr-1)
			}
		case out < k:
			thr++
			in = out
			if out, ok = g.rowRead(cz, thr); !ok {
				out = g.rowBallGrow(cz, thr)
			}
		default:
			g.sumIn, g.sumOut = in, out
			return thr
		}
	}
}

// search returns the index of the winning center and the total of its k nearest
// (score's exact sum: a center only wins with every pass summed in full).
func (g *grid3Scan) search(ctx context.Context, floor float64) (int, int64, error) {
	count := len(g.centers) / 3
	at := func(t int) (int, int, int) {
		return int(g.centers[3*t]), int(g.centers[3*t+1]), int(g.centers[3*t+2])
	}
	// When the first full ball reaches the floor, only the centers before it can
	// still win (gridScan.search).
	if floor > 0 {
		for f := range count {
			if !g.full(at(f)) {
				continue
			}
			cx, cy, cz := at(f)
			g.setRow(cx, cy, false)
			g.walk(cx, cy, cz, g.dFull)
			best, _ := g.scoreKept(cx, cy, cz, g.dFull, math.MaxInt64)
			if float64(best) > floor {
				break
			}
			thr := g.dFull
			for t := range f {
				cx, cy, cz := at(t)
				g.setRow(cx, cy, grid3RowTables && g.rowsOK && g.rowRun(t)*rowTablesMin >= g.L)
				thr = g.walk(cx, cy, cz, thr)
				if tot, ok := g.scoreKept(cx, cy, cz, thr, best); ok {
					return t, tot, nil // the first center at the floor
				}
			}
			return f, best, nil
		}
	}
	// The incumbent: the center of smallest thr among a sample (about
	// seedSamples centers, at least seedStride apart; any center would do, a
	// small thr scores low).
	thr, seed, seedThr := 0, 0, math.MaxInt
	for t := 0; t < count; t += max(seedStride, count/seedSamples) {
		cx, cy, cz := at(t)
		g.setRow(cx, cy, false)
		thr = g.walk(cx, cy, cz, thr)
		if thr < seedThr {
			seed, seedThr = t, thr
		}
	}
	cx, cy, cz := at(seed)
	g.setRow(cx, cy, false)
	thr = g.walk(cx, cy, cz, seedThr)
	bestTot, _ := g.scoreKept(cx, cy, cz, thr, math.MaxInt64)
	bestPos := seed
	fullSeen := false
	g.slabX = [2]int{-1, -1} // no walked centers yet (sameAsNested)
	// The last center walked in this loop (sameAsBelow): its position, radius,
	// counts within thr - 1 and thr, and score's value (or the value it shares).
	prevT, prevThr, prevIn, prevOut, prevVal := -1, 0, 0, 0, int64(0)
	for t := range count {
		if t&1023 == 1023 {
			if err := context.Cause(ctx); err != nil {
				return 0, 0, err
			}
		}
		if floor > 0 && float64(bestTot) <= floor && t >= bestPos {
			break // no later center is strictly better
		}
		cx, cy, cz := at(t)
		if grid3NestedOn {
			g.enterSlab(cx)
		}
		isFull := g.full(cx, cy, cz)
		if isFull && fullSeen {
			continue
		}
		fullSeen = fullSeen || isFull
		if t == seed {
			continue
		}
		limit := bestTot - 1
		if t < bestPos {
			limit = bestTot
		}
		mc := 0 // the center's cell in the memo
		if g.memo != nil {
			mc = g.memo.cell(cx, cy, cz)
		}
		if g.memo != nil && g.memo.drops(mc, g.k, limit) {
			g.memo.dropped++
			continue // a value kept from an earlier call exceeds the limit
		}
		if cx != g.rowX || cy != g.rowY || !g.rowTables {
			g.setRow(cx, cy, grid3RowTables && g.rowsOK && g.rowRun(t)*rowTablesMin >= g.L)
		}
		thr = g.walk(cx, cy, cz, thr)
		// The same k nearest as the center before it on the row, one plane
		// lower: the same total, and that center comes first. Its value (a total
		// or a lower bound) holds for this center too.
		// Or those of a walked neighbour one step lower along x, y or z whose
		// radius is one apart (sameAsNested).
		same := grid3SameOn && g.rowTables && t > 0 && prevT == t-1 && g.sameRowBelow(prevT, t) && g.sameAsBelow(cz, thr, g.sumIn, g.sumOut, prevThr, prevIn, prevOut)
		if !same && grid3NestedOn {
			var v int64
			if v, same = g.nestedSame(cx, cy, cz, thr); same {
				prevVal = v
			}
		}
		prevT, prevThr, prevIn, prevOut = t, thr, g.sumIn, g.sumOut
		if same {
			if g.memo != nil {
				g.memo.keep(mc, g.k, thr, prevVal)
			}
			if grid3NestedOn {
				g.keepWalked(cy, cz, thr, prevVal)
			}
			continue
		}
		tot, ok := g.score(cx, cy, cz, thr, limit)
		if g.memo != nil {
			g.memo.keep(mc, g.k, thr, tot)
		}
		prevVal = tot
		if grid3NestedOn {
			g.keepWalked(cy, cz, thr, tot)
		}
		if ok {
			bestTot, bestPos = tot, t
		}
	}
	return bestPos, bestTot, nil
}

// rowRun returns the number of centers from t on in t's row.
func (g *grid3Scan) rowRun(t int) int {
	c := g.centers
	n := 1
	for u := 3 * (t + 1); u < len(c) && c[u] == c[3*t] && c[u+1] == c[3*t+1]; u += 3 {
		n++
	}
	return n
}

// grid3RowTables lets rows take the plane count tables (tests turn it off to
// compare).
var grid3RowTables = true

// rowTablesMin: a row takes the plane count tables when it has at least L /
// rowTablesMin centers. A row's tables cost 3 L sums per radius, a center
// without them about four direct ball counts of 2 thr + 1 plane reads each (the
// walk's two and zBound's two), so two centers already pay for them: with L / 16
// instead of L / 8, Gen-Alg on issue 32's workload at torus:32x32x32 took 3.6 %
// less CPU (six alternated runs each, docs/alloc.md), with L / 4 or L / 32 no less.
const rowTablesMin = 16

// seedStride and seedSamples set the sample of search's incumbent: every
// max(seedStride, centers/seedSamples)-th center. Each sampled center's radius is
// walked by direct plane counts (2 thr + 1 reads per step); with every 7th center
// that was 22 % of MM's plane reads on issue 32's workload at torus:25x25x25, and
// about 64 samples find an incumbent as good for the bounds (every 25th decision
// of the replay, plane reads of the scan: 109 M with every 7th, 84 M with 64
// samples; Gen-Alg's every 7th: 83 M and 77 M).
const seedStride, seedSamples = 7, 64

// zBound is score's lower bound on the gap terms along z of the center (cx, cy,
// cz) of setRow's row whose k-th distance is thr, from walk's counts (below), and
// keeps per plane z the points closer than thr in innerZ.
func (g *grid3Scan) zBound(cz, thr int) int64 {
	k := int64(g.k)
	T, U := k-int64(g.sumIn), int64(g.sumOut)
	var lbZ, cb, co int64
	if g.rowTables && g.rowTop >= thr {
		// walk counted the row's planes out to thr: read them directly, q(z,
		// rem) at Q[rem*L + z] with rem = thr - |z - cz| (rem > 0 iff the index
		// is at least L). l <= h always (cb <= co, and the points closer than thr
		// after the gap are at most those within it), and h <= k (cb <= below),
		// so the term is l (k - l) when l + h <= k, else h (k - h): the smaller
		// of the two, taken without a branch (mm torus:25x25x25 -1-5 %,
		// docs/center-speed.md, "The passes' instructions").
		// The planes at distance thr (rem 0: no point closer than thr) are
		// peeled off the two loops, so that these read q(z, rem - 1) without a
		// test.
		L, Q, inner := g.L, g.rowT, g.innerZ
		kU := k - U
		z, z1 := max(cz-thr, 0), min(cz+thr, L-1)
		i := (thr-(cz-z))*L + z
		if z == cz-thr && z < cz {
			l, h := max(cb, kU+co), min(cb+T, co)
			lbZ += min(l*(k-l), h*(k-h))
			inner[z] = 0
			co += int64(Q[i].q)
			z, i = z+1, i+L+1
		}
		for ; z < cz; z, i = z+1, i+L+1 {
			l, h := max(cb, kU+co), min(cb+T, co)
			lbZ += min(l*(k-l), h*(k-h))
			m := Q[i-L].q
			inner[z] = m
			cb += int64(m)
			co += int64(Q[i].q)
		}
		i = thr*L + z
		for last := min(z1, cz+thr-1); z <= last; z, i = z+1, i-L+1 {
			l, h := max(cb, kU+co), min(cb+T, co)
			lbZ += min(l*(k-l), h*(k-h))
			m := Q[i-L].q
			inner[z] = m
			cb += int64(m)
			co += int64(Q[i].q)
		}
		if z <= z1 {
			l, h := max(cb, kU+co), min(cb+T, co)
			lbZ += min(l*(k-l), h*(k-h))
			inner[z] = 0
		}
		return lbZ
	}
	// Counted per ball (setRow without tables): the planes' counts within thr
	// - 1 and thr, then as above.
	in, out := g.zIn, g.zOut
	g.rowPlanes(cz, thr-1, in)
	g.rowPlanes(cz, thr, out)
	for z := max(cz-thr, 0); z <= min(cz+thr, g.L-1); z++ {
		l, h := max(cb, k-(U-co)), min(cb+T, co, k)
		lbZ += min(l*(k-l), h*(k-h))
		var m int32
		if thr-abs(z-cz) > 0 {
			m = in[z]
		}
		g.innerZ[z] = m
		cb += int64(m)
		co += int64(out[z])
	}
	return lbZ
}

// rowPlanes counts the points within L1 distance r of (cx, cy, cz) (setRow's
// row) plane by plane, from the stack of the planes z: into dst[z] for the planes
// within r of cz (dst nil: none), and returns their sum. The planes cz - j and
// cz + j share the diamond's radius r - j, so their four corners in the rotated
// tables are found once.
func (g *grid3Scan) rowPlanes(cz, r int, dst []int32) int {
	if r < 0 {
		return 0
	}
	L, zs := g.L, g.zs
	at := stackAt(&g.zShape, g.rowX, g.rowY)
	c := 0
	for j := 0; j <= r; j++ {
		lo, hi := cz-j, cz+j
		if lo < 0 && hi >= L {
			break
		}
		i00, i01, i10, i11 := at.corners(r - j)
		if lo >= 0 {
			v := zs[i11*L+lo] - zs[i01*L+lo] - zs[i10*L+lo] + zs[i00*L+lo]
			c += int(v)
			if dst != nil {
				dst[lo] = v
			}
		}
		if j > 0 && hi < L {
			v := zs[i11*L+hi] - zs[i01*L+hi] - zs[i10*L+hi] + zs[i00*L+hi]
			c += int(v)
			if dst != nil {
				dst[hi] = v
			}
		}
	}
	return c
}

// score is the total pairwise L1 distance of the k nearest of (cx, cy, cz) by
// (distance, index), whose largest distance is thr, from walk's counts of that
// center; false as soon as a lower bound on it exceeds limit.
func (g *grid3Scan) score(cx, cy, cz, thr int, limit int64) (int64, bool) {
	k := int64(g.k)
	below := g.sumIn
	T := k - int64(below)
	// Before the taken points are read, a lower bound on the gap terms along z,
	// y and x. The points L before a gap are at least cb, those closer than thr
	// before it (kept for the exact passes), and at most cb plus the T taken; L
	// (k - L) being concave, the smaller of its values at the two ends bounds the
	// term from below. Along z (the row's plane counts, already there) also at
	// least k less the points within thr after the gap, and at most those within
	// thr before it, co.
	lbZ := g.zBound(cz, thr)
	if lbZ > limit {
		return lbZ, false
	}
	lbY, ok := g.yBound(cx, cy, cz, thr, T, limit-lbZ)
	if !ok {
		return lbZ + lbY, false
	}
	// Along x the same bound first (xBound keeps the planes' points closer than
	// thr), then exactly: the plane's points at thr while some are still to take
	// (lowest planes first). Most centers scored are dropped along x (62 % of
	// mm's at torus:25x25x25), and the bound reads one ball per plane where the
	// exact pass reads two while points are still to take (72 % of its planes).
	lb := lbZ + lbY
	lbX, ok := g.xBound(cx, cy, cz, thr, T, limit-lb)
	if !ok {
		return lb + lbX, false
	}
	take := g.k - below
	tot, ok := g.xPass(cx, cy, cz, thr, take, lb, limit)
	if !ok {
		return tot, false
	}
	taken := g.taken
	tot -= lbY // the x total and z's bound; y and z are summed exactly below
	// The taken points' y and z: the whole planes' from the tables or the
	// occupancy grid, the last plane's from the grid in index order; from the
	// tables, those along z only once the pass along y has not dropped the
	// center (wholeZ).
	wholeZ := g.takeTaken(cx, cy, cz, thr)
	// Along y and z: the points closer than thr from the planes, plus those taken.
	// addY and addZ are zero again on return (cleared over the ball's extent,
	// which holds every taken point).
	y0, y1, z0, z1 := max(cy-thr, 0), min(cy+thr, g.H-1), max(cz-thr, 0), min(cz+thr, g.L-1)
	tot, ok = gapPass(tot, limit, k, g.innerY[y0:y1+1], g.addY[y0:y1+1])
	dropped := !ok
	if !dropped {
		if wholeZ {
			g.takeWholeZ(cx, cy, cz, thr, int(taken[len(taken)-2]))
		}
		tot, ok = gapPass(tot-lbZ, limit, k, g.innerZ[z0:z1+1], g.addZ[z0:z1+1])
		dropped = !ok
	}
	if len(taken) > 0 {
		clear(g.addY[y0 : y1+1])
		clear(g.addZ[z0 : z1+1])
	}
	return tot, !dropped && tot <= limit
}

// gapPass adds to tot the gap terms along one axis (score, along y and z): before
// each plane p, L (k - L) with L the points of the planes before it, inner[p] +
// add[p] each. False, with the total so far, as soon as tot exceeds limit.
func gapPass(tot, limit, k int64, inner, add []int32) (int64, bool) {
	add = add[:len(inner)]
	var cum int64
	for p, in := range inner {
		tot += cum * (k - cum)
		if tot > limit {
			return tot, false
		}
		cum += int64(in + add[p])
	}
	return tot, true
}

// takeShell adds to addY and addZ the first c points (by index: lowest y, then
// lowest z) of plane x at L1 distance thr from (cx, cy, cz): per line y the two
// cells z = cz -+ e of the plane's diamond of radius rem = thr - |x - cx|. The
// cells are read without branching on them (the free sets are fragmented, so a
// branch per cell is mispredicted often): a cell out of the box reads a clamped
// one and counts zero, and an increment of zero goes to the clamped cell.
func (g *grid3Scan) takeShell(x, cx, cy, cz, thr int, c int32) {
	H, L := g.H, g.L
	occ, addY, addZ := g.occ, g.addY, g.addZ
	rem := thr - abs(x-cx)
	for y := max(cy-rem, 0); y <= min(cy+rem, H-1) && c > 0; y++ {
		e := rem - abs(y-cy)
		base := (x*H + y) * L
		zl, zh := cz-e, cz+e
		zlc, zhc := max(zl, 0), min(zh, L-1)
		t1 := b2i(occ[base+zlc]) & b2i(zl >= 0)
		t2 := b2i(occ[base+zhc]) & b2i(zh < L) & b2i(e > 0)
		if t1+t2 > c {
			t2 = 0 // c = 1: the lower z comes first
		}
		addY[y] += t1 + t2
		addZ[zlc] += t1
		addZ[zhc] += t2
		c -= t1 + t2
	}
}
