package ptas

import (
	"context"
	"slices"

	"github.com/procalloc/procalloc/geom"
)

// MM is the Manhattan Median algorithm (Bender et al. 2005, §2.1 and §4.1): every
// intersection of axis-parallel hyperplanes through input points is a candidate
// center, each takes its k nearest points in L1, and the candidate with the smallest
// total pairwise L1 distance wins. Ratio 7/4 in the plane, 2 - 1/(2d) in d dimensions
// (both tight), and 2 - 2/k. O(n^d) centers. Ties follow opt.Ties.
func MM[P ~[]T, T geom.Number](pts []P, k int, opt Options) (Result, error) {
	return MMContext(context.Background(), pts, k, opt)
}

// MMContext is MM that stops with ctx's error when ctx ends (checked between rows of
// centers).
func MMContext[P ~[]T, T geom.Number](ctx context.Context, pts []P, k int, opt Options) (Result, error) {
	res, err := mm(ctx, pts, k, opt)
	if opt.Ascending {
		slices.Sort(res.Indices)
	}
	return res, err
}

// mm is MMContext with the indices in the tie rule's order.
func mm[P ~[]T, T geom.Number](ctx context.Context, pts []P, k int, opt Options) (Result, error) {
	pr, err := newProblem(pts, k)
	if err != nil {
		return Result{}, err
	}
	if err := checkOptions(opt); err != nil {
		return Result{}, err
	}
	g := MMGuarantee(pr.d, k)
	if k == pr.n {
		return pr.allPoints(g), nil
	}
	if opt.Ties == TiesByIndex && pr.d == 3 && grid3On {
		idx, c, tot, ok, err := grid3Search(ctx, pr, opt.Floor, false, opt.Memo)
		if err != nil {
			return Result{}, err
		}
		if ok {
			return gridResult(pr, idx, c, g, tot), nil
		}
	}
	var ball *ballSearch
	if opt.Ties == TiesByIndex {
		ball = newBallSearch(pr)
		if ball != nil && !ballAlways && !ball.ballPays() {
			// The row sweep is cheaper here (same answer).
			ball.release()
			ball = nil
		}
	}
	useGrid := opt.Ties == TiesByIndex && ball == nil && mmGridPays(pr)
	if ball != nil || useGrid || opt.Ties == TiesByIndex && distinctCount(pr, 0)*k <= maxSweepEntries {
		var idx []int
		var c []T
		if ball != nil {
			idx, c, err = ballCenters(ctx, pr, ball, true, opt.Floor)
			ball.release()
		} else if useGrid {
			var tot int64
			idx, c, tot, _, err = gridSearchTotal(ctx, pr, opt.Floor, false)
			if err == nil {
				return gridResult(pr, idx, c, g, tot), nil
			}
		} else {
			idx, c, err = mmSweep(ctx, pr)
		}
		if err != nil {
			return Result{}, err
		}
		return centerResult(pr, idx, c, g), nil
	}
	if opt.Ties == TiesPReMAS {
		res, ok, err := searchLattice(ctx, pr, true, TiesPReMAS, opt.Floor, opt.Ascending)
		if err != nil {
			return Result{}, err
		}
		if ok {
			res.Guarantee = g
			return res, nil
		}
	}
	sr := newSearcher(pr, opt.Ties, metricL1, scorePairwise)
	sr.floor = opt.Floor
	if err := mmCenters(ctx, pr, opt.Ties, func(c []T) bool { sr.try(c); return sr.reached }); err != nil {
		return Result{}, err
	}
	return sr.result(g), nil
}

// maxSweepEntries bounds the memory of MM's sweep (k entries per distinct value of the
// first coordinate); beyond it MM scans all points per center instead (same result).
var maxSweepEntries = 1 << 24

func distinctCount[T geom.Number](pr *problem[T], j int) int {
	seen := make(map[T]struct{}, pr.n)
	for _, p := range pr.pts {
		seen[p[j]] = struct{}{}
	}
	return len(seen)
}

