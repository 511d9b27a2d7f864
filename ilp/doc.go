// Package ilp computes optimal (or certified near-optimal) 1D orderings of a machine's
// nodes and solves the quadratic assignment problems behind them.
//
// Leung et al. 2002, "Processor Allocation on Cplant", §2.2
// (../shared/papers/leung2002-cplant-1d-allocation.md) order the processors of a
// general network by an integer program: two nodes whose ranks differ by t contribute
// w(t) x hop distance, w decreasing; the ring variant (§2.3, ring span) measures t
// around the ring. With w(1) = 1 and w(t > 1) = 0 this is Hamiltonian path (cycle), so
// the problem is NP-hard. It is a quadratic assignment problem (QAP) whose flow matrix
// w(|r - s|) is Toeplitz (circulant for the ring): OrderingQAP builds it, and SolveQAP
// solves any QAP, including QAPLIB instances (ReadQAPLIB).
//
// The solver combines
//   - a local search (swap, insertion and segment-reversal moves with incremental
//     evaluation, iterated with random perturbations) started from every applicable
//     curve (curves.Applicable) and breadth-first orders: the warm start, and the answer
//     for instances too large for the MIP;
//   - the Gilmore-Lawler bound (minimal scalar products + linear assignment), which
//     already proves optimality when the local search finds a Hamiltonian path or cycle
//     for w = (1);
//   - a MIP through HiGHS (package highs, build tag "highs"): the sparse Adams-Johnson
//     linearization (FormulationAJ) or its aggregated form for symmetric distances
//     (FormulationAJSym), with symmetry breaking (reversal for the line, rotation and
//     reversal for the ring, grid automorphisms for meshes and tori) and the
//     local-search ordering as starting solution. When every objective value is a
//     multiple of some g (integer distances, dyadic weights), bounds are rounded up to
//     multiples of g, which is what lets HiGHS stop as soon as it has proven optimality.
//   - branch and bound without HiGHS (MethodBB): for any QAP the Gilmore-Lawler bound
//     at every node with reduced-cost child bounds and branching (BranchAndBound;
//     Gilmore 1962, Lawler 1963; polytomic branching as in Clausen and Perregaard 1997,
//     "Solving large quadratic assignment problems in parallel", Computational
//     Optimization and Applications 8), for orderings a rank-by-rank search bounded by
//     the cheapest walk with K+1 consecutive nodes distinct, with dominance and the
//     distance matrix's automorphisms (BranchAndBoundOrdering), and WalkBound (K+2
//     consecutive nodes distinct, vertex-transitive machines) among the root bounds.
//
// Graphs with groups (processors under switches) are ordered switch by switch
// (SolveOrdering). Every reported objective is recomputed by curves.Objective; the
// certificate is the proven lower bound and the gap. See docs/ilp.md for the
// formulations' LP bounds and measured running times.
package ilp
