package alloc

import (
	"math"
)

// The greedy collector on an empty torus (mc1x1-greedy, issue 34 item 5 and issue 32
// item 1): the runs of one center and their orbits instead of a lookup per center.
//
// On a torus with every node free, every center has the same shell L and count m,
// and in offsets from its center every center's run is the same process: the
// candidates' keys (total distance to the nodes taken, L1 distance to the center),
// the shells read, the bounds and the score depend on the offsets alone. Only a
// tie group (candidates sharing the least key) is broken by free-list position,
// which differs around each center. So the runs the centers make are among the
// runs of the first center with every member of every tie group tried in turn; if
// none of those scores less than the first center's own run, every center scores
// at least that, and the first center in free-list order wins (ties not counted).
//
// Most of those runs are images of each other: the symmetries of the offsets
// (shiftSyms: signed permutations of the ring axes of one side) carry the state
// (the nodes taken), the bounds, the tie groups and the score, so members of a
// group that a symmetry fixing the state carries onto each other start runs that
// are images; one member per orbit of the state's stabilizer is tried (the member
// taken is its orbit's). And a run that meets a state met before at a tie group,
// up to a symmetry, goes on as the first did from there (the next steps depend on
// the nodes taken alone): it stops. Each run tried is resumed at the step after its
// member with the stop best-1, so it gives up once it cannot score below the first
// center's. A run that scores less ends the check, as does a limit on the runs
// tried (orbitBudget); allocateGreedy then decides every center as before.
//
// Only while ties are not counted: the tie count needs the distinct node sets of
// all the tied centers (procalloc sim counts ties and does not take this path;
// procalloc bench and the Go benchmarks do). On an empty torus:48x48x48 the trees
// of runs (shiftLookup, shiftSweep) decided 110,592 centers one by one: 20 s of CPU
// for a 33,920-node job, a quarter of issue 32's replay there (docs/center-speed.md).

// greedyOrbitScratch is the orbit check's state.
type greedyOrbitScratch struct {
	on    bool     // greedyCollectShells calls orbitGroup at each tie group
	mark  []uint32 // per node (offsetKey) the generation that marked it taken
	gen   uint32
	cnt   []int    // per symmetry s, the nodes v taken with s(v) taken
	hs    []uint64 // per symmetry s, the sum of the labels of s(v), v taken
	picks []int32  // the run's nodes taken so far, as offsets
	done  []bool
	// the runs to try: per run (at workAt) its step, R, then its step nodes
	// taken, the member tried last
	work    []int32
	workAt  []int
	workHs  []uint64 // per run to try, hs and cnt before its member (nsym each)
	workCnt []int
	// the states met at tie groups, by the least of hs: where each starts in
	// states (its length in int32s, then its offsets)
	seen   map[uint64][]int
	states []int32
	mark2  []uint32
	gen2   uint32
	// this decision's runs tried and their limit
	runs, budget int
	// tests: decisions tried and settled; off: never settle one so
	settled, tried int
	off            bool
}

// orbitBudget is the most runs the orbit check tries in one decision: on an empty
// torus:48x48x48 a 33,920-node job needed 870 (of about 1,000 nodes each), against
// 110,592 lookups of the trees of runs.
func (a *mc1x1) orbitBudget() int { return max(64, a.g.N()/64) }

