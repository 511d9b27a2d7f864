package ptas

import (
	"cmp"
	"context"
	"slices"
	"sync"

	"github.com/procalloc/procalloc/geom"
)

// metric is the distance a center ranks points by.
type metric int

const (
	metricL1   metric = iota // MM, Gen-Alg
	metricLInf               // MC1x1 shells
)

// scoreKind is what a candidate is judged by.
type scoreKind int

const (
	scorePairwise scoreKind = iota // total pairwise L1 (MM, Gen-Alg)
	scoreStar                      // sum of metric distances to the center (MC1x1)
)

// maxCountingSpan bounds the value range for which distances are sorted by counting.
const maxCountingSpan = 1 << 16

// searcher runs one center-based search: for each candidate center, rank the points by
// distance, take the first k, score them, keep the first strictly best.
type searcher[T geom.Number] struct {
	pr     *problem[T]
	ties   Ties
	metric metric
	score  scoreKind

	integral bool // every coordinate is an integer: distances are sorted by counting
	flat     []T  // coordinates, point i at [i*d, i*d+d)
	dist     []T  // distance of each point (by input index) from the current center
	work     []int
	tmp      []int
	sel      []int
	cnt      []int
	vals     []T
	sc       *pairScorer[T]
	grid     *premasGrid // TiesPReMAS on small integer coordinates (center_premas.go)
	c32      []int32
	bufs     *searchBufs // where the buffers go back (release)

	floor   float64 // Options.Floor (scorePairwise only; 0: none)
	reached bool    // the best score is at the floor: no later center can win

	found      bool
	bestScore  T
	bestSel    []int
	bestCenter []T
}

func newSearcher[T geom.Number](pr *problem[T], ties Ties, m metric, s scoreKind) *searcher[T] {
	b := searchPool.Get().(*searchBufs)
	sr := &searcher[T]{pr: pr, ties: ties, metric: m, score: s, bufs: b,
		integral: allIntegral(pr.pts),
		dist:     growAny[T](&b.dist, pr.n), work: grow(b.work, pr.n), tmp: grow(b.tmp, pr.n),
		sel: grow(b.sel, pr.k), vals: growAny[T](&b.vals, pr.n), bestSel: grow(b.bestSel, pr.k),
		cnt: b.cnt[:0], sc: newPairScorer(pr.pts, pr.k)}
	for i := range sr.work {
		sr.work[i] = i
	}
	if ties == TiesPReMAS {
		sr.grid = newPremasGridIn(&b.grid, pr, m)
		sr.c32 = grow(b.c32, pr.d)
	}
	sr.flat = growAny[T](&b.flat, pr.n*pr.d)[:0]
	for _, p := range pr.pts {
		sr.flat = append(sr.flat, p...)
	}
	return sr
}

// searchBufs are a searcher's buffers, kept between searches (searchPool): an
// allocator calls MM or Gen-Alg once per decision, and without them each call's
// buffers are garbage that brings the collector round several times a replay.
type searchBufs struct {
	work, tmp, sel, bestSel, cnt []int
	c32                          []int32
	dist, vals, flat             any // *[]T of the last searcher
	grid                         premasGrid
}

var searchPool = sync.Pool{New: func() any { return new(searchBufs) }}

// growAny is grow on a buffer kept as an any holding a *[]T (a fresh one when it
// holds another type).
func growAny[T any](p *any, n int) []T {
	ps, ok := (*p).(*[]T)
	if !ok {
		ps = new([]T)
		*p = ps
	}
	*ps = grow(*ps, n)
	return *ps
}

// keepAny stores s in a buffer growAny made.
func keepAny[T any](p any, s []T) {
	if ps, ok := p.(*[]T); ok {
		*ps = s
	}
}

// release gives the searcher's buffers back to searchPool; the searcher must not
// be used after it.
func (sr *searcher[T]) release() {
	b := sr.bufs
	if b == nil {
		return
	}
	sr.bufs = nil
	b.work, b.tmp, b.sel, b.bestSel, b.cnt, b.c32 = sr.work, sr.tmp, sr.sel, sr.bestSel, sr.cnt, sr.c32
	keepAny(b.dist, sr.dist)
	keepAny(b.vals, sr.vals)
	keepAny(b.flat, sr.flat)
	searchPool.Put(b)
}

func absT[T geom.Number](x T) T {
	if x < 0 {
		return -x
	}
	return x
}

