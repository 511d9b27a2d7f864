package alloc

import "slices"

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
// radius R was all free, in offsets from that center.
type greedyRun struct {
	L, m, R int
	score   int
	picked  []int32 // the m nodes taken beyond shell L-1: d offsets each, in order
}

// shiftNode is a node of the tree of runs: the runs with the same shell L and
// count m that broke their first ties alike went through the same states, so they
// met the same next tie group; they part by which member each took. A node without
// a group ends a run.
type shiftNode struct {
	group []int32 // the tie group's offsets (d each), sorted
	kids  []shiftKid
	run   int // the run ending here (index into greedyShift.runs), or -1
}

type shiftKid struct{ member, node int32 }

// greedyShift is the greedy collector's cache of translated runs for one decision.
type greedyShift struct {
	off   bool        // tests: every center collected afresh
	runs  []greedyRun // this decision's runs (reused across decisions)
	nruns int
	nodes []shiftNode // the trees of runs; their roots in roots
	roots []shiftRoot
	// the recording of the run being collected (greedyCollectShells): per
	// tie group its size n, then n offsets, the one taken first
	recOn   bool
	recTies []int32
	recR    int
	// the ball checks of the center being looked up
	ballC         int
	freeR, busyR  int // largest radius known all free, smallest known not
	tmpOffset     []int32
	order, sorted []int32
}

type shiftRoot struct{ L, m, node int }

// greedyShiftMaxRuns bounds the runs kept per decision; beyond it a center that
// matches none is collected afresh without being kept.
const greedyShiftMaxRuns = 4096

// resetShift forgets the previous decision's runs.
func (a *mc1x1) resetShift() {
	sh := &a.shift
	sh.nruns = 0
	sh.nodes = sh.nodes[:0]
	sh.roots = sh.roots[:0]
	sh.ballC = -1
}

// shiftFits reports whether the ball of radius R around c is all free and, along
// every axis without wraparound, c is at least R+1 from both ends.
func (a *mc1x1) shiftFits(c, R int) bool {
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
			continue
		}
		if u-R-1 < 0 || u+R+1 > side-1 {
			sh.busyR = R
			return false
		}
		all *= 2*R + 1
	}
	if x.freeInBall(c, R) != all {
		sh.busyR = R
		return false
	}
	sh.freeR = R
	return true
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

// shiftRoot returns the root of the tree of runs with shell L and count m, made if
// make is set, or -1.
func (a *mc1x1) shiftRoot(L, m int, make bool) int {
	sh := &a.shift
	for _, r := range sh.roots {
		if r.L == L && r.m == m {
			return r.node
		}
	}
	if !make {
		return -1
	}
	sh.roots = append(sh.roots, shiftRoot{L, m, a.newShiftNode()})
	return sh.roots[len(sh.roots)-1].node
}

func (a *mc1x1) newShiftNode() int {
	sh := &a.shift
	if len(sh.nodes) < cap(sh.nodes) {
		sh.nodes = sh.nodes[:len(sh.nodes)+1]
		n := &sh.nodes[len(sh.nodes)-1]
		n.group, n.kids, n.run = n.group[:0], n.kids[:0], -1
	} else {
		sh.nodes = append(sh.nodes, shiftNode{run: -1})
	}
	return len(sh.nodes) - 1
}

// shiftLookup returns a kept run that holds around center c (with shell L and m
// nodes beyond it), or nil: it follows the tree of runs, at each tie group to the
// member first in free-list order around c.
func (a *mc1x1) shiftLookup(c, L, m int) *greedyRun {
	sh := &a.shift
	node := a.shiftRoot(L, m, false)
	if node < 0 {
		return nil
	}
	d := a.x.d
	cc := a.x.coord[c*d : c*d+d]
	for {
		nd := &sh.nodes[node]
		if nd.run >= 0 {
			if run := &sh.runs[nd.run]; a.shiftFits(c, run.R) {
				return run
			}
			return nil
		}
		if len(nd.group) == 0 {
			return nil
		}
		first, firstPos := -1, int32(0)
		for o, i := 0, 0; o < len(nd.group); o, i = o+d, i+1 {
			v := a.shiftNodeAt(cc, nd.group[o:o+d])
			if !a.st.IsFree(v) {
				return nil // the ball is not all free
			}
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
			return nil
		}
		node = next
	}
}

// shiftRecordable reports whether a run around c is worth recording: its ball of
// radius L (which every run reads) is all free.
func (a *mc1x1) shiftRecordable(c, L int) bool {
	return !a.shift.off && a.shift.nruns < greedyShiftMaxRuns && a.shiftFits(c, L)
}

// shiftKeep keeps the run just collected around c (its set: the inner nodes, then
// the m nodes taken) if its ball of radius recR is all free, adding its tie groups
// to the tree of runs.
func (a *mc1x1) shiftKeep(c, L, m, score int, set []int) {
	sh := &a.shift
	if !a.shiftFits(c, sh.recR) {
		return
	}
	d := a.x.d
	node := a.shiftRoot(L, m, true)
	for t := sh.recTies; len(t) > 0; {
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
		nd := &sh.nodes[node]
		switch {
		case nd.run >= 0:
			return // cannot happen: runs through the same states meet the same groups
		case len(nd.group) == 0:
			nd.group = append(nd.group, sorted...)
		case !slices.Equal(nd.group, sorted):
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
			next = a.newShiftNode()
			nd = &sh.nodes[node] // newShiftNode may move the nodes
			nd.kids = append(nd.kids, shiftKid{member, int32(next)})
		}
		node = next
	}
	if nd := &sh.nodes[node]; nd.run >= 0 || len(nd.group) > 0 {
		return // cannot happen, as above
	}
	if sh.nruns == len(sh.runs) {
		sh.runs = append(sh.runs, greedyRun{})
	}
	run := &sh.runs[sh.nruns]
	sh.nodes[node].run = sh.nruns
	sh.nruns++
	run.L, run.m, run.R, run.score = L, m, sh.recR, score
	cc := a.x.coord[c*d : c*d+d]
	run.picked = run.picked[:0]
	for _, v := range set[len(set)-m:] {
		run.picked = a.appendOffset(run.picked, cc, v)
	}
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
// (coordinates others, d each), relative to center coordinates cc.
func (a *mc1x1) recordTie(cc, taken, others []int32) {
	d := a.x.d
	sh := &a.shift
	sh.recTies = append(sh.recTies, int32(1+len(others)/d))
	for j := range d {
		sh.recTies = append(sh.recTies, a.offset(j, taken[j], cc[j]))
	}
	for i, u := range others {
		sh.recTies = append(sh.recTies, a.offset(i%d, u, cc[i%d]))
	}
}

// shiftHash is the fingerprint (setHash) of run's node set around c: the labels of
// the whole ball of radius L-1 (all free) and of the nodes taken.
func (a *mc1x1) shiftHash(run *greedyRun, c int) uint64 {
	a.refresh(prefixHash)
	d := a.x.d
	cc := a.x.coord[c*d : c*d+d]
	h := a.x.ballHash(c, run.L-1)
	for o := 0; o < len(run.picked); o += d {
		h += a.x.hash[a.shiftNodeAt(cc, run.picked[o:o+d])]
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
	for o := 0; o < len(run.picked); o += d {
		dst = append(dst, a.shiftNodeAt(cc, run.picked[o:o+d]))
	}
	return dst
}
