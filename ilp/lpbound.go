package ilp

import (
	"context"
	"fmt"

	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/ilp/highs"
	"github.com/procalloc/procalloc/qap"
	"github.com/procalloc/procalloc/topo"
)

// LPBound returns the LP-relaxation bound of a formulation (with symmetry breaking) for
// the ordering problem of m with weights w: the objective of the relaxation, a lower
// bound on the optimal F. Used to compare formulations (docs/ilp.md).
func LPBound(ctx context.Context, m topo.Machine, w curves.Weights, ring bool, formulation Formulation) (float64, error) {
	q, err := qap.OrderingQAP(m, w, ring)
	if err != nil {
		return 0, err
	}
	mm, err := BuildModel(q, formulation, ring, OrderingSymmetry(m, ring))
	if err != nil {
		return 0, err
	}
	r, err := highs.Solve(ctx, mm.HiGHS, nil, highs.Options{Relax: true})
	if err != nil {
		return 0, err
	}
	if r.Status != highs.StatusOptimal {
		return 0, fmt.Errorf("LP relaxation: %s", r.ModelStatus)
	}
	return r.Objective, nil
}
