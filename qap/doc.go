// Package qap is the quadratic assignment problem (QAP) and its combinatorial
// solvers: facilities i, j with flow A[i][j] placed at locations k, l at distance
// B[k][l] cost A[i][j] x B[k][l]; find the assignment of least total cost. Instances
// are read and written in QAPLIB's format (ReadQAPLIB; R. E. Burkard, S. E. Karisch
// and F. Rendl, "QAPLIB - A Quadratic Assignment Problem Library", J. Global Optim.,
// 1997, doi:10.1023/A:1008293323270). OrderingQAP writes the ordering problem of
// package order as a QAP whose flow matrix w(|r - s|) is Toeplitz (circulant for the
// ring).
//
// Lower bounds: the Gilmore-Lawler bound (GilmoreLawlerBound: P. C. Gilmore, "Optimal
// and Suboptimal Algorithms for the Quadratic Assignment Problem", J. SIAM, 1962,
// doi:10.1137/0110022; E. L. Lawler, "The Quadratic Assignment Problem", Management
// Science, 1963, doi:10.1287/mnsc.9.4.586), a window decomposition for banded flows
// (WindowBound) and, for orderings of vertex-transitive machines, the cheapest walk
// whose K+2 consecutive nodes are distinct (WalkBound).
//
// Solvers: a local search (swap, insertion and segment-reversal moves with incremental
// evaluation, iterated with random perturbations; LocalSearch), and two exact branch
// and bounds: for any QAP (BranchAndBound) the Gilmore-Lawler bound at every node, the
// reduced costs of its assignment bounding the children and choosing the branching
// row or column (polytomic branching as in J. Clausen and M. Perregaard, "Solving
// Large Quadratic Assignment Problems in Parallel", Computational Optimization and
// Applications 8, 1997), symmetry from the distance matrix's automorphisms and
// interchangeable facilities; for orderings (BranchAndBoundOrdering) ranks placed in
// order, bounded by the cheapest walk whose K+1 consecutive nodes are distinct, with
// dominance and lexicographic-leader symmetry breaking.
//
// When every objective value is a multiple of some g (integer data, dyadic weights;
// Granularity), bounds are rounded up to multiples of g (RoundBound); otherwise they
// are lowered by a relative 1e-9, so that float rounding never works in a bound's
// favour. The integer program of a QAP is package ilp; the driver that runs every
// method on one QAP (order.SolveQAP) and the ordering problem are package order.
package qap
