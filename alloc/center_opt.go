package alloc

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/procalloc/procalloc/exact"
	"github.com/procalloc/procalloc/geom"
	"github.com/procalloc/procalloc/internal/textin"
	"github.com/procalloc/procalloc/topo"
)

func init() {
	register("opt", "greedy-optimal (Bender et al. 2005 §5): each job gets k free nodes of least total pairwise L1, by the exact solver (package exact, MM+Inc incumbent); opt:nodes=N sets the search budget per decision (default 200000), the best found is kept when it runs out (counted)",
		newOptAlloc)
}

// FallbackCounter is implemented by allocators that solve each decision exactly
// within a budget: how many decisions they made and how many of them ran out of
// budget before the optimum was proven.
type FallbackCounter interface {
	// Fallbacks returns the decisions made so far and how many of them kept
	// the best subset found when the budget ran out, unproven.
	Fallbacks() (decisions, fallbacks int64)
}

// DefaultOptNodes is opt's search budget per decision (branch-and-bound nodes).
const DefaultOptNodes = 200_000

// optAlloc is the exact solver as an allocator: at every decision it solves the
// k-subset problem on the free nodes (exact.SubsetSeeded) with a budget counted in
// search nodes, not time, so that its decisions are the same on every machine. When
// the budget runs out it keeps the best set found, never worse than the MM+Inc
// incumbent, and counts the decision as a fallback. Distances are plain coordinate
// L1, as for MM.
type optAlloc struct {
	g         *topo.Grid
	st        *State
	order     []int
	pts       []geom.PointF
	budget    int64
	decisions int64
	fallbacks int64
	fl        []int
	free      []geom.PointF
}

func newOptAlloc(arg string, m topo.Machine, opt Options) (Allocator, error) {
	g, ok := m.(*topo.Grid)
	if !ok {
		return nil, fmt.Errorf("opt needs a mesh or torus (node coordinates), not %s", m.Spec())
	}
	if g.N() > exact.MaxSubsetPoints {
		// Every decision on the empty machine but k = 1 or all nodes would fail
		// (the solver's n x n table), after MM+Inc's incumbent on every free node:
		// minutes on a 2 x 10^5-node mesh before the first job's error.
		return nil, fmt.Errorf("opt needs at most %d nodes (the exact solver keeps an n x n distance table of the free nodes), not %s (%d nodes)", exact.MaxSubsetPoints, m.Spec(), g.N())
	}
	a := &optAlloc{g: g, st: NewState(g.N()), order: FreeListOrder(g), budget: DefaultOptNodes}
	if arg != "" {
		v, ok := strings.CutPrefix(arg, "nodes=")
		n, err := strconv.ParseInt(v, 10, 64)
		if !ok || err != nil || n <= 0 {
			return nil, fmt.Errorf("opt: argument %q: want nodes=N with N > 0 (search nodes per decision)", textin.Clip(arg))
		}
		a.budget = n
	}
	a.pts = NodePoints(g)
	return a, nil
}

// NodePoints returns the coordinates of every node of g as points, indexed by node:
// the input of the exact subset solver (exact.SubsetSeeded).
func NodePoints(g *topo.Grid) []geom.PointF {
	pts := make([]geom.PointF, g.N())
	c := make([]int, len(g.Dims()))
	for i := range pts {
		c = g.Coord(i, c)
		p := make(geom.PointF, len(c))
		for j, v := range c {
			p[j] = float64(v)
		}
		pts[i] = p
	}
	return pts
}

func (a *optAlloc) Name() string {
	if a.budget == DefaultOptNodes {
		return "opt"
	}
	return "opt:nodes=" + strconv.FormatInt(a.budget, 10)
}
func (a *optAlloc) Machine() topo.Machine            { return a.g }
func (a *optAlloc) NumFree() int                     { return a.st.NumFree() }
func (a *optAlloc) Release(nodes []int) error        { return a.st.Release(nodes) }
func (a *optAlloc) Fallbacks() (decisions, fb int64) { return a.decisions, a.fallbacks }

// Occupy marks the nodes busy (Occupier), all or nothing: every decision reads
// the free nodes from the state.
func (a *optAlloc) Occupy(nodes []int) error {
	if err := a.st.Take(nodes); err != nil {
		return fmt.Errorf("%s: %w", a.Name(), err)
	}
	return nil
}

// OccupyFreeIn marks busy the free nodes of set (a bitmap of the nodes), writes
// them to taken and returns their number (BulkOccupier: a Mask's hold of a
// partition's outside): the state alone, as Occupy.
func (a *optAlloc) OccupyFreeIn(set, taken []uint64) int { return a.st.TakeFreeIn(set, taken) }

// ReleaseIn frees every node of set (BulkOccupier), all or nothing.
func (a *optAlloc) ReleaseIn(set []uint64) error {
	if err := a.st.ReleaseIn(set); err != nil {
		return fmt.Errorf("%s: %w", a.Name(), err)
	}
	return nil
}

// IsFree reports whether node v is free (Occupier).
func (a *optAlloc) IsFree(v int) bool { return a.st.IsFree(v) }

// AppendFreeIn appends the free nodes of the bitmap set (Mask's free-list path; Mask takes
// OccupyFreeIn, the bitmap path, first).
func (a *optAlloc) AppendFreeIn(dst []int, set []uint64) []int { return a.st.AppendFreeIn(dst, set) }

func (a *optAlloc) Allocate(k int) ([]int, error) {
	return a.AllocateContext(context.Background(), k)
}

// AllocateContext is Allocate that stops when ctx ends (ContextAllocator): the
// solver (MM+Inc's incumbent, then the branch and bound) polls ctx, and a decision
// it stopped is dropped, not counted, with the state unchanged; the budget in
// search nodes still decides where a decision that runs to its end stops.
func (a *optAlloc) AllocateContext(ctx context.Context, k int) ([]int, error) {
	if err := a.st.CheckRequest(k); err != nil {
		return nil, err
	}
	a.fl = a.st.AppendFreeInOrder(a.fl[:0], a.order)
	var nodes []int
	if k == len(a.fl) || k == 1 {
		nodes = slices.Clone(a.fl[:k])
	} else {
		a.free = a.free[:0]
		for _, v := range a.fl {
			a.free = append(a.free, a.pts[v])
		}
		res, err := exact.SubsetSeeded(ctx, a.free, k, exact.SubsetOptions{MaxNodes: a.budget})
		if cause := context.Cause(ctx); cause != nil {
			return nil, cause
		}
		if err != nil {
			return nil, fmt.Errorf("opt: %w", err)
		}
		if !res.Optimal {
			a.fallbacks++
		}
		nodes = make([]int, k)
		for i, p := range res.Indices {
			nodes[i] = a.fl[p]
		}
	}
	slices.Sort(nodes)
	if err := a.st.Take(nodes); err != nil {
		return nil, fmt.Errorf("opt: internal error: %w", err)
	}
	a.decisions++
	return nodes, nil
}
