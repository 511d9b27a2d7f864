package alloc

import (
	"context"
	"fmt"
	"slices"

	"github.com/procalloc/procalloc/topo"
)

// graphGenAlg is Gen-Alg (Krumke, Marathe, Noltemeier, Radhakrishnan, Ravi,
// Rosenkrantz, "Compact location problems", Theoretical Computer Science 181 (1997);
// as an allocator: Bunde, Leung, Mache, "Communication patterns and allocation
// strategies", 2004, §2.2) on a network without coordinates. Its decision is the
// definition: for every free host c as center, the k free hosts nearest to c in hops
// (ties by host index), scored by their total pairwise hop distance
// (topo.Graph.PairDistSum); the lowest score wins, ties to the center of smallest
// index. Distances are the graph's hop distances (topo.Graph.Dist), switches counted
// as hops, and a host another cannot reach is at distance -1 from it, so nearest
// (Parse refuses such a network for genalg: no score is defined across its parts;
// the definition is kept for the library's own callers and the reference test).
//
// It does not sort the free hosts once per center (O(n^2 log n) a decision: 1.5-2.9 s
// at 4,096 hosts, hours at 2 x 10^5). Hosts on one anchor (topo.HopKeys: the leaf
// switch or router a host hangs on) are interchangeable but for their index, and
// every other host's distance from them is Off + D(anchor, its anchor) + its Off, D
// depending only on the anchors' keys (classes of twins). So for every center c on
// anchor A the nearest-first list is c, then the list L_A of the free hosts by
// (Off + D from A, index) without c; its first k are "the first k of L_A" when c is
// among them, else "c and the first k-1 of L_A", whose score is the same for every
// such c (W(first k-1) + the sum of their distances from A's hosts). Per anchor the
// decision therefore makes at most two candidates, each from the hosts per (key,
// Off) bucketed by distance: every host of the nearer buckets and the smallest-index
// ones of the cutoff bucket (a merge of the per-key lists). When the first k of
// L_A take in every host of A's key (more than A's key class holds), they are the
// same for all anchors of that key, and are made once per key. A decision costs,
// for the buckets, keys x the keys near each (a dragonfly: the routers within 2
// hops, HopKeys.Near, the rest counted at once) or keys^2 (HopKeys.Rows: the key
// table, or 64 breadth-first searches a pass over the quotient graph when there is
// no table), plus, per anchor (or key) whose job is made, O(k log keys) and the
// job's PairDistSum; O(n) to list the free hosts. Two networks skip the listing of
// candidates: on a fat tree FatTree built, decideFatTree (genalg_graph_tree.go)
// makes one candidate per group of each level from free counts and prefix sums,
// O(groups x levels); on a dragonfly (HopKeys.Near) whose hosts all hang on their
// routers, routerJob (genalg_graph_df.go) counts each router's candidate per router
// and scores it from the counts (HopKeys.DragonflyCountSumFree: whole groups and
// the pieces of the center's group, its routers' two-hop routers per group, from
// per-decision and per-group tables; the other routers O(global links^2) each),
// router by router (decideRouters): a router whose lower bound (its free hosts,
// the most on another router, those of its first ring) cannot beat the best so far
// is skipped, and one whose group and global neighbours hold k free hosts lists
// only them (topo.DragonflyNear), not the routers at distance 2.
// Only the winner's hosts are listed. On a network
// read from a file whose hosts all hang on anchors and are numbered key by key (a
// fat tree's dump), a key's one candidate (when it takes in all the key's hosts) is
// scored from its hosts per key and anchor and the key table (classCount), listed
// only if it wins.
// TestGraphGenAlgMatchesPlain and TestGraphGenAlgByCountsMatchesPlain check it
// against the definition (the former code, kept in the test) on thousands of random
// free sets.
type graphGenAlg struct {
	g  *topo.Graph
	st *State
	hk *topo.HopKeys

	free             []int
	grpOff, grpHosts []int32 // free hosts by (key, Off): group 2*key+Off, ascending
	ancOff, ancHosts []int32 // free hosts by anchor, ascending
	keys             []int32 // keys with a free host, ascending
	kaOff, kaList    []int32 // anchors with a free host, by key
	fill             []int32

	// Per key X: the (key, Off) groups of other keys by bucket (distance from X + 1,
	// 0: unreachable): srcGrp[srcOff[b]:srcOff[b+1]], and their host counts.
	srcOff, srcGrp []int32
	srcB           []int32  // scratch: (group, bucket) pairs
	cuts           []int32  // per anchor of the key: its cutoff bucket and how many hosts of it
	dist           []int32  // the keys' distances from the key at hand (Rows)
	marked         []uint32 // key -> mark when it is near the key at hand (or is it)
	mark           uint32
	total0, total1 int64   // free hosts with Off 0, 1
	cnt            []int64 // hosts per bucket, other keys

	stamp []uint32 // host -> gen when in the set being scored
	gen   uint32
	set   []int
	heap  []mergeHead
	srcs  []mergeSrc

	best       []int
	bestScore  int64
	bestCenter int

	// A dragonfly's routers scored from counts (genalg_graph_df.go): dfCounts when
	// every host hangs on its router, the keys being the routers.
	dfCounts    bool
	bestKey     int32
	kStamp      []uint32 // key -> kGen when counted in rKeys, at kAt
	kGen        uint32
	kAt         []int32
	rKeys, rCnt []int32
	rKeysB      []int32 // the routers at the cutoff distance, by bucket of keys
	bOff        []int32 // their buckets' offsets in rKeysB
	keyRuns     bool    // the hosts of every key are consecutive, the keys ascending
	// The free hosts' per-group tables (topo.DragonflyFree) of this decision,
	// built for its first candidate that is scored from counts (dfFreeOK).
	dfFree      *topo.DragonflyFree
	dfFreeOK    bool
	fKeys, fCnt []int32
	dfNear      *topo.DragonflyNear // the routers near a router, ring by ring
	// decideRouters's routers skipped by the bound, skipped by it raised past
	// the first ring, walked to distance 1 only and to 2, since the allocator was
	// made (read by the tests).
	dfSkipped, dfSkipped1, dfRing1, dfRing2 int

	// A key's candidate scored from counts (classCount): every host pendant, the
	// hosts of every key consecutive and the keys ascending (keyRuns), a key table.
	classCounts bool
	listing     bool    // decideKey lists (and scores) a class job, not from counts
	bestLazy    bool    // the best is key bestKey's class job, scored from counts: not listed yet
	pairAnc     []int64 // per key: pairs of free hosts on one of its anchors
	cKeys       []int32 // a class job's keys and their hosts (classCount)
	cCnt        []int64
	cGrp        []int32  // the groups of its cutoff bucket
	aStamp      []uint32 // anchor -> aGen when counted in aCnt
	aCnt        []int32
	aGen        uint32

	ftRank  []int32 // a fat tree's free hosts before each leaf (decideFatTree)
	ftPairs []int64 // its prefix sums of C(free, 2) per group of each level
}

