package alloc

import (
	"math"
	"math/bits"
	"slices"
)

// tieSearch finds MC1x1's winner under Johnson et al. 2010's tie-breaking without
// a tie score per tied center. On a young free set tens of thousands of centers
// share the least shell score (every center whose ball is free: 52,000 of 53,000
// free nodes for a 16-node job on torus:40x40x40), and scoring each was nearly all
// of a decision. Instead, with the least score s* and the first center that has
// it known (centerSearch with first, or the loop over centers), a second
// best-first branch and bound over boxes of centers finds the center of least
// (tie score, free-list rank) among those of score s*, which is what the loop over
// the tied centers in free-list order returns (the first of least tie score).
// mc1x1.search uses it when ties are not counted and many centers tie
// (scoreAtMost, defaultScoredTies); a replay, which counts them, keeps scoring
// each.
//
// The bound. With f(r) a center's free nodes within distance r, L its outermost
// shell and m = k - f(L-1) the nodes taken from it, the three terms of the tie
// score (tieScore) are, summed by parts,
//
//	avail  = f(L) + f(L+1) + ... + f(L+SR) - (SR+1) k
//	wall   = fw(0) + ... + fw(L-2) + (SR+2) fw(L-1) + (SR+1) wallLast
//	border = SR (busy(L+1) - busy(L))
//
// (fw(r) the free wall nodes within r, busy(r) the busy nodes within r, wallLast
// the wall nodes among the m taken). Over a box of centers, each count lies
// between its count in the intersection of the centers' balls and in their union
// (two prefix-sum box counts, freeBoxes); the free nodes are also at least the
// smallest ball's size less the union's busy nodes, which is exact far from busy
// nodes, and at most the largest ball's less the intersection's busy nodes, which
// drops a box whose every center has a busy node inside its shells (so a shell
// score above s*). L ranges over the radii where the bounds allow a shell score of
// s*.
// tieValue, taking each term at the end that its factor's sign makes smallest,
// is then a lower bound on the tie score of every center of the box: the
// floating-point steps are monotone in their operands. A box is dropped when its
// bound is above the best tie score found, or equal to it with its least rank
// after the best center's, so every center that could win is still scored
// exactly. For one center every bound is its exact count, so the bound is its tie
// score, except for wallLast when the counts leave it open (tieScore then works
// it out from the shell's order).
type tieSearch struct {
	fb, fw *freeBoxes // free nodes; free wall nodes (nil on a machine without them)
	dims   []int
	wrap   []bool
	d      int
	rank   []int // free-list rank: rank(c) = sum of c_j * rank[j]
	tb     TieBreak

	q      boxQueue[float64]
	rs     []tieRadius
	sums   []tieSums // radii: prefix sums over rs
	lo, hi []int     // scratch: the union's box
	ilo    []int     // scratch: the intersection's box
	ihi    []int
	full   int // radii: a radius whose ball is likely all free (the first center's L-1), or -1
	// torusBall[r] is the size of every ball of radius r on a torus wrapped along
	// every dimension (up to the radius that holds the whole torus), else nil
	torusBall []int
	// freeTab[r] is freeRadii's entry for a ball of radius r that is all free, holds no
	// wall node and is not clipped by the mesh's sides (every ball on a torus
	// wrapped along every dimension): of prod_j min(2r+1, dims[j]) nodes, up to
	// the radius that holds the whole machine
	freeTab []tieRadius
	// freeSums[P] and freeLb[P], for the search's k: sums (tieSums) and the shell
	// score's least part (sum of k - fHi where positive) over freeTab[:P]
	freeSums  []tieSums
	freeLb    []int
	freeK     int // the k of freeSums and freeLb (0: not yet set)
	torusL0   int // the first radius whose balls hold k nodes on a torus (at least that on a mesh)
	e, clo    []int
	slo, se   []int // shrink: the box of the centers that can tie
	bmin      []int // shrink: scratch
	bmax      []int
	line      []int   // shrink: scratch (a line's coordinates)
	nstr      []int   // node index strides: node = sum of c_j * nstr[j]
	knownFree int     // shrink: the radius whose union of balls it found all free, or -2
	cand      tieCand // exact: the shell of the center scored
	freeWalls bool    // radii: the all-free balls hold wall nodes (freeRadii counts them)
	stats     tieSearchStats
}

// tieSearchStats counts the work of the last search (tests).
type tieSearchStats struct {
	boxes   int // boxes bounded
	leaves  int // centers scored exactly
	counts  int // box counts read off the prefix sums (boxCount)
	shrunk  int // boxes bounded over fewer centers than their own (shrink)
	dropped int // boxes shrink found no center that can tie in
}

// tieRadius bounds, over the centers of a box, the counts of their balls of one
// radius: free nodes, busy nodes, free wall nodes, and all nodes.
type tieRadius struct {
	fLo, fHi     int
	bLo, bHi     int
	wLo, wHi     int
	allLo, allHi int
}