// greedyEmptyTorus settles a decision on an empty torus by the orbit check above:
// it returns the first center's node set, score and count bound (every center's),
// and ok; or not ok, and nothing is decided.
func (a *mc1x1) greedyEmptyTorus(k int) (nodes []int, score, least int, ok bool) {
	x := a.x
	if a.countTies || !a.keyBits.ok || a.shift.off || a.orbit.off || len(a.fl) != a.g.N() || len(a.fl) == 0 {
		return nil, 0, 0, false
	}
	for _, w := range x.wrap {
		if !w {
			return nil, 0, 0, false
		}
	}
	a.symInit()
	sh := &a.shift
	if sh.nsym < 2 {
		return nil, 0, 0, false
	}
	o := &a.orbit
	o.tried++
	c := a.fl[0]
	least, L, m, _ := a.shellScore(c, k, math.MaxInt) // every center's
	n := a.g.N()
	if len(o.mark) != n {
		o.mark, o.gen = make([]uint32, n), 0
	}
	o.cnt = growInts(&o.cnt, sh.nsym)
	o.hs = growSlice(&o.hs, sh.nsym)
	clear(o.seen)
	o.states, o.work, o.workAt, o.runs, o.budget = o.states[:0], o.work[:0], o.workAt[:0], 0, a.orbitBudget()
	o.workHs, o.workCnt = o.workHs[:0], o.workCnt[:0]
	d := x.d
	// collect runs c's run, resumed at step from with the nodes taken before it
	// (picks) and the ball of radius R read when picks is not nil
	collect := func(picks []int32, from, R, stop int) int {
		if o.gen++; o.gen == 0 {
			clear(o.mark)
			o.gen = 1
		}
		o.picks = o.picks[:0]
		if picks == nil {
			clear(o.cnt)
			clear(o.hs)
		} else {
			// the counts and sums of the state before the member tried,
			// kept with the run (orbitGroup adds the member and the rest)
			i := len(o.workAt) * sh.nsym
			copy(o.hs, o.workHs[i:i+sh.nsym])
			copy(o.cnt, o.workCnt[i:i+sh.nsym])
			o.workHs, o.workCnt = o.workHs[:i], o.workCnt[:i]
			o.picks = append(o.picks, picks[:len(picks)-d]...)
			for i := 0; i < len(o.picks); i += d {
				o.mark[a.offsetKey(o.picks[i:i+d])] = o.gen
			}
		}
		sh.recOn, o.on = true, true
		sh.recTies, sh.recSeg = sh.recTies[:0], sh.recSeg[:0]
		sh.resume.on, sh.resume.node = picks != nil, -1
		if picks != nil {
			sh.resume.t, sh.resume.step, sh.resume.R = 0, from, R
			sh.resume.picks = append(sh.resume.picks[:0], picks...)
		}
		score, _ := a.greedyCollectShells(c, L, m, stop)
		sh.recOn, o.on = false, false
		sh.recTies, sh.recSeg = sh.recTies[:0], sh.recSeg[:0]
		return score
	}
	best := collect(nil, 0, 0, math.MaxInt)
	if best == math.MaxInt || o.runs > o.budget {
		return nil, 0, 0, false
	}
	a.bestTaken = append(a.bestTaken[:0], a.set...)
	for len(o.workAt) > 0 {
		if a.stopped() {
			// AllocateContext (asked once a run: 1-2 ms each on torus:48x48x48):
			// given back, the loop over centers stops at once
			return nil, 0, 0, false
		}
		// the last run added (its step, R, then its step nodes taken)
		at := o.workAt[len(o.workAt)-1]
		o.workAt = o.workAt[:len(o.workAt)-1]
		step, R := int(o.work[at]), int(o.work[at+1])
		picks := o.work[at+2:]
		o.work = o.work[:at] // (collect copies picks before its run adds more)
		if collect(picks, step, R, best-1) < best || o.runs > o.budget {
			return nil, 0, 0, false
		}
	}
	o.settled++
	return a.greedySortedSet(c, L, a.bestTaken), best, least, true
}

