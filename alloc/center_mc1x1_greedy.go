package alloc

import (
	"cmp"
	"math"
	"math/bits"
	"slices"

	"github.com/procalloc/procalloc/topo"
)

// greedyScratch is the scratch space of the greedy collector (mc1x1-greedy).
type greedyScratch struct {
	keyBits     greedyKeyBits // the packing of the fast collectors' selection key
	cand        []int         // candidates beyond the inner shells
	set         []int         // the set collected
	sums        []int         // candidates' total L1 distance to the set
	hist        []int         // l1Sums
	keys        []int64
	heap        []int32 // greedyCollectShells: candidates by their last computed key
	candXY      []int32 // greedyCollectRings: candidates' coordinates
	greedyCands []greedyCand
	ring        []int
	half        []int32    // axisHalf
	within      [2][]int32 // greedyCollectRings: coordinates per axis inside shell L
	ringAxes    [4][]int32 // ringNodesWrap2D's coordinate lists
	shellLists  [][]int32  // shellNodes' coordinate lists
	shellAxes   [][]int32
	heapStack   []int32     // greedyCollectShells: the tie group's search of the heap
	shift       greedyShift // translated runs (center_mc1x1_greedy_shift.go)
}

// greedyCand is a center of the greedy collector with its count-based lower bound.
type greedyCand struct {
	lower   int
	i, L, m int32
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
	// runs translated between centers (center_mc1x1_greedy_shift.go): on the fast
	// collectors' paths
	shift := a.keyBits.ok && !a.shift.off
	a.resetShift()
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
		c, L, m := a.fl[i], int(cd.L), int(cd.m)
		var score int
		var set []int
		run := (*greedyRun)(nil)
		if shift {
			run = a.shiftLookup(c, L, m)
		}
		if run != nil {
			score = run.score
			if score > stop {
				score = math.MaxInt // as greedyCollect gives up
			}
		} else {
			// recorded if its ball may stay all free; the collectors stop recording
			// when a shell read is not
			a.shift.recOn = shift && a.shiftRecordable(c, L)
			a.shift.recTies = a.shift.recTies[:0]
			score, set = a.greedyCollect(c, L, m, stop)
			if a.shift.recOn && score != math.MaxInt {
				a.shiftKeep(c, L, m, score, set)
			}
			a.shift.recOn = false
		}
		hash := func() uint64 {
			if run != nil {
				return a.shiftHash(run, c)
			}
			return a.setHash(set)
		}
		keep := func() {
			if run != nil {
				bestSet = a.shiftSet(run, c, bestSet[:0])
				return
			}
			bestSet = append(bestSet[:0], set...)
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
	if a.keyBits.ok {
		if a.x.d == 2 {
			return a.greedyCollectRings(c, L, m, stop)
		}
		return a.greedyCollectShells(c, L, m, stop)
	}
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

// greedyCollectRings is greedyCollect on a 2D mesh or torus, with the same result.
// Each candidate's selection key (total L1 distance to the nodes taken, then L1
// distance to c, then free-list position) is one packed integer (keyBits), so that a
// round updates the keys by the node just taken and finds the next smallest in one
// pass; it stops early, returning math.MaxInt, when the score must exceed stop (every
// node still to take adds at least L). It looks only at the candidates that can
// still be taken: it reads the free nodes ring by ring
// (L-infinity shells L, L+1, ... around c, around the ring on a torus axis) and
// stops reading when no node further out can have a smaller selection key than the
// best one read. A node v at L-infinity distance D from c is at L1 (indeed
// L-infinity) distance at least D - (L-1) from each of the s inner nodes and at least
// 1 from each of the r nodes taken so far, and at L1 distance at least D from c, so
// its key is at least (s(D-L+1)+r, D, 0). The bounds are those of the torus's own
// (wrapped) distances there, so the same argument holds.
func (a *mc1x1) greedyCollectRings(c, L, m, stop int) (int, []int) {
	x := a.x
	co := x.coord
	X, Y := x.dims[0], x.dims[1]
	wx, wy := x.wrap[0], x.wrap[1]
	cx, cy := int(co[2*c]), int(co[2*c+1])
	half := a.axisHalf()
	hx, hy := int32(half[0]), int32(half[1])
	adx := func(u, w int32) int32 { // distance along x (around the ring on a torus)
		t := abs32(u - w)
		if wx && t > hx {
			t = int32(X) - t
		}
		return t
	}
	ady := func(u, w int32) int32 {
		t := abs32(u - w)
		if wy && t > hy {
			t = int32(Y) - t
		}
		return t
	}
	set := a.set[:0]
	score := 0
	// The inner nodes: the coordinates within L-1 of c on each axis.
	a.within[0] = axisWithin(a.within[0][:0], cx, L-1, X, wx)
	a.within[1] = axisWithin(a.within[1][:0], cy, L-1, Y, wy)
	for _, yy := range a.within[1] {
		dy := ady(yy, int32(cy))
		for _, xx := range a.within[0] {
			if v := int(xx) + int(yy)*X; a.st.IsFree(v) {
				set = append(set, v)
				score += int(max(adx(xx, int32(cx)), dy))
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
	axisSum := func(num, tot []int, side, v int, wrap bool) int {
		if wrap {
			return ringAxisSum(num, tot, side, v)
		}
		b, sb := num[v], tot[v]
		return v*b - sb + (tot[side] - sb) - v*(s-b)
	}
	kb := a.keyBits
	picked := set[s:] // grows as set does
	// candidates: their coordinates (x, y pairs, read straight in the update pass)
	// and keys
	xy, keys := a.candXY[:0], a.keys[:0]
	add := func(v int) {
		vx, vy := int(co[2*v]), int(co[2*v+1])
		sum := axisSum(numX, totX, X, vx, wx) + axisSum(numY, totY, Y, vy, wy)
		for _, p := range picked {
			sum += int(adx(int32(vx), co[2*p]) + ady(int32(vy), co[2*p+1]))
		}
		l1 := int(adx(int32(vx), int32(cx)) + ady(int32(vy), int32(cy)))
		xy = append(xy, int32(vx), int32(vy))
		keys = append(keys, int64(sum)<<kb.sumShift|int64(l1)<<kb.posBits|int64(a.pos[v]))
	}
	maxR := max(axisReach(cx, X, wx), axisReach(cy, Y, wy))
	R := L - 1 // rings read so far
	readRing := func() {
		R++
		if a.shift.recOn && !a.shiftFits(c, R) {
			a.shift.recOn = false // the run cannot be kept (greedyShift)
		}
		a.ring = a.ringNodesWrap2D(cx, cy, R, a.ring[:0])
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
		if a.shift.recOn {
			// the tie group of the node taken: the candidates with the same distance
			// sum and L1 distance (greedyShift)
			hi := keys[b] >> kb.posBits
			others := a.shift.tmpOffset[:0]
			for j, k := range keys {
				if k>>kb.posBits == hi && j != b {
					others = append(others, xy[2*j], xy[2*j+1])
				}
			}
			a.shift.tmpOffset = others
			if len(others) > 0 {
				a.recordTie(co[2*c:2*c+2], xy[2*b:2*b+2], others)
			}
		}
		px, py := xy[2*b], xy[2*b+1]
		last := len(keys) - 1
		xy[2*b], xy[2*b+1], keys[b] = xy[2*last], xy[2*last+1], keys[last]
		xy, keys = xy[:2*last], keys[:last]
		set = append(set, int(px)+int(py)*X)
		picked = set[s:]
		score += int(max(adx(px, int32(cx)), ady(py, int32(cy))))
		// keys updated by the node taken, and the next smallest found, in one pass
		b = -1
		best := int64(math.MaxInt64)
		if wx || wy {
			for j := range keys {
				k := keys[j] + int64(adx(xy[2*j], px)+ady(xy[2*j+1], py))<<kb.sumShift
				keys[j] = k
				if k < best {
					best, b = k, j
				}
			}
			continue
		}
		for j := range keys {
			k := keys[j] + int64(abs32(xy[2*j]-px)+abs32(xy[2*j+1]-py))<<kb.sumShift
			keys[j] = k
			if k < best {
				best, b = k, j
			}
		}
	}
	a.candXY, a.keys = xy, keys
	a.set = set
	a.shift.recR = R
	return score, set
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

// ringNodesWrap2D appends the free nodes at L-infinity distance exactly r from
// (cx, cy) on a 2D mesh or torus: those r away along x and at most r along y, and
// those less than r along x and r along y.
func (a *mc1x1) ringNodesWrap2D(cx, cy, r int, dst []int) []int {
	x := a.x
	X, Y := x.dims[0], x.dims[1]
	if !x.anyWrap {
		return a.ringNodes2D(cx, cy, r, dst)
	}
	wx, wy := x.wrap[0], x.wrap[1]
	ax := &a.ringAxes
	xr := axisAt(ax[0][:0], cx, r, X, wx)
	yle := axisWithin(ax[1][:0], cy, r, Y, wy)
	ax[0], ax[1] = xr, yle
	for _, xx := range xr {
		for _, yy := range yle {
			if v := int(xx) + int(yy)*X; a.st.IsFree(v) {
				dst = append(dst, v)
			}
		}
	}
	if r == 0 {
		return dst
	}
	yr := axisAt(ax[2][:0], cy, r, Y, wy)
	xlt := axisWithin(ax[3][:0], cx, r-1, X, wx)
	ax[2], ax[3] = yr, xlt
	for _, yy := range yr {
		for _, xx := range xlt {
			if v := int(xx) + int(yy)*X; a.st.IsFree(v) {
				dst = append(dst, v)
			}
		}
	}
	return dst
}

// greedyCollectShells is greedyCollectRings in any dimension (1D, 3D and up, mesh
// or torus): the inner nodes are read from the box of radius L-1 around c, the
// candidates shell by shell (L-infinity distance L, L+1, ...), and reading stops by
// the same bound: a node D away has a key of at least (s(D-L+1)+r, D, 0).
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
	set := a.set[:0]
	score := 0
	a.ring = a.greedyShell(cc, L-1, true, a.ring[:0])
	for _, v := range a.ring {
		set = append(set, v)
		dist := int32(0)
		for j, u := range co[v*d : v*d+d] {
			dist = max(dist, ad(j, u, cc[j]))
		}
		score += int(dist)
	}
	s := len(set)
	// per-axis prefix counts and coordinate sums of the inner nodes
	off := make([]int, d+1) // axis j's counts at hist[2*off[j]:], sides+1 each
	for j, side := range x.dims {
		off[j+1] = off[j] + side + 1
	}
	hist := a.hist[:0]
	for range 2 * off[d] {
		hist = append(hist, 0)
	}
	a.hist = hist
	num := func(j int) []int { return hist[2*off[j] : 2*off[j]+x.dims[j]+1] }
	tot := func(j int) []int { return hist[2*off[j]+x.dims[j]+1 : 2*off[j+1]] }
	for j, side := range x.dims {
		nj, tj := num(j), tot(j)
		for _, v := range set {
			u := int(co[v*d+j])
			nj[u+1]++
			tj[u+1] += u
		}
		for i := 1; i <= side; i++ {
			nj[i] += nj[i-1]
			tj[i] += tj[i-1]
		}
	}
	inner := make([]int, off[d]) // inner[off[j]+u]: total distance along axis j from coordinate u to the inner nodes
	for j, side := range x.dims {
		nj, tj := num(j), tot(j)
		for u := range side {
			if x.wrap[j] {
				inner[off[j]+u] = ringAxisSum(nj, tj, side, u)
			} else {
				b, sb := nj[u], tj[u]
				inner[off[j]+u] = u*b - sb + (tj[side] - sb) - u*(s-b)
			}
		}
	}
	// far[off[j]+t]: the least total distance along axis j to the inner nodes of a
	// coordinate t or more away from c's (suffix minima); least[j] over all
	// coordinates. A node D or more away from c in L-infinity is D or more away along
	// some axis j, so its total distance to the inner nodes is at least
	// min over j of far_j(D) + the sum of least over the other axes. The same bound
	// from the totals to the inner nodes and the nodes taken so far (axisKey below,
	// farK) counts the nodes taken by their distances along each axis instead of 1
	// each, so that fewer shells are read.
	cdist := make([]int32, off[d]) // cdist[off[j]+u]: coordinate u's distance from c's along axis j
	for j, side := range x.dims {
		for u := range side {
			cdist[off[j]+u] = ad(j, int32(u), cc[j])
		}
	}
	suffixMin := func(src, far, least []int) int {
		leastSum := 0
		for j, side := range x.dims {
			fj := far[off[j] : off[j]+side+1]
			for t := range fj {
				fj[t] = math.MaxInt
			}
			reach := 0
			for u := range side {
				t := cdist[off[j]+u]
				fj[t] = min(fj[t], src[off[j]+u])
				reach = max(reach, int(t))
			}
			for t := reach - 1; t >= 0; t-- {
				fj[t] = min(fj[t], fj[t+1])
			}
			least[j] = fj[0]
			leastSum += fj[0]
		}
		return leastSum
	}
	bound := func(far, least []int, leastSum, D int) int {
		lb := math.MaxInt
		for j := range d {
			if D < x.dims[j] && far[off[j]+D] != math.MaxInt {
				lb = min(lb, far[off[j]+D]-least[j])
			}
		}
		if lb == math.MaxInt {
			return lb
		}
		return leastSum + lb
	}
	far := make([]int, off[d])
	least := make([]int, d)
	leastSum := suffixMin(inner, far, least)
	farK := make([]int, off[d])
	leastK := make([]int, d)
	leastSumK, staleK := 0, true
	kb := a.keyBits
	// The total L1 distance is a sum over axes, so each axis keeps, per coordinate,
	// the total distance along it to the inner nodes and to the nodes taken so far
	// (axisKey), and a candidate's key is computed in O(d) at any time, not O(d) per
	// node taken; a node taken adds its distances along each axis to every
	// coordinate's total.
	axisKey := slices.Clone(inner)
	xy, keys := a.candXY[:0], a.keys[:0]
	add := func(v int) {
		cv := co[v*d : v*d+d]
		sum, l1 := 0, int32(0)
		for j, u := range cv {
			sum += axisKey[off[j]+int(u)]
			l1 += cdist[off[j]+int(u)]
		}
		xy = append(xy, cv...)
		keys = append(keys, int64(sum)<<kb.sumShift|int64(l1)<<kb.posBits|int64(a.pos[v]))
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
	// recomputed, not a pass over all of them.
	heap := a.heap[:0]
	lowMask := int64(1)<<kb.sumShift - 1
	current := func(i int32) int64 {
		sum := 0
		for j, u := range xy[int(i)*d : int(i)*d+d] {
			sum += axisKey[off[j]+int(u)]
		}
		return int64(sum)<<kb.sumShift | keys[i]&lowMask
	}
	down := func(h int) {
		n := len(heap)
		for {
			c := 2*h + 1
			if c >= n {
				return
			}
			if c+1 < n && keys[heap[c+1]] < keys[heap[c]] {
				c++
			}
			if keys[heap[h]] <= keys[heap[c]] {
				return
			}
			heap[h], heap[c] = heap[c], heap[h]
			h = c
		}
	}
	push := func(i int32) {
		heap = append(heap, i)
		for h := len(heap) - 1; h > 0; {
			p := (h - 1) / 2
			if keys[heap[p]] <= keys[heap[h]] {
				break
			}
			heap[h], heap[p] = heap[p], heap[h]
			h = p
		}
	}
	settle := func() int32 {
		for len(heap) > 0 {
			i := heap[0]
			k := current(i)
			if k == keys[i] {
				return i
			}
			keys[i] = k
			down(0)
		}
		return -1
	}
	b := int32(-1)
	pc := make([]int32, d)
	for r := 0; r < m; r++ {
		if score+(m-r)*L > stop {
			a.candXY, a.keys, a.heap = xy, keys, heap
			return math.MaxInt, nil
		}
		b = settle()
		for R < maxR {
			D := R + 1
			fb := bound(far, least, leastSum, D)
			if fb == math.MaxInt {
				R = maxR // no node is that far
				break
			}
			if staleK {
				leastSumK, staleK = suffixMin(axisKey, farK, leastK), false
			}
			lb := int64(max(max(s*(D-L+1), fb)+r, bound(farK, leastK, leastSumK, D)))<<kb.sumShift | int64(D)<<kb.posBits
			if b >= 0 && lb > keys[b] {
				break
			}
			R++
			if a.shift.recOn && !a.shiftFits(c, R) {
				a.shift.recOn = false // the run cannot be kept (greedyShift)
			}
			from := len(keys)
			a.ring = a.greedyShell(cc, R, false, a.ring[:0])
			for _, v := range a.ring {
				add(v)
			}
			for j := from; j < len(keys); j++ {
				push(int32(j))
			}
			b = settle()
		}
		if a.shift.recOn {
			// the tie group of the node taken (greedyShift): the candidates whose
			// current key has b's distance sum and L1 distance; a key kept in the
			// heap is at most the current one, so only the entries whose kept key
			// is that small, and their subtrees' roots, are looked at
			hi := keys[b] >> kb.posBits
			others := a.shift.tmpOffset[:0]
			stack := append(a.heapStack[:0], 1, 2)
			for len(stack) > 0 {
				h := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				if int(h) >= len(heap) || keys[heap[h]]>>kb.posBits > hi {
					continue
				}
				if i := heap[h]; current(i)>>kb.posBits == hi {
					others = append(others, xy[int(i)*d:int(i)*d+d]...)
				}
				stack = append(stack, 2*h+1, 2*h+2)
			}
			a.heapStack, a.shift.tmpOffset = stack, others
			if len(others) > 0 {
				a.recordTie(cc, xy[int(b)*d:int(b)*d+d], others)
			}
		}
		// b is the heap's top: take it.
		copy(pc, xy[int(b)*d:int(b)*d+d])
		last := len(heap) - 1
		heap[0] = heap[last]
		heap = heap[:last]
		down(0)
		v := 0
		for j := d - 1; j >= 0; j-- {
			v = v*x.dims[j] + int(pc[j])
		}
		set = append(set, v)
		dist := int32(0)
		for j, u := range pc {
			dist = max(dist, ad(j, u, cc[j]))
		}
		score += int(dist)
		for j, side := range x.dims {
			for t := range side {
				axisKey[off[j]+t] += int(ad(j, int32(t), pc[j]))
			}
		}
		staleK = true
	}
	a.candXY, a.keys, a.heap = xy, keys, heap
	a.set = set
	a.shift.recR = R
	return score, set
}

// greedyShell appends the free nodes at L-infinity distance exactly r from the
// coordinates cc (within r when ball), around the ring on torus axes: the shell is
// split by the first axis j at distance r (the axes before it less than r away, the
// axes after it at most r), so every node is met once.
func (a *mc1x1) greedyShell(cc []int32, r int, ball bool, dst []int) []int {
	x := a.x
	d := x.d
	lists := a.shellLists[:0]
	for range 2 * d {
		lists = append(lists, nil)
	}
	a.shellLists = lists
	within := func(j, rad int) []int32 {
		if rad < 0 {
			return nil
		}
		return axisWithin(lists[j][:0], int(cc[j]), rad, x.dims[j], x.wrap[j])
	}
	var visit func(j int, base int, stride int, axes [][]int32)
	visit = func(j, base, stride int, axes [][]int32) {
		if j == d {
			if a.st.IsFree(base) {
				dst = append(dst, base)
			}
			return
		}
		for _, u := range axes[j] {
			visit(j+1, base+int(u)*stride, stride*x.dims[j], axes)
		}
	}
	axes := a.shellAxes[:0]
	for range d {
		axes = append(axes, nil)
	}
	a.shellAxes = axes
	if ball {
		for j := range d {
			axes[j] = within(j, r)
			lists[j] = axes[j]
		}
		visit(0, 0, 1, axes)
		return dst
	}
	for j := range d {
		at := axisAt(lists[d+j][:0], int(cc[j]), r, x.dims[j], x.wrap[j])
		lists[d+j] = at
		if len(at) == 0 {
			continue
		}
		for i := range d {
			switch {
			case i < j:
				axes[i] = within(i, r-1)
			case i == j:
				axes[i] = at
			default:
				axes[i] = within(i, r)
			}
			if i != j {
				lists[i] = axes[i]
			}
		}
		// lists[i] holds axis i's list; those of i < j and i > j differ in radius,
		// so they are rebuilt for each j.
		visit(0, 0, 1, axes)
	}
	return dst
}
