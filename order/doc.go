// Package order is procalloc's home of the ordering problem: optimal (or certified
// near-optimal) 1D orderings of a machine's nodes, from a handful of nodes (exact
// methods) to 2 x 10^5 (the scalable path, bounds from the machine's structure).
//
// V. J. Leung, E. M. Arkin, M. A. Bender, D. Bunde, J. Johnston, A. Lal,
// J. S. B. Mitchell, C. Phillips and S. S. Seiden, "Processor Allocation on Cplant:
// Achieving General Processor Locality Using One-Dimensional Allocation Strategies"
// (IEEE Cluster 2002, doi:10.1109/CLUSTR.2002.1137758), §2.2, order the processors of a
// general network by an integer program: two nodes whose ranks differ by t contribute
// w(t) x hop distance, w decreasing; the ring variant (§2.3, ring span) measures t
// around the ring. With w(1) = 1 and w(t > 1) = 0 this is Hamiltonian path (cycle), so
// the problem is NP-hard. It is a quadratic assignment problem (QAP) whose flow matrix
// w(|r - s|) is Toeplitz (circulant for the ring): qap.OrderingQAP builds it, and
// SolveQAP runs every method on any QAP, including QAPLIB instances (qap.ReadQAPLIB). F itself, its weights and the curves that serve
// as starting orderings live in package curves; this package finds the best ordering.
//
// SolveOrdering is the entry point; Options.Method chooses how it solves:
//   - MethodMIP (the default): a local search (qap.LocalSearch) started from every
//     applicable curve (curves.Applicable) and from breadth-first orders
//     (topo.BFSOrder) gives the warm start; lower bounds follow (qap's Gilmore-Lawler,
//     window and walk bounds); unless a bound already proves the warm start optimal,
//     the integer program of package ilp through HiGHS (build tag "highs") finishes,
//     with symmetry breaking. When every objective value is a multiple of some g
//     (integer distances, dyadic weights), bounds are rounded up to multiples of g,
//     which lets HiGHS stop as soon as it has proven optimality.
//   - MethodDP: OrderDP, an exact dynamic program over subsets (no HiGHS; up to about
//     16 nodes), its own certificate.
//   - MethodLocal: the local search and the bounds only, for instances too large for
//     the MIP.
//   - MethodBB: branch and bound without HiGHS, after the local search and bounds:
//     qap.BranchAndBoundOrdering for orderings, qap.BranchAndBound for any QAP.
//   - MethodAuto: MethodBB up to AutoBBMaxNodes nodes, else the DP when it is small
//     enough (AutoDPStates), else the MIP (the local search when HiGHS is not compiled
//     in).
//
// A new method is one more Method constant and one more case where SolveOrdering and
// SolveQAP dispatch on it.
//
// For machines too large for any n x n table, StructuralBounds proves lower bounds from
// the structure (the ultrametric of a switched fabric's hop distances, exact on fat
// trees; windows in the lattice of a mesh or torus) and StructuredStarts builds
// orderings from it (ultrametric.go, gridwindow.go; docs/ilp.md, "Bounds that scale").
// Above ScalableMinNodes nodes SolveOrdering takes the scalable path: every start
// scored, a line search with O(K) to O(K^2) moves and a multilevel scheme
// (scalable.go, linesearch.go, multilevel.go), certified by those bounds.
//
// Graphs with groups (processors under switches) are ordered switch by switch. Every
// reported objective is recomputed by curves.Objective; the certificate is the proven
// lower bound, the gap and the Status. The time limit is the context's deadline: a
// solve it stops reports qap.StatusTimeLimit, a cancelled one qap.StatusInterrupted,
// both with the best ordering found and its bound. docs/ilp.md has the formulations'
// LP bounds and measured running times.
package order