func allIntegral[T geom.Number](pts [][]T) bool {
	for _, p := range pts {
		for _, v := range p {
			if T(int64(v)) != v {
				return false
			}
		}
	}
	return true
}

// try evaluates one center.
func (sr *searcher[T]) try(c []T) {
	pr := sr.pr
	if g := sr.grid; g != nil && holds(g, c, sr.c32) {
		g.order(sr.c32, sr.metric)
		var score T
		if sr.score == scorePairwise {
			score = T(g.pairwise())
		} else {
			score = T(g.star())
		}
		if !sr.found || score < sr.bestScore {
			sr.found = true
			sr.bestScore = score
			for i, v := range g.work[:pr.k] {
				sr.bestSel[i] = int(v)
			}
			sr.bestCenter = append(sr.bestCenter[:0], c...)
			sr.reached = sr.floor > 0 && float64(score) <= sr.floor
		}
		return
	} else if g != nil {
		// A center outside the points' box: continue on the generic path from the
		// working array as the fast path left it.
		for i, v := range g.work {
			sr.work[i] = int(v)
		}
		sr.grid = nil
	}
	maxd := T(0)
	flat, d := sr.flat, pr.d
	switch {
	case d == 2 && sr.metric == metricL1:
		c0, c1 := c[0], c[1]
		for i := range sr.dist {
			s := absT(flat[2*i]-c0) + absT(flat[2*i+1]-c1)
			sr.dist[i] = s
			maxd = max(maxd, s)
		}
	case d == 2:
		c0, c1 := c[0], c[1]
		for i := range sr.dist {
			s := max(absT(flat[2*i]-c0), absT(flat[2*i+1]-c1))
			sr.dist[i] = s
			maxd = max(maxd, s)
		}
	case sr.metric == metricL1:
		for i := range sr.dist {
			var s T
			for j, v := range flat[i*d : i*d+d] {
				s += absT(v - c[j])
			}
			sr.dist[i] = s
			maxd = max(maxd, s)
		}
	default:
		for i := range sr.dist {
			var s T
			for j, v := range flat[i*d : i*d+d] {
				s = max(s, absT(v-c[j]))
			}
			sr.dist[i] = s
			maxd = max(maxd, s)
		}
	}
	counting := sr.integral && float64(maxd) < maxCountingSpan
	if sr.ties == TiesPReMAS {
		sr.stableSortWork(counting, int(maxd))
		copy(sr.sel, sr.work[:pr.k])
	} else {
		sr.selectByIndex(counting, int(maxd))
	}
	var score T
	if sr.score == scorePairwise {
		score = sr.sc.total(sr.sel)
	} else {
		for _, i := range sr.sel {
			score += sr.dist[i]
		}
	}
	if !sr.found || score < sr.bestScore {
		sr.found = true
		sr.bestScore = score
		copy(sr.bestSel, sr.sel)
		sr.bestCenter = append(sr.bestCenter[:0], c...)
		sr.reached = sr.floor > 0 && float64(score) <= sr.floor
	}
}

// stableSortWork stable-sorts the working array by distance, in place (PReMAS).
func (sr *searcher[T]) stableSortWork(counting bool, maxd int) {
	if !counting {
		slices.SortStableFunc(sr.work, func(a, b int) int { return cmp.Compare(sr.dist[a], sr.dist[b]) })
		return
	}
	cnt := sr.counts(maxd + 1)
	for _, i := range sr.work {
		cnt[int(sr.dist[i])]++
	}
	pos := 0
	for v, m := range cnt {
		cnt[v] = pos
		pos += m
	}
	for _, i := range sr.work {
		v := int(sr.dist[i])
		sr.tmp[cnt[v]] = i
		cnt[v]++
	}
	sr.work, sr.tmp = sr.tmp, sr.work
}

func (sr *searcher[T]) counts(size int) []int {
	if cap(sr.cnt) < size {
		sr.cnt = make([]int, size)
	}
	sr.cnt = sr.cnt[:size]
	clear(sr.cnt)
	return sr.cnt
}