// tieSums are sums over the radii below one (tieSearch.sums).
type tieSums struct{ sLo, sHi, wLo, wHi int }

// tieBoundsApply reports whether tieSearch may stand in for scoring every tied
// center: the factors are small enough that no product of a factor and a term
// overflows (a NaN or an infinity would not be ordered as the loop orders it).
func tieBoundsApply(tb TieBreak) bool {
	const limit = 1e250
	return math.Abs(tb.AF) < limit && math.Abs(tb.WF) < limit && math.Abs(tb.BF) < limit
}

func (a *mc1x1) newTieSearch() *tieSearch {
	x := a.x
	s := &tieSearch{fb: x.boxes, dims: x.dims, wrap: x.wrap, d: x.d, rank: a.boxes.rank, tb: *a.tb,
		lo: make([]int, x.d), hi: make([]int, x.d), ilo: make([]int, x.d), ihi: make([]int, x.d),
		e: make([]int, x.d), clo: make([]int, x.d), slo: make([]int, x.d), se: make([]int, x.d),
		bmin: make([]int, x.d), bmax: make([]int, x.d), line: make([]int, x.d), nstr: make([]int, x.d), knownFree: -2,
		q: boxQueue[float64]{d: x.d}}
	for j, st := 0, 1; j < x.d; j++ {
		s.nstr[j] = st
		st *= x.dims[j]
	}
	if x.anyWall {
		s.fw = newFreeBoxes(x.g, x.freeW)
	}
	torus := !slices.Contains(x.wrap, false)
	for r := 0; ; r++ {
		v := 1
		for _, dj := range x.dims {
			v *= min(2*r+1, dj)
		}
		if torus {
			s.torusBall = append(s.torusBall, v)
		}
		s.freeTab = append(s.freeTab, tieRadius{fLo: v, fHi: v, allLo: v, allHi: v})
		if v == x.g.N() {
			break
		}
	}
	return s
}

// tieWinner returns the winner of a decision of k nodes (fewer than are free)
// under tie-breaking: of the centers of least shell score, the first in free-list
// order of least tie score (as scoring every one of them). The caller has the
// free map's prefix sums up to date.
func (a *mc1x1) tieWinner(k int) tieCand {
	a.buildBoxes()
	a.boxes.first = true
	return a.tieWinnerFrom(k, a.boxes.search(a.st, k)[0])
}

// tieWinnerFrom is tieWinner given the first center of least score, l0. The
// wall sums are brought up to date here.
func (a *mc1x1) tieWinnerFrom(k int, l0 bnbLeaf) tieCand {
	if a.tb.SR == 0 {
		return tieCand{int(a.pos[l0.node]), l0.L, k - l0.inner} // every tie score is 0
	}
	a.refresh(prefixWall)
	if a.ties == nil {
		a.buildBoxes() // the rank
		a.ties = a.newTieSearch()
	}
	return a.ties.search(a, k, l0)
}

// setTorusL0 sets torusL0: the first radius whose balls hold k nodes on a torus
// (on a mesh, where a ball may be clipped, at least that).
func (s *tieSearch) setTorusL0(k int) {
	s.torusL0 = 0
	for n := 1; n < k; {
		s.torusL0++
		n = 1
		for _, dj := range s.dims {
			n *= min(2*s.torusL0+1, dj)
		}
	}
}

// search is tieWinner's second branch and bound, from the first center of least
// score l0.
func (s *tieSearch) search(a *mc1x1, k int, l0 bnbLeaf) tieCand {
	d := s.d
	sStar := l0.cost
	s.full = l0.L - 1
	s.setTorusL0(k)
	win := tieCand{int(a.pos[l0.node]), l0.L, k - l0.inner}
	coord := a.x.coord
	rankOf := func(c []int) int { return freeRank(c, s.rank) }
	for j := range d {
		s.clo[j], s.e[j] = int(coord[l0.node*d+j]), 1
	}
	bestRank := rankOf(s.clo)
	s.stats = tieSearchStats{}
	bestTs := s.exact(a, k, sStar, l0.node)
	s.q.reset()
	J := 0
	for _, dj := range s.dims {
		J = max(J, bits.Len(uint(dj-1)))
	}
	if J == 0 {
		return win // one node
	}
	clear(s.clo)
	copy(s.e, s.dims)
	if lb, ok := s.bound(s.clo, s.e, k, sStar); ok {
		s.q.push(s.clo, J, lb, 0)
	}
	for len(s.q.heap) > 0 {
		it, level, base := s.q.pop()
		if it.lb > bestTs || it.lb == bestTs && it.rank > bestRank {
			break // so is every box still queued (boxItem.before)
		}
		half := 1 << (level - 1)
		for mask := 0; mask < 1<<d; mask++ {
			if !childBox(base, half, mask, s.dims, s.clo, s.e) {
				continue
			}
			if level == 1 {
				r := rankOf(s.clo)
				node := nodeIndex(s.dims, s.clo)
				if !a.st.IsFree(node) || r == bestRank {
					continue
				}
				ts := s.exact(a, k, sStar, node)
				s.stats.leaves++
				if math.IsNaN(ts) { // not of least score
					continue
				}
				if ts < bestTs || ts == bestTs && r < bestRank {
					bestTs, bestRank = ts, r
					win = s.cand
					win.i = int(a.pos[node])
				}
				continue
			}
			// the box's centers that can tie lie in s.slo, s.se (shrink),
			// the least rank among them at its low corner
			if !s.shrink(a.st.free, s.clo, s.e, k, sStar) {
				s.stats.dropped++
				continue
			}
			if !slices.Equal(s.se, s.e) {
				s.stats.shrunk++
			}
			lb, ok := s.bound(s.slo, s.se, k, sStar)
			s.stats.boxes++
			if !ok {
				continue
			}
			if r := rankOf(s.slo); lb < bestTs || lb == bestTs && r <= bestRank {
				s.q.push(s.clo, level-1, lb, r)
			}
		}
	}
	return win
}

