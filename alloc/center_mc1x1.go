package alloc

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"

	"github.com/procalloc/procalloc/topo"
)

func init() {
	register("mc1x1", "MC1x1 (Bender et al. 2005; Johnson et al. 2010): L-infinity shells around each free node, optionally with Johnson's tie-breaking (TieBreak)",
		func(arg string, m topo.Machine, opt Options) (Allocator, error) {
			return newMC1x1("mc1x1", arg, m, opt, false)
		})
	register("mc1x1-greedy", "MC1x1 with PReMAS's greedy outer shell (outer-shell nodes added by smallest total L1 to those chosen), optionally with Johnson's tie-breaking",
		func(arg string, m topo.Machine, opt Options) (Allocator, error) {
			return newMC1x1("mc1x1-greedy", arg, m, opt, true)
		})
}

// TieBreak holds the parameters (SR, AF, WF, BF) of Johnson et al. 2010 §II: scan
// radius and available, wall and border factors.
type TieBreak struct {
	SR         int
	AF, WF, BF float64
}

// ParseTieBreak parses "SR,AF,WF,BF", e.g. "3,9,3,2".
func ParseTieBreak(s string) (TieBreak, error) {
	parts := strings.Split(s, ",")
	if len(parts) != 4 {
		return TieBreak{}, fmt.Errorf("tie-breaking %q: want SR,AF,WF,BF (four numbers, e.g. 3,9,3,2)", s)
	}
	sr, err := strconv.Atoi(strings.TrimSpace(parts[0]))
	if err != nil || sr < 0 {
		return TieBreak{}, fmt.Errorf("tie-breaking %q: scan radius %q is not a non-negative integer", s, parts[0])
	}
	tb := TieBreak{SR: sr}
	for i, p := range []*float64{&tb.AF, &tb.WF, &tb.BF} {
		v, err := strconv.ParseFloat(strings.TrimSpace(parts[i+1]), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return TieBreak{}, fmt.Errorf("tie-breaking %q: factor %q is not a finite number", s, parts[i+1])
		}
		*p = v
	}
	return tb, nil
}

func (t TieBreak) String() string {
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	return fmt.Sprintf("%d,%s,%s,%s", t.SR, f(t.AF), f(t.WF), f(t.BF))
}

// TieStats counts how often the best candidate score of a center-based allocator is
// shared by several different allocations (Johnson et al. 2010, Fig. 4). Candidates
// are counted as distinct node sets: two centers that pick the same nodes are one
// potential allocation. (Counted this way, replays of KTH-SP2 and LLNL-T3D with FCFS
// give Fig. 4's figures to within one decision; counting centers instead gives about
// 10% more tied decisions.)
type TieStats struct {
	Decisions      int64 // allocations made
	Tied           int64 // allocations in which more than one distinct allocation had the best score
	TiedCandidates int64 // over the tied allocations, the total number of distinct allocations sharing the best score
	TiedCenters    int64 // over the tied allocations, the total number of centers sharing the best score
}

// TieReporter is implemented by allocators that score candidate allocations.
// Counting distinct tied allocations costs as much as choosing them, so it is off
// until CountTies(true); a trace replay turns it on, a bare allocation does not pay.
type TieReporter interface {
	// CountTies turns tie counting on or off for the allocations that follow.
	CountTies(on bool)
	// LastTies returns how many distinct allocations shared the best score in the
	// last allocation: 1 when it was unique, 0 when no choice was scored (the job
	// took every free node) or tie counting is off.
	LastTies() int
	TieStats() TieStats
}

// mc1x1 is MC1x1 (Bender et al. 2005 §5, Bunde et al. 2004 §2.3, Johnson et al. 2010
// §I): for every free node c, in free-list order, take the k free nodes closest to c
// in L-infinity distance ("shells") and score them by the sum of their distances to
// c; the first center with the smallest (score, tie score) wins.
//
// Which nodes of the outermost shell are taken follows PReMAS exactly
// (reference-simulators.md): one working array, initially the free list, is
// stable-sorted by distance from each center in turn and never reset, so after the
// i-th center it is ordered by (d_i, d_{i-1}, ..., d_1, free-list position), d_j the
// distance from center j. Scores and the order-independent parts of tie scores come
// from prefix sums over the mesh in O(2^d) per shell, for every center first; the
// order is worked out only for the outermost shells of the centers sharing the best
// score (all of them when ties are counted, for their node sets; otherwise those
// whose wall term needs it, and the winner), comparing nodes by distances to the
// earlier centers (lastBits on bitsets, chooseLast on lists). That gives the same
// answer as re-sorting the whole array per center, without its O(n) per center.
type mc1x1 struct {
	name   string
	g      *topo.Grid
	st     *State
	x      *gridIndex
	order  []int
	stale  prefixParts // prefix sums of a.x not yet rebuilt since the state changed
	greedy bool
	tb     *TieBreak
	stats  TieStats
	last   int

	seen      decisionMemo
	countTies bool // CountTies: fingerprint tied candidates (TieReporter)
	noMasks   bool // work out tied node sets on lists, not bitsets (tests)
	bitsBuf   []uint64

	fl   []int   // free list of the current allocation
	pos  []int32 // node -> position in fl (valid for free nodes)
	ball []shellCount
	sh   []int
	sums []int
	tmp  []int

	tied    []tieCand
	hashes  []uint64
	hashSet []uint64 // countDistinct

	coords [][]int // shellNodes scratch
	idx    []int
	hist   []int // l1Sums scratch

	lastBuf     []int     // chooseLast2D: the nodes taken
	segBuf      []ringSeg // chooseLast2D: runs of the undecided nodes
	segBuf2     []ringSeg
	plainChoose bool // chooseLast without chooseLast2D (tests)

	dist     []int32 // refine: distances of the undecided nodes
	distHist []int   // refine: how many undecided nodes at each distance (left zero)

	keyBits     greedyKeyBits // greedyCollectMesh's packing of its selection key
	keys        []int64
	candXY      []int32 // greedyCollectRings: candidates' coordinates
	greedyCands []greedyCand
	ring        []int
}

// greedyCand is a center of the greedy collector with its count-based lower bound.
type greedyCand struct {
	lower   int
	i, L, m int32
}

type shellCount struct{ free, freeWall, all int }