// GenAlg is Gen-Alg of Krumke et al. as described by Bender et al. 2005 (§2.1, §2.2):
// like MM but the candidate centers are the input points (in input order). A
// (2 - 2/k)-approximation.
func GenAlg[P ~[]T, T geom.Number](pts []P, k int, opt Options) (Result, error) {
	return GenAlgContext(context.Background(), pts, k, opt)
}

// GenAlgContext is GenAlg that stops with ctx's cause when ctx ends (checked between
// centers): n centers of O(n) each take minutes on 10^5 points.
func GenAlgContext[P ~[]T, T geom.Number](ctx context.Context, pts []P, k int, opt Options) (Result, error) {
	return pointCentered(ctx, pts, k, opt, metricL1, scorePairwise, func(d, k int) float64 { return genAlgGuarantee(k) })
}

// genAlgGrid makes Gen-Alg take the grid's bounded scan (gridSearch) where it
// applies, for k of at least genAlgGridMinK on boxes of at least genAlgGridMinCells
// cells; tests turn it off to reach the lattice path. Elsewhere the lattice path,
// with its cheaper set-up, was faster. Issue 32's workload, CPU per decision,
// lattice against grid: mesh:32x32 29 against 37 µs; 64x64 220 against 204 µs;
// 128x128 1.57 against 1.23 ms; 256x256 12.4 against 8.0 ms. SDSC's first 60 days
// unscaled on mesh:128x128 (k <= 416), whole process: lattice 2.87 s, grid for
// every k 4.02 s, for k >= 128 2.91 s (1.24 ms per decision on the workload).
var genAlgGrid, genAlgGridMinK, genAlgGridMinCells = true, 128, 4096

// gridResult is centerResult for the plane's grid search and the 3D scan
// (grid3Search), whose scans have summed the winner's total: with 64-bit integer
// coordinates that is the total centerResult would sum again (2.6 % of Gen-Alg's
// CPU per decision at 65,536 mesh nodes; in 3D about 1.5 % of the samples of
// Gen-Alg at torus:32x32x32, docs/center-speed.md, sixteenth round, wt-ga4);
// other coordinate types sum it as before.
func gridResult[T geom.Number](pr *problem[T], idx []int, c []T, guarantee float64, total int64) Result {
	if big := int64(1) << 40; isFloat[T]() || T(big) == 0 {
		return centerResult(pr, idx, c, guarantee)
	}
	cf := make([]float64, len(c))
	for j, v := range c {
		cf[j] = float64(v)
	}
	return Result{Indices: idx, Total: float64(total), Center: cf, Guarantee: guarantee}
}

// boxCells is the number of cells of the points' bounding box.
func boxCells[T geom.Number](pr *problem[T]) float64 {
	b := pr.bounds()
	c := 1.0
	for j := range b.Min {
		c *= float64(b.Max[j]) - float64(b.Min[j]) + 1
	}
	return c
}

// MC1x1 is MC1x1 (Bender et al. 2005, §2.2) used as a subset selector: each input point
// (in input order) is a center, points are ranked by L-infinity distance (the shell
// number on a grid), the score is the sum of those distances over the k chosen, and
// the first center with the strictly smallest score wins. A (2 - 2/k)d approximation
// of the total pairwise L1 (Theorem 2). Total is still the pairwise L1 total.
func MC1x1[P ~[]T, T geom.Number](pts []P, k int, opt Options) (Result, error) {
	return MC1x1Context(context.Background(), pts, k, opt)
}

// MC1x1Context is MC1x1 that stops with ctx's cause when ctx ends (checked between
// centers): 10^5 points took 40 s, and Ctrl-C waited for the command's watchdog.
func MC1x1Context[P ~[]T, T geom.Number](ctx context.Context, pts []P, k int, opt Options) (Result, error) {
	return pointCentered(ctx, pts, k, opt, metricLInf, scoreStar, MC1x1Guarantee)
}

func pointCentered[P ~[]T, T geom.Number](ctx context.Context, pts []P, k int, opt Options, m metric, s scoreKind, guarantee func(d, k int) float64) (Result, error) {
	res, err := centeredOnPoints(ctx, pts, k, opt, m, s, guarantee)
	if opt.Ascending {
		slices.Sort(res.Indices)
	}
	return res, err
}