// boxCount returns the free nodes and all nodes of the box lo..hi (clipped to
// the mesh, at most the ring).
func (s *tieSearch) boxCount(lo, hi []int) (free, size int) {
	s.stats.counts++
	return s.fb.countSize(lo, hi)
}

// radius bounds the counts of the balls of radius r of the centers in the box of
// low corner lo and extents e (exact for one center): every ball holds the
// intersection I of the balls and lies in their union U, and holds between
// ballSizes' least and most nodes. Free nodes: at least I's, and at least the
// smallest ball less U's busy nodes; at most U's, and at most the largest ball
// less I's busy nodes. Busy nodes likewise.
func (s *tieSearch) radius(lo, e []int, r int, t *tieRadius) {
	single := s.unionMeet(lo, e, r)
	var allLo, allHi, gHi int
	if s.fw != nil {
		allLo, allHi, _, gHi = s.ballGeom(lo, e, r, true)
	} else {
		allLo, allHi = s.ballSizes(lo, e, r)
	}
	countU, sizeU := s.boxCount(s.lo, s.hi)
	countI, sizeI := countU, sizeU
	if !single {
		countI, sizeI = s.boxCount(s.ilo, s.ihi)
	}
	t.allLo, t.allHi = allLo, allHi
	fLo, fHi := max(countI, allLo-(sizeU-countU)), min(countU, allHi)
	bLo, bHi := sizeI-countI, sizeU-countU
	fHi = min(fHi, allHi-bLo)
	t.fLo, t.fHi = max(fLo, 0), fHi
	t.bHi = min(bHi, allHi-t.fLo)
	t.bLo = max(bLo, allLo-t.fHi, 0)
	if s.fw != nil {
		t.wHi, _ = s.fw.countSize(s.lo, s.hi)
		t.wHi = min(t.wHi, gHi) // free wall nodes are wall nodes
		t.wLo = t.wHi
		if !single {
			t.wLo = 0
			if sizeI > 0 {
				t.wLo, _ = s.fw.countSize(s.ilo, s.ihi)
			}
		}
	}
}

