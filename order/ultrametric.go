package order

// Bounds that scale, part 1: switched fabrics (fat trees, dragonflies, Slurm trees and
// blocks, ibnetdiscover dumps), through the subdominant ultrametric of the hosts' hop
// distances. See docs/ilp.md, "Bounds that scale", for the derivation in prose.
//
// The objective is Leung et al.'s (V. J. Leung et al., "Processor Allocation on Cplant:
// Achieving General Processor Locality Using One-Dimensional Allocation Strategies",
// IEEE Cluster 2002, doi:10.1109/CLUSTR.2002.1137758, §2.2) F = sum over t = 1..K of
// w(t) D_t, D_t the sum of hop distances of the pairs of ranks t apart.
//
// Laminar bound. Let P_0 ⊂ P_1 ⊂ ... be nested partitions of the hosts (P_0 finest),
// c0, α_ℓ >= 0, and d(a, b) >= c0 + Σ_ℓ α_ℓ [a, b in different blocks of P_ℓ] for all
// distinct hosts a, b. In a line ordering, let E_k(B) count the pairs of a block B of
// c hosts whose ranks differ by 1..k. The i-th member of B (in rank order) has at most
// min(k, c - i) later members within k ranks (k ranks follow it, c - i members do), so
// E_k(B) <= G_k(c) = Σ_{t<=k} (c - t)^+. (Per lag alone this fails: a block of two
// at ranks 0 and 2 has a pair at lag 2 > (2 - 2)^+; it is the cumulative count that is
// bounded, which is why the weights must be non-increasing below.) With S_t =
// c0 (n - t) + Σ_ℓ α_ℓ ((n - t) - Σ_{B ∈ P_ℓ} (|B| - t)^+), every ordering therefore
// has Σ_{t<=k} D_t >= Σ_{t<=k} S_t for every k, and for non-increasing v >= 0, by
// Abel summation (Σ_t v(t) D_t = Σ_k (v(k) - v(k+1)) Σ_{t<=k} D_t),
//
//	Σ_t v(t) D_t >= Σ_t v(t) S_t.
//
// F = Σ_t w(t) D_t >= Σ_t w'(t) D_t with w'(t) = min_{s<=t} w(s), the largest
// non-increasing weights below w (D_t >= 0), so F >= Σ_t w'(t) S_t; w' = w for the
// usual decreasing weights. The rest, w - w' >= 0, is charged the per-lag bound S'_t
// (laminarSums), which holds lag by lag but is weaker. An ordering in which every
// block of every level is contiguous has exactly (|B| - t)^+ same-block pairs at each
// lag t, so it meets S_t for every t at once when d equals the right-hand side on its
// pairs at lags <= K.
//
// The largest right-hand side that stays below d is the subdominant ultrametric u
// (single-linkage clustering): u(a, b) = min over chains a = h_0, ..., h_k = b of
// max_i d(h_i, h_{i+1}), and the laminar bound is monotone in u (it is the minimum of
// F under u). On a fabric whose hosts each hang on one switch, d(a, b) = 2 + D(s_a,
// s_b) for distinct hosts, D the hop distance between their leaf switches through the
// switch graph, so u(a, b) = 2 + U(s_a, s_b) with U the subdominant ultrametric of the
// leaf switches under D. (On any other graph the hosts themselves take the place of
// the leaf switches, with d = D and no constant 2.) U is computed without an n x n
// table, from one breadth-first
// search from all leaf switches at once (each switch labelled with a nearest leaf, as
// in K. Mehlhorn, "A faster approximation algorithm for the Steiner problem in graphs",
// Information Processing Letters 27, 1988, doi:10.1016/0020-0190(88)90066-X): a switch
// link (x, y) whose ends have different labels joins those two leaves at weight
// dist(x) + 1 + dist(y). Claim: two leaves are joined by candidate links of weight <= R
// exactly when they are joined by a chain of leaves each within D <= R of the next.
// Each candidate weight is the length of a walk between its leaves, so it is >= their
// D: one direction. Conversely, along a shortest path x_0 = s, ..., x_D = t, dist(x_i)
// <= min(i, D - i), so consecutive vertices with different labels give a candidate of
// weight <= i + 1 + (D - i - 1) = D, and the labels chain from s to t. Kruskal's
// algorithm over the candidates gives the clustering at every threshold.
//
// Ring. Cutting a ring ordering between ranks c-1 and c gives a line ordering; each of
// the n ring pairs at lag t (2t < n) lies across t of the n cuts, so the sum over the
// n cuts of the line D_t is (n - t) D_t^ring; for 2t = n the ring's n/2 pairs are the
// line's at every cut. Hence F_ring = (1/n) Σ_cuts Σ_t v(t) D_t^line(cut) with v(t) =
// w(t) n / (n - t) (2t < n) or w(t) (2t = n), and with v' the running minimum of v,
// F_ring >= Σ_t v'(t) S_t (+ (v - v')(t) S'_t, per lag). It is not tight in general (a nested ring ordering pays its
// wrap pairs at the top-level distance where the bound charges them the average): the
// ring gets a certificate from it only where it happens to meet an ordering's F.

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"slices"

	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/topo"
)

