package ptas

import "github.com/procalloc/procalloc/geom"

// The plane's tables built from points in ascending (x, y) order (issue 32 item 1;
// docs/center-speed.md, "MM and Gen-Alg in the plane", round 9). The allocators' free
// lists come in that order, so each line's points come sorted and a table's prefix
// counts can be written in one pass, line by line, instead of clearing the table,
// scattering the points into it and summing it in place: at 65,536 mesh nodes the
// free set of issue 32's workload is about 7,000 points in a 256x256 box, and the
// tables (rotBalls' 512x512, the columns' and rows' prefix counts, compBound's
// 512x512 weights) are per decision what Gen-Alg's scan of those 7,000 centers is
// not.

// gridSetUp is gridSearch's set-up. It writes into bufs the offsets of pts from
// their box's corner (x0, y0; the box is W x H), the columns and rows that hold
// points with their spans and prefix counts, and the full and rotated balls'
// tables, and returns the scan over them (centers unset: MM's product) and whether
// the points come in ascending (x, y) order. With onPoints, points out of that
// order give nil: Gen-Alg's scan needs the free list's order, and nothing past the
// offsets is built.
func gridSetUp[T geom.Number](bufs *gridBufs, pts [][]T, k, x0, y0, W, H int, onPoints bool) (*gridScan, bool) {
	n := len(pts)
	bufs.px, bufs.py = grow(bufs.px, n), grow(bufs.py, n)
	px, py := bufs.px, bufs.py
	bufs.colOf, bufs.rowOf = grow(bufs.colOf, W), grow(bufs.rowOf, H)
	colOf, rowOf := bufs.colOf, bufs.rowOf // offset -> column/row index, -1 if none
	for i := range colOf {
		colOf[i] = -1
	}
	for i := range rowOf {
		rowOf[i] = -1
	}
	// ordered: input order is ascending (x, y), so the points at one distance, read
	// column by column (lower cell first), come in index order; run: the longest
	// run of points on consecutive cells of a column (a full ball needs one).
	ordered, distinct, run, maxRun := true, true, 0, 0
	for i, p := range pts {
		x, y := int(p[0])-x0, int(p[1])-y0
		px[i], py[i] = x, y
		colOf[x], rowOf[y] = 0, 0
		if i == 0 {
			run, maxRun = 1, 1
			continue
		}
		ordered = ordered && (px[i-1] < x || px[i-1] == x && py[i-1] <= y)
		distinct = distinct && (px[i-1] != x || py[i-1] != y)
		if px[i-1] == x && py[i-1]+1 == y {
			run++
		} else if px[i-1] != x || py[i-1] != y {
			run = 1
		}
		maxRun = max(maxRun, run)
	}
	if onPoints && !ordered {
		return nil, false
	}
	xs, ys := bufs.xs[:0], bufs.ys[:0] // distinct offsets, ascending
	for v, c := range colOf {
		if c >= 0 {
			colOf[v] = int32(len(xs))
			xs = append(xs, v)
		}
	}
	for v, c := range rowOf {
		if c >= 0 {
			rowOf[v] = int32(len(ys))
			ys = append(ys, v)
		}
	}
	bufs.xs, bufs.ys = xs, ys
	nx, ny := len(xs), len(ys)
	// firstCol[v]: the first column at offset >= v; lastCol[v]: the last column at
	// offset <= v (v in [0, W)); likewise for rows. They give the columns and rows
	// within a distance of a center in O(1).
	bufs.firstCol, bufs.lastCol = grow(bufs.firstCol, W), grow(bufs.lastCol, W)
	bufs.firstRow, bufs.lastRow = grow(bufs.firstRow, H), grow(bufs.lastRow, H)
	firstCol, lastCol := spanIndexInto(colOf, bufs.firstCol, bufs.lastCol)
	firstRow, lastRow := spanIndexInto(rowOf, bufs.firstRow, bufs.lastRow)
	// colPre[xi*(H+1)+t]: points in column xi with y offset < t; rowPre likewise.
	full, rot := &bufs.full, &bufs.rot
	bufs.sorted = ordered && gridSortedBuild
	if bufs.sorted {
		bufs.linesSorted(px, py, xs, rowOf, ny, W, H)
		rot.buildSorted(px, py, W, H, &bufs.byA)
		if maxRun >= 2*fullD(k)+1 {
			full.build(n, func(i int) (int, int) { return px[i], py[i] }, W, H, k, ordered)
		} else {
			full.none(W, H, k) // no column has the run a full ball needs
		}
	} else {
		bufs.linesScattered(px, py, colOf, rowOf, nx, ny, W, H)
		full.build(n, func(i int) (int, int) { return px[i], py[i] }, W, H, k, ordered)
		rot.build(px, py, W, H)
	}
	return &gridScan{k: k, W: W, H: H, xs: xs, ys: ys, firstCol: firstCol, lastCol: lastCol,
		firstRow: firstRow, lastRow: lastRow, colPre: bufs.colPre, rowPre: bufs.rowPre, rowOf: rowOf,
		full: full, rot: rot, px: px, py: py, bufs: bufs, distinct: distinct}, ordered
}

// growRaw is grow without clearing: s of length n, its contents unspecified.
func growRaw[E any](s []E, n int) []E {
	if cap(s) < n {
		return make([]E, n)
	}
	return s[:n]
}

// fillPrefix writes p[t] = the number of values in vals below t, for t in
// [0, len(p)); vals ascending (repeats allowed), each in [0, len(p) - 1).
func fillPrefix[V int | int32](p []int32, vals []V) {
	t := 0
	for i, v := range vals {
		for ; t <= int(v); t++ {
			p[t] = int32(i)
		}
	}
	c := int32(len(vals))
	for ; t < len(p); t++ {
		p[t] = c
	}
}

