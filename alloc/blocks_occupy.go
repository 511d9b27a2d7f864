package alloc

import (
	"fmt"
	"math/bits"
	"slices"
)

// Partitions with the allocators whose unit is larger than a node: bt, sbt and
// dbt (a job reserves a whole block of the next power of two, Liu et al. §3.1)
// and paging with pages of several nodes (a job takes whole pages, Lo et al.).
// Neither is an Occupier as such: a job's release frees its whole block or
// pages, nodes it was not given included, and a page cannot be busy in part.
// ForPartitions gives each an Occupier view that is exact under a Mask:
//
//   - bt, sbt, dbt (blockTree): a node kept away is busy as a block of one node
//     (its leaf of the division tree, as Allocate takes a block); the tree's
//     counts (free processors and largest wholly free block below each tree
//     node) are functions of the free leaves, on which every rule decides, so a
//     decision is the one bt makes on the machine whose busy nodes are the
//     running jobs' blocks (the nodes given and the reserved remainder) and the
//     nodes kept away. A job's release frees its block whole, as without
//     partitions; the Mask then holds the nodes of the block it keeps away
//     (each a block of one node again), so the free blocks are the maximal
//     blocks of the nodes that are really free.
//   - paging:CURVE:s with s > 0 (pagedBlocks): a page is free when no node of
//     it is busy (given to a job or kept away); a node kept away takes its
//     page. A decision takes the free pages of lowest rank, as without
//     partitions: pages holding a node kept away are not offered. A job's
//     release frees each of its pages once none of its nodes is busy; the Mask
//     then holds the nodes of those pages it keeps away.
//
// Both are BlockOccupiers: a Mask holds, after each release, the free nodes of
// the whole set it keeps away (a release may free nodes it did not name), so
// that between decisions every node kept away is busy, as for every Occupier.
// Both may refuse a request that fits by count (Fragmenting): bt for want of a
// block, paging for want of whole free pages in a partition.
//
// Both keep views (Viewer: bintree_view.go, paging_view.go), so that a Mask
// that registers a replay's partitions' outsides switches views at a change
// of partition instead of holding and freeing every free node the two
// outsides differ by.

// BlockOccupier is an Occupier whose unit of allocation is larger than a node
// (ForPartitions: bt, sbt, dbt and paging with pages of several nodes): a
// Release may free nodes it does not name (a job's whole block or pages), and
// Occupy of a node may make nodes besides it busy (its page). After any
// Release, a caller that keeps nodes away holds the free ones among them again
// (Mask does: HoldFreeIn).
type BlockOccupier interface {
	Occupier
	// ReleasesBlocks marks the interface; it does nothing.
	ReleasesBlocks()
}

// ForPartitions returns a as an Occupier: a itself when it is one, the
// BlockOccupier view of bt, sbt, dbt and of paging with pages of several nodes
// (sharing a's state: use it in a's place), else the error NoRestriction gives.
func ForPartitions(a Allocator) (Occupier, error) {
	switch x := a.(type) {
	case Occupier:
		return x, nil
	case *BinaryTree:
		if x.mode == contiguous {
			return &blockTree{x}, nil
		}
	case *Paging:
		return newPagedBlocks(x), nil
	}
	return nil, NoRestriction(a)
}

// HoldFreeIn occupies the free nodes of set (a bitmap of the nodes) on a,
// through its bitmap path when it has one, and returns them (appended to
// buf[:0]; nil bitmap: none).
func HoldFreeIn(a Occupier, set []uint64, buf []int) ([]int, error) {
	buf = buf[:0]
	if set == nil {
		return buf, nil
	}
	if fa, ok := a.(freeAppender); ok {
		buf = fa.AppendFreeIn(buf, set)
	} else {
		for w, x := range set {
			for ; x != 0; x &= x - 1 {
				if v := w<<6 + bits.TrailingZeros64(x); a.IsFree(v) {
					buf = append(buf, v)
				}
			}
		}
	}
	if len(buf) == 0 {
		return buf, nil
	}
	if err := a.Occupy(buf); err != nil {
		return buf, fmt.Errorf("%s: keeping a decision off %d nodes: %w", a.Name(), len(buf), err)
	}
	return buf, nil
}

// blockTree is bt, sbt or dbt as a BlockOccupier (ForPartitions).
type blockTree struct{ *BinaryTree }

// Occupy marks the nodes busy, each a block of one node (occupyLeaves).
func (a *blockTree) Occupy(nodes []int) error { return a.occupyLeaves(nodes) }

// IsFree reports whether node v is free (Occupier).
func (a *blockTree) IsFree(v int) bool { return a.st.IsFree(v) }