func newGraphGenAlg(g *topo.Graph) *graphGenAlg {
	return &graphGenAlg{g: g, st: NewState(g.N())}
}

func (a *graphGenAlg) Name() string              { return "genalg" }
func (a *graphGenAlg) Machine() topo.Machine     { return a.g }
func (a *graphGenAlg) NumFree() int              { return a.st.NumFree() }
func (a *graphGenAlg) Release(nodes []int) error { return a.st.Release(nodes) }

// Occupy marks the nodes busy (Occupier), all or nothing: every decision reads
// the free hosts from the state (its groups and counts are listed anew each
// decision).
func (a *graphGenAlg) Occupy(nodes []int) error {
	if err := a.st.Take(nodes); err != nil {
		return fmt.Errorf("genalg: %w", err)
	}
	return nil
}

// OccupyFreeIn marks busy the free hosts of set (a bitmap of the hosts), writes
// them to taken and returns their number (BulkOccupier: a Mask's hold of a
// partition's outside): the state alone, as Occupy.
func (a *graphGenAlg) OccupyFreeIn(set, taken []uint64) int { return a.st.TakeFreeIn(set, taken) }

// ReleaseIn frees every host of set (BulkOccupier), all or nothing.
func (a *graphGenAlg) ReleaseIn(set []uint64) error {
	if err := a.st.ReleaseIn(set); err != nil {
		return fmt.Errorf("genalg: %w", err)
	}
	return nil
}