// radii fills s.rs with radius(lo, e, r) from r = 0 until the bounds' free count
// reaches k (Lmax, the largest outermost shell a center of the box can have), and
// SR radii beyond; it returns the least outermost shell Lmin, Lmax and false when
// the box holds no center of shell score sStar or less. When the union of the
// balls of radius s.full is all free, so are every center's smaller balls: those
// are not counted.
func (s *tieSearch) radii(lo, e []int, k, sStar int) (Lmin, Lmax int, ok bool) {
	s.setK(k)
	s.rs = s.rs[:0]
	single := true
	for _, v := range e {
		single = single && v == 1
	}
	// free: the largest radius whose union of the box's balls is all free (so
	// is every smaller one), searched from the first center's L-1 (s.full), -1
	// when none (on a torus: s.full when its union is all free, else -1)
	free := -1
	unionFree := func(R int) bool {
		for j := range s.dims {
			s.lo[j], s.hi[j] = lo[j]-R, lo[j]+e[j]-1+R
		}
		f, size := s.boxCount(s.lo, s.hi)
		return f == size
	}
	known := s.knownFree
	s.knownFree = -2
	if R := min(s.full, len(s.freeTab)-1); R >= 0 && s.torusBall != nil {
		// on a torus every ball of a radius has one size, and the first center's
		// L-1 is nearly always the radius: searching costs more than it saves
		if known == R || unionFree(R) {
			free = R
		} else if single && R == s.full && sStar == s.freeLb[R+1] {
			// sStar is the least score any center can have (the first
			// center's balls within R = L-1 are all free, and each holds
			// fewer than k nodes): a center whose ball of radius R is not
			// all free has an outermost shell of at least L and scores
			// more by its busy nodes there (a leaf not of least score,
			// told by one count instead of one per radius up to L)
			return 0, 0, false
		}
	} else if R >= 0 {
		var lo, hi int // unionFree(lo) (or lo = -1), not unionFree(hi) (or hi past the cap)
		if known == R || unionFree(R) {
			lo, hi = R, R+1
			for step := 1; hi < len(s.freeTab); step *= 2 {
				if !unionFree(hi) {
					break
				}
				lo, hi = hi, min(hi+step, len(s.freeTab))
			}
		} else {
			lo, hi = -1, R
		}
		for lo+1 < hi {
			if mid := (lo + hi) / 2; unionFree(mid) {
				lo = mid
			} else {
				hi = mid
			}
		}
		free = lo
	}
	// wall nodes within the free balls (near the mesh's sides): freeRadii
	// counts them
	s.freeWalls = false
	if s.fw != nil && free >= 0 {
		for j := range s.dims {
			s.lo[j], s.hi[j] = lo[j]-free, lo[j]+e[j]-1+free
		}
		s.freeWalls = s.wallsIn(s.lo, s.hi) > 0
	}
	// Below L0-1, L0 the first radius whose largest ball holds k nodes, a box's
	// balls are not counted: no center's outermost shell is smaller than L0, and
	// the balls of radius r < L0-1 hold at most the busy nodes of those of
	// radius L0-1 (nor their free wall nodes those of radius L0-1). One center's
	// are counted: its shell score and wall counts must be exact.
	L0 := s.torusL0 // no smaller on a mesh
	if s.torusBall == nil {
		for _, allHi := s.ballSizes(lo, e, L0); allHi < k; _, allHi = s.ballSizes(lo, e, L0) {
			L0++
		}
	}
	start := max(L0-1, free+1, 0)
	if single {
		start = free + 1
	}
	// The balls of radius r <= free are all free: their counts are freeTab's
	// where they hold no wall node and the mesh's sides do not clip them (every
	// ball on a torus), and so are the sums over them (freeSums, freeLb).
	tab := min(free+1, len(s.freeTab)) // s.rs[:tab] is freeTab[:tab]
	for j, dj := range s.dims {
		switch l, h := lo[j], lo[j]+e[j]-1; {
		case s.wrap[j]:
		case dj > 2 && s.fw != nil:
			tab = min(tab, max(0, min(l-1, dj-2-h)+1)) // no wall node
		default:
			tab = min(tab, max(0, min(l, dj-1-h)+1)) // not clipped
		}
	}
	s.rs = append(s.rs, s.freeTab[:tab]...)
	// ensure computes the radii up to r: all free ones (freeRadii), then those
	// not counted (set when radius start is), then radius
	ensure := func(r int) {
		for q := len(s.rs); q <= r; q++ {
			switch {
			case q <= free:
				s.freeRadii(lo, e, q, min(r, free)+1)
				q = len(s.rs) - 1
			case q < start:
				allLo, allHi := s.ballSizes(lo, e, q)
				s.rs = append(s.rs, tieRadius{fHi: allHi, allLo: allLo, allHi: allHi})
			default:
				s.rs = append(s.rs, tieRadius{})
				t := &s.rs[q]
				s.radius(lo, e, q, t)
				if q == start {
					for u := range s.rs[free+1 : start] {
						u := &s.rs[free+1+u]
						u.fLo = max(0, u.allLo-t.bHi)
						u.bHi = min(u.allHi, t.bHi)
						u.wLo, u.wHi = 0, t.wHi
					}
				}
			}
		}
	}
	// Lmin: the first radius whose bounds allow k free nodes; Lmax: the first
	// whose bounds hold k. The shell score is at least the sum over r < Lmin of
	// k - fHi (the radii not counted have fHi < k, and their fHi is set).
	lb := s.freeLb[tab]
	if lb > sStar {
		return 0, 0, false
	}
	Lmin = -1
	for r := 0; ; r++ {
		ensure(r)
		t := s.rs[r]
		if Lmin < 0 {
			if t.fHi >= k {
				Lmin = r
			} else if r >= tab {
				if lb += k - t.fHi; lb > sStar {
					return 0, 0, false
				}
			}
		}
		if t.fLo >= k {
			Lmax = r
			break
		}
	}
	ensure(Lmax + s.tb.SR)
	// sums[L]: over r < L, the shell score's bounds (k - f(r), at least 1) and
	// the free wall nodes' (terms)
	tab = min(tab, Lmax+1)
	s.sums = append(s.sums[:0], s.freeSums[:tab+1]...)
	for _, t := range s.rs[tab : Lmax+1] {
		p := s.sums[len(s.sums)-1]
		s.sums = append(s.sums, tieSums{p.sLo + max(1, k-t.fHi), p.sHi + k - t.fLo, p.wLo + t.wLo, p.wHi + t.wHi})
	}
	return Lmin, Lmax, true
}

