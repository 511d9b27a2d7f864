// Package exact holds procalloc's exact solvers and optimal baselines for the k-point
// subset problem of center-based allocation, and only those: choose k of n points with
// minimum total pairwise L1 distance (M. A. Bender, D. P. Bunde, E. D. Demaine,
// S. P. Fekete, V. J. Leung, H. Meijer and C. A. Phillips, "Communication-Aware
// Processor Allocation for Supercomputers", WADS 2005, doi:10.1007/11534273_16). The
// ordering problem, including its exact dynamic program, is package order's.
//
//   - Triple: k = 3 in the plane in O(n log n) on inputs of bounded local density
//     (§2.3, Theorem 3), over the L1 order-3 Voronoi sets of package voronoi.
//   - PlaneMM: "MM over the whole plane", the best k-nearest set over every center of
//     the plane, never worse than MM (§2.1).
//   - Line: points on a line, k consecutive sorted points (proof on Line), O(n) after
//     a radix sort. Ring: points on a ring, exact dynamic program over the half-ring
//     sweep (the optimum is not always an arc; see RingArc for a counterexample);
//     RingArc is the O(n) best arc. §1 cites a linear-time DP for line and ring
//     (Leung et al., unpublished); the ring DP here is O(n k^3).
//   - Subset: branch and bound for any k and dimension, with a context, reporting the
//     proven lower bound and gap when stopped. SubsetSeeded is Subset as procalloc runs
//     it (the subset command among others): MM+Inc from package ptas as the incumbent
//     and, on distinct lattice points, LatticeBound for the part still to choose.
//   - Cluster, Clusters: optimal unconstrained clusters of Z^2 and Z^3 (§1, Fig. 2);
//     LatticeBound is their total, a lower bound for any k distinct lattice points.
//   - GridBound: a lower bound for any k nodes of a mesh or torus (star, per-dimension
//     and, on meshes, lattice bounds); HierarchyMin: the least cost of k free hosts
//     of nested groups (a fat tree's switch tree, a dragonfly's routers and groups),
//     exact where the group costs are the distances. With SubsetOptions.Periods the
//     branch and bound measures distances around a torus. The replay baseline (package
//     sim) bounds every decision with them.
//
// Integer input is exact (int64 totals); float input uses float64. Subset and
// SubsetSeeded take either, like package ptas, and search in float64: integer input
// stays exact there because they refuse points so far apart that a sum could round.
// The independent
// oracles the tests check these against (brute force, a sweep for k = 3) are in
// internal/oracle.
package exact
