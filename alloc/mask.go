package alloc

import (
	"errors"
	"fmt"
	"math/bits"
	"slices"
)

// Mask keeps an Occupier's decisions off a set of nodes that changes now and then
// (a replay's jobs of several Slurm partitions), at the cost of what changes rather
// than of the nodes kept off. It holds busy (Occupy) the free nodes outside the
// allowed set between decisions, not only during one as AllocateWithout does:
//
//   - Set(away) changes the set: the held nodes that away no longer lists are
//     freed, and the free nodes that away lists and the previous set did not are
//     held; a run of decisions with one set pays nothing;
//   - Release frees a job's nodes, holding those of them that the current set
//     keeps away (they would be held at the next decision anyway);
//   - Set(nil) frees every held node.
//
// A decision after Set(away) therefore sees exactly the free state that
// AllocateWithout(away) gives it (the free nodes outside away), and places the
// job on the same nodes whenever the allocator's decision depends on its free
// nodes alone, not on the order of the changes that led to them: true of Slurm's
// emulations (their incremental counts are exact, slurm_free.go) and of plan's
// torus3d and fallback (alloc/mask_test.go and plan's tests check them in
// lockstep with AllocateWithout). Between decisions the allocator reports the
// held nodes busy (NumFree, IsFree): a caller that reads the free state there
// adds Held, or calls Set(nil) first.
//
// The sets are bitmaps of the machine's nodes (bit v of word v/64: node v kept
// away); Set costs O(n/64) besides the nodes it frees and holds.
//
// With an allocator that keeps views (Viewer: the Slurm emulations, the curve
// allocators, MBS, the binary trees and paging's partition view) the sets registered with Views (a replay's partitions' outsides)
// cost nothing to change: Set switches the allocator's view, O(1), and holds
// nothing; a set that is not registered (a partition's outside with more nodes
// kept away) switches to the view of the largest registered set it holds,
// O(views x n/64), and holds only the free nodes of the rest. The Slurm emulations, the
// curve allocators and MBS make each node change (a start, a release) in the machine's
// bitmap and the current view, and bring a view up to date when it is made
// current (O(n/64) and the nodes changed since; viewBook, views.go, the
// bookkeeping they share), where without views a change of set held or freed
// every free node the two sets differ by: up to O(n) a decision when jobs of
// partitions of different sizes alternate. With an allocator that takes and
// frees the nodes of a bitmap at once (BulkOccupier: the center-based
// allocators, which keep no views) Set still holds and frees those nodes, but
// as two bitmaps, O(n/64) and one update of the allocator's tables a call.
type Mask struct {
	n     int
	away  []uint64 // the current set (nil: none)
	held  []uint64 // nodes held busy by the mask
	nheld int
	buf   []int
	diff  []uint64
	bits  []uint64 // holdBits: the nodes freed, then those held
	// With views (Views): the allocator that keeps them, each registered set
	// (by its first word's address) and its view, the sets and their sizes by
	// view, the current view, and extra: the nodes of away outside the current
	// view's set, those the mask holds (nil: none; without views, away).
	viewer Viewer
	byAddr map[*uint64]int
	sets   [][]uint64
	sizes  []int
	view   int
	extra  []uint64
	xbuf   [2][]uint64
}

// Viewer is an Occupier that keeps, besides the machine's free state, that of
// the machine less given node sets (views), each up to date on every change, and
// decides in any one of them: Slurm's select plugin is given the partition's node
// bitmap with each request, and an emulation whose incremental state is per free
// set keeps one per partition (SlurmAllocator, slurm_view.go); so does a curve
// allocator, its interval index (CurveAllocator, curve_view.go), and MBS, its
// free lists (mbs_view.go), a binary tree its counts (bintree_view.go: bt,
// sbt and dbt in their partition view, the non-contiguous trees) and paging
// in its partition view the pages each view holds whole (paging_view.go). A
// Mask switches views instead of holding and freeing the nodes two sets
// differ by.
type Viewer interface {
	Occupier
	// AddView adds the view of the machine less away (a bitmap of the nodes)
	// and returns its number (from 1; 0 is the whole machine).
	AddView(away []uint64) (int, error)
	// UseView makes view v the one decisions see: Allocate chooses among its
	// free nodes, NumFree, IsFree and AppendFreeIn report them, a clone
	// (Fragmenting) has them as its free nodes; Occupy and Release change
	// the machine, and so every view (their errors are the whole machine's).
	UseView(v int) error
	// DropViews removes the views, the whole machine current.
	DropViews()
}

// freeAppender is an Occupier that lists its free nodes of a bitmap at once
// (State.AppendFreeIn): Set's path, in place of IsFree node by node, for an
// Occupier without a bitmap path (BulkOccupier).
type freeAppender interface {
	AppendFreeIn(dst []int, set []uint64) []int
}

