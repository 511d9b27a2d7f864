package sim

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/exact"
	"github.com/procalloc/procalloc/geom"
	"github.com/procalloc/procalloc/topo"
)

// Baseline asks the replay to solve, at every allocation decision, the exact k-subset
// problem on the nodes free at that moment (exact.SubsetSeeded: MM+Inc incumbent,
// lattice bound; Bender et al. 2005) and to record each job's ratio of its total
// pairwise L1 distance to that optimum. It only measures: the allocator's decisions
// do not depend on it. Distances are plain coordinate L1, so a machine with
// wraparound links is refused (under --compat premas, which measures plain L1 on
// every machine, it is accepted), and so is a machine without node coordinates.
type Baseline struct {
	// TimeLimit bounds each decision's search (> 0). Which decisions are proven then
	// depends on the machine's speed; the fraction proven is reported.
	TimeLimit time.Duration
}

// baseline is the per-replay state: which nodes are free, and the decisions already
// solved (a replay meets the same free set and size again and again).
type baseline struct {
	cfg   Baseline
	free  []bool
	nfree int
	pts   []geom.PointF // coordinates of every node
	memo  map[string]baselineResult
	key   []byte
}

type baselineResult struct {
	total  int64
	proven bool
}

func newBaseline(cfg Config) (*baseline, error) {
	b := cfg.Baseline
	if b == nil {
		return nil, nil
	}
	if b.TimeLimit <= 0 {
		return nil, fmt.Errorf("sim: baseline time limit %v: must be positive", b.TimeLimit)
	}
	g, ok := cfg.Machine.(*topo.Grid)
	if !ok {
		return nil, fmt.Errorf("sim: the exact baseline needs node coordinates (a mesh); %s has none", cfg.Machine.Spec())
	}
	if cfg.Compat != alloc.CompatPReMAS && slices.Contains(g.Wrap(), true) {
		return nil, fmt.Errorf("sim: the exact baseline measures plain L1 distance; %s has wraparound links (use a mesh, or --compat premas, which measures plain L1)", g.Spec())
	}
	n := g.N()
	bl := &baseline{cfg: *b, free: make([]bool, n), nfree: n, memo: map[string]baselineResult{}}
	for i := range bl.free {
		bl.free[i] = true
	}
	bl.pts = alloc.NodePoints(g)
	return bl, nil
}

func (bl *baseline) take(nodes []int) {
	for _, v := range nodes {
		bl.free[v] = false
	}
	bl.nfree -= len(nodes)
}

func (bl *baseline) release(nodes []int) {
	for _, v := range nodes {
		bl.free[v] = true
	}
	bl.nfree += len(nodes)
}

// measure solves the decision of r (whose nodes were chosen from the free set held
// now, before take) and fills r's baseline fields.
func (bl *baseline) measure(ctx context.Context, r *JobResult) error {
	k := len(r.Nodes)
	res, err := bl.solve(ctx, k, r.Nodes, r.TotalL1)
	if err != nil {
		return fmt.Errorf("job %d: exact baseline: %w", r.ID, err)
	}
	r.OptTotalL1, r.OptProven = res.total, res.proven
	if res.proven {
		r.RatioToOptimal = 1
		if res.total > 0 {
			r.RatioToOptimal = float64(r.TotalL1) / float64(res.total)
		}
	}
	return nil
}

// solve returns the optimum (or the best found) of choosing k of the free nodes;
// chosen is the allocator's choice, total its total.
func (bl *baseline) solve(ctx context.Context, k int, chosen []int, total int64) (baselineResult, error) {
	switch {
	case k == 1:
		return baselineResult{0, true}, nil
	case k == bl.nfree:
		return baselineResult{total, true}, nil // every free node
	}
	dim := len(bl.pts[0])
	// The unconstrained lattice optimum bounds every decision: an allocation that
	// meets it is optimal.
	if lb := exact.LatticeBound(dim, k); lb > 0 && float64(total) <= lb {
		return baselineResult{total, true}, nil
	}
	if k == 2 {
		return baselineResult{bl.closestPair(total), true}, nil
	}
	bl.key = bl.key[:0]
	bl.key = fmt.Appendf(bl.key, "%d:", k)
	for i := 0; i < len(bl.free); i += 8 {
		var c byte
		for j := i; j < min(i+8, len(bl.free)); j++ {
			if bl.free[j] {
				c |= 1 << (j - i)
			}
		}
		bl.key = append(bl.key, c)
	}
	if r, ok := bl.memo[string(bl.key)]; ok {
		if !r.proven {
			r.total = min(r.total, total) // the best found may have been a worse incumbent's
		}
		return r, nil
	}
	var (
		where = make(map[int]int, bl.nfree)
		pts   = make([]geom.PointF, 0, bl.nfree)
	)
	for v, f := range bl.free {
		if f {
			where[v] = len(pts)
			pts = append(pts, bl.pts[v])
		}
	}
	inc := make([]int, len(chosen))
	for i, v := range chosen {
		p, ok := where[v]
		if !ok {
			return baselineResult{}, fmt.Errorf("node %d was not free", v)
		}
		inc[i] = p
	}
	dctx, cancel := context.WithTimeout(ctx, bl.cfg.TimeLimit)
	res, err := exact.SubsetSeeded(dctx, pts, k, exact.SubsetOptions{Incumbent: inc})
	cancel()
	if err != nil {
		return baselineResult{}, err
	}
	if ctx.Err() != nil {
		return baselineResult{}, context.Cause(ctx)
	}
	out := baselineResult{total: int64(math.Round(res.Total)), proven: res.Optimal}
	bl.memo[string(bl.key)] = out
	return out, nil
}

// closestPair is the least L1 distance between two free nodes: 1 when two free nodes
// are adjacent, else searched (at most total, the allocator's pair).
func (bl *baseline) closestPair(total int64) int64 {
	best := total
	var free []int
	for v, f := range bl.free {
		if f {
			free = append(free, v)
		}
	}
	for i, u := range free {
		for _, v := range free[i+1:] {
			if d := int64(geom.L1(bl.pts[u], bl.pts[v])); d < best {
				best = d
				if best == 1 {
					return 1
				}
			}
		}
	}
	return best
}

// BaselineSummary aggregates the baseline over decisions (one per job).
type BaselineSummary struct {
	// MeanRatio is the mean over proven decisions of the allocator's total pairwise
	// L1 over the optimum (1 for single-node jobs); 0 when none was proven.
	MeanRatio float64
	Proven    float64 // fraction of decisions proven optimal
}