// fabricHierarchy is a switched fabric's hosts grouped by leaf switch, and the
// single-linkage clustering of the leaf switches by switch-graph hop distance.
type fabricHierarchy struct {
	n int
	// base is 2 when the units are leaf switches (d = 2 + D(leaves) for distinct
	// hosts) and 0 when they are the hosts themselves (d = D).
	base   int
	leafOf []int32 // host -> leaf index
	leaves []int   // leaf index -> switch vertex
	size   []int   // leaf index -> hosts on it
	// merges in Kruskal order: leaf a's cluster and leaf b's cluster joined at switch
	// distance r (non-decreasing).
	merges []leafMerge
	// adj lists, per leaf, the leaves joined to it by a direct switch link (D = 1).
	adj [][]int32
}

type leafMerge struct {
	a, b int32
	r    int
}

// recognizeFabric returns g's hierarchy. When every host has exactly one link, to a
// switch, the units are the leaf switches (d(a, b) = 2 + D(leaves), the BFS runs over
// the switches only); otherwise (hosts with several links, which may be interior
// vertices of shortest paths, host-to-host links, graphs without switches) the units
// are the hosts themselves and the BFS runs over every vertex, which gives the
// single-linkage clustering of the hosts under d by the same argument. ok is false
// only for an empty graph; a disconnected one is an error.
func recognizeFabric(ctx context.Context, g *topo.Graph) (*fabricHierarchy, bool, error) {
	n, V := g.N(), g.Vertices()
	if n < 1 {
		return nil, false, nil
	}
	h := &fabricHierarchy{n: n, leafOf: make([]int32, n), base: 2}
	leafIdx := make([]int32, V)
	for i := range leafIdx {
		leafIdx[i] = -1
	}
	var nb []int
	leafMode := V > n
	for v := 0; v < n && leafMode; v++ {
		nb = g.Neighbors(v, nb[:0])
		if len(nb) != 1 || !g.IsSwitch(nb[0]) {
			leafMode = false
			break
		}
		s := nb[0]
		if leafIdx[s] < 0 {
			leafIdx[s] = int32(len(h.leaves))
			h.leaves = append(h.leaves, s)
			h.size = append(h.size, 0)
		}
		h.leafOf[v] = leafIdx[s]
		h.size[leafIdx[s]]++
	}
	if !leafMode {
		h.base = 0
		h.leaves, h.size = make([]int, n), make([]int, n)
		for v := range n {
			h.leaves[v], h.size[v], h.leafOf[v] = v, 1, int32(v)
		}
	}
	// Multi-source BFS over the switches from all leaves (in leaf order).
	label := make([]int32, V)
	dist := make([]int32, V)
	for i := range label {
		label[i], dist[i] = -1, -1
	}
	queue := make([]int, 0, V)
	for li, s := range h.leaves {
		label[s], dist[s] = int32(li), 0
		queue = append(queue, s)
	}
	swNb := func(x int, dst []int) []int {
		dst = g.Neighbors(x, dst[:0])
		if !leafMode {
			return dst
		}
		return slices.DeleteFunc(dst, func(y int) bool { return !g.IsSwitch(y) })
	}
	first := n // the vertices whose links give candidates: switches, or all
	if !leafMode {
		first = 0
	}
	for head := 0; head < len(queue); head++ {
		if head&4095 == 0 && ctx.Err() != nil {
			return nil, false, context.Cause(ctx)
		}
		x := queue[head]
		nb = swNb(x, nb)
		for _, y := range nb {
			if label[y] < 0 {
				label[y], dist[y] = label[x], dist[x]+1
				queue = append(queue, y)
			}
		}
	}
	type cand = leafMerge // a candidate merge: two leaves and the radius joining them
	var cands []cand
	h.adj = make([][]int32, len(h.leaves))
	for x := first; x < V; x++ {
		if label[x] < 0 {
			continue // a switch no host reaches: irrelevant to host distances
		}
		nb = swNb(x, nb)
		for _, y := range nb {
			if y <= x || label[y] == label[x] {
				continue
			}
			a, b := min(label[x], label[y]), max(label[x], label[y])
			r := int(dist[x] + 1 + dist[y])
			cands = append(cands, cand{a, b, r})
			if r == 1 {
				h.adj[a] = append(h.adj[a], b)
				h.adj[b] = append(h.adj[b], a)
			}
		}
	}
	slices.SortFunc(cands, func(p, q cand) int {
		switch {
		case p.r != q.r:
			return p.r - q.r
		case p.a != q.a:
			return int(p.a - q.a)
		}
		return int(p.b - q.b)
	})
	uf := newUnionFind(len(h.leaves))
	for _, c := range cands {
		if uf.union(int(c.a), int(c.b)) {
			h.merges = append(h.merges, c)
		}
	}
	if len(h.merges) != len(h.leaves)-1 {
		return nil, false, fmt.Errorf("%s is disconnected: some hosts cannot reach others", g.Spec())
	}
	for i := range h.adj {
		slices.Sort(h.adj[i])
		h.adj[i] = slices.Compact(h.adj[i])
	}
	return h, true, nil
}

