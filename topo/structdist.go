package topo

import (
	"slices"
	"sync"
)

// Closed-form pairwise distances of the synthetic fat trees and dragonflies. FatTree
// and Dragonfly record the structure they build (synthLayout), and a dragonfly read
// from a file gets the layout of its recognised structure (Graph.Dragonfly); PairDistSum then sums
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
// link into its group, and the routers two global links away (listed per router
// once, when the layout is first used: O(routers x h^2) int32s). Per job there is
// no sort and no search: counting sorts and stamped per-group counters.
type synthLayout struct {
	// Fat tree: span[l] = D_0 ... D_l hosts per group of level l (the top: all).
	span []int
	// Dragonfly: hosts per router, routers per group, groups, and the numbering of
	// a recognised one numbered otherwise than Dragonfly numbers it.
	p, a, groups int
	num          dragonflyNumbering

	once sync.Once
	// Dragonfly, built on first use: router r's global neighbours (router indices)
	// glob[gOff[r]:gOff[r+1]] and the groups they are in, distinct and ascending,
	// lgrp[lOff[r]:lOff[r+1]].
	gOff, glob, lOff, lgrp []int32
	// Router r's routers at distance 2 through a third group only: two[tOff[r]:tOff[r+1]].
	tOff, two []int32
	scratch   sync.Pool // *dfScratch or *ftScratch
}

// structLayout returns the layout of the closed-form distances: the one FatTree or
// Dragonfly recorded, else that of the dragonfly structure recognised from the
// links (Dragonfly: its distances follow from the same three facts, routers of a
// group joined, hosts on their routers, every two groups linked), else nil.
func (g *Graph) structLayout() *synthLayout {
	if g.layout != nil {
		return g.layout
	}
	g.recLayoutOnce.Do(func() {
		if sh, ok := g.Dragonfly(); ok {
			g.recLayout = &synthLayout{p: sh.HostsPerRouter, a: sh.RoutersPerGroup, groups: sh.Groups, num: g.dfNum}
		}
	})
	return g.recLayout
}

// structuredPairDistSum is PairDistSum from layout s; false when it does not
// apply (a vertex that is not a host).
func (g *Graph) structuredPairDistSum(s *synthLayout, nodes []int) (int64, bool) {
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

// routerOf is the router index of host h.
func (s *synthLayout) routerOf(h int) int32 {
	if s.num.hostRouter != nil {
		return s.num.hostRouter[h]
	}
	return int32(h / s.p)
}

// routerVertex is the vertex of router index r.
func (s *synthLayout) routerVertex(g *Graph, r int) int {
	if s.num.routerVertex != nil {
		return int(s.num.routerVertex[r])
	}
	return g.hosts + r
}

// routerIndex is the router index of switch vertex v.
func (s *synthLayout) routerIndex(g *Graph, v int) int32 {
	if s.num.vertexRouter != nil {
		return s.num.vertexRouter[v-g.hosts]
	}
	return int32(v - g.hosts)
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
			for _, w := range g.adj[s.routerVertex(g, r)] {
				if w < g.hosts {
					continue
				}
				if v := int(s.routerIndex(g, w)); v/s.a != A {
					s.glob = append(s.glob, int32(v))
					grp = append(grp, int32(v/s.a))
				}
			}
			s.gOff[r+1] = int32(len(s.glob))
			slices.Sort(grp)
			s.lgrp = append(s.lgrp, slices.Compact(grp)...)
			s.lOff[r+1] = int32(len(s.lgrp))
		}
		// Routers two global links from r through a third group and at distance 2
		// for no other reason: not in r's group, not in a group r links into, with
		// no link into r's group (distinct; the job's hosts on them are Z below).
		// The tests are stamps, not binary searches of lgrp: this is routers x
		// global links^2 of them, 4.8 x 10^8 on a dragonfly of 390 groups with 16 links
		// between every two (7 s with the searches, not interruptible).
		s.tOff = make([]int32, R+1)
		seen := make([]int32, R)        // stamp r+1 of the router that listed it
		shut := make([]int32, s.groups) // stamp r+1: r's group, or one r links into
		intoA := make([]int32, R)       // stamp A+1: the router links into group A
		for r := range R {
			A := int32(r / s.a)
			if r%s.a == 0 { // a new group: its routers' global neighbours link into it
				for u := r; u < r+s.a; u++ {
					for _, x := range s.glob[s.gOff[u]:s.gOff[u+1]] {
						intoA[x] = A + 1
					}
				}
			}
			shut[A] = int32(r + 1)
			for _, B := range s.lgrp[s.lOff[r]:s.lOff[r+1]] {
				shut[B] = int32(r + 1)
			}
			for _, x := range s.glob[s.gOff[r]:s.gOff[r+1]] {
				for _, v := range s.glob[s.gOff[x]:s.gOff[x+1]] {
					if seen[v] == int32(r+1) || shut[v/int32(s.a)] == int32(r+1) || intoA[v] == A+1 {
						continue
					}
					seen[v] = int32(r + 1)
					s.two = append(s.two, v)
				}
			}
			s.tOff[r+1] = int32(len(s.two))
		}
	})
}

// dfScratch is the scratch of a dragonfly sum. The stamp and the count of a router
// (of a group) sit side by side, one cache line for both: the sum's inner loops
// look a router up for every global link and two-link neighbour of the job's
// routers (about 60 look-ups a router on the 100k dragonfly).
type dfScratch struct {
	rw      []dfRouterW // job hosts per router (stamped with gen)
	gw      []dfGroupW  // job hosts per group and the group's index in groups (stamped with gen)
	in      []dfInW     // per group B (stamped with bGen): job hosts of B on routers linking into the group at hand
	groups  []int32     // the job's groups
	gen     int32
	bGen    int32
	routers []int32
	// The job's routers bucketed by group (index in groups): byGroup[rOff[i]:rOff[i+1]];
	// and per job group A the (group, hosts) of the job's routers of other groups with
	// a link into A: inLinks[iOff[i]:iOff[i+1]]. Counting sorts, no comparisons.
	byGroup, rOff, iOff, fill []int32
	inLinks                   []dfInLink
	// dragonflySumFree: the set's whole groups, its pieces, its routers in the
	// other groups, and the other groups of the pieces' range.
	whole, piece, single, other []int32
	sl                          []int64
}

type dfRouterW struct{ stamp, w int32 }

type dfGroupW struct {
	stamp, idx int32
	w          int64
	// dragonflySumFree: the set's routers holding all their free hosts, those of
	// them linking into the center's group, every router of the set; the group's
	// kind (unitSingle, unitWhole, unitPiece: the piece, its other routers
	// single); the hosts on its single routers (those outside its unit).
	full, inFull, cnt int32
	nSingle           int32
	unit              uint8
}

type dfInW struct {
	stamp int32
	w     int64
}

type dfInLink struct{ group, w int32 }