// selectByIndex puts into sel the k points smallest by (distance, index), ascending
// by index.
func (sr *searcher[T]) selectByIndex(counting bool, maxd int) {
	k := sr.pr.k
	var thr T
	if counting {
		cnt := sr.counts(maxd + 1)
		for _, v := range sr.dist {
			cnt[int(v)]++
		}
		acc := 0
		for v, m := range cnt {
			acc += m
			if acc >= k {
				thr = T(v)
				break
			}
		}
	} else {
		copy(sr.vals, sr.dist)
		thr = geom.Select(sr.vals, k-1)
	}
	below := 0
	for _, v := range sr.dist {
		if v < thr {
			below++
		}
	}
	atThr := k - below // how many points at distance thr are taken, lowest index first
	sel := sr.sel[:0]
	for i, v := range sr.dist {
		if v < thr {
			sel = append(sel, i)
		} else if v == thr && atThr > 0 {
			sel = append(sel, i)
			atThr--
		}
	}
	sr.sel = sel
}

// result turns the best candidate into a Result and releases the searcher.
func (sr *searcher[T]) result(guarantee float64) Result {
	idx := slices.Clone(sr.bestSel)
	c := make([]float64, len(sr.bestCenter))
	for j, v := range sr.bestCenter {
		c[j] = float64(v)
	}
	res := Result{Indices: idx, Total: float64(sr.sc.total(idx)), Center: c, Guarantee: guarantee}
	sr.release()
	return res
}

// pairScorer computes total pairwise L1 distances of subsets of a fixed point set.
type pairScorer[T geom.Number] struct {
	pts      [][]T
	integral bool
	lo, hi   []T // per-dimension coordinate range
	col      []T
	cnt      []int
}

func newPairScorer[T geom.Number](pts [][]T, k int) *pairScorer[T] {
	d := len(pts[0])
	s := &pairScorer[T]{pts: pts, integral: allIntegral(pts), col: make([]T, 0, k)}
	if s.integral {
		b := geom.BoundingBox(pts)
		s.lo, s.hi = b.Min, b.Max
		span := 0
		for j := 0; j < d; j++ {
			if w := float64(s.hi[j] - s.lo[j]); w >= maxCountingSpan {
				s.integral = false
			} else {
				span = max(span, int(w)+1)
			}
		}
		if s.integral {
			s.cnt = make([]int, span)
		}
	}
	return s
}

// total returns the total pairwise L1 distance of the points idx.
func (s *pairScorer[T]) total(idx []int) T {
	k := len(idx)
	if k < 2 {
		return 0
	}
	var tot T
	for j := range s.pts[0] {
		if s.integral && int(s.hi[j]-s.lo[j]) < 4*k+64 {
			// Counting sort: a value v with multiplicity m at sorted positions
			// [p, p+m) contributes v*m*(2p+m-k).
			lo := s.lo[j]
			cnt := s.cnt[:int(s.hi[j]-lo)+1]
			for _, i := range idx {
				cnt[int(s.pts[i][j]-lo)]++
			}
			p := 0
			for off, m := range cnt {
				if m == 0 {
					continue
				}
				cnt[off] = 0
				tot += (lo + T(off)) * T(m*(2*p+m-k))
				p += m
			}
			continue
		}
		col := s.col[:0]
		for _, i := range idx {
			col = append(col, s.pts[i][j])
		}
		s.col = col
		tot += geom.Pairwise1D(col)
	}
	return tot
}

// mmCenters calls f with every MM candidate center until f returns true: each
// combination of one distinct coordinate value per dimension, the first dimension
// outermost. Values are ascending for TiesByIndex and in order of first appearance
// for TiesPReMAS. f's argument is reused between calls. It stops early when ctx is
// done.
func mmCenters[T geom.Number](ctx context.Context, pr *problem[T], ties Ties, f func(c []T) (stop bool)) error {
	vals := make([][]T, pr.d)
	for j := range vals {
		seen := map[T]bool{}
		for _, p := range pr.pts {
			if !seen[p[j]] {
				seen[p[j]] = true
				vals[j] = append(vals[j], p[j])
			}
		}
		if ties == TiesByIndex {
			slices.Sort(vals[j])
		}
	}
	pos := make([]int, pr.d)
	c := make([]T, pr.d)
	for step := 0; ; step++ {
		if step&1023 == 0 {
			if err := context.Cause(ctx); err != nil {
				return err
			}
		}
		for j := range c {
			c[j] = vals[j][pos[j]]
		}
		if f(c) {
			return nil
		}
		j := pr.d - 1
		for ; j >= 0; j-- {
			pos[j]++
			if pos[j] < len(vals[j]) {
				break
			}
			pos[j] = 0
		}
		if j < 0 {
			return nil
		}
	}
}