func newMC1x1(name, arg string, m topo.Machine, opt Options, greedy bool) (Allocator, error) {
	g, ok := m.(*topo.Grid)
	if !ok {
		return nil, fmt.Errorf("%s needs a mesh or torus, not %s", name, m.Spec())
	}
	a := &mc1x1{name: name, g: g, st: NewState(g.N()), x: newGridIndex(g), order: FreeListOrder(g), stale: prefixAll, greedy: greedy}
	a.pos = make([]int32, g.N())
	a.keyBits = newGreedyKeyBits(g)
	a.seen.off = opt.NoMemo
	switch {
	case arg == "":
	case strings.HasPrefix(arg, "tb="):
		tb, err := ParseTieBreak(strings.TrimPrefix(arg, "tb="))
		if err != nil {
			return nil, err
		}
		a.tb = &tb
		a.name = name + ":tb=" + tb.String()
	default:
		return nil, fmt.Errorf("unknown argument %q (want tb=SR,AF,WF,BF)", arg)
	}
	return a, nil
}

func (a *mc1x1) Name() string          { return a.name }
func (a *mc1x1) Machine() topo.Machine { return a.g }
func (a *mc1x1) NumFree() int          { return a.st.NumFree() }
func (a *mc1x1) CountTies(on bool)     { a.countTies = on }
func (a *mc1x1) LastTies() int         { return a.last }
func (a *mc1x1) TieStats() TieStats    { return a.stats }

func (a *mc1x1) Release(nodes []int) error {
	if err := a.st.Release(nodes); err != nil {
		return err
	}
	a.stale = prefixAll
	return nil
}

func (a *mc1x1) Allocate(k int) ([]int, error) {
	if err := a.st.CheckRequest(k); err != nil {
		return nil, err
	}
	a.stats.Decisions++
	if k == a.st.NumFree() {
		// PReMAS: a job that needs every free node gets them all, unscored.
		nodes := a.st.AppendFree(nil)
		a.last = 0
		return nodes, a.take(nodes)
	}
	if nodes, d, ok := a.seen.lookup(k, a.countTies, a.st); ok {
		a.last = int(d.ties)
		a.stats.Tied += d.stats.Tied
		a.stats.TiedCandidates += d.stats.TiedCandidates
		a.stats.TiedCenters += d.stats.TiedCenters
		return nodes, a.take(nodes)
	}
	before := a.stats
	nodes, err := a.search(k)
	if err == nil { // a decision met again gets these nodes and tie counts
		a.seen.store(nodes, a.last, TieStats{Tied: a.stats.Tied - before.Tied,
			TiedCandidates: a.stats.TiedCandidates - before.TiedCandidates, TiedCenters: a.stats.TiedCenters - before.TiedCenters})
	}
	return nodes, err
}

// search makes the allocation of k nodes, fewer than are free.
func (a *mc1x1) search(k int) ([]int, error) {
	a.refresh(prefixFree)
	a.fl = a.st.AppendFreeInOrder(a.fl[:0], a.order)
	for i, v := range a.fl {
		a.pos[v] = int32(i)
	}
	if a.greedy {
		return a.allocateGreedy(k)
	}
	// First the scores alone (prefix sums, O(1) per shell) to find the best score and
	// the centers that share it; only those need a tie score or their node set.
	best := math.MaxInt
	a.tied = a.tied[:0]
	for i, c := range a.fl {
		score, L, m, ok := a.shellScore(c, k, best)
		if !ok {
			continue
		}
		if score < best {
			best = score
			a.tied = a.tied[:0]
		}
		a.tied = append(a.tied, tieCand{i, L, m})
	}
	win := a.tied[0]
	ties := 0
	if len(a.tied) > 1 && (a.countTies || a.tb != nil) {
		// With tie counting, the exact node set of every tied center: its
		// fingerprint, and the wall term of its tie score. Without, the tie score
		// works the wall term out itself, and only where the shell counts leave
		// it open.
		parts := prefixParts(0)
		if a.tb != nil {
			parts |= prefixWall
		}
		if a.countTies {
			parts |= prefixHash
		}
		a.refresh(parts)
		var masks []uint64
		if a.countTies {
			masks, _ = a.ballMasks()
		}
		hs := a.hashes[:0]
		bestTie := 0.0
		for n, t := range a.tied {
			wallLast := -1
			switch {
			case masks != nil:
				last := a.lastBits(t.i, t.L, t.m)
				if a.tb != nil {
					wallLast = 0
					for w, b := range a.x.wallBits {
						wallLast += bits.OnesCount64(b & last[w])
					}
				}
				h := a.x.ballHash(a.fl[t.i], t.L-1)
				for w, b := range last {
					for ; b != 0; b &= b - 1 {
						h += a.x.hash[w<<6|bits.TrailingZeros64(b)]
					}
				}
				hs = append(hs, h)
			case a.countTies:
				last := a.chooseLast(t.i, t.L, t.m)
				wallLast = a.countWall(last)
				hs = append(hs, a.lastHash(t, last))
			}
			if a.tb != nil {
				if ts := a.tieScore(t.i, t.L, t.m, wallLast); n == 0 || ts < bestTie {
					win, bestTie = t, ts
				}
			}
		}
		if a.countTies {
			a.hashes = hs
			if ties = a.countDistinct(hs); ties > 1 {
				a.stats.Tied++
				a.stats.TiedCandidates += int64(ties)
				a.stats.TiedCenters += int64(len(a.tied))
			}
		}
	}
	if a.countTies && ties == 0 {
		ties = 1
	}
	a.last = ties
	var nodes []int
	if masks, words := a.ballMasks(); masks != nil {
		nodes = a.chooseBits(win, masks, words)
	} else {
		nodes = a.choose(win.i, k, win.L, win.m, nil)
		slices.Sort(nodes)
	}
	return nodes, a.take(nodes)
}

type tieCand struct{ i, L, m int }

// lastHash is the fingerprint of the node set of tied center t whose outermost-shell
// nodes are last: the sum mod 2^64 of random 64-bit node labels (the inner shells
// from prefix sums); two different sets match with probability about 2^-64.
func (a *mc1x1) lastHash(t tieCand, last []int) uint64 {
	h := a.x.ballHash(a.fl[t.i], t.L-1)
	for _, v := range last {
		h += a.x.hash[v]
	}
	return h
}

