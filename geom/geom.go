package geom

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// Number is a coordinate type: integers are exact, floats are for solvers in R^d.
type Number interface {
	~int | ~int32 | ~int64 | ~float64
}

// Point is a point with integer coordinates, the exact representation used for
// machine nodes and integer input.
type Point []int

// PointF is a point in R^d.
type PointF []float64

func abs[T Number](x T) T {
	if x < 0 {
		return -x
	}
	return x
}

// L1 returns the Manhattan distance between a and b, which must have the same length
// (a hot primitive, unchecked: a longer b's extra coordinates are ignored, a shorter
// one panics; callers check user points once with CheckDims).
func L1[T Number](a, b []T) T {
	var s T
	for j := range a {
		s += abs(a[j] - b[j])
	}
	return s
}

// LInf returns the L-infinity (Chebyshev) distance between a and b, which must have
// the same length (unchecked, as for L1).
func LInf[T Number](a, b []T) T {
	var m T
	for j := range a {
		if d := abs(a[j] - b[j]); d > m {
			m = d
		}
	}
	return m
}

// sortedPairwise1D returns the sum of |c_i - c_j| over unordered pairs of the
// coordinates c, which must already be sorted ascending. O(len(c)).
func sortedPairwise1D[T Number](c []T) T {
	var s T
	k := len(c)
	for i, v := range c {
		s += v * T(2*i-k+1)
	}
	return s
}

// Pairwise1D returns the sum of |c_i - c_j| over unordered pairs; c is reordered.
func Pairwise1D[T Number](c []T) T {
	slices.Sort(c)
	return sortedPairwise1D(c)
}

// PairwiseL1 returns the total pairwise L1 distance of pts: the sum over unordered
// pairs {p, q} of L1(p, q). It runs in O(d k log k) time with O(k) scratch space;
// integer input with a coordinate range below 4k is sorted by counting in O(d k).
//
// Precondition: all points have the same dimension. It is a hot primitive (every
// solver and every replay decision scores with it) and does not check: on mixed
// dimensions it panics (a shorter point) or ignores coordinates (a longer one).
// Check user points once with CheckDims, as every solver of packages exact and ptas
// does before it calls this (they return CheckDims's error).
func PairwiseL1[P ~[]T, T Number](pts []P) T {
	k := len(pts)
	if k < 2 {
		return 0
	}
	d := len(pts[0])
	col := make([]T, k)
	var total T
	for j := 0; j < d; j++ {
		for i, p := range pts {
			col[i] = p[j]
		}
		total += pairwiseColumn(col)
	}
	return total
}

// pairwiseColumn is Pairwise1D with a counting-sort fast path for small integer ranges.
func pairwiseColumn[T Number](col []T) T {
	lo, hi := col[0], col[0]
	integral := true
	for _, v := range col {
		lo = min(lo, v)
		hi = max(hi, v)
		if integral && T(int64(v)) != v {
			integral = false
		}
	}
	if !integral || float64(hi)-float64(lo) >= float64(4*len(col)) {
		return Pairwise1D(col)
	}
	// Counting sort: sum over distinct values v with multiplicity m, occupying sorted
	// positions [p, p+m): v * sum_{i=p}^{p+m-1} (2i-k+1) = v*m*(2p+m-k).
	span := int(int64(hi) - int64(lo) + 1)
	counts := make([]int, span)
	for _, v := range col {
		counts[int(int64(v)-int64(lo))]++
	}
	k := len(col)
	var s T
	p := 0
	for off, m := range counts {
		if m == 0 {
			continue
		}
		v := lo + T(off)
		s += v * T(m*(2*p+m-k))
		p += m
	}
	return s
}

// PairwiseL1Subset returns the total pairwise L1 distance of the points pts[idx[i]],
// with PairwiseL1's precondition (one dimension, unchecked) and idx in range.
func PairwiseL1Subset[P ~[]T, T Number](pts []P, idx []int) T {
	sub := make([]P, len(idx))
	for i, j := range idx {
		sub[i] = pts[j]
	}
	return PairwiseL1(sub)
}

// Box is an axis-parallel bounding box; Min and Max are inclusive corners.
type Box[T Number] struct {
	Min, Max []T // per axis, the least and the greatest coordinate
}

// BoundingBox returns the smallest box holding every point. It panics on no points,
// which is a programming error: there is no box of nothing. Precondition, unchecked
// as for PairwiseL1: every point has the first point's dimension (CheckDims).
func BoundingBox[P ~[]T, T Number](pts []P) Box[T] {
	if len(pts) == 0 {
		panic("geom: BoundingBox of no points")
	}
	b := Box[T]{Min: slices.Clone([]T(pts[0])), Max: slices.Clone([]T(pts[0]))}
	for _, p := range pts[1:] {
		for j, v := range p {
			b.Min[j] = min(b.Min[j], v)
			b.Max[j] = max(b.Max[j], v)
		}
	}
	return b
}

// SumOfSides returns the sum of the box's side lengths (Max-Min per dimension). For
// three points in the plane, their total pairwise L1 distance equals this sum times 2,
// i.e. the box perimeter (Bender et al. 2005, §2).
func (b Box[T]) SumOfSides() T {
	var s T
	for j := range b.Min {
		s += b.Max[j] - b.Min[j]
	}
	return s
}

// CheckDims returns an error unless every point has the same, positive dimension.
func CheckDims[P ~[]T, T Number](pts []P) error {
	if len(pts) == 0 {
		return fmt.Errorf("geom: no points")
	}
	d := len(pts[0])
	if d == 0 {
		return fmt.Errorf("geom: point 0 has no coordinates")
	}
	for i, p := range pts {
		if len(p) != d {
			return fmt.Errorf("geom: point %d has dimension %d, point 0 has %d", i, len(p), d)
		}
	}
	return nil
}

// ToInt returns the points as integer points when every coordinate is an integer that
// fits in an int; ok is false otherwise (FirstNonInteger says which point).
func ToInt(pts []PointF) (out []Point, ok bool) {
	if FirstNonInteger(pts) >= 0 {
		return nil, false
	}
	out = make([]Point, len(pts))
	for i, p := range pts {
		q := make(Point, len(p))
		for j, v := range p {
			q[j] = int(v)
		}
		out[i] = q
	}
	return out, true
}

// FirstNonInteger returns the index of the first point with a coordinate that is not
// an integer of magnitude at most 2^53 (what ToInt refuses), or -1 when there is none.
func FirstNonInteger(pts []PointF) int {
	for i, p := range pts {
		for _, v := range p {
			if v != math.Trunc(v) || math.Abs(v) > 1<<53 {
				return i
			}
		}
	}
	return -1
}

// ToFloat returns the integer points as float points.
func ToFloat(pts []Point) []PointF {
	out := make([]PointF, len(pts))
	for i, p := range pts {
		q := make(PointF, len(p))
		for j, v := range p {
			q[j] = float64(v)
		}
		out[i] = q
	}
	return out
}

// Compare orders points lexicographically by coordinate; it is the documented
// tie-break "smaller (x, y, z)" used across procalloc. A point that is a prefix of
// the other comes first (it indexed past the shorter point before 2026-12-06).
func Compare[T Number](a, b []T) int {
	for j := range min(len(a), len(b)) {
		if c := cmp.Compare(a[j], b[j]); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a), len(b))
}