type unionFind struct{ parent, size []int }

func newUnionFind(n int) *unionFind {
	u := &unionFind{parent: make([]int, n), size: make([]int, n)}
	for i := range u.parent {
		u.parent[i], u.size[i] = i, 1
	}
	return u
}

func (u *unionFind) find(x int) int {
	for u.parent[x] != x {
		u.parent[x] = u.parent[u.parent[x]]
		x = u.parent[x]
	}
	return x
}

func (u *unionFind) union(a, b int) bool {
	a, b = u.find(a), u.find(b)
	if a == b {
		return false
	}
	if u.size[a] < u.size[b] {
		a, b = b, a
	}
	u.parent[b] = a
	u.size[a] += u.size[b]
	return true
}

// laminarSums returns S_t for t = 1..k (k <= n-1): Σ_{t<=j} S_t bounds Σ_{t<=j} D_t of
// every line ordering from below, for every j (see the file comment); c0 = 2, P_0 the
// leaf groups with α_0 = the smallest leaf distance R_1, then the clusters at each
// threshold R_ℓ with α_ℓ = R_{ℓ+1} - R_ℓ. It also returns the weaker per-lag bounds
// S'_t <= D_t: a block B holds at most |B| - 1 pairs at any one lag (its ranks' residue
// classes mod t each hold one pair fewer than members), so at least (#blocks - t)^+ of
// the n - t pairs at lag t are split at each level.
func (h *fabricHierarchy) laminarSums(k int) (s, sp []int64) {
	n := h.n
	s, sp = make([]int64, k), make([]int64, k)
	for t := 1; t <= k; t++ {
		s[t-1] = int64(h.base) * int64(n-t)
		sp[t-1] = s[t-1]
	}
	blocks := len(h.leaves)
	// same[t-1] = Σ_B (|B| - t)^+ over the current clusters, kept up to date merge by
	// merge in O(k), so that deep hierarchies (many thresholds) stay O((L + levels) k).
	plus := func(c, t int) int64 { return int64(max(c-t, 0)) }
	same := make([]int64, k)
	for _, c := range h.size {
		for t := 1; t <= k; t++ {
			same[t-1] += plus(c, t)
		}
	}
	uf := newUnionFind(len(h.leaves))
	hosts := slices.Clone(h.size)
	prev := 0
	for i := 0; i < len(h.merges); {
		r := h.merges[i].r
		// The partition before merging at r: pairs in different clusters are >= 2 + r
		// apart, >= r - prev more than at the previous threshold.
		for t := 1; t <= k; t++ {
			s[t-1] += int64(r-prev) * (int64(n-t) - same[t-1])
			sp[t-1] += int64(r-prev) * int64(max(blocks-t, 0))
		}
		prev = r
		for ; i < len(h.merges) && h.merges[i].r == r; i++ {
			a, b := uf.find(int(h.merges[i].a)), uf.find(int(h.merges[i].b))
			x, y := hosts[a], hosts[b]
			for t := 1; t <= k; t++ {
				same[t-1] += plus(x+y, t) - plus(x, t) - plus(y, t)
			}
			uf.union(a, b)
			hosts[uf.find(a)] = x + y
			blocks--
		}
	}
	return s, sp
}

