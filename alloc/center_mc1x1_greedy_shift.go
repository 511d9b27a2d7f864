package alloc

import (
	"encoding/binary"
	"math"
	"slices"
)

// Translated greedy runs (mc1x1-greedy): where the free set around two centers
// looks the same, the greedy collector does the same thing around both, up to
// translation, except where it breaks a tie by free-list position.
//
// The collector's choice at each step is the candidate with the smallest (total L1
// distance to the nodes taken, L1 distance to the center, free-list position). On a
// torus the first two depend only on the offsets of the nodes from the center, and
// so does the score (the sum of L-infinity distances to the center). So if every node
// within L-infinity distance R of center c is free, and a run around c read no node
// further than R, then around any other center c' whose ball of radius R is also all
// free, the run takes the same offsets, as long as at every step where several
// candidates shared the smallest (distance sum, L1 distance) the one taken around c
// also has the smallest free-list position around c' (the tie groups are recorded
// with the run). Nodes beyond R were never read around c because a lower bound on
// their key exceeded the key taken; the bounds depend on the offsets alone (the
// torus's ring distances are the same from every center), so they hold around c'
// too.
//
// On a mesh axis the same holds when both centers are at least R+1 from the axis's
// ends: the bounds on unread nodes (greedyCollectShells' far and farK) are minima of
// sums of distances along the axis, convex in the coordinate with their minimum
// among the nodes read, so they are taken at the coordinates R+1 either side of the
// center, which exist around both centers. Along a wrapped axis nothing is needed.
//
// So on an empty torus, where every center ties and is collected, one run (or a few,
// where the free-list order wraps around the seam) serves every center: the others
// cost the check of the tie groups, the ball count and the set's fingerprint.
// TestGreedyShiftMatchesFresh checks the node sets and tie counts against fresh runs
// for every center; TestGreedyTorusMatchesReference against the definition.

// greedyRun is a complete run of the greedy collector around a center whose ball of
// radius R was all free, as the path of the tree of runs that ends with it (the
// nodes taken are the edges of the path's nodes, in offsets from the center).
type greedyRun struct {
	L, m, R int
	score   int
	path    []int32 // nodes of greedyShift.nodes, from the root
	// pathT: per node of path the symmetry (shiftSyms) that carries the tree's
	// offsets at it to the run's offsets from its center
	pathT []uint8
	// segs: where known, the nodes taken as runs along axis 0 (shiftSegments)
	segs []int32
}

// shiftNode is a node of the tree of runs: the runs with the same shell L and
// count m that broke their first ties alike went through the same states, so they
// met the same next tie group, and the same bounds checked against stop on the way
// (greedyCollectShells gives up at the first bound above stop); they part by which
// member of the group each took. A node is empty, a tie group (the steps up to it
// read the ball of radius R), the end of a run, or where a run gave up. It is also
// where a run around another center that parts from the recorded ones there (or
// that holds around it only up to there) is resumed: the state before step is the
// nodes taken on the path to it and the rest of the ball of radius R read.
type shiftNode struct {
	group []int32 // the tie group's offsets (d each), sorted
	kids  []shiftKid
	// edge: the nodes taken at steps from..step-1 (d offsets each): the member of
	// the parent's group taken, then the steps without ties; step: the step at
	// which the group is met (m at a run's end, or where a run gave up)
	edge       []int32
	from, step int
	// seg: the largest bound checked from the previous group to this node's group
	// (or to the run's end, or to where it gave up, which is above that run's stop)
	seg, R int
	score  int  // the score of the run ending here (end)
	end    bool // a run ends here
	gaveUp bool // a run gave up here, after reading the ball of radius R
	// stab: the symmetries that map the nodes taken before step onto themselves
	// (bit t for symmetry t), where stabKnown has bit t (shiftStabHas)
	stab, stabKnown uint64
	reach           int // at a root: the largest radius read below it
}

// shiftKid is the branch of a tie group's member; with sym > 0 it is a shortcut
// that shiftLookup found: the branch of member sym(member), carried back by
// sym⁻¹ (shiftKeep follows and makes branches with sym 0 only).
type shiftKid struct {
	member, node int32
	sym          uint8
}

// greedyShift is the greedy collector's cache of translated runs for one decision.
type greedyShift struct {
	off      bool        // tests: every center collected afresh
	oneClass bool        // tests: every center of class -1 (the margins alone decide)
	nodes    []shiftNode // the trees of runs; their roots in roots
	// roots: per shell L, count m and class (shiftClass) the root of a tree, keyed
	// by their bytes; clip: per (L, m) the margin T of the classes
	roots  map[string]int
	clip   []shiftClip
	key    []byte
	cls    []int32
	kept   int // runs recorded, complete or not
	stored int // offsets kept in the trees (int32s), against shiftBudget
	runM   int // shiftBudget: the nodes a run of this decision takes beyond its inner shells (the least bound's)
	// the recording of the run being collected (greedyCollectShells): per tie group
	// its size n, then n offsets, the one taken first (recTies), the largest bound
	// checked since the previous group, the radius read and the step (recSeg); and
	// after the last group, the largest bound checked (recTail), the radius read
	// (recR) and the nodes taken beyond the inner shells (recPicks, aliasing the set)
	recOn    bool
	recTies  []int32
	recSeg   []int
	recTail  int
	recR     int
	recPicks []int
	// shiftLookup's answer when no run decides: the deepest node of the path
	// followed whose ball fits around the center (resumeAt, or -1) and the path to
	// it; shiftArm turns it into the resume of the next collection
	resumeAt int
	// resumeStep: where the run is resumed when it parts from the recorded one
	// inside resumeAt's edge, at a node taken there that is busy around the
	// center (else -1: at resumeAt's step); lookupBusy: the path followed went
	// past a ball holding a busy node (shiftLookup's busy nodes)
	resumeStep int
	lookupBusy bool
	path       []int32
	pathT      []uint8
	resume     struct {
		on      bool
		node    int     // where the run is resumed (shiftKeep starts there), or -1
		t       uint8   // the symmetry carrying the tree's offsets there to the center's
		step, R int     // the step it is resumed at, the radius read before it
		picks   []int32 // the nodes taken before step (d offsets each)
	}
	shiftSyms
	run greedyRun // shiftLookup's answer
	// memo: shiftLookup's answers by root, the center's free-list order class
	// (shiftLookup) and stop, while the trees stay as they were (gen: bumped by
	// shiftKeep); memoSize counts the path nodes kept, against shiftBudget
	memo     map[string]shiftMemo
	memoKey  []byte
	paths    map[string]*shiftPath // the memo's runs by last node and symmetries
	pathKey  []byte
	gen      int
	memoSize int
	// this decision's lookups that consulted the memo, and its answers used
	memoTries, memoHits int
	memoSeen            [64]uint64 // keys met once (by a hash)
	mark                []uint32   // shiftMark: per machine node the generation that marked it
	labelSums           []uint64   // shiftSegHash: prefix sums of the nodes' labels
	// greedyShellScore: the empty machine's shell score for emptyK nodes
	emptyK, emptyL, emptyLower, emptyM int
	// full balls' node counts and shell scores by radius, below emptyL
	emptyFull, emptyAcc []int
	scoreCnts           []int // greedyShellScoreFrom's counts below emptyL
	// this decision's tries of it, and how many found the ball all free
	scoreDecision         int64
	scoreTries, scoreHits int
	markGen               uint32
	// the ball checks of the center being looked up
	ballC         int
	freeR, busyR  int // largest radius known all free, smallest known not
	tmpOffset     []int32
	order, sorted []int32
	lexBest       [8]int32 // shiftFirstFree's best member's coordinates
}