// AppendFreeIn appends the free nodes of the bitmap set (Mask's bulk path).
func (a *blockTree) AppendFreeIn(dst []int, set []uint64) []int { return a.st.AppendFreeIn(dst, set) }

// OccupyFreeIn marks busy the free nodes of set, each a block of one node as
// Occupy makes it, writes them to taken and returns their number
// (BulkOccupier): the leaves set, then their ancestors' counts made again
// level by level over the span of tree nodes above them (setLeaves).
//
// With views the nodes are those free in the machine, taken there, and in the
// current view's counts those it holds.
func (a *blockTree) OccupyFreeIn(set, taken []uint64) int { return a.occupyFreeIn(set, taken) }

// occupyFreeIn is OccupyFreeIn of bt's view and of the non-contiguous trees.
func (a *BinaryTree) occupyFreeIn(set, taken []uint64) int {
	if !a.vb.on() {
		k := a.st.TakeFreeIn(set, taken)
		if k > 0 {
			a.setLeaves(taken, true)
		}
		return k
	}
	k := a.vb.truth.TakeFreeIn(set, taken)
	if k == 0 {
		return 0
	}
	a.setLeafBlocks(taken, true)
	in := a.viewBits(taken)
	if a.st.TakeFreeIn(in, in) != countBits(in) {
		panic("alloc: " + a.name + " tree out of step with its view")
	}
	a.setLeafCounts(in, true)
	return k
}

// ReleaseIn frees the nodes of set, each of which must be busy as a block of
// one node (occupied), all or nothing (BulkOccupier).
func (a *blockTree) ReleaseIn(set []uint64) error {
	for w, x := range set {
		for ; x != 0; x &= x - 1 {
			v := w<<6 + bits.TrailingZeros64(x)
			if v >= a.t.n() {
				return fmt.Errorf("release: node %d is outside 0..%d", v, a.t.n()-1)
			}
			if b := a.block[v]; b != a.t.leaf[v] {
				return fmt.Errorf("release: node %d is not busy on its own (block %d)", v, b)
			}
		}
	}
	return a.releaseIn(set)
}

// releaseIn frees the nodes of set, each busy, all or nothing (the machine's
// error: a node not busy there), as Release frees the nodes of the
// non-contiguous trees one by one: ReleaseIn of bt's view (its nodes checked
// to be blocks of one node) and of the non-contiguous trees.
func (a *BinaryTree) releaseIn(set []uint64) error {
	if !a.vb.on() {
		if err := a.st.ReleaseIn(set); err != nil {
			return err
		}
		a.setLeaves(set, false)
		return nil
	}
	if err := a.vb.truth.ReleaseIn(set); err != nil {
		return err
	}
	a.setLeafBlocks(set, false)
	in := a.viewBits(set)
	if err := a.st.ReleaseIn(in); err != nil {
		panic("alloc: " + a.name + " tree out of step with its view: " + err.Error())
	}
	a.setLeafCounts(in, false)
	return nil
}

// setLeaves marks the leaves of the nodes of set wholly busy (take: each a
// block of one node given out) or free (each node released from its block, as
// the non-contiguous trees' Release frees a node), then makes their ancestors'
// counts again from their children, level by level over the span of tree nodes
// above the leaves changed: O(nodes + span) where setBlock is O(log n) a node.
func (a *BinaryTree) setLeaves(set []uint64, take bool) {
	a.setLeafBlocks(set, take)
	a.setLeafCounts(set, take)
}

// setLeafBlocks is setLeaves's part for the jobs' blocks (block, left): the
// machine's, shared by the views.
func (a *BinaryTree) setLeafBlocks(set []uint64, take bool) {
	for w, x := range set {
		for ; x != 0; x &= x - 1 {
			v := w<<6 + bits.TrailingZeros64(x)
			if take {
				b := a.t.leaf[v]
				a.block[v], a.left[b] = b, 1
			} else {
				a.left[a.block[v]]--
				a.block[v] = 0
			}
		}
	}
}

// setLeafCounts is setLeaves's part for the tree's counts (the current
// view's with views).
func (a *BinaryTree) setLeafCounts(set []uint64, take bool) {
	lo, hi := len(a.free), 0
	f := int32(1)
	if take {
		f = 0
	}
	for w, x := range set {
		for ; x != 0; x &= x - 1 {
			b := int(a.t.leaf[w<<6+bits.TrailingZeros64(x)])
			a.free[b], a.maxFree[b] = f, f
			lo, hi = min(lo, b), max(hi, b)
		}
	}
	for lo, hi = lo/2, hi/2; hi >= 1; lo, hi = lo/2, hi/2 {
		for p := lo; p <= hi; p++ {
			a.t.remake(a.free, a.maxFree, p)
		}
	}
}

