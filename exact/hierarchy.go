package exact

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
)

// Hierarchy is a machine whose host distances follow nested groups (a fat tree's
// switch tree, a dragonfly's routers and groups): level 0 groups are the leaf
// switches (routers) with Free[i] free hosts each; Up[l][g] is the group of level
// l+1 that contains group g of level l; the last level has one group, the whole
// machine. PairCost[l] (nondecreasing, one per level) is the distance of two hosts
// whose smallest common group is of level l.
//
// On a fat tree (levels from topo.TreeLevels, groups the connected parts of the
// switches up to each level) two hosts whose smallest common group is of level l are
// at least 2(l+1) hops apart: a path between two parts of the levels below l climbs
// to level l and back, and hosts hang below level 0 only. On a dragonfly two hosts
// are 2 apart on one router and at least 3 apart otherwise. So HierarchyMin bounds
// the real optimum from below on any such machine, and it is the optimum when the
// costs are the real distances (a fat tree in which every group of level l has a
// switch of level l above all of its hosts, such as merlin's fat trees; checked by
// the caller).
type Hierarchy struct {
	Free     []int     // free hosts of each level-0 group
	Up       [][]int32 // Up[l][g]: the level-(l+1) group holding level-l group g; one slice per level but the last
	PairCost []int64   // per level, the distance (hops) of two hosts whose smallest common group is of that level
}

// HierarchyMin returns the least total pairwise cost of k free hosts of h:
// Σ over pairs of PairCost[level of their smallest common group]. The cost is a
// maximisation of savings Σ_l (PairCost[l+1]-PairCost[l]) Σ_{groups G of level l}
// C(k_G, 2) below the top cost of every pair: at level 1 the parts taken from the
// leaves are the free counts taken largest first (that vector majorizes every other
// choice, and Σ C(k_i, 2) is Schur-convex), above it a max-plus knapsack over the
// children, capped at k. Time O(leaves log leaves + Σ over merges of the two capped
// sizes), at most O(hosts x k). Errors: k < 0 or more than the free hosts, a
// malformed hierarchy, a total beyond 2^62, or ctx ending.
func HierarchyMin(ctx context.Context, h Hierarchy, k int) (int64, error) {
	if err := h.check(); err != nil {
		return 0, err
	}
	total := 0
	for _, f := range h.Free {
		total += f
	}
	if k < 0 || k > total {
		return 0, fmt.Errorf("exact: k = %d with %d free hosts", k, total)
	}
	top := len(h.PairCost) - 1
	pairs := int64(k) * int64(k-1) / 2
	if h.PairCost[top] > 0 && pairs > (1<<62)/h.PairCost[top] {
		return 0, fmt.Errorf("exact: %d hosts: the total pairwise cost overflows", k)
	}
	if k <= 1 {
		return 0, nil
	}
	saving, err := h.maxSaving(ctx, k)
	if err != nil {
		return 0, err
	}
	return h.PairCost[top]*pairs - saving, nil
}

func (h Hierarchy) check() error {
	levels := len(h.PairCost)
	if levels < 1 || len(h.Up) != levels-1 {
		return fmt.Errorf("exact: hierarchy of %d levels with %d up maps", levels, len(h.Up))
	}
	for l := 1; l < levels; l++ {
		if h.PairCost[l] < h.PairCost[l-1] || h.PairCost[l-1] < 0 {
			return errors.New("exact: hierarchy pair costs must be nonnegative and nondecreasing")
		}
	}
	size := len(h.Free)
	for _, f := range h.Free {
		if f < 0 {
			return errors.New("exact: negative free count")
		}
	}
	for l, up := range h.Up {
		if len(up) != size {
			return fmt.Errorf("exact: level %d has %d groups, its up map %d", l, size, len(up))
		}
		next := 0
		for _, g := range up {
			if g < 0 {
				return fmt.Errorf("exact: level %d: negative group", l)
			}
			next = max(next, int(g)+1)
		}
		size = next
	}
	if size != 1 {
		return fmt.Errorf("exact: the top level has %d groups, not 1", size)
	}
	return nil
}

// choose2 is C(m, 2).
func choose2(m int) int64 { return int64(m) * int64(m-1) / 2 }

// maxSaving is the largest Σ_l w_l Σ_G C(k_G, 2) over choices of k free hosts, with
// w_l = PairCost[l+1] - PairCost[l] for the levels below the top.
func (h Hierarchy) maxSaving(ctx context.Context, k int) (int64, error) {
	top := len(h.PairCost) - 1
	if top == 0 {
		return 0, nil // one level: every pair costs PairCost[0]
	}
	w := func(l int) int64 { return h.PairCost[l+1] - h.PairCost[l] }
	// Level 1: the leaves under each group, largest free counts first.
	groups := 0
	for _, g := range h.Up[0] {
		groups = max(groups, int(g)+1)
	}
	byGroup := make([][]int, groups)
	for i, f := range h.Free {
		if f > 0 {
			g := h.Up[0][i]
			byGroup[g] = append(byGroup[g], f)
		}
	}
	// f[g][m]: the best saving inside group g with m hosts (m <= min(free, k)).
	f := make([][]int64, groups)
	for g, counts := range byGroup {
		slices.SortFunc(counts, func(a, b int) int { return b - a })
		free := 0
		for _, c := range counts {
			free += c
		}
		n := min(free, k)
		fg := make([]int64, n+1)
		var below int64 // Σ C(parts, 2) of the greedy parts so far
		m, i, part := 0, 0, 0
		for m < n {
			if part == counts[i] {
				i, part = i+1, 0
			}
			below += int64(part) // C(part+1, 2) - C(part, 2)
			part++
			m++
			fg[m] = w(0) * below
			if top > 1 {
				fg[m] += w(1) * choose2(m)
			}
		}
		f[g] = fg
	}
	// Levels 2 and up: merge the children's tables.
	for l := 1; l < top; l++ {
		if err := context.Cause(ctx); err != nil {
			return 0, err
		}
		up := h.Up[l]
		parents := 0
		for _, p := range up {
			parents = max(parents, int(p)+1)
		}
		next := make([][]int64, parents)
		for p := range next {
			next[p] = []int64{0}
		}
		for c, fc := range f {
			if len(fc) <= 1 {
				continue
			}
			// A merge is O(k x the child's hosts): 196 of up to 25 ms each at the
			// top of fattree:32,32:32,32:196 with k = 24,320, so ask ctx per child,
			// not only per level (Ctrl-C waited 2 s for the watchdog).
			if err := context.Cause(ctx); err != nil {
				return 0, err
			}
			p := up[c]
			next[p] = maxPlus(next[p], fc, k)
		}
		if l+1 < top {
			for _, fp := range next {
				for m := range fp {
					fp[m] += w(l+1) * choose2(m)
				}
			}
		}
		f = next
	}
	if len(f) != 1 || len(f[0]) <= k {
		return 0, fmt.Errorf("exact: hierarchy: fewer than %d free hosts", k)
	}
	return f[0][k], nil
}

// maxPlus returns c[m] = max over i+j = m of a[i] + b[j], for m <= cap.
func maxPlus(a, b []int64, cap int) []int64 {
	n := min(len(a)+len(b)-2, cap)
	c := make([]int64, n+1)
	for m := range c {
		c[m] = math.MinInt64
	}
	for i, x := range a {
		for j, y := range b {
			if i+j > n {
				break
			}
			if v := x + y; v > c[i+j] {
				c[i+j] = v
			}
		}
	}
	return c
}
