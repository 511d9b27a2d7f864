package ilp

import (
	"context"

	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/topo"
)

// LowerBound is a proven lower bound on F for a machine and weights, with the name of
// the argument that proves it. Exact reports that Value was computed without rounding
// (so that a status "optimal" may rest on it when it meets an ordering's F).
type LowerBound struct {
	Value  float64
	Source string
	Exact  bool
}

// StructuralBounds returns lower bounds on F computed from m's structure (its switch
// hierarchy, its grid), in memory near O(n K) and without n x n tables, so that they
// apply at 10^5 nodes. It returns no bound (and no error) for machines whose structure
// it does not recognize.
func StructuralBounds(ctx context.Context, m topo.Machine, w curves.Weights, ring bool) ([]LowerBound, error) {
	return nil, nil
}

// StructuredStarts returns orderings built from m's structure (for example every group
// of a switch hierarchy contiguous), to be used as starting orderings next to the
// curves. It returns none for machines whose structure it does not recognize.
func StructuredStarts(ctx context.Context, m topo.Machine, w curves.Weights, ring bool) ([]Start, error) {
	return nil, nil
}