type shiftClip struct{ L, m, T int }

// shiftMemo is an answer of shiftLookup: a run (its path), or that the collector
// gives up; it holds around a center of the same root, order class and stop whose
// ball of radius R is all free.
type shiftMemo struct {
	gen    int
	gaveUp bool
	R      int
	score  int
	run    *shiftPath
}

// shiftPath is a run's path in the tree, the symmetries along it, and the nodes it
// takes as runs along axis 0 (shiftSegments): kept once for all the memo's
// answers that share them.
type shiftPath struct {
	path  []int32
	pathT []uint8
	segs  []int32
}

// greedyShiftMaxRuns bounds the runs recorded per decision.
const greedyShiftMaxRuns = 4096

// shiftBudget bounds the offsets the trees keep per decision (int32s): 16 per node
// of the machine and 4 MB besides, so that memory stays O(n) when jobs are large
// (a run keeps m nodes taken); beyond it no more runs are recorded. Where runs are
// long (m in the thousands, as a job of a third of an empty torus:48x48x48), room
// for 1,024 whole runs besides (d·m offsets each, m at most n):
// there every center parts from the recorded runs somewhere, and once nothing is
// recorded each is resumed from there, thousands of nodes each (docs/center-speed.md).
func (a *mc1x1) shiftBudget() int {
	return 16*a.g.N() + 1<<20 + 1024*a.x.d*a.shift.runM
}

// resetShift forgets the previous decision's runs.
func (a *mc1x1) resetShift() {
	sh := &a.shift
	sh.kept, sh.stored = 0, 0
	sh.nodes = sh.nodes[:0]
	sh.resumeAt, sh.resumeStep, sh.lookupBusy, sh.resume.on, sh.resume.node = -1, -1, false, false, -1
	clear(sh.memo)
	sh.memoTries, sh.memoHits = 0, 0
	clear(sh.memoSeen[:])
	clear(sh.paths)
	sh.memoSize = 0
	a.symInit()
	clear(sh.roots)
	sh.clip = sh.clip[:0]
	sh.ballC = -1
}

// shiftBallFree reports whether every node within L-infinity distance R of c
// (clipped on a mesh axis) is free.
func (a *mc1x1) shiftBallFree(c, R int) bool {
	sh := &a.shift
	if sh.ballC != c {
		sh.ballC, sh.freeR, sh.busyR = c, -1, int(^uint(0)>>1)
	}
	if R <= sh.freeR {
		return true
	}
	if R >= sh.busyR {
		return false
	}
	x := a.x
	all := 1
	for j, side := range x.dims {
		u := int(x.coord[c*x.d+j])
		if x.wrap[j] {
			all *= min(2*R+1, side)
		} else {
			all *= min(side-1, u+R) - max(0, u-R) + 1
		}
	}
	if x.freeInBall(c, R) != all {
		sh.busyR = R
		return false
	}
	sh.freeR = R
	return true
}

// shiftClass sets cls to center c's class for margin T: per axis -1 along a ring or
// where c is at least T from both ends of a mesh axis, else c's coordinate. Runs are
// translated only between centers of one class: along an axis of coordinate class
// the centers are at the same place, along the others they are apart by a
// translation that the margins (shiftFits) make harmless.
func (a *mc1x1) shiftClass(c, T int, cls []int32) []int32 {
	x := a.x
	cls = cls[:0]
	for j, side := range x.dims {
		u := x.coord[c*x.d+j]
		if x.wrap[j] || int(u) >= T && int(u) <= side-1-T || a.shift.oneClass {
			u = -1
		}
		cls = append(cls, u)
	}
	return cls
}

// shiftFits reports whether a run that read the ball of radius R around a center of
// class cls holds around c (of that class) as far as the free set and the mesh's
// ends go: the ball of radius R around c is all free and, along every axis of class
// -1 without wraparound, c is at least R+1 from both ends.
func (a *mc1x1) shiftFits(c, R int, cls []int32) bool {
	return a.shiftMargins(c, R, cls) && a.shiftBallFree(c, R)
}

// shiftMargins is shiftFits without the free set: along every axis of class -1
// without wraparound, c is at least R+1 from both ends.
func (a *mc1x1) shiftMargins(c, R int, cls []int32) bool {
	x := a.x
	for j, side := range x.dims {
		if u := int(x.coord[c*x.d+j]); !x.wrap[j] && cls[j] < 0 && (u-R-1 < 0 || u+R+1 > side-1) {
			return false
		}
	}
	return true
}

// shiftEdgeBusy returns the index of the first node of nd's edge (the nodes taken
// at steps nd.from..nd.step-1, carried by t to offsets from cc) that is busy, or -1.
func (a *mc1x1) shiftEdgeBusy(cc []int32, t uint8, nd *shiftNode) int {
	d := a.x.d
	e := nd.edge[:(nd.step-nd.from)*d]
	for o, i := 0, 0; o < len(e); o, i = o+d, i+1 {
		if !a.st.IsFree(a.shiftNodeAtSym(cc, t, e[o:o+d])) {
			return i
		}
	}
	return -1
}

// shiftNodeAt returns the node at offset off from the coordinates cc (around the
// ring on wrapped axes).
func (a *mc1x1) shiftNodeAt(cc, off []int32) int {
	x := a.x
	v, stride := 0, 1
	for j, side := range x.dims {
		u := int(cc[j] + off[j])
		if x.wrap[j] {
			if u < 0 {
				u += side
			} else if u >= side {
				u -= side
			}
		}
		v += u * stride
		stride *= side
	}
	return v
}