// countDistinct returns how many different fingerprints hs holds, with an
// open-addressing table (the fingerprints are sums of random labels, so their low
// bits index it directly).
func (a *mc1x1) countDistinct(hs []uint64) int {
	size := 1 << bits.Len(uint(2*len(hs)))
	if cap(a.hashSet) < size {
		a.hashSet = make([]uint64, size)
	}
	t := a.hashSet[:size]
	clear(t)
	n, zero := 0, false
	for _, h := range hs {
		if h == 0 { // the table's empty mark
			if !zero {
				zero = true
				n++
			}
			continue
		}
		i := h & uint64(size-1)
		for t[i] != 0 && t[i] != h {
			i = (i + 1) & uint64(size-1)
		}
		if t[i] == 0 {
			t[i] = h
			n++
		}
	}
	return n
}

// refresh rebuilds the prefix sums among parts that are out of date.
func (a *mc1x1) refresh(parts prefixParts) {
	if p := a.stale & parts; p != 0 {
		a.x.rebuild(a.st, p)
		a.stale &^= p
	}
}

func (a *mc1x1) take(nodes []int) error {
	if err := a.st.Take(nodes); err != nil {
		return fmt.Errorf("%s: internal error: %w", a.name, err)
	}
	a.stale = prefixAll
	return nil
}

// shellScore returns, for center c, the sum of the L-infinity distances of the k
// nearest free nodes, the radius L of the outermost shell used, and how many nodes m
// of that shell are taken. It gives up (ok false) as soon as the score must exceed
// bound.
func (a *mc1x1) shellScore(c, k, bound int) (score, L, m int, ok bool) {
	// c itself is free: the ball of radius 0 holds one node.
	if k == 1 {
		return 0, 0, 1, true
	}
	if k-1 > bound {
		return 0, 0, 0, false
	}
	acc, prev := 0, 1
	x := a.x
	plane := x.d == 2 && !x.anyWrap // a mesh: the count is read inline
	var cx, cy, X1, Y1, sx int
	if plane {
		cx, cy = int(x.coord[2*c]), int(x.coord[2*c+1])
		X1, Y1, sx = x.dims[0]-1, x.dims[1]-1, x.pstride[1]
	}
	for r := 1; ; r++ {
		var cnt int
		if plane {
			x0, x1 := max(cx-r, 0), min(cx+r, X1)+1
			y0, y1 := max(cy-r, 0)*sx, (min(cy+r, Y1)+1)*sx
			cnt = int(x.free[x1+y1] - x.free[x0+y1] - x.free[x1+y0] + x.free[x0+y0])
		} else {
			cnt = x.freeInBall(c, r)
		}
		if cnt >= k {
			m = k - prev
			return acc + r*m, r, m, true
		}
		acc += r * (cnt - prev)
		prev = cnt
		if acc+(r+1)*(k-prev) > bound {
			return 0, 0, 0, false
		}
	}
}

// shells fills a.ball[0..R] with the cumulative counts of the balls around c; on a
// 2D mesh the free wall nodes only up to radius wallR (zero beyond).
func (a *mc1x1) shells(c, R, wallR int) {
	a.ball = a.ball[:0]
	if x := a.x; x.d == 2 && !x.anyWrap {
		// c is free
		a.ball = append(a.ball, shellCount{free: 1, all: 1})
		if x.wall[c] {
			a.ball[0].freeWall = 1
		}
		cx, cy := int(x.coord[2*c]), int(x.coord[2*c+1])
		X, Y, sx := x.dims[0], x.dims[1], x.pstride[1]
		fr, fw := x.free, x.freeW
		for r := 1; r <= R; r++ {
			x0, x1 := max(cx-r, 0), min(cx+r, X-1)+1
			r0, r1 := max(cy-r, 0), min(cy+r, Y-1)+1
			y0, y1 := r0*sx, r1*sx
			s := shellCount{
				free: int(fr[x1+y1] - fr[x0+y1] - fr[x1+y0] + fr[x0+y0]),
				all:  (x1 - x0) * (r1 - r0),
			}
			if r <= wallR {
				s.freeWall = int(fw[x1+y1] - fw[x0+y1] - fw[x1+y0] + fw[x0+y0])
			}
			a.ball = append(a.ball, s)
		}
		return
	}
	for r := 0; r <= R; r++ {
		f, fw, all := a.x.ball(c, r)
		a.ball = append(a.ball, shellCount{f, fw, all})
	}
}

// tieScore is Johnson et al. 2010 §II's tie-breaking score of the candidate centered
// on a.fl[i], as PReMAS computes it (reference-simulators.md): with lastlook = L+SR
// and weight(d) = lastlook-d+1, + AF*weight for each free node not taken with
// d <= lastlook, - WF*weight for each taken node on the mesh boundary, - BF*weight
// for each busy node at d = L+1. wallLast is how many of the m nodes taken from shell L
// lie on the wall, or -1 to work it out here.
func (a *mc1x1) tieScore(i, L, m, wallLast int) float64 {
	tb := a.tb
	if tb.SR == 0 {
		return 0
	}
	c := a.fl[i]
	look := L + tb.SR
	a.shells(c, look, L) // the wall counts are read up to shell L
	shell := func(d int) shellCount {
		s := a.ball[d]
		if d > 0 {
			p := a.ball[d-1]
			s.free -= p.free
			s.freeWall -= p.freeWall
			s.all -= p.all
		}
		return s
	}
	w := func(d int) float64 { return float64(look - d + 1) }
	avail, wall := 0.0, 0.0
	for d := 0; d < L; d++ {
		wall += w(d) * float64(shell(d).freeWall)
	}
	last := shell(L)
	avail -= w(L) * float64(m)
	for d := L; d <= look; d++ {
		avail += w(d) * float64(shell(d).free)
	}
	switch {
	case wallLast >= 0:
	case m == last.free || last.freeWall == 0:
		wallLast = last.freeWall
	case last.freeWall == last.free:
		wallLast = m
	default:
		if masks, _ := a.ballMasks(); masks != nil {
			wallLast = 0
			for w, b := range a.lastBits(i, L, m) {
				wallLast += bits.OnesCount64(b & a.x.wallBits[w])
			}
		} else {
			wallLast = a.wallInLast(i, L, m)
		}
	}
	wall += w(L) * float64(wallLast)
	b := shell(L + 1)
	border := w(L+1) * float64(b.all-b.free)
	return tb.AF*avail - tb.WF*wall - tb.BF*border
}

