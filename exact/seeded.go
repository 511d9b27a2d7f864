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
// finished search, only how soon it finishes. opt's SizeBound, when set, is kept. When
// k > n/2 it searches the n-k points left out instead (SubsetOptions.Linear), a
// shallower tree.
//
// pts are as for Subset: integer or float coordinates, integer input refused when its
// sums (those of the left-out search too) could leave float64's exact integers.
//
// With opt.Periods (a torus) MM+Inc, which measures plain L1, is not run: the
// incumbent is opt's and Subset's own greedy one, and no lattice bound is added.
func SubsetSeeded[P ~[]T, T geom.Number](ctx context.Context, pts []P, k int, opt SubsetOptions) (SubsetResult, error) {
	// Every path ends in Subset on all n points, which refuses more than
	// MaxSubsetPoints: refuse before MM+Inc runs on them (minutes for k = 5,000
	// of 150,000 free nodes of mesh:448x448, then this error).
	if err := checkSubsetSize(len(pts)); err != nil {
		return SubsetResult{}, err
	}
	fp, isInt, err := floatPoints(pts)
	if err != nil {
		return SubsetResult{}, err
	}
	if isInt {
		// The search for the points left out adds linear terms of up to n D.
		lin := maxAbs(opt.Linear)
		if 2*k > len(pts) && opt.Linear == nil {
			lin = float64(len(pts)) * geom.BoundingBox(fp).SumOfSides()
		}
		if err := checkExactRange(fp, lin); err != nil {
			return SubsetResult{}, err
		}
	}
	return subsetSeeded(ctx, fp, k, opt)
}

// subsetSeeded is SubsetSeeded on points floatPoints has checked.
func subsetSeeded(ctx context.Context, pts []geom.PointF, k int, opt SubsetOptions) (SubsetResult, error) {
	if opt.Periods == nil {
		mm, err := ptas.MMIncContext(ctx, pts, k, ptas.Options{})
		switch {
		case err == nil:
			if opt.Incumbent == nil || geom.PairwiseL1Subset(pts, mm.Indices) <= geom.PairwiseL1Subset(pts, opt.Incumbent) {
				opt.Incumbent = mm.Indices
			}
		case ctx.Err() == nil:
			return SubsetResult{}, fmt.Errorf("incumbent: %w", err)
		}
	}
	if opt.SizeBound == nil && opt.Periods == nil {
		if d, ok := distinctLattice(pts); ok {
			opt.SizeBound = func(m int) float64 { return LatticeBound(d, m) }
		}
	}
	n := len(pts)
	if 2*k <= n || k == n || opt.Linear != nil || opt.Forced != nil || opt.Allowed != nil || opt.Incumbent == nil {
		return subset(ctx, pts, k, opt)
	}
	// More than half: choose the n-k points left out, T, minimising
	// W(T) - Σ_{t∈T} D(t) (SubsetOptions.Linear); the size bound still bounds W(T).
	lin := make([]float64, n)
	all := 0.0
	for i := range n {
		if i%setupCheckRows == 0 && ctx.Err() != nil {
			// Ended before the linear terms are whole: Subset, on the k points
			// themselves, ends at once with opt's incumbent (setupCut).
			return subset(ctx, pts, k, opt)
		}
		for j := range n {
			lin[i] -= periodicL1(pts[i], pts[j], opt.Periods)
		}
		all -= lin[i]
	}
	all /= 2 // W(P)
	in := make([]bool, n)
	for _, i := range opt.Incumbent {
		if i >= 0 && i < n {
			in[i] = true
		}
	}
	comp := func(in []bool) []int {
		var out []int
		for i := range n {
			if !in[i] {
				out = append(out, i)
			}
		}
		return out
	}
	copt := opt
	copt.Linear = lin
	copt.Incumbent = comp(in)
	res, err := subset(ctx, pts, n-k, copt)
	if err != nil {
		return SubsetResult{}, err
	}
	clear(in)
	for _, i := range res.Indices {
		in[i] = true
	}
	out := SubsetResult{Indices: comp(in), Total: all + res.Total, Optimal: res.Optimal,
		Bound: all + res.Bound, Nodes: res.Nodes}
	if out.Optimal {
		out.Bound = out.Total
	}
	if out.Total > 0 {
		out.Gap = (out.Total - out.Bound) / out.Total
	}
	return out, nil
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