// shiftRoot returns the root of the tree of runs with shell L and count m for
// center c, and c's class (into sh.cls), or -1. With make (R: the radius the run
// around c read) it makes the root, and the margin of (L, m)'s classes if there is
// none yet: R+1, the margin of the first run kept.
func (a *mc1x1) shiftRoot(c, L, m int, make bool, R int) int {
	sh := &a.shift
	T := -1
	for _, t := range sh.clip {
		if t.L == L && t.m == m {
			T = t.T
			break
		}
	}
	if T < 0 {
		if !make {
			return -1
		}
		T = R + 1
		sh.clip = append(sh.clip, shiftClip{L, m, T})
	}
	sh.cls = a.shiftClass(c, T, sh.cls)
	key := binary.LittleEndian.AppendUint64(sh.key[:0], uint64(L))
	key = binary.LittleEndian.AppendUint64(key, uint64(m))
	for _, u := range sh.cls {
		key = binary.LittleEndian.AppendUint32(key, uint32(u))
	}
	sh.key = key
	if node, ok := sh.roots[string(key)]; ok {
		return node
	}
	if !make {
		return -1
	}
	if sh.roots == nil {
		sh.roots = map[string]int{}
	}
	node := a.newShiftNode(0)
	sh.roots[string(key)] = node
	return node
}

func (a *mc1x1) newShiftNode(from int) int {
	sh := &a.shift
	if len(sh.nodes) < cap(sh.nodes) {
		sh.nodes = sh.nodes[:len(sh.nodes)+1]
		n := &sh.nodes[len(sh.nodes)-1]
		*n = shiftNode{group: n.group[:0], kids: n.kids[:0], edge: n.edge[:0], from: from}
	} else {
		sh.nodes = append(sh.nodes, shiftNode{from: from})
	}
	return len(sh.nodes) - 1
}

// shiftLookup follows the tree of runs with shell L and m nodes beyond it for
// center c, at each tie group to the member first in free-list order around c: it
// returns the run that holds around c, or gaveUp if the collector would give up
// (some bound above stop), or neither when no recorded run decides it. Then
// resumeAt is the deepest node on the way whose state holds around c (or -1), from
// which shiftArm resumes the collection.
//
// Its answers are kept (memo) for the centers of the same free-list order class:
// the order of the nodes at offsets within reach of c (the largest radius read
// below the root) is that of the offsets themselves, read axis by axis, unless c
// is within reach of a ring axis's end (where the coordinates wrap), so the class
// is c's coordinate on those axes. Along a path the radii read only grow, so the
// answer holds around another center of the class when the ball of the last
// node's radius is all free around it.
//
// Where the member first around c has no branch, a symmetry s of the state there
// (shiftSyms) may carry it to a member that has one: the runs below that branch,
// carried back by s⁻¹, are the runs from c's state; they are followed on with each
// group's members carried to c's offsets.
func (a *mc1x1) shiftLookup(c, L, m, stop int) (run *greedyRun, gaveUp bool) {
	sh := &a.shift
	sh.resumeAt, sh.resumeStep, sh.lookupBusy, sh.path, sh.pathT = -1, -1, false, sh.path[:0], sh.pathT[:0]
	node := a.shiftRoot(c, L, m, false, 0)
	if node < 0 {
		return nil, false
	}
	cls := a.shift.cls
	d := a.x.d
	cc := a.x.coord[c*d : c*d+d]
	x := a.x
	key := binary.LittleEndian.AppendUint32(sh.memoKey[:0], uint32(node))
	key = binary.LittleEndian.AppendUint64(key, uint64(stop))
	reach := sh.nodes[node].reach
	for j, side := range x.dims {
		u := cc[j]
		if !x.wrap[j] || int(u) >= reach && int(u)+reach < side {
			u = -1
		}
		key = binary.LittleEndian.AppendUint32(key, uint32(u))
	}
	sh.memoKey = key
	// consulted while it pays (a fragmented free set has few centers per class)
	useMemo := sh.memoTries < 32 || 8*sh.memoHits >= sh.memoTries
	var e shiftMemo
	ok := false
	if useMemo {
		sh.memoTries++
		e, ok = sh.memo[string(key)]
		ok = ok && e.gen == sh.gen
	}
	if ok && a.shiftFits(c, e.R, cls) {
		sh.memoHits++
		if e.gaveUp {
			return nil, true
		}
		sh.run = greedyRun{L: L, m: m, R: e.R, score: e.score, path: e.run.path, pathT: e.run.pathT, segs: e.run.segs}
		return &sh.run, false
	}
	// an answer is kept the second time its key is met (most keys of a
	// fragmented free set are met once): a bit per hash of the key marks the
	// first time (a collision only keeps an answer sooner)
	again := ok
	if useMemo && !ok {
		h := uint64(14695981039346656037) // FNV-1a
		for _, b := range key {
			h = (h ^ uint64(b)) * 1099511628211
		}
		w, bit := h>>6&63, uint64(1)<<(h&63)
		again = sh.memoSeen[w]&bit != 0
		sh.memoSeen[w] |= bit
	}
	busy := false // a ball read on the path holds a busy node (below)
	keep := func(gaveUp bool, R, score int) {
		if !useMemo || !again || busy {
			return
		}
		if sh.memoSize += 1 + len(sh.path); sh.memoSize > a.shiftBudget() {
			return
		}
		if sh.memo == nil {
			sh.memo = map[string]shiftMemo{}
		}
		e := shiftMemo{gen: sh.gen, gaveUp: gaveUp, R: R, score: score}
		if !gaveUp {
			// a path is known by its last node and its symmetries
			pk := binary.LittleEndian.AppendUint32(sh.pathKey[:0], uint32(sh.path[len(sh.path)-1]))
			pk = append(pk, sh.pathT...)
			sh.pathKey = pk
			if e.run = sh.paths[string(pk)]; e.run == nil {
				e.run = &shiftPath{path: slices.Clone(sh.path), pathT: slices.Clone(sh.pathT)}
				e.run.segs = a.shiftSegments(e.run.path, e.run.pathT)
				sh.memoSize += len(e.run.segs) / (d + 1)
				if sh.paths == nil {
					sh.paths = map[string]*shiftPath{}
				}
				sh.paths[string(pk)] = e.run
			}
		}
		sh.memo[string(sh.memoKey)] = e
	}
	t := uint8(0) // carries the tree's offsets to c's
	for {
		nd := &sh.nodes[node]
		if !nd.gaveUp && !nd.end && len(nd.group) == 0 || !a.shiftMargins(c, nd.R, cls) {
			return nil, false
		}
		sh.path, sh.pathT = append(sh.path, int32(node)), append(sh.pathT, t)
		// Busy nodes in the ball read: c's run is the run it would make with
		// its ball all free (the one followed) while that run takes none of
		// them. A step takes the least key among the free candidates; where
		// the all-free run's pick is free it is still the least, and the bounds
		// on nodes not read depend on the nodes taken alone. So the path is
		// followed on while the nodes taken on it are free around c, and a tie
		// group's member is the first free one in free-list order; at the
		// first busy node taken the run is resumed from the state before it
		// (with this node's ball read: reading more than a fresh run would
		// changes no choice, as the least key is taken either way).
		// TestGreedyShiftMatchesFresh's busy nodes and blocks check it.
		if !busy && !a.shiftBallFree(c, nd.R) {
			busy, sh.lookupBusy = true, true
		}
		if busy {
			if i := a.shiftEdgeBusy(cc, t, nd); i >= 0 {
				sh.resumeAt, sh.resumeStep = node, nd.from+i
				return nil, false
			}
		}
		if nd.seg > stop {
			keep(true, nd.R, 0)
			return nil, true
		}
		if nd.end {
			sh.run = greedyRun{L: L, m: m, R: nd.R, score: nd.score, path: sh.path, pathT: sh.pathT}
			keep(false, nd.R, nd.score)
			return &sh.run, false
		}
		sh.resumeAt = node
		if len(nd.group) == 0 {
			return nil, false // a run gave up here, but not below this stop
		}
		first, firstPos := -1, int32(0)
		if !busy && d >= 3 && d <= len(sh.lexBest) {
			first = a.shiftFirstFree(cc, t, nd.group)
		} else {
			for o, i := 0, 0; o < len(nd.group); o, i = o+d, i+1 {
				v := a.shiftNodeAtSym(cc, t, nd.group[o:o+d])
				if busy && !a.st.IsFree(v) {
					continue
				}
				if p := a.pos[v]; first < 0 || p < firstPos {
					first, firstPos = i, p
				}
			}
		}
		if first < 0 {
			return nil, false // every member busy: resumed at this step
		}
		var next int
		if next, t = a.shiftNext(node, first, t); next < 0 {
			return nil, false
		}
		node = next
	}
}

