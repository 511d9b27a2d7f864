package exact

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/procalloc/procalloc/geom"
	"github.com/procalloc/procalloc/voronoi"
)

// SetResult is a chosen subset with its exact integer total.
type SetResult struct {
	// Indices are positions in the input, ascending.
	Indices []int
	// Total is the total pairwise L1 distance of the chosen points.
	Total int64
	// Center2 is the doubled witness center whose k nearest points (tie rule of package
	// voronoi) are the chosen set.
	Center2 [2]int64
}

// Triple returns three points of a planar integer point set with minimum total
// pairwise L1 distance (Bender et al. 2005, §2.3, Theorem 3).
//
// Why it is exact: for a triple S the total is twice the half-perimeter of its bounding
// box, 2((x2-x0)+(y2-y0)), and the half-perimeter is the length of S's smallest
// Steiner star, centered at the coordinate-wise median c. If some point t outside S
// were strictly closer to c than the farthest member s of S, then S - s + t would have
// a star at c strictly shorter, hence a smaller total. So an optimal S is a 3-nearest
// set of c under the tie rule of package voronoi, and Triple scans every family that
// voronoi.Walk reports for k = 3, taking the best completion of each (points that
// share coordinates are interchangeable, so at most three copies of a position are
// tried). Ties: the smallest total, then the lexicographically smallest index triple.
//
// Time: that of voronoi.Walk for k = 3 — O(n log n) on inputs of bounded local
// density (see Walk for the adversarial worst case) — plus O(1) per family.
//
// The reported witness is the triple's coordinate-wise median (doubled), the center
// of its smallest Steiner star, which the argument above shows is a valid witness.
//
// It honours ctx as PlaneMM does: stopped, it returns the best triple found so far,
// not proven optimal, and an error wrapping ctx's cause.
func Triple(ctx context.Context, pts []geom.Point) (SetResult, error) {
	r, err := planeMM(ctx, pts, 3)
	if err != nil {
		return r, err
	}
	for j := 0; j < 2; j++ {
		c := []int{pts[r.Indices[0]][j], pts[r.Indices[1]][j], pts[r.Indices[2]][j]}
		slices.Sort(c)
		r.Center2[j] = 2 * int64(c[1])
	}
	return r, nil
}

// PlaneMM is "MM over the whole plane": the best k-nearest set over every center of
// the plane (not only the O(n^2) grid intersections MM tries), scanning every family
// of voronoi.Walk and completing each optimally. It is never worse than MM with any
// tie-breaking (MM's set is a k-nearest set of its center) and equals the optimum for
// k <= 3. Families with many tied boundary points are completed by exhaustive search
// over distinct positions, so heavy ties cost time, not correctness.
//
// It honours ctx: when ctx ends, it returns within 64 points of the walk
// (voronoi.WalkBounded) or 1,024 candidate sets, with the best set found so far (a k-nearest set, not proven the best over the plane) and an
// error wrapping context.Cause(ctx); an empty result when none was found yet.
func PlaneMM(ctx context.Context, pts []geom.Point, k int) (SetResult, error) {
	return planeMM(ctx, pts, k)
}

// planeMM is PlaneMM; Triple calls it with k = 3.
func planeMM(ctx context.Context, pts []geom.Point, k int) (SetResult, error) {
	if err := voronoi.CheckInput(pts, k); err != nil {
		return SetResult{}, fmt.Errorf("exact: %w", err)
	}
	best := SetResult{Total: -1}
	var cur []int
	var scratch []geom.Point
	cost := func(idx []int) int64 {
		if k == 3 {
			a, b, c := pts[idx[0]], pts[idx[1]], pts[idx[2]]
			w := max(a[0], b[0], c[0]) - min(a[0], b[0], c[0])
			h := max(a[1], b[1], c[1]) - min(a[1], b[1], c[1])
			return 2 * int64(w+h)
		}
		scratch = scratch[:0]
		for _, i := range idx {
			scratch = append(scratch, pts[i])
		}
		return int64(geom.PairwiseL1(scratch))
	}
	consider := func(idx []int, c2 [2]int64) {
		v := cost(idx)
		if best.Total >= 0 && v > best.Total {
			return
		}
		sorted := slices.Clone(idx)
		slices.Sort(sorted)
		if best.Total < 0 || v < best.Total || slices.Compare(sorted, best.Indices) < 0 {
			best = SetResult{Indices: sorted, Total: v, Center2: c2}
		}
	}
	// stop reports whether ctx has ended, looking at it once every 1,024 calls (one
	// a family and one a completed candidate set).
	var stopped error
	calls := 0
	stop := func() bool {
		if calls++; stopped == nil && calls%1024 == 0 && ctx.Err() != nil {
			stopped = context.Cause(ctx)
		}
		return stopped != nil
	}
	var cand []int
	// Only k-sets with total <= incumbent matter, and their diameter is at most
	// total/(k-1); with no incumbent yet, no bound.
	maxDiam := func() int64 {
		if best.Total < 0 || k < 2 {
			return math.MaxInt64
		}
		return best.Total / int64(k-1)
	}
	err := voronoi.WalkBounded(ctx, pts, k, maxDiam, func(f *voronoi.Family) bool {
		if stop() {
			return false
		}
		need := f.Need(k)
		cur = append(cur[:0], f.Inner...)
		if need == 0 {
			consider(cur, f.Center2)
			return true
		}
		// Keep at most `need` boundary points per position (copies are interchangeable).
		cand = cand[:0]
		for _, b := range f.Boundary {
			copies := 0
			for _, c := range cand {
				if pts[c][0] == pts[b][0] && pts[c][1] == pts[b][1] {
					copies++
				}
			}
			if copies < need {
				cand = append(cand, b)
			}
		}
		var rec func(start int)
		rec = func(start int) {
			if len(cur) == k {
				if !stop() {
					consider(cur, f.Center2)
				}
				return
			}
			if stopped != nil {
				return
			}
			for i := start; i <= len(cand)-(k-len(cur)); i++ {
				cur = append(cur, cand[i])
				rec(i + 1)
				cur = cur[:len(cur)-1]
			}
		}
		rec(0)
		return true
	})
	if err != nil && ctx.Err() != nil {
		stopped = context.Cause(ctx) // the walk stopped between two families
	} else if err != nil {
		return SetResult{}, fmt.Errorf("exact: %w", err)
	}
	if stopped != nil {
		if best.Total < 0 {
			best = SetResult{}
		}
		return best, fmt.Errorf("exact: PlaneMM stopped before scanning every center: %w", stopped)
	}
	return best, nil
}
