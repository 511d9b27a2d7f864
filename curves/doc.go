// Package curves orders a machine's nodes in one dimension, reads and writes the
// resulting ranking files, and scores orderings.
//
// Curve-based allocation (V. J. Leung et al., "Processor Allocation on Cplant:
// Achieving General Processor Locality Using One-Dimensional Allocation Strategies",
// IEEE Cluster 2002, doi:10.1109/CLUSTR.2002.1137758, §2.2) orders all nodes once by a
// locality-preserving curve and then allocates along it. The quality of an ordering is
// F = sum over node pairs of w(t) x hop distance, t the pairs' rank difference (around
// the ring for the ring variant), w decreasing fast (Objective).
//
// Curves are registered by name (Names, Applicable, Generate, Summary, Why; Register
// adds more): row-major and snakes (the published boustrophedon and SST's 3D variant,
// docs/curves.md), the Hilbert curve in the published xy2d indexing
// (HilbertXY2D), its truncation to rectangles (the papers' method), a generalized
// Hilbert curve continuous on every rectangle (Gilbert) and box (Gilbert3D), the
// H-index of Niedermeier, Reinhardt and Sanders (cited in Leung et al. §2.1), Morton
// order, the 3D Hilbert curve (J. Skilling, "Programming the Hilbert curve", AIP Conf.
// Proc. 707, 2004, doi:10.1063/1.1751381), closed orderings for rings and tori
// (RingComb, GilbertRing), and graph orderings for irregular networks (BFSOrder,
// CuthillMcKee, ReverseCuthillMcKee over topo.BreadthFirst; Spectral). Optimal
// orderings, from the integer program of §2.2, are package order's; they and any other
// ordering enter through ranking files (ReadRanking, ReadRankingFile,
// ReadMachineRanking; pairs/ranks/order/json/hosts and the resource-manager formats)
// or Register. The caller decides whether a name is a curve or a file: this package
// never looks at the file system to guess. WriteSVG draws an ordering. docs/curves.md
// has definitions, guarantees and measured speeds.
package curves