// IsFree reports whether host v is free (Occupier).
func (a *graphGenAlg) IsFree(v int) bool { return a.st.IsFree(v) }

// AppendFreeIn appends the free hosts of the bitmap set (Mask's free-list path; Mask takes
// OccupyFreeIn, the bitmap path, first).
func (a *graphGenAlg) AppendFreeIn(dst []int, set []uint64) []int { return a.st.AppendFreeIn(dst, set) }

func (a *graphGenAlg) Allocate(k int) ([]int, error) {
	return a.AllocateContext(context.Background(), k)
}

// genalgCtxWork is how much work (hosts listed or scored, keys looked at) a decision
// does between looks at its context: well under a millisecond (a variable: tests
// look at every step).
var genalgCtxWork = 1 << 16

// AllocateContext is Allocate that stops when ctx ends (ContextAllocator), with the
// state unchanged: ctx is asked before each batch of distance rows and every
// genalgCtxWork hosts or keys of work after (on a built fat tree, before and after,
// and every genalgCtxWork groups: the whole decision takes about a millisecond at
// 2 x 10^5 hosts): at 2 x 10^5 hosts 0.1-4.4 ms apart on average
// (BenchmarkGenAlgNetworkDecision's looks), at most one candidate's listing and
// score.
func (a *graphGenAlg) AllocateContext(ctx context.Context, k int) ([]int, error) {
	if err := a.st.CheckRequest(k); err != nil {
		return nil, err
	}
	if k == a.st.NumFree() {
		// Every center's first k are all the free hosts.
		if err := context.Cause(ctx); err != nil {
			return nil, err
		}
		nodes := a.st.AppendFree(nil)
		if err := a.st.Take(nodes); err != nil {
			return nil, err
		}
		return nodes, nil
	}
	if span := a.g.FatTreeSpans(); span != nil && span[len(span)-1] == a.g.N() {
		if err := context.Cause(ctx); err != nil {
			return nil, err
		}
		return a.decideFatTree(ctx, k, span)
	}
	if a.hk == nil {
		hk, err := a.g.HopKeys(ctx)
		if err != nil {
			return nil, fmt.Errorf("genalg: %w", err)
		}
		a.hk = hk
		a.stamp = make([]uint32, a.g.N())
		a.dfCounts = hk.NumAnchors == hk.NumKeys
		for _, o := range hk.Off {
			a.dfCounts = a.dfCounts && o == 1
		}
		a.kStamp, a.kAt = make([]uint32, hk.NumKeys), make([]int32, hk.NumKeys)
		a.keyRuns = true
		for v := 1; v < len(hk.Key); v++ {
			a.keyRuns = a.keyRuns && (hk.Key[v] == hk.Key[v-1] || hk.Key[v] == hk.Key[v-1]+1)
		}
		_, table := hk.KeyDist(0, 0)
		a.classCounts = a.keyRuns && table && !a.dfCounts
		for _, o := range hk.Off {
			a.classCounts = a.classCounts && o == 1
		}
		if a.classCounts {
			a.aStamp, a.aCnt = make([]uint32, hk.NumAnchors), make([]int32, hk.NumAnchors)
		}
	}
	if err := context.Cause(ctx); err != nil {
		return nil, err
	}
	a.group()
	a.bestScore, a.bestCenter, a.bestKey, a.bestLazy = 0, -1, -1, false
	a.dfFreeOK = false
	work := 0
	poll := func(w int) error {
		if work += w; work >= genalgCtxWork {
			work = 0
			return context.Cause(ctx)
		}
		return nil
	}
	var stop error
	var short bool
	var err error
	if a.dfCounts && a.dfNear == nil {
		a.dfNear = a.hk.DragonflyNear()
	}
	if a.dfCounts && a.dfNear != nil {
		short, err = true, a.decideRouters(ctx, k, poll)
	} else {
		short, err = a.hk.Near(ctx, a.keys, func(i int, near, dist []int32, far int32) {
			if stop == nil {
				stop = a.decideKey(a.keys[i], near, dist, far, k, poll)
			}
		})
	}
	if short && err == nil && stop == nil && a.dfCounts {
		stop = a.listRouter(ctx, a.bestKey, k)
	}
	if !short && err == nil {
		err = a.hk.Rows(ctx, a.keys, func(i int, row []int32) {
			if stop == nil {
				a.dist = a.dist[:0]
				for _, y := range a.keys {
					a.dist = append(a.dist, row[y])
				}
				stop = a.decideKey(a.keys[i], a.keys, a.dist, -1, k, poll)
			}
		})
	}
	if err == nil && stop == nil && a.bestLazy {
		// The best is a key's class job scored from counts: list it, from the
		// same distances.
		x := a.bestKey
		a.listing, a.bestCenter = true, -1
		if short {
			_, err = a.hk.Near(ctx, []int32{x}, func(_ int, near, dist []int32, far int32) {
				stop = a.decideKey(x, near, dist, far, k, poll)
			})
		} else {
			err = a.hk.Rows(ctx, []int32{x}, func(_ int, row []int32) {
				a.dist = a.dist[:0]
				for _, y := range a.keys {
					a.dist = append(a.dist, row[y])
				}
				stop = a.decideKey(x, a.keys, a.dist, -1, k, poll)
			})
		}
		a.listing = false
	}
	if err == nil {
		err = stop
	}
	if err != nil {
		return nil, err
	}
	nodes := slices.Clone(a.best)
	slices.Sort(nodes)
	if err := a.st.Take(nodes); err != nil {
		return nil, err
	}
	return nodes, nil
}

