package alloc

import (
	"context"
)

// decideFatTree is the decision on a fat tree FatTree built (span: topo.Graph.
// FatTreeSpans), from free counts per group of every level, listing only the
// winner's hosts. There host indices follow the tree (host h's group of level l is
// h / span[l]) and Dist(u, v) = 2(l+1) for the lowest level l of a group holding
// both, so the list of center c is c, then the free hosts of c's leaf, of its group
// of level 1 less the leaf, ..., each by index. Its first k are therefore: when c's
// leaf holds k free hosts or more, the first k of them (score k(k-1), and the
// leaf's smallest free host the smallest such center); else, for the group G of c's
// highest level with fewer than k free hosts (its parent P holds k or more), every
// free host of G and the m = k - free(G) smallest free hosts of P outside G: the
// same set for every free host of G (candidates that tie provably, scored once),
// centered on G's smallest. A candidate is two ranges of free-host ranks, and its
// total hops sum, per level l, the pairs sharing a group of level l (from prefix
// sums of C(free, 2) per group in index order: O(levels) a candidate). A decision
// is O(n/64 + free hosts) to list and count the free hosts and O(groups x levels)
// for the candidates (8,737 groups on the 131,072-host fat tree). It looks at ctx
// after the counts, after the prefix sums, before each level's groups and every
// genalgCtxWork groups, and before it takes the winner.
func (a *graphGenAlg) decideFatTree(ctx context.Context, k int, span []int) ([]int, error) {
	a.free = a.st.AppendFree(a.free[:0])
	free := a.free
	nLeaf := a.g.N() / span[0]
	// rank[i]: free hosts below leaf i's first host (i = 0..nLeaf).
	a.ftRank = resizeZero(a.ftRank, nLeaf+1)
	rank := a.ftRank
	for _, v := range free {
		rank[v/span[0]+1]++
	}
	for i := range nLeaf {
		rank[i+1] += rank[i]
	}
	if err := context.Cause(ctx); err != nil {
		return nil, err
	}
	L := len(span) - 1
	leaves := func(l int) int { return span[l] / span[0] } // leaves a group of level l
	// pairs[l][j]: the sum of C(free, 2) over the groups of level l before group j.
	a.ftPairs = a.ftPairs[:0]
	off := make([]int, L+1)
	for l := range L + 1 {
		off[l] = len(a.ftPairs)
		ng, per := nLeaf/leaves(l), leaves(l)
		a.ftPairs = append(a.ftPairs, 0)
		for j := range ng {
			c := int64(rank[(j+1)*per] - rank[j*per])
			a.ftPairs = append(a.ftPairs, a.ftPairs[len(a.ftPairs)-1]+c*(c-1)/2)
		}
	}
	if err := context.Cause(ctx); err != nil {
		return nil, err
	}
	c2 := func(c int64) int64 { return c * (c - 1) / 2 }
	// same returns the pairs of free-host ranks [r0, r1) sharing a group of level l.
	same := func(l, r0, r1 int) int64 {
		if r0 >= r1 {
			return 0
		}
		g0, g1 := free[r0]/span[l], free[r1-1]/span[l]
		if g0 == g1 {
			return c2(int64(r1 - r0))
		}
		per := leaves(l)
		e0, s1 := int(rank[(g0+1)*per]), int(rank[g1*per])
		p := a.ftPairs[off[l]:]
		return c2(int64(e0-r0)) + c2(int64(r1-s1)) + p[g1] - p[g0+1]
	}
	// score is the total hops of ranks [r0, r1) and [q0, q1) (q0 = q1: none), the
	// second a whole group of level l0 outside the first, both in one group of level
	// l0+1 (l0 = -1: one range, in one leaf).
	score := func(r0, r1, q0, q1, l0 int) int64 {
		var total, prev int64
		for l := range L + 1 {
			s := c2(int64(r1 - r0 + q1 - q0))
			if l <= l0 {
				s = same(l, r0, r1) + same(l, q0, q1)
			}
			total += (s - prev) * int64(2*(l+1))
			prev = s
		}
		return total
	}
	best := [4]int{-1}
	var bestScore int64
	bestCenter := -1
	work := 0
	consider := func(s int64, center int, r0, r1, q0, q1 int) {
		if bestCenter < 0 || s < bestScore || s == bestScore && center < bestCenter {
			bestScore, bestCenter, best = s, center, [4]int{r0, r1, q0, q1}
		}
	}
	for l := range L {
		// A look a level, and every genalgCtxWork groups.
		if err := context.Cause(ctx); err != nil {
			return nil, err
		}
		per, pper := leaves(l), leaves(l+1)
		for j := range nLeaf / per {
			if work++; work >= genalgCtxWork {
				work = 0
				if err := context.Cause(ctx); err != nil {
					return nil, err
				}
			}
			g0, g1 := int(rank[j*per]), int(rank[(j+1)*per])
			cnt := g1 - g0
			if cnt == 0 {
				continue
			}
			if l == 0 && cnt >= k {
				consider(int64(k)*int64(k-1), free[g0], g0, g0+k, 0, 0)
			}
			P := j * per / pper
			p0, p1 := int(rank[P*pper]), int(rank[(P+1)*pper])
			if cnt >= k || p1-p0 < k {
				continue
			}
			// G's free hosts and the m smallest of P's outside G.
			m := k - cnt
			if g0-p0 >= m {
				consider(score(p0, p0+m, g0, g1, l), free[g0], p0, p0+m, g0, g1)
			} else {
				consider(score(p0, p0+k, 0, 0, l), free[g0], p0, p0+k, 0, 0)
			}
		}
	}
	if err := context.Cause(ctx); err != nil {
		return nil, err
	}
	nodes := make([]int, 0, k)
	nodes = append(nodes, free[best[0]:best[1]]...)
	nodes = append(nodes, free[best[2]:best[3]]...)
	if err := a.st.Take(nodes); err != nil {
		return nil, err
	}
	return nodes, nil
}
