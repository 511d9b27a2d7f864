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
	keyBits     greedyKeyBits // greedyCollectMesh's packing of its selection key
	cand        []int         // candidates beyond the inner shells
	set         []int         // the set collected
	sums        []int         // candidates' total L1 distance to the set
	hist        []int         // l1Sums
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
	set := a.set[:0]
	cand := a.cand[:0]
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
	a.cand = cand
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
	a.set = set
	return score, set
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
	set := a.set[:0]
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
	a.set = set
	return score, set
}