// shrink sets s.slo, s.se to a box that holds every center of the box lo, e
// (extents e) whose shell score can be sStar, and returns false when there is
// none; the bounds are then taken over it (bound), which is tighter than over
// the whole box: near busy regions, where the winners lie, a box's union of
// balls holds many busy nodes that only its busy nodes, or centers that cannot
// tie, are near. Two steps:
//
//   - the bounding box of the box's free nodes (every center is free), read
//     off the free map line by line along the first dimension;
//   - then, with L0 the first radius whose largest ball holds k nodes (no
//     center's outermost shell is smaller) and R = L0-1 >= 0, a face of the
//     box (its centers with one coordinate at an end) is dropped while the
//     intersection of its centers' balls of radius R holds more busy nodes
//     than sStar - freeLb[L0]: a center's shell score is at least
//     sum over r < L0 of (k - f(r)), where k - f(r) = (k - ball size) + busy
//     nodes within r, the first part at least freeLb's term (the ball sizes
//     are at most freeTab's, which are below k) and the second at least the
//     busy nodes within R when r = R; so such a center scores more than sStar.
//     A face is only tried when the intersection is not empty (every other
//     extent at most 2R+1), after one count found the union of the box's
//     balls of radius R not all free (then radii need not count it again:
//     knownFree).
func (s *tieSearch) shrink(free []uint64, lo, e []int, k, sStar int) bool {
	s.knownFree = -2
	lines := 1
	for _, v := range e[1:] {
		lines *= v
	}
	if lines <= maxShrinkLines {
		if !s.freeBox(free, lo, e) {
			return false
		}
	} else {
		for j := range s.dims {
			s.hi[j] = lo[j] + e[j] - 1
		}
		if f, _ := s.fb.countSize(lo, s.hi); f == 0 {
			return false // no center
		}
		copy(s.slo, lo)
		copy(s.se, e)
	}
	lo, e = s.slo, s.se
	s.setK(k)
	R := s.torusL0 - 1
	if R < 0 {
		return true
	}
	testable := false
	for _, v := range e {
		testable = testable || v > 1 && v-1 <= 2*R
	}
	if !testable {
		return true
	}
	for j := range s.dims {
		s.lo[j], s.hi[j] = lo[j]-R, lo[j]+e[j]-1+R
	}
	if f, size := s.boxCount(s.lo, s.hi); f == size {
		s.knownFree = R
		return true
	}
	slack := sStar - s.freeLb[s.torusL0]
	// cannot reports whether no center of the face c_j = v can tie
	cannot := func(j, v int) bool {
		for i := range s.dims {
			if i == j {
				s.lo[i], s.hi[i] = v-R, v+R
				continue
			}
			if e[i]-1 > 2*R {
				return false // the intersection is empty
			}
			s.lo[i], s.hi[i] = lo[i]+e[i]-1-R, lo[i]+R
		}
		f, size := s.boxCount(s.lo, s.hi)
		return size-f > slack
	}
	for j := range s.dims {
		if e[j] == 1 {
			continue
		}
		for e[j] > 0 && cannot(j, lo[j]) {
			lo[j]++
			e[j]--
		}
		for e[j] > 0 && cannot(j, lo[j]+e[j]-1) {
			e[j]--
		}
		if e[j] == 0 {
			return false
		}
	}
	return true
}

// maxShrinkLines is the most lines along dimension 0 that shrink reads off the
// free map for a box's bounding box of free nodes; a larger box is taken whole
// (where the scan cost more than it saved).
const maxShrinkLines = 16

