package order

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/procalloc/procalloc/ilp"
	"github.com/procalloc/procalloc/ilp/highs"
	"github.com/procalloc/procalloc/qap"
)

// AutoBBMaxNodes is the largest instance MethodAuto hands to the branch and bound:
// QAPLIB instances of 12-16 facilities and 16-node orderings take seconds; beyond
// about 30 the tree grows past any time limit and the MIP or local search is the
// better use of the time.
const AutoBBMaxNodes = 30

// solveBB is MethodBB: the local search and combinatorial bounds of MethodLocal
// first (the incumbent), then, unless they already meet, the branch and bound until
// the context's deadline. With sym (an ordering problem: facilities are ranks) the
// ordering branch and bound is used when it applies, else the Gilmore-Lawler one.
func solveBB(ctx context.Context, q *qap.QAP, starts []Start, sym *ilp.Symmetry, opt Options) (*Result, error) {
	t0 := time.Now()
	hopt := opt
	hopt.Method = MethodLocal
	res, err := solveSym(ctx, q, starts, sym, hopt)
	if err != nil {
		return nil, err
	}
	if res.Status == qap.StatusOptimal || ctx.Err() != nil {
		if ctx.Err() != nil && res.Status != qap.StatusOptimal {
			res.Status = qap.ContextStatus(ctx)
		}
		res.Seconds = time.Since(t0).Seconds()
		return res, nil
	}
	bopt := qap.BBOptions{Workers: opt.Threads}
	if opt.Progress != nil {
		bopt.Progress = func(p qap.BBProgress) {
			b := max(p.RootBound, res.Bound)
			opt.Progress(highs.Progress{Incumbent: p.Incumbent, Bound: b, Gap: qap.RelGap(p.Incumbent, b),
				Nodes: p.Nodes, Seconds: time.Since(t0).Seconds()})
		}
	}
	var br *qap.BBResult
	how := "Gilmore-Lawler branch and bound"
	if sym != nil {
		br, err = qap.BranchAndBoundOrdering(ctx, q, opt.cyclic, res.Assignment, bopt)
		if err == nil {
			how = "ordering branch and bound (walk bound)"
		} else {
			res.Notes = append(res.Notes, err.Error()+"; using the Gilmore-Lawler branch and bound")
		}
	}
	if br == nil {
		if br, err = qap.BranchAndBound(ctx, q, res.Assignment, bopt); err != nil {
			return nil, err
		}
	}
	res.Nodes = br.Nodes
	if br.Assignment != nil && br.Objective < res.Objective {
		res.Assignment, res.Objective = br.Assignment, br.Objective
	}
	if b := br.Bound; !math.IsInf(b, 0) && b > res.Bound {
		res.Bound, res.BoundSource = b, "bb"
	}
	if br.Optimal {
		res.Bound, res.BoundSource = res.Objective, "bb"
	}
	res.Bound = min(res.Bound, res.Objective)
	res.Status = br.Status
	if br.Optimal {
		res.Status = qap.StatusOptimal
	}
	res.Gap = qap.RelGap(res.Objective, res.Bound)
	if res.Status == qap.StatusOptimal {
		res.Gap = 0
	}
	res.Notes = append(res.Notes, fmt.Sprintf("%s: %d nodes, root bound %s, %.2fs", how, br.Nodes, qap.FormatBound(br.RootBound), br.Seconds))
	res.Seconds = time.Since(t0).Seconds()
	return res, nil
}