func (s *synthLayout) dragonflySum(g *Graph, nodes []int) int64 {
	sc := s.dfStart(g)
	defer s.scratch.Put(sc)
	gen := sc.gen
	k := int64(len(nodes))
	a := int32(s.a)
	// Hosts per router and per group. A run of the job's hosts on one router is counted at once (jobs come mostly
	// as runs of consecutive hosts: the stamps are looked at once a router).
	for i := 0; i < len(nodes); {
		r := s.routerOf(nodes[i])
		j := i + 1
		for j < len(nodes) && s.routerOf(nodes[j]) == r {
			j++
		}
		c := int32(j - i)
		i = j
		if sc.rw[r].stamp != gen {
			sc.rw[r] = dfRouterW{gen, 0}
			sc.routers = append(sc.routers, r)
		}
		sc.rw[r].w += c
		sc.inGroup(r/a, c)
	}
	return s.dfPairs(sc, gen, k)
}

// dfStart takes a scratch from the pool (the caller puts it back) with a new
// stamp, its routers and groups emptied.
func (s *synthLayout) dfStart(g *Graph) *dfScratch {
	s.dfIndex(g)
	R := s.a * s.groups
	sc, _ := s.scratch.Get().(*dfScratch)
	if sc == nil {
		sc = &dfScratch{rw: make([]dfRouterW, R), gw: make([]dfGroupW, s.groups), in: make([]dfInW, s.groups),
			sl: make([]int64, s.groups)}
	}
	if sc.gen > 1<<30 || sc.bGen > 1<<30 {
		clear(sc.rw)
		clear(sc.gw)
		clear(sc.in)
		sc.gen, sc.bGen = 0, 0
	}
	sc.gen++
	sc.routers, sc.groups = sc.routers[:0], sc.groups[:0]
	return sc
}

// inGroup counts c more of the job's hosts in group A (listing A once a stamp).
func (sc *dfScratch) inGroup(A, c int32) {
	if sc.gw[A].stamp != sc.gen {
		sc.gw[A] = dfGroupW{stamp: sc.gen, idx: int32(len(sc.groups))}
		sc.groups = append(sc.groups, A)
	}
	sc.gw[A].w += int64(c)
}

// dragonflySumCounts is dragonflySum of a set with counts[i] hosts on router
// router[ids[i]] (distinct routers, counts > 0; router nil: ids[i] itself), without
// the hosts.
func (s *synthLayout) dragonflySumCounts(g *Graph, ids, router, counts []int32) int64 {
	sc := s.dfStart(g)
	defer s.scratch.Put(sc)
	gen := sc.gen
	a := int32(s.a)
	var k int64
	for i, r := range ids {
		if router != nil {
			r = router[r]
		}
		c := counts[i]
		k += int64(c)
		sc.rw[r] = dfRouterW{gen, c}
		sc.routers = append(sc.routers, r)
		sc.inGroup(r/a, c)
	}
	return s.dfPairs(sc, gen, k)
}

// dfPairs is the total hops of the k hosts counted in sc (hosts per router rw and
// per group gw, stamped gen; the routers and groups listed).
func (s *synthLayout) dfPairs(sc *dfScratch, gen int32, k int64) int64 {
	rw, gw := sc.rw, sc.gw
	// Host pairs in one group on different routers, and in different groups.
	var sumW2, wr2 int64
	for _, A := range sc.groups {
		sumW2 += gw[A].w * gw[A].w
	}
	for _, r := range sc.routers {
		wr2 += int64(rw[r].w) * int64(rw[r].w)
	}
	sameGroup := (sumW2 - wr2) / 2
	diffGroup := (k*k - sumW2) / 2
	s.bucketByGroup(sc, sc.routers, gen, false)
	// The group with the most of the job's routers (big) is not walked: its
	// pairs with the others are counted from their side, twice (both orders).
	big, most := int32(-1), int32(1)
	for gi, B := range sc.groups {
		if n := sc.rOff[gi+1] - sc.rOff[gi]; n > most {
			big, most = B, n
		}
	}
	// Ordered pairs of routers in different groups joined by a link (o1) and at
	// distance at most 2 (o2), weighted by hosts; [1]: with big's routers.
	var o1, o2 [2]int64
	in := sc.in
	a := int32(s.a)
	for gi, A := range sc.groups {
		if A == big {
			continue
		}
		// in[B]: the job's hosts of group B on routers with a link into A; yAll
		// their sum (Y: the job's routers of other groups with a link into A).
		inGen, yAll := sc.sumInLinks(gi)
		var yBig int64
		if big >= 0 && in[big].stamp == inGen {
			yBig = in[big].w
		}
		for _, r1 := range sc.byGroup[sc.rOff[gi]:sc.rOff[gi+1]] {
			w1 := int64(rw[r1].w)
			var x, z, j1 [2]int64
			// X: every router of a group r1's links reach.
			var yOut [2]int64 // Y's weight from groups X covers already
			for _, B := range s.lgrp[s.lOff[r1]:s.lOff[r1+1]] {
				b := 0 // 1: big's
				if B == big {
					b = 1
				}
				if gw[B].stamp == gen {
					x[b] += gw[B].w
				}
				if in[B].stamp == inGen {
					yOut[b] += in[B].w
				}
			}
			for _, xr := range s.glob[s.gOff[r1]:s.gOff[r1+1]] {
				if rw[xr].stamp == gen {
					if xr/a == big {
						j1[1] += int64(rw[xr].w)
					} else {
						j1[0] += int64(rw[xr].w)
					}
				}
			}
			// Z: two global links away through a third group, not counted yet.
			for _, r2 := range s.two[s.tOff[r1]:s.tOff[r1+1]] {
				if rw[r2].stamp == gen {
					if r2/a == big {
						z[1] += int64(rw[r2].w)
					} else {
						z[0] += int64(rw[r2].w)
					}
				}
			}
			o1[0] += w1 * j1[0]
			o1[1] += w1 * j1[1]
			o2[0] += w1 * (x[0] + yAll - yBig - yOut[0] + z[0])
			o2[1] += w1 * (x[1] + yBig - yOut[1] + z[1])
		}
	}
	// Router distances: 1 in a group; 3 across groups, less 2 when joined and 1 at
	// distance 2 (o2 counts both, o1 the joined; each pair twice, but those with
	// big's routers once).
	routerSum := sameGroup + 3*diffGroup - (o1[0]+o2[0])/2 - (o1[1] + o2[1])
	return 2*(k*(k-1)/2) + routerSum
}