// group lists the free hosts by (key, Off) and by anchor, and the anchors by key
// (counting sorts: the lists stay in index order).
func (a *graphGenAlg) group() {
	hk := a.hk
	a.free = a.st.AppendFree(a.free[:0])
	a.grpOff = resizeZero(a.grpOff, 2*hk.NumKeys+1)
	a.ancOff = resizeZero(a.ancOff, hk.NumAnchors+1)
	for _, v := range a.free {
		a.grpOff[2*hk.Key[v]+int32(hk.Off[v])+1]++
		a.ancOff[hk.Anchor[v]+1]++
	}
	for i := range 2 * hk.NumKeys {
		a.grpOff[i+1] += a.grpOff[i]
	}
	for i := range hk.NumAnchors {
		a.ancOff[i+1] += a.ancOff[i]
	}
	a.grpHosts = slices.Grow(a.grpHosts[:0], len(a.free))[:len(a.free)]
	a.ancHosts = slices.Grow(a.ancHosts[:0], len(a.free))[:len(a.free)]
	a.fill = append(append(a.fill[:0], a.grpOff[:2*hk.NumKeys]...), a.ancOff[:hk.NumAnchors]...)
	gf, af := a.fill[:2*hk.NumKeys], a.fill[2*hk.NumKeys:]
	for _, v := range a.free {
		g := 2*hk.Key[v] + int32(hk.Off[v])
		a.grpHosts[gf[g]] = int32(v)
		gf[g]++
		an := hk.Anchor[v]
		a.ancHosts[af[an]] = int32(v)
		af[an]++
	}
	a.total0, a.total1 = 0, 0
	if len(a.marked) != hk.NumKeys {
		a.marked, a.mark = make([]uint32, hk.NumKeys), 0
	}
	a.keys = a.keys[:0]
	for x := range int32(hk.NumKeys) {
		a.total0 += int64(a.grpOff[2*x+1] - a.grpOff[2*x])
		a.total1 += int64(a.grpOff[2*x+2] - a.grpOff[2*x+1])
		if a.grpOff[2*x+2] > a.grpOff[2*x] {
			a.keys = append(a.keys, x)
		}
	}
	if a.classCounts {
		a.pairAnc = slices.Grow(a.pairAnc[:0], hk.NumKeys)[:hk.NumKeys]
		clear(a.pairAnc)
		for an := range hk.NumAnchors {
			c := int64(a.ancOff[an+1] - a.ancOff[an])
			a.pairAnc[hk.AnchorKey[an]] += c * (c - 1) / 2
		}
	}
	a.kaOff = resizeZero(a.kaOff, hk.NumKeys+1)
	for an := range hk.NumAnchors {
		if a.ancOff[an+1] > a.ancOff[an] {
			a.kaOff[hk.AnchorKey[an]+1]++
		}
	}
	for i := range hk.NumKeys {
		a.kaOff[i+1] += a.kaOff[i]
	}
	a.kaList = slices.Grow(a.kaList[:0], int(a.kaOff[hk.NumKeys]))[:a.kaOff[hk.NumKeys]]
	a.fill = append(a.fill[:0], a.kaOff[:hk.NumKeys]...)
	for an := range int32(hk.NumAnchors) {
		if a.ancOff[an+1] > a.ancOff[an] {
			x := hk.AnchorKey[an]
			a.kaList[a.fill[x]] = an
			a.fill[x]++
		}
	}
}

