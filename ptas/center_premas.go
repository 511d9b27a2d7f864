package ptas

import "github.com/procalloc/procalloc/geom"

// premasGrid is the searcher's fast path for TiesPReMAS on small integer
// coordinates (the free nodes of a mesh, which every trace replay under
// --compat premas allocates from): the same working-array rules as the generic path
// (stable sort by distance from each center in turn, never reset; the first k are
// the candidate; the first strictly best score wins), on int32 columns with the
// distance histogram counted while the distances are computed, and the pairwise
// score from per-dimension coordinate histograms. It exists for speed only:
// TestPReMASMatchesReference and TestPReMASGridMatchesGeneric check it against the
// literal reference and the generic path.
type premasGrid struct {
	d, k  int
	col   [][]int32 // col[j][i]: coordinate j of point i, minus the smallest
	span  []int     // per dimension: largest coordinate - smallest + 1
	maxd  int       // largest possible distance
	dist  []int32
	work  []int32
	tmp   []int32
	cnt   []int32
	hist  []int32
	shift []int32 // smallest coordinate per dimension
	cen   []int32
}

// maxPremasGridSpan bounds the coordinate range of the fast path (its histograms have
// one entry per value).
const maxPremasGridSpan = 1 << 12

// newPremasGridIn returns the fast path for pr built into g, reusing its buffers, or
// nil when a coordinate is not an integer or the range is too wide.
func newPremasGridIn[T geom.Number](g *premasGrid, pr *problem[T], m metric) *premasGrid {
	if !allIntegral(pr.pts) {
		return nil
	}
	b := geom.BoundingBox(pr.pts)
	g.d, g.k, g.maxd = pr.d, pr.k, 0
	g.span, g.shift, g.cen = grow(g.span, pr.d), grow(g.shift, pr.d), grow(g.cen, pr.d)
	if cap(g.col) < pr.d {
		g.col = append(g.col[:cap(g.col)], make([][]int32, pr.d-cap(g.col))...)
	}
	g.col = g.col[:pr.d]
	maxSpan := 0
	for j := range pr.d {
		w := float64(b.Max[j]) - float64(b.Min[j])
		if w >= maxPremasGridSpan {
			return nil
		}
		g.span[j] = int(w) + 1
		g.shift[j] = int32(b.Min[j])
		maxSpan = max(maxSpan, g.span[j])
		if m == metricL1 {
			g.maxd += int(w)
		} else {
			g.maxd = max(g.maxd, int(w))
		}
		g.col[j] = grow(g.col[j], pr.n)
		for i, p := range pr.pts {
			g.col[j][i] = int32(p[j]) - g.shift[j]
		}
	}
	g.dist = grow(g.dist, pr.n)
	g.work = grow(g.work, pr.n)
	g.tmp = grow(g.tmp, pr.n)
	for i := range g.work {
		g.work[i] = int32(i)
	}
	g.cnt = grow(g.cnt, g.maxd+1)
	g.hist = grow(g.hist, maxSpan)
	return g
}

// holds converts center c into c32 and reports whether it lies in the points'
// bounding box (MM's and the point-centered searches' centers always do), so that
// distances stay within the histogram.
func holds[T geom.Number](g *premasGrid, c []T, c32 []int32) bool {
	for j, v := range c {
		w := int64(v) - int64(g.shift[j])
		if w < 0 || w >= int64(g.span[j]) || T(int64(v)) != v {
			return false
		}
		c32[j] = int32(v)
	}
	return true
}

// order computes every point's distance from center c (coordinates as given to the
// searcher) and stable-sorts the working array by it.
func (g *premasGrid) order(c []int32, m metric) {
	for j := range g.d {
		g.cen[j] = c[j] - g.shift[j]
	}
	cnt := g.cnt
	clear(cnt)
	dist := g.dist
	switch {
	case g.d == 2 && m == metricL1:
		xs := g.col[0]
		ys := g.col[1][:len(xs)]
		c0, c1 := g.cen[0], g.cen[1]
		dist = dist[:len(xs)]
		for i, x := range xs {
			s := abs32(x-c0) + abs32(ys[i]-c1)
			dist[i] = s
			cnt[s]++
		}
	case g.d == 2:
		xs := g.col[0]
		ys := g.col[1][:len(xs)]
		c0, c1 := g.cen[0], g.cen[1]
		dist = dist[:len(xs)]
		for i, x := range xs {
			s := max(abs32(x-c0), abs32(ys[i]-c1))
			dist[i] = s
			cnt[s]++
		}
	default:
		clear(dist)
		for j, cj := range g.cen {
			xs := g.col[j][:len(dist)]
			if m == metricL1 {
				for i, x := range xs {
					dist[i] += abs32(x - cj)
				}
			} else {
				for i, x := range xs {
					dist[i] = max(dist[i], abs32(x-cj))
				}
			}
		}
		for _, s := range dist {
			cnt[s]++
		}
	}
	var pos int32
	for v, m := range cnt {
		cnt[v] = pos
		pos += m
	}
	tmp := g.tmp[:len(g.work)]
	for _, i := range g.work {
		v := dist[i]
		tmp[cnt[v]] = i
		cnt[v]++
	}
	g.work, g.tmp = tmp, g.work
}

func abs32(x int32) int32 {
	if x < 0 {
		return -x
	}
	return x
}

// pairwise is the total pairwise L1 distance of the first k entries of the working
// array: per dimension, a value v with multiplicity m at sorted positions [p, p+m)
// contributes v*m*(2p+m-k).
func (g *premasGrid) pairwise() int64 {
	sel := g.work[:g.k]
	k := int64(g.k)
	var tot int64
	for j := range g.d {
		h := g.hist[:g.span[j]]
		col := g.col[j]
		for _, i := range sel {
			h[col[i]]++
		}
		var p int64
		for v, m := range h {
			if m == 0 {
				continue
			}
			h[v] = 0
			m := int64(m)
			tot += int64(v) * m * (2*p + m - k)
			p += m
		}
	}
	return tot
}

// star is the sum of the first k distances.
func (g *premasGrid) star() int64 {
	var s int64
	for _, i := range g.work[:g.k] {
		s += int64(g.dist[i])
	}
	return s
}
