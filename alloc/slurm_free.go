package alloc

import (
	"cmp"
	"math/bits"
	"slices"
)

// The Slurm emulators' free state kept up to date on every change (Allocate,
// Release, Occupy), so that a decision costs what it can choose from, not a scan of
// every node: issue 29 item 9, where per-job scans of 10,240 nodes were most of the
// emulators' time in a 100,000-job replay.
//
//   - weightOrder: the free nodes in (Weight, Slurm index) order, as a bitset with
//     free counts per 4,096 positions. slurm:consec reads the weight that completes
//     the job (the k-th free position), the lighter free nodes (all taken) and the
//     runs of that weight from it; topology/block's one-node jobs and topology/tree's
//     weight bound read it too.
//   - per leaf switch (slurm:tree, when no node is on two leaves): its free nodes, and
//     its lowest free weight, recomputed when a node on it changed (only with unequal
//     weights).
//   - per base block (slurm:block): its free nodes, and with unequal weights its
//     lowest free weight and how many free nodes have it, recomputed when a node in
//     it changed; the free nodes in any block.
//
// The scans they replace stay as the references the tests check them against
// (consecScan, treeCountsRef, blockPass's scan).

// supShift sets the positions per free count of weightOrder: 4,096 (64 words).
const supShift = 12

// weightOrder is the machine's nodes in (Weight, Slurm index) order and which of
// them are free.
type weightOrder struct {
	pos    []int32  // position of each Slurm index
	at     []int32  // Slurm index at each position
	grp    []int32  // weight group of each position
	gStart []int32  // first position of each weight group, then the node count
	brk    []uint64 // bit p: position p starts a weight group or follows a gap in Slurm indices
	free   []uint64 // bit p: the node at position p is free
	sup    []int32  // free positions per 1<<supShift positions
	nfree  int
}

func newWeightOrder(w []uint32) *weightOrder {
	n := len(w)
	o := &weightOrder{pos: make([]int32, n), at: make([]int32, n), grp: make([]int32, n)}
	for s := range o.at {
		o.at[s] = int32(s)
	}
	slices.SortStableFunc(o.at, func(x, y int32) int { return cmp.Compare(w[x], w[y]) })
	words := (n + 63) / 64
	o.brk = make([]uint64, words)
	o.free = make([]uint64, words)
	o.sup = make([]int32, (n+1<<supShift-1)>>supShift)
	for p, s := range o.at {
		o.pos[s] = int32(p)
		newGroup := p == 0 || w[s] != w[o.at[p-1]]
		if newGroup {
			o.gStart = append(o.gStart, int32(p))
		}
		o.grp[p] = int32(len(o.gStart) - 1)
		if newGroup || s != o.at[p-1]+1 {
			o.brk[p>>6] |= 1 << (p & 63)
		}
		o.free[p>>6] |= 1 << (p & 63)
		o.sup[p>>supShift]++
	}
	o.gStart = append(o.gStart, int32(n))
	o.nfree = n
	return o
}

func (o *weightOrder) clone() *weightOrder {
	c := *o
	c.free = slices.Clone(o.free)
	c.sup = slices.Clone(o.sup)
	return &c
}

// uniform reports whether every node has the same weight.
func (o *weightOrder) uniform() bool { return len(o.gStart) <= 2 }

// set marks Slurm index s free or busy (it must change).
func (o *weightOrder) set(s int32, free bool) {
	p := o.pos[s]
	o.free[p>>6] ^= 1 << (p & 63)
	if free {
		o.sup[p>>supShift]++
		o.nfree++
	} else {
		o.sup[p>>supShift]--
		o.nfree--
	}
}

// kth returns the position of the k-th free node (k from 1 to the free count).
func (o *weightOrder) kth(k int) int {
	b := 0
	for int(o.sup[b]) < k {
		k -= int(o.sup[b])
		b++
	}
	w := b << (supShift - 6)
	for {
		c := bits.OnesCount64(o.free[w])
		if c >= k {
			break
		}
		k -= c
		w++
	}
	word := o.free[w]
	for ; k > 1; k-- {
		word &= word - 1
	}
	return w<<6 + bits.TrailingZeros64(word)
}