// freeBox sets s.slo, s.se to the bounding box of the free nodes in the box lo,
// e (free: the free map), read line by line along dimension 0, and returns false
// when it holds none.
func (s *tieSearch) freeBox(free []uint64, lo, e []int) bool {
	d := s.d
	if d <= 3 && e[0] <= 64 {
		// at most two dimensions of lines of one word each, unrolled
		var n1, n2, s1, s2 = 1, 1, 0, 0
		base := lo[0]
		if d > 1 {
			n1, s1 = e[1], s.nstr[1]
			base += lo[1] * s1
		}
		if d > 2 {
			n2, s2 = e[2], s.nstr[2]
			base += lo[2] * s2
		}
		var any uint64
		mn1, mx1, mn2, mx2 := n1, -1, n2, -1
		for c2 := range n2 {
			p := base + c2*s2
			for c1 := range n1 {
				if b := readBits(free, p+c1*s1, e[0]); b != 0 {
					any |= b
					mn1, mx1 = min(mn1, c1), max(mx1, c1)
					mn2, mx2 = min(mn2, c2), max(mx2, c2)
				}
			}
		}
		if any == 0 {
			return false
		}
		t := bits.TrailingZeros64(any)
		s.slo[0], s.se[0] = lo[0]+t, 64-bits.LeadingZeros64(any)-t
		if d > 1 {
			s.slo[1], s.se[1] = lo[1]+mn1, mx1-mn1+1
		}
		if d > 2 {
			s.slo[2], s.se[2] = lo[2]+mn2, mx2-mn2+1
		}
		return true
	}
	mn, mx, c := s.bmin, s.bmax, s.line
	for j := range d {
		mn[j], mx[j], c[j] = math.MaxInt, -1, lo[j]
	}
	for {
		base := lo[0]
		for j := 1; j < d; j++ {
			base += c[j] * s.nstr[j]
		}
		for off := 0; off < e[0]; off += 64 {
			b := readBits(free, base+off, min(64, e[0]-off))
			if b == 0 {
				continue
			}
			mn[0] = min(mn[0], off+bits.TrailingZeros64(b))
			mx[0] = max(mx[0], off+63-bits.LeadingZeros64(b))
			for j := 1; j < d; j++ {
				mn[j], mx[j] = min(mn[j], c[j]), max(mx[j], c[j])
			}
		}
		j := 1
		for ; j < d; j++ { // the next line
			if c[j]++; c[j] < lo[j]+e[j] {
				break
			}
			c[j] = lo[j]
		}
		if j >= d {
			break
		}
	}
	if mx[0] < 0 {
		return false
	}
	s.slo[0], s.se[0] = lo[0]+mn[0], mx[0]-mn[0]+1
	for j := 1; j < d; j++ {
		s.slo[j], s.se[j] = mn[j], mx[j]-mn[j]+1
	}
	return true
}

// readBits returns the w <= 64 bits of the bitmap b from bit p on (p+w at most
// its length in bits).
func readBits(b []uint64, p, w int) uint64 {
	i, o := p>>6, uint(p&63)
	v := b[i] >> o
	if o != 0 && i+1 < len(b) {
		v |= b[i+1] << (64 - o)
	}
	if w < 64 {
		v &= 1<<uint(w) - 1
	}
	return v
}

// setK sets freeSums and freeLb for k.
func (s *tieSearch) setK(k int) {
	if s.freeK == k {
		return
	}
	s.freeK = k
	s.freeSums = append(s.freeSums[:0], tieSums{})
	s.freeLb = append(s.freeLb[:0], 0)
	for _, t := range s.freeTab {
		p := s.freeSums[len(s.freeSums)-1]
		s.freeSums = append(s.freeSums, tieSums{p.sLo + max(1, k-t.fHi), p.sHi + k - t.fLo, 0, 0})
		s.freeLb = append(s.freeLb, s.freeLb[len(s.freeLb)-1]+max(0, k-t.fHi))
	}
}

// unionMeet sets s.lo, s.hi to the union of the balls of radius r of the centers
// of the box (unclipped: freeBoxes clips or wraps it) and s.ilo, s.ihi to their
// intersection, and reports whether the box is one center.
func (s *tieSearch) unionMeet(lo, e []int, r int) (single bool) {
	single = true
	for j, dj := range s.dims {
		l, h := lo[j], lo[j]+e[j]-1
		single = single && e[j] == 1
		s.lo[j], s.hi[j] = l-r, h+r
		s.ilo[j], s.ihi[j] = h-r, l+r
		if s.wrap[j] && 2*r+1 >= dj { // every ball holds the whole ring
			s.ilo[j], s.ihi[j] = 0, dj-1
		}
	}
	return single
}

// ballGeom returns ballSizes(lo, e, r) and, with walls, bounds on the wall
// nodes (topo.Grid.OnBoundary) in the ball of radius r of a center of the box of
// low corner lo and extents e, from the coordinates alone. Along dimension j the
// ball spans s_j nodes, w_j (0, 1 or 2) of them on a wall, and it holds
// prod s_j - prod (s_j - w_j) wall nodes: increasing in every s_j and w_j (as
// 0 <= s_j - w_j), so at most that count at the largest s_j and w_j over the
// box, and at least at the smallest. (The union of the balls holds at least
// the upper bound: its spans and walls are at least the largest.)
func (s *tieSearch) ballGeom(lo, e []int, r int, walls bool) (allLo, allHi, wLo, wHi int) {
	pLo, qLo, pHi, qHi := 1, 1, 1, 1 // prod s_j, prod (s_j - w_j) at each end
	for j, dj := range s.dims {
		l, h := lo[j], lo[j]+e[j]-1
		if s.wrap[j] {
			v := min(2*r+1, dj)
			pLo, qLo, pHi, qHi = pLo*v, qLo*v, pHi*v, qHi*v
			continue
		}
		sLo, sHi := spanRange(l, h, r, dj)
		pLo, pHi = pLo*sLo, pHi*sHi
		if !walls {
			continue
		}
		vLo, vHi := 0, 0
		if dj > 2 {
			vLo, vHi = wallRange(l, h, r, dj)
		}
		qLo, qHi = qLo*(sLo-vLo), qHi*(sHi-vHi)
	}
	if !walls {
		return pLo, pHi, 0, 0
	}
	return pLo, pHi, pLo - qLo, pHi - qHi
}

