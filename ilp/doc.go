// Package ilp is the integer program of the quadratic assignment problems of package
// qap, solved through HiGHS (package highs, our cgo binding, build tag "highs"): the
// sparse Adams-Johnson linearization (FormulationAJ; W. P. Adams and T. A. Johnson,
// "Improved Linear Programming-Based Lower Bounds for the Quadratic Assignment
// Problem", DIMACS Series 16, 1994), its aggregated form for symmetric distances
// (FormulationAJSym), and the window formulations for the banded flows of the ordering
// problem (FormulationWindow, FormulationWindow3: V. J. Leung et al., "Processor
// Allocation on Cplant: Achieving General Processor Locality Using One-Dimensional
// Allocation Strategies", IEEE Cluster 2002, doi:10.1109/CLUSTR.2002.1137758, §2.2),
// with symmetry-breaking constraints (Symmetry: reversal for the line, rotation and
// reversal for the ring, grid automorphisms for meshes and tori) and a canonicalization
// that keeps warm starts feasible.
//
// BuildModel builds a formulation, Model encodes warm starts and decodes HiGHS's
// solutions, ModelSize and AutoFormulation choose within a column budget, LPBound gives
// a formulation's LP-relaxation bound (docs/ilp.md). Package order runs the MIP as one
// of its methods; without the build tag everything here builds and highs reports that
// it is not available.
package ilp