// OccupyFreeIn marks busy the free nodes of set, each a block of one node as
// Occupy makes it (BulkOccupier; blockTree's).
func (a *subTaskTree) OccupyFreeIn(set, taken []uint64) int { return a.occupyFreeIn(set, taken) }

// ReleaseIn frees the nodes of set, each busy (given out or occupied), as
// Release frees them one by one (BulkOccupier), all or nothing.
func (a *subTaskTree) ReleaseIn(set []uint64) error { return a.releaseIn(set) }

// Clone returns an independent copy in the same state (Fragmenting), a
// BlockOccupier too.
func (a *blockTree) Clone() Fragmenting { return &blockTree{a.BinaryTree.Clone().(*BinaryTree)} }

// ReleasesBlocks marks blockTree a BlockOccupier: a job's release frees its
// whole block.
func (a *blockTree) ReleasesBlocks() {}

// pagedBlocks is Paging as a BlockOccupier (ForPartitions): per page the
// number of its busy nodes (given to a job or occupied), the page free when it
// is 0, and the free nodes (those of free pages) as a State.
type pagedBlocks struct {
	*Paging
	count []int32 // busy nodes by page rank
	nodes *State  // free nodes: the nodes of free pages
	// Views (Viewer, paging_view.go): the machine's free pages and their
	// number (mfree nil: no views; Paging's free pages are then the
	// machine's, else the current view's), each view's nodes and the pages
	// wholly in it (view 0, nil: every node and page), the current view.
	mfree  []uint64
	mnfree int
	vin    [][]uint64
	vpages [][]uint64
	cur    int
}

func newPagedBlocks(p *Paging) *pagedBlocks {
	a := &pagedBlocks{Paging: p, count: make([]int32, len(p.pages)), nodes: NewState(p.g.N())}
	for v, b := range p.busy {
		if b {
			a.count[p.pageOf[v]]++
		}
	}
	for r, nodes := range p.pages {
		if p.free[r/64]>>(r%64)&1 == 0 {
			if err := a.nodes.Take(nodes); err != nil {
				panic("alloc: " + p.name + ": pages out of step: " + err.Error())
			}
		}
	}
	return a
}

// Allocate takes the free pages of lowest rank (Paging.Allocate) and counts
// the nodes given on each.
func (a *pagedBlocks) Allocate(k int) ([]int, error) {
	out, err := a.Paging.Allocate(k)
	if err != nil {
		return nil, err
	}
	a.took(out)
	return out, nil
}

// took counts the busy nodes on their pages, the pages taken now made busy in
// a.nodes.
func (a *pagedBlocks) took(nodes []int) {
	for _, v := range nodes {
		r := a.pageOf[v]
		if a.count[r]++; a.count[r] == 1 {
			a.tookPage(int(r))
		}
	}
}

// tookPage makes page r, free until now, busy in a.nodes and, with views, in
// the machine's free pages (Paging's, the current view's, take it before).
func (a *pagedBlocks) tookPage(r int) {
	if err := a.nodes.Take(a.pages[r]); err != nil {
		panic("alloc: " + a.name + ": pages out of step: " + err.Error())
	}
	if a.mfree != nil {
		a.mfree[r/64] &^= 1 << (r % 64)
		a.mnfree--
	}
}

// Occupy marks the nodes busy (Occupier), all or nothing: each must be free
// (on a free page) and listed once; its page is taken (several nodes of one
// page take it once) and freed when none of its nodes is busy.
func (a *pagedBlocks) Occupy(nodes []int) error {
	for j, v := range nodes {
		var err error
		switch {
		case v < 0 || v >= a.g.N():
			err = fmt.Errorf("%s: occupy: node %d is outside 0..%d", a.name, v, a.g.N()-1)
		case a.busy[v] && slices.Contains(nodes[:j], v):
			err = fmt.Errorf("%s: occupy: node %d is listed twice", a.name, v)
		case !a.nodes.IsFree(v):
			err = fmt.Errorf("%s: occupy: node %d is already busy (its page is)", a.name, v)
		}
		if err != nil {
			for _, u := range nodes[:j] {
				a.busy[u] = false
			}
			return err
		}
		a.busy[v] = true
	}
	for _, v := range nodes {
		r := int(a.pageOf[v])
		if a.free[r/64]>>(r%64)&1 != 0 {
			a.takePage(r)
		}
	}
	a.took(nodes)
	return nil
}

