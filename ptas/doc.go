// Package ptas holds approximation algorithms that choose k of n points in R^d with
// small total pairwise L1 distance (the objective of center-based processor
// allocation), following Bender, Bunde, Demaine, Fekete, Leung, Meijer and Phillips,
// "Communication-Aware Processor Allocation for Supercomputers" (WADS 2005,
// doi:10.1007/11534273_16):
//
//   - MM, Manhattan Median (§2.1, §4.1): every intersection of axis-parallel
//     hyperplanes through input points is a candidate center; each center takes its k
//     nearest points in L1; the candidate with the smallest total wins. A 7/4
//     approximation in the plane (Theorem 1, tight by Lemma 1 / Fig. 4) and 2-1/(2d)
//     in d dimensions (Theorem 5, tight by Lemma 6); the (2-2/k) argument of Krumke et
//     al. (§2.2) applies too.
//   - GenAlg, Krumke et al.'s Gen-Alg (§2.1, note): the same with the input points as
//     centers, a (2-2/k) approximation in any metric.
//   - MC1x1 (§2.2): centers are the points, shells are L-infinity distances, the score
//     is the sum of shell numbers; a (2-2/k)d approximation (Theorem 2).
//   - MMInc, MM+Inc (§5): MM followed by swap local search to a local minimum.
//   - PTAS (§3, §4.2): cuts of the optimum into m slices per axis, cell counts and
//     gradient-extremal picks; guaranteed ratio 1/(1 - c(m)) for the m used.
//
// Ties. The paper breaks ties arbitrarily; procalloc breaks them deterministically.
// TiesByIndex (the default) takes, for each center, the k nearest points ordered by
// (distance, input index), tries centers in a fixed documented order and keeps the
// first strictly best. TiesPReMAS reproduces the reference simulator PReMAS (and SST)
// exactly (docs/alloc.md, center-based allocators):
// one working array of the points, stable-sorted in place by distance from each center
// in turn and never reset, so ties follow the order the previous center left.
//
// Every function validates its input (k in 1..n, one dimension, finite coordinates)
// and returns an error naming the problem; none panics on bad input.
package ptas