// ballMasks returns the gridIndex's ball masks, or nil when the machine is too
// large for them (or the list-based path is forced).
func (a *mc1x1) ballMasks() ([]uint64, int) {
	if a.noMasks {
		return nil, 0
	}
	return a.x.ballMasks()
}

// lastBits returns, as a bitset (scratch space), the m nodes chooseLast(i, L, m)
// takes from the outermost shell: the same walk back through the earlier centers,
// on bitsets. The undecided nodes g start as the free nodes of shell L; center c_j
// at distance D from c sees them at distances L-D..L+D, and the cut value (the
// need-th smallest distance) is found by binary search on the counts of g within
// the balls around c_j. Nodes inside the cut are taken, those on it stay undecided.
func (a *mc1x1) lastBits(i, L, m int) []uint64 {
	masks, W := a.x.ballMasks()
	RW := (a.x.maxLinf + 1) * W // ball(c, r) = masks[c*RW+r*W:][:W]
	if cap(a.bitsBuf) < 2*W {
		a.bitsBuf = make([]uint64, 2*W)
	}
	out, g := a.bitsBuf[:W:W], a.bitsBuf[W:2*W:2*W]
	c := a.fl[i]
	free := a.st.free[:W]
	o := c*RW + L*W
	outer := masks[o : o+W]
	n := 0
	if L == 0 {
		for w := range g {
			g[w] = outer[w] & free[w]
			n += bits.OnesCount64(g[w])
		}
	} else {
		inner := masks[o-W : o]
		for w := range g {
			g[w] = outer[w] &^ inner[w] & free[w]
			n += bits.OnesCount64(g[w])
		}
	}
	clear(out)
	need := m
	// g's nonzero words are g[wlo:whi]; only those are read.
	wlo, whi := 0, W
	trim := func() {
		for wlo < whi && g[wlo] == 0 {
			wlo++
		}
		for whi > wlo && g[whi-1] == 0 {
			whi--
		}
	}
	trim()
	mesh2D, co := a.x.d == 2 && !a.x.anyWrap, a.x.coord
	// On a 2D mesh, once a center has left g as it was, g's bounding box is
	// worked out, and the centers that see the whole box at one distance (a run of
	// them is typical: centers further up the column, or far down the previous
	// one) are skipped without counting.
	box, boxed := [4]int32{}, false
	for j := i - 1; j >= 0 && need > 0 && need < n; j-- {
		cj := a.fl[j]
		var D int
		if mesh2D {
			px, py := co[2*cj], co[2*cj+1]
			if boxed {
				dx0, dx1 := intervalDist(px, box[0], box[1])
				dy0, dy1 := intervalDist(py, box[2], box[3])
				if max(dx0, dy0) == max(dx1, dy1) {
					continue
				}
			}
			D = int(max(abs32(co[2*c]-px), abs32(co[2*c+1]-py)))
		} else {
			D = a.x.linf(c, cj)
		}
		// count(t) = |g within distance t of cj|: count(lo) < need <= count(hi)
		lo, hi := max(L-D, 0)-1, min(L+D, a.x.maxLinf)
		cntLo, cntHi := 0, n
		gw := g[wlo:whi]
		base := cj*RW + wlo
		for hi-lo > 1 {
			mid := (lo + hi) >> 1
			b := masks[base+mid*W:]
			b = b[:len(gw)]
			cnt := 0
			for w, v := range gw {
				cnt += bits.OnesCount64(v & b[w])
			}
			if cnt < need {
				lo, cntLo = mid, cnt
			} else {
				hi, cntHi = mid, cnt
			}
		}
		if cntLo == 0 && cntHi == n {
			// all undecided nodes at the same distance from c_j
			if mesh2D && !boxed {
				box, boxed = [4]int32{math.MaxInt32, -1, math.MaxInt32, -1}, true
				for w := wlo; w < whi; w++ {
					for b := g[w]; b != 0; b &= b - 1 {
						v := w<<6 | bits.TrailingZeros64(b)
						x, y := co[2*v], co[2*v+1]
						box = [4]int32{min(box[0], x), max(box[1], x), min(box[2], y), max(box[3], y)}
					}
				}
			}
			continue
		}
		boxed = false
		bh := masks[base+hi*W:]
		bh = bh[:len(gw)]
		if lo >= 0 {
			bl := masks[base+lo*W:]
			bl = bl[:len(gw)]
			ow := out[wlo:whi]
			for w, v := range gw {
				ow[w] |= v & bl[w]
				gw[w] = v & bh[w] &^ bl[w]
			}
		} else {
			for w, v := range gw {
				gw[w] = v & bh[w]
			}
		}
		trim()
		need -= cntLo
		n = cntHi - cntLo
	}
	switch {
	case need == n:
		for w := range out {
			out[w] |= g[w]
		}
	case need > 0:
		// Still tied after every earlier center: free-list position decides.
		rest := a.tmp[:0]
		for w, b := range g {
			for ; b != 0; b &= b - 1 {
				rest = append(rest, w<<6|bits.TrailingZeros64(b))
			}
		}
		slices.SortFunc(rest, func(p, q int) int { return int(a.pos[p] - a.pos[q]) })
		for _, v := range rest[:need] {
			out[v>>6] |= 1 << (v & 63)
		}
		a.tmp = rest
	}
	return out
}

// chooseBits returns the nodes of candidate t in increasing order, from lastBits.
func (a *mc1x1) chooseBits(t tieCand, masks []uint64, W int) []int {
	last := a.lastBits(t.i, t.L, t.m)
	nodes := make([]int, 0, a.x.freeInBall(a.fl[t.i], t.L-1)+t.m)
	if t.L > 0 {
		o := (a.fl[t.i]*(a.x.maxLinf+1) + t.L - 1) * W
		inner := masks[o : o+W]
		for w := range last {
			last[w] |= inner[w] & a.st.free[w]
		}
	}
	for w, b := range last {
		for ; b != 0; b &= b - 1 {
			nodes = append(nodes, w<<6|bits.TrailingZeros64(b))
		}
	}
	return nodes
}