// Release frees the nodes (given to jobs or occupied), all or nothing: a node
// not busy or listed twice is an error. A page is freed when none of its nodes
// is busy, so a job's release frees its pages whole (its unused nodes with
// them), as Paging's.
func (a *pagedBlocks) Release(nodes []int) error {
	for j, v := range nodes {
		if v < 0 || v >= a.g.N() || !a.busy[v] {
			for _, u := range nodes[:j] {
				a.busy[u] = true
			}
			if v >= 0 && v < a.g.N() && slices.Contains(nodes[:j], v) {
				return fmt.Errorf("release: node %d is listed twice", v)
			}
			return fmt.Errorf("release of node %d (entry %d), which is not allocated", v, j)
		}
		a.busy[v] = false
	}
	for _, v := range nodes {
		a.released(int(a.pageOf[v]))
	}
	return nil
}

// OccupyFreeIn marks busy the free nodes of set (those on free pages) as
// Occupy does, writes them to taken and returns their number (BulkOccupier).
func (a *pagedBlocks) OccupyFreeIn(set, taken []uint64) int {
	k := 0
	for w, x := range set {
		t := x & a.nodes.free[w]
		taken[w] = t
		k += bits.OnesCount64(t)
	}
	for w, t := range taken {
		for ; t != 0; t &= t - 1 {
			v := w<<6 + bits.TrailingZeros64(t)
			a.busy[v] = true
			if r := int(a.pageOf[v]); a.free[r/64]>>(r%64)&1 != 0 { // a free page: taken now
				a.takePage(r)
			}
		}
	}
	a.tookIn(taken)
	return k
}

// tookIn is took for the nodes of a bitmap.
func (a *pagedBlocks) tookIn(set []uint64) {
	for w, x := range set {
		for ; x != 0; x &= x - 1 {
			r := a.pageOf[w<<6+bits.TrailingZeros64(x)]
			if a.count[r]++; a.count[r] == 1 {
				a.tookPage(int(r))
			}
		}
	}
}

// ReleaseIn frees every node of set (BulkOccupier), all or nothing, as
// Release frees them.
func (a *pagedBlocks) ReleaseIn(set []uint64) error {
	for w, x := range set {
		for ; x != 0; x &= x - 1 {
			if v := w<<6 + bits.TrailingZeros64(x); v >= a.g.N() || !a.busy[v] {
				return fmt.Errorf("release: node %d is not busy", v)
			}
		}
	}
	for w, x := range set {
		for ; x != 0; x &= x - 1 {
			v := w<<6 + bits.TrailingZeros64(x)
			a.busy[v] = false
			a.released(int(a.pageOf[v]))
		}
	}
	return nil
}

// released counts one busy node fewer on page r, freeing the page at none.
// With views the page is freed in the machine, and in the current view when
// the view holds it whole.
func (a *pagedBlocks) released(r int) {
	if a.count[r]--; a.count[r] == 0 {
		if a.mfree == nil || a.inView(r) {
			a.free[r/64] |= 1 << (r % 64)
			a.nfree++
		}
		if a.mfree != nil {
			a.mfree[r/64] |= 1 << (r % 64)
			a.mnfree++
		}
		if err := a.nodes.Release(a.pages[r]); err != nil {
			panic("alloc: " + a.name + ": pages out of step: " + err.Error())
		}
	}
}

// IsFree reports whether node v is free: its page is (Occupier), and with
// views the current view holds it whole.
func (a *pagedBlocks) IsFree(v int) bool {
	return a.nodes.IsFree(v) && (a.mfree == nil || a.inView(int(a.pageOf[v])))
}

// AppendFreeIn appends the free nodes of the bitmap set (Mask's bulk path).
func (a *pagedBlocks) AppendFreeIn(dst []int, set []uint64) []int {
	start := len(dst)
	dst = a.nodes.AppendFreeIn(dst, set)
	if a.mfree == nil {
		return dst
	}
	return append(dst[:start], slices.DeleteFunc(dst[start:], func(v int) bool { return !a.inView(int(a.pageOf[v])) })...)
}

// MayFragment is true: with nodes kept away, enough free nodes may lie on too
// few whole free pages (Fragmenting).
func (a *pagedBlocks) MayFragment() bool { return true }

// Clone returns an independent copy in the same state (Fragmenting). With
// views the copy keeps none: its free pages are the current view's, the
// nodes the view leaves out that are on free pages occupied (their pages
// taken), as a mask holding them makes them.
func (a *pagedBlocks) Clone() Fragmenting {
	p := *a.Paging
	p.free, p.busy = slices.Clone(a.free), slices.Clone(a.busy)
	c := &pagedBlocks{Paging: &p, count: slices.Clone(a.count), nodes: a.nodes.Clone()}
	if a.mfree == nil {
		return c
	}
	if in := a.vin[a.cur]; in != nil {
		out := complementOf(in, a.g.N())
		c.OccupyFreeIn(out, out)
	}
	return c
}

// ReleasesBlocks marks pagedBlocks a BlockOccupier: a job's release frees its
// pages whole.
func (a *pagedBlocks) ReleasesBlocks() {}
