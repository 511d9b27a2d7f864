package alloc

import (
	"context"
	"math"
	"math/bits"
	"slices"

	"github.com/procalloc/procalloc/topo"
)

// greedyScratch is the scratch space of the greedy collector (mc1x1-greedy).
type greedyScratch struct {
	keyBits     greedyKeyBits // the packing of the fast collectors' selection key
	cand        []int         // candidates beyond the inner shells
	set         []int         // the set collected (greedyCollectShells: the nodes taken beyond the inner shells)
	full        []int         // greedyCollect's set on the fast path (greedySet)
	bestTaken   []int         // allocateGreedy: the winner's nodes beyond the inner shells
	sortLists   [][]int32     // greedySortedSet's coordinate lists
	sums        []int         // candidates' total L1 distance to the set
	hist        []int         // l1Sums
	keys        []int64
	heap        []int64       // greedyCollectShells: candidates by their last computed key
	candOf      []int32       // greedyCollectShells: a candidate's index by its free-list position
	candXY      []int32       // greedyCollectShells: candidates' coordinates, d each
	greedyCands greedyCenters // allocateGreedy's centers by bound (center_mc1x1_greedy_centers.go)
	greedyPool  []greedyCand  // allocateGreedy: the centers whose bound is near the least, in order
	greedyPoolF []greedyProbeCand
	probeMin    int          // allocateGreedy's probe from this m on (0: 64; tests set it)
	probes      int          // tests: decisions where a probe other than the first center was collected first
	audit       *greedyAudit // tests: where each center went (allocateGreedy)
	counts      greedyCounts // how the centers were decided, since the allocator was made
	ring        []int
	half        []int32   // axisHalf
	shellLists  [][]int32 // greedyShell's coordinate lists
	shellAxes   [][]int32
	heapStack   []int32            // greedyCollectShells: the tie group's search of the heap
	shellIdx    []int              // freeProduct's odometer
	nodeStride  []int              // node index = sum of coordinate j times nodeStride[j]
	shift       greedyShift        // translated runs (center_mc1x1_greedy_shift.go)
	orbit       greedyOrbitScratch // the orbit check on an empty torus (center_mc1x1_greedy_orbit.go)
	sweep       shiftSweep         // their sweeps over boxes of centers (center_mc1x1_greedy_sweep.go)
	memo        greedyMemo         // centers' bounds kept between decisions
	lastR       int                // greedyCollectShells: the radius its last run read
	lastBound   int                // and the bound it gave up on (math.MaxInt: it did not)
	shellBufs   struct {           // greedyCollectShells' per-axis tables
		off, inner, far, least, farK, leastK, axisKey, win []int
		lo, span, blo, bhi, takenSum, rw                   []int
		cdist, pc, coords                                  []int32
	}
	tiles    greedyTiles // greedyCollectShells' shells read by tiles on 3D grids (center_mc1x1_greedy_tiles.go)
	tileAt   []int32
	tileMins []int // greedyShellTiles3: per part of a face's axis, its start, count, least total and least L1 distance
	tilesOff bool  // tests: shells read whole
	tileSide int   // tests: the tiles' side (0: greedyTileSide)
	tileFrom int   // tests: shells tiled from this radius on (0: greedyTileFrom)
	// greedyCollectShells' near candidates by sum on 3D grids
	// (center_mc1x1_greedy_buckets.go)
	buckets     greedyBuckets
	bucketsOff  bool // tests: the heap alone
	bucketWidth int  // tests: the buckets' window (0: greedyBucketWidth)
}

// greedyCand is a center of the greedy collector with its count-based lower bound.
type greedyCand struct {
	lower   int
	i, L, m int32
}

// greedyAudit is a test's record of one decision of allocateGreedy: the centers
// (positions in the free list) collected (afresh or not: the memo, the trees of
// runs), and those that were not, each once, whether it left the loop with a
// bound or stayed in the heap at the end; with the decision's best score and the
// winner's position. TestGreedyPoolAccountsForEveryCenter checks that every center
// is there and that none not collected could win or tie.
type greedyAudit struct {
	collected, uncollected []int32
	best, bestPos          int
	check                  func(k int) // called before the winner is taken
}

// greedyCounts counts, over an allocator's decisions, how allocateGreedy decided its
// centers: those it had to decide (its bound not above the best), by the memo of
// bounds (greedyMemo), by a translated run or give-up (greedyShift), or collected
// (greedyCollectShells or the plain collector; resumed: from a recorded run's
// state), of them gave up (their score above the stop); the nodes
// greedyCollectShells took (its steps); and slack, the sum over decisions of the
// best score less the least count bound (a center whose bound is at most the best
// must be decided). They say where a replay's time goes (BenchmarkGreedyCounts: a
// torus's young free sets make 2-3x the mesh's collections, nearly all of which
// give up, as the torus's best lies further above the least bound; docs/center-speed.md).
type greedyCounts struct {
	decided, memo, translated, collected, resumed, gaveUp, taken, slack int64
}