// choose returns the k nodes of the candidate centered on a.fl[i] (appended to dst).
func (a *mc1x1) choose(i, k, L, m int, dst []int) []int {
	c := a.fl[i]
	for _, v := range a.fl {
		if a.x.linf(c, v) < L {
			dst = append(dst, v)
		}
	}
	return append(dst, a.chooseLast(i, L, m)...)
}

// chooseLast returns the m nodes taken from the outermost shell (radius L) of the
// candidate centered on a.fl[i], in no particular order. The result aliases scratch
// space.
//
// In the working array after the stable sort for center i, the shell's nodes are
// ordered by (d_{i-1}, d_{i-2}, ..., d_0, free-list position), d_j the distance from
// center j. Only set membership matters, so instead of sorting the shell this walks
// back through the earlier centers refining just the group of nodes that straddles
// the cut at m: nodes closer to center j than the cut value are in, farther ones out.
func (a *mc1x1) chooseLast(i, L, m int) []int {
	if a.x.d == 2 && !a.x.anyWrap && !a.plainChoose {
		return a.chooseLast2D(i, L, m)
	}
	c := a.fl[i]
	a.sh = a.shellNodes(c, L, a.sh[:0])
	S := a.sh
	if m == len(S) {
		return S
	}
	in, hi, need := a.refine(i, S, m, false)
	if need > 0 && need < hi-in {
		g := S[in:hi]
		slices.SortFunc(g, func(p, q int) int { return int(a.pos[p] - a.pos[q]) })
	}
	return S[:in+need]
}

// wallInLast returns how many of the nodes chooseLast(i, L, m) would return lie on
// the mesh boundary, refining only until the undecided nodes are all on it or all
// off it.
func (a *mc1x1) wallInLast(i, L, m int) int {
	a.sh = a.shellNodes(a.fl[i], L, a.sh[:0])
	S := a.sh
	in, hi, need := a.refine(i, S, m, true)
	walls := 0
	for _, v := range S[:in] {
		if a.x.wall[v] {
			walls++
		}
	}
	g := S[in:hi]
	if need > 0 && need < len(g) {
		if gw := a.countWall(g); gw == 0 || gw == len(g) {
			return walls + need*gw/len(g)
		}
		slices.SortFunc(g, func(p, q int) int { return int(a.pos[p] - a.pos[q]) })
	}
	return walls + a.countWall(g[:need])
}

func (a *mc1x1) countWall(nodes []int) int {
	n := 0
	for _, v := range nodes {
		if a.x.wall[v] {
			n++
		}
	}
	return n
}

// refine walks back through the centers before i, narrowing the group of shell
// nodes S that straddles the cut at m (see chooseLast). It reorders S and returns
// in, hi, need: S[:in] are taken, S[in:hi] undecided, need more of them taken. With
// wallOnly it stops as soon as the undecided nodes are all on or all off the wall.
func (a *mc1x1) refine(i int, S []int, m int, wallOnly bool) (in, hi, need int) {
	in, hi, need = 0, len(S), m
	keys, hist := a.dist[:0], a.distHist
	if n := a.x.maxLinf + 1; len(hist) < n {
		hist = make([]int, n)
	}
	mesh2D := a.x.d == 2 && !a.x.anyWrap
	co := a.x.coord
	// On a 2D mesh, once a center has left g as it was, g's bounding box is worked
	// out, and the centers that see the whole box at one distance are skipped in
	// O(1) (as in lastBits): that is every center that leaves g as it was, since
	// such a g lies in one row or column (a box two wide either way is at several
	// distances from every point).
	box, boxed := [4]int32{}, false
	changed := true // g changed since the wall test
	for j := i - 1; j >= 0 && need > 0 && need < hi-in; j-- {
		g := S[in:hi]
		if wallOnly && changed {
			if gw := a.countWall(g); gw == 0 || gw == len(g) {
				break
			}
			changed = false
		}
		cj := a.fl[j]
		if boxed {
			px, py := co[2*cj], co[2*cj+1]
			dx0, dx1 := intervalDist(px, box[0], box[1])
			dy0, dy1 := intervalDist(py, box[2], box[3])
			if max(dx0, dy0) == max(dx1, dy1) {
				continue
			}
		}
		keys = keys[:0]
		lo, up := int32(math.MaxInt32), int32(-1)
		if mesh2D {
			cx, cy := co[2*cj], co[2*cj+1]
			for _, v := range g {
				d := max(abs32(co[2*v]-cx), abs32(co[2*v+1]-cy))
				keys = append(keys, d)
				hist[d]++
				lo, up = min(lo, d), max(up, d)
			}
		} else {
			for _, v := range g {
				d := int32(a.x.linf(cj, v))
				keys = append(keys, d)
				hist[d]++
				lo, up = min(lo, d), max(up, d)
			}
		}
		if lo == up {
			hist[lo] = 0
			if mesh2D && !boxed {
				box, boxed = [4]int32{math.MaxInt32, -1, math.MaxInt32, -1}, true
				for _, v := range g {
					x, y := co[2*v], co[2*v+1]
					box = [4]int32{min(box[0], x), max(box[1], x), min(box[2], y), max(box[3], y)}
				}
			}
			continue
		}
		boxed, changed = false, true
		// Cut value: the need-th smallest key; g is split into < cut, == cut and
		// > cut (the order inside each part does not matter for membership).
		cut, less := lo, 0
		for less+hist[cut] < need {
			less += hist[cut]
			cut++
		}
		eq := hist[cut]
		clear(hist[lo : up+1])
		// In place, keys alongside: g[:p0] < cut, g[p0:p1] == cut, g[p2:] > cut.
		p0, p1, p2 := 0, 0, len(g)
		for p1 < p2 {
			switch d := keys[p1]; {
			case d < cut:
				g[p0], g[p1] = g[p1], g[p0]
				keys[p0], keys[p1] = d, keys[p0]
				p0++
				p1++
			case d > cut:
				p2--
				g[p1], g[p2] = g[p2], g[p1]
				keys[p1], keys[p2] = keys[p2], d
			default:
				p1++
			}
		}
		in += less
		need -= less
		hi = in + eq
	}
	a.dist, a.distHist = keys, hist
	return in, hi, need
}

