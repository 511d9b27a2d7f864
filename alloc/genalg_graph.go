package alloc

import (
	"slices"

	"github.com/procalloc/procalloc/topo"
)

// graphGenAlg is Gen-Alg (Krumke et al. 1997; Bunde et al. 2004 §2.2) on a network
// without coordinates: for every free host as center, the k free hosts nearest to it
// in hops (ties by node index), scored by their total pairwise hop distance; the
// lowest score wins, ties to the center of smallest index. Distances are the graph's
// breadth-first rows, switches counted as hops.
type graphGenAlg struct {
	g    *topo.Graph
	st   *State
	free []int
	cand []int
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
	if err := a.st.CheckRequest(k); err != nil {
		return nil, err
	}
	a.free = a.st.AppendFree(a.free[:0])
	bestScore := int64(-1)
	for _, c := range a.free {
		row := a.g.DistRow(c)
		a.cand = append(a.cand[:0], a.free...)
		slices.SortFunc(a.cand, func(x, y int) int {
			if d := int(row[x]) - int(row[y]); d != 0 {
				return d
			}
			return x - y
		})
		set := a.cand[:k]
		var score int64
		for i, u := range set {
			ru := a.g.DistRow(u)
			for _, v := range set[i+1:] {
				score += int64(ru[v])
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
