package ptas

import (
	"context"
	"slices"

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
	b := geom.BoundingBox(pr.pts)
	w, h := float64(b.Max[0]-b.Min[0])+1, float64(b.Max[1]-b.Min[1])+1
	return w <= maxGridCells && h <= maxGridCells && w*h <= maxGridCells
}

// mmGrid is MM with TiesByIndex for integer points in the plane, with a cost per
// center that depends on the radius of the k nearest, not on k. For a center c let
// thr be the k-th smallest distance: the candidate is every point at distance < thr
// plus the lowest-index points at distance exactly thr. Per column (distinct x) and
// per row (distinct y) the points are counted by prefix sums over the other
// coordinate, so the number of points within distance r, and the candidate's x and y
// marginals (points per column and per row), cost O(1) per column and row within r
// of c; the points at distance thr are read from per-cell lists. The total pairwise
// L1 distance is the sum of the 1D totals of the two marginals. thr changes by at
// most the step between consecutive centers, so it is found by a short walk.
// Centers are visited in lexicographic order and the first strictly smallest total
// wins: the same subset and center as mmSweep.
func mmGrid[T geom.Number](ctx context.Context, pr *problem[T]) (best []int, bestCenter []T, err error) {
	n, k := pr.n, pr.k
	pts := pr.pts
	b := geom.BoundingBox(pts)
	x0, y0 := int(b.Min[0]), int(b.Min[1])
	W, H := int(b.Max[0])-x0+1, int(b.Max[1])-y0+1
	px, py := make([]int, n), make([]int, n)
	colOf, rowOf := make([]int32, W), make([]int32, H) // offset -> column/row index, -1 if none
	for i := range colOf {
		colOf[i] = -1
	}
	for i := range rowOf {
		rowOf[i] = -1
	}
	for i, p := range pts {
		px[i], py[i] = int(p[0])-x0, int(p[1])-y0
		colOf[px[i]], rowOf[py[i]] = 0, 0
	}
	var xs, ys []int // distinct offsets, ascending
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
	nx, ny := len(xs), len(ys)
	// colPre[xi*(H+1)+t]: points in column xi with y offset < t; rowPre likewise.
	colPre := make([]int32, nx*(H+1))
	rowPre := make([]int32, ny*(W+1))
	// cell lists: points of cell (xi, y) at cellPts[cellStart[xi*H+y]:cellStart[xi*H+y+1]],
	// ascending by index.
	cellStart := make([]int32, nx*H+1)
	for i := range pts {
		xi, yi := int(colOf[px[i]]), int(rowOf[py[i]])
		colPre[xi*(H+1)+py[i]+1]++
		rowPre[yi*(W+1)+px[i]+1]++
		cellStart[xi*H+py[i]+1]++
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
	for c := 1; c < len(cellStart); c++ {
		cellStart[c] += cellStart[c-1]
	}
	cellPts := make([]int32, n)
	fill := slices.Clone(cellStart[:len(cellStart)-1])
	for i := range pts {
		c := int(colOf[px[i]])*H + py[i]
		cellPts[fill[c]] = int32(i)
		fill[c]++
	}

	// count returns the number of points within distance r >= 0 of (xs[cxi], cy).
	count := func(cxi, cy, r int) int {
		cx := xs[cxi]
		s := int32(0)
		for xi := cxi; xi >= 0; xi-- {
			rem := r - (cx - xs[xi])
			if rem < 0 {
				break
			}
			p := colPre[xi*(H+1) : (xi+1)*(H+1)]
			s += p[min(cy+rem, H-1)+1] - p[max(cy-rem, 0)]
		}
		for xi := cxi + 1; xi < nx; xi++ {
			rem := r - (xs[xi] - cx)
			if rem < 0 {
				break
			}
			p := colPre[xi*(H+1) : (xi+1)*(H+1)]
			s += p[min(cy+rem, H-1)+1] - p[max(cy-rem, 0)]
		}
		return int(s)
	}
	// atLeastK reports count(r) >= k, treating r < 0 as no points.
	atLeastK := func(cxi, cy, r int) bool { return r >= 0 && count(cxi, cy, r) >= k }

	cntX, cntY := make([]int, nx), make([]int, ny)
	ring := make([]int32, 0, n)
	bestX, bestY := -1, -1
	var bestTot int64
	thrCol := 0 // thr of the previous column's first center
	for cxi, cx := range xs {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		thr := thrCol
		for cyi, cy := range ys {
			// thr: the smallest r with count(r) >= k.
			if atLeastK(cxi, cy, thr) {
				for atLeastK(cxi, cy, thr-1) {
					thr--
				}
			} else {
				for thr++; !atLeastK(cxi, cy, thr); thr++ {
				}
			}
			if cyi == 0 {
				thrCol = thr
			}
			// Marginals of the points at distance < thr, columns and rows within
			// thr of the center.
			xlo, xhi := cxi, cxi
			for xlo > 0 && cx-xs[xlo-1] <= thr {
				xlo--
			}
			for xhi < nx-1 && xs[xhi+1]-cx <= thr {
				xhi++
			}
			ylo, yhi := cyi, cyi
			for ylo > 0 && cy-ys[ylo-1] <= thr {
				ylo--
			}
			for yhi < ny-1 && ys[yhi+1]-cy <= thr {
				yhi++
			}
			r := thr - 1
			below := 0
			for xi := xlo; xi <= xhi; xi++ {
				rem := r - absInt(xs[xi]-cx)
				m := 0
				if rem >= 0 {
					p := colPre[xi*(H+1) : (xi+1)*(H+1)]
					m = int(p[min(cy+rem, H-1)+1] - p[max(cy-rem, 0)])
				}
				cntX[xi] = m
				below += m
			}
			for yi := ylo; yi <= yhi; yi++ {
				rem := r - absInt(ys[yi]-cy)
				m := 0
				if rem >= 0 {
					p := rowPre[yi*(W+1) : (yi+1)*(W+1)]
					m = int(p[min(cx+rem, W-1)+1] - p[max(cx-rem, 0)])
				}
				cntY[yi] = m
			}
			// The k - below lowest-index points at distance exactly thr.
			ring = ring[:0]
			for xi := xlo; xi <= xhi; xi++ {
				rem := thr - absInt(xs[xi]-cx)
				if rem < 0 {
					continue
				}
				if y := cy - rem; y >= 0 {
					c := xi*H + y
					ring = append(ring, cellPts[cellStart[c]:cellStart[c+1]]...)
				}
				if y := cy + rem; rem > 0 && y < H {
					c := xi*H + y
					ring = append(ring, cellPts[cellStart[c]:cellStart[c+1]]...)
				}
			}
			take := k - below
			if take < len(ring) && !slices.IsSorted(ring) {
				slices.Sort(ring)
			}
			for _, p := range ring[:take] {
				cntX[colOf[px[p]]]++
				cntY[rowOf[py[p]]]++
			}
			tot := pairwiseCounts(cntX[xlo:xhi+1], xs[xlo:xhi+1], k) + pairwiseCounts(cntY[ylo:yhi+1], ys[ylo:yhi+1], k)
			if bestX < 0 || tot < bestTot {
				bestX, bestY, bestTot = cxi, cyi, tot
			}
		}
	}
	// The winning center's subset, directly: the k smallest by (distance, index).
	cx, cy := xs[bestX], ys[bestY]
	dist := make([]int, n)
	maxd := 0
	for i := range pts {
		dist[i] = absInt(px[i]-cx) + absInt(py[i]-cy)
		maxd = max(maxd, dist[i])
	}
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
	best = make([]int, 0, k)
	for i, v := range dist {
		if v < thr || v == thr && atThr > 0 {
			if v == thr {
				atThr--
			}
			best = append(best, i)
		}
	}
	bestCenter = []T{T(cx + x0), T(cy + y0)}
	return best, bestCenter, nil
}

// pairwiseCounts is the total pairwise distance of a multiset of k values given as
// counts cnt[i] of the ascending values vals[i]: the value at sorted position q
// contributes v (2q - k + 1).
func pairwiseCounts(cnt, vals []int, k int) int64 {
	var tot int64
	q := 0
	for i, m := range cnt {
		if m == 0 {
			continue
		}
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