// BulkOccupier is an Occupier that takes and frees the nodes of a bitmap at
// once: O(n/64) and one update of what it derives from its free nodes (a center
// allocator's prefix-sum tables and free list made out of date once, from the
// least coordinates of the bitmap's nodes), where Occupy and Release take a list
// of nodes. Mask's hold then costs O(n/64) a change of set, whatever the number
// of nodes two sets differ by (the center-based allocators, which keep no
// views: center_mc1x1.go, mc.go, center_ptas.go, center_opt.go,
// genalg_graph.go; MBS, whose views hold it for nodes kept away besides a
// view's: mbs.go; the binary trees, blocks_occupy.go).
type BulkOccupier interface {
	Occupier
	// OccupyFreeIn marks busy the free nodes of set (a bitmap of the nodes),
	// writes them to taken (a bitmap as long as set) and returns their number.
	OccupyFreeIn(set, taken []uint64) int
	// ReleaseIn frees every node of set (a bitmap of the nodes), all or
	// nothing: a node of set that is not busy is an error, and nothing changes.
	ReleaseIn(set []uint64) error
}

// NewMask returns a mask of an n-node machine keeping nothing away.
func NewMask(n int) *Mask {
	return &Mask{n: n, held: make([]uint64, (n+63)/64)}
}

// Held returns the number of nodes the mask holds busy.
func (m *Mask) Held() int { return m.nheld }

// HeldNodes returns the nodes the mask holds busy as a bitmap of the machine's
// nodes (bit v of word v/64), busy in the allocator and running no job: with
// MachineState's, the machine's free nodes. Read it, do not change it; it
// changes with the mask.
func (m *Mask) HeldNodes() []uint64 { return m.held }

// MachineState returns the free state of the whole machine that allocator a
// keeps, nil when it reports none: its State, or for an allocator that keeps
// views (Viewer) the machine's, not the current view's (which leaves out the
// nodes outside the view's set). The nodes a Mask holds are busy in it
// (HeldNodes). Read it, do not change it. A Viewer that cannot report the
// machine's state gets nil, not its view's.
func MachineState(a Allocator) *State {
	if ms, ok := a.(interface{ machineState() *State }); ok {
		return ms.machineState()
	}
	if _, views := a.(Viewer); views {
		return nil
	}
	if s, ok := a.(interface{ State() *State }); ok {
		return s.State()
	}
	return nil
}

// Views registers the sets Set will be given most (a replay's partitions'
// outsides: bitmaps of the nodes, kept unchanged) with a, when a is a Viewer:
// each becomes a view of a (sets of the same nodes share one), so that Set of a
// registered set only switches views, O(1), and Set of another set (a set with
// more nodes kept away) switches to the view of the registered set it holds with
// the most nodes and holds the rest. Views then are a's, which must be the
// allocator Set and Release are given; an allocator that is not a Viewer is
// left as it is (Set holds and frees nodes). Call it on an empty mask (after
// Set(a, nil)); a's earlier views are dropped, so Views(a, nil) ends them.
func (m *Mask) Views(a Occupier, sets [][]uint64) error {
	if m.away != nil || m.nheld > 0 {
		return errors.New("mask: views registered while nodes are kept away")
	}
	v, ok := a.(Viewer)
	if !ok {
		return nil
	}
	v.DropViews()
	m.viewer, m.byAddr, m.sets, m.sizes, m.view = v, map[*uint64]int{}, [][]uint64{nil}, []int{0}, 0
	for _, set := range sets {
		if len(set) == 0 {
			continue
		}
		if len(set) != len(m.held) {
			return fmt.Errorf("mask: a set of %d words for %d nodes", len(set), m.n)
		}
		if _, seen := m.byAddr[&set[0]]; seen {
			continue
		}
		id := slices.IndexFunc(m.sets[1:], func(s []uint64) bool { return slices.Equal(s, set) }) + 1
		if id == 0 {
			var err error
			if id, err = v.AddView(set); err != nil {
				return err
			}
			if id != len(m.sets) {
				return fmt.Errorf("%s: internal error: view %d, %d expected", a.Name(), id, len(m.sets))
			}
			size := 0
			for _, x := range set {
				size += bits.OnesCount64(x)
			}
			m.sets, m.sizes = append(m.sets, set), append(m.sizes, size)
		}
		m.byAddr[&set[0]] = id
	}
	if len(m.sets) == 1 {
		m.viewer, m.byAddr, m.sets, m.sizes = nil, nil, nil, nil
	}
	return nil
}