// centeredOnPoints is pointCentered with the indices in the tie rule's order.
func centeredOnPoints[P ~[]T, T geom.Number](ctx context.Context, pts []P, k int, opt Options, m metric, s scoreKind, guarantee func(d, k int) float64) (Result, error) {
	pr, err := newProblem(pts, k)
	if err != nil {
		return Result{}, err
	}
	if err := checkOptions(opt); err != nil {
		return Result{}, err
	}
	g := guarantee(pr.d, k)
	if k == pr.n {
		return pr.allPoints(g), nil
	}
	if m == metricL1 && s == scorePairwise && opt.Ties == TiesByIndex && genAlgGrid && mmGridFits(pr) && k >= genAlgGridMinK && boxCells(pr) >= float64(genAlgGridMinCells) {
		idx, c, tot, ok, err := gridSearchTotal(ctx, pr, opt.Floor, true)
		if err != nil {
			return Result{}, err
		}
		if ok {
			return gridResult(pr, idx, c, g, tot), nil
		}
	}
	if m == metricL1 && s == scorePairwise && opt.Ties == TiesByIndex && pr.d == 3 && grid3On {
		idx, c, tot, ok, err := grid3Search(ctx, pr, opt.Floor, true, opt.Memo)
		if err != nil {
			return Result{}, err
		}
		if ok {
			return gridResult(pr, idx, c, g, tot), nil
		}
	}
	if m == metricL1 && s == scorePairwise {
		res, ok, err := searchLattice(ctx, pr, false, opt.Ties, opt.Floor, opt.Ascending)
		if err != nil {
			return Result{}, err
		}
		if ok {
			res.Guarantee = g
			return res, nil
		}
	}
	if m == metricL1 && s == scorePairwise && opt.Ties == TiesByIndex {
		if ball := newBallSearch(pr); ball != nil {
			idx, c, err := ballCenters(ctx, pr, ball, false, opt.Floor)
			ball.release()
			if err != nil {
				return Result{}, err
			}
			return centerResult(pr, idx, c, g), nil
		}
	}
	sr := newSearcher(pr, opt.Ties, m, s)
	if s == scorePairwise {
		sr.floor = opt.Floor
	}
	for _, p := range pr.pts {
		if ctx.Err() != nil { // each center costs O(n)
			sr.release()
			return Result{}, context.Cause(ctx)
		}
		if sr.try(p); sr.reached {
			break
		}
	}
	return sr.result(g), nil
}

// MMInc is MM+Inc (Bender et al. 2005, §5): MM (with opt.Ties), then local search that
// swaps a chosen point for an unchosen one while that lowers the total, to a local
// minimum. Each round takes the swap with the largest decrease (ties: the chosen point
// earliest in Indices, then the unchosen point of smallest index). Every point keeps
// its summed distance to the chosen set, so a swap's effect costs O(d) to evaluate and
// O(n d) to apply. The guarantee is MM's. Indices are ascending under TiesByIndex
// or with opt.Ascending; otherwise (TiesPReMAS) they keep MM's order, a swapped-in
// point taking the place of the point it replaced.
func MMInc[P ~[]T, T geom.Number](pts []P, k int, opt Options) (Result, error) {
	return MMIncContext(context.Background(), pts, k, opt)
}

// MMIncContext is MMInc whose MM phase stops with ctx's error when ctx ends.
func MMIncContext[P ~[]T, T geom.Number](ctx context.Context, pts []P, k int, opt Options) (Result, error) {
	mmOpt := opt
	mmOpt.Ascending = false // the swaps' tie rule reads MM's order
	res, err := MMContext(ctx, pts, k, mmOpt)
	if err != nil || k == len(pts) {
		return res, err // k == n: every index, ascending
	}
	pr, _ := newProblem(pts, k)
	idx := improve(pr, res.Indices)
	if opt.Ties == TiesByIndex || opt.Ascending {
		slices.Sort(idx)
	}
	res.Indices = idx
	res.Total = float64(newPairScorer(pr.pts, k).total(idx))
	return res, nil
}
