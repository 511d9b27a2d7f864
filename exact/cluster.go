package exact

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/procalloc/procalloc/geom"
)

// ClusterResult is an optimal unconstrained cluster: k points of Z^d with minimum
// total pairwise L1 distance.
type ClusterResult struct {
	K       int
	Dim     int
	Total   int64
	Points  []geom.Point // lexicographically sorted, the smallest at the origin
	Optimal bool
	Bound   int64 // proven lower bound (== Total when Optimal)
}

// Clusters computes the optimal unconstrained clusters of Z^dim for sizes 1..kmax
// (Bender et al. 2005, §1, Fig. 2 shows k = 2..21 in the plane), each by Subset over
// lattice points near the origin, with the origin forced as the lexicographically
// smallest point (every set can be translated so), every other candidate
// lexicographically larger and within L1 distance total/(k-1) of the origin (a k-set's
// diameter is at most its total over k-1, and the incumbent bounds the total), and
// the optima of smaller sizes as SizeBound — the unchosen part of a cluster is itself a
// set of distinct lattice points. The sequence stops early when ctx ends; the last
// entry then carries Optimal = false and its proven bound.
func Clusters(ctx context.Context, dim, kmax int) ([]ClusterResult, error) {
	if dim < 1 || dim > 3 {
		return nil, fmt.Errorf("exact: cluster dimension %d: must be 1, 2 or 3", dim)
	}
	if kmax < 1 {
		return nil, fmt.Errorf("exact: cluster size %d must be at least 1", kmax)
	}
	f := []float64{0, 0} // f[m]: optimum for m points
	var out []ClusterResult
	for k := 1; k <= kmax; k++ {
		res, err := cluster(ctx, dim, k, f)
		if err != nil {
			return nil, err
		}
		out = append(out, res)
		if !res.Optimal {
			break
		}
		if k >= 2 {
			f = append(f, float64(res.Total))
		}
	}
	return out, nil
}

// Cluster returns the optimal cluster of size k in Z^dim (computing all smaller ones
// first for the bound).
func Cluster(ctx context.Context, dim, k int) (ClusterResult, error) {
	all, err := Clusters(ctx, dim, k)
	if err != nil {
		return ClusterResult{}, err
	}
	return all[len(all)-1], nil
}

func cluster(ctx context.Context, dim, k int, f []float64) (ClusterResult, error) {
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

// latticeBox lists the points of {-r..r}^dim.
func latticeBox(dim, r int) []geom.Point {
	var out []geom.Point
	p := make(geom.Point, dim)
	var rec func(j int)
	rec = func(j int) {
		if j == dim {
			out = append(out, slices.Clone(p))
			return
		}
		for v := -r; v <= r; v++ {
			p[j] = v
			rec(j + 1)
		}
	}
	rec(0)
	return out
}

// RoundCluster returns k points of Z^dim nearest the origin in Euclidean distance
// (ties by coordinates), a near-optimal cluster: optimal clusters for total pairwise
// L1 distance are close to discs (Bender et al. 2005 §1, Fig. 2). Bound is
// LatticeBound(dim, k); Optimal is true only when the two meet. The cluster command
// reports it for the requested k when --time-limit stops the exact search earlier.
func RoundCluster(dim, k int) (ClusterResult, error) {
	if dim < 1 || dim > 3 || k < 1 {
		return ClusterResult{}, fmt.Errorf("exact: cluster of %d points in dimension %d", k, dim)
	}
	r := 1
	for {
		side := 2*r + 1
		n := side
		for range dim - 1 {
			n *= side
		}
		if n >= 4*k {
			break
		}
		r++
	}
	pts := latticeBox(dim, r)
	norm := func(p geom.Point) int {
		s := 0
		for _, v := range p {
			s += v * v
		}
		return s
	}
	slices.SortFunc(pts, func(a, b geom.Point) int {
		if na, nb := norm(a), norm(b); na != nb {
			return na - nb
		}
		return geom.Compare(a, b)
	})
	pts = slices.Clone(pts[:k])
	total := int64(geom.PairwiseL1(pts))
	// As Clusters reports them: sorted, translated so that the smallest is the origin.
	slices.SortFunc(pts, func(a, b geom.Point) int { return geom.Compare(a, b) })
	o := slices.Clone(pts[0])
	for i, p := range pts {
		q := make(geom.Point, len(p))
		for j := range p {
			q[j] = p[j] - o[j]
		}
		pts[i] = q
	}
	bound := int64(math.Ceil(LatticeBound(dim, k) - 1e-9))
	return ClusterResult{K: k, Dim: dim, Points: pts, Total: total, Bound: bound, Optimal: total == bound}, nil
}
