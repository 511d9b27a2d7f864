// Package exact holds exact solvers and optimal baselines for the k-point subset
// problem of center-based allocation: choose k of n points with minimum total pairwise
// L1 distance (Bender et al., "Communication-Aware Processor Allocation for
// Supercomputers", 2005, ../shared/papers).
//
//   - Triple: k = 3 in the plane in O(n log n) on inputs of bounded local density
//     (§2.3, Theorem 3), over the L1 order-3 Voronoi sets of package voronoi;
//     TripleSweep is an independent exact oracle.
//   - PlaneMM: "MM over the whole plane", the best k-nearest set over every center of
//     the plane, never worse than MM (§2.1).
//   - Line: points on a line, k consecutive sorted points (proof on Line), O(n) after
//     a radix sort. Ring: points on a ring, exact dynamic program over the half-ring
//     sweep (the optimum is not always an arc; see RingArc for a counterexample);
//     RingArc is the O(n) best arc. §1 cites a linear-time DP for line and ring
//     (Leung et al., unpublished); the ring DP here is O(n k^3).
//   - Subset: branch and bound for any k and dimension, with a context, reporting the
//     proven lower bound and gap when stopped.
//   - Clusters: optimal unconstrained clusters of Z^2 and Z^3 (§1, Fig. 2).
//
// Integer input is exact (int64 totals); float input uses float64.
package exact
