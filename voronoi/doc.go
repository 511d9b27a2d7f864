// Package voronoi enumerates the generator sets of the L1 (Manhattan) order-k Voronoi
// diagram of a planar integer point set: every set of k input points that is the set
// of k nearest points of some center of the plane, each with an exact witness center.
//
// Bender et al., "Communication-Aware Processor Allocation for Supercomputers" (WADS
// 2005, doi:10.1007/11534273_16), §2.3, Theorem 3, solve the k = 3 subset problem exactly by scanning the cells of the
// order-3 Voronoi diagram (Lee 1982, their reference [17]); package exact builds that
// solver (exact.Triple) and "MM over the whole plane" on Walk.
//
// Tie rule. A k-set S is a k-nearest set of center c when
// max_{s in S} d(c, s) <= min_{t not in S} d(c, t). L1 bisectors contain 2D regions
// and points may coincide, so one center can have many k-nearest sets; Walk reports
// them as families (a witness center c, a radius r, the points strictly inside r and
// the points at distance exactly r), and every k-nearest set of every center of the
// plane belongs to a reported family. Witness centers have half-integer coordinates
// (stored doubled, exactly).
//
// Method: rotate by 45 degrees (u = x+y, v = x-y) so L1 balls become axis-parallel
// squares, then enumerate canonical squares (see Walk). The count of families on
// inputs in general position is O(k(n-k)) up to the constant of repeated reports.
package voronoi