// grp returns the free hosts of group (key, Off) gi.
func (a *graphGenAlg) grp(gi int32) []int32 { return a.grpHosts[a.grpOff[gi]:a.grpOff[gi+1]] }

// decideKey makes the candidates of the anchors of key x, whose distances to the
// keys near are dist, every other key being at distance far (-1: none other).
func (a *graphGenAlg) decideKey(x int32, near, dist []int32, far int32, k int, poll func(int) error) error {
	if err := poll(len(near)); err != nil {
		return err
	}
	a.mark++
	if a.mark == 0 {
		clear(a.marked)
		a.mark = 1
	}
	a.marked[x] = a.mark
	// The other keys' hosts by bucket (distance + 1, 0 unreachable; Off adds 1).
	a.cnt = append(a.cnt[:0], 0, 0, 0, 0, 0) // x's own hosts are in buckets 1..4
	bucket := func(d int32, c0, c1 int64) {
		if d < 0 {
			a.cnt[0] += c0 + c1
			return
		}
		for int(d)+2 >= len(a.cnt) {
			a.cnt = append(a.cnt, 0)
		}
		a.cnt[d+1] += c0
		a.cnt[d+2] += c1
	}
	far0 := a.total0 - int64(a.grpOff[2*x+1]-a.grpOff[2*x])
	far1 := a.total1 - int64(a.grpOff[2*x+2]-a.grpOff[2*x+1])
	for j, y := range near {
		if y == x {
			continue
		}
		a.marked[y] = a.mark
		c0 := int64(a.grpOff[2*y+1] - a.grpOff[2*y])
		c1 := int64(a.grpOff[2*y+2] - a.grpOff[2*y+1])
		far0, far1 = far0-c0, far1-c1
		bucket(dist[j], c0, c1)
	}
	if far >= 0 {
		bucket(far, far0, far1)
	}
	ownAll := int64(a.grpOff[2*x+2] - a.grpOff[2*x])
	var cum4 int64 // hosts in buckets 0..4, the same from every anchor of x
	for b := range 5 {
		cum4 += a.cnt[b]
	}
	anchors := a.kaList[a.kaOff[x]:a.kaOff[x+1]]
	own := func(an int32) [5]int64 { // x's hosts by bucket as seen from an
		var own [5]int64
		for _, v := range a.ancHosts[a.ancOff[an]:a.ancOff[an+1]] {
			own[1+a.hk.Off[v]]++
		}
		own[3] = int64(a.grpOff[2*x+1]-a.grpOff[2*x]) - own[1]
		own[4] = int64(a.grpOff[2*x+2]-a.grpOff[2*x+1]) - own[2]
		return own
	}
	classJob := cum4+ownAll < int64(k)
	// The cutoff of every anchor, and the other keys' (key, Off) groups in the
	// buckets up to the farthest cutoff, by bucket (srcGrp[srcOff[b]:srcOff[b+1]]).
	a.cuts = a.cuts[:0]
	bMax := 0
	for i, an := range anchors {
		if classJob && i > 0 {
			break
		}
		bStar, m := a.cutoff(k, own(an))
		a.cuts = append(a.cuts, int32(bStar), int32(m))
		bMax = max(bMax, bStar)
	}
	nb := bMax + 1
	a.srcOff = resizeZero(a.srcOff, nb+1)
	a.srcB = a.srcB[:0]
	list := func(y, d int32) {
		if d >= 0 && int(d)+1 > bMax {
			return
		}
		for o := range int32(2) {
			b := int32(0)
			if d >= 0 {
				b = d + o + 1
			}
			if int(b) > bMax || a.grpOff[2*y+o+1] == a.grpOff[2*y+o] {
				continue
			}
			a.srcB = append(a.srcB, 2*y+o, b)
			a.srcOff[b+1]++
		}
	}
	for j, y := range near {
		if y != x {
			list(y, dist[j])
		}
	}
	if far >= 0 && (far0 > 0 && int(far)+1 <= bMax || far1 > 0 && int(far)+2 <= bMax) {
		for _, y := range a.keys {
			if a.marked[y] != a.mark {
				list(y, far)
			}
		}
	}
	for b := range nb {
		a.srcOff[b+1] += a.srcOff[b]
	}
	a.srcGrp = slices.Grow(a.srcGrp[:0], len(a.srcB)/2)[:len(a.srcB)/2]
	a.fill = append(a.fill[:0], a.srcOff[:nb]...)
	for i := 0; i < len(a.srcB); i += 2 {
		gi, b := a.srcB[i], a.srcB[i+1]
		a.srcGrp[a.fill[b]] = gi
		a.fill[b]++
	}
	if classJob && a.classCounts && !a.listing {
		// The same job scored from its counts per key and anchor, listed only if
		// it wins (bestLazy).
		s, w, ok := a.classCount(x, int(a.cuts[0]), int(a.cuts[1]), k)
		if err := poll(w); err != nil {
			return err
		}
		if ok {
			if center := int(a.grp(2*x + 1)[0]); a.better(s, center) {
				a.bestScore, a.bestCenter, a.bestKey, a.bestLazy = s, center, x, true
			}
			return nil
		}
	}
	if classJob {
		// The first k of every anchor's list hold all of x's hosts: one job for the
		// key, all its centers in it, the smallest first.
		if err := poll(k + len(a.srcGrp)); err != nil {
			return err
		}
		a.materialize(x, anchors[0], int(a.cuts[0]), int(a.cuts[1]))
		center := int32(-1)
		for o := range int32(2) {
			if g := a.grp(2*x + o); len(g) > 0 && (center < 0 || g[0] < center) {
				center = g[0]
			}
		}
		a.candidate(a.score(a.set), int(center), a.set)
		return nil
	}
	for i, an := range anchors {
		hosts := a.ancHosts[a.ancOff[an]:a.ancOff[an+1]]
		bStar, m := int(a.cuts[2*i]), int(a.cuts[2*i+1])
		if err := poll(k + int(a.srcOff[bStar+1])); err != nil {
			return err
		}
		last := a.materialize(x, an, bStar, m)
		score := a.score(a.set)
		cIn, cOut := -1, -1
		for _, v := range hosts {
			if a.stamp[v] == a.gen {
				if cIn < 0 {
					cIn = int(v)
				}
			} else if cOut < 0 {
				cOut = int(v)
			}
		}
		if cIn >= 0 {
			a.candidate(score, cIn, a.set)
		}
		if cOut < 0 {
			continue
		}
		if bStar == 0 {
			// At least k hosts A cannot reach: they come first in every list.
			a.candidate(score, cOut, a.set)
			continue
		}
		// c and the first k-1 of A's list: the set without its last (the largest
		// index of the cutoff bucket) and with c.
		var dLast, dC int64
		for _, v := range a.set {
			if v != last {
				dLast += int64(a.g.Dist(last, v))
				dC += int64(a.g.Dist(cOut, v))
			}
		}
		if s := score - dLast + dC; a.better(s, cOut) {
			i := slices.Index(a.set, last)
			a.set[i] = cOut
			a.candidate(s, cOut, a.set)
		}
	}
	return nil
}

