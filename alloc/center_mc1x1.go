package alloc

import (
	"context"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/procalloc/procalloc/internal/textin"
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
//
// With look = L+SR, L the shell the candidate's k-th node comes from, and a node
// at shell distance d weighted look-d+1, a candidate scores AF times the weighted
// free nodes it leaves within look, minus WF times its weighted nodes on the mesh
// boundary, minus BF times the weighted busy nodes of shell L+1; the highest score
// wins a tie of total distance. The zero value (SR = 0) turns the tie-breaking
// off. The paper's setting is 3,9,3,2.
type TieBreak struct {
	SR         int     // scan radius: shells looked at past L (0: no tie-breaking)
	AF, WF, BF float64 // available, wall and border factors, finite, of any sign
}

// ParseTieBreak parses "SR,AF,WF,BF", e.g. "3,9,3,2".
func ParseTieBreak(s string) (TieBreak, error) {
	parts := strings.Split(s, ",")
	if len(parts) != 4 {
		return TieBreak{}, fmt.Errorf("tie-breaking %q: want SR,AF,WF,BF (four numbers, e.g. 3,9,3,2)", textin.Clip(s))
	}
	sr, err := strconv.Atoi(strings.TrimSpace(parts[0]))
	if err != nil || sr < 0 {
		return TieBreak{}, fmt.Errorf("tie-breaking %q: scan radius %q is not a non-negative integer", textin.Clip(s), textin.Clip(parts[0]))
	}
	tb := TieBreak{SR: sr}
	for i, p := range []*float64{&tb.AF, &tb.WF, &tb.BF} {
		v, err := strconv.ParseFloat(strings.TrimSpace(parts[i+1]), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return TieBreak{}, fmt.Errorf("tie-breaking %q: factor %q is not a finite number", textin.Clip(s), textin.Clip(parts[i+1]))
		}
		*p = v
	}
	return tb, nil
}

// String returns the parameters as ParseTieBreak reads them, "SR,AF,WF,BF".
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
	// TieStats returns the tie counts of the allocations made while counting was on.
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
// score (when ties are counted, for their node sets: all of them, or on a 2D mesh
// without tie-breaking those whose set may equal another's; otherwise those whose
// wall term needs it; and the winner), comparing nodes by distances to the
// earlier centers (lastBits on bitsets, chooseLast on lists). That gives the same
// answer as re-sorting the whole array per center, without its O(n) per center.
//
// Which centers share the best score: on tori and 3D meshes a branch and bound over
// boxes of centers finds exactly the centers of least score without scoring the
// others (centerSearch, center_bnb.go; TestMC1x1BoundsMatchPlain); on a 2D mesh it
// runs within a budget of box counts, and past it every center is scored in O(1)
// (shellScorePyramid). With Johnson's tie-breaking and ties not counted, many tied
// centers go to tieSearch (center_mc1x1_tiebnb.go) instead of a tie score each.
//
// The code is split by idea: this file holds the search over centers and the tie
// statistics; center_mc1x1_score.go the scores (shell counts, Johnson's tie score);
// center_mc1x1_shell.go and center_mc1x1_rings.go which nodes of the outermost shell
// are taken (on bitsets, on lists, on a 2D mesh's four lines);
// center_mc1x1_greedy.go PReMAS's greedy collector (mc1x1-greedy);
// center_mc1x1_ties.go which tied centers' node sets need working out at all for the
// tie statistics (on a 2D mesh, most provably differ from every other's).
type mc1x1 struct {
	name   string
	g      *topo.Grid
	st     *State
	x      *gridIndex
	order  []int
	stale  prefixParts // prefix sums of a.x not yet rebuilt since the state changed
	greedy bool        // PReMAS's greedy outer shell (center_mc1x1_greedy.go)
	tb     *TieBreak
	stats  TieStats
	last   int

	seen      decisionMemo
	ctx       context.Context // AllocateContext's, during its call (nil: none)
	countTies bool            // CountTies: fingerprint tied candidates (TieReporter)

	// The centers of least score are found by centerSearch (center_bnb.go) except
	// on a 2D mesh, where every center's score costs O(1) (shellScorePyramid);
	// tests choose either way with centers.
	boxes   *centerSearch
	centers centerMode
	ties    *tieSearch // the winner under tie-breaking, without tie counting (center_mc1x1_tiebnb.go)

	fl  []int   // free list of the current allocation
	pos []int32 // node -> position in fl (valid for free nodes)
	// flFrom: the least first coordinate of a node whose free bit changed since
	// fl was listed (touch), dims[0] when none; fl's nodes before it stand.
	flFrom int

	tied       []tieCand
	tiedScore  int // the shell score of the tied centers (tieByBounds)
	scoredTies int // scoreAtMost: more tied centers than this go to tieSearch, when ties are not counted
	// arcShareMin: the least job size for which mayShareArcs tells tied sets
	// apart from counts (defaultArcShareMin; tests set 0)
	arcShareMin int
	tieCost     int // scoreAtMost: free nodes per shell radius scored one by one (defaultTieCost)
	// on a 2D mesh the branch and bound over centers reads at most
	// NumFree/budgetShare box counts before the loop takes over (search)
	budgetShare int
	// with tie-breaking on a 2D mesh: the branch and bound's consecutive
	// decisions over budget, and the decisions left that go straight to the
	// loop (search)
	bnbMisses, bnbSkip int
	hashes             []uint64
	hashSet            []uint64 // countDistinct

	ball          []shellCount // shells (center_mc1x1_score.go)
	hintL         int          // shellScorePyramid: the last center's outermost shell
	shellScratch               // the outermost shell's order (center_mc1x1_shell.go, center_mc1x1_rings.go)
	greedyScratch              // the greedy collector (center_mc1x1_greedy.go)
	tieScratch                 // which tied centers may share a node set (center_mc1x1_ties.go)
}

func newMC1x1(name, arg string, m topo.Machine, opt Options, greedy bool) (Allocator, error) {
	g, ok := m.(*topo.Grid)
	if !ok {
		return nil, fmt.Errorf("%s needs a mesh or torus, not %s", name, m.Spec())
	}
	a := &mc1x1{name: name, g: g, st: NewState(g.N()), x: newGridIndex(g), order: FreeListOrder(g), stale: prefixAll, greedy: greedy}
	a.pos = make([]int32, g.N())
	a.scoredTies, a.budgetShare, a.tieCost = defaultScoredTies, bnbBudgetShare, defaultTieCost
	a.arcShareMin = defaultArcShareMin
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
		return nil, fmt.Errorf("unknown argument %q (want tb=SR,AF,WF,BF)", textin.Clip(arg))
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
	a.touch(nodes)
	return nil
}

// touch records that the free bits of nodes changed: every prefix sum is out of
// date from their least coordinates on (gridIndex.touch), the free list from
// the first of them in its order.
func (a *mc1x1) touch(nodes []int) {
	a.stale = prefixAll
	if len(nodes) > 0 {
		a.x.touch(nodes)
		a.flFrom = min(a.flFrom, a.x.tlo[0])
	}
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
	if err != nil && a.ctx != nil && a.ctx.Err() != nil {
		// Stopped (AllocateContext): no decision was made.
		a.stats = before
		a.stats.Decisions--
		return nil, err
	}
	if err == nil { // a decision met again gets these nodes and tie counts
		a.seen.store(nodes, a.last, TieStats{Tied: a.stats.Tied - before.Tied,
			TiedCandidates: a.stats.TiedCandidates - before.TiedCandidates, TiedCenters: a.stats.TiedCenters - before.TiedCenters})
	}
	return nodes, err
}

// AllocateContext is Allocate that stops when ctx ends (ContextAllocator): between
// the tied centers whose node sets tie counting works out (87 µs each on an empty
// torus:58x58x58, where all 195,112 tie) or tells apart from counts (mayShareArcs).
func (a *mc1x1) AllocateContext(ctx context.Context, k int) ([]int, error) {
	a.ctx = ctx
	defer func() { a.ctx = nil }()
	return a.Allocate(k)
}

// stopped reports whether AllocateContext's context has ended.
func (a *mc1x1) stopped() bool { return a.ctx != nil && a.ctx.Err() != nil }

// search makes the allocation of k nodes, fewer than are free.
func (a *mc1x1) search(k int) ([]int, error) {
	a.refresh(prefixFree)
	a.listFree()
	if a.greedy {
		a.refresh(prefixPyramid)
		return a.allocateGreedy(k)
	}
	// First the scores alone (prefix sums, O(1) per shell) to find the best score and
	// the centers that share it; only those need a tie score or their node set.
	// Johnson's tie-breaking without tie counting needs only the winner: when more
	// than scoreAtMost centers tie, tieSearch finds it without a tie score per
	// tied center (center_mc1x1_tiebnb.go).
	fastTies := a.tb != nil && !a.countTies && a.centers != centersPlain && tieBoundsApply(*a.tb)
	a.tied = a.tied[:0]
	scanned := false // a.tied holds the centers of least score, a.tiedScore their score
	manyTies := false
	switch {
	case a.centers == centersPlain:
	case a.centers == centersBounds || a.x.pyrW == 0:
		scanned = a.tieByBounds(k, fastTies, 0)
		manyTies = !scanned
	default:
		// A 2D mesh, where the loop below scores every center in O(1): the branch
		// and bound first, while it has read fewer box counts than there are free
		// nodes (on a young free set it reads a few hundred; on a fragmented one it
		// can cost more than the loop). With tie-breaking, on a fragmented free
		// set (a replayed workload) it is over budget decision after decision,
		// which cost 5-21 µs a decision on 1,024-16,384 nodes: after a decision
		// over budget the next 2, 4, ... 64 (doubling while they stay over) go
		// straight to the loop. Every path gives the same winner.
		if a.tb != nil && a.bnbSkip > 0 {
			a.bnbSkip--
			break
		}
		scanned = a.tieByBounds(k, fastTies, max(1, a.st.NumFree()/a.budgetShare))
		manyTies = !scanned && a.boxes.stop == stopTies
		if a.tb != nil {
			if !scanned && a.boxes.stop == stopBudget {
				a.bnbMisses = min(a.bnbMisses+1, 6)
				a.bnbSkip = 1 << a.bnbMisses
			} else {
				a.bnbMisses = 0
			}
		}
	}
	if manyTies {
		a.last = 0
		if a.boxes.leastKnown && a.tb.SR > 0 {
			// a center of least score to start tieSearch from: no second
			// search for the first one (with SR = 0 the first one wins)
			return a.chooseWinner(a.tieWinnerFrom(k, a.boxes.least), k)
		}
		return a.chooseWinner(a.tieWinner(k), k)
	}
	best := math.MaxInt
	if scanned {
		best = a.tiedScore
	} else {
		a.refresh(prefixPyramid) // the loop's scores (shellScorePyramid), built only for it
	}
	for i, c := range a.fl {
		if scanned {
			break
		}
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
	if fastTies && len(a.tied) > a.scoreAtMost(a.tied[0].L) {
		t := a.tied[0]
		a.last = 0
		return a.chooseWinner(a.tieWinnerFrom(k, bnbLeaf{a.fl[t.i], best, t.L, k - t.m}), k)
	}
	win := a.tied[0]
	ties := 0
	if len(a.tied) > 1 && (a.countTies || a.tb != nil) {
		// With tie counting, the exact node set of every tied center: its
		// fingerprint, and the wall term of its tie score. Without, the tie score
		// works the wall term out itself, and only where the shell counts leave
		// it open. Without tie-breaking on a 2D mesh, only the sets that may
		// equal another tied center's are worked out; each other one counts once
		// (mayShare).
		var share []bool
		if a.countTies && a.tb == nil {
			switch {
			case a.x.d == 2 && !a.x.anyWrap:
				share = a.mayShare(k)
			case a.x.d <= 3 && !a.x.hasBallMasks() && k >= a.arcShareMin:
				// on a torus or 3D grid small enough for the ball-mask
				// table, working every set out on bitsets costs less
				// than the counts (KTH's 28,000 jobs on torus:10x10:
				// 0.39 s of CPU against 0.95 s with them), and so it
				// does on lists for small jobs (arcShareMin)
				share = a.mayShareArcs(k)
			}
		}
		parts := prefixParts(0)
		if a.tb != nil {
			parts |= prefixWall
		}
		if a.countTies && (share == nil || slices.Contains(share, true)) {
			parts |= prefixHash
		}
		a.refresh(parts)
		var masks []uint64
		if a.countTies {
			masks, _ = a.x.ballMasks()
		}
		hs := a.hashes[:0]
		bestTie := 0.0
		own := 0
		for n, t := range a.tied {
			if n&63 == 63 && a.stopped() {
				return nil, context.Cause(a.ctx)
			}
			if share != nil && !share[n] {
				own++
				continue
			}
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
			if ties = own + a.countDistinct(hs); ties > 1 {
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
	return a.chooseWinner(win, k)
}

// listFree sets a.fl to the free nodes in free-list order (a.order, by
// (c_0, c_1, ...)) and a.pos to their positions in it. On a grid of one to three
// dimensions the order is enumerated from the coordinates, the last fastest,
// instead of read from a.order (an 880 KB array at 110,592 nodes, read once
// per decision), and the positions are set in the same pass; on two and three
// it is listed again only from the first coordinate of the first node changed
// since the last listing (a.flFrom): the free nodes before it, and their
// positions, stand.
func (a *mc1x1) listFree() {
	if cap(a.fl) < a.st.NumFree() { // once: room for every node, not grown by appends
		a.fl = make([]int, 0, a.g.N())
		a.flFrom = 0
	}
	fl, free, dims := a.fl[:0], a.st.free, a.x.dims
	x0 := 0
	if d := len(dims); d == 2 || d == 3 {
		x0 = min(a.flFrom, dims[0])
		if breakDirtyCorner {
			x0 = min(x0+1, dims[0])
		}
		// the old list's nodes before plane x0
		coord := a.x.coord
		fl = a.fl[:sort.Search(len(a.fl), func(i int) bool { return int(coord[a.fl[i]*d]) >= x0 })]
	}
	a.flFrom = dims[0]
	add := func(v int) {
		if free[v>>6]>>(v&63)&1 != 0 {
			a.pos[v] = int32(len(fl))
			fl = append(fl, v)
		}
	}
	switch len(dims) {
	case 1:
		for v := range dims[0] {
			add(v)
		}
	case 2:
		X, Y := dims[0], dims[1]
		for x := x0; x < X; x++ {
			for v := x; v < X*Y; v += X {
				add(v)
			}
		}
	case 3:
		X, XY, n := dims[0], dims[0]*dims[1], a.g.N()
		for x := x0; x < X; x++ {
			for xy := x; xy < XY; xy += X {
				for v := xy; v < n; v += XY {
					add(v)
				}
			}
		}
	default:
		fl = a.st.AppendFreeInOrder(fl, a.order)
		for i, v := range fl {
			a.pos[v] = int32(i)
		}
	}
	a.fl = fl
}

// chooseWinner takes the nodes of the winning candidate.
func (a *mc1x1) chooseWinner(win tieCand, k int) ([]int, error) {
	var nodes []int
	if masks, words := a.x.ballMasks(); masks != nil {
		nodes = a.chooseBits(win, masks, words)
	} else {
		nodes = a.choose(win.i, k, win.L, win.m)
	}
	return nodes, a.take(nodes)
}

type tieCand struct{ i, L, m int }

// centerMode says how the centers of least score are found.
type centerMode uint8

const (
	centersAuto   centerMode = iota // centersBounds, except on a 2D mesh
	centersPlain                    // every free node scored (the plain definition)
	centersBounds                   // centerSearch
)

// tieByBounds fills a.tied with the centers of least shell score, in free-list
// order, and a.tiedScore with their score, by centerSearch's branch and bound
// instead of scoring every center: the same centers as the loop over a.fl
// (TestMC1x1BoundsMatchPlain). It gives up and returns false when capTies and
// more than scoreAtMost centers tie (a.boxes.stop = stopTies), or when budget > 0
// and the search reads more box counts than that (stopBudget).
func (a *mc1x1) tieByBounds(k int, capTies bool, budget int) bool {
	a.buildBoxes()
	// Without tie-breaking or tie counting only the first center of least score in
	// free-list order matters.
	a.boxes.first = a.tb == nil && !a.countTies
	if capTies {
		a.boxes.maxLeaves = a.scoredTies
	}
	a.boxes.budget = budget
	leaves := a.boxes.search(a.st, k)
	a.boxes.maxLeaves, a.boxes.budget = 0, 0
	if leaves == nil {
		return false
	}
	for _, l := range leaves {
		a.tied = append(a.tied, tieCand{int(a.pos[l.node]), l.L, k - l.inner})
	}
	a.tiedScore = leaves[0].cost
	slices.SortFunc(a.tied, func(p, q tieCand) int { return p.i - q.i })
	return true
}

// scoreAtMost is the most tied centers, of outermost shell L (the first's), that
// the loop over centers found and gives a tie score each (when ties are not
// counted): a.scoredTies, or a.tieCost free nodes per shell, NumFree*tieCost/(L+1),
// when more. A tie score's cost grows with the shell, tieSearch's with the
// machine: it pays where a large share of the free nodes tie around large shells
// (a young free set), not on a fragmented free set, where even half of the free
// nodes tying around shells of radius 1-3 are scored faster one by one (issue
// 32's replayed SDSC jobs on 1,024-16,384 nodes: 12-124 µs a decision against
// 15-159 µs with at most a sixteenth of them scored). (The branch and bound over
// centers gives up at a.scoredTies tied centers: enumerating thousands costs
// more than tieSearch.)
func (a *mc1x1) scoreAtMost(L int) int {
	return max(a.scoredTies, a.st.NumFree()*a.tieCost/(L+1))
}

// defaultArcShareMin is mc1x1.arcShareMin. Below about a thousand nodes a job,
// working each tied set out on lists cost less than mayShareArcs's counts (empty
// torus:16x16x16 and 24x24x24, every center tied: at k = 64 and 200 the counts
// took 1.1-2.2 times as long, at 1,000 0.6-0.8 times, at 2,000 0.3-0.4 times;
// SDSC's first 1,647 jobs on torus:16x16x16, all of at most 416 nodes: 24.2 s of
// CPU with the counts, 15.6 s without).
const defaultArcShareMin = 1000

// defaultTieCost is mc1x1.tieCost: with outermost shell L, up to 4/(L+1) of the
// free nodes tied are scored one by one (scoreAtMost).
const defaultTieCost = 4

// bnbBudgetShare: on a 2D mesh the branch and bound over centers gives up after
// reading NumFree/bnbBudgetShare box counts, for the loop over every center
// (search).
const bnbBudgetShare = 2

// defaultScoredTies is the most tied centers given a tie score each when ties are
// not counted (mc1x1.scoredTies); more go to tieSearch.
const defaultScoredTies = 64

// buildBoxes makes a.boxes, the branch and bound over MC1x1's centers, on first
// use.
func (a *mc1x1) buildBoxes() {
	if a.boxes != nil {
		return
	}
	// the counts come from the gridIndex's prefix sums of the free map, brought
	// up to date by search
	a.boxes = newCenterSearch(a.g, newFreeBoxes(a.g, a.x.free))
	for j := range a.boxes.width {
		a.boxes.width[j] = 1 // L-infinity balls: offset 0, width 1
	}
	// ranked in free-list order (FreeListOrder: by (c_0, c_1, ...))
	st := 1
	for j := len(a.boxes.rank) - 1; j >= 0; j-- {
		a.boxes.rank[j] = st
		st *= a.g.Dims()[j]
	}
}

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
	if err := a.Occupy(nodes); err != nil {
		return fmt.Errorf("internal error: %w", err)
	}
	return nil
}

// Occupy marks the nodes busy (Occupier), all or nothing, as a decision takes
// its nodes (take): the tables kept up to date from the least coordinates that
// changed (touch) and the remembered decisions (keyed by the whole free bitmap)
// then serve the free nodes left, as after Allocate.
func (a *mc1x1) Occupy(nodes []int) error {
	if err := a.st.Take(nodes); err != nil {
		return fmt.Errorf("%s: %w", a.name, err)
	}
	a.touch(nodes)
	return nil
}

// OccupyFreeIn marks busy the free nodes of set (a bitmap of the nodes), writes
// them to taken and returns their number (BulkOccupier: a Mask's hold of a
// partition's outside): the state word by word, the tables and the free list
// made out of date once, from the least coordinates of the nodes taken
// (gridIndex.touchIn), as Occupy of their list does.
func (a *mc1x1) OccupyFreeIn(set, taken []uint64) int {
	k := a.st.TakeFreeIn(set, taken)
	a.touchIn(taken)
	return k
}

// ReleaseIn frees every node of set (BulkOccupier), all or nothing, as Release
// of their list does.
func (a *mc1x1) ReleaseIn(set []uint64) error {
	if err := a.st.ReleaseIn(set); err != nil {
		return fmt.Errorf("%s: %w", a.name, err)
	}
	a.touchIn(set)
	return nil
}

// touchIn is touch for the nodes of a bitmap.
func (a *mc1x1) touchIn(set []uint64) {
	if a.x.touchIn(set) {
		a.stale = prefixAll
		a.flFrom = min(a.flFrom, a.x.tlo[0])
	}
}

// IsFree reports whether node v is free (Occupier).
func (a *mc1x1) IsFree(v int) bool { return a.st.IsFree(v) }

// AppendFreeIn appends the free nodes of the bitmap set (Mask's free-list path; Mask takes
// OccupyFreeIn, the bitmap path, first).
func (a *mc1x1) AppendFreeIn(dst []int, set []uint64) []int { return a.st.AppendFreeIn(dst, set) }