// freeRadii appends to s.rs, for r = from..to-1, radius(lo, e, r) when every
// ball of radius r of the box's centers is all free (the free nodes are then
// the balls' sizes), from the coordinates alone, in one pass over the
// dimensions per radius: most of a box's radii are all free. The free wall
// nodes, when s.freeWalls (else none), are at least the intersection's and
// ballGeom's least count, at most ballGeom's largest.
func (s *tieSearch) freeRadii(lo, e []int, from, to int) {
	walls := s.freeWalls
	for r := from; r < to; r++ {
		pLo, qLo, pHi, qHi := 1, 1, 1, 1 // as ballGeom
		iAll, iIn := 1, 1                // the intersection's nodes, and those inside the walls (wallsIn)
		for j, dj := range s.dims {
			l, h := lo[j], lo[j]+e[j]-1
			if s.wrap[j] {
				v := min(2*r+1, dj)
				pLo, qLo, pHi, qHi = pLo*v, qLo*v, pHi*v, qHi*v
				n := dj
				if 2*r+1 < dj {
					n = max(0, min(l-h+2*r+1, dj))
				}
				iAll, iIn = iAll*n, iIn*n
				continue
			}
			sLo, sHi := spanRange(l, h, r, dj)
			pLo, pHi = pLo*sLo, pHi*sHi
			if !walls {
				continue
			}
			vLo, vHi := 0, 0
			n := max(0, min(l+r, dj-1)-max(h-r, 0)+1)
			in := n
			if dj > 2 {
				vLo, vHi = wallRange(l, h, r, dj)
				in = max(0, min(l+r, dj-2)-max(h-r, 1)+1)
			}
			qLo, qHi = qLo*(sLo-vLo), qHi*(sHi-vHi)
			iAll, iIn = iAll*n, iIn*in
		}
		t := tieRadius{fLo: pLo, fHi: pHi, allLo: pLo, allHi: pHi}
		if walls {
			t.wLo, t.wHi = max(iAll-iIn, pLo-qLo), pHi-qHi
		}
		s.rs = append(s.rs, t)
	}
}

// wallsIn returns the number of wall nodes (topo.Grid.OnBoundary) in the box
// lo..hi: its nodes less those of its part inside the walls.
func (s *tieSearch) wallsIn(lo, hi []int) int {
	all, inside := 1, 1
	for j, dj := range s.dims {
		n := s.fb.span(j, lo[j], hi[j])
		all *= n
		if !s.wrap[j] && dj > 2 {
			n = max(0, min(hi[j], dj-2)-max(lo[j], 1)+1)
		}
		inside *= n
	}
	return all - inside
}

// ballSizes returns the least and the most nodes a ball of radius r around a
// center of the box holds (one size on a torus: s.torusBall).
func (s *tieSearch) ballSizes(lo, e []int, r int) (allLo, allHi int) {
	if s.torusBall != nil {
		v := s.torusBall[min(r, len(s.torusBall)-1)]
		return v, v
	}
	allLo, allHi, _, _ = s.ballGeom(lo, e, r, false)
	return allLo, allHi
}

// terms returns the bounds on the three terms of the tie score of a center of the
// box whose outermost shell is L (s.rs filled by radii), and false when no center
// with that shell has shell score sStar.
func (s *tieSearch) terms(L, k, sStar int) (avail, wall, border [2]int, ok bool) {
	rs, SR := s.rs, s.tb.SR
	if rs[L].fHi < k || L > 0 && rs[L-1].fLo >= k {
		return avail, wall, border, false // L is not the outermost shell
	}
	// shell score sum over r < L of k - f(r), each at least 1
	sLo, sHi := s.sums[L].sLo, s.sums[L].sHi
	if sLo > sStar || sHi < sStar {
		return avail, wall, border, false
	}
	for _, t := range rs[L : L+SR+1] {
		avail[0] += t.fLo
		avail[1] += t.fHi
	}
	avail[0] -= (SR + 1) * k
	avail[1] -= (SR + 1) * k
	in, out := rs[L], rs[L+1]
	border[0] = SR * max(0, out.bLo-in.bHi)
	border[1] = SR * max(0, min(out.bHi-in.bLo, out.allHi-in.allLo))
	if s.fw != nil {
		prevLo, prevHi := 0, 0 // free wall nodes within L-1
		if L > 0 {
			wall[0], wall[1] = s.sums[L-1].wLo, s.sums[L-1].wHi
			prevLo, prevHi = rs[L-1].wLo, rs[L-1].wHi
			wall[0] += (SR + 2) * prevLo
			wall[1] += (SR + 2) * prevHi
		}
		wall[1] += (SR + 1) * min(k, max(0, in.wHi-prevLo))
	}
	return avail, wall, border, true
}