// bucketByGroup lists routers (the set's, stamped gen in sc) by group, in
// sc.byGroup[sc.rOff[i]:sc.rOff[i+1]] for the set's i-th group, and their global
// links into the set's groups by the group reached, in
// sc.inLinks[sc.iOff[i]:sc.iOff[i+1]] (two counting sorts). singles keeps only
// the links into groups with routers of sc.single (dfPairsSingles).
func (s *synthLayout) bucketByGroup(sc *dfScratch, routers []int32, gen int32, singles bool) {
	a := int32(s.a)
	rw, gw := sc.rw, sc.gw
	G := len(sc.groups)
	sc.rOff = resize32(sc.rOff, G+1)
	sc.iOff = resize32(sc.iOff, G+1)
	for _, r := range routers {
		sc.rOff[gw[r/a].idx+1]++
		for _, A := range s.lgrp[s.lOff[r]:s.lOff[r+1]] {
			if gw[A].stamp == gen && (!singles || gw[A].nSingle > 0) {
				sc.iOff[gw[A].idx+1]++
			}
		}
	}
	for i := range G {
		sc.rOff[i+1] += sc.rOff[i]
		sc.iOff[i+1] += sc.iOff[i]
	}
	sc.byGroup = resize32(sc.byGroup, len(routers))
	sc.inLinks = slices.Grow(sc.inLinks[:0], int(sc.iOff[G]))[:sc.iOff[G]]
	sc.fill = resize32(sc.fill, 2*G)
	fr, fi := sc.fill[:G], sc.fill[G:]
	copy(fr, sc.rOff[:G])
	copy(fi, sc.iOff[:G])
	for _, r := range routers {
		B := r / a
		gi := gw[B].idx
		sc.byGroup[fr[gi]] = r
		fr[gi]++
		w := rw[r].w
		for _, A := range s.lgrp[s.lOff[r]:s.lOff[r+1]] {
			if gw[A].stamp == gen && (!singles || gw[A].nSingle > 0) {
				j := gw[A].idx
				sc.inLinks[fi[j]] = dfInLink{B, w}
				fi[j]++
			}
		}
	}
}

// sumInLinks adds up, by group B, the hosts on the set's routers of B with a
// global link into the set's gi-th group (bucketByGroup's inLinks), in sc.in
// stamped with a new bGen, which it returns with their sum.
func (sc *dfScratch) sumInLinks(gi int) (inGen int32, sum int64) {
	sc.bGen++
	inGen = sc.bGen
	in := sc.in
	for _, l := range sc.inLinks[sc.iOff[gi]:sc.iOff[gi+1]] {
		if in[l.group].stamp != inGen {
			in[l.group] = dfInW{inGen, 0}
		}
		in[l.group].w += int64(l.w)
		sum += int64(l.w)
	}
	return inGen, sum
}

// resize32 returns b with length n, zeroed, reusing its array when it can.
func resize32(b []int32, n int) []int32 {
	b = slices.Grow(b[:0], n)[:n]
	clear(b)
	return b
}

// FatTreeSpans returns, for a fat tree FatTree built (merlin's shape), the hosts per
// group of every level: span[0] hosts a leaf switch, span[l] = D_0 ... D_l, the
// last all of them; host h's group of level l is h / span[l], and two hosts whose
// lowest common group is at level l are 2(l+1) hops apart (the closed form above).
// It returns nil for any other network. The slice is the layout's: do not modify it.
func (g *Graph) FatTreeSpans() []int {
	if s := g.layout; s != nil && s.span != nil {
		return s.span
	}
	return nil
}

// DragonflyFree is the tables of a dragonfly's free hosts (one decision's) with
// which DragonflyCountSumFree scores a set's whole groups and pieces as units, not
// router by router. A group is whole in a set when the set holds every free host of
// every router of it; it is a piece of group A (the center's group) when the set
// holds, of it, exactly the free hosts of its routers with a global link into A
// (A's two-hop routers there: the part of the group a center of A takes when the
// group is neither its own nor one its links reach). For groups B != C: wf[B] free
// hosts of B, lf[B*G+C] the free hosts of B on routers with a global link into C,
// and m[B*G+C] the closeness of the two whole groups: the sum, over the pairs of
// their free hosts, of 3 less the routers' distance (structdist.go's closed form: 1
// when a router of one links into the other's group, plus 1 when the two routers
// are joined or are two global links apart through a third group only):
//
//	lf[B][C] wf[C] + wf[B] lf[C][B] - lf[B][C] lf[C][B] + joined(B, C) + two(B, C).
//
// Built in O(routers x (global links + two-link neighbours) + groups^2); the
// pieces' tables (dfPieces) per group A when first asked for.
type DragonflyFree struct {
	f            []int32 // free hosts per router index
	nr           []int32 // routers with a free host per group
	wf, lf, m    []int64
	f2           []int64 // per group: the sum of its routers' free hosts squared
	inOff, inR   []int32 // the routers with a free host and a link into group A: inR[inOff[A]:inOff[A+1]]
	pc           dfPieces
	gen          int32 // builds: DragonflyNear.candidate's per-group scratch is of one
	pieceMinSize int   // sets of fewer routers are scored without the pieces' tables
	pieceSums    int   // tests: 1 sums the pieces pair by pair, 2 by the range less its other groups
}

// dfPieces is the tables of the pieces of group A (A = -1: none yet). For groups
// C, C' != A: la[C] = lf[C][A] the free hosts of C's piece, nIn[C] its routers,
// k[C*G+B] its free hosts on routers linking into B (kt: transposed), and, kept
// only as prefix sums by row, the closeness na of the pieces of C and C' and oa
// of the whole group B and the piece of C': rn[C*(G+1)+j] = sum over C' < j of
// na[C][C'] (naAt), roa likewise (oaAt); pn[j] the sum of na over C, C' < j, and
// kn[j*G+B] the sum over C < j of k[C][B]. O(groups^2 + the pieces' routers x
// (global links + two-link neighbours)) per group A, made when a set of one of
// its centers first needs them.
type dfPieces struct {
	A                      int32
	inA                    []int32 // router -> A+1 when it links into A
	nIn                    []int32
	la, k, kt, rn, roa, pn []int64
	kn                     []int64 // kn[n*G+B] = sum over C < n of k[C][B]
	jn, jo                 []int64 // joined and two-link pairs (scratch of pieces)
}

const (
	unitSingle = iota
	unitWhole
	unitPiece
)

