package alloc

import "slices"

// Sweeps of the trees of runs over boxes of centers (mc1x1-greedy on an empty
// torus). On an empty torus every center has the same bound and every one is
// decided by shiftLookup, which follows a run's path of tie groups (thousands of
// them for a run of thousands of nodes) center by center: on torus:48x48x48 the
// 33,920-node job on the empty machine made 110,000 lookups at about 250 µs each.
// Around center c a group's member first in free-list order is the least in the
// order of its coordinates (axis 0 first, FreeListOrder), each c_j plus the
// member's offset around ring j: along axis j it depends on c_j only through which
// offsets wrap past the ring's end, so over a box of centers (an interval of
// coordinates per axis) the first member is constant on a few sub-boxes, found
// axis by axis from the coordinates where an offset wraps. A sweep follows the tree with boxes instead
// of centers, splitting them at the groups, and every center of a box that reaches
// a run's end or a give-up gets that answer at once; a box that reaches a member
// without a branch waits there (pending) until the tree grows (gen), and is then
// followed on from there. Centers whose answer is not known yet are looked up and
// collected one by one as before, in the same order, so the same centers are
// collected and the same runs recorded; the sweep's answers are those shiftLookup
// would give (the same walk, with the bound checked against a stop at least the
// center's own: a give-up stays one as the best only falls, and a run's score is
// exact). Only while no tie is counted (the fingerprints of tied centers come from
// the lookup's run) and the machine is empty on a grid whose axes all wrap.
// TestGreedySweepMatchesLookup checks every answer against shiftLookup.
type shiftSweep struct {
	on      bool // this decision sweeps
	root    int  // the tree swept (-1: none yet)
	L, m    int
	gen     int // the trees' generation at the last advance
	pending []sweepBox
	cur     uint32   // this decision's stamp
	stamp   []uint32 // per node: cur where the sweep knows its answer
	score   []int    // that answer: the run's score, or -1 (gave up)
	// tests: called for every answer used (center, shell, count, answer, best
	// score so far, whether a center scoring best still matters); the boxes
	// followed, answered, and left pending, this decision
	check                   func(c, L, m, score, best int, countEqual bool)
	boxes, answered, pended int
	// sweepSplit's sub-boxes and scratch, used as stacks
	parts  []sweepPart
	boxBuf []int32
	ints   []int32
}

// sweepBox is a box of centers (lo, hi per axis, inclusive) at a node of the tree
// reached with symmetry t along path (the nodes before it, with their symmetries).
type sweepBox struct {
	node int32
	t    uint8
	kids int // the node's branches when no member's served the box (else -1)
	box  []int32
	// path: the nodes before node with their symmetries, as runs of consecutive
	// nodes with one symmetry (first, count, symmetry): a run's nodes are made in
	// its order, so a path is a few such runs (kept whole, the pending boxes'
	// paths took 260 MB on torus:48x48x48)
	path []int32
}

// sweepPart is a sub-box whose centers all take member first of a group (its box at
// shiftSweep.boxBuf[box:box+2d]).
type sweepPart struct {
	box, first int
}

// sweepReset starts a decision: sweeps only on an empty grid whose axes all wrap,
// while ties are not counted.
func (a *mc1x1) sweepReset() {
	sw := &a.sweep
	x := a.x
	sw.on = !a.countTies && a.st.NumFree() == a.g.N() && x.d <= len(a.shift.lexBest) && !slices.Contains(x.wrap, false)
	sw.root, sw.pending, sw.gen = -1, sw.pending[:0], -1
	sw.boxes, sw.answered, sw.pended = 0, 0, 0
	if !sw.on {
		return
	}
	if sw.stamp == nil {
		sw.stamp, sw.score = make([]uint32, a.g.N()), make([]int, a.g.N())
	}
	if sw.cur++; sw.cur == 0 { // wrapped: forget every stamp
		clear(sw.stamp)
		sw.cur = 1
	}
}

// shiftSwept returns center c's answer from the sweep of the tree of runs with shell
// L and count m, if the sweep has one: the score, or -1 where the run gives up at
// stop (or at the stop of an earlier advance, which is no lower: the best only
// falls).
func (a *mc1x1) shiftSwept(c, L, m, stop int) (int, bool) {
	sw := &a.sweep
	sh := &a.shift
	if !sw.on {
		return 0, false
	}
	if sw.root < 0 {
		root := a.shiftRoot(c, L, m, false, 0)
		if root < 0 {
			return 0, false
		}
		box := make([]int32, 0, 2*a.x.d)
		for _, side := range a.x.dims {
			box = append(box, 0, int32(side-1))
		}
		sw.root, sw.L, sw.m = root, L, m
		sw.pending = append(sw.pending, sweepBox{node: int32(root), kids: -1, box: box})
	}
	if L != sw.L || m != sw.m {
		return 0, false
	}
	if sw.stamp[c] != sw.cur && sh.gen != sw.gen {
		if sw.boxes >= sweepGiveUpBoxes && sw.answered*sweepGiveUpRatio < sw.boxes {
			// boxes pend far more often than they are answered (small runs
			// whose trees keep growing): the sweep costs more than the lookups
			// it saves, so the rest of the decision looks centers up one by one
			sw.on, sw.pending = false, sw.pending[:0]
			return 0, false
		}
		a.sweepAdvance(stop)
	}
	if sw.stamp[c] == sw.cur {
		return sw.score[c], true
	}
	return 0, false
}

