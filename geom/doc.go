// Package geom holds the geometry every solver in procalloc scores with: points with
// integer (exact) or float coordinates, the L1 and L-infinity distances, bounding boxes,
// and the total pairwise L1 distance of a point set.
//
// The total pairwise L1 distance of k points is the objective of the center-based
// allocators and subset solvers of Bender et al., "Communication-Aware Processor
// Allocation for Supercomputers" (WADS 2005, doi:10.1007/11534273_16), §2 and §3. It
// separates by
// dimension: sum over pairs of |a_j - b_j| in dimension j equals, with the k
// coordinates sorted as c_0 <= ... <= c_{k-1}, sum over i of c_i (2i - k + 1).
// PairwiseL1 uses that identity, O(d k log k), or O(d k) by counting sort when the
// coordinate range is small; the tests check it against the O(d k^2) definition in
// internal/oracle.
//
// Points are plain slices ([]int or []float64), so callers keep their own storage; the
// functions are generic over the coordinate type. Integer arithmetic is exact; callers
// with coordinates beyond about 2^31 should check for overflow of the sums themselves.
//
// Checked and unchecked: CheckDims, ReadPoints and WritePoints return an error on no
// points or points of no or mixed dimensions, and so does every solver of packages
// exact and ptas. The scoring primitives (L1, LInf, PairwiseL1, PairwiseL1Subset,
// BoundingBox) are called in the solvers' inner loops and do not check: their
// precondition, one dimension, is the caller's (CheckDims once, on input).
package geom