// boundFromSums returns Σ_t v'(t) S_t + (v(t) - v'(t)) S'_t exactly, v' the running
// minimum of v(t) = w(t) f_t (f_t = 1 on the line, n/(n-t) on the ring when 2t < n;
// the part of the weights above their running minimum gets the per-lag bound), as the
// largest float64 not above it, and whether that float64 is the exact value.
func boundFromSums(n int, w curves.Weights, s, sp []int64, ring bool) (float64, bool) {
	total := new(big.Rat)
	var run *big.Rat
	for t := 1; t <= len(s); t++ {
		v := new(big.Rat)
		v.SetFloat64(w[t-1])
		if ring && 2*t < n {
			v.Mul(v, big.NewRat(int64(n), int64(n-t)))
		}
		if run == nil || v.Cmp(run) < 0 {
			run = v
		}
		total.Add(total, new(big.Rat).Mul(run, new(big.Rat).SetInt64(s[t-1])))
		rest := new(big.Rat).Sub(v, run)
		total.Add(total, rest.Mul(rest, new(big.Rat).SetInt64(sp[t-1])))
	}
	return ratFloorFloat(total)
}

// ratFloorFloat returns the largest float64 <= x and whether it equals x.
func ratFloorFloat(x *big.Rat) (float64, bool) {
	f, exact := x.Float64()
	if exact {
		return f, true
	}
	switch { // beyond float64's range (SetFloat64 below takes finite values only)
	case math.IsInf(f, 1):
		return math.MaxFloat64, false
	case math.IsInf(f, -1):
		return f, false
	}
	if new(big.Rat).SetFloat64(f).Cmp(x) > 0 {
		f = math.Nextafter(f, math.Inf(-1))
	}
	return f, false
}

// fabricBound is the laminar (ultrametric) bound of a recognized fabric.
func fabricBound(h *fabricHierarchy, w curves.Weights, ring bool) LowerBound {
	k := curves.LagCount(h.n, len(w), ring)
	s, sp := h.laminarSums(k)
	v, exact := boundFromSums(h.n, w, s, sp, ring)
	src := "ultrametric"
	if ring {
		src = "ultrametric-ring"
	}
	return LowerBound{Value: v, Source: src, Exact: exact}
}

// nestedLeafOrder returns the leaves in an order in which every cluster of every
// threshold is contiguous: the Kruskal dendrogram, each merge (a in X, b in Y) laying
// X then Y, X reversed when a is its first leaf and Y when b is its last, so that the
// two leaves the merge was made through meet when they can. Clusters are paths in
// an undirected two-slot adjacency with their two ends, so that concatenating and
// reversing are O(1) and the whole order O(L α(L)) (a chain of 10^5 leaf switches
// must not take quadratic time).
func (h *fabricHierarchy) nestedLeafOrder() []int {
	L := len(h.leaves)
	nb := make([][2]int32, L) // path neighbours, -1 for none
	head := make([]int32, L)  // per cluster root: its ends
	tail := make([]int32, L)
	for i := range nb {
		nb[i] = [2]int32{-1, -1}
		head[i], tail[i] = int32(i), int32(i)
	}
	link := func(x, y int32) {
		for _, v := range [2][2]int32{{x, y}, {y, x}} {
			if nb[v[0]][0] < 0 {
				nb[v[0]][0] = v[1]
			} else {
				nb[v[0]][1] = v[1]
			}
		}
	}
	uf := newUnionFind(L)
	for _, m := range h.merges {
		ra, rb := uf.find(int(m.a)), uf.find(int(m.b))
		if head[ra] == m.a && tail[ra] != m.a {
			head[ra], tail[ra] = tail[ra], head[ra]
		}
		if tail[rb] == m.b && head[rb] != m.b {
			head[rb], tail[rb] = tail[rb], head[rb]
		}
		link(tail[ra], head[rb])
		h0, t0 := head[ra], tail[rb]
		uf.union(ra, rb)
		r := uf.find(ra)
		head[r], tail[r] = h0, t0
	}
	r := uf.find(0)
	order := make([]int, 0, L)
	prev, cur := int32(-1), head[r]
	for cur >= 0 {
		order = append(order, int(cur))
		next := nb[cur][0]
		if next == prev {
			next = nb[cur][1]
		}
		prev, cur = cur, next
	}
	return order
}