// sweepAdvance follows the pending boxes on from where they stopped, with the bounds
// checked against stop.
func (a *mc1x1) sweepAdvance(stop int) {
	sw := &a.sweep
	sh := &a.shift
	sw.gen = sh.gen
	boxes := sw.pending
	sw.pending = nil
	for _, b := range boxes {
		if nd := &sh.nodes[b.node]; b.kids >= 0 && len(nd.kids) == b.kids {
			sw.pending = append(sw.pending, b) // no new branch there
			continue
		}
		sh.path, sh.pathT = sh.path[:0], sh.pathT[:0]
		for i := 0; i < len(b.path); i += 3 {
			for v := b.path[i]; v < b.path[i]+b.path[i+1]; v++ {
				sh.path, sh.pathT = append(sh.path, v), append(sh.pathT, uint8(b.path[i+2]))
			}
		}
		a.sweepWalk(int(b.node), b.t, b.box, stop)
	}
}

// sweepWalk follows the box of centers from node (reached with symmetry t; sh.path
// holds the nodes before it) as shiftLookup follows one center: the last sub-box of
// each group in this loop, the others by a call each.
func (a *mc1x1) sweepWalk(node int, t uint8, box []int32, stop int) {
	sw := &a.sweep
	sh := &a.shift
	sw.boxes++
	for {
		nd := &sh.nodes[node]
		depth := len(sh.path) + 1 // with node
		if !nd.gaveUp && !nd.end && len(nd.group) == 0 {
			a.sweepPend(node, t, box, -1, depth-1)
			return
		}
		sh.path, sh.pathT = append(sh.path, int32(node)), append(sh.pathT, t)
		switch {
		case nd.seg > stop:
			a.sweepAnswer(box, -1)
			return
		case nd.end:
			a.sweepAnswer(box, nd.score)
			return
		case len(nd.group) == 0:
			a.sweepPend(node, t, box, -1, depth-1)
			return
		}
		p0, b0 := len(sw.parts), len(sw.boxBuf)
		a.sweepSplit(box, t, nd.group)
		p1 := len(sw.parts)
		on := false
		var onNode int
		var onT uint8
		for i := p0; i < p1; i++ {
			p := sw.parts[i]
			pbox := sw.boxBuf[p.box : p.box+len(box)]
			sh.path, sh.pathT = sh.path[:depth], sh.pathT[:depth]
			next, tn := a.shiftNext(node, p.first, t)
			switch {
			case next < 0:
				a.sweepPend(node, t, slices.Clone(pbox), len(sh.nodes[node].kids), depth-1)
			case i == p1-1:
				on, onNode, onT = true, next, tn
				box = append(box[:0], pbox...) // this walk's own: not kept before it returns
			default:
				a.sweepWalk(next, tn, slices.Clone(pbox), stop)
			}
		}
		sw.parts, sw.boxBuf = sw.parts[:p0], sw.boxBuf[:b0]
		if !on {
			return
		}
		sh.path, sh.pathT = sh.path[:depth], sh.pathT[:depth]
		node, t = onNode, onT
	}
}

// sweepPend leaves the box waiting at node, reached along the first n nodes of
// sh.path; kids is the node's branch count when no member's branch served the box
// (else -1: followed again at every advance).
func (a *mc1x1) sweepPend(node int, t uint8, box []int32, kids, n int) {
	sw := &a.sweep
	sh := &a.shift
	sw.pended++
	var path []int32
	for i := 0; i < n; i++ {
		if l := len(path); l > 0 && path[l-3]+path[l-2] == sh.path[i] && path[l-1] == int32(sh.pathT[i]) {
			path[l-2]++
			continue
		}
		path = append(path, sh.path[i], 1, int32(sh.pathT[i]))
	}
	sw.pending = append(sw.pending, sweepBox{node: int32(node), t: t, kids: kids, box: box, path: path})
}

// sweepAnswer gives every center of the box the answer score (-1: gave up).
func (a *mc1x1) sweepAnswer(box []int32, score int) {
	sw := &a.sweep
	x := a.x
	d := x.d
	sw.answered++
	u := make([]int32, d)
	for j := range d {
		u[j] = box[2*j]
	}
	for {
		v := nodeIndex(x.dims, u)
		sw.stamp[v], sw.score[v] = sw.cur, score
		j := 0
		for ; j < d; j++ {
			if u[j]++; u[j] <= box[2*j+1] {
				break
			}
			u[j] = box[2*j]
		}
		if j == d {
			return
		}
	}
}

