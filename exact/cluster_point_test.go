package exact

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/procalloc/procalloc/geom"
)

// pointCluster is the former point-set search, kept as an independent check for
// small k: Subset over lattice points near the origin, with the origin forced as the
// lexicographically smallest point (every set can be translated so), every other
// candidate lexicographically larger and within L1 distance total/(k-1) of the origin
// (a k-set's diameter is at most its total over k-1, and the incumbent bounds the
// total), and the optima of smaller sizes f as SizeBound.
func pointCluster(ctx context.Context, dim, k int, f []float64) (ClusterResult, error) {
	if k == 1 {
		return ClusterResult{K: 1, Dim: dim, Points: []geom.Point{make(geom.Point, dim)}, Optimal: true}, nil
	}
	// Incumbent: the k lattice points nearest (L1, then L2, then lexicographic) to the
	// best of a few centers; its total bounds the diameter of any better cluster.
	inc := math.Inf(1)
	var incPts []geom.Point
	r := int(math.Ceil(math.Pow(float64(k), 1/float64(dim)))) + 2
	box := latticeBox(dim, r)
	for _, c := range [][]float64{{0, 0, 0}, {0.5, 0, 0}, {0.5, 0.5, 0}, {0.5, 0.5, 0.5}, {0.25, 0.25, 0}, {0.5, 0.25, 0}} {
		c = c[:dim]
		pts := slices.Clone(box)
		key := func(p geom.Point) (float64, float64) {
			l1, l2 := 0.0, 0.0
			for j, v := range p {
				d := float64(v) - c[j]
				l1 += math.Abs(d)
				l2 += d * d
			}
			return l1, l2
		}
		slices.SortStableFunc(pts, func(a, b geom.Point) int {
			a1, a2 := key(a)
			b1, b2 := key(b)
			if a1 != b1 {
				return cmp.Compare(a1, b1)
			}
			if a2 != b2 {
				return cmp.Compare(a2, b2)
			}
			return geom.Compare(a, b)
		})
		if t := float64(geom.PairwiseL1(pts[:k])); t < inc {
			inc, incPts = t, slices.Clone(pts[:k])
		}
	}
	// Translate the incumbent so its lexicographically smallest point is the origin.
	slices.SortFunc(incPts, func(a, b geom.Point) int { return geom.Compare(a, b) })
	o := slices.Clone(incPts[0])
	for i := range incPts {
		p := slices.Clone(incPts[i])
		for j := range p {
			p[j] -= o[j]
		}
		incPts[i] = p
	}
	D := int(inc) / (k - 1)
	cands := []geom.Point{make(geom.Point, dim)}
	for _, p := range latticeBox(dim, D) {
		l1 := 0
		for _, v := range p {
			l1 += max(v, -v)
		}
		if l1 <= D && geom.Compare(p, cands[0]) > 0 {
			cands = append(cands, p)
		}
	}
	index := map[string]int{}
	pf := make([]geom.PointF, len(cands))
	for i, p := range cands {
		index[fmt.Sprint(p)] = i
		pf[i] = make(geom.PointF, dim)
		for j, v := range p {
			pf[i][j] = float64(v)
		}
	}
	incIdx := make([]int, k)
	for i, p := range incPts {
		j, ok := index[fmt.Sprint(p)]
		if !ok {
			return ClusterResult{}, fmt.Errorf("exact: internal error: incumbent point %v outside the candidate region", p)
		}
		incIdx[i] = j
	}
	size := func(m int) float64 {
		if m < len(f) {
			return f[m]
		}
		return 0
	}
	res, err := Subset(ctx, pf, k, SubsetOptions{Incumbent: incIdx, Forced: []int{0}, SizeBound: size})
	if err != nil {
		return ClusterResult{}, err
	}
	out := ClusterResult{K: k, Dim: dim, Total: int64(res.Total), Optimal: res.Optimal, Bound: int64(math.Ceil(res.Bound - 1e-9))}
	for _, i := range res.Indices {
		out.Points = append(out.Points, cands[i])
	}
	slices.SortFunc(out.Points, func(a, b geom.Point) int { return geom.Compare(a, b) })
	return out, nil
}