// DragonflyFree returns the tables of the free hosts counts[i] on key keys[i]
// (distinct keys, counts > 0; every other key has none) on a dragonfly with Near's
// short form, reusing t's arrays when t is not nil; false on any other network.
func (hk *HopKeys) DragonflyFree(t *DragonflyFree, keys, counts []int32) (*DragonflyFree, bool) {
	s := hk.df
	if s == nil {
		return nil, false
	}
	s.dfIndex(hk.g)
	if t == nil {
		t = &DragonflyFree{pc: dfPieces{A: -1}}
	}
	R, G, a := s.a*s.groups, s.groups, int32(s.a)
	if t.pc.A >= 0 && len(t.pc.k) == G*G {
		t.pc.clearSparse(s, t, t.pc.A) // from the last decision's lists
	}
	t.f = resize32(t.f, R)
	t.nr = resize32(t.nr, G)
	t.wf = resize64(t.wf, G)
	t.lf = resize64(t.lf, G*G)
	t.m = resize64(t.m, G*G)
	t.f2 = resize64(t.f2, G)
	t.gen++
	t.pc.A = -1
	t.pieceMinSize = G / 2
	for i, x := range keys {
		r := hk.keyRouter[x]
		c := counts[i]
		t.f[r] = c
		B := r / a
		t.nr[B]++
		t.wf[B] += int64(c)
		t.f2[B] += int64(c) * int64(c)
	}
	t.inOff = resize32(t.inOff, G+1)
	for r := range int32(R) {
		fu := int64(t.f[r])
		if fu == 0 {
			continue
		}
		B := int(r / a)
		for _, C := range s.lgrp[s.lOff[r]:s.lOff[r+1]] {
			t.lf[B*G+int(C)] += fu
			t.inOff[C+1]++
		}
		// Joined routers and routers two global links apart: each unordered pair
		// once from either side, into m[B][C] and m[C][B].
		for _, v := range s.glob[s.gOff[r]:s.gOff[r+1]] {
			t.m[B*G+int(v/a)] += fu * int64(t.f[v])
		}
		for _, v := range s.two[s.tOff[r]:s.tOff[r+1]] {
			t.m[B*G+int(v/a)] += fu * int64(t.f[v])
		}
	}
	for B := range G {
		t.inOff[B+1] += t.inOff[B]
		for C := range G {
			if B != C {
				lbc, lcb := t.lf[B*G+C], t.lf[C*G+B]
				t.m[B*G+C] += lbc*t.wf[C] + t.wf[B]*lcb - lbc*lcb
			}
		}
	}
	t.inR = resize32(t.inR, int(t.inOff[G]))
	fill := append([]int32(nil), t.inOff[:G]...)
	for r := range int32(R) {
		if t.f[r] == 0 {
			continue
		}
		for _, C := range s.lgrp[s.lOff[r]:s.lOff[r+1]] {
			t.inR[fill[C]] = r
			fill[C]++
		}
	}
	return t, true
}

// pieces makes the pieces' tables of group A (dfPieces), unless they are A's.
func (t *DragonflyFree) pieces(s *synthLayout, A int32) *dfPieces {
	p := &t.pc
	if p.A == A {
		return p
	}
	G, a := s.groups, int32(s.a)
	R := s.a * s.groups
	if len(p.inA) != R {
		p.inA = make([]int32, R)
	}
	if len(p.k) != G*G {
		// k, kt (k transposed), jn and jo are kept zero between groups: their
		// entries are cleared one by one, as they were added.
		p.k, p.kt, p.jn, p.jo = make([]int64, G*G), make([]int64, G*G), make([]int64, G*G), make([]int64, G*G)
	} else if p.A >= 0 {
		p.clearSparse(s, t, p.A)
	}
	p.A = A
	p.nIn = resize32(p.nIn, G)
	p.la = resize64(p.la, G)
	// rn, roa, pn and kn are written whole below: grown, not cleared.
	p.rn = slices.Grow(p.rn[:0], G*(G+1))[:G*(G+1)]
	p.roa = slices.Grow(p.roa[:0], G*(G+1))[:G*(G+1)]
	p.pn = slices.Grow(p.pn[:0], G+1)[:G+1]
	p.kn = slices.Grow(p.kn[:0], G*(G+1))[:G*(G+1)]
	in := t.inR[t.inOff[A]:t.inOff[A+1]]
	for _, u := range in {
		p.inA[u] = A + 1
		C := int(u / a)
		fu := int64(t.f[u])
		p.la[C] += fu
		p.nIn[C]++
		for _, B := range s.lgrp[s.lOff[u]:s.lOff[u+1]] {
			p.k[C*G+int(B)] += fu
			p.kt[int(B)*G+C] += fu
		}
	}
	// Joined and two-link pairs: a piece's router u with any router v (of a
	// whole group: jo[B][C]), and with another piece's (jn[C][B]).
	for _, u := range in {
		C := int(u / a)
		fu := int64(t.f[u])
		for _, nb := range [2][]int32{s.glob[s.gOff[u]:s.gOff[u+1]], s.two[s.tOff[u]:s.tOff[u+1]]} {
			for _, v := range nb {
				fv := int64(t.f[v])
				if fv == 0 {
					continue
				}
				B := int(v / a)
				p.jo[B*G+C] += fu * fv
				if p.inA[v] == A+1 && B != int(A) {
					p.jn[C*G+B] += fu * fv
				}
			}
		}
	}
	// Row by row: na (pieces with pieces) and oa (whole groups with pieces),
	// the group terms (who links into whose group) and the pairs above, kept
	// as prefix sums only (na[C][C2] = rn[C][C2+1] - rn[C][C2]).
	p.pn[0] = 0
	for C := range G {
		kc, ktc, lfc := p.k[C*G:(C+1)*G], p.kt[C*G:(C+1)*G], t.lf[C*G:(C+1)*G]
		jn, jo := p.jn[C*G:(C+1)*G], p.jo[C*G:(C+1)*G]
		lc, wc := p.la[C], t.wf[C]
		rn, roa := p.rn[C*(G+1):(C+1)*(G+1)], p.roa[C*(G+1):(C+1)*(G+1)]
		prev, next := p.kn[C*G:(C+1)*G], p.kn[(C+1)*G:(C+2)*G]
		if C == 0 {
			clear(prev)
		}
		// The same lengths as kc: no bounds checks in the loop.
		la, ktc, lfc, jn, jo := p.la[:len(kc)], ktc[:len(kc)], lfc[:len(kc)], jn[:len(kc)], jo[:len(kc)]
		prev, next = prev[:len(kc)], next[:len(kc)]
		rn, roa = rn[:len(kc)+1], roa[:len(kc)+1]
		var sn, so int64
		rn[0], roa[0] = 0, 0
		// The terms of C2 = C and of C2 = A, and na's of C = A, are zero (no
		// router links into its own group, no piece is in A): no tests.
		for C2, kcc2 := range kc {
			next[C2] = prev[C2] + kcc2
			lc2, kc2c, lf := la[C2], ktc[C2], lfc[C2]
			sn += kcc2*lc2 + lc*kc2c - kcc2*kc2c + jn[C2]
			so += lf*lc2 + wc*kc2c - lf*kc2c + jo[C2]
			rn[C2+1], roa[C2+1] = sn, so
		}
		// pn[C+1] = pn[C] + row and column C below C (na symmetric).
		p.pn[C+1] = p.pn[C] + 2*rn[C]
	}
	// inA[u] == A+1 stays true of u (it links into A) whatever group comes next:
	// no clearing.
	return p
}

// clearSparse zeroes the entries of k, kt, jn and jo that group A's pieces set.
func (p *dfPieces) clearSparse(s *synthLayout, t *DragonflyFree, A int32) {
	G, a := s.groups, int32(s.a)
	for _, u := range t.inR[t.inOff[A]:t.inOff[A+1]] {
		C := int(u / a)
		for _, B := range s.lgrp[s.lOff[u]:s.lOff[u+1]] {
			p.k[C*G+int(B)], p.kt[int(B)*G+C] = 0, 0
		}
		for _, nb := range [2][]int32{s.glob[s.gOff[u]:s.gOff[u+1]], s.two[s.tOff[u]:s.tOff[u+1]]} {
			for _, v := range nb {
				B := int(v / a)
				p.jo[B*G+C], p.jn[C*G+B] = 0, 0
			}
		}
	}
}