// bucketByKey groups the indices 0..len(keys)-1 by keys[i] in [0, nk), ascending
// in each group: group g is idx[start[g]:start[g+1]].
func bucketByKey(start, idx, keys []int32, nk int) ([]int32, []int32) {
	n := len(keys)
	start = grow(start, nk+1)
	for _, g := range keys {
		start[g+1]++
	}
	for g := range nk {
		start[g+1] += start[g]
	}
	idx = growRaw(idx, n)
	// Filled from the back, start[g+1] ends at group g's start.
	for i := n - 1; i >= 0; i-- {
		g := keys[i]
		start[g+1]--
		idx[start[g+1]] = int32(i)
	}
	copy(start[:nk], start[1:nk+1])
	start[nk] = int32(n)
	return start, idx
}

// buildSorted is build for points in ascending (x, y) order (not checked): the
// points grouped by x + y (byA: the indices of those with x + y = a are
// byA.idx[byA.start[a]:byA.start[a+1]], ascending, so ascending in x - y), each row
// of the table is written once from the row before, with no clearing and no
// scattering.
func (r *rotBalls) buildSorted(px, py []int, w, h int, byA *pointBuckets) {
	r.h, r.u = h, w+h-1
	s := r.u + 1
	if s*s > rotBallsMaxCells {
		r.pre = nil
		return
	}
	r.pre = growRaw(r.pre, s*s)
	clear(r.pre[:s])
	for a := 1; a < s; a++ {
		prev, cur := r.pre[(a-1)*s:a*s], r.pre[a*s:(a+1)*s]
		cur[0] = 0
		var acc int32
		b := 1
		for _, i := range byA.idx[byA.start[a-1]:byA.start[a]] {
			for pb := px[i] - py[i] + h; b < pb; b++ {
				cur[b] = prev[b] + acc
			}
			acc++
		}
		for ; b < s; b++ {
			cur[b] = prev[b] + acc
		}
	}
}

// pointBuckets groups points by a key (bucketByKey), with its scratch.
type pointBuckets struct {
	keys, start, idx []int32
}

// byDiagonal groups the points at offsets (px[i], py[i]) by px + py, in [0, u).
func (p *pointBuckets) byDiagonal(px, py []int, u int) {
	p.keys = growRaw(p.keys, len(px))
	for i := range px {
		p.keys[i] = int32(px[i] + py[i])
	}
	p.start, p.idx = bucketByKey(p.start, p.idx, p.keys, u)
}

// linesScattered builds bufs.colPre and bufs.rowPre (gridSearch) for the points at
// offsets (px[i], py[i]) of a W x H box in any order: colOf and rowOf map an
// offset to its column's and row's index (nx columns, ny rows).
func (bufs *gridBufs) linesScattered(px, py []int, colOf, rowOf []int32, nx, ny, W, H int) {
	bufs.colPre, bufs.rowPre = grow(bufs.colPre, nx*(H+1)), grow(bufs.rowPre, ny*(W+1))
	colPre, rowPre := bufs.colPre, bufs.rowPre
	for i := range px {
		xi, yi := int(colOf[px[i]]), int(rowOf[py[i]])
		colPre[xi*(H+1)+py[i]+1]++
		rowPre[yi*(W+1)+px[i]+1]++
	}
	for xi := 0; xi < nx; xi++ {
		p := colPre[xi*(H+1) : (xi+1)*(H+1)]
		for t := 1; t <= H; t++ {
			p[t] += p[t-1]
		}
	}
	for yi := 0; yi < ny; yi++ {
		p := rowPre[yi*(W+1) : (yi+1)*(W+1)]
		for t := 1; t <= W; t++ {
			p[t] += p[t-1]
		}
	}
}

// linesSorted is linesScattered for points in ascending (x, y) order (not
// checked), xs the columns' offsets ascending and ny the number of rows: each column's points are a run of
// the input, ascending in y, and grouped by row (bufs.byRow) they keep ascending
// x, so each line's prefix counts are written once. It also groups the points by
// x + y (bufs.byA) for rotBalls.buildSorted and compBound.
func (bufs *gridBufs) linesSorted(px, py, xs []int, rowOf []int32, ny, W, H int) {
	n, nx := len(px), len(xs)
	bufs.colPre, bufs.rowPre = growRaw(bufs.colPre, nx*(H+1)), growRaw(bufs.rowPre, ny*(W+1))
	for xi, i := 0, 0; xi < nx; xi++ {
		j := i
		for j < n && px[j] == xs[xi] {
			j++
		}
		fillPrefix(bufs.colPre[xi*(H+1):(xi+1)*(H+1)], py[i:j])
		i = j
	}
	byRow := &bufs.byRow
	byRow.keys = growRaw(byRow.keys, n)
	for i := range n {
		byRow.keys[i] = rowOf[py[i]]
	}
	byRow.start, byRow.idx = bucketByKey(byRow.start, byRow.idx, byRow.keys, ny)
	bufs.rowX = growRaw(bufs.rowX, n)
	for t, i := range byRow.idx {
		bufs.rowX[t] = int32(px[i])
	}
	for yi := range ny {
		fillPrefix(bufs.rowPre[yi*(W+1):(yi+1)*(W+1)], bufs.rowX[byRow.start[yi]:byRow.start[yi+1]])
	}
	bufs.byA.byDiagonal(px, py, W+H-1)
}
