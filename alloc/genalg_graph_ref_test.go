package alloc

import (
	"slices"

	"github.com/procalloc/procalloc/topo"
)

// plainGraphGenAlg is Gen-Alg on a network by its definition, the code graphGenAlg
// ran before its per-anchor decision (kept as the tests' reference): for every free
// host c as center, the free hosts sorted by (Dist(c, .), index), the first k scored
// by PairDistSum (else the sum of Dist, -1 for a pair not connected), the lowest
// score winning, ties to the smallest center. O(n^2 log n). It returns the set,
// sorted. One change to that code: it marked "no best yet" by a best score of -1,
// which a set across two components of a disconnected network scores too (-1 a
// pair), so that any later center replaced it; found by this cross-check.
func plainGraphGenAlg(g *topo.Graph, free []int, k int) []int {
	var cand []int64
	var set, best []int
	var bestScore int64
	for _, c := range free {
		cand = cand[:0]
		for _, v := range free {
			cand = append(cand, int64(g.Dist(c, v))<<32|int64(v))
		}
		slices.Sort(cand)
		set = set[:0]
		for _, key := range cand[:k] {
			set = append(set, int(key&(1<<32-1)))
		}
		score, ok := g.PairDistSum(set)
		if !ok {
			score = 0
			for i, u := range set {
				for _, v := range set[i+1:] {
					score += int64(g.Dist(u, v))
				}
			}
		}
		if best == nil || score < bestScore {
			bestScore = score
			best = append(best[:0], set...)
		}
	}
	best = slices.Clone(best)
	slices.Sort(best)
	return best
}