// na is the closeness of the pieces of groups C and C2 (rn's difference).
func (p *dfPieces) naAt(G int, C, C2 int32) int64 {
	i := int(C)*(G+1) + int(C2)
	return p.rn[i+1] - p.rn[i]
}

// oaAt is the closeness of the whole group B and the piece of C (roa's
// difference).
func (p *dfPieces) oaAt(G int, B, C int32) int64 {
	i := int(B)*(G+1) + int(C)
	return p.roa[i+1] - p.roa[i]
}

// resize64 returns b with length n, zeroed, reusing its array when it can.
func resize64(b []int64, n int) []int64 {
	b = slices.Grow(b[:0], n)[:n]
	clear(b)
	return b
}

// DragonflyCountSumFree is DragonflyCountSum of the set with counts[i] > 0 hosts on
// key keys[i] (distinct keys), the free hosts being t's: when the set has at least
// groups/2 routers, the groups it holds whole, and with center >= 0 (a key) the
// pieces of the center's group, are scored from t's tables (with one another
// in groups^2 or, over the pieces' range, in (its other groups)^2; with the set's
// other routers per global link), only the other routers router by router
// (dfPairs). The same value, whatever t and center (false without a dragonfly's
// short form).
func (hk *HopKeys) DragonflyCountSumFree(t *DragonflyFree, center int32, keys, counts []int32) (int64, bool) {
	if hk.df == nil || t == nil {
		return 0, false
	}
	if len(keys) < t.pieceMinSize {
		// A small set (a few of the center's neighbours): by routers, the
		// units' bookkeeping would cost more than it saves.
		return hk.df.dragonflySumCounts(hk.g, keys, hk.keyRouter, counts), true
	}
	A := int32(-1)
	if center >= 0 {
		A = hk.keyRouter[center] / int32(hk.df.a)
	}
	return hk.df.dragonflySumFree(hk.g, t, A, keys, hk.keyRouter, counts), true
}

// dragonflySumFree is dragonflySumCounts with the set's whole groups, and with A
// >= 0 the pieces of group A, scored from t (DragonflyFree).
func (s *synthLayout) dragonflySumFree(g *Graph, t *DragonflyFree, A int32, ids, router, counts []int32) int64 {
	sc := s.dfStart(g)
	defer s.scratch.Put(sc)
	gen := sc.gen
	a := int32(s.a)
	var p *dfPieces
	if A >= 0 {
		p = t.pieces(s, A)
	}
	var k, wr2 int64
	for i, r := range ids {
		if router != nil {
			r = router[r]
		}
		c := counts[i]
		k += int64(c)
		wr2 += int64(c) * int64(c)
		sc.rw[r] = dfRouterW{gen, c}
		sc.routers = append(sc.routers, r)
		B := r / a
		sc.inGroup(B, c)
		gw := &sc.gw[B]
		gw.cnt++
		if c == t.f[r] {
			gw.full++
			if p != nil && p.inA[r] == A+1 {
				gw.inFull++
			}
		}
	}
	// Host pairs in one group on different routers, and in different groups; the
	// groups' kinds.
	var sumW2 int64
	sc.whole, sc.piece = sc.whole[:0], sc.piece[:0]
	hi := int32(-1) // the last piece's group
	for _, B := range sc.groups {
		gw := &sc.gw[B]
		sumW2 += gw.w * gw.w
		switch {
		case gw.full == t.nr[B]:
			gw.unit = unitWhole
			sc.whole = append(sc.whole, B)
		case p != nil && B != A && p.nIn[B] > 0 && gw.inFull == p.nIn[B]:
			// Every router of B linking into A, all its free hosts: the
			// piece; B's other routers in the set are single.
			gw.unit = unitPiece
			sc.piece = append(sc.piece, B)
			hi = max(hi, B)
		}
	}
	sc.single = sc.single[:0]
	for _, r := range sc.routers {
		if u := sc.gw[r/a].unit; u == unitSingle || (u == unitPiece && p.inA[r] != A+1) {
			sc.single = append(sc.single, r)
			sc.gw[r/a].nSingle++
		}
	}
	return s.unitsSum(sc, t, p, gen, k, sumW2, wr2, hi)
}

// dragonflySumUnits is dragonflySumFree of the set made of the whole groups
// whole (every free host), the pieces of p's group A of the groups piece (la2[C]:
// the sum of the squares of the piece's routers' free hosts), and counts[i] hosts
// on router singles[i] (distinct; none in a whole group, none linking into A in
// a piece's group), the units' routers not listed.
func (s *synthLayout) dragonflySumUnits(g *Graph, t *DragonflyFree, p *dfPieces, la2 []int64, whole, piece, singles, counts []int32) int64 {
	sc := s.dfStart(g)
	defer s.scratch.Put(sc)
	gen := sc.gen
	a := int32(s.a)
	var k, wr2 int64
	hi := int32(-1)
	sc.whole = append(sc.whole[:0], whole...)
	sc.piece = append(sc.piece[:0], piece...)
	for _, B := range whole {
		sc.inGroup(B, 0)
		sc.gw[B].w, sc.gw[B].unit = t.wf[B], unitWhole
		k += t.wf[B]
		wr2 += t.f2[B]
	}
	for _, C := range piece {
		sc.inGroup(C, 0)
		sc.gw[C].w, sc.gw[C].unit = p.la[C], unitPiece
		k += p.la[C]
		wr2 += la2[C]
		hi = max(hi, C)
	}
	sc.single = sc.single[:0]
	for i, r := range singles {
		c := counts[i]
		k += int64(c)
		wr2 += int64(c) * int64(c)
		sc.rw[r] = dfRouterW{gen, c}
		sc.routers = append(sc.routers, r)
		sc.inGroup(r/a, c)
		sc.gw[r/a].nSingle++
		sc.single = append(sc.single, r)
	}
	var sumW2 int64
	for _, B := range sc.groups {
		sumW2 += sc.gw[B].w * sc.gw[B].w
	}
	return s.unitsSum(sc, t, p, gen, k, sumW2, wr2, hi)
}

