package ptas

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"

	"github.com/procalloc/procalloc/geom"
	"github.com/procalloc/procalloc/internal/oracle"
)

// Straightforward oracles written from the definitions, for cross-checks.

// bruteOpt returns the minimum total pairwise L1 over all k-subsets.
func bruteOpt[T geom.Number](pts [][]T, k int) float64 {
	n := len(pts)
	best := math.Inf(1)
	idx := make([]int, k)
	var rec func(pos, from int)
	rec = func(pos, from int) {
		if pos == k {
			best = min(best, float64(geom.PairwiseL1Subset(pts, idx)))
			return
		}
		for i := from; i <= n-(k-pos); i++ {
			idx[pos] = i
			rec(pos+1, i+1)
		}
	}
	rec(0, 0)
	return best
}

func distOf[T geom.Number](m metric, a, b []T) T {
	if m == metricL1 {
		return geom.L1(a, b)
	}
	return geom.LInf(a, b)
}

// refSearch is the center-based search by its definition: for each center in order,
// rank all points (PReMAS: one working array, sort.SliceStable, never reset; by index:
// a fresh array in index order, stable-sorted), take the first k, score brute force,
// keep the first strictly best.
func refSearch[T geom.Number](pts [][]T, k int, centers [][]T, m metric, s scoreKind, ties Ties) []int {
	n := len(pts)
	work := make([]int, n)
	for i := range work {
		work[i] = i
	}
	var best []int
	bestScore := math.Inf(1)
	for _, c := range centers {
		if ties == TiesByIndex {
			for i := range work {
				work[i] = i
			}
		}
		sort.SliceStable(work, func(a, b int) bool { return distOf(m, pts[work[a]], c) < distOf(m, pts[work[b]], c) })
		cand := slices.Clone(work[:k])
		var score float64
		if s == scorePairwise {
			score = float64(oracle.PairwiseL1Brute(subset(pts, cand)))
		} else {
			for _, i := range cand {
				score += float64(distOf(m, pts[i], c))
			}
		}
		if score < bestScore {
			bestScore, best = score, cand
		}
	}
	if ties == TiesByIndex {
		slices.Sort(best)
	}
	return best
}

func subset[T geom.Number](pts [][]T, idx []int) [][]T {
	out := make([][]T, len(idx))
	for i, j := range idx {
		out[i] = pts[j]
	}
	return out
}

// refMMCenters lists MM's centers: distinct values per dimension (ascending, or in
// order of first appearance for PReMAS), all combinations, first dimension outermost.
func refMMCenters[T geom.Number](pts [][]T, ties Ties) [][]T {
	d := len(pts[0])
	vals := make([][]T, d)
	for j := 0; j < d; j++ {
		for _, p := range pts {
			if !slices.Contains(vals[j], p[j]) {
				vals[j] = append(vals[j], p[j])
			}
		}
		if ties == TiesByIndex {
			slices.Sort(vals[j])
		}
	}
	centers := [][]T{{}}
	for j := 0; j < d; j++ {
		var next [][]T
		for _, c := range centers {
			for _, v := range vals[j] {
				next = append(next, append(slices.Clone(c), v))
			}
		}
		centers = next
	}
	return centers
}

// randomInts draws n points in d dimensions with coordinates in [0, span): small spans
// give duplicates, shared coordinates and collinear points.
func randomInts(r *rand.Rand, n, d, span int) [][]int {
	pts := make([][]int, n)
	for i := range pts {
		pts[i] = make([]int, d)
		for j := range pts[i] {
			pts[i][j] = r.IntN(span)
		}
	}
	// Sometimes put every point on one line.
	if r.IntN(8) == 0 && d > 1 {
		for _, p := range pts {
			p[1] = p[0]
		}
	}
	return pts
}

func randomFloats(r *rand.Rand, n, d int) [][]float64 {
	pts := make([][]float64, n)
	for i := range pts {
		pts[i] = make([]float64, d)
		for j := range pts[i] {
			pts[i][j] = r.Float64()*10 - 5
		}
	}
	return pts
}
