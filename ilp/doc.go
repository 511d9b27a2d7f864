// Package ilp is procalloc's home of the ordering problem: optimal (or certified
// near-optimal) 1D orderings of a machine's nodes, and the quadratic assignment
// problems behind them.
//
// V. J. Leung, E. M. Arkin, M. A. Bender, D. Bunde, J. Johnston, A. Lal,
// J. S. B. Mitchell, C. Phillips and S. S. Seiden, "Processor Allocation on Cplant:
// Achieving General Processor Locality Using One-Dimensional Allocation Strategies"
// (IEEE Cluster 2002, doi:10.1109/CLUSTR.2002.1137758), §2.2, order the processors of a
// general network by an integer program: two nodes whose ranks differ by t contribute
// w(t) x hop distance, w decreasing; the ring variant (§2.3, ring span) measures t
// around the ring. With w(1) = 1 and w(t > 1) = 0 this is Hamiltonian path (cycle), so
// the problem is NP-hard. It is a quadratic assignment problem (QAP) whose flow matrix
// w(|r - s|) is Toeplitz (circulant for the ring): OrderingQAP builds it, and SolveQAP
// solves any QAP, including QAPLIB instances (ReadQAPLIB; R. E. Burkard, S. E. Karisch
// and F. Rendl, "QAPLIB - A Quadratic Assignment Problem Library", J. Global Optim.,
// 1997, doi:10.1023/A:1008293323270). F itself, its weights and the curves that serve
// as starting orderings live in package curves; this package finds the best ordering.
//
// SolveOrdering is the entry point; Options.Method chooses how it solves:
//   - MethodMIP (the default): a local search (swap, insertion and segment-reversal
//     moves with incremental evaluation, iterated with random perturbations; LocalSearch)
//     started from every applicable curve (curves.Applicable) and from breadth-first
//     orders (topo.BFSOrder) gives the warm start; lower bounds follow (the
//     Gilmore-Lawler bound, GilmoreLawlerBound: P. C. Gilmore, "Optimal and Suboptimal
//     Algorithms for the Quadratic Assignment Problem", J. SIAM, 1962,
//     doi:10.1137/0110022; E. L. Lawler, "The Quadratic Assignment Problem", Management
//     Science, 1963, doi:10.1287/mnsc.9.4.586; and a window decomposition,
//     WindowBound); unless a bound already proves the warm start optimal, a MIP through
//     HiGHS (package highs, build tag "highs") finishes: the sparse Adams-Johnson
//     linearization (FormulationAJ; W. P. Adams and T. A. Johnson, "Improved Linear
//     Programming-Based Lower Bounds for the Quadratic Assignment Problem", DIMACS
//     Series 16, 1994), its aggregated form for symmetric distances (FormulationAJSym),
//     or the window formulations for banded flows (FormulationWindow,
//     FormulationWindow3), with symmetry breaking (reversal for the line, rotation and
//     reversal for the ring, grid automorphisms for meshes and tori). When every
//     objective value is a multiple of some g (integer distances, dyadic weights),
//     bounds are rounded up to multiples of g, which lets HiGHS stop as soon as it has
//     proven optimality.
//   - MethodDP: OrderDP, an exact dynamic program over subsets (no HiGHS; up to about
//     16 nodes), its own certificate.
//   - MethodLocal: the local search and the bounds only, for instances too large for
//     the MIP.
//   - MethodBB: branch and bound without HiGHS, after the local search and bounds. For
//     any QAP (BranchAndBound) the Gilmore-Lawler bound at every node, the reduced
//     costs of its assignment bounding the children and choosing the branching row or
//     column (polytomic branching as in J. Clausen and M. Perregaard, "Solving Large
//     Quadratic Assignment Problems in Parallel", Computational Optimization and
//     Applications 8, 1997), symmetry from the distance
//     matrix's automorphisms and interchangeable facilities. For orderings
//     (BranchAndBoundOrdering) ranks placed in order, bounded by the cheapest walk
//     whose K+1 consecutive nodes are distinct (a table over the last K nodes), with
//     dominance and lexicographic-leader symmetry breaking. WalkBound (K+2
//     consecutive nodes distinct, vertex-transitive machines) is one more root bound
//     of every method.
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
//
// Graphs with groups (processors under switches) are ordered switch by switch. Every
// reported objective is recomputed by curves.Objective; the certificate is the proven
// lower bound, the gap and the Status. The time limit is the context's deadline: a
// solve it stops reports StatusTimeLimit, a cancelled one StatusInterrupted, both with
// the best ordering found and its bound. docs/ilp.md has the formulations' LP bounds
// and measured running times.
package ilp