// hostsOfLeaves expands a leaf order into a host order (hosts of a leaf ascending).
func (h *fabricHierarchy) hostsOfLeaves(leafOrder []int) []int {
	start := make([]int, len(h.leaves)+1)
	for _, l := range h.leafOf {
		start[l+1]++
	}
	for i := range h.leaves {
		start[i+1] += start[i]
	}
	byLeaf := make([]int, h.n)
	fill := slices.Clone(start)
	for v, l := range h.leafOf {
		byLeaf[fill[l]] = v
		fill[l]++
	}
	o := make([]int, 0, h.n)
	for _, l := range leafOrder {
		o = append(o, byLeaf[start[l]:start[l+1]]...)
	}
	return o
}

// leafChain returns a walk through all leaves in which consecutive leaves share a
// direct switch link as often as it can find (a Hamiltonian path of the leaf graph,
// by Warnsdorff's rule: go to the unvisited neighbour with the fewest unvisited
// neighbours, ties to the one sharing the most neighbours with the current leaf, then
// the smallest index; when no unvisited neighbour is left it jumps to the unvisited
// leaf with the fewest unvisited neighbours), and the number of jumps it made. On a dragonfly it lays each group's routers contiguously and leaves a
// group from a router with a global link into the next, so that with hosts_per_router
// >= K every pair at lag <= K is on one router or on two linked routers.
//
// When it is stuck it jumps to the first unvisited leaf of fallback (the nested
// order), so that jumps follow the hierarchy and cost O(L) in all.
func (h *fabricHierarchy) leafChain(ctx context.Context, fallback []int) (order []int, jumps int) {
	L := len(h.leaves)
	visited := make([]bool, L)
	free := make([]int, L) // unvisited neighbours
	for i := range free {
		free[i] = len(h.adj[i])
	}
	mark := make([]int, L)
	stamp := 0
	common := func(a, b int) int {
		stamp++
		for _, x := range h.adj[a] {
			mark[x] = stamp
		}
		c := 0
		for _, x := range h.adj[b] {
			if mark[x] == stamp {
				c++
			}
		}
		return c
	}
	visit := func(v int) {
		visited[v] = true
		order = append(order, v)
		for _, x := range h.adj[v] {
			free[x]--
		}
	}
	// The tie-break by common neighbours is evaluated for at most maxCommon
	// candidates per step, so that dense leaf graphs stay near-linear.
	const maxCommon = 32
	next := func(cur int) int {
		best, bf, bc, evals := -1, 0, 0, 0
		for _, x32 := range h.adj[cur] {
			x := int(x32)
			if visited[x] {
				continue
			}
			f := free[x]
			if best >= 0 && (f > bf || (f == bf && evals >= maxCommon)) {
				continue
			}
			c := 0
			if evals < maxCommon {
				c = common(cur, x)
				evals++
			}
			if best < 0 || f < bf || c > bc {
				best, bf, bc = x, f, c
			}
		}
		return best
	}
	// Start at a leaf of fewest neighbours (first in fallback order on ties).
	start := fallback[0]
	for _, i := range fallback {
		if len(h.adj[i]) < len(h.adj[start]) {
			start = i
		}
	}
	visit(start)
	ptr := 0 // fallback[:ptr] are visited
	for len(order) < L {
		if len(order)&1023 == 0 && ctx.Err() != nil {
			break
		}
		x := next(order[len(order)-1])
		if x < 0 {
			jumps++
			for visited[fallback[ptr]] {
				ptr++
			}
			x = fallback[ptr]
		}
		visit(x)
	}
	for i := range L { // only when ctx ended early
		if !visited[i] {
			order = append(order, i)
		}
	}
	return order, jumps
}