// Set keeps the decisions that follow off the nodes of away (a bitmap of the n
// nodes; nil or empty: none): the held nodes away does not list are released, the
// free nodes it lists that are not held are occupied. away is kept until the next
// Set and must not change meanwhile. With views (Views) the view of away, or of
// the registered set it holds with the most nodes, becomes the allocator's, and
// only the nodes of away outside that set are held (those held before that
// the view leaves out stay held: its decisions do not see them).
func (m *Mask) Set(a Occupier, away []uint64) error {
	if len(away) == 0 {
		away = nil
	}
	if away != nil && len(away) != len(m.held) {
		return fmt.Errorf("mask: a set of %d words for %d nodes", len(away), m.n)
	}
	if away == nil && m.away == nil || away != nil && m.away != nil && &away[0] == &m.away[0] {
		return nil // the current set (the same bitmap): nothing changes
	}
	if m.viewer == nil {
		if err := m.hold(a, away, m.away, away); err != nil {
			return err
		}
		m.away = away
		return nil
	}
	if Occupier(m.viewer) != a {
		return fmt.Errorf("mask: %s is not the allocator whose views it keeps", a.Name())
	}
	view, extra := 0, away
	if away != nil {
		if id, ok := m.byAddr[&away[0]]; ok {
			view, extra = id, nil
		} else {
			for id := len(m.sets) - 1; id > 0; id-- {
				if m.sizes[id] > m.sizes[view] && subset(m.sets[id], away) {
					view = id
				}
			}
			if view > 0 {
				// A buffer extra does not hold now (the old set is read by hold).
				b := 0
				if len(m.extra) > 0 && len(m.xbuf[0]) > 0 && &m.extra[0] == &m.xbuf[0][0] {
					b = 1
				}
				if m.xbuf[b] == nil {
					m.xbuf[b] = make([]uint64, len(away))
				}
				extra = m.xbuf[b]
				for w, x := range away {
					extra[w] = x &^ m.sets[view][w]
				}
			}
		}
	}
	old := m.extra
	if view != m.view {
		// The held nodes are busy in every view: those of away stay held (the
		// new extra's, and those the new view leaves out), the others are
		// freed, and the nodes to hold are the free ones of extra (old's need
		// not be: they were of another view).
		if err := m.viewer.UseView(view); err != nil {
			return err
		}
		m.view, old = view, nil
	}
	if err := m.hold(a, extra, old, away); err != nil {
		return err
	}
	m.away, m.extra = away, extra
	return nil
}

// subset reports whether every node of a is in b.
func subset(a, b []uint64) bool {
	for w, x := range a {
		if x&^b[w] != 0 {
			return false
		}
	}
	return true
}

// hold changes the nodes the mask holds from those of old (nil: none) to the
// free ones of set (nil: none): the held nodes keep does not list are
// released, the free nodes set lists and old did not are occupied (those of
// old are held or busy already). keep holds set: with views it is the whole
// set kept away, of which set is the part outside the view's set, so that a
// held node the new view leaves out stays held (freeing it would change
// nothing the view's decisions see, and a later view that keeps it away would
// occupy it again).
func (m *Mask) hold(a Occupier, set, old, keep []uint64) error {
	if b, ok := a.(BulkOccupier); ok {
		return m.holdBits(b, set, old, keep)
	}
	// Free the held nodes the new set allows.
	m.buf = m.buf[:0]
	if m.nheld > 0 {
		for w, h := range m.held {
			x := h
			if keep != nil {
				x &^= keep[w]
			}
			for ; x != 0; x &= x - 1 {
				m.buf = append(m.buf, w<<6+bits.TrailingZeros64(x))
			}
		}
	}
	if len(m.buf) > 0 {
		if err := a.Release(m.buf); err != nil {
			return fmt.Errorf("%s: internal error: freeing nodes a partition no longer keeps away: %w", a.Name(), err)
		}
		for _, v := range m.buf {
			m.held[v>>6] &^= 1 << (v & 63)
		}
		m.nheld -= len(m.buf)
	}
	// Hold the free nodes the new set keeps away and the old one did not (those
	// the old one kept away are held or busy already; with a BlockOccupier,
	// whose release of held nodes may free others of the set, every free node
	// of the set).
	_, blocks := a.(BlockOccupier)
	if set != nil && old != nil && !blocks {
		m.diff = append(m.diff[:0], set...)
		for w, x := range old {
			m.diff[w] &^= x
		}
		set = m.diff
	}
	var err error
	if m.buf, err = HoldFreeIn(a, set, m.buf); err != nil {
		return err
	}
	m.markHeld(m.buf)
	return nil
}

// markHeld marks the nodes held (occupied by HoldFreeIn).
func (m *Mask) markHeld(nodes []int) {
	for _, v := range nodes {
		m.held[v>>6] |= 1 << (v & 63)
	}
	m.nheld += len(nodes)
}

