package ptas

// The plane's tables built from points in ascending (x, y) order (issue 32 item 1,
// eighth round of the plane's scan). The allocators' free lists come in that
// order, so each line's points come sorted and a table's prefix counts can be
// written in one pass, line by line, instead of clearing the table, scattering the
// points into it and summing it in place: at 65,536 mesh nodes the free set of
// issue 32's workload is about 7,000 points in a 256x256 box, and the tables
// (rotBalls' 512x512, the columns' and rows' prefix counts, compBound's 512x512
// weights) are per decision what Gen-Alg's scan of those 7,000 centers is not.

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