// orbitGroup is called by greedyCollectShells (orbit.on) at each tie group of a run
// around center c, with the nodes taken so far (set) and the radius read (R), the
// group just recorded (the last in recTies, its member taken first). It reports
// whether the state was met before (the run may stop); otherwise it records the
// state and adds a run to try for each orbit of the group's members but the
// taken one's.
func (a *mc1x1) orbitGroup(c int, set []int, R int) bool {
	o := &a.orbit
	sh := &a.shift
	x := a.x
	d := x.d
	cc := x.coord[c*d : c*d+d]
	gen := o.gen
	taken := func(off []int32) bool { return o.mark[a.offsetKey(off)] == gen }
	// the nodes taken since the last group: per symmetry s, cnt[s] counts the
	// nodes v taken with s(v) taken (a new node p adds [s(p) taken, p
	// included] and [s⁻¹(p) taken before]), and hs[s] the labels of s(v)
	for r := len(o.picks) / d; r < len(set); r++ {
		o.picks = a.appendOffset(o.picks, cc, set[r])
		p := o.picks[r*d : r*d+d]
		o.mark[a.offsetKey(p)] = gen
		for s := range sh.nsym {
			q := a.offsetKey(a.symApply(uint8(s), p))
			o.hs[s] += orbitLabel(q)
			if s > 0 && o.mark[q] == gen {
				o.cnt[s]++
			}
			if s > 0 {
				if q := a.symApply(sh.symInv[s], p); a.offsetKey(q) != a.offsetKey(p) && taken(q) {
					o.cnt[s]++
				}
			}
		}
	}
	r := len(set)
	if a.orbitSeen(o.picks) {
		return true
	}
	// the group, the only one recorded (size, then its members, the one taken
	// first): the run's groups are not kept
	size := int(sh.recTies[0])
	grp := sh.recTies[1 : 1+size*d]
	defer func() { sh.recTies, sh.recSeg = sh.recTies[:0], sh.recSeg[:0] }()
	done := o.done[:0]
	for range size {
		done = append(done, false)
	}
	o.done = done
	for i := range size {
		if done[i] {
			continue
		}
		for s := range sh.nsym {
			if s > 0 && o.cnt[s] != r {
				continue // s does not fix the state
			}
			img := a.offsetKey(a.symApply(uint8(s), grp[i*d:i*d+d]))
			for q := range size {
				if !done[q] && a.offsetKey(grp[q*d:q*d+d]) == img {
					done[q] = true
				}
			}
		}
		if i == 0 {
			continue // the member taken: this run
		}
		o.runs++
		o.workHs = append(o.workHs, o.hs[:sh.nsym]...)
		o.workCnt = append(o.workCnt, o.cnt[:sh.nsym]...)
		o.workAt = append(o.workAt, len(o.work))
		o.work = append(o.work, int32(r+1), int32(R))
		o.work = append(o.work, o.picks...)
		o.work = append(o.work, grp[i*d:i*d+d]...)
	}
	return false
}

// orbitLabel is a node's random label for the states' hashes (splitmix64).
func orbitLabel(v int) uint64 {
	z := uint64(v) + 0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// orbitSeen reports whether a state (the nodes taken, picks, d offsets each) equal
// to this one up to a symmetry was met before in this decision, and records it if
// not. The hash (the least over the symmetries of the sum of the labels of the
// images, o.hs) only finds the candidates; each is compared exactly.
func (a *mc1x1) orbitSeen(picks []int32) bool {
	o := &a.orbit
	sh := &a.shift
	d := a.x.d
	h := o.hs[0]
	for _, v := range o.hs[1:sh.nsym] {
		h = min(h, v)
	}
	n := a.g.N()
	if len(o.mark2) != n {
		o.mark2, o.gen2 = make([]uint32, n), 0
	}
	for _, at := range o.seen[h] {
		other := o.states[at+1 : at+1+int(o.states[at])]
		if len(other) != len(picks) {
			continue
		}
		if o.gen2++; o.gen2 == 0 {
			clear(o.mark2)
			o.gen2 = 1
		}
		for i := 0; i < len(other); i += d {
			o.mark2[a.offsetKey(other[i:i+d])] = o.gen2
		}
		for s := range sh.nsym {
			same := true
			for i := 0; i < len(picks) && same; i += d {
				same = o.mark2[a.offsetKey(a.symApply(uint8(s), picks[i:i+d]))] == o.gen2
			}
			if same {
				return true
			}
		}
	}
	if o.seen == nil {
		o.seen = map[uint64][]int{}
	}
	o.seen[h] = append(o.seen[h], len(o.states))
	o.states = append(append(o.states, int32(len(picks))), picks...)
	return false
}