// greedyProbeCand is a center of allocateGreedy's pool with f, the free nodes in its
// shell L, for the probe's order (the least m / f first).
type greedyProbeCand struct {
	cd greedyCand
	f  int
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
	// runs translated between centers (center_mc1x1_greedy_shift.go): on the fast
	// collectors' paths
	shift := a.keyBits.ok && !a.shift.off
	a.resetShift()
	if shift {
		a.sweepReset()
	}
	memo := a.keyBits.ok && !a.memo.off
	if memo {
		a.memoAdvance()
	}
	// an empty torus: one run and its tie groups' orbits may settle it
	// (center_mc1x1_greedy_orbit.go)
	if nodes, score, least, ok := a.greedyEmptyTorus(k); ok {
		a.counts.decided++
		a.counts.collected++
		a.counts.slack += int64(score - least)
		a.last = 0
		if au := a.audit; au != nil {
			au.collected, au.uncollected = append(au.collected[:0], 0), au.uncollected[:0]
			for i := 1; i < len(a.fl); i++ {
				au.uncollected = append(au.uncollected, int32(i))
			}
			au.best, au.bestPos = score, 0
			au.check(k)
		}
		return nodes, a.take(nodes)
	}
	// Centers are collected in order of their count-based lower bound (then
	// free-list position), so that the search stops at the first bound above the best
	// score: the winner is still the first center in free-list order with the
	// smallest score, and every center that ties it is still collected.
	// (L < 0: lower is only a bound of the center's score, which is found when
	// the center comes up, and the center put back in order; greedyShellScore)
	q := &a.greedyCands
	q.reset(len(a.fl))
	for i, c := range a.fl {
		lower, L, m := a.greedyShellScore(c, k)
		q.lower[i], q.L[i], q.m[i] = lower, int32(L), int32(m)
	}
	// In that order from a queue (center_mc1x1_greedy_centers.go: a heap of
	// the centers whose bound is near the least), not a sort: the loop below
	// usually stops long before the last center.
	q.start()
	best, bestPos := math.MaxInt, len(a.fl)
	var bestSet []int // the plain collector's set of the winner so far
	// the fast paths' winner so far: its center, shell L and the nodes it took
	// beyond the inner shells; its node set is listed once, at the end
	bestC, bestL, bestTaken := -1, 0, a.bestTaken[:0]
	ties := 0
	a.hashes = a.hashes[:0]
	// A probe first: the order in which centers are collected does not change
	// the result (best and bestPos are the least score and, among the centers
	// scoring it, the first in free-list order, whatever the order; a center is
	// skipped only when it can neither win nor tie), only how soon a low best
	// lets the others give up. The collector's score exceeds the lower bound
	// where it takes nodes beyond shell L, which it does less where shell L
	// has many more free nodes than the m it takes; so of the centers whose
	// bound is within m of the least (m the least's), the one with the least
	// m / (free nodes in shell L), then bound, then free-list position, is
	// collected first, and the rest of them in that order too. (On issue 32's workload on mesh:332x332 it scored the
	// decision's best in 90 % of decisions, and the steps the collector takes
	// fall by 45 % in a replay of the recorded runs; docs/center-speed.md.)
	// Only where runs are long (m >= 64 nodes to take each): with fewer, the
	// pool's ball counts cost more than the runs they save (LLNL-T3D on
	// mesh:16x16, --compat premas: 3.6 % more instructions than without the
	// probe, 1.6 % from m >= 8 on, 0.2 % from m >= 32 on; issue 32's
	// workload on mesh:332x332 and torus:25x25x25: about 5 % less CPU from
	// m >= 64 on than from m >= 32 on, once the whole pool is ordered).
	pool := a.greedyPool[:0]
	probeMin := int32(a.probeMin)
	if probeMin == 0 {
		probeMin = 64
	}
	// Centers whose bound is only a bound (L < 0, greedyShellScore) get a
	// tighter one, then their shell score, here when they come up first or fall
	// within the pool (greedyRefine; each time put back in order): before any
	// center is collected best is unbounded, so the loop below would score the
	// first ones anyway; a pool member is refined with the pool's limit as
	// bound and, above it, put back with a bound above the limit.
	for !q.empty() && q.first().L < 0 {
		cd, _ := q.next()
		cd, _ = a.greedyRefine(cd, k, math.MaxInt)
		q.push(cd)
	}
	least := math.MaxInt // the least count bound (q.first() is a shell score now)
	if !q.empty() {
		a.shift.runM = int(q.first().m)
		least = q.first().lower
	}
	if !q.empty() && q.first().m >= probeMin {
		lim := q.first().lower + int(q.first().m)
		for !q.empty() && q.first().lower <= lim {
			cd, _ := q.next()
			if cd.L < 0 {
				cd, _ = a.greedyRefine(cd, k, lim)
				q.push(cd)
				continue
			}
			pool = append(pool, cd)
		}
	}
	// The whole pool is collected in that order, before the heap (whose
	// bounds all exceed lim); a pool member above best is skipped, not the
	// end of the loop, as the pool is not in bound order.
	pes := a.greedyPoolF[:0]
	for _, cd := range pool {
		c, L, m := a.fl[cd.i], int(cd.L), int(cd.m)
		pes = append(pes, greedyProbeCand{cd, a.x.freeInBall(c, L) - (k - m)}) // f: free nodes in shell L (>= m)
	}
	a.greedyPoolF = pes
	slices.SortFunc(pes, func(p, q greedyProbeCand) int {
		l, r := int(p.cd.m)*q.f, int(q.cd.m)*p.f
		switch {
		case l < r:
			return -1
		case l > r:
			return 1
		case p.cd.lower != q.cd.lower:
			return p.cd.lower - q.cd.lower
		}
		return int(p.cd.i - q.cd.i)
	})
	if len(pes) > 0 && pes[0].cd.i != pool[0].i {
		a.probes++
	}
	for j := range pes {
		pool[j] = pes[j].cd
	}
	a.greedyPool = pool
	pj := 0
	inPool := false
	nextCand := func() (greedyCand, bool) {
		if pj < len(pool) {
			pj++
			inPool = true
			return pool[pj-1], true
		}
		inPool = false
		return q.next()
	}
	au := a.audit
	if au != nil {
		au.collected, au.uncollected = au.collected[:0], au.uncollected[:0]
	}
	step := 0
	for cd, ok := nextCand(); ok; cd, ok = nextCand() {
		// AllocateContext: the context is asked every 256 centers (on an empty
		// torus:48x48x48 counting ties, 110,592 centers at about 180 µs each, so
		// about every 50 ms); stopped, no decision is made and the state is
		// unchanged (the memo's and the trees' records are facts about the free
		// set, valid whether or not this decision finishes)
		if step++; step&255 == 1 && a.stopped() {
			return nil, context.Cause(a.ctx)
		}
		i := int(cd.i)
		if cd.lower > best {
			if au != nil {
				au.uncollected = append(au.uncollected, cd.i)
			}
			if inPool {
				continue
			}
			break
		}
		countEqual := a.countTies || i < bestPos // a center scoring best still matters
		if cd.lower == best && !countEqual {
			if au != nil {
				au.uncollected = append(au.uncollected, cd.i)
			}
			continue
		}
		if cd.L < 0 {
			// a tighter bound or its score now; one above best stays above it
			// (best only falls), so the center is dropped, as it would have
			// come up after the loop ended
			if cd, ok := a.greedyRefine(cd, k, best); ok {
				q.push(cd)
			} else if au != nil {
				au.uncollected = append(au.uncollected, cd.i)
			}
			continue
		}
		if au != nil {
			au.collected = append(au.collected, cd.i)
		}
		stop := best // a larger score can neither win nor tie
		if !countEqual {
			stop = best - 1
		}
		c, L, m := a.fl[i], int(cd.L), int(cd.m)
		var score int
		var set []int
		run, gaveUp := (*greedyRun)(nil), false
		taken := false // set holds the nodes taken beyond the inner shells only
		// a score above stop, known from an earlier decision: the center can
		// neither win nor tie (as if the collector had given up)
		skip := memo && a.memoSkips(c, k, L, m, stop)
		// the sweep's answer where it can neither win nor change the winner
		// (a score above best, or best after the winner); else the lookup's
		swept := false
		if shift && !skip {
			if sc, ok := a.shiftSwept(c, L, m, best); ok && (sc < 0 || sc > best || sc == best && !countEqual) {
				swept, score = true, sc
				if a.sweep.check != nil {
					a.sweep.check(c, L, m, sc, best, countEqual)
				}
				if sc < 0 {
					score = math.MaxInt
				}
			} else {
				run, gaveUp = a.shiftLookup(c, L, m, stop)
			}
		}
		a.counts.decided++
		switch {
		case skip:
			a.counts.memo++
		case gaveUp || run != nil || swept:
			a.counts.translated++
		default:
			a.counts.collected++
		}
		switch {
		case swept:
		case skip || gaveUp:
			score = math.MaxInt // as greedyCollect would
		case run != nil:
			score = run.score
		default:
			// recorded if its ball may stay all free; the collector stops recording
			// when a shell read is not
			a.shift.recOn = shift && a.shiftRecordable(c, L)
			a.shift.recTies, a.shift.recSeg = a.shift.recTies[:0], a.shift.recSeg[:0]
			if shift {
				a.shiftArm() // from where the recorded runs part from c's, if they do
				if a.shift.resume.on {
					a.counts.resumed++
				}
			}
			if a.keyBits.ok {
				score, set = a.greedyCollectShells(c, L, m, stop)
				taken = true
				if memo {
					a.memoKeep(c, k, L, m, score)
				}
			} else {
				score, set = a.greedyCollect(c, L, m, stop)
			}
			if a.shift.recOn {
				a.shiftKeep(c, L, m, score)
			}
			a.shift.recOn, a.shift.resume.node = false, -1
			if score == math.MaxInt {
				a.counts.gaveUp++
			}
		}
		hash := func() uint64 {
			switch {
			case !a.countTies:
				return 0 // not read
			case run != nil:
				return a.shiftHash(run, c)
			case taken:
				// the inner nodes' labels from prefix sums, as shiftHash
				a.refresh(prefixHash)
				return a.x.ballHash(c, L-1) + a.setHash(set)
			}
			return a.setHash(set)
		}
		keep := func() {
			switch {
			case run != nil: // its nodes as shiftSet lists them
				bestC, bestL = c, run.L
				bestTaken = a.shiftTaken(run, c, bestTaken[:0])
			case taken:
				bestC, bestL = c, L
				bestTaken = append(bestTaken[:0], set...)
			default:
				bestSet = append(bestSet[:0], set...)
			}
		}
		switch {
		case score < best:
			best, bestPos, ties = score, i, 1
			keep()
			a.hashes = append(a.hashes[:0], hash())
		case score == best:
			ties++
			a.hashes = append(a.hashes, hash())
			if i < bestPos {
				bestPos = i
				keep()
			}
		}
	}
	if best != math.MaxInt && least != math.MaxInt {
		a.counts.slack += int64(best - least)
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
	var nodes []int
	if bestC >= 0 {
		a.bestTaken = bestTaken
		nodes = a.greedySortedSet(bestC, bestL, bestTaken)
	} else {
		nodes = slices.Clone(bestSet)
		slices.Sort(nodes)
	}
	if au != nil {
		au.uncollected = q.rest(au.uncollected)
		for _, cd := range pool[pj:] {
			au.uncollected = append(au.uncollected, cd.i)
		}
		au.best, au.bestPos = best, bestPos
		au.check(k)
	}
	return nodes, a.take(nodes)
}

// greedySortedSet returns, in ascending order and in a new slice, the node set of
// greedySet(c, L, taken) (taken is sorted in place): the free nodes strictly inside
// shell L listed in node order (the last axis slowest, each axis's coordinates
// ascending), merged with taken, instead of a sort of the whole set.
func (a *mc1x1) greedySortedSet(c, L int, taken []int) []int {
	x := a.x
	d := x.d
	slices.Sort(taken)
	nodes := make([]int, 0, x.freeInBall(c, L-1)+len(taken))
	if L == 0 {
		return append(nodes, taken...)
	}
	for len(a.sortLists) < d {
		a.sortLists = append(a.sortLists, nil)
	}
	lists := a.sortLists[:d]
	for j, side := range x.dims {
		lists[j] = axisWithin(lists[j][:0], int(x.coord[c*d+j]), L-1, side, x.wrap[j])
		slices.Sort(lists[j]) // around the ring they wrap past the end
	}
	stride := a.nodeStrides()
	idx := growInts(&a.shellIdx, d)
	t := 0 // the next node of taken not yet merged
	free := a.st.free
	for {
		// a row along axis 0 (the fastest), the other axes' part of the
		// node index summed once for it
		base := 0
		for j := 1; j < d; j++ {
			base += int(lists[j][idx[j]]) * stride[j]
		}
		for _, u := range lists[0] {
			v := base + int(u)
			if free[v>>6]>>(v&63)&1 != 0 {
				for t < len(taken) && taken[t] < v {
					nodes = append(nodes, taken[t])
					t++
				}
				nodes = append(nodes, v)
			}
		}
		j := 1
		for ; j < d; j++ {
			if idx[j]++; idx[j] < len(lists[j]) {
				break
			}
			idx[j] = 0
		}
		if j >= d {
			return append(nodes, taken[t:]...)
		}
	}
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
// The set aliases scratch space. On the fast path (greedyCollectShells) it may stop
// early, returning math.MaxInt, once the score must exceed stop.
func (a *mc1x1) greedyCollect(c, L, m, stop int) (int, []int) {
	if a.keyBits.ok {
		score, taken := a.greedyCollectShells(c, L, m, stop)
		if score == math.MaxInt {
			return score, nil
		}
		a.full = a.greedySet(c, L, taken, a.full[:0])
		return score, a.full
	}
	return a.greedyCollectPlain(c, L, m)
}

// greedyCollectPlain is the greedy collector as defined, for machines too large for
// the packed keys (and the reference of TestGreedyCollectMatchesPlain): every free
// node is read, the candidates' totals are computed from per-axis counts (pair by
// pair with wraparound), and every candidate is rescanned per node taken. The set
// (the inner nodes in free-list order, then the nodes taken) aliases scratch space.
func (a *mc1x1) greedyCollectPlain(c, L, m int) (int, []int) {
	set := a.set[:0]
	cand := a.cand[:0]
	score := 0
	for _, v := range a.fl {
		if d := a.x.linf(c, v); d < L {
			set = append(set, v)
			score += d
		} else {
			cand = append(cand, v)
		}
	}
	a.cand = cand
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
	a.set = set
	return score, set
}

// greedySet appends to dst the greedy collector's node set around c for shell L
// given the nodes it took beyond the inner shells (greedyCollectShells): the free
// nodes strictly inside shell L, then taken.
func (a *mc1x1) greedySet(c, L int, taken, dst []int) []int {
	if L > 0 {
		d := a.x.d
		dst = a.greedyShell(a.x.coord[c*d:c*d+d], L-1, true, dst)
	}
	return append(dst, taken...)
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
		if x.wrap[j] {
			for i, s := range cand {
				out[i] += ringAxisSum(num, tot, side, int(x.coord[s*d+j]))
			}
			continue
		}
		for i, s := range cand {
			c := int(x.coord[s*d+j])
			below, sumBelow := num[c], tot[c] // coordinates < c
			out[i] += c*below - sumBelow + (t - sumBelow) - c*(n-below)
		}
	}
}

// ringAxisSum is the total distance around a ring of side nodes from coordinate c
// to the coordinates counted in num and tot (prefix counts and sums over 0..side,
// num[y] counting the coordinates < y): a coordinate y at offset t = (y - c) mod
// side is min(t, side - t) away. Those with t <= side/2 lie at c..c+h (h = side/2)
// and are t away, the others at c+h+1..c+side-1 (mod side) and side - t away;
// either range may wrap past side, where the prefix sums are read with side added.
func ringAxisSum(num, tot []int, side, c int) int {
	// cnt(p) and mom(p): how many coordinates, and the sum of their positions, at
	// positions < p on the doubled axis 0..2*side (position y + side for y < p - side).
	cnt := func(p int) int {
		if p <= side {
			return num[p]
		}
		return num[side] + num[p-side]
	}
	mom := func(p int) int {
		if p <= side {
			return tot[p]
		}
		return tot[side] + tot[p-side] + side*num[p-side]
	}
	h := side / 2
	lo, mid, hi := c, c+h+1, c+side
	near := mom(mid) - mom(lo) - c*(cnt(mid)-cnt(lo))
	far := (c+side)*(cnt(hi)-cnt(mid)) - (mom(hi) - mom(mid))
	return near + far
}

// axisHalf returns, per axis, side/2: beyond it a torus axis is shorter the other
// way round.
func (a *mc1x1) axisHalf() []int32 {
	if len(a.half) != a.x.d {
		a.half = make([]int32, a.x.d)
		for j, s := range a.x.dims {
			a.half[j] = int32(s / 2)
		}
	}
	return a.half
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

// axisWithin appends the coordinates of an axis of side nodes within distance r of
// c (around the ring when wrap), each once.
func axisWithin(dst []int32, c, r, side int, wrap bool) []int32 {
	if !wrap {
		for v := max(0, c-r); v <= min(side-1, c+r); v++ {
			dst = append(dst, int32(v))
		}
		return dst
	}
	if 2*r+1 >= side {
		for v := range side {
			dst = append(dst, int32(v))
		}
		return dst
	}
	for t := -r; t <= r; t++ {
		dst = append(dst, int32((c+t+side)%side))
	}
	return dst
}

// axisAt appends the coordinates of an axis exactly r from c (at most two).
func axisAt(dst []int32, c, r, side int, wrap bool) []int32 {
	if !wrap {
		if c-r >= 0 {
			dst = append(dst, int32(c-r))
		}
		if r > 0 && c+r < side {
			dst = append(dst, int32(c+r))
		}
		return dst
	}
	if 2*r > side {
		return dst
	}
	dst = append(dst, int32((c-r+side)%side))
	if r > 0 && 2*r != side {
		dst = append(dst, int32((c+r)%side))
	}
	return dst
}

// axisReach is the largest distance from c along an axis.
func axisReach(c, side int, wrap bool) int {
	if wrap {
		return side / 2
	}
	return max(c, side-1-c)
}

// greedyCollectShells is greedyCollect on a mesh or torus of any dimension, with the
// same result. Each candidate's selection key (total L1 distance to the nodes taken,
// then L1 distance to c, then free-list position) is one packed integer (keyBits).
// It stops early, returning math.MaxInt, when the score must exceed stop (every node
// still to take adds at least L). It looks only at the candidates that can still be
// taken: the inner nodes are read from the box of radius L-1 around c, the
// candidates shell by shell (L-infinity distance L, L+1, ..., around the ring on a
// torus axis), and reading stops when no node further out can have a smaller key
// than the best one read. A node v at L-infinity distance D from c is at distance at
// least D - (L-1) from each of the s inner nodes and at least 1 from each of the r
// nodes taken so far, and at L1 distance at least D from c, so its key is at least
// (s(D-L+1)+r, D, 0); the per-axis bounds below (far, boundK) are tighter. On 2D
// grids it replaced a ring-by-ring collector that passed over every candidate per
// node taken with only the first bound: the same sets, about 2x less CPU on issue
// 32's workload on mesh:64x64 and 10x less on an empty one (docs/center-speed.md).
func (a *mc1x1) greedyCollectShells(c, L, m, stop int) (int, []int) {
	x := a.x
	d := x.d
	co := x.coord
	cc := co[c*d : c*d+d]
	half := a.axisHalf()
	ad := func(j int, u, w int32) int32 {
		t := abs32(u - w)
		if x.wrap[j] && t > half[j] {
			t = int32(x.dims[j]) - t
		}
		return t
	}
	// set: the nodes taken beyond the inner shells. The inner nodes (strictly
	// inside shell L) are not read one by one: their score, their number s and,
	// per axis, how many of them have each coordinate come from the free set's
	// prefix sums (O(L) box counts per axis); greedySet lists them when the caller
	// needs the node set.
	set := a.set[:0]
	score, s := 0, 0
	for r := range L {
		b := x.freeInBall(c, r)
		score += r * (b - s)
		s = b
	}
	// per-axis prefix counts and coordinate sums of the inner nodes: on a ring
	// axis over the whole axis (num(j)[u] counts the coordinates < u); on a mesh
	// axis over the inner ball's range only, lo[j]..lo[j]+span[j]-1
	// (num(j)[i] counts the coordinates < lo[j]+i)
	sb := &a.shellBufs
	off := growInts(&sb.off, d+1) // axis j's counts at hist[2*off[j]:], sides+1 each
	for j, side := range x.dims {
		off[j+1] = off[j] + side + 1
	}
	// zeroed where read before written: a ring axis's counts, a mesh axis's first
	hist := growSlice(&a.hist, 2*off[d])
	for j, side := range x.dims {
		if x.wrap[j] {
			clear(hist[2*off[j] : 2*off[j+1]])
		} else {
			hist[2*off[j]], hist[2*off[j]+side+1] = 0, 0
		}
	}
	num := func(j int) []int { return hist[2*off[j] : 2*off[j]+x.dims[j]+1] }
	tot := func(j int) []int { return hist[2*off[j]+x.dims[j]+1 : 2*off[j+1]] }
	lo, span := growInts(&sb.lo, d), growInts(&sb.span, d)
	if s > 0 {
		blo, bhi := growInts(&sb.blo, d), growInts(&sb.bhi, d) // the inner ball's box, unclipped
		for j := range d {
			blo[j], bhi[j] = int(cc[j])-(L-1), int(cc[j])+(L-1)
		}
		for j, side := range x.dims {
			nj, tj := num(j), tot(j)
			if x.wrap[j] {
				sb.coords = axisWithin(sb.coords[:0], int(cc[j]), L-1, side, true)
				for _, u := range sb.coords {
					blo[j], bhi[j] = int(u), int(u)
					n := x.boxes.count(blo, bhi)
					nj[u+1] += n
					tj[u+1] += int(u) * n
				}
				for i := 1; i <= side; i++ {
					nj[i] += nj[i-1]
					tj[i] += tj[i-1]
				}
			} else {
				lo[j] = max(0, int(cc[j])-(L-1))
				span[j] = min(side-1, int(cc[j])+(L-1)) - lo[j] + 1
				for i := range span[j] {
					u := lo[j] + i
					blo[j], bhi[j] = u, u
					n := x.boxes.count(blo, bhi)
					nj[i+1] = nj[i] + n
					tj[i+1] = tj[i] + u*n
				}
			}
			blo[j], bhi[j] = int(cc[j])-(L-1), int(cc[j])+(L-1)
		}
	}
	// innerAt: the total distance along mesh axis j from coordinate t to the inner
	// nodes
	innerAt := func(j, t int) int {
		n := span[j]
		i := min(max(t-lo[j], 0), n)
		nj, tj := num(j), tot(j)
		b, sumB := nj[i], tj[i]
		return t*b - sumB + (tj[n] - sumB) - t*(s-b)
	}
	// cdist[off[j]+u]: coordinate u's distance from c's along ring axis j (on a
	// mesh axis |u - c|, not stored)
	// (these per-coordinate tables are written before they are read: not zeroed)
	cdist := growSlice(&sb.cdist, off[d])
	inner := growSlice(&sb.inner, off[d]) // inner[off[j]+u]: total distance along ring axis j from coordinate u to the inner nodes
	for j, side := range x.dims {
		if !x.wrap[j] {
			if d == 3 { // greedyShellKeys3 reads every axis's distances from cdist
				for u := range side {
					cdist[off[j]+u] = abs32(int32(u) - cc[j])
				}
			}
			continue
		}
		nj, tj := num(j), tot(j)
		for u := range side {
			cdist[off[j]+u] = ad(j, int32(u), cc[j])
			inner[off[j]+u] = ringAxisSum(nj, tj, side, u)
		}
	}
	// far[off[j]+t] on a ring axis: the least total distance along axis j to the
	// inner nodes of a coordinate t or more away from c's (suffix minima); least[j]
	// over all coordinates. A node D or more away from c in L-infinity is D or more
	// away along some axis j, so its total distance to the inner nodes is at least
	// min over j of far_j(D) + the sum of least over the other axes. On a mesh axis
	// the totals are convex in the coordinate with their least among the inner
	// nodes' coordinates, within L-1 of c, so for D >= L (always: D = R+1) far_j(D)
	// is the smaller of the totals at c-D and c+D, and least[j] is found in the
	// inner range. The same bound from the totals to the inner nodes and the nodes
	// taken so far (axisKey below, farK) counts the nodes taken by their distances
	// along each axis instead of 1 each, so that fewer shells are read.
	far := growSlice(&sb.far, off[d])
	least := growInts(&sb.least, d)
	leastSum := 0
	for j, side := range x.dims {
		if x.wrap[j] {
			suffixMinAxis(j, side, off[j], cdist, inner, far, least)
		} else if s > 0 {
			lj := math.MaxInt
			for u := lo[j]; u < lo[j]+span[j]; u++ {
				lj = min(lj, innerAt(j, u))
			}
			least[j] = lj
		}
		leastSum += least[j]
	}
	bound := func(D int) int {
		lb := math.MaxInt
		for j, side := range x.dims {
			fj := math.MaxInt
			switch {
			case x.wrap[j]:
				if D < side {
					fj = far[off[j]+D]
				}
			default:
				u := int(cc[j])
				if u-D >= 0 {
					fj = innerAt(j, u-D)
				}
				if u+D < side {
					fj = min(fj, innerAt(j, u+D))
				}
			}
			if fj != math.MaxInt {
				lb = min(lb, fj-least[j])
			}
		}
		if lb == math.MaxInt {
			return lb
		}
		return leastSum + lb
	}
	kb := a.keyBits
	// The total L1 distance is a sum over axes, so each axis keeps, per coordinate,
	// the total distance along it to the inner nodes and to the nodes taken so far
	// (axisKey), and a candidate's key is computed in O(d) at any time, not O(d) per
	// node taken; a node taken adds its distances along each axis to every
	// coordinate's total.
	axisKey := growSlice(&sb.axisKey, off[d])
	// Along a mesh axis axisKey is read only within R+1 of c (R: the radius read
	// so far; candidates, and boundK's window and c±(R+1)), so it is kept up to
	// date on that window alone (win[2j], win[2j+1], inclusive), and a coordinate
	// that joins it as R grows gets its total from the nodes taken. A ring axis is
	// kept so too, on the arc c±rw[j], while the radius read is small enough that
	// ring distances on the arc are distances along it (ringWindowed; its bounds
	// then come from ringKeyBounds), and whole (rw[j] = -1) from the radius on
	// where it is not (its suffix minima read every coordinate).
	win := growInts(&sb.win, 2*d)
	rw := growInts(&sb.rw, d)
	for j, side := range x.dims {
		o := off[j]
		if x.wrap[j] {
			win[2*j], win[2*j+1] = 0, side-1
			if rw[j] = -1; ringWindowed(L-1, side) {
				rw[j] = ringWiden(axisKey[o:o+side], inner[o:o+side], int(cc[j]), -1, max(L, 1), L-1, 0, j, d, nil, nil)
				continue
			}
			copy(axisKey[o:o+side], inner[o:o+side])
			continue
		}
		win[2*j], win[2*j+1] = max(0, int(cc[j])-L), min(side-1, int(cc[j])+L)
		for t := win[2*j]; t <= win[2*j+1]; t++ {
			axisKey[o+t] = innerAt(j, t)
		}
	}
	// takenSum[j]: the sum of the nodes taken's coordinates along mesh axis j, of
	// their offsets from c along a ring axis kept on an arc
	takenSum := growInts(&sb.takenSum, d)
	widen := func(W, R int) { // the windows to c±W (the nodes taken within R of c)
		for j, side := range x.dims {
			if x.wrap[j] {
				if rw[j] >= 0 && W > rw[j] {
					o := off[j]
					rw[j] = ringWiden(axisKey[o:o+side], inner[o:o+side], int(cc[j]), rw[j], W, R, takenSum[j], j, d, set, co)
				}
				continue
			}
			o, u := off[j], int(cc[j])
			for _, t := range [2]int{u - W, u + W} {
				if t < 0 || t >= side || t >= win[2*j] && t <= win[2*j+1] {
					continue
				}
				k := innerAt(j, t)
				switch n := len(set); {
				case W > R && t > u: // beyond every node taken
					k += n*t - takenSum[j]
				case W > R:
					k += takenSum[j] - n*t
				default:
					for _, v := range set {
						k += abs(t - int(co[v*d+j]))
					}
				}
				axisKey[o+t] = k
			}
			win[2*j], win[2*j+1] = max(0, min(win[2*j], u-W)), min(side-1, max(win[2*j+1], u+W))
		}
	}
	// bound(farK, leastK, leastSumK, D) from axisKey, far_j(D) and least_j per
	// axis: along an axis without wraparound axisKey is a sum of distances |u - v|,
	// convex in u, and every node it sums over (inner or taken) is within R of c, so
	// its least value lies in c-R..c+R (found by bisection on the slope) and its
	// least at a coordinate D > R away is at c-D or c+D; along a ring, suffix minima
	// (suffixMin) of the axis, redone after each node taken.
	farK := growSlice(&sb.farK, off[d])
	leastK := growInts(&sb.leastK, d)
	staleK := true
	boundK := func(R, D int) int {
		widen(D, R)
		leastSum, lb := 0, math.MaxInt
		suffixed := true // every ring axis's farK and leastK are current
		for j, side := range x.dims {
			o := off[j]
			var lj, fj int
			if x.wrap[j] {
				if w := max(R, 0); 2*w <= int(half[j]) {
					// the ring's sums in closed form (ringKeyBounds), as
					// along a mesh axis, not the suffix minima of the axis
					lj, fj = ringKeyBounds(axisKey[o:o+side], int(cc[j]), w, D, int(half[j]))
					suffixed = false
				} else {
					if staleK {
						suffixMinAxis(j, side, o, cdist, axisKey, farK, leastK)
					}
					lj, fj = leastK[j], math.MaxInt
					if D < side {
						fj = farK[o+D]
					}
				}
			} else {
				u := int(cc[j])
				kj := axisKey[o : o+side]
				w := max(R, 0) // R = -1: nothing summed, all zero
				lj = convexMin(kj, max(0, u-w), min(side-1, u+w))
				fj = math.MaxInt
				if u-D >= 0 {
					fj = kj[u-D]
				}
				if u+D < side {
					fj = min(fj, kj[u+D])
				}
			}
			leastSum += lj
			if fj != math.MaxInt {
				lb = min(lb, fj-lj)
			}
		}
		staleK = !suffixed
		if lb == math.MaxInt {
			return lb
		}
		return leastSum + lb
	}
	xy, keys := a.candXY[:0], a.keys[:0]
	add := func(v int) {
		cv := co[v*d : v*d+d]
		sum, l1 := 0, int32(0)
		for j, u := range cv {
			sum += axisKey[off[j]+int(u)]
			if x.wrap[j] {
				l1 += cdist[off[j]+int(u)]
			} else {
				l1 += abs32(u - cc[j])
			}
		}
		xy = append(xy, cv...)
		keys = append(keys, int64(sum-len(set))<<kb.sumShift|int64(l1)<<kb.posBits|int64(a.pos[v]))
	}
	maxR := 0
	for j, side := range x.dims {
		maxR = max(maxR, axisReach(int(cc[j]), side, x.wrap[j]))
	}
	R := L - 1
	// The candidates' keys only grow (a node taken adds its distance to each), so
	// they sit in a heap by the key they had when last computed, a lower bound of
	// their key now; the heap's top is recomputed (O(d), from axisKey) until its key
	// is current, and it is then the smallest: each node taken costs the candidates
	// recomputed, not a pass over all of them. Each node taken adds at least 1 to
	// every candidate's sum, so the sums are kept less the number of nodes taken
	// when computed (the same order among candidates at any time, as the count is
	// common to all): a key kept from r nodes ago is then a bound r higher, and
	// fewer are recomputed.
	// The heap holds the keys alone (8 bytes an entry, not 16 with the
	// candidate's index): a key ends in the candidate's free-list position,
	// which candOf maps back to its index.
	heap := a.heap[:0]
	candOf := a.candOf
	if len(candOf) < len(a.fl) {
		candOf = make([]int32, len(a.fl))
		a.candOf = candOf
	}
	posMask := int64(1)<<kb.posBits - 1
	lowMask := int64(1)<<kb.sumShift - 1
	o1, o2 := off[min(1, d)], off[min(2, d)] // axes 1 and 2's (off[0] = 0)
	current := func(i int32) int64 {
		sum := 0
		switch d { // the 2D and 3D sums written out, without the loop
		case 2:
			q := xy[2*i : 2*i+2 : 2*i+2]
			sum = axisKey[q[0]] + axisKey[o1+int(q[1])]
		case 3:
			q := xy[3*i : 3*i+3 : 3*i+3]
			sum = axisKey[q[0]] + axisKey[o1+int(q[1])] + axisKey[o2+int(q[2])]
		default:
			for j, u := range xy[int(i)*d : int(i)*d+d] {
				sum += axisKey[off[j]+int(u)]
			}
		}
		return int64(sum-len(set))<<kb.sumShift | keys[i]&lowMask
	}
	// On 3D grids, outside recorded runs (whose tie groups are read from the
	// heap), the candidates near the least sum are kept in buckets by sum
	// (greedyBuckets): bucketed says so, and settleB replaces settle.
	bq := &a.buckets
	bucketed := d == 3 && !a.shift.recOn && !a.bucketsOff
	bq.reset(bucketed, a.bucketWidth)
	// top: the least candidate's current key after settling; fromHeap: it is
	// the heap's top (not in a bucket)
	fromHeap, top := true, int64(0)
	cur := greedyCur{axisKey: axisKey, candOf: candOf, o1: o1, o2: o2, sumShift: kb.sumShift, lowMask: lowMask, posMask: posMask}
	push := func(i int32) {
		candOf[keys[i]&posMask] = i
		if bucketed && bq.add(i, keys[i]>>kb.sumShift, xy) {
			return
		}
		heap = append(heap, keys[i])
		for h := len(heap) - 1; h > 0; {
			p := (h - 1) / 4
			if heap[p] <= heap[h] {
				break
			}
			heap[h], heap[p] = heap[p], heap[h]
			h = p
		}
	}
	// On 3D grids the shells are read by tiles (greedyShellTiles3): a tile's
	// nodes are keyed and pushed when its bound comes up to the top's current
	// key, so the top returned is the least candidate of every node read.
	tiled := d == 3 && !a.tilesOff
	tileFrom := greedyTileFrom
	if a.tileFrom > 0 {
		tileFrom = a.tileFrom
	}
	gt := &a.tiles
	gt.reset()
	// settle settles the heap of candidates alone, as before the tiles: small
	// enough to be inlined where it is called (with the tiles' loop inside it,
	// it was not, and the untiled runs of mesh:25x25x25's young-set stream were
	// about 3 % slower). After it, while the top tile's bound is at most the top's
	// current key, that tile is bounded again or keyed (greedyTileNext) and the
	// heap settled again: written out at the two places, as a closure that was
	// not inlined (settle, then such a closure) left 1-2 % of that cost.
	settle := func() int32 {
		for len(heap) > 0 {
			i := candOf[heap[0]&posMask]
			k := current(i)
			if k == heap[0] {
				return i
			}
			heap[0] = k
			greedySiftDown(heap, 0)
		}
		return -1
	}
	b := int32(-1)
	pc := growInt32s(&sb.pc, d)
	seg := math.MinInt // the largest bound checked against stop since the last tie group (greedyShift)
	// takeNode adds the node at coordinates pc to the set, as the loop below
	// does (there inline: a closure call per node taken costs about 3 % of a
	// replay on a small 3D mesh)
	// (it returns the node and its distance; the caller adds them, so that the
	// loop's set and score are not captured)
	takeNode := func(pc []int32) (int, int) {
		v := nodeIndex(x.dims, pc)
		dist := int32(0)
		for j, u := range pc {
			dist = max(dist, ad(j, u, cc[j]))
		}
		for j, side := range x.dims {
			if x.wrap[j] {
				takenSum[j] += ringTake(axisKey[off[j]:off[j]+side], int(cc[j]), rw[j], int(pc[j]))
				continue
			}
			lo, hi := win[2*j], win[2*j+1]
			axisAddDist(axisKey[off[j]+lo:off[j]+hi+1], int(pc[j])-lo, hi-lo+1, false)
			takenSum[j] += int(pc[j])
		}
		staleK = true
		return v, int(dist)
	}
	// keptLB: the last read-stopping bound computed at radius R, less the nodes
	// taken then (its sum stays a bound on the unread nodes' totals less the
	// nodes taken), or -1
	keptLB := int64(-1)
	r0 := 0
	if rs := &a.shift.resume; rs.on {
		// resumed where a recorded run parts from this center's (greedyShift):
		// the state before step rs.step is the nodes taken before it and every
		// other node of the ball of radius rs.R read, as around the recorded
		// run's center
		rs.on = false
		// the windows to c±rs.R with nothing taken yet, every coordinate
		// between: widen writes only c±W, as the loop below calls it one radius
		// at a time, and called here it left the coordinates between the
		// windows and c±rs.R stale (TestGreedyShiftMatchesFresh, mesh:9x9x9: a
		// resumed run scored 173 where the fresh one scored 174). Written out,
		// not a call: a second call site of widen lost it the larger inlining
		// budget of a closure called once, and the closure kept, with the set it
		// captures, made the loop below slower (LLNL-T3D 16x16 --compat premas
		// 0.51 -> 0.60 s of CPU; 0.57 s with this)
		for j, side := range x.dims {
			if x.wrap[j] {
				// (nothing taken yet: the arc, or the whole ring, of inner's totals)
				if o := off[j]; rw[j] >= 0 && ringWindowed(rs.R, side) {
					rw[j] = ringWiden(axisKey[o:o+side], inner[o:o+side], int(cc[j]), rw[j], rs.R+1, rs.R, 0, j, d, nil, nil)
				} else if rw[j] >= 0 {
					copy(axisKey[o:o+side], inner[o:o+side])
					rw[j] = -1
				}
				continue
			}
			o, u, W := off[j], int(cc[j]), rs.R
			for t := max(0, u-W); t <= min(side-1, u+W); t++ {
				if t < win[2*j] || t > win[2*j+1] {
					axisKey[o+t] = innerAt(j, t)
				}
			}
			win[2*j], win[2*j+1] = max(0, min(win[2*j], u-W)), min(side-1, max(win[2*j+1], u+W))
		}
		for o := 0; o < len(rs.picks); o += d {
			v, dist := takeNode(a.shiftCoords(cc, rs.picks[o:o+d], pc))
			set = append(set, v)
			score += dist
		}
		taken := a.shiftMark(set)
		for R < rs.R {
			R++
			a.ring = a.greedyShell(cc, R, false, a.ring[:0])
			for _, v := range a.ring {
				if !taken(v) {
					add(v)
				}
			}
		}
		for j := range keys {
			push(int32(j))
		}
		r0 = rs.step
	}
	for r := r0; r < m; r++ {
		if v := score + (m-r)*L; v > stop || a.shift.recOn {
			seg = max(seg, v)
			if v > stop {
				a.counts.taken += int64(r - r0)
				a.candXY, a.keys, a.heap = xy, keys, heap
				a.lastR, a.lastBound = R, v
				a.shift.recR, a.shift.recTail, a.shift.recPicks = R, seg, set
				return math.MaxInt, nil
			}
		}
		if bucketed {
			b, top, fromHeap, heap = bq.settle(heap, &cur, xy, keys, len(set))
		} else if b = settle(); b >= 0 {
			top = heap[0]
		}
		for len(gt.heap) > 0 && (b < 0 || gt.heap[0].key <= top) {
			from := len(keys)
			xy, keys = a.greedyTileNext(axisKey, cdist, off, len(set), xy, keys)
			for j := from; j < len(keys); j++ {
				push(int32(j))
			}
			if bucketed {
				b, top, fromHeap, heap = bq.settle(heap, &cur, xy, keys, len(set))
			} else if b = settle(); b >= 0 {
				top = heap[0]
			}
		}
		for R < maxR {
			// the bound last computed at this radius still stops the reading
			// when its sum, plus 1 for each node taken since (each adds at
			// least 1 to every unread node's total), exceeds the top's
			if b >= 0 && keptLB > top { // both less the nodes taken
				break
			}
			D := R + 1
			fb := bound(D)
			if fb == math.MaxInt {
				R = maxR // no node is that far
				break
			}
			lb := int64(max(max(s*(D-L+1), fb)+r, boundK(R, D)))<<kb.sumShift | int64(D)<<kb.posBits
			if b >= 0 && lb > top+int64(r)<<kb.sumShift { // b is the top, its key current
				keptLB = lb - int64(r)<<kb.sumShift
				break
			}
			keptLB = -1
			R++
			for j, side := range x.dims {
				if x.wrap[j] && rw[j] >= 0 && !ringWindowed(R, side) {
					// the ring whole from here on
					o := off[j]
					ringWhole(axisKey[o:o+side], inner[o:o+side], hist[2*off[j]:2*off[j+1]], j, d, set, co)
					rw[j] = -1
				}
			}
			if a.shift.recOn && !a.shiftBallFree(c, R) {
				a.shift.recOn = false // the run cannot be kept (greedyShift)
			}
			from := len(keys)
			if tiled && R >= tileFrom {
				a.greedyShellTiles3(cc, R, axisKey, cdist, off, len(set))
			} else if d == 3 {
				// the shell read and keyed in one pass (greedyShell then add,
				// fused: the same candidates in the same order)
				xy, keys = a.greedyShellKeys3(cc, R, axisKey, cdist, off, len(set), xy, keys)
			} else {
				a.ring = a.greedyShell(cc, R, false, a.ring[:0])
				for _, v := range a.ring {
					add(v)
				}
			}
			for j := from; j < len(keys); j++ {
				push(int32(j))
			}
			if bucketed {
				b, top, fromHeap, heap = bq.settle(heap, &cur, xy, keys, len(set))
			} else if b = settle(); b >= 0 {
				top = heap[0]
			}
			for len(gt.heap) > 0 && (b < 0 || gt.heap[0].key <= top) {
				from := len(keys)
				xy, keys = a.greedyTileNext(axisKey, cdist, off, len(set), xy, keys)
				for j := from; j < len(keys); j++ {
					push(int32(j))
				}
				if bucketed {
					b, top, fromHeap, heap = bq.settle(heap, &cur, xy, keys, len(set))
				} else if b = settle(); b >= 0 {
					top = heap[0]
				}
			}
		}
		if a.shift.recOn {
			// the tie group of the node taken (greedyShift): the candidates whose
			// current key has b's distance sum and L1 distance; a key kept in the
			// heap is at most the current one, so only the entries whose kept key
			// is that small, and their subtrees' roots, are looked at
			hi := heap[0] >> kb.posBits // b's
			others := a.shift.tmpOffset[:0]
			stack := append(a.heapStack[:0], 1, 2, 3, 4)
			for len(stack) > 0 {
				h := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				if int(h) >= len(heap) || heap[h]>>kb.posBits > hi {
					continue
				}
				if i := candOf[heap[h]&posMask]; current(i)>>kb.posBits == hi {
					others = append(others, xy[int(i)*d:int(i)*d+d]...)
				}
				stack = append(stack, 4*h+1, 4*h+2, 4*h+3, 4*h+4)
			}
			a.heapStack, a.shift.tmpOffset = stack, others
			if len(others) > 0 {
				a.recordTie(cc, xy[int(b)*d:int(b)*d+d], others, seg, R, r)
				seg = math.MinInt
				if a.orbit.on && a.orbitGroup(c, set, R) {
					// a state met before (greedyEmptyTorus): stopped
					a.counts.taken += int64(r - r0)
					a.candXY, a.keys, a.heap = xy, keys, heap
					a.lastR, a.lastBound = R, math.MaxInt
					return math.MaxInt, nil
				}
			}
		}
		// b is the heap's top: take it.
		copy(pc, xy[int(b)*d:int(b)*d+d])
		if fromHeap {
			last := len(heap) - 1
			heap[0] = heap[last]
			heap = heap[:last]
			greedySiftDown(heap, 0)
		} else {
			bq.remove(b, top>>kb.sumShift)
		}
		v := nodeIndex(x.dims, pc)
		set = append(set, v)
		dist := int32(0)
		for j, u := range pc {
			dist = max(dist, ad(j, u, cc[j]))
		}
		score += int(dist)
		for j, side := range x.dims {
			if x.wrap[j] {
				takenSum[j] += ringTake(axisKey[off[j]:off[j]+side], int(cc[j]), rw[j], int(pc[j]))
				continue
			}
			lo, hi := win[2*j], win[2*j+1]
			axisAddDist(axisKey[off[j]+lo:off[j]+hi+1], int(pc[j])-lo, hi-lo+1, false)
			takenSum[j] += int(pc[j])
		}
		staleK = true
	}
	a.counts.taken += int64(m - r0)
	a.candXY, a.keys, a.heap = xy, keys, heap
	a.set = set
	a.lastR, a.lastBound = R, math.MaxInt
	a.shift.recR, a.shift.recTail, a.shift.recPicks = R, seg, set
	return score, set
}

// greedySiftDown restores the order of greedyCollectShells' heap of candidates
// hp below entry h, whose key grew (a function, not a closure: too large to be
// inlined, a closure would make the heap a captured variable).
func greedySiftDown(hp []int64, h int) {
	n := len(hp)
	if h >= n {
		return
	}
	// A 4-ary heap, sifted bottom-up (Floyd): the hole goes down to a leaf
	// along the least children and e then rises from there. Most sifts are
	// of a recomputed top whose key grew (settle: about 15 a node taken on
	// issue 32's workload on torus:25x25x25) and it sinks most of the way
	// (7 of 10 levels of a binary heap), so this skips most comparisons
	// with e, which the branch predictor cannot guess; the least of four
	// children is picked without branches (keys are far from overflow, so
	// the sign of a difference orders them). About 5 % less CPU there than
	// the binary heap sifted top-down; the keys are distinct (they end in
	// the free-list position), so the node taken does not depend on the
	// heap's shape.
	start := h
	e := hp[h]
	for {
		c := 4*h + 1
		if c+3 >= n {
			if c < n {
				mc, mk := c, hp[c]
				for q := c + 1; q < n; q++ {
					if k := hp[q]; k < mk {
						mc, mk = q, k
					}
				}
				hp[h] = hp[mc]
				h = mc
			}
			break
		}
		// the four children as one slice: one bounds check, not four (and
		// none for the move below: the index is masked to 0-3)
		q := hp[c : c+4 : c+4]
		k0, k1, k2, k3 := q[0], q[1], q[2], q[3]
		s01 := uint(uint64(k1-k0) >> 63)
		s23 := uint(uint64(k3-k2) >> 63)
		m01 := min(k0, k1)
		m23 := min(k2, k3)
		j := s01
		if m23 < m01 {
			j = 2 + s23
		}
		hp[h] = q[j&3]
		h = c + int(j&3)
	}
	for h > start {
		p := (h - 1) / 4
		if hp[p] <= e {
			break
		}
		hp[h] = hp[p]
		h = p
	}
	hp[h] = e
}

// convexMin returns the least of k[lo..hi] (inclusive, lo <= hi), where k is convex
// on that range (its differences do not decrease): bisection on the slope.
func convexMin(k []int, lo, hi int) int {
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if k[mid+1] < k[mid] {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return k[lo]
}

// suffixMinAxis sets far[o+t], for t = 0..side, to the least src[o+u] over the
// coordinates u of axis j at distance t or more from the center (cdist[o+u]), and
// least[j] to far[o].
func suffixMinAxis(j, side, o int, cdist []int32, src, far, least []int) {
	fj := far[o : o+side+1]
	for t := range fj {
		fj[t] = math.MaxInt
	}
	reach := 0
	for u := range side {
		t := cdist[o+u]
		fj[t] = min(fj[t], src[o+u])
		reach = max(reach, int(t))
	}
	for t := reach - 1; t >= 0; t-- {
		fj[t] = min(fj[t], fj[t+1])
	}
	least[j] = fj[0]
}

// axisAddDist adds to k[t], for every coordinate t of an axis of side nodes, its
// distance from coordinate p (around the ring when wrap: min(|t-p|, side-|t-p|)),
// in straight runs.
func axisAddDist(k []int, p, side int, wrap bool) {
	k = k[:side]
	if !wrap {
		left, right := k[:p], k[p:]
		for t := range left {
			left[t] += p - t
		}
		for t := range right {
			right[t] += t
		}
		return
	}
	h := side / 2
	e := min(side, p+h+1) // t >= p: t-p up to h, then side-(t-p)
	for t := p; t < e; t++ {
		k[t] += t - p
	}
	for t := e; t < side; t++ {
		k[t] += side + p - t
	}
	lo := max(0, p-h) // t < p: p-t up to h, then side-(p-t)
	for t := lo; t < p; t++ {
		k[t] += p - t
	}
	for t := 0; t < lo; t++ {
		k[t] += side - p + t
	}
}

// nodeStrides returns the strides of the node index (node = the sum of coordinate j
// times stride j), computed once.
func (a *mc1x1) nodeStrides() []int {
	if x := a.x; len(a.nodeStride) < x.d {
		a.nodeStride = make([]int, x.d)
		st := 1
		for j, side := range x.dims {
			a.nodeStride[j] = st
			st *= side
		}
	}
	return a.nodeStride
}

// growInts returns (*buf)[:n], zeroed, growing *buf when needed.
func growInts(buf *[]int, n int) []int {
	if cap(*buf) < n {
		*buf = make([]int, n)
	}
	*buf = (*buf)[:n]
	clear(*buf)
	return *buf
}

// growSlice returns (*buf)[:n], not zeroed, growing *buf when needed.
func growSlice[T any](buf *[]T, n int) []T {
	if cap(*buf) < n {
		*buf = make([]T, n)
	}
	*buf = (*buf)[:n]
	return *buf
}

// growInt32s is growInts for int32.
func growInt32s(buf *[]int32, n int) []int32 {
	if cap(*buf) < n {
		*buf = make([]int32, n)
	}
	*buf = (*buf)[:n]
	clear(*buf)
	return *buf
}

// greedyShell appends the free nodes at L-infinity distance exactly r from the
// coordinates cc (within r when ball), around the ring on torus axes: the shell is
// split by the first axis j at distance r (the axes before it less than r away, the
// axes after it at most r), so every node is met once.
func (a *mc1x1) greedyShell(cc []int32, r int, ball bool, dst []int) []int {
	x := a.x
	d := x.d
	// lists[j]: axis j's coordinates within a radius, lists[d+j]: exactly r away
	// (kept between calls, so that they are not allocated again)
	for len(a.shellLists) < 2*d {
		a.shellLists = append(a.shellLists, nil)
	}
	for len(a.shellAxes) < d {
		a.shellAxes = append(a.shellAxes, nil)
	}
	lists, axes := a.shellLists[:2*d], a.shellAxes[:d]
	within := func(j, rad int) []int32 {
		if rad < 0 {
			lists[j] = lists[j][:0]
		} else {
			lists[j] = axisWithin(lists[j][:0], int(cc[j]), rad, x.dims[j], x.wrap[j])
		}
		return lists[j]
	}
	if ball {
		for j := range d {
			axes[j] = within(j, r)
		}
		return a.freeProduct(axes, dst)
	}
	for j := range d {
		at := axisAt(lists[d+j][:0], int(cc[j]), r, x.dims[j], x.wrap[j])
		lists[d+j] = at
		if len(at) == 0 {
			continue
		}
		// the axes before j less than r away, after j at most r (rebuilt for each
		// j: the radii differ)
		for i := range d {
			switch {
			case i < j:
				axes[i] = within(i, r-1)
			case i == j:
				axes[i] = at
			default:
				axes[i] = within(i, r)
			}
		}
		dst = a.freeProduct(axes, dst)
	}
	return dst
}

// greedyShellKeys3 is greedyCollectShells' read of the shell at L-infinity
// distance r around cc on a 3D grid: the free nodes greedyShell(cc, r, false)
// lists, in its order, appended to the candidates' coordinates xy and keys as
// the collector's add does (key: the total distance along each axis from
// axisKey, less the nodes taken n; the L1 distance to cc from cdist, which
// holds every axis's distances; the free-list position), with the sums and
// distances of the outer loops' coordinates added once per loop, not per node,
// and no node's coordinates read back from the index.
func (a *mc1x1) greedyShellKeys3(cc []int32, r int, axisKey []int, cdist []int32, off []int, n int, xy []int32, keys []int64) ([]int32, []int64) {
	x := a.x
	kb := a.keyBits
	var lm1, l0, at [3][]int32
	for len(a.shellLists) < 9 {
		a.shellLists = append(a.shellLists, nil)
	}
	lists := a.shellLists[:9]
	for j := range 3 {
		if r > 0 {
			lists[j] = axisWithin(lists[j][:0], int(cc[j]), r-1, x.dims[j], x.wrap[j])
		} else {
			lists[j] = lists[j][:0]
		}
		lists[3+j] = axisWithin(lists[3+j][:0], int(cc[j]), r, x.dims[j], x.wrap[j])
		lists[6+j] = axisAt(lists[6+j][:0], int(cc[j]), r, x.dims[j], x.wrap[j])
		lm1[j], l0[j], at[j] = lists[j], lists[3+j], lists[6+j]
	}
	st, pos := a.st, a.pos
	X, XY := x.dims[0], x.dims[0]*x.dims[1]
	o1, o2 := off[1], off[2]
	sumShift, posBits := kb.sumShift, kb.posBits
	for j := range 3 {
		if len(at[j]) == 0 {
			continue
		}
		var axes [3][]int32
		for i := range 3 {
			switch {
			case i < j:
				axes[i] = lm1[i]
			case i == j:
				axes[i] = at[i]
			default:
				axes[i] = l0[i]
			}
		}
		if len(axes[0]) == 0 || len(axes[1]) == 0 || len(axes[2]) == 0 {
			continue
		}
		for _, u := range axes[0] {
			k0, d0 := axisKey[u]-n, cdist[u]
			for _, w := range axes[1] {
				k1, d1 := k0+axisKey[o1+int(w)], d0+cdist[o1+int(w)]
				uw := int(u) + int(w)*X
				for _, z := range axes[2] {
					if v := uw + int(z)*XY; st.IsFree(v) {
						xy = append(xy, u, w, z)
						keys = append(keys, int64(k1+axisKey[o2+int(z)])<<sumShift|int64(d1+cdist[o2+int(z)])<<posBits|int64(pos[v]))
					}
				}
			}
		}
	}
	return xy, keys
}

// freeProduct appends the free nodes whose coordinates along each axis j are among
// axes[j] (axis 0 slowest, the last fastest).
func (a *mc1x1) freeProduct(axes [][]int32, dst []int) []int {
	x := a.x
	d := x.d
	for _, l := range axes {
		if len(l) == 0 {
			return dst
		}
	}
	if d == 2 {
		X := x.dims[0]
		for _, xx := range axes[0] {
			for _, yy := range axes[1] {
				if v := int(xx) + int(yy)*X; a.st.IsFree(v) {
					dst = append(dst, v)
				}
			}
		}
		return dst
	}
	if d == 3 {
		st := a.st
		X, XY := x.dims[0], x.dims[0]*x.dims[1]
		for _, u := range axes[0] {
			for _, w := range axes[1] {
				uw := int(u) + int(w)*X
				for _, z := range axes[2] {
					if v := uw + int(z)*XY; st.IsFree(v) {
						dst = append(dst, v)
					}
				}
			}
		}
		return dst
	}
	if len(a.shellIdx) < d {
		a.shellIdx = make([]int, d)
	}
	idx, stride := a.shellIdx[:d], a.nodeStrides()
	clear(idx)
	for {
		v := 0
		for j, l := range axes {
			v += int(l[idx[j]]) * stride[j]
		}
		if a.st.IsFree(v) {
			dst = append(dst, v)
		}
		j := d - 1
		for ; j >= 0; j-- {
			if idx[j]++; idx[j] < len(axes[j]) {
				break
			}
			idx[j] = 0
		}
		if j < 0 {
			return dst
		}
	}
}

// greedyMemo keeps, between decisions, what each center's last collection showed:
// its score, or a lower bound of it where the collector gave up, with the request k,
// its shell L and count m and the radius R the run read. A run reads the free set
// only within L-infinity distance R of its center (the inner shells, the shells it
// read, and bounds on unread nodes that depend on the nodes read alone; ties go by
// free-list order, the same between two free nodes whatever else is free), so while
// no node within R has changed, the run and its score are the same: a center whose
// kept bound exceeds the decision's stop cannot win or tie and is not collected
// again. Changes are found by comparing the free map with a copy of it at each
// decision (O(n/64) words), and recorded per block of nodes (8 per side in 2D, 4
// in 3D) as the decision that saw them; a center's bound holds while no block its
// ball touches changed after it was kept.
type greedyMemo struct {
	off     bool                       // tests: every center collected
	check   func(c, k, L, m, stop int) // tests: called for every center the memo skips
	epoch   int32                      // decisions seen
	snap    []uint64
	stamp   []int32 // per block: the last decision that saw a node of it change
	side    int     // a block's side (tests may set it before the first decision)
	bdims   []int   // blocks per axis
	bstride []int
	centers []greedyCenterMemo
	lists   [][]int32 // memoSkips' block lists per axis
	idx     []int
}

type greedyCenterMemo struct {
	k, L, m, R int32
	epoch      int32 // the decision that kept it; 0: nothing kept
	bound      int   // the score, or a lower bound of it
}

// memoAdvance starts a decision: the blocks of nodes changed since the last one
// get its number.
func (a *mc1x1) memoAdvance() {
	mo := &a.memo
	x := a.x
	if mo.snap == nil {
		switch {
		case mo.side > 0: // tests
		case x.d == 1:
			mo.side = 64
		case x.d == 2:
			mo.side = 8
		default:
			mo.side = 4
		}
		st := 1
		for _, sd := range x.dims {
			nb := (sd + mo.side - 1) / mo.side
			mo.bdims = append(mo.bdims, nb)
			mo.bstride = append(mo.bstride, st)
			st *= nb
		}
		mo.stamp = make([]int32, st)
		mo.centers = make([]greedyCenterMemo, a.g.N())
		mo.snap = make([]uint64, len(a.st.free))
		mo.lists = make([][]int32, x.d)
		mo.idx = make([]int, x.d)
	}
	mo.epoch++
	// Where blocks split the first axis and the words evenly, a side-long run of a
	// word's bits lies in one block: one stamp per run that changed.
	step, mask := 1, uint64(1)
	if 64%mo.side == 0 && (x.d == 1 || x.dims[0]%mo.side == 0) {
		step, mask = mo.side, uint64(1)<<mo.side-1
	}
	for w, f := range a.st.free {
		diff := f ^ mo.snap[w]
		if diff == 0 {
			continue
		}
		mo.snap[w] = f
		if step == 1 {
			// the changed bits one by one, each block's run of them along
			// axis 0 in the word stamped once (mesh:332x332's rows do not
			// split into blocks of 8 evenly)
			for diff != 0 {
				o := bits.TrailingZeros64(diff)
				v := w<<6 | o
				cv := x.coord[v*x.d : v*x.d+x.d]
				b := 0
				for j, u := range cv {
					b += int(u) / mo.side * mo.bstride[j]
				}
				mo.stamp[b] = mo.epoch
				u0 := int(cv[0])
				if o += min((u0/mo.side+1)*mo.side, x.dims[0]) - u0; o >= 64 {
					break
				}
				diff &^= uint64(1)<<o - 1
			}
			continue
		}
		for o := 0; o < 64; o += step {
			if diff>>o&mask == 0 {
				continue
			}
			v := w<<6 | o
			b := 0
			for j, u := range x.coord[v*x.d : v*x.d+x.d] {
				b += int(u) / mo.side * mo.bstride[j]
			}
			mo.stamp[b] = mo.epoch
		}
	}
}

// memoKeep keeps what the collection of center c just returned (score, or
// math.MaxInt when it gave up on lastBound), having read the ball of radius lastR.
func (a *mc1x1) memoKeep(c, k, L, m, score int) {
	bound := score
	if score == math.MaxInt {
		bound = a.lastBound
	}
	a.memo.centers[c] = greedyCenterMemo{k: int32(k), L: int32(L), m: int32(m), R: int32(a.lastR), epoch: a.memo.epoch, bound: bound}
}

// memoSkips reports whether center c's kept bound, for the same k, L and m, exceeds
// stop and still holds: no block within its radius changed since it was kept.
func (a *mc1x1) memoSkips(c, k, L, m, stop int) bool {
	mo := &a.memo
	e := &mo.centers[c]
	if e.epoch == 0 || e.bound <= stop || int(e.k) != k || int(e.L) != L || int(e.m) != m {
		return false
	}
	x := a.x
	d := x.d
	R := int(e.R)
	for j, sd := range x.dims {
		u := int(x.coord[c*d+j])
		l := mo.lists[j][:0]
		switch lo, hi := u-R, u+R; {
		case x.wrap[j] && 2*R+1 >= sd:
			for b := range mo.bdims[j] {
				l = append(l, int32(b))
			}
		case x.wrap[j] && (lo < 0 || hi >= sd):
			// across the seam: two runs of blocks (they may meet)
			lo, hi = (lo+sd)%sd, hi%sd
			for b := 0; b <= hi/mo.side; b++ {
				l = append(l, int32(b))
			}
			for b := max(lo/mo.side, hi/mo.side+1); b < mo.bdims[j]; b++ {
				l = append(l, int32(b))
			}
		default:
			for b := max(lo, 0) / mo.side; b <= min(hi, sd-1)/mo.side; b++ {
				l = append(l, int32(b))
			}
		}
		mo.lists[j] = l
	}
	idx := mo.idx
	clear(idx)
	for {
		b := 0
		for j, l := range mo.lists {
			b += int(l[idx[j]]) * mo.bstride[j]
		}
		if mo.stamp[b] > e.epoch {
			return false
		}
		j := 0
		for ; j < d; j++ {
			if idx[j]++; idx[j] < len(mo.lists[j]) {
				break
			}
			idx[j] = 0
		}
		if j == d {
			break
		}
	}
	if mo.check != nil {
		mo.check(c, k, L, m, stop)
	}
	return true
}