// value is tieValue at the end of each term's bounds that gives the least value.
func (s *tieSearch) value(avail, wall, border [2]int) float64 {
	tb := s.tb
	pick := func(f float64, t [2]int, low bool) int {
		if (f >= 0) == low {
			return t[0]
		}
		return t[1]
	}
	return tb.tieValue(pick(tb.AF, avail, true), pick(tb.WF, wall, false), pick(tb.BF, border, false))
}

// bound returns the least tie score a center of shell score sStar in the box can
// have; false when there is none.
func (s *tieSearch) bound(lo, e []int, k, sStar int) (float64, bool) {
	Lmin, Lmax, ok := s.radii(lo, e, k, sStar)
	if !ok {
		return 0, false
	}
	return s.least(Lmin, Lmax, k, sStar)
}

// least is the least of value over the outermost shells Lmin..Lmax that allow
// shell score sStar; false when none does.
func (s *tieSearch) least(Lmin, Lmax, k, sStar int) (float64, bool) {
	lb, any := math.Inf(1), false
	for L := Lmin; L <= Lmax; L++ {
		avail, wall, border, ok := s.terms(L, k, sStar)
		if !ok {
			continue
		}
		lb, any = min(lb, s.value(avail, wall, border)), true
	}
	return lb, any
}

// exact returns the tie score of the free center node when its shell score is
// sStar (and sets s.cand to its shell), else NaN.
func (s *tieSearch) exact(a *mc1x1, k, sStar, node int) float64 {
	d := s.d
	for j := range d {
		s.clo[j], s.e[j] = int(a.x.coord[node*d+j]), 1
	}
	Lmin, L, ok := s.radii(s.clo, s.e, k, sStar)
	if !ok || Lmin != L {
		return math.NaN()
	}
	avail, wall, border, ok := s.terms(L, k, sStar)
	if !ok || avail[0] != avail[1] || border[0] != border[1] {
		return math.NaN()
	}
	rs := s.rs
	inner := 0
	if L > 0 {
		inner = rs[L-1].fLo
	}
	m := k - inner
	s.cand = tieCand{int(a.pos[node]), L, m}
	if s.fw != nil {
		// wallLast from the counts, where they fix it (as tieScore)
		in := rs[L]
		shellFree, shellWall := in.fLo-inner, in.wLo
		if L > 0 {
			shellWall -= rs[L-1].wLo
		}
		wallLast := 0
		switch {
		case shellWall == 0 || m == shellFree:
			wallLast = shellWall
		case shellWall == shellFree:
			wallLast = m
		default:
			return a.tieScore(int(a.pos[node]), L, m, -1)
		}
		wall[0] += (s.tb.SR + 1) * wallLast
	}
	return s.tb.tieValue(avail[0], wall[0], border[0])
}

// wallRange bounds, over the centers' coordinates l..h on an axis of dj > 2 nodes,
// w(x) = [x <= r] + [x >= dj-1-r], the number of the axis's two walls within r of x:
// the first term falls with x and the second rises, so the least and most are at the
// box's ends, except for a center far from both walls (0) or near both (2).
func wallRange(l, h, r, dj int) (vLo, vHi int) {
	wl, wh := 0, 0
	if l <= r {
		wl++
	}
	if l >= dj-1-r {
		wl++
	}
	if h <= r {
		wh++
	}
	if h >= dj-1-r {
		wh++
	}
	vLo, vHi = min(wl, wh), max(wl, wh)
	if max(l, r+1) <= min(h, dj-2-r) {
		vLo = 0
	}
	if max(l, dj-1-r) <= min(h, r) {
		vHi = 2
	}
	return vLo, vHi
}

// spanRange bounds, over the centers' coordinates l..h on a mesh axis of dj
// nodes, a ball of radius r's extent min(x+r, dj-1) - max(x-r, 0) + 1 along it:
// concave and symmetric about the middle of the side, it is least at an end of
// the box and largest nearest the middle.
func spanRange(l, h, r, dj int) (sLo, sHi int) {
	m := min(max((dj-1)/2, l), h)
	sl := min(l+r, dj-1) - max(l-r, 0) + 1
	sh := min(h+r, dj-1) - max(h-r, 0) + 1
	sm := min(m+r, dj-1) - max(m-r, 0) + 1
	return min(sl, sh), max(sl, sh, sm)
}
