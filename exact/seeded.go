package exact

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/procalloc/procalloc/geom"
	"github.com/procalloc/procalloc/ptas"
)

// SubsetSeeded is Subset as procalloc runs it everywhere (the subset command, the
// replay baseline, the opt allocator): the incumbent is MM+Inc (package ptas, a
// 7/4-approximation in 2D), or opt's Incumbent when that is better (ties: MM+Inc), and
// when the points are distinct points of Z^2 or Z^3 the unconstrained lattice optimum
// (LatticeBound) bounds the part still to choose. Neither changes the answer of a
// finished search, only how soon it finishes. opt's SizeBound, when set, is kept.
func SubsetSeeded(ctx context.Context, pts []geom.PointF, k int, opt SubsetOptions) (SubsetResult, error) {
	mm, err := ptas.MMIncContext(ctx, pts, k, ptas.Options{})
	switch {
	case err == nil:
		if opt.Incumbent == nil || geom.PairwiseL1Subset(pts, mm.Indices) <= geom.PairwiseL1Subset(pts, opt.Incumbent) {
			opt.Incumbent = mm.Indices
		}
	case ctx.Err() == nil:
		return SubsetResult{}, fmt.Errorf("incumbent: %w", err)
	}
	if opt.SizeBound == nil {
		if d, ok := distinctLattice(pts); ok {
			opt.SizeBound = func(m int) float64 { return LatticeBound(d, m) }
		}
	}
	return Subset(ctx, pts, k, opt)
}

// distinctLattice reports the dimension of pts when it is 2 or 3 and the points are
// pairwise distinct with integral coordinates (exactly representable, |x| <= 2^53).
func distinctLattice(pts []geom.PointF) (int, bool) {
	if len(pts) == 0 {
		return 0, false
	}
	d := len(pts[0])
	if d != 2 && d != 3 {
		return 0, false
	}
	keys := make([][3]float64, len(pts))
	for i, p := range pts {
		if len(p) != d {
			return 0, false
		}
		for j, x := range p {
			if x != math.Trunc(x) || math.Abs(x) > 1<<53 {
				return 0, false
			}
			keys[i][j] = x
		}
	}
	slices.SortFunc(keys, func(a, b [3]float64) int {
		for j := range a {
			if a[j] != b[j] {
				if a[j] < b[j] {
					return -1
				}
				return 1
			}
		}
		return 0
	})
	for i := 1; i < len(keys); i++ {
		if keys[i] == keys[i-1] {
			return 0, false
		}
	}
	return d, true
}
