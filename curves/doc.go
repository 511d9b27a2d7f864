// Package curves orders a machine's nodes in one dimension, reads and writes the
// resulting ranking files, and scores orderings.
//
// Curve-based allocation (Leung et al. 2002, "Processor Allocation on Cplant", §2.2,
// ../shared/papers/leung2002-cplant-1d-allocation.md) orders all nodes once by a
// locality-preserving curve and then allocates along it. The quality of an ordering is
// F = sum over node pairs of w(t) x hop distance, t the pairs' rank difference (around
// the ring for the ring variant), w decreasing fast (Objective).
//
// Curves are registered by name (Names, Applicable, Generate, Summary, Why; Register
// adds more): row-major and snakes (the published boustrophedon and SST's 3D variant,
// reference-simulators.md), the Hilbert curve in the published xy2d indexing
// (HilbertXY2D), its truncation to rectangles (the papers' method), a generalized
// Hilbert curve continuous on every rectangle (Gilbert) and box (Gilbert3D), the
// H-index of Niedermeier, Reinhardt and Sanders (cited in Leung et al. §2.1), Morton
// order, the 3D Hilbert curve (Skilling), closed orderings for rings and tori
// (RingComb, GilbertRing), and graph orderings for irregular networks (BFSOrder,
// ReverseCuthillMcKee, Spectral). Orderings computed elsewhere, such as optimal ones
// from the integer program of §2.2, enter through ranking files (Resolve,
// ReadRanking; formats pairs/ranks/order/json/hosts) or Register. WriteSVG draws an
// ordering. docs/curves.md has definitions, guarantees and measured speeds.
package curves