// shellNodes appends the free nodes at L-infinity distance exactly r from c.
func (a *mc1x1) shellNodes(c, r int, dst []int) []int {
	x := a.x
	d := x.d
	if d == 2 && !x.anyWrap {
		return a.ringNodes2D(int(x.coord[2*c]), int(x.coord[2*c+1]), r, dst)
	}
	// Coordinates of the ball, per dimension, with their axis distances.
	if len(a.coords) != d {
		a.coords = make([][]int, d)
		a.idx = make([]int, d)
	}
	coords := a.coords
	for j := range coords {
		coords[j] = coords[j][:0]
	}
	for j, dj := range x.dims {
		cv := int(x.coord[c*d+j])
		if x.wrap[j] && 2*r+1 >= dj {
			for v := range dj {
				coords[j] = append(coords[j], v)
			}
			continue
		}
		for v := cv - r; v <= cv+r; v++ {
			w := v
			if x.wrap[j] {
				w = (v%dj + dj) % dj
			} else if v < 0 || v >= dj {
				continue
			}
			coords[j] = append(coords[j], w)
		}
	}
	axis := func(j, v int) int {
		t := v - int(x.coord[c*d+j])
		if t < 0 {
			t = -t
		}
		if x.wrap[j] && x.dims[j]-t < t {
			t = x.dims[j] - t
		}
		return t
	}
	idx := a.idx // positions in coords for dims 1..d-1
	clear(idx)
	for {
		outerMax, base := 0, 0
		st := 1
		for j := 0; j < d; j++ {
			if j > 0 {
				v := coords[j][idx[j]]
				base += v * st
				outerMax = max(outerMax, axis(j, v))
			}
			st *= x.dims[j]
		}
		if outerMax <= r {
			for _, v := range coords[0] {
				if outerMax == r || axis(0, v) == r {
					if n := base + v; a.st.IsFree(n) {
						dst = append(dst, n)
					}
				}
			}
		}
		j := 1
		for ; j < d; j++ {
			idx[j]++
			if idx[j] < len(coords[j]) {
				break
			}
			idx[j] = 0
		}
		if j >= d {
			break
		}
	}
	return dst
}

// allocateGreedy is MC1x1 with PReMAS's greedy point collector
// (GreedyLInfPointCollector; reference-simulators.md): around each center c, L is the
// shell of the k-th nearest free node; every free node strictly inside shell L is
// taken, and the other m come one at a time from all free nodes at distance >= L (the
// outer shell and beyond), each the one with the smallest total L1 distance to those
// taken so far, ties to the smaller L1 distance to c, then the smaller (x, y, z). The
// candidate's score is the sum of the L-infinity distances of the set it returns, so a
// node from beyond shell L adds its own shell number; its tie score is 0 (PReMAS
// scores the returned set alone, which leaves no node to weigh). The first center with
// the smallest score wins.
//
// The count-based score of the plain collector (L for each of the m nodes) is a lower
// bound of the greedy score, so centers whose bound is not below the best greedy
// score so far are skipped without running the collector.
func (a *mc1x1) allocateGreedy(k int) ([]int, error) {
	// Centers are collected in order of their count-based lower bound (then
	// free-list position), so that the search stops at the first bound above the best
	// score: the winner is still the first center in free-list order with the
	// smallest score, and every center that ties it is still collected.
	cands := a.greedyCands[:0]
	for i, c := range a.fl {
		lower, L, m, _ := a.shellScore(c, k, math.MaxInt)
		cands = append(cands, greedyCand{lower: lower, i: int32(i), L: int32(L), m: int32(m)})
	}
	a.greedyCands = cands
	slices.SortFunc(cands, func(p, q greedyCand) int {
		return cmp.Or(cmp.Compare(p.lower, q.lower), cmp.Compare(p.i, q.i))
	})
	best, bestPos := math.MaxInt, len(a.fl)
	var bestSet []int
	ties := 0
	a.hashes = a.hashes[:0]
	for _, cd := range cands {
		i := int(cd.i)
		if cd.lower > best {
			break
		}
		countEqual := a.countTies || i < bestPos // a center scoring best still matters
		if cd.lower == best && !countEqual {
			continue
		}
		stop := best // a larger score can neither win nor tie
		if !countEqual {
			stop = best - 1
		}
		score, set := a.greedyCollect(a.fl[i], int(cd.L), int(cd.m), stop)
		switch {
		case score < best:
			best, bestPos, ties = score, i, 1
			bestSet = append(bestSet[:0], set...)
			a.hashes = append(a.hashes[:0], a.setHash(set))
		case score == best:
			ties++
			a.hashes = append(a.hashes, a.setHash(set))
			if i < bestPos {
				bestPos = i
				bestSet = append(bestSet[:0], set...)
			}
		}
	}
	if !a.countTies {
		ties = 0
	}
	if ties > 1 {
		centers := ties
		if ties = a.countDistinct(a.hashes); ties > 1 {
			a.stats.Tied++
			a.stats.TiedCandidates += int64(ties)
			a.stats.TiedCenters += int64(centers)
		}
	}
	a.last = ties
	nodes := slices.Clone(bestSet)
	slices.Sort(nodes)
	return nodes, a.take(nodes)
}

func (a *mc1x1) setHash(set []int) uint64 {
	var h uint64
	for _, v := range set {
		h += a.x.hash[v]
	}
	return h
}

// greedyCollect returns the greedy collector's score and set around c, given the shell
// L of the k-th nearest free node and the number m of nodes to take at distance >= L.
// The set aliases scratch space. On a mesh it may stop early, returning math.MaxInt,
// once the score must exceed stop.
func (a *mc1x1) greedyCollect(c, L, m, stop int) (int, []int) {
	if !a.x.anyWrap && a.keyBits.ok {
		if a.x.d == 2 {
			return a.greedyCollectRings(c, L, m, stop)
		}
		return a.greedyCollectMesh(c, L, m, stop)
	}
	set := a.tmp[:0]
	cand := a.sh[:0]
	score := 0
	for _, v := range a.fl {
		if d := a.x.linf(c, v); d < L {
			set = append(set, v)
			score += d
		} else {
			cand = append(cand, v)
		}
	}
	a.sh = cand
	// Initial totals: L1 distance from each candidate to the inner nodes, from
	// per-dimension counts of the inner nodes' coordinates (O(d) per candidate); with
	// wraparound, pair by pair.
	sums := a.sums[:0]
	if !slices.Contains(a.x.wrap, true) {
		a.l1Sums(set, cand, &sums)
	} else {
		for _, s := range cand {
			t := 0
			for _, v := range set {
				t += a.x.l1(s, v)
			}
			sums = append(sums, t)
		}
	}
	a.sums = sums
	for n := 0; n < m; n++ {
		b := n
		for j := n + 1; j < len(cand); j++ {
			if sums[j] != sums[b] {
				if sums[j] < sums[b] {
					b = j
				}
				continue
			}
			dj, db := a.x.l1(c, cand[j]), a.x.l1(c, cand[b])
			if dj < db || dj == db && a.pos[cand[j]] < a.pos[cand[b]] {
				b = j
			}
		}
		cand[n], cand[b] = cand[b], cand[n]
		sums[n], sums[b] = sums[b], sums[n]
		picked := cand[n]
		set = append(set, picked)
		score += a.x.linf(c, picked)
		for j := n + 1; j < len(cand); j++ {
			sums[j] += a.x.l1(cand[j], picked)
		}
	}
	a.tmp = set
	return score, set
}