// unitsSum is the total hops of the set in sc (k hosts, the sums of the squares
// of its hosts per group and per router sumW2 and wr2): its whole groups
// (sc.whole) and pieces (sc.piece, the last hi) scored from t's and p's tables,
// its other routers (sc.single) router by router (dfPairsSingles).
func (s *synthLayout) unitsSum(sc *dfScratch, t *DragonflyFree, p *dfPieces, gen int32, k, sumW2, wr2 int64, hi int32) int64 {
	G := s.groups
	sameGroup := (sumW2 - wr2) / 2
	diffGroup := (k*k - sumW2) / 2
	// Whole groups with one another.
	var cl int64
	for i, B := range sc.whole {
		row := t.m[int(B)*G:]
		for _, C := range sc.whole[i+1:] {
			cl += row[C]
		}
	}
	if len(sc.piece) > 0 {
		// The other groups of the pieces' range [0, hi]: whole, single or not
		// in the set.
		sc.other = sc.other[:0]
		for B := range hi + 1 {
			if sc.gw[B].stamp != gen || sc.gw[B].unit != unitPiece {
				sc.other = append(sc.other, B)
			}
		}
		P, E := len(sc.piece), len(sc.other)
		W := len(sc.whole)
		if direct := P*P/2+W*P <= E*E+W*(E+1)+E; t.pieceSums == 1 || (direct && t.pieceSums != 2) {
			// Pieces with one another, and with the whole groups, pair by pair.
			for i, C := range sc.piece {
				for _, C2 := range sc.piece[i+1:] {
					cl += p.naAt(G, C, C2)
				}
			}
			for _, B := range sc.whole {
				for _, C := range sc.piece {
					cl += p.oaAt(G, B, C)
				}
			}
		} else {
			// By the range's sums less its other groups: pairs of pieces
			// (na symmetric, zero on the diagonal) and whole with pieces.
			n := int(hi) + 1
			pp := p.pn[n]
			for i, B := range sc.other {
				pp -= 2 * p.rn[int(B)*(G+1)+n]
				for _, C := range sc.other[:i] {
					pp += 2 * p.naAt(G, B, C)
				}
			}
			cl += pp / 2
			for _, B := range sc.whole {
				v := p.roa[int(B)*(G+1)+n]
				for _, C := range sc.other {
					v -= p.oaAt(G, B, C)
				}
				cl += v
			}
		}
	}
	// The other routers with the units: per group B of them, sl[B] the units'
	// hosts on routers linking into B.
	if len(sc.whole)+len(sc.piece) > 0 {
		for _, B := range sc.groups {
			if sc.gw[B].nSingle == 0 {
				continue
			}
			var v int64
			for _, C := range sc.whole {
				v += t.lf[int(C)*G+int(B)]
			}
			if len(sc.piece) == 0 || t.pieceSums == 1 || (t.pieceSums != 2 && len(sc.piece) <= len(sc.other)+1) {
				for _, C := range sc.piece {
					v += p.k[int(C)*G+int(B)]
				}
			} else {
				// The pieces' range less its other groups.
				v += p.kn[int(hi+1)*G+int(B)]
				for _, C := range sc.other {
					v -= p.k[int(C)*G+int(B)]
				}
			}
			sc.sl[B] = v
		}
	}
	cl += s.dfPairsSingles(sc, t, p, gen)
	return 2*(k*(k-1)/2) + sameGroup + 3*diffGroup - cl
}

// dfPairsSingles is the closeness (3 less the routers' distance, summed over host
// pairs in different groups) of the set's routers outside its units (sc.single)
// with one another and with the units (whole groups: t's tables; pieces: p's;
// sc.sl per group of them): dfPairs's passes over those routers only, each
// looked-up router or group counted with the singles or with the units.
func (s *synthLayout) dfPairsSingles(sc *dfScratch, t *DragonflyFree, p *dfPieces, gen int32) int64 {
	a := int32(s.a)
	G := s.groups
	rw, gw := sc.rw, sc.gw
	s.bucketByGroup(sc, sc.single, gen, true)
	var o1, o2, ow int64 // ow: with the units, each pair once
	in := sc.in
	anyUnit := len(sc.whole)+len(sc.piece) > 0
	for gi, A := range sc.groups {
		if sc.rOff[gi] == sc.rOff[gi+1] {
			continue
		}
		inGen, yAll := sc.sumInLinks(gi)
		var slA int64
		if anyUnit {
			slA = sc.sl[A]
		}
		for _, r1 := range sc.byGroup[sc.rOff[gi]:sc.rOff[gi+1]] {
			w1 := int64(rw[r1].w)
			var x, z, j1, yOut int64
			wv := slA // with the units
			for _, B := range s.lgrp[s.lOff[r1]:s.lOff[r1+1]] {
				if gw[B].stamp == gen {
					// r1 links into B: every host of B's unit, less those
					// counted in slA (on routers linking into A).
					switch gw[B].unit {
					case unitWhole:
						wv += t.wf[B] - t.lf[int(B)*G+int(A)]
					case unitPiece:
						wv += p.la[B] - p.k[int(B)*G+int(A)]
						x += gw[B].w - p.la[B] // B's single routers
					default:
						x += gw[B].w
					}
				}
				if in[B].stamp == inGen {
					yOut += in[B].w
				}
			}
			// A router of a unit holds all its free hosts (t.f) and need not be
			// stamped in rw (dragonflySumUnits does not list them).
			for _, xr := range s.glob[s.gOff[r1]:s.gOff[r1+1]] {
				if gw[xr/a].stamp == gen {
					if u := gw[xr/a].unit; u == unitWhole || (u == unitPiece && p.inA[xr] == p.A+1) {
						wv += int64(t.f[xr])
					} else if rw[xr].stamp == gen {
						j1 += int64(rw[xr].w)
					}
				}
			}
			for _, r2 := range s.two[s.tOff[r1]:s.tOff[r1+1]] {
				if gw[r2/a].stamp == gen {
					if u := gw[r2/a].unit; u == unitWhole || (u == unitPiece && p.inA[r2] == p.A+1) {
						wv += int64(t.f[r2])
					} else if rw[r2].stamp == gen {
						z += int64(rw[r2].w)
					}
				}
			}
			o1 += w1 * j1
			o2 += w1 * (x + yAll - yOut + z)
			ow += w1 * wv
		}
	}
	return (o1+o2)/2 + ow
}

// DragonflyNear lists the keys near a source key on a dragonfly with Near's short
// form (HopKeys.Near, the same lists in the same order), one source at a time, its
// scratch kept from source to source and from call to call: List(x, 1) stops after
// the routers at distance 1 (x's group and x's global neighbours, about routers a
// group + global links a router of them), List(x, 2) goes on to those at 2 (about
// routers a group x (1 + 2 x global links a router)). A caller that needs only the
// first ring lists no more.
type DragonflyNear struct {
	s                    *synthLayout
	keyRouter            []int32
	routerKey, stamp, at []int32
	mark                 int32
	keys, dist           []int32
	last, upTo           int32 // the last call's key and ring
	g                    *Graph
	ordered              bool // key x is router x (CandidateSum applies)
	cand                 dfCand
}

// DragonflyNear returns the lister of the keys near a key (nil when Near has no
// short form).
func (hk *HopKeys) DragonflyNear() *DragonflyNear {
	s := hk.df
	if s == nil {
		return nil
	}
	s.dfIndex(hk.g)
	R := s.a * s.groups
	w := &DragonflyNear{s: s, g: hk.g, keyRouter: hk.keyRouter, routerKey: make([]int32, R),
		stamp: make([]int32, R), at: make([]int32, R)}
	w.ordered = len(hk.keyRouter) == R
	for x, r := range hk.keyRouter {
		w.routerKey[r] = int32(x)
		w.ordered = w.ordered && r == int32(x)
	}
	return w
}