// shiftNext returns the branch below node (the last of sh.path) of the member first
// of its group, reached with symmetry t, and the symmetry below it; or -1 when
// there is none. Where first has no branch, a symmetry s of the state with s(first)
// a member that has one gives it: the state around the center is t∘s⁻¹ of the
// state below it; it is kept as a shortcut.
func (a *mc1x1) shiftNext(node, first int, t uint8) (int, uint8) {
	sh := &a.shift
	d := a.x.d
	nd := &sh.nodes[node]
	next := nd.kid(first)
	if next < 0 && sh.nsym > 1 {
		s := uint8(0)
		if next, s = nd.shortcut(first); next < 0 {
			for u := 1; u < sh.nsym && next < 0; u++ {
				i := nd.member(a.symApply(uint8(u), nd.group[first*d:first*d+d]), d)
				if i < 0 || nd.kid(i) < 0 || !a.shiftStabHas(len(sh.path)-1, uint8(u)) {
					continue
				}
				nd = &sh.nodes[node]
				next, s = nd.kid(i), uint8(u)
				nd.kids = append(nd.kids, shiftKid{int32(first), int32(next), s})
			}
		}
		if next >= 0 {
			t = sh.symMul[int(t)*sh.nsym+int(sh.symInv[s])]
		}
	}
	return next, t
}

// shiftFirstFree returns the index of the member of a tie group (offsets grp, d
// each, carried by symmetry t to offsets from the coordinates cc) first in
// free-list order, when every member is free: the free list is in order of
// coordinates, axis 0 slowest (FreeListOrder, listFree), so the members are
// compared axis by axis from axis 0, each coordinate computed only while the
// axes before it tie, instead of each member's node and position (on an empty
// torus:48x48x48, 110,435 lookups of long paths: docs/center-speed.md). From three
// axes on: on a 2D grid a node's position costs as little (LLNL-T3D 16x16,
// --compat premas: 1-2 % more CPU than without, within noise).
func (a *mc1x1) shiftFirstFree(cc []int32, t uint8, grp []int32) int {
	sh := &a.shift
	x := a.x
	d := x.d
	var perm, sign []int8
	if t != 0 {
		perm, sign = sh.symPerm[int(t)*d:int(t)*d+d], sh.symSign[int(t)*d:int(t)*d+d]
	}
	coord := func(off []int32, j int) int32 { // the member's coordinate along axis j
		var u int32
		if t == 0 {
			u = cc[j] + off[j]
		} else {
			u = cc[j] + int32(sign[j])*off[perm[j]]
		}
		if x.wrap[j] {
			if side := int32(x.dims[j]); u < 0 {
				u += side
			} else if u >= side {
				u -= side
			}
		}
		return u
	}
	best := &sh.lexBest
	first, known := -1, 0 // best's coordinates known: axes 0..known-1
	for o, i := 0, 0; o < len(grp); o, i = o+d, i+1 {
		off := grp[o : o+d]
		if first < 0 {
			first, best[0], known = i, coord(off, 0), 1
			continue
		}
		for j := 0; j < d; j++ {
			if j >= known {
				best[j] = coord(grp[first*d:first*d+d], j)
				known = j + 1
			}
			u := coord(off, j)
			if u < best[j] {
				first, best[j], known = i, u, j+1
				break
			}
			if u > best[j] {
				break
			}
		}
	}
	return first
}

// kid returns the branch of member i of the group, or -1.
func (nd *shiftNode) kid(i int) int {
	for _, k := range nd.kids {
		if int(k.member) == i && k.sym == 0 {
			return int(k.node)
		}
	}
	return -1
}

// shortcut returns the shortcut of member i of the group (its node and
// symmetry), or -1.
func (nd *shiftNode) shortcut(i int) (int, uint8) {
	for _, k := range nd.kids {
		if int(k.member) == i && k.sym > 0 {
			return int(k.node), k.sym
		}
	}
	return -1, 0
}

// member returns the index of the offsets off (d) in the group, or -1.
func (nd *shiftNode) member(off []int32, d int) int {
	for o, i := 0, 0; o < len(nd.group); o, i = o+d, i+1 {
		if slices.Equal(nd.group[o:o+d], off) {
			return i
		}
	}
	return -1
}

// shiftArm makes the next greedyCollect resume from where the last shiftLookup
// left the tree of runs (resumeAt), if it did: from the state before that node's
// step, the nodes taken on the path to it and the ball of its radius read. The
// run collected then parts from the recorded ones there, or holds around the
// center only up to there; shiftKeep adds it to the tree from that node on.
func (a *mc1x1) shiftArm() {
	sh := &a.shift
	rs := &sh.resume
	rs.on, rs.node = false, -1
	if sh.resumeAt < 0 {
		return
	}
	nd := &sh.nodes[sh.resumeAt]
	last := len(sh.path) - 1
	rs.on, rs.node, rs.t, rs.step, rs.R = true, sh.resumeAt, sh.pathT[last], nd.step, nd.R
	rs.picks = a.shiftPicks(rs.picks[:0], sh.path, sh.pathT)
	if sh.resumeStep >= 0 { // inside the node's edge, with its ball read
		rs.step = sh.resumeStep
		rs.picks = rs.picks[:rs.step*a.x.d]
	}
	if sh.lookupBusy {
		// the ball read holds a busy node: the run is not recorded (shiftKeep
		// would drop it), and is not added to the tree from the node
		sh.recOn, rs.node = false, -1
	}
}