// l1Sums appends, for each node of cand, its total L1 distance to the nodes of set
// (no wraparound): per dimension, prefix counts and coordinate sums of set give
// sum |x - x_v| = x*below - sumBelow + sumAbove - x*above.
func (a *mc1x1) l1Sums(set, cand []int, sums *[]int) {
	x := a.x
	d := x.d
	base := len(*sums)
	for range cand {
		*sums = append(*sums, 0)
	}
	out := (*sums)[base:]
	for j, side := range x.dims {
		cnt := a.hist[:0]
		for range 2 * (side + 1) {
			cnt = append(cnt, 0)
		}
		a.hist = cnt
		num, tot := cnt[:side+1], cnt[side+1:]
		for _, v := range set {
			c := int(x.coord[v*d+j])
			num[c+1]++
			tot[c+1] += c
		}
		for i := 1; i <= side; i++ {
			num[i] += num[i-1]
			tot[i] += tot[i-1]
		}
		n, t := num[side], tot[side]
		for i, s := range cand {
			c := int(x.coord[s*d+j])
			below, sumBelow := num[c], tot[c] // coordinates < c
			out[i] += c*below - sumBelow + (t - sumBelow) - c*(n-below)
		}
	}
}

// greedyKeyBits packs the greedy collector's order of candidates, (total L1 distance
// to the nodes taken, L1 distance to the center, free-list position), into one
// int64: sums << sumShift | l1 << posBits | position. ok is false when the machine is
// too large for 63 bits.
type greedyKeyBits struct {
	ok       bool
	posBits  uint
	sumShift uint
}

func newGreedyKeyBits(g *topo.Grid) greedyKeyBits {
	diam := 0 // largest L1 distance
	for _, s := range g.Dims() {
		diam += s - 1
	}
	posBits := uint(bits.Len(uint(g.N())))
	l1Bits := uint(bits.Len(uint(diam)))
	sumBits := uint(bits.Len(uint(g.N()) * uint(diam+1)))
	return greedyKeyBits{ok: posBits+l1Bits+sumBits <= 62, posBits: posBits, sumShift: posBits + l1Bits}
}

// greedyCollectMesh is greedyCollect on a mesh (no wraparound), with the same
// result: coordinates are read directly, and each candidate's selection key (total
// L1 distance to the nodes taken, then L1 distance to c, then free-list position)
// is one packed integer, so that a round updates the keys by the node just taken and
// finds the next smallest in one pass. It stops early, returning math.MaxInt, when the
// score must exceed stop (every node still to take adds at least L).
func (a *mc1x1) greedyCollectMesh(c, L, m, stop int) (int, []int) {
	x := a.x
	d := x.d
	co := x.coord
	cc := co[c*d : c*d+d]
	set := a.tmp[:0]
	cand := a.sh[:0]
	score := 0
	for _, v := range a.fl {
		cv := co[v*d : v*d+d]
		dist := int32(0)
		for j, u := range cv {
			dist = max(dist, abs32(u-cc[j]))
		}
		if int(dist) < L {
			set = append(set, v)
			score += int(dist)
		} else {
			cand = append(cand, v)
		}
	}
	a.sh = cand
	sums := a.sums[:0]
	a.l1Sums(set, cand, &sums)
	a.sums = sums
	kb := a.keyBits
	keys := a.keys[:0]
	for i, v := range cand {
		cv := co[v*d : v*d+d]
		l1 := int32(0)
		for j, u := range cv {
			l1 += abs32(u - cc[j])
		}
		keys = append(keys, int64(sums[i])<<kb.sumShift|int64(l1)<<kb.posBits|int64(a.pos[v]))
	}
	a.keys = keys
	// b: the candidate with the smallest key among keys[n:]
	b := 0
	for j := 1; j < len(keys); j++ {
		if keys[j] < keys[b] {
			b = j
		}
	}
	for n := 0; n < m; n++ {
		if score+(m-n)*L > stop {
			return math.MaxInt, nil
		}
		cand[n], cand[b] = cand[b], cand[n]
		keys[n], keys[b] = keys[b], keys[n]
		picked := cand[n]
		set = append(set, picked)
		pc := co[picked*d : picked*d+d]
		dist := int32(0)
		for j, u := range pc {
			dist = max(dist, abs32(u-cc[j]))
		}
		score += int(dist)
		b = n + 1
		best := int64(math.MaxInt64)
		rest := cand[n+1:]
		rk := keys[n+1 : n+1+len(rest)]
		if d == 2 {
			p0, p1 := pc[0], pc[1]
			for j, v := range rest {
				k := rk[j] + int64(abs32(co[2*v]-p0)+abs32(co[2*v+1]-p1))<<kb.sumShift
				rk[j] = k
				if k < best {
					best, b = k, n+1+j
				}
			}
		} else {
			for j, v := range rest {
				l1 := int32(0)
				for t, u := range co[v*d : v*d+d] {
					l1 += abs32(u - pc[t])
				}
				k := rk[j] + int64(l1)<<kb.sumShift
				rk[j] = k
				if k < best {
					best, b = k, n+1+j
				}
			}
		}
	}
	a.tmp = set
	return score, set
}

