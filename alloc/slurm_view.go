package alloc

import (
	"fmt"
	"math/bits"
)

// Views of the Slurm emulations (Viewer): the free state of each view (the
// machine less a node set: a replay's partition's outside; view 0 the whole
// machine), so that a decision in a partition other than the last one's costs
// no node held or freed. Slurm's select plugin is given the partition's node
// bitmap with each request; the emulation's incremental state (slurm_free.go:
// the weight order's bitset and counts, the leaf switches' and base blocks'
// counts) is per free set, so each view has its own, and a decision reads the
// current one's, as it reads the machine's without views.
//
// The machine's free nodes are kept as a bitmap (truth: every change is checked
// against it, so errors are the machine's) and in the current view's state; a
// view catches up when it is made current (UseView: the nodes it holds whose
// state changed since it was last current, found word by word). That
// bookkeeping is viewBook's (views.go), shared with the curve allocators'
// views (curve_view.go). So a node change costs what it costs without views
// plus a bit, and a change of view O(n/64) and the nodes that changed
// meanwhile, where Mask.Set without views held or freed every free node two
// partitions differ by.

// slurmView is a view's free state (its nodes are the book's, views.go).
type slurmView struct {
	st *State
	wo *weightOrder
	tf *treeFree
	bf *blockFree
	rf *ringFree
}

// AddView adds the view of the machine less away (a bitmap of the nodes) and
// returns its number (Viewer): its free nodes are the machine's outside away,
// now and after every change. O(n) once.
func (a *SlurmAllocator) AddView(away []uint64) (int, error) {
	if a.views == nil {
		a.vb.begin(a.st)
		a.views = []slurmView{a.cur()}
	}
	id, _, err := a.vb.add(a.name, away)
	if err != nil {
		if len(a.views) == 1 {
			a.views = nil
			a.vb.drop()
		}
		return 0, err
	}
	whole := &a.views[0]
	if a.vb.cur != 0 {
		a.catchUp(0, whole)
	}
	c := &SlurmAllocator{st: whole.st, wo: whole.wo, tf: whole.tf, bf: whole.bf, rf: whole.rf}
	cl := a.cloneState(c)
	var out []int
	for v := range a.m.N() {
		if away[v>>6]>>(v&63)&1 != 0 && cl.st.IsFree(v) {
			out = append(out, v)
		}
	}
	if err := cl.st.Take(out); err != nil {
		return 0, fmt.Errorf("%s: internal error: making a view: %w", a.name, err)
	}
	a.noteChangeIn(cl.cur(), out, false)
	a.views = append(a.views, cl.cur())
	return id, nil
}

// UseView makes view v (0: the whole machine) the one the decisions, NumFree,
// IsFree, AppendFreeIn and Clone see (Viewer): O(n/64) and the nodes of the view
// that changed since it was last current.
func (a *SlurmAllocator) UseView(v int) error {
	if v == a.vb.cur {
		return nil
	}
	if err := a.vb.use(a.name, v); err != nil {
		return err
	}
	vw := &a.views[v]
	a.catchUp(v, vw)
	a.st, a.wo, a.tf, a.bf, a.rf = vw.st, vw.wo, vw.tf, vw.bf, vw.rf
	return nil
}

// DropViews removes every view, the whole machine's state current again
// (Viewer).
func (a *SlurmAllocator) DropViews() {
	if a.views == nil {
		return
	}
	vw := &a.views[0]
	a.catchUp(0, vw)
	a.st, a.wo, a.tf, a.bf, a.rf = vw.st, vw.wo, vw.tf, vw.bf, vw.rf
	a.views = nil
	a.vb.drop()
}

// cloneState returns the incremental state of b (st, wo, tf, bf, rf) copied into a
// new allocator value (the rest is not set).
func (a *SlurmAllocator) cloneState(b *SlurmAllocator) *SlurmAllocator {
	c := &SlurmAllocator{st: b.st.Clone(), wo: b.wo.clone()}
	if b.tf != nil {
		c.tf = b.tf.clone()
	}
	if b.bf != nil {
		c.bf = b.bf.clone()
	}
	if b.rf != nil {
		c.rf = b.rf.clone()
	}
	return c
}

// change marks nodes free (free) or busy: in the machine's bitmap first (an
// error there, a node out of range, busy when taken, free when released,
// listed twice, changes nothing), then in the current view's state, the nodes
// it holds. Without views it is the state's own Take or Release.
func (a *SlurmAllocator) change(nodes []int, free bool) error {
	if !a.vb.on() {
		if err := stateOp(a.st, nodes, free); err != nil {
			return err
		}
		a.noteChange(nodes, free)
		return nil
	}
	if err := stateOp(a.vb.truth, nodes, free); err != nil {
		return err
	}
	in := a.vb.in()
	if in == nil { // the whole machine: every node
		if err := stateOp(a.st, nodes, free); err != nil {
			return fmt.Errorf("%s: internal error: the machine's view: %w", a.name, err)
		}
		a.noteChange(nodes, free)
		return nil
	}
	// The truth checked the change: the view's bits flip, unchecked (a view's
	// free nodes are the truth's it holds), each node's counts with them.
	d := int32(-1)
	if free {
		d = 1
	}
	for _, v := range nodes {
		w, bit := v>>6, uint64(1)<<(v&63)
		if in[w]&bit == 0 {
			continue
		}
		if free {
			a.st.free[w] |= bit
		} else {
			a.st.free[w] &^= bit
		}
		a.st.nf += int(d)
		a.noteOne(a.cur(), a.idx[v], d, free)
	}
	return nil
}

// catchUp brings view v's state vw up to the machine's free state: the nodes
// it holds (every node for view 0) whose state changed since it was last
// current (viewBook.eachChanged), O(n/64) and those nodes.
func (a *SlurmAllocator) catchUp(v int, vw *slurmView) {
	a.vb.eachChanged(v, vw.st.free, func(w int, x, t uint64) {
		for y := x; y != 0; y &= y - 1 {
			node := w<<6 + bits.TrailingZeros64(y)
			free := t>>(node&63)&1 != 0
			d := int32(-1)
			if free {
				d = 1
			}
			vw.st.nf += int(d)
			a.noteOne(*vw, a.idx[node], d, free)
		}
		vw.st.free[w] ^= x
	})
}

// cloneViews is Clone's state: the current view's alone, as the copy's whole
// machine (its nodes outside the view busy, as the original reports them).
func (a *SlurmAllocator) cloneViews(c *SlurmAllocator) {
	c.views, c.vb = nil, viewBook{}
}