// shiftPicks appends the nodes taken before the step of path's last node (d
// offsets each, carried by the symmetries pathT, or by none when pathT is nil):
// every node's edge, the last node's up to its step (where a run gave up, later
// runs may have gone further).
func (a *mc1x1) shiftPicks(dst []int32, path []int32, pathT []uint8) []int32 {
	sh := &a.shift
	d := a.x.d
	for i, p := range path {
		nd := &sh.nodes[p]
		e := nd.edge
		if i == len(path)-1 {
			e = e[:(nd.step-nd.from)*d]
		}
		t := uint8(0)
		if pathT != nil {
			t = pathT[i]
		}
		if t == 0 {
			dst = append(dst, e...)
			continue
		}
		for o := 0; o < len(e); o += d {
			dst = append(dst, a.symApply(t, e[o:o+d])...)
		}
	}
	return dst
}

// shiftCoords writes the coordinates of the node at offset off from the
// coordinates cc into dst (around the ring on wrapped axes) and returns it.
func (a *mc1x1) shiftCoords(cc, off, dst []int32) []int32 {
	x := a.x
	for j, side := range x.dims {
		u := cc[j] + off[j]
		if x.wrap[j] {
			if u < 0 {
				u += int32(side)
			} else if u >= int32(side) {
				u -= int32(side)
			}
		}
		dst[j] = u
	}
	return dst
}

// shiftMark marks the nodes of set and returns whether a node is marked (until
// the next call).
func (a *mc1x1) shiftMark(set []int) func(v int) bool {
	sh := &a.shift
	if len(sh.mark) != a.g.N() {
		sh.mark, sh.markGen = make([]uint32, a.g.N()), 0
	}
	if sh.markGen++; sh.markGen == 0 {
		clear(sh.mark)
		sh.markGen = 1
	}
	gen := sh.markGen
	for _, v := range set {
		sh.mark[v] = gen
	}
	return func(v int) bool { return sh.mark[v] == gen }
}

// shiftRecordable reports whether a run around c is worth recording: its ball of
// radius L (which every run reads) is all free.
func (a *mc1x1) shiftRecordable(c, L int) bool {
	sh := &a.shift
	return !sh.off && sh.kept < greedyShiftMaxRuns && sh.stored < a.shiftBudget() && a.shiftBallFree(c, L)
}

// shiftKeep adds the run just collected around c to the tree of runs, if its ball
// of radius recR is all free: a complete run (its score, and the nodes taken in
// recPicks), or one that gave up (score math.MaxInt). A resumed run is added from
// the node it was resumed at.
func (a *mc1x1) shiftKeep(c, L, m, score int) {
	sh := &a.shift
	node := sh.resume.node
	if node < 0 {
		node = a.shiftRoot(c, L, m, true, sh.recR)
	} else {
		a.shiftRoot(c, L, m, false, 0) // c's class
	}
	if !a.shiftFits(c, sh.recR, sh.cls) {
		return
	}
	sh.kept++
	sh.gen++ // the lookups kept may change
	if root := a.shiftRoot(c, L, m, false, 0); root >= 0 {
		sh.nodes[root].reach = max(sh.nodes[root].reach, sh.recR)
	}
	d := a.x.d
	cc := a.x.coord[c*d : c*d+d]
	// a run resumed below a symmetry is carried back to the tree's offsets
	tinv := uint8(0)
	if sh.resume.node >= 0 {
		tinv = sh.symInv[sh.resume.t]
	}
	toTree := func(off []int32) {
		if tinv != 0 {
			copy(off, a.symApply(tinv, off))
		}
	}
	// edge sets nd's edge to the nodes taken at steps nd.from..step-1
	edge := func(nd *shiftNode, step int) {
		if have := len(nd.edge) / d; step > nd.from+have {
			for _, v := range sh.recPicks[nd.from+have : step] {
				nd.edge = a.appendOffset(nd.edge, cc, v)
				toTree(nd.edge[len(nd.edge)-d:])
			}
			sh.stored += (step - nd.from - have) * d
		}
		nd.step = step
	}
	for g, t := 0, sh.recTies; len(t) > 0; g++ {
		if sh.stored > a.shiftBudget() {
			return // over budget: no more (and no more recorded)
		}
		n := int(t[0])
		grp := t[1 : 1+n*d]
		t = t[1+n*d:]
		for o := 0; o < len(grp); o += d {
			toTree(grp[o : o+d])
		}
		// the group sorted by offsets, and where the member taken (grp's first) went
		order := sh.order[:0]
		for i := range n {
			order = append(order, int32(i))
		}
		less := func(p, q int32) bool {
			for j := range d {
				if u, w := grp[int(p)*d+j], grp[int(q)*d+j]; u != w {
					return u < w
				}
			}
			return false
		}
		for i := 1; i < n; i++ { // insertion sort: groups are small
			for j := i; j > 0 && less(order[j], order[j-1]); j-- {
				order[j], order[j-1] = order[j-1], order[j]
			}
		}
		sorted := sh.sorted[:0]
		member := int32(-1)
		for i, o := range order {
			sorted = append(sorted, grp[int(o)*d:int(o)*d+d]...)
			if o == 0 {
				member = int32(i)
			}
		}
		sh.order, sh.sorted = order, sorted
		seg, R, step := sh.recSeg[3*g], sh.recSeg[3*g+1], sh.recSeg[3*g+2]
		nd := &sh.nodes[node]
		switch {
		case nd.end:
			return // cannot happen: runs through the same states meet the same groups
		case len(nd.group) == 0:
			nd.group = append(nd.group, sorted...)
			sh.stored += len(sorted)
			nd.seg, nd.R, nd.gaveUp = seg, R, false
			edge(nd, step)
		case !slices.Equal(nd.group, sorted) || nd.seg != seg || nd.R != R || nd.step != step:
			return // as above
		}
		next := nd.kid(int(member))
		if next < 0 {
			next = a.newShiftNode(step)
			nd = &sh.nodes[node] // newShiftNode may move the nodes
			nd.kids = append(nd.kids, shiftKid{member, int32(next), 0})
		}
		node = next
	}
	nd := &sh.nodes[node]
	if score == math.MaxInt {
		// gave up: a bound above this run's stop; kept unless the node knows more
		if !nd.end && len(nd.group) == 0 && (!nd.gaveUp || sh.recTail > nd.seg) {
			nd.gaveUp, nd.seg, nd.R = true, sh.recTail, sh.recR
			edge(nd, len(sh.recPicks))
		}
		return
	}
	if nd.end || len(nd.group) > 0 {
		return // cannot happen, as above
	}
	nd.end, nd.gaveUp, nd.seg, nd.R, nd.score = true, false, sh.recTail, sh.recR, score
	edge(nd, m)
}