// nextFree returns the first free position in [p, limit), or limit.
func (o *weightOrder) nextFree(p, limit int) int {
	for p < limit {
		if p&(1<<supShift-1) == 0 && o.sup[p>>supShift] == 0 {
			p += 1 << supShift
			continue
		}
		w := p >> 6
		if word := o.free[w] >> (p & 63); word != 0 {
			return min(p+bits.TrailingZeros64(word), limit)
		}
		p = (w + 1) << 6
	}
	return limit
}

// runEnd returns the end (exclusive) of the run of free nodes of one weight and
// consecutive Slurm indices that starts at free position p, at most limit.
func (o *weightOrder) runEnd(p, limit int) int {
	q := p + 1
	for q < limit {
		w := q >> 6
		if m := (^o.free[w] | o.brk[w]) >> (q & 63); m != 0 {
			return min(q+bits.TrailingZeros64(m), limit)
		}
		q = (w + 1) << 6
	}
	return limit
}

// consec is _eval_nodes' best fit over runs of consecutive indices of equal weight
// (see consecScan for the rule), read from the weight order: the k-th free node's
// weight W completes the job; the free nodes lighter than W are all taken (each of
// their runs is smaller than what is left when Slurm reaches it); among the runs of
// weight W, while none holds the rest the largest is taken (the earliest of equal
// ones), then the smallest that holds it (the earliest of equal ones).
func (a *SlurmAllocator) consec(k int) []int32 {
	o := a.wo
	picked := make([]int32, 0, k)
	pk := o.kth(k)
	g := o.grp[pk]
	gs, ge := int(o.gStart[g]), int(o.gStart[g+1])
	for p := o.nextFree(0, gs); p < gs; p = o.nextFree(p+1, gs) {
		picked = append(picked, o.at[p])
	}
	rem := int32(k - len(picked))
	runs := a.runs[:0]
	var largest int32
	for p := o.nextFree(gs, ge); p < ge; {
		e := o.runEnd(p, ge)
		r := slurmRun{o.at[p], int32(e - p), 0}
		runs = append(runs, r)
		largest = max(largest, r.n)
		p = o.nextFree(e, ge)
	}
	a.runs = runs
	if largest < rem {
		// Largest first (index order on ties) until one holds the rest.
		slices.SortStableFunc(runs, func(x, y slurmRun) int { return cmp.Compare(y.n, x.n) })
		p := 0
		for runs[p].n < rem {
			r := runs[p]
			picked = appendRun(picked, r.start, r.n)
			rem -= r.n
			p++
		}
		runs = runs[p:]
	}
	// The smallest run that holds the rest, the earliest of equal ones.
	best := -1
	for i, r := range runs {
		if r.n >= rem && (best < 0 || r.n < runs[best].n || (r.n == runs[best].n && r.start < runs[best].start)) {
			best = i
		}
	}
	return appendRun(picked, runs[best].start, rem)
}

// appendRun appends the n consecutive Slurm indices from start: slurm:consec
// takes a run's first nodes.
func appendRun(picked []int32, start, n int32) []int32 {
	for s := start; s < start+n; s++ {
		picked = append(picked, s)
	}
	return picked
}

// noteChange keeps the incremental state up to date after nodes (machine node
// indices) became free (free) or busy.
func (a *SlurmAllocator) noteChange(nodes []int, free bool) {
	a.noteChangeIn(a.cur(), nodes, free)
}

// cur is the current incremental state (the current view's) as a slurmView.
func (a *SlurmAllocator) cur() slurmView {
	return slurmView{st: a.st, wo: a.wo, tf: a.tf, bf: a.bf, rf: a.rf}
}

// noteChangeIn is noteChange on the incremental state vw (a view's; st not used).
func (a *SlurmAllocator) noteChangeIn(vw slurmView, nodes []int, free bool) {
	d := int32(-1)
	if free {
		d = 1
	}
	for _, v := range nodes {
		a.noteOne(vw, a.idx[v], d, free)
	}
}

