package topo

import (
	"cmp"
	"slices"
	"sync"
)

// Closed-form pairwise distances of the synthetic fat trees and dragonflies. FatTree
// and Dragonfly record the structure they build (synthLayout); PairDistSum then sums
// a job's hop distances from it in O(k x levels) on a fat tree and O(k x h^2) on a
// dragonfly (h global links per router), with no search of the graph, instead of
// one distance per pair of classes (docs/sim.md, "Per-job metrics at scale"). The
// values are the breadth-first distances: TestStructuredPairDistSum compares them
// on random jobs of random fat trees and dragonflies.
//
// Fat tree (merlin's shape, FatTree): a group of level l holds the switches above
// D_l groups of level l-1, and every switch of a group has a down link into each of
// them, so two hosts whose lowest common group is at level l (level 0: one leaf
// switch) are 2(l+1) hops apart: up l levels and down again, plus the two host
// links. Host h's group of level l is h / (D_0 D_1 ... D_l).
//
// Dragonfly (Dragonfly): hosts hang on their routers, the routers of a group are
// all joined, and every two groups are joined by a global link. Router distances
// are then 1 inside a group, and between routers u (group A) and v (group B != A):
// 1 when a global link joins them; 2 when u has a global link into B, or v into A,
// or both have one to a router x of a third group; else 3 (u, a router of A with a
// link into B, its end in B, v). Two hosts on one router are 2 apart, on routers u
// != v 2 + d(u, v). A job's sum is then counted from its hosts per router and per
// group: pairs in different groups count 3, less 2 for each joined pair and 1 for
// each pair at distance 2, and those are counted per router of the job from the
// groups its global links reach (all of their routers), the job's routers with a
// link into its group, and the routers two global links away.
type synthLayout struct {
	// Fat tree: span[l] = D_0 ... D_l hosts per group of level l (the top: all).
	span []int
	// Dragonfly: hosts per router, routers per group, groups.
	p, a, groups int

	once sync.Once
	// Dragonfly, built on first use: router r's global neighbours (router indices)
	// glob[gOff[r]:gOff[r+1]] and the groups they are in, distinct and ascending,
	// lgrp[lOff[r]:lOff[r+1]].
	gOff, glob, lOff, lgrp []int32
	scratch                sync.Pool // *dfScratch or *ftScratch
}

// structuredPairDistSum is PairDistSum from the layout; false when it does not
// apply (a vertex that is not a host).
func (g *Graph) structuredPairDistSum(nodes []int) (int64, bool) {
	s := g.layout
	for _, v := range nodes {
		if v < 0 || v >= g.hosts {
			return 0, false
		}
	}
	if s.span != nil {
		return s.fatTreeSum(g, nodes), true
	}
	return s.dragonflySum(g, nodes), true
}

type ftScratch struct {
	stamp, cnt []int32
	gen        int32
}

func (s *synthLayout) fatTreeSum(g *Graph, nodes []int) int64 {
	sc, _ := s.scratch.Get().(*ftScratch)
	if sc == nil {
		ng := g.hosts / s.span[0] // groups of level 0, the most of any level
		sc = &ftScratch{stamp: make([]int32, ng), cnt: make([]int32, ng)}
	}
	defer s.scratch.Put(sc)
	var total, prev int64 // prev: pairs sharing a group of the level below
	for l, span := range s.span {
		sc.gen++
		if sc.gen <= 0 {
			clear(sc.stamp)
			sc.gen = 1
		}
		var same int64 // pairs sharing a group of level l
		for _, h := range nodes {
			gi := h / span
			if sc.stamp[gi] != sc.gen {
				sc.stamp[gi], sc.cnt[gi] = sc.gen, 0
			}
			same += int64(sc.cnt[gi])
			sc.cnt[gi]++
		}
		total += (same - prev) * int64(2*(l+1))
		prev = same
	}
	return total
}

// dfIndex builds the dragonfly's global links per router.
func (s *synthLayout) dfIndex(g *Graph) {
	s.once.Do(func() {
		R := s.a * s.groups
		s.gOff = make([]int32, R+1)
		s.lOff = make([]int32, R+1)
		var grp []int32
		for r := range R {
			A := r / s.a
			grp = grp[:0]
			for _, w := range g.adj[g.hosts+r] {
				if w < g.hosts {
					continue
				}
				if v := w - g.hosts; v/s.a != A {
					s.glob = append(s.glob, int32(v))
					grp = append(grp, int32(v/s.a))
				}
			}
			s.gOff[r+1] = int32(len(s.glob))
			slices.Sort(grp)
			s.lgrp = append(s.lgrp, slices.Compact(grp)...)
			s.lOff[r+1] = int32(len(s.lgrp))
		}
	})
}

// linksInto reports whether router r has a global link into group B.
func (s *synthLayout) linksInto(r int32, B int32) bool {
	_, ok := slices.BinarySearch(s.lgrp[s.lOff[r]:s.lOff[r+1]], B)
	return ok
}

type dfScratch struct {
	w, wStamp []int32 // job hosts per router (stamped)
	W         []int64 // job hosts per group (stamped in gStampGen)
	gStampGen []int32
	groups    []int32 // the job's groups
	seen      []int32 // per router: stamp of the last job router that counted it (Z)
	mark      []int32 // per group: stamp of the job router whose links reach it
	gen       int32
	seenGen   int32
	routers   []int32
	in        []dfIn  // (group A, group B, weight): job routers of B with a link into A
	inOff     []int32 // per group A (stamped with gStampGen): its entries in[inOff[A]:inEnd[A]]
	inEnd     []int32
}

type dfIn struct {
	A, B int32
	w    int64
}