// appendOffset appends the offsets of node v from the coordinates cc.
func (a *mc1x1) appendOffset(dst []int32, cc []int32, v int) []int32 {
	x := a.x
	d := x.d
	for j, u := range x.coord[v*d : v*d+d] {
		dst = append(dst, a.offset(j, u, cc[j]))
	}
	return dst
}

// offset is coordinate u's offset from coordinate c along axis j: on a wrapped axis
// the one in [side/2 - side + 1, side/2], so that the same node has the same offset
// from every center.
func (a *mc1x1) offset(j int, u, c int32) int32 {
	t := u - c
	if a.x.wrap[j] {
		side := int32(a.x.dims[j])
		if t < 0 {
			t += side
		}
		if t > side/2 {
			t -= side
		}
	}
	return t
}

// recordTie records a tie group of the run being collected: the node taken (at
// coordinates taken) and the others that shared its distance sum and L1 distance
// (coordinates others, d each), relative to center coordinates cc; with the largest
// bound checked against stop since the previous group, the radius read and the
// step (the nodes taken before it).
func (a *mc1x1) recordTie(cc, taken, others []int32, seg, R, step int) {
	d := a.x.d
	sh := &a.shift
	sh.recTies = append(sh.recTies, int32(1+len(others)/d))
	for j := range d {
		sh.recTies = append(sh.recTies, a.offset(j, taken[j], cc[j]))
	}
	for i, u := range others {
		sh.recTies = append(sh.recTies, a.offset(i%d, u, cc[i%d]))
	}
	sh.recSeg = append(sh.recSeg, seg, R, step)
}

// shiftHash is the fingerprint (setHash) of run's node set around c: the labels of
// the whole ball of radius L-1 (all free) and of the nodes taken.
func (a *mc1x1) shiftHash(run *greedyRun, c int) uint64 {
	a.refresh(prefixHash)
	d := a.x.d
	cc := a.x.coord[c*d : c*d+d]
	h := a.x.ballHash(c, run.L-1)
	if run.segs != nil {
		return h + a.shiftSegHash(run.segs, cc)
	}
	for i, p := range run.path {
		e, t := a.shift.nodes[p].edge, run.pathT[i]
		for o := 0; o < len(e); o += d {
			h += a.x.hash[a.shiftNodeAtSym(cc, t, e[o:o+d])]
		}
	}
	return h
}

// shiftTaken appends run's nodes taken beyond the inner shells around c to dst.
func (a *mc1x1) shiftTaken(run *greedyRun, c int, dst []int) []int {
	d := a.x.d
	cc := a.x.coord[c*d : c*d+d]
	for i, p := range run.path {
		e, t := a.shift.nodes[p].edge, run.pathT[i]
		for o := 0; o < len(e); o += d {
			dst = append(dst, a.shiftNodeAtSym(cc, t, e[o:o+d]))
		}
	}
	return dst
}

// shiftSet appends run's node set around c to dst: the inner shells, then the
// nodes taken beyond them.
func (a *mc1x1) shiftSet(run *greedyRun, c int, dst []int) []int {
	if run.L > 0 {
		d := a.x.d
		dst = a.greedyShell(a.x.coord[c*d:c*d+d], run.L-1, true, dst)
	}
	return a.shiftTaken(run, c, dst)
}

// shiftSyms are the symmetries of the offsets from a center that runs are
// carried by: the signed permutations of the wrapped axes (an axis only to one of
// the same side), the other axes fixed. Each keeps the L1 and L-infinity
// distances from the center and between nodes (around the rings), so it carries
// the collector's state, its bounds, its tie groups and its score; it does not
// keep the free-list order that breaks ties, which the lookup reads around the
// center. Symmetry t maps axis j of x to symSign[t*d+j] * x[symPerm[t*d+j]]
// (wrapped into the offsets' range); t = 0 is the identity. At most 64 (stab is
// a bit set): with more, the sign changes alone, or the identity alone.
type shiftSyms struct {
	nsym    int
	symPerm []int8
	symSign []int8
	symMul  []uint8 // symMul[s*nsym+t]: s∘t
	symInv  []uint8
	symBuf  []int32
	ids     []int
}

// symInit finds the grid's symmetries (shiftSyms), once.
func (a *mc1x1) symInit() {
	sh := &a.shift
	x := a.x
	d := x.d
	if sh.nsym > 0 {
		return
	}
	var perms [][]int8
	perm := make([]int8, d)
	used := make([]bool, d)
	var gen func(j int, permute bool)
	gen = func(j int, permute bool) { // the identity first (i == j first)
		if j == d {
			perms = append(perms, slices.Clone(perm))
			return
		}
		for i := range d {
			ok := i == j || permute && x.wrap[j] && x.wrap[i] && x.dims[i] == x.dims[j]
			if !ok || used[i] {
				continue
			}
			used[i], perm[j] = true, int8(i)
			gen(j+1, permute)
			used[i] = false
		}
	}
	wrapped := 0
	for _, w := range x.wrap {
		if w {
			wrapped++
		}
	}
	gen(0, true)
	if len(perms)<<wrapped > 64 {
		perms = perms[:0]
		gen(0, false)
	}
	if len(perms)<<wrapped > 64 {
		wrapped = 0
	}
	for _, p := range perms {
		for sg := range 1 << wrapped {
			b := 0
			for j := range d {
				sign := int8(1)
				if x.wrap[j] && wrapped > 0 {
					if sg>>b&1 == 1 {
						sign = -1
					}
					b++
				}
				sh.symPerm = append(sh.symPerm, p[j])
				sh.symSign = append(sh.symSign, sign)
			}
		}
	}
	n := len(sh.symPerm) / d
	sh.nsym = n
	sh.symBuf = make([]int32, d)
	// products and inverses, from the images of the unit vectors
	raw := func(t int, v []int32) []int32 {
		out := make([]int32, d)
		for j := range d {
			out[j] = int32(sh.symSign[t*d+j]) * v[sh.symPerm[t*d+j]]
		}
		return out
	}
	imgs := make([][]int32, n)
	for t := range n {
		for i := range d {
			e := make([]int32, d)
			e[i] = 1
			imgs[t] = append(imgs[t], raw(t, e)...)
		}
	}
	sh.symMul, sh.symInv = make([]uint8, n*n), make([]uint8, n)
	for s := range n {
		for t := range n {
			var st []int32
			for i := range d {
				st = append(st, raw(s, imgs[t][i*d:i*d+d])...)
			}
			for u := range n {
				if slices.Equal(imgs[u], st) {
					sh.symMul[s*n+t] = uint8(u)
					if u == 0 {
						sh.symInv[s] = uint8(t)
					}
				}
			}
		}
	}
}

