package ptas

import (
	"errors"
	"fmt"
	"math"

	"github.com/procalloc/procalloc/geom"
)

// Ties selects the deterministic tie-breaking rule of the center-based algorithms.
type Ties int

const (
	// TiesByIndex: for each center the k nearest points by (distance, input index);
	// centers in a fixed order (MM: ascending coordinates, the first dimension
	// outermost; Gen-Alg and MC1x1: the points in input order); the first center with
	// the strictly smallest score wins. Result.Indices are ascending.
	TiesByIndex Ties = iota
	// TiesPReMAS follows the reference simulator PReMAS exactly: the points are given
	// in free-list order; one working array, initially that order, is stable-sorted in
	// place by distance from each center in turn and never reset, so equal distances
	// keep the order the previous center left; its first k entries are the candidate.
	// MM's centers are every combination of distinct coordinate values, each list in
	// order of first appearance, the first dimension outermost; Gen-Alg and MC1x1 use
	// the points in input order. The first strictly better score wins.
	// Result.Indices are in working-array order (by distance from the center),
	// unless Options.Ascending.
	TiesPReMAS
)

// String names the rule.
func (t Ties) String() string {
	switch t {
	case TiesByIndex:
		return "index"
	case TiesPReMAS:
		return "premas"
	}
	return fmt.Sprintf("Ties(%d)", int(t))
}

// Options tune the center-based algorithms.
type Options struct {
	Ties Ties // which of equally good candidates wins (TiesByIndex, the zero value, or TiesPReMAS)
	// Floor, when positive, is a lower bound on the total of every k-subset of the
	// points (for points of Z^2 or Z^3, the lattice optimum: exact.LatticeBound).
	// MM and Gen-Alg stop trying centers once one reaches it: only a strictly
	// better center could replace it. The result is the same as without it (on
	// integer coordinates; fractional totals are rounded, so a floor equal to a
	// total may stop at a center whose exact total is a hair above it). A negative,
	// infinite or NaN floor is an input error.
	Floor float64
	// Ascending asks for Result.Indices in ascending order under every tie rule
	// (the same points): a caller that does not need TiesPReMAS's working-array
	// order saves working it out. MM+Inc ignores it (its swaps follow that order).
	Ascending bool
	// Memo, when not nil, carries lower bounds on centers' totals from one call
	// to the next (MM and MM+Inc on 3D integer points under TiesByIndex; Gen-Alg
	// ignores it; an allocator passes one per machine): the answers are the same
	// as without it (CenterMemo).
	Memo *CenterMemo
}

// Result is a chosen subset.
type Result struct {
	// Indices are positions in the input, k distinct values.
	Indices []int
	// Total is the total pairwise L1 distance of the chosen points.
	Total float64
	// Center is the winning center (MM, Gen-Alg, MC1x1, and MM+Inc's starting MM
	// center); nil when k == n (every point is taken, no center is tried) and for PTAS.
	Center []float64
	// Guarantee is the proven approximation ratio: Total <= Guarantee * optimum.
	Guarantee float64
}

// maxIntCoord bounds integer coordinates so that totals (at most k^2 d times twice
// the coordinate range) stay exact in 64-bit integers for any realistic k.
const maxIntCoord = 1 << 31

// ErrInput is wrapped by every input validation error.
var ErrInput = errors.New("invalid input")

// problem is validated input in one representation shared by all algorithms.
type problem[T geom.Number] struct {
	pts  [][]T
	n, d int
	k    int
	box  *geom.Box[T] // the points' bounding box once computed (bounds)
}

// bounds returns the points' bounding box, computed once: the plane's grid paths
// ask for it three or four times per call, a pass over the points each (3 % of
// Gen-Alg's CPU per decision at 65,536 mesh nodes).
func (pr *problem[T]) bounds() geom.Box[T] {
	if pr.box == nil {
		b := geom.BoundingBox(pr.pts)
		pr.box = &b
	}
	return *pr.box
}

func newProblem[P ~[]T, T geom.Number](pts []P, k int) (*problem[T], error) {
	if len(pts) == 0 {
		return nil, fmt.Errorf("%w: no points", ErrInput)
	}
	if err := geom.CheckDims(pts); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInput, err)
	}
	n := len(pts)
	if k < 1 || k > n {
		return nil, fmt.Errorf("%w: k = %d must be between 1 and the number of points (%d)", ErrInput, k, n)
	}
	pr := &problem[T]{n: n, d: len(pts[0]), k: k}
	if same, ok := any(pts).([][]T); ok {
		pr.pts = same // read only: no copy (an allocator calls once per decision)
	} else {
		pr.pts = make([][]T, n)
		for i, p := range pts {
			pr.pts[i] = []T(p)
		}
	}
	float := isFloat[T]()
	for i, p := range pts {
		if !float {
			// Integers: only the range can be wrong.
			for j, v := range p {
				if w := int64(v); w > maxIntCoord || w < -maxIntCoord {
					return nil, fmt.Errorf("%w: point %d coordinate %d is %v, beyond ±2^31: integer sums could overflow (use float64 coordinates)", ErrInput, i, j, v)
				}
			}
			continue
		}
		for j, v := range p {
			if f := float64(v); math.IsNaN(f) || math.IsInf(f, 0) {
				return nil, fmt.Errorf("%w: point %d coordinate %d is %v", ErrInput, i, j, f)
			} else if !float && math.Abs(f) > maxIntCoord {
				return nil, fmt.Errorf("%w: point %d coordinate %d is %v, beyond ±2^31: integer sums could overflow (use float64 coordinates)", ErrInput, i, j, v)
			}
		}
	}
	return pr, nil
}

func checkOptions(opt Options) error {
	if opt.Ties != TiesByIndex && opt.Ties != TiesPReMAS {
		return fmt.Errorf("%w: unknown ties rule %d", ErrInput, int(opt.Ties))
	}
	if f := opt.Floor; math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
		return fmt.Errorf("%w: floor %v: want a finite lower bound >= 0", ErrInput, f)
	}
	return nil
}

// allPoints is the answer for k == n.
func (pr *problem[T]) allPoints(guarantee float64) Result {
	idx := make([]int, pr.n)
	for i := range idx {
		idx[i] = i
	}
	return Result{Indices: idx, Total: float64(geom.PairwiseL1(pr.pts)), Guarantee: guarantee}
}

// MMGuarantee is MM's proven ratio in dimension d for subsets of size k: 7/4 in the
// plane (Theorem 1), 2 - 1/(2d) in general (Theorem 5), and never worse than the
// 2 - 2/k of Krumke et al. (§2.2); 1 when k <= 2 (MM is exact there).
func MMGuarantee(d, k int) float64 {
	g := 2 - 1/(2*float64(d))
	return max(1, min(g, genAlgGuarantee(k)))
}

func genAlgGuarantee(k int) float64 { return max(1, 2-2/float64(k)) }

// MC1x1Guarantee is MC1x1's proven ratio (2 - 2/k) d (Theorem 2), at least 1.
func MC1x1Guarantee(d, k int) float64 { return max(1, (2-2/float64(k))*float64(d)) }