// List returns the keys within distance upTo (1 or 2) of key x, x first (at 0),
// and their distances; both are scratch, valid until the next call. Every other
// key is farther (at 2 or 3 for upTo 1, at 3 for upTo 2). List(x, 2) right after
// List(x, 1) goes on from the first ring (the same lists as anew).
func (w *DragonflyNear) List(x, upTo int32) (keys, dist []int32) {
	s := w.s
	resume := w.mark > 0 && x == w.last && w.upTo == 1 && upTo >= 2
	w.last, w.upTo = x, upTo
	if !resume {
		w.mark++
		if w.mark <= 0 {
			clear(w.stamp)
			w.mark = 1
		}
		keys, dist = w.keys[:0], w.dist[:0]
	} else {
		keys, dist = w.keys, w.dist
	}
	mark, stamp, at := w.mark, w.stamp, w.at
	add := func(v, d int32) {
		if stamp[v] == mark {
			j := at[v]
			dist[j] = min(dist[j], d)
			return
		}
		stamp[v], at[v] = mark, int32(len(keys))
		keys, dist = append(keys, w.routerKey[v]), append(dist, d)
	}
	a := int32(s.a)
	r := w.keyRouter[x]
	A := r / a
	if !resume {
		add(r, 0)
		for v := A * a; v < (A+1)*a; v++ {
			add(v, 1)
		}
		for _, v := range s.glob[s.gOff[r]:s.gOff[r+1]] {
			add(v, 1)
		}
	}
	if upTo >= 2 {
		for _, B := range s.lgrp[s.lOff[r]:s.lOff[r+1]] {
			for v := B * a; v < (B+1)*a; v++ {
				add(v, 2)
			}
		}
		for u := A * a; u < (A+1)*a; u++ {
			for _, v := range s.glob[s.gOff[u]:s.gOff[u+1]] {
				add(v, 2)
			}
		}
		for _, v := range s.two[s.tOff[r]:s.tOff[r+1]] {
			add(v, 2)
		}
	}
	w.keys, w.dist = keys, dist
	return keys, dist
}

// dfCand is DragonflyNear.candidate's scratch: the center group whose in-links
// are stamped (inA: router -> A+1 when it links into A) and, for one build of
// the free hosts' tables (tGen), its pieces' routers and the sums of their free
// hosts squared per group (nIn, la2); per call the center router's global
// neighbours and two-link routers (nbr, two: stamped gen), their free hosts per
// group (nbrF, twoF: stamped gen in gStamp), and the candidate: its routers and
// counts (keys, counts: all of them, or with units those outside its whole
// groups and pieces, whole and piece).
type dfCand struct {
	A, tA, tGen        int32
	t                  *DragonflyFree // of tA, tGen
	inA, nbr, two      []int32
	gStamp, wMark, nIn []int32
	nbrF, twoF, la2    []int64
	gen                int32
	nbrSort            []int32
	keys, counts       []int32
	whole, piece       []int32
	setRouters, inF    int64
}

// candidateKeys appends to keys and counts the candidate of the router of key x
// holding k hosts on the dragonfly whose free hosts are t's: the free hosts of
// the routers taken by their distance from x's router (0, 1, 2, 3) and, at one
// distance, by index, the first k of them (the last router's in part), as counts
// per key (distinct keys). It takes the routers at distance 2 group by group (the
// groups x's links reach whole, of every other group the routers with a link into
// x's group and x's two-link routers there: the closed form's distance 2), each
// group's count from t, and lists only the routers it takes, not the ~routers a
// group x (1 + 2 x global links) within two hops. false when the keys are not the
// routers in index order (the definition then takes the hosts' order, not the
// routers'): the caller lists the rings (List) instead.
func (w *DragonflyNear) candidateKeys(t *DragonflyFree, x int32, k int64, keys, counts []int32) ([]int32, []int32, bool) {
	if !w.candidate(t, x, k, false) {
		return keys, counts, false
	}
	c := &w.cand
	return append(keys, c.keys...), append(counts, c.counts...), true
}

// CandidateSum is the score of the candidate of the router of key x holding k
// hosts on the dragonfly whose free hosts are t's (candidateKeys: the routers by
// distance, then index), DragonflyCountSumFree(t, x, keys, counts) of its hosts
// per key, and the routers it holds. Past the first ring its whole groups and
// pieces are not listed: they are scored as units (dragonflySumUnits), the other
// routers router by router. false when the keys are not the routers in index
// order (the caller lists the rings, List, and counts the hosts instead).
func (w *DragonflyNear) CandidateSum(t *DragonflyFree, x int32, k int64) (sum int64, routers int, ok bool) {
	if !w.candidate(t, x, k, true) {
		return 0, 0, false
	}
	c := &w.cand
	s := w.s
	A := x / int32(s.a)
	if len(c.whole)+len(c.piece) == 0 || c.setRouters < int64(t.pieceMinSize) {
		if len(c.whole)+len(c.piece) > 0 {
			w.candidate(t, x, k, false) // listed, as DragonflyCountSumFree scores it
		}
		if len(c.keys) < t.pieceMinSize {
			return s.dragonflySumCounts(w.g, c.keys, nil, c.counts), len(c.keys), true
		}
		return s.dragonflySumFree(w.g, t, A, c.keys, nil, c.counts), len(c.keys), true
	}
	p := t.pieces(s, A)
	return s.dragonflySumUnits(w.g, t, p, c.la2, c.whole, c.piece, c.keys, c.counts), int(c.setRouters), true
}