// cutoff returns the bucket the k-th host of the list falls in and how many of its
// hosts the first k take, the other keys' hosts per bucket being a.cnt and x's own.
func (a *graphGenAlg) cutoff(k int, own [5]int64) (int, int) {
	var cum int64
	for b := range a.cnt {
		c := a.cnt[b]
		if b < 5 {
			c += own[b]
		}
		if cum+c >= int64(k) {
			return b, int(int64(k) - cum)
		}
		cum += c
	}
	panic("genalg: fewer free hosts than the request") // CheckRequest prevents it
}

// mergeSrc is a sorted list of free hosts, less those on anchor skip (-1 none) and
// those whose Off is not off (-1 any).
type mergeSrc struct {
	list []int32
	skip int32
	off  int8
}

type mergeHead struct {
	v   int32
	src int32
	pos int32
}

// next returns the position of the first host at or after i that s keeps.
func (a *graphGenAlg) next(s *mergeSrc, i int) int {
	for i < len(s.list) {
		v := s.list[i]
		if (s.skip < 0 || a.hk.Anchor[v] != s.skip) && (s.off < 0 || int8(a.hk.Off[v]) == s.off) {
			return i
		}
		i++
	}
	return i
}

// sources lists bucket b's sorted lists as seen from anchor an of key x.
func (a *graphGenAlg) sources(x, an int32, b int) []mergeSrc {
	srcs := a.srcs[:0]
	if b < len(a.srcOff)-1 {
		for _, gi := range a.srcGrp[a.srcOff[b]:a.srcOff[b+1]] {
			srcs = append(srcs, mergeSrc{list: a.grp(gi), skip: -1, off: -1})
		}
	}
	anc := a.ancHosts[a.ancOff[an]:a.ancOff[an+1]]
	switch b {
	case 1, 2: // on an, Off 0 or 1
		srcs = append(srcs, mergeSrc{list: anc, skip: -1, off: int8(b - 1)})
	case 3, 4: // on x's other anchors (twins: 2 hops), Off 0 or 1
		srcs = append(srcs, mergeSrc{list: a.grp(2*x + int32(b-3)), skip: an, off: -1})
	}
	a.srcs = srcs
	return srcs
}