// symApply returns symmetry t applied to the offsets x (in scratch space, valid
// until the next call; x itself for the identity), in the offsets' range on
// wrapped axes (offset).
func (a *mc1x1) symApply(t uint8, x []int32) []int32 {
	if t == 0 {
		return x
	}
	sh := &a.shift
	d := a.x.d
	out := sh.symBuf
	for j := range d {
		u := int32(sh.symSign[int(t)*d+j]) * x[sh.symPerm[int(t)*d+j]]
		if side := int32(a.x.dims[j]); a.x.wrap[j] && u <= side/2-side {
			u += side
		}
		out[j] = u
	}
	return out
}

// shiftNodeAtSym is shiftNodeAt(cc, symApply(t, off)); it passes through
// symApply's buffer, which no caller holds across the call.
func (a *mc1x1) shiftNodeAtSym(cc []int32, t uint8, off []int32) int {
	if t != 0 {
		off = a.symApply(t, off)
	}
	return a.shiftNodeAt(cc, off)
}

// shiftStabHas reports whether symmetry t maps the nodes taken before the step of
// the node at sh.path[i] (the path followed to it) onto themselves. Known answers
// are kept per node. When t is known to map those before the parent's step onto
// themselves, it does those before the node's step exactly when it maps the
// node's edge (the nodes taken between the two) onto itself.
func (a *mc1x1) shiftStabHas(i int, t uint8) bool {
	sh := &a.shift
	nd := &sh.nodes[sh.path[i]]
	bit := uint64(1) << t
	if nd.stabKnown&bit != 0 {
		return nd.stab&bit != 0
	}
	d := a.x.d
	var picks []int32
	if pt := &sh.nodes[sh.path[max(i-1, 0)]]; i > 0 && pt.stabKnown&pt.stab&bit != 0 {
		picks = nd.edge[:(nd.step-nd.from)*d]
	} else {
		sh.tmpOffset = a.shiftPicks(sh.tmpOffset[:0], sh.path[:i+1], nil)
		picks = sh.tmpOffset
	}
	ids := sh.ids[:0] // the picks as nodes around the origin
	for o := 0; o < len(picks); o += d {
		ids = append(ids, a.offsetKey(picks[o:o+d]))
	}
	sh.ids = ids
	marked := a.shiftMark(ids)
	ok := true
	for o := 0; o < len(picks) && ok; o += d {
		ok = marked(a.offsetKey(a.symApply(t, picks[o:o+d])))
	}
	nd.stabKnown |= bit
	if ok {
		nd.stab |= bit
	}
	return ok
}

// offsetKey is a node index for the offsets off, one per offset within a run's
// reach: every axis read modulo its side (a run's offsets along an axis span less
// than its side).
func (a *mc1x1) offsetKey(off []int32) int {
	x := a.x
	v, stride := 0, 1
	for j, side := range x.dims {
		u := int(off[j]) % side
		if u < 0 {
			u += side
		}
		v += u * stride
		stride *= side
	}
	return v
}

// shiftSegments returns the nodes taken along path (carried by pathT) as runs of
// consecutive offsets along axis 0: per run the d offsets of its first node, then
// its length.
func (a *mc1x1) shiftSegments(path []int32, pathT []uint8) []int32 {
	sh := &a.shift
	d := a.x.d
	picks := a.shiftPicksAll(sh.tmpOffset[:0], path, pathT)
	sh.tmpOffset = picks
	n := len(picks) / d
	order := sh.order[:0]
	for i := range n {
		order = append(order, int32(i))
	}
	sh.order = order
	// by the other axes (the last first), then along axis 0
	slices.SortFunc(order, func(p, q int32) int {
		for j := d - 1; j >= 0; j-- {
			if u, w := picks[int(p)*d+j], picks[int(q)*d+j]; u != w {
				return int(u - w)
			}
		}
		return 0
	})
	var segs []int32
	for i := 0; i < n; {
		first := picks[int(order[i])*d : int(order[i])*d+d]
		k := i + 1
		for ; k < n; k++ {
			nxt := picks[int(order[k])*d : int(order[k])*d+d]
			if nxt[0] != first[0]+int32(k-i) || !slices.Equal(nxt[1:], first[1:]) {
				break
			}
		}
		segs = append(segs, first...)
		segs = append(segs, int32(k-i))
		i = k
	}
	return segs
}

// shiftPicksAll appends every node taken along path (carried by pathT).
func (a *mc1x1) shiftPicksAll(dst []int32, path []int32, pathT []uint8) []int32 {
	d := a.x.d
	for i, p := range path {
		e, t := a.shift.nodes[p].edge, pathT[i]
		for o := 0; o < len(e); o += d {
			dst = append(dst, a.symApply(t, e[o:o+d])...)
		}
	}
	return dst
}

// shiftSegHash is the sum of the labels of the nodes at the runs segs
// (shiftSegments) from the coordinates cc: each run from the prefix sums of the
// labels in node order (axis 0 fastest), in two parts where it wraps.
func (a *mc1x1) shiftSegHash(segs []int32, cc []int32) uint64 {
	sh := &a.shift
	x := a.x
	d := x.d
	if len(sh.labelSums) != a.g.N()+1 { // the labels do not change: once
		sh.labelSums = make([]uint64, a.g.N()+1)
		for v, l := range x.hash {
			sh.labelSums[v+1] = sh.labelSums[v] + l
		}
	}
	pre := sh.labelSums
	side := int32(x.dims[0])
	var h uint64
	for o := 0; o < len(segs); o += d + 1 {
		start, n := segs[o:o+d], segs[o+d]
		v := a.shiftNodeAt(cc, start)
		x0 := cc[0] + start[0]
		if x.wrap[0] {
			if x0 < 0 {
				x0 += side
			} else if x0 >= side {
				x0 -= side
			}
		}
		if x0+n <= side {
			h += pre[v+int(n)] - pre[v]
			continue
		}
		k := side - x0 // to the end of the row, then from its start
		row := v - int(x0)
		h += pre[v+int(k)] - pre[v] + pre[row+int(n-k)] - pre[row]
	}
	return h
}