// candidate makes the candidate of candidateKeys in w.cand: with units, past the
// first ring, its whole groups (x's group, and the groups x links into below the
// cut) in whole, the groups whose routers linking into x's group it holds, not
// whole, in piece, and only its other routers in keys and counts; setRouters its
// routers.
func (w *DragonflyNear) candidate(t *DragonflyFree, x int32, k int64, units bool) bool {
	s := w.s
	if !w.ordered || t == nil || len(t.f) != s.a*s.groups {
		return false
	}
	c := &w.cand
	a, G := int32(s.a), s.groups
	R := s.a * s.groups
	if len(c.inA) != R {
		c.inA, c.nbr, c.two = make([]int32, R), make([]int32, R), make([]int32, R)
		c.gStamp, c.wMark, c.nIn = make([]int32, G), make([]int32, G), make([]int32, G)
		c.nbrF, c.twoF, c.la2 = make([]int64, G), make([]int64, G), make([]int64, G)
		c.A, c.tA = -1, -1
	}
	f := t.f
	r := x // keys are the routers (w.ordered)
	A := r / a
	c.keys, c.counts, c.whole, c.piece = c.keys[:0], c.counts[:0], c.whole[:0], c.piece[:0]
	c.setRouters = 0
	take := func(v int32, n int64) {
		c.keys, c.counts = append(c.keys, v), append(c.counts, int32(n))
		c.setRouters++
	}
	fx := int64(f[r])
	if fx >= k {
		take(r, k)
		return true
	}
	if fx > 0 {
		take(r, fx)
	}
	need := k - fx
	if c.A != A {
		// The routers with a link into A: structural, not the free hosts'.
		for u := A * a; u < (A+1)*a; u++ {
			for _, v := range s.glob[s.gOff[u]:s.gOff[u+1]] {
				c.inA[v] = A + 1
			}
		}
		c.A = A
	}
	c.gen++
	if c.gen <= 0 {
		clear(c.nbr)
		clear(c.two)
		clear(c.gStamp)
		clear(c.wMark)
		c.gen = 1
	}
	gen := c.gen
	group := func(C int32) {
		if c.gStamp[C] != gen {
			c.gStamp[C], c.nbrF[C], c.twoF[C] = gen, 0, 0
		}
	}
	// The first ring: x's group and x's global neighbours.
	nb := s.glob[s.gOff[r]:s.gOff[r+1]]
	c1 := t.wf[A] - fx
	for _, v := range nb {
		c.nbr[v] = gen
		group(v / a)
		c.nbrF[v/a] += int64(f[v])
		c1 += int64(f[v])
	}
	if c1 >= need {
		// The first ring's routers by index: x's group and x's neighbours merged.
		c.nbrSort = append(c.nbrSort[:0], nb...)
		slices.Sort(c.nbrSort)
		m, i := need, 0
		for u := A * a; u < (A+1)*a && m > 0; u++ {
			for i < len(c.nbrSort) && c.nbrSort[i] < u && m > 0 {
				v := c.nbrSort[i]
				i++
				if n := min(m, int64(f[v])); n > 0 {
					take(v, n)
					m -= n
				}
			}
			if u == r || m == 0 {
				continue
			}
			if n := min(m, int64(f[u])); n > 0 {
				take(u, n)
				m -= n
			}
		}
		for ; i < len(c.nbrSort) && m > 0; i++ {
			v := c.nbrSort[i]
			if n := min(m, int64(f[v])); n > 0 {
				take(v, n)
				m -= n
			}
		}
		return true
	}
	if c.tA != A || c.tGen != t.gen || c.t != t {
		// A's pieces in t: their routers, free hosts squared per group, and
		// free hosts in all.
		clear(c.nIn)
		clear(c.la2)
		c.inF = 0
		for _, u := range t.inR[t.inOff[A]:t.inOff[A+1]] {
			c.nIn[u/a]++
			c.la2[u/a] += int64(f[u]) * int64(f[u])
			c.inF += int64(f[u])
		}
		c.tA, c.tGen, c.t = A, t.gen, t
	}
	// x's group whole (x listed above: a unit holds it).
	if units {
		c.keys, c.counts, c.setRouters = c.keys[:0], c.counts[:0], int64(t.nr[A])
		c.whole = append(c.whole, A)
	} else {
		for u := A * a; u < (A+1)*a; u++ {
			if u != r && f[u] > 0 {
				take(u, int64(f[u]))
			}
		}
	}
	m := need - c1
	// The second ring, group by group: the groups x links into whole (less x's
	// neighbours, in the first ring), of the others the routers linking into A
	// (the piece) and x's two-link routers. c2: its free hosts.
	tw := s.two[s.tOff[r]:s.tOff[r+1]]
	c2 := c.inF
	for _, v := range tw {
		c.two[v] = gen
		group(v / a)
		c.twoF[v/a] += int64(f[v])
		c2 += int64(f[v])
	}
	lg := s.lgrp[s.lOff[r]:s.lOff[r+1]]
	for _, C := range lg {
		c2 += t.wf[C] - t.lf[int(C)*G+int(A)]
		if c.gStamp[C] == gen {
			c2 -= c.nbrF[C]
		}
	}
	in := t.inR[t.inOff[A]:t.inOff[A+1]] // ascending: by group
	// wholeGroup takes every free host of group C (x's neighbours there
	// included, listed at the end without units).
	wholeGroup := func(C int32) {
		if units {
			c.whole = append(c.whole, C)
			c.setRouters += int64(t.nr[C])
			c.wMark[C] = gen
			return
		}
		for v := C * a; v < (C+1)*a; v++ {
			if f[v] > 0 && c.nbr[v] != gen {
				take(v, int64(f[v]))
			}
		}
	}
	// pieceTwo takes group C's routers linking into A (ii: the first of them in
	// in) and x's two-link routers there.
	pieceTwo := func(C int32, ii int, twF int64) {
		if units && c.nIn[C] > 0 {
			c.piece = append(c.piece, C)
			c.setRouters += int64(c.nIn[C])
		} else {
			for ; ii < len(in) && in[ii] < (C+1)*a; ii++ {
				take(in[ii], int64(f[in[ii]]))
			}
		}
		if twF > 0 {
			for v := C * a; v < (C+1)*a; v++ {
				if c.two[v] == gen && f[v] > 0 {
					take(v, int64(f[v]))
				}
			}
		}
	}
	li, ii := 0, 0
	for C := int32(0); C < int32(G) && m > 0; C++ {
		isW := li < len(lg) && lg[li] == C
		if isW {
			li++
		}
		for ii < len(in) && in[ii] < C*a {
			ii++
		}
		if C == A || t.wf[C] == 0 {
			continue
		}
		var nbF, twF int64
		if c.gStamp[C] == gen {
			nbF, twF = c.nbrF[C], c.twoF[C]
		}
		if c2 < m {
			// Past the second ring (m - c2 more hosts): every group's routers
			// at distance 2, and the other routers by index until m.
			if isW {
				wholeGroup(C)
				continue
			}
			rest := t.wf[C] - t.lf[int(C)*G+int(A)] - twF // at distance 3
			if rest <= m-c2 {
				wholeGroup(C)
				m -= rest
				continue
			}
			pieceTwo(C, ii, twF)
			if m > c2 {
				for v := C * a; v < (C+1)*a && m > c2; v++ {
					if f[v] == 0 || c.inA[v] == A+1 || c.two[v] == gen {
						continue
					}
					n := min(m-c2, int64(f[v]))
					take(v, n)
					m -= n
				}
			}
			continue
		}
		var avail int64
		if isW {
			avail = t.wf[C] - nbF
		} else {
			avail = t.lf[int(C)*G+int(A)] + twF
		}
		if avail == 0 {
			continue
		}
		if avail < m {
			m -= avail
			c2 -= avail
			switch {
			case isW || avail == t.wf[C]:
				wholeGroup(C)
			default:
				pieceTwo(C, ii, twF)
			}
			continue
		}
		// The cut: this group's routers at distance 2 by index.
		for v := C * a; v < (C+1)*a && m > 0; v++ {
			if f[v] == 0 || c.nbr[v] == gen || !isW && c.inA[v] != A+1 && c.two[v] != gen {
				continue
			}
			n := min(m, int64(f[v]))
			take(v, n)
			m -= n
		}
	}
	// x's neighbours (with units, those of the groups not whole).
	for _, v := range nb {
		if f[v] > 0 && !(units && c.wMark[v/a] == gen) {
			take(v, int64(f[v]))
		}
	}
	return true
}