// intervalDist returns the smallest and largest distance from p to a point of
// lo..hi.
func intervalDist(p, lo, hi int32) (near, far int32) {
	switch {
	case p < lo:
		return lo - p, hi - p
	case p > hi:
		return p - hi, p - lo
	}
	return 0, max(p-lo, hi-p)
}

func abs32(v int32) int32 {
	if v < 0 {
		return -v
	}
	return v
}

// greedyCollectRings is greedyCollectMesh on a 2D mesh that looks only at the
// candidates that can still be taken: it reads the free nodes ring by ring (L-infinity
// shells L, L+1, ... around c) and stops reading when no node further out can have a
// smaller selection key than the best one read. A node v at L-infinity distance D
// from c is at L1 (indeed L-infinity) distance at least D - (L-1) from each of the s
// inner nodes and at least 1 from each of the r nodes taken so far, and at L1
// distance at least D from c, so its key is at least (s(D-L+1)+r, D, 0).
func (a *mc1x1) greedyCollectRings(c, L, m, stop int) (int, []int) {
	x := a.x
	co := x.coord
	X, Y := x.dims[0], x.dims[1]
	cx, cy := int(co[2*c]), int(co[2*c+1])
	set := a.tmp[:0]
	score := 0
	for yy := max(0, cy-L+1); yy <= min(Y-1, cy+L-1); yy++ {
		for xx := max(0, cx-L+1); xx <= min(X-1, cx+L-1); xx++ {
			if v := xx + yy*X; a.st.IsFree(v) {
				set = append(set, v)
				score += max(abs(xx-cx), abs(yy-cy))
			}
		}
	}
	s := len(set)
	// per-dimension prefix counts and coordinate sums of the inner nodes (l1Sums)
	hist := a.hist[:0]
	for range 2*(X+1) + 2*(Y+1) {
		hist = append(hist, 0)
	}
	a.hist = hist
	numX, totX := hist[:X+1], hist[X+1:2*X+2]
	numY, totY := hist[2*X+2:2*X+Y+3], hist[2*X+Y+3:]
	for _, v := range set {
		vx, vy := int(co[2*v]), int(co[2*v+1])
		numX[vx+1]++
		totX[vx+1] += vx
		numY[vy+1]++
		totY[vy+1] += vy
	}
	for i := 1; i <= X; i++ {
		numX[i] += numX[i-1]
		totX[i] += totX[i-1]
	}
	for i := 1; i <= Y; i++ {
		numY[i] += numY[i-1]
		totY[i] += totY[i-1]
	}
	kb := a.keyBits
	picked := set[s:] // grows as set does
	// candidates: their coordinates (x, y pairs, read straight in the update pass)
	// and keys
	xy, keys := a.candXY[:0], a.keys[:0]
	add := func(v int) {
		vx, vy := int(co[2*v]), int(co[2*v+1])
		b, sb := numX[vx], totX[vx]
		sum := vx*b - sb + (totX[X] - sb) - vx*(s-b)
		b, sb = numY[vy], totY[vy]
		sum += vy*b - sb + (totY[Y] - sb) - vy*(s-b)
		for _, p := range picked {
			sum += abs(vx-int(co[2*p])) + abs(vy-int(co[2*p+1]))
		}
		l1 := abs(vx-cx) + abs(vy-cy)
		xy = append(xy, int32(vx), int32(vy))
		keys = append(keys, int64(sum)<<kb.sumShift|int64(l1)<<kb.posBits|int64(a.pos[v]))
	}
	maxR := max(cx, X-1-cx, cy, Y-1-cy)
	R := L - 1 // rings read so far
	readRing := func() {
		R++
		a.ring = a.ringNodes2D(cx, cy, R, a.ring[:0])
		for _, v := range a.ring {
			add(v)
		}
	}
	b := -1 // the candidate with the smallest key (keys are distinct: they end in the position)
	for r := 0; r < m; r++ {
		if score+(m-r)*L > stop {
			a.candXY, a.keys = xy, keys
			return math.MaxInt, nil
		}
		for R < maxR {
			D := R + 1
			lb := int64(s*(D-L+1)+r)<<kb.sumShift | int64(D)<<kb.posBits
			if b >= 0 && lb > keys[b] {
				break
			}
			from := len(keys)
			readRing()
			for j := from; j < len(keys); j++ {
				if b < 0 || keys[j] < keys[b] {
					b = j
				}
			}
		}
		px, py := xy[2*b], xy[2*b+1]
		last := len(keys) - 1
		xy[2*b], xy[2*b+1], keys[b] = xy[2*last], xy[2*last+1], keys[last]
		xy, keys = xy[:2*last], keys[:last]
		set = append(set, int(px)+int(py)*X)
		picked = set[s:]
		score += max(abs(int(px)-cx), abs(int(py)-cy))
		// keys updated by the node taken, and the next smallest found, in one pass
		b = -1
		best := int64(math.MaxInt64)
		for j := range keys {
			k := keys[j] + int64(abs32(xy[2*j]-px)+abs32(xy[2*j+1]-py))<<kb.sumShift
			keys[j] = k
			if k < best {
				best, b = k, j
			}
		}
	}
	a.candXY, a.keys = xy, keys
	a.tmp = set
	return score, set
}

// ringNodes2D appends the free nodes at L-infinity distance exactly r from (cx, cy)
// on a 2D mesh.
func (a *mc1x1) ringNodes2D(cx, cy, r int, dst []int) []int {
	X, Y := a.x.dims[0], a.x.dims[1]
	if r == 0 {
		if v := cx + cy*X; a.st.IsFree(v) {
			dst = append(dst, v)
		}
		return dst
	}
	x0, x1 := max(0, cx-r), min(X-1, cx+r)
	for _, yy := range [2]int{cy - r, cy + r} {
		if yy < 0 || yy >= Y {
			continue
		}
		for xx := x0; xx <= x1; xx++ {
			if v := xx + yy*X; a.st.IsFree(v) {
				dst = append(dst, v)
			}
		}
	}
	y0, y1 := max(0, cy-r+1), min(Y-1, cy+r-1)
	for _, xx := range [2]int{cx - r, cx + r} {
		if xx < 0 || xx >= X {
			continue
		}
		for yy := y0; yy <= y1; yy++ {
			if v := xx + yy*X; a.st.IsFree(v) {
				dst = append(dst, v)
			}
		}
	}
	return dst
}