func (s *synthLayout) dragonflySum(g *Graph, nodes []int) int64 {
	s.dfIndex(g)
	R := s.a * s.groups
	sc, _ := s.scratch.Get().(*dfScratch)
	if sc == nil {
		sc = &dfScratch{w: make([]int32, R), wStamp: make([]int32, R), seen: make([]int32, R),
			W: make([]int64, s.groups), gStampGen: make([]int32, s.groups),
			mark: make([]int32, s.groups), inOff: make([]int32, s.groups), inEnd: make([]int32, s.groups)}
	}
	defer s.scratch.Put(sc)
	if sc.gen > 1<<30 || sc.seenGen > 1<<30 {
		clear(sc.wStamp)
		clear(sc.gStampGen)
		clear(sc.seen)
		clear(sc.mark)
		sc.gen, sc.seenGen = 0, 0
	}
	sc.gen++
	gen := sc.gen
	k := int64(len(nodes))
	weight := func(r int32) int64 {
		if sc.wStamp[r] == gen {
			return int64(sc.w[r])
		}
		return 0
	}
	groupW := func(A int32) int64 {
		if sc.gStampGen[A] == gen {
			return sc.W[A]
		}
		return 0
	}
	// Hosts per router and per group.
	sc.routers, sc.groups = sc.routers[:0], sc.groups[:0]
	for _, h := range nodes {
		r := int32(h / s.p)
		if sc.wStamp[r] != gen {
			sc.wStamp[r], sc.w[r] = gen, 0
			sc.routers = append(sc.routers, r)
		}
		sc.w[r]++
		A := r / int32(s.a)
		if sc.gStampGen[A] != gen {
			sc.gStampGen[A], sc.W[A] = gen, 0
			sc.inOff[A], sc.inEnd[A] = 0, 0
			sc.groups = append(sc.groups, A)
		}
		sc.W[A]++
	}
	// Host pairs in one group on different routers, and in different groups.
	var sumW2, wr2 int64
	for _, A := range sc.groups {
		sumW2 += sc.W[A] * sc.W[A]
	}
	for _, r := range sc.routers {
		wr2 += int64(sc.w[r]) * int64(sc.w[r])
	}
	sameGroup := (sumW2 - wr2) / 2
	diffGroup := (k*k - sumW2) / 2
	// The job's routers with a link into each of the job's groups, by their group.
	sc.in = sc.in[:0]
	for _, r := range sc.routers {
		B := r / int32(s.a)
		for _, A := range s.lgrp[s.lOff[r]:s.lOff[r+1]] {
			if groupW(A) > 0 {
				sc.in = append(sc.in, dfIn{A: A, B: B, w: int64(sc.w[r])})
			}
		}
	}
	slices.SortFunc(sc.in, func(x, y dfIn) int {
		if c := cmp.Compare(x.A, y.A); c != 0 {
			return c
		}
		return cmp.Compare(x.B, y.B)
	})
	// Merge entries of one (A, B) and index them by A.
	m := 0
	for i, e := range sc.in {
		if m > 0 && sc.in[m-1].A == e.A && sc.in[m-1].B == e.B {
			sc.in[m-1].w += e.w
			continue
		}
		sc.in[m] = sc.in[i]
		m++
	}
	sc.in = sc.in[:m]
	for i := 0; i < m; {
		A := sc.in[i].A
		j := i
		for j < m && sc.in[j].A == A {
			j++
		}
		sc.inOff[A], sc.inEnd[A] = int32(i), int32(j)
		i = j
	}
	inWeight := func(A, B int32) int64 { // job hosts of group B on routers linking into A
		lo, hi := sc.inOff[A], sc.inEnd[A]
		seg := sc.in[lo:hi]
		i, ok := slices.BinarySearchFunc(seg, B, func(e dfIn, b int32) int { return cmp.Compare(e.B, b) })
		if ok {
			return seg[i].w
		}
		return 0
	}
	// Ordered pairs of routers in different groups joined by a link (o1) and at
	// distance at most 2 (o2), weighted by hosts.
	var o1, o2 int64
	for _, r1 := range sc.routers {
		w1 := int64(sc.w[r1])
		A := r1 / int32(s.a)
		sc.seenGen++
		mk := sc.seenGen
		var x, y, z int64
		// X: every router of a group r1's links reach.
		var yOut int64 // Y's weight from groups X covers already
		for _, B := range s.lgrp[s.lOff[r1]:s.lOff[r1+1]] {
			sc.mark[B] = mk
			x += groupW(B)
			yOut += inWeight(A, B)
		}
		// Y: the job's routers of other groups with a link into A.
		var yAll int64
		for _, e := range sc.in[sc.inOff[A]:sc.inEnd[A]] {
			yAll += e.w
		}
		y = yAll - yOut
		// Z: two global links away through a third group, not counted yet.
		for _, xr := range s.glob[s.gOff[r1]:s.gOff[r1+1]] {
			o1 += w1 * weight(xr)
			for _, r2 := range s.glob[s.gOff[xr]:s.gOff[xr+1]] {
				if r2 == r1 || sc.seen[r2] == mk {
					continue
				}
				w2 := weight(r2)
				if w2 == 0 {
					continue
				}
				B := r2 / int32(s.a)
				if B == A || sc.mark[B] == mk || s.linksInto(r2, A) {
					continue
				}
				sc.seen[r2] = mk
				z += w2
			}
		}
		o2 += w1 * (x + y + z)
	}
	// Router distances: 1 in a group; 3 across groups, less 2 when joined and 1 at
	// distance 2 (o2 counts both, o1 the joined; each pair twice).
	routerSum := sameGroup + 3*diffGroup - (o1+o2)/2
	return 2*(k*(k-1)/2) + routerSum
}
