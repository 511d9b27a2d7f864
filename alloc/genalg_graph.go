package alloc

import (
	"context"
	"slices"

	"github.com/procalloc/procalloc/topo"
)

// graphGenAlg is Gen-Alg (Krumke et al. 1997; Bunde et al. 2004 §2.2) on a network
// without coordinates: for every free host as center, the k free hosts nearest to it
// in hops (ties by node index), scored by their total pairwise hop distance; the
// lowest score wins, ties to the center of smallest index. Distances are the graph's
// hop distances (topo.Graph.Dist), switches counted as hops.
type graphGenAlg struct {
	g    *topo.Graph
	st   *State
	free []int
	cand []int64 // distance<<32 | node, sorted
	set  []int
	best []int
}

func newGraphGenAlg(g *topo.Graph) *graphGenAlg {
	return &graphGenAlg{g: g, st: NewState(g.N())}
}

func (a *graphGenAlg) Name() string              { return "genalg" }
func (a *graphGenAlg) Machine() topo.Machine     { return a.g }
func (a *graphGenAlg) NumFree() int              { return a.st.NumFree() }
func (a *graphGenAlg) Release(nodes []int) error { return a.st.Release(nodes) }

func (a *graphGenAlg) Allocate(k int) ([]int, error) {
	return a.AllocateContext(context.Background(), k)
}

// AllocateContext is Allocate that stops when ctx ends (ContextAllocator), with the
// state unchanged: a decision sorts the free hosts once per free host, O(n^2 log n),
// minutes on a 2 x 10^5-host fat tree, so ctx is asked before every center (one sort
// of the free hosts, about 20 ms at that size).
func (a *graphGenAlg) AllocateContext(ctx context.Context, k int) ([]int, error) {
	if err := a.st.CheckRequest(k); err != nil {
		return nil, err
	}
	a.free = a.st.AppendFree(a.free[:0])
	bestScore := int64(-1)
	for _, c := range a.free {
		if err := context.Cause(ctx); err != nil {
			return nil, err
		}
		// Free nodes by distance from c, then index; distances from the hop index.
		a.cand = a.cand[:0]
		for _, v := range a.free {
			a.cand = append(a.cand, int64(a.g.Dist(c, v))<<32|int64(v))
		}
		slices.Sort(a.cand)
		set := a.set[:0]
		for _, key := range a.cand[:k] {
			set = append(set, int(key&(1<<32-1)))
		}
		a.set = set
		score, ok := a.g.PairDistSum(set)
		if !ok {
			score = 0
			for i, u := range set {
				for _, v := range set[i+1:] {
					score += int64(a.g.Dist(u, v))
				}
			}
		}
		if bestScore < 0 || score < bestScore {
			bestScore = score
			a.best = append(a.best[:0], set...)
		}
	}
	nodes := slices.Clone(a.best)
	slices.Sort(nodes)
	if err := a.st.Take(nodes); err != nil {
		return nil, err
	}
	return nodes, nil
}
