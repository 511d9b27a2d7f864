package alloc

import "fmt"

// Views of the Slurm emulations (Viewer): besides the machine's free state, the
// free state of each view (the machine less a node set: a replay's partition),
// every one kept up to date on every change, so that a decision in a partition
// other than the last one's costs nothing to set up. Slurm's select plugin is
// given the partition's node bitmap with each request; the emulation's
// incremental state (slurm_free.go: the weight order's bitset and counts, the
// leaf switches' and base blocks' counts) is per free set, so each view has its
// own, and a decision reads the current one's, as it reads the machine's
// without views.
//
// A change (Allocate's nodes, Release, Occupy) is checked against the
// machine's state (view 0) and then made in every view, each taking the nodes
// it holds: O(views holding the node) a node, where Mask.Set without views
// paid the free nodes two partitions differ by at every change of partition.

// slurmView is a view's free state: the nodes of in (nil: every node) that are
// free.
type slurmView struct {
	in []uint64
	st *State
	wo *weightOrder
	tf *treeFree
	bf *blockFree
}

// AddView adds the view of the machine less away (a bitmap of the nodes) and
// returns its number (Viewer): its free nodes are the machine's outside away,
// now and after every change. O(n) once.
func (a *SlurmAllocator) AddView(away []uint64) (int, error) {
	n := a.m.N()
	if len(away) != (n+63)/64 {
		return 0, fmt.Errorf("%s: a view less %d words of nodes for %d nodes", a.name, len(away), n)
	}
	if a.views == nil {
		a.views = []slurmView{{st: a.st, wo: a.wo, tf: a.tf, bf: a.bf}}
	}
	whole := a.views[0]
	c := &SlurmAllocator{st: whole.st, wo: whole.wo, tf: whole.tf, bf: whole.bf}
	cl := a.cloneState(c)
	in := make([]uint64, len(away))
	var out []int
	for w := range in {
		in[w] = ^away[w]
	}
	if r := n & 63; r != 0 {
		in[len(in)-1] &= 1<<r - 1
	}
	for v := range n {
		if away[v>>6]>>(v&63)&1 != 0 && cl.st.IsFree(v) {
			out = append(out, v)
		}
	}
	if err := cl.st.Take(out); err != nil {
		return 0, fmt.Errorf("%s: internal error: making a view: %w", a.name, err)
	}
	a.noteChangeIn(cl.wo, cl.tf, cl.bf, out, false)
	a.views = append(a.views, slurmView{in: in, st: cl.st, wo: cl.wo, tf: cl.tf, bf: cl.bf})
	return len(a.views) - 1, nil
}

// UseView makes view v (0: the whole machine) the one the decisions, NumFree,
// IsFree, AppendFreeIn and Clone see (Viewer). O(1).
func (a *SlurmAllocator) UseView(v int) error {
	if v == a.view {
		return nil
	}
	if v < 0 || v >= max(1, len(a.views)) {
		return fmt.Errorf("%s: no view %d (%d)", a.name, v, len(a.views))
	}
	vw := &a.views[v]
	a.st, a.wo, a.tf, a.bf, a.view = vw.st, vw.wo, vw.tf, vw.bf, v
	return nil
}

// DropViews removes every view, the whole machine's state current again
// (Viewer).
func (a *SlurmAllocator) DropViews() {
	if a.views == nil {
		return
	}
	vw := &a.views[0]
	a.st, a.wo, a.tf, a.bf, a.view = vw.st, vw.wo, vw.tf, vw.bf, 0
	a.views = nil
}

// cloneState returns the incremental state of b (st, wo, tf, bf) copied into a
// new allocator value (the rest is not set).
func (a *SlurmAllocator) cloneState(b *SlurmAllocator) *SlurmAllocator {
	c := &SlurmAllocator{st: b.st.Clone(), wo: b.wo.clone()}
	if b.tf != nil {
		c.tf = b.tf.clone()
	}
	if b.bf != nil {
		c.bf = b.bf.clone()
	}
	return c
}

// change marks nodes free (free) or busy in every view, the whole machine's
// first: an error there (a node out of range, busy when taken, free when
// released, listed twice) changes nothing. Without views it is the state's own
// Take or Release.
func (a *SlurmAllocator) change(nodes []int, free bool) error {
	if a.views == nil {
		if err := stateOp(a.st, nodes, free); err != nil {
			return err
		}
		a.noteChange(nodes, free)
		return nil
	}
	whole := &a.views[0]
	if err := stateOp(whole.st, nodes, free); err != nil {
		return err
	}
	a.noteChangeIn(whole.wo, whole.tf, whole.bf, nodes, free)
	// The other views: each node's Slurm index looked up once, and made in
	// every view that holds it (the whole machine's check stands for theirs:
	// a view's free nodes are the machine's in it).
	d := int32(-1)
	if free {
		d = 1
	}
	views := a.views[1:]
	for _, v := range nodes {
		w, bit := v>>6, uint64(1)<<(v&63)
		s := int32(-1)
		for j := range views {
			vw := &views[j]
			if vw.in[w]&bit == 0 {
				continue
			}
			if s < 0 {
				s = a.idx[v]
			}
			if free {
				vw.st.free[w] |= bit
			} else {
				vw.st.free[w] &^= bit
			}
			vw.st.nf += int(d)
			a.noteOne(vw.wo, vw.tf, vw.bf, s, d, free)
		}
	}
	return nil
}

func stateOp(st *State, nodes []int, free bool) error {
	if free {
		return st.Release(nodes)
	}
	return st.Take(nodes)
}

// cloneViews is Clone's state: the current view's alone, as the copy's whole
// machine (its nodes outside the view busy, as the original reports them).
func (a *SlurmAllocator) cloneViews(c *SlurmAllocator) {
	c.views, c.view = nil, 0
}