// sweepSplit appends to sw.parts the sub-boxes of box on which one member of the
// group (offsets grp, d each, carried by symmetry t) is first in free-list order.
func (a *mc1x1) sweepSplit(box []int32, t uint8, grp []int32) {
	sw := &a.sweep
	d := a.x.d
	i0 := len(sw.ints)
	for i := range len(grp) / d {
		sw.ints = append(sw.ints, int32(i))
	}
	b0 := len(sw.boxBuf)
	sw.boxBuf = append(sw.boxBuf, box...)
	a.sweepSplitAxis(b0, t, grp, i0, len(sw.ints), 0)
	sw.ints = sw.ints[:i0]
}

// sweepSplitAxis splits the box at sw.boxBuf[b:] along axis j and on, among the
// members sw.ints[m0:m1] (tied along the axes before j). Along axis j a member at
// offset e is at (u + e) mod side around a center at u (|e| < side), so the least
// coordinate is that of the least e >= side-u (wrapped to the ring's start), else of
// the least e >= -u, else of the least e: it changes only where u crosses side-e or
// -e.
func (a *mc1x1) sweepSplitAxis(b int, t uint8, grp []int32, m0, m1, j int) {
	sw := &a.sweep
	sh := &a.shift
	x := a.x
	d := x.d
	if m1-m0 == 1 || j == d {
		nb := len(sw.boxBuf)
		sw.boxBuf = append(sw.boxBuf, sw.boxBuf[b:b+2*d]...)
		sw.parts = append(sw.parts, sweepPart{nb, int(sw.ints[m0])})
		return
	}
	pj, sg := j, int32(1)
	if t != 0 {
		pj, sg = int(sh.symPerm[int(t)*d+j]), int32(sh.symSign[int(t)*d+j])
	}
	at := func(i int32) int32 { return sg * grp[int(i)*d+pj] }
	v0 := len(sw.ints)
	for _, i := range sw.ints[m0:m1] {
		sw.ints = append(sw.ints, at(i))
	}
	slices.Sort(sw.ints[v0:])
	vals := slices.Compact(sw.ints[v0:])
	sw.ints = sw.ints[:v0+len(vals)]
	side := int32(x.dims[j])
	lo, hi := sw.boxBuf[b+2*j], sw.boxBuf[b+2*j+1]
	least := func(u int32) int32 {
		vals := sw.ints[v0 : v0+len(vals)]
		if i, _ := slices.BinarySearch(vals, side-u); i < len(vals) {
			return vals[i]
		}
		if i, _ := slices.BinarySearch(vals, -u); i < len(vals) {
			return vals[i]
		}
		return vals[0]
	}
	c0 := len(sw.ints)
	sw.ints = append(sw.ints, lo, hi+1)
	for k := range len(vals) {
		e := sw.ints[v0+k]
		for _, cut := range [2]int32{side - e, -e} {
			if cut > lo && cut <= hi {
				sw.ints = append(sw.ints, cut)
			}
		}
	}
	slices.Sort(sw.ints[c0:])
	cuts := slices.Compact(sw.ints[c0:])
	c1 := c0 + len(cuts)
	sw.ints = sw.ints[:c1]
	for k := c0; k+1 < c1; {
		v := least(sw.ints[k])
		e := k + 1
		for e+1 < c1 && least(sw.ints[e]) == v {
			e++
		}
		s0 := len(sw.ints)
		for _, i := range sw.ints[m0:m1] {
			if at(i) == v {
				sw.ints = append(sw.ints, i)
			}
		}
		sw.boxBuf[b+2*j], sw.boxBuf[b+2*j+1] = sw.ints[k], sw.ints[e]-1
		a.sweepSplitAxis(b, t, grp, s0, len(sw.ints), j+1)
		sw.ints = sw.ints[:s0]
		k = e
	}
	sw.boxBuf[b+2*j], sw.boxBuf[b+2*j+1] = lo, hi
	sw.ints = sw.ints[:v0]
}

// A decision's sweep is dropped once it has followed sweepGiveUpBoxes boxes and
// fewer than one in sweepGiveUpRatio of them was answered. Measured on issue 32's
// workload on torus:16x16x16, where the empty machine's runs are short and the
// trees keep growing: without it the sweeps cost 27 % more CPU per decision
// than lookups alone (251 -> 313 µs), with it 6 % (266 µs); torus:48x48x48
// keeps its gain (33.2 and 33.4 ms against 37.9-38.9 ms without sweeps).
var sweepGiveUpBoxes, sweepGiveUpRatio = 1024, 8
