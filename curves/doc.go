// Package curves orders a machine's nodes in one dimension, reads and writes the
// resulting ranking files, and scores orderings.
//
// Curve-based allocation (Leung et al. 2002, "Processor Allocation on Cplant", §2.2,
// ../shared/papers/leung2002-cplant-1d-allocation.md) orders all nodes once by a
// locality-preserving curve and then allocates along it. The quality of an ordering is
// F = sum over node pairs of w(t) x hop distance, t the pairs' rank difference (around
// the ring for the ring variant), w decreasing fast (Objective).
package curves
