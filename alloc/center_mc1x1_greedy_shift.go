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
}

type shiftKid struct{ member, node int32 }

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
	path     []int32
	resume   struct {
		on      bool
		node    int     // where the run is resumed (shiftKeep starts there), or -1
		step, R int     // the step it is resumed at, the radius read before it
		picks   []int32 // the nodes taken before step (d offsets each)
	}
	run  greedyRun // shiftLookup's answer
	mark []uint32  // shiftMark: per machine node the generation that marked it
	gen  uint32
	// the ball checks of the center being looked up
	ballC         int
	freeR, busyR  int // largest radius known all free, smallest known not
	tmpOffset     []int32
	order, sorted []int32
}

type shiftClip struct{ L, m, T int }

// greedyShiftMaxRuns bounds the runs recorded per decision.
const greedyShiftMaxRuns = 4096

// shiftBudget bounds the offsets the trees keep per decision (int32s): 16 per node
// of the machine and 4 MB besides, so that memory stays O(n) when jobs are large
// (a run keeps m nodes taken); beyond it no more runs are recorded.
func (a *mc1x1) shiftBudget() int { return 16*a.g.N() + 1<<20 }

// resetShift forgets the previous decision's runs.
func (a *mc1x1) resetShift() {
	sh := &a.shift
	sh.kept, sh.stored = 0, 0
	sh.nodes = sh.nodes[:0]
	sh.resumeAt, sh.resume.on, sh.resume.node = -1, false, -1
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
	x := a.x
	for j, side := range x.dims {
		if u := int(x.coord[c*x.d+j]); !x.wrap[j] && cls[j] < 0 && (u-R-1 < 0 || u+R+1 > side-1) {
			return false
		}
	}
	return a.shiftBallFree(c, R)
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
func (a *mc1x1) shiftLookup(c, L, m, stop int) (run *greedyRun, gaveUp bool) {
	sh := &a.shift
	sh.resumeAt, sh.path = -1, sh.path[:0]
	node := a.shiftRoot(c, L, m, false, 0)
	if node < 0 {
		return nil, false
	}
	cls := a.shift.cls
	d := a.x.d
	cc := a.x.coord[c*d : c*d+d]
	for {
		nd := &sh.nodes[node]
		if !nd.gaveUp && !nd.end && len(nd.group) == 0 || !a.shiftFits(c, nd.R, cls) {
			return nil, false
		}
		sh.path = append(sh.path, int32(node))
		if nd.seg > stop {
			return nil, true
		}
		if nd.end {
			sh.run = greedyRun{L: L, m: m, R: nd.R, score: nd.score, path: sh.path}
			return &sh.run, false
		}
		sh.resumeAt = node
		if len(nd.group) == 0 {
			return nil, false // a run gave up here, but not below this stop
		}
		first, firstPos := -1, int32(0)
		for o, i := 0, 0; o < len(nd.group); o, i = o+d, i+1 {
			v := a.shiftNodeAt(cc, nd.group[o:o+d])
			if p := a.pos[v]; first < 0 || p < firstPos {
				first, firstPos = i, p
			}
		}
		next := -1
		for _, k := range nd.kids {
			if int(k.member) == first {
				next = int(k.node)
				break
			}
		}
		if next < 0 {
			return nil, false
		}
		node = next
	}
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
	rs.on, rs.node, rs.step, rs.R = true, sh.resumeAt, nd.step, nd.R
	rs.picks = rs.picks[:0]
	for _, p := range sh.path[:len(sh.path)-1] {
		rs.picks = append(rs.picks, sh.nodes[p].edge...)
	}
	// the last node's edge may reach past its step (a node where a run gave up
	// that a longer run has not passed yet cannot; a group's edge ends at it)
	rs.picks = append(rs.picks, nd.edge[:(nd.step-nd.from)*a.x.d]...)
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
		sh.mark, sh.gen = make([]uint32, a.g.N()), 0
	}
	if sh.gen++; sh.gen == 0 {
		clear(sh.mark)
		sh.gen = 1
	}
	gen := sh.gen
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
	d := a.x.d
	cc := a.x.coord[c*d : c*d+d]
	// edge sets nd's edge to the nodes taken at steps nd.from..step-1
	edge := func(nd *shiftNode, step int) {
		if have := len(nd.edge) / d; step > nd.from+have {
			for _, v := range sh.recPicks[nd.from+have : step] {
				nd.edge = a.appendOffset(nd.edge, cc, v)
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
		next := -1
		for _, k := range nd.kids {
			if k.member == member {
				next = int(k.node)
				break
			}
		}
		if next < 0 {
			next = a.newShiftNode(step)
			nd = &sh.nodes[node] // newShiftNode may move the nodes
			nd.kids = append(nd.kids, shiftKid{member, int32(next)})
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
	for _, p := range run.path {
		e := a.shift.nodes[p].edge
		for o := 0; o < len(e); o += d {
			h += a.x.hash[a.shiftNodeAt(cc, e[o:o+d])]
		}
	}
	return h
}

// shiftSet appends run's node set around c to dst.
func (a *mc1x1) shiftSet(run *greedyRun, c int, dst []int) []int {
	d := a.x.d
	cc := a.x.coord[c*d : c*d+d]
	if run.L > 0 {
		dst = a.greedyShell(cc, run.L-1, true, dst)
	}
	for _, p := range run.path {
		e := a.shift.nodes[p].edge
		for o := 0; o < len(e); o += d {
			dst = append(dst, a.shiftNodeAt(cc, e[o:o+d]))
		}
	}
	return dst
}