// materialize sets a.set to the first k of anchor an's list: every host of buckets
// below bStar and the m smallest of bucket bStar (stamped with a new a.gen), and
// returns the last of those m.
func (a *graphGenAlg) materialize(x, an int32, bStar, m int) int {
	a.gen++
	if a.gen == 0 {
		clear(a.stamp)
		a.gen = 1
	}
	set := a.set[:0]
	for b := range bStar {
		for _, s := range a.sources(x, an, b) {
			for i := a.next(&s, 0); i < len(s.list); i = a.next(&s, i+1) {
				set = append(set, int(s.list[i]))
			}
		}
	}
	srcs := a.sources(x, an, bStar)
	h := a.heap[:0]
	for si := range srcs {
		if i := a.next(&srcs[si], 0); i < len(srcs[si].list) {
			h = append(h, mergeHead{srcs[si].list[i], int32(si), int32(i)})
		}
	}
	heapInit(h)
	last := -1
	for range m {
		top := h[0]
		last = int(top.v)
		set = append(set, last)
		s := &srcs[top.src]
		if i := a.next(s, int(top.pos)+1); i < len(s.list) {
			h[0] = mergeHead{s.list[i], top.src, int32(i)}
		} else {
			h[0] = h[len(h)-1]
			h = h[:len(h)-1]
		}
		heapDown(h, 0)
	}
	a.heap = h
	for _, v := range set {
		a.stamp[v] = a.gen
	}
	a.set = set
	return last
}

// score is the total pairwise hop distance of set (PairDistSum, or the sum of Dist
// when some pair is not connected, each such pair counting -1).
func (a *graphGenAlg) score(set []int) int64 {
	if s, ok := a.g.PairDistSum(set); ok {
		return s
	}
	var s int64
	for i, u := range set {
		for _, v := range set[i+1:] {
			s += int64(a.g.Dist(u, v))
		}
	}
	return s
}