// holdBits is hold for a BulkOccupier: the held nodes to free and the free
// nodes to hold as two bitmaps, one call each, O(n/64).
func (m *Mask) holdBits(a BulkOccupier, set, old, keep []uint64) error {
	if m.bits == nil {
		m.bits = make([]uint64, len(m.held))
	}
	if m.nheld > 0 {
		k := 0
		for w, h := range m.held {
			if keep != nil {
				h &^= keep[w]
			}
			m.bits[w] = h
			k += bits.OnesCount64(h)
		}
		if k > 0 {
			if err := a.ReleaseIn(m.bits); err != nil {
				return fmt.Errorf("%s: internal error: freeing nodes a partition no longer keeps away: %w", a.Name(), err)
			}
			for w, x := range m.bits {
				m.held[w] &^= x
			}
			m.nheld -= k
		}
	}
	if set == nil {
		return nil
	}
	if _, blocks := Occupier(a).(BlockOccupier); old != nil && !blocks {
		m.diff = append(m.diff[:0], set...)
		for w, x := range old {
			m.diff[w] &^= x
		}
		set = m.diff
	}
	if k := a.OccupyFreeIn(set, m.bits); k > 0 {
		for w, x := range m.bits {
			m.held[w] |= x
		}
		m.nheld += k
	}
	return nil
}

// Release frees a job's nodes (measured by c, as Clock.Release does), holding those
// the current set keeps away. A node that is not busy, or listed twice, is an
// error, and nothing changes.
//
// With a BlockOccupier (bt, sbt, dbt, paging with pages of several nodes:
// ForPartitions), whose release frees a job's whole block or pages, the job's
// nodes are released whole and then the free nodes the current set keeps away
// are held (those of the job and the rest of its block or pages): the free
// state is then the same, and the allocator's is that of the machine whose
// busy nodes are the running jobs' blocks and the nodes kept away.
func (m *Mask) Release(c *Clock, a Occupier, nodes []int) error {
	if m.holding() == nil {
		return c.Release(a, nodes)
	}
	if _, ok := a.(BlockOccupier); ok {
		return m.releaseBlocks(c, a, nodes)
	}
	m.buf = m.buf[:0]
	kept := 0
	for j, v := range nodes {
		if !m.keptAway(v) {
			m.buf = append(m.buf, v)
			continue
		}
		if a.IsFree(v) || m.held[v>>6]>>(v&63)&1 != 0 {
			m.undo(nodes[:j])
			return fmt.Errorf("release: node %d is not busy", v)
		}
		m.held[v>>6] |= 1 << (v & 63)
		kept++
	}
	if kept == 0 {
		return c.Release(a, nodes)
	}
	// Called even with every node held, so that c counts one release per job.
	if err := c.Release(a, m.buf); err != nil {
		m.undo(nodes)
		return err
	}
	m.nheld += kept
	return nil
}

// holding is the nodes the mask holds when free: the current set, or with
// views its nodes outside the current view's set (nil: none).
func (m *Mask) holding() []uint64 {
	if m.viewer != nil {
		return m.extra
	}
	return m.away
}

// keptAway reports whether the mask holds node v when it is free.
func (m *Mask) keptAway(v int) bool {
	h := m.holding()
	return v >= 0 && v < m.n && h[v>>6]>>(v&63)&1 != 0
}

// undo clears the held bits Release set for nodes.
func (m *Mask) undo(nodes []int) {
	for _, v := range nodes {
		if m.keptAway(v) {
			m.held[v>>6] &^= 1 << (v & 63)
		}
	}
}

// releaseBlocks is Release for a BlockOccupier: the job released whole, then
// the free nodes of the current set held (HoldFreeIn; O(n/64) and the nodes
// freed there).
func (m *Mask) releaseBlocks(c *Clock, a Occupier, nodes []int) error {
	for _, v := range nodes {
		if v >= 0 && v < m.n && m.held[v>>6]>>(v&63)&1 != 0 {
			return fmt.Errorf("release: node %d is not busy", v)
		}
	}
	if err := c.Release(a, nodes); err != nil {
		return err
	}
	if b, ok := a.(BulkOccupier); ok {
		if m.bits == nil {
			m.bits = make([]uint64, len(m.held))
		}
		if k := b.OccupyFreeIn(m.holding(), m.bits); k > 0 {
			for w, x := range m.bits {
				m.held[w] |= x
			}
			m.nheld += k
		}
		return nil
	}
	var err error
	if m.buf, err = HoldFreeIn(a, m.holding(), m.buf); err != nil {
		return err
	}
	m.markHeld(m.buf)
	return nil
}