// noteOne is noteChangeIn of Slurm index s (d: 1 freed, -1 taken).
func (a *SlurmAllocator) noteOne(vw slurmView, s, d int32, free bool) {
	vw.wo.set(s, free)
	tf, bf := vw.tf, vw.bf
	if tf != nil {
		if l := a.tr.leafOf[s]; l >= 0 {
			if tf.lowDirty != nil {
				tf.lowDirty[l] = true
			}
			tf.leafFree += int(d)
			tf.delta[l] += d
			if !tf.queued[l] {
				tf.queued[l] = true
				tf.queue[0] = append(tf.queue[0], int32(l))
			}
		}
	}
	if bf != nil {
		b := a.blk
		if b.inAny[s] {
			bf.inBlocks += int(d)
		}
		for _, i := range b.nodeBB[b.nodeOff[s]:b.nodeOff[s+1]] {
			bf.free[i] += d
			bf.lowDirty[i] = true
		}
	}
	if vw.rf != nil {
		a.ring.note(vw.rf, s, free)
	}
}

// treeFree is slurm:tree's incremental state (the sums path: no node on two
// leaves, no switch reached twice below another). Per switch: free nodes below it
// and, with unequal weights, their lowest weight (cnt, lw) as of the last decision,
// and the change in free nodes since (delta; a leaf's free nodes are cnt+delta): a
// leaf that changed is queued, and the next decision carries the changes up, level
// by level, to the switches above the changed leaves only (flushTree). Per leaf,
// with unequal weights: its lowest free weight (low), recomputed when a node on it
// changed.
type treeFree struct {
	cnt      []int32   // per switch: free nodes below, at the last flush
	delta    []int32   // per switch: change in free nodes not yet carried up
	queued   []bool    // per switch: in queue
	queue    [][]int32 // per level: switches whose counts changed, to flush
	leafFree int       // free nodes on leaves
	// unequal weights only (nil otherwise)
	lw       []uint32 // per switch: lowest weight of the free nodes below (0: none)
	lwMin    []uint32 // per switch: lowest new weight of its changed children (flushTree)
	lwRescan []bool   // per switch: a child that held its lowest weight lost it (flushTree)
	low      []uint32 // per leaf: lowest free weight, when not lowDirty
	lowDirty []bool
}

func (tf *treeFree) clone() *treeFree {
	c := *tf
	c.low, c.lowDirty = slices.Clone(tf.low), slices.Clone(tf.lowDirty)
	c.cnt, c.lw, c.delta, c.queued = slices.Clone(tf.cnt), slices.Clone(tf.lw), slices.Clone(tf.delta), slices.Clone(tf.queued)
	c.lwMin, c.lwRescan = slices.Clone(tf.lwMin), slices.Clone(tf.lwRescan)
	c.queue = make([][]int32, len(tf.queue))
	for i, q := range tf.queue {
		c.queue[i] = slices.Clone(q)
	}
	return &c
}

// leafLow returns leaf i's lowest free weight (it has a free node).
func (a *SlurmAllocator) leafLow(i int) uint32 {
	tf := a.tf
	if tf.lowDirty[i] {
		tf.lowDirty[i] = false
		first := true
		for _, s := range a.tr.leaf[i] {
			if a.free(s) && (first || a.w[s] < tf.low[i]) {
				tf.low[i], first = a.w[s], false
			}
		}
	}
	return tf.low[i]
}

// blockFree is slurm:block's incremental state: per base block, free nodes, and
// lowest free weight with the free nodes of that weight; free nodes in any block.
type blockFree struct {
	free     []int32
	low      []uint32
	nLow     []int32
	lowDirty []bool
	inBlocks int
	// disjoint: no node in two base blocks (a block's distinct count is then the sum
	// of its base blocks').
	disjoint bool
}

func (bf *blockFree) clone() *blockFree {
	c := *bf
	c.free, c.low, c.nLow, c.lowDirty = slices.Clone(bf.free), slices.Clone(bf.low), slices.Clone(bf.nLow), slices.Clone(bf.lowDirty)
	return &c
}

// bbLow returns base block i's lowest free weight and its free nodes of that
// weight (0, 0 when none is free).
func (a *SlurmAllocator) bbLow(i int) (uint32, int32) {
	bf := a.bf
	if bf.lowDirty[i] {
		bf.lowDirty[i] = false
		low, n := uint32(0), int32(0)
		for _, s := range a.blk.bb[i] {
			if !a.free(s) {
				continue
			}
			switch w := a.w[s]; {
			case n == 0 || w < low:
				low, n = w, 1
			case w == low:
				n++
			}
		}
		bf.low[i], bf.nLow[i] = low, n
	}
	return bf.low[i], bf.nLow[i]
}