// better reports whether (score, center) beats the best so far: a lower score, or
// the same from a smaller center.
func (a *graphGenAlg) better(score int64, center int) bool {
	return a.bestCenter < 0 || score < a.bestScore || score == a.bestScore && center < a.bestCenter
}

func (a *graphGenAlg) candidate(score int64, center int, set []int) {
	if a.better(score, center) {
		a.bestScore, a.bestCenter, a.bestLazy = score, center, false
		a.best = append(a.best[:0], set...)
	}
}

// classCount scores key x's class job (every host of x, of the other keys' groups
// in the buckets below bStar and the m smallest of bucket bStar's) from counts, on
// a network of pendant hosts whose keys hold consecutive hosts in key order
// (classCounts): bucket bStar's groups, one per key, taken whole by key (their
// hosts in index order) and the last one's first hosts. For distinct hosts
// Dist = 1 + 1 + D, so the job's total is k(k-1) + 2 x (pairs of one key on
// different anchors) + the sum over pairs of keys of their hosts' product times
// the keys' distance (HopKeys.KeyDist): O(keys of the job^2 + the last group),
// against listing and scoring k hosts. It returns the score, the work done, and
// false when it does not apply (hosts out of reach, or more keys than listing
// would cost).
func (a *graphGenAlg) classCount(x int32, bStar, m, k int) (int64, int, bool) {
	c2 := func(c int64) int64 { return c * (c - 1) / 2 }
	keys, cnt := a.cKeys[:0], a.cCnt[:0]
	own := int64(len(a.grp(2*x + 1)))
	keys, cnt = append(keys, x), append(cnt, own)
	twins := c2(own) - a.pairAnc[x]
	if a.srcOff[1] > 0 {
		return 0, 1, false // hosts x cannot reach (bucket 0)
	}
	for b := 1; b < bStar; b++ {
		for _, gi := range a.srcGrp[a.srcOff[b]:a.srcOff[b+1]] {
			c := int64(a.grpOff[gi+1] - a.grpOff[gi])
			keys, cnt = append(keys, gi/2), append(cnt, c)
			twins += c2(c) - a.pairAnc[gi/2]
		}
	}
	grps := append(a.cGrp[:0], a.srcGrp[a.srcOff[bStar]:a.srcOff[bStar+1]]...)
	slices.Sort(grps) // by key: by host
	a.cGrp = grps
	work := len(keys) + len(grps)
	for _, gi := range grps {
		g := a.grp(gi)
		if len(g) < m {
			keys, cnt = append(keys, gi/2), append(cnt, int64(len(g)))
			twins += c2(int64(len(g))) - a.pairAnc[gi/2]
			m -= len(g)
			continue
		}
		// The group's first m hosts: each pairs with those before it but the
		// ones on its anchor.
		keys, cnt = append(keys, gi/2), append(cnt, int64(m))
		work += m
		a.aGen++
		if a.aGen == 0 {
			clear(a.aStamp)
			a.aGen = 1
		}
		for i, v := range g[:m] {
			an := a.hk.Anchor[v]
			if a.aStamp[an] != a.aGen {
				a.aStamp[an], a.aCnt[an] = a.aGen, 0
			}
			twins += int64(i) - int64(a.aCnt[an])
			a.aCnt[an]++
		}
		break
	}
	a.cKeys, a.cCnt = keys, cnt
	if len(keys)*len(keys) > 4*k {
		return 0, work, false
	}
	work += len(keys) * len(keys) / 2
	var cross int64
	for i, u := range keys {
		for j := i + 1; j < len(keys); j++ {
			d, _ := a.hk.KeyDist(u, keys[j])
			if d < 0 {
				return 0, work, false
			}
			cross += cnt[i] * cnt[j] * int64(d)
		}
	}
	return int64(k)*int64(k-1) + 2*twins + cross, work, true
}

// resizeZero returns b with length n, zeroed, reusing its array when it can.
func resizeZero(b []int32, n int) []int32 {
	b = slices.Grow(b[:0], n)[:n]
	clear(b)
	return b
}