// greedyShellScore is shellScore(c, k, no bound) for the greedy collector's
// lower bounds, or (L = -1) a lower bound of it from one ball count, which
// allocateGreedy replaces by the score (shellScore) only when the center comes up
// (most never do). L0 is the shell of the k-th nearest node on an empty machine:
// a center whose ball of radius L0 is all free (and, along a mesh axis, not cut by
// the ends) has the counts of a full ball for every radius up to L0, so its score,
// shell and count are the empty machine's, found once per decision. Otherwise, with
// f free nodes within L0, the k nearest free nodes are min(k, f) of those, at least
// as far as the min(k, f) nearest nodes of a full ball (emptySum), and k - f beyond
// L0. Either costs one ball count, where shellScore counts ball after ball (on a
// torus across the seams).
func (a *mc1x1) greedyShellScore(c, k int) (lower, L, m int) {
	x := a.x
	sh := &a.shift
	if k == 1 || x.pyrW > 0 {
		lower, L, m, _ = a.shellScore(c, k, math.MaxInt)
		return lower, L, m
	}
	full := func(r int) int { // the nodes of a full ball
		n := 1
		for j, side := range x.dims {
			if x.wrap[j] {
				n *= min(2*r+1, side)
			} else {
				n *= 2*r + 1
			}
		}
		return n
	}
	if sh.emptyK != k {
		sh.emptyK, sh.emptyL = k, -1
		sh.emptyFull, sh.emptyAcc = append(sh.emptyFull[:0], 1), append(sh.emptyAcc[:0], 0)
		acc, prev := 0, 1
		for r := 1; r <= a.x.maxLinf; r++ {
			if cnt := full(r); cnt >= k {
				sh.emptyLower, sh.emptyL, sh.emptyM = acc+r*(k-prev), r, k-prev
				break
			} else {
				acc += r * (cnt - prev)
				prev = cnt
				sh.emptyFull, sh.emptyAcc = append(sh.emptyFull, cnt), append(sh.emptyAcc, acc)
			}
		}
	}
	if sh.scoreDecision != a.stats.Decisions {
		sh.scoreDecision, sh.scoreTries, sh.scoreHits = a.stats.Decisions, 0, 0
	}
	if L0 := sh.emptyL; L0 > 0 {
		sh.scoreTries++
		fits := true
		for j, side := range x.dims {
			if u := int(x.coord[c*x.d+j]); !x.wrap[j] && (u < L0 || u+L0 > side-1) {
				fits = false
			}
		}
		f := x.freeInBall(c, L0)
		if fits && f == full(L0) {
			sh.scoreHits++
			return sh.emptyLower, L0, sh.emptyM
		}
		j := min(k, f)
		return sh.emptySum(j) + (k-j)*(L0+1), -1, f // f for greedyShellScoreFrom
	}
	lower, L, m, _ = a.shellScore(c, k, math.MaxInt)
	return lower, L, m
}

// greedyShellScoreFrom is shellScore(c, k, bound) for a center whose lower bound
// greedyShellScore found from f, its free nodes within L0 (emptyL), as not all
// free: the same score, L and m, and ok exactly when the score is at most bound.
// shellScore counts ball after ball from radius 1 up to L; this counts from L0-1
// down to the first ball that is all free, rf (then so is every smaller one, whose
// counts are the full balls'), and from L0 + 1 up: the centers that come up in
// allocateGreedy's order of bounds have their busy nodes near L0, so rf is close
// to it (at 3,000 decisions on torus:32x32x32 shellScore's 4.1 M calls counted
// 46 M balls, 11 a call).
func (a *mc1x1) greedyShellScoreFrom(c, k, f, bound int) (score, L, m int, ok bool) {
	sh := &a.shift
	L0 := sh.emptyL
	if k-1 > bound {
		return 0, 0, 0, false
	}
	cnts := growInts(&sh.scoreCnts, L0)
	rf := 0 // the ball of radius 0, c, is free
	for r := L0 - 1; r >= 1; r-- {
		n := a.x.freeInBall(c, r)
		if n == sh.emptyFull[r] {
			rf = r
			break
		}
		cnts[r] = n
	}
	// from here as shellScore: acc is the sum of the distances of the free nodes
	// within r, prev their number; the bound checked at rf as at every r after it
	acc, prev := sh.emptyAcc[rf], sh.emptyFull[rf]
	if acc+(rf+1)*(k-prev) > bound {
		return 0, 0, 0, false
	}
	for r := rf + 1; ; r++ {
		var cnt int
		switch {
		case r < L0:
			cnt = cnts[r]
		case r == L0:
			cnt = f
		default:
			cnt = a.x.freeInBall(c, r)
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

// greedyShellBoundUp is a lower bound of the shell score of a center whose bound
// greedyShellScore found from f < k, its free nodes within L0 (emptyL), tighter than
// that bound: the shell score is the sum over r >= 0 of k less the free nodes within
// r (at most k); within r < L0 there are at most min(full ball, f), which gives
// emptySum(j) + L0*(k-j) with j = min(k, f), and from L0 on the balls are counted
// up to the first that holds k, as shellScore does (so L is that ball's radius).
// It stops counting once the bound exceeds bound. The counts below L0, the rest of
// the score, are left for greedyShellScoreFrom when the center comes up again:
// on issue 32's workload on torus:32x32x32 the centers that come up have busy
// nodes next to them (the first all-free ball is of radius 0-1 against L0 about 7,
// L about 12), and 85 % of the 4.1 M shell scores computed were never collected.
func (a *mc1x1) greedyShellBoundUp(c, k, f, bound int) int {
	sh := &a.shift
	L0 := sh.emptyL
	j := min(k, f)
	lb := sh.emptySum(j) + L0*(k-j)
	for r, cnt := L0, f; cnt < k; {
		if lb += k - cnt; lb > bound {
			break
		}
		r++
		cnt = a.x.freeInBall(c, r)
	}
	return lb
}

// greedyRefine is allocateGreedy's next step for a center cd whose lower bound
// is only a bound (L < 0; m holds f, its free nodes within L0): from
// greedyShellScore's bound (L = -1) to greedyShellBoundUp's (L = -2), from that to
// the shell score (L >= 0). It returns the center to put back and whether its
// bound is at most bound (else its score exceeds bound).
func (a *mc1x1) greedyRefine(cd greedyCand, k, bound int) (greedyCand, bool) {
	c, f := a.fl[cd.i], int(cd.m)
	if cd.L == -1 && f < k {
		lb := a.greedyShellBoundUp(c, k, f, bound)
		return greedyCand{lower: lb, i: cd.i, L: -2, m: cd.m}, lb <= bound
	}
	if lower, L, m, ok := a.greedyShellScoreFrom(c, k, f, bound); ok {
		return greedyCand{lower: lower, i: cd.i, L: int32(L), m: int32(m)}, true
	}
	return greedyCand{lower: bound + 1, i: cd.i, L: -2, m: cd.m}, false
}

// emptySum is the sum of the L-infinity distances of the j nodes nearest the center
// of a full ball, for 1 <= j <= k (emptyK).
func (sh *greedyShift) emptySum(j int) int {
	for r := 1; r < len(sh.emptyFull); r++ {
		if sh.emptyFull[r] >= j {
			return sh.emptyAcc[r-1] + r*(j-sh.emptyFull[r-1])
		}
	}
	r := len(sh.emptyFull) // L0: the remaining nodes are on its shell
	return sh.emptyAcc[r-1] + r*(j-sh.emptyFull[r-1])
}
