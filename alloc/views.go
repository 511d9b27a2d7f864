package alloc

import (
	"fmt"
	"math/bits"
)

// viewBook is the bookkeeping an allocator that keeps views (Viewer) shares
// with the others that do (the Slurm emulations, slurm_view.go; the curve
// allocators, curve_view.go): the machine's free nodes (truth: every change is
// made there first, so that its errors are the machine's), the nodes each view
// holds, the current view, and a view's catch-up when it is made current: the
// nodes it holds whose state changed since, found word by word where its free
// bitmap and the truth's differ (O(n/64) and those nodes). The allocator keeps
// each view's own incremental state and applies to it the changes the book
// finds: a change to the current view's, a catch-up (eachChanged's words, or
// changed's lists of nodes) to the view made current.
type viewBook struct {
	truth *State     // the machine's free nodes (nil: no views)
	ins   [][]uint64 // the nodes of each view (view 0, nil: every node)
	cur   int        // the current view
	buf   []int      // change's nodes of the current view
}

// machine returns the machine's free state: the truth with views, else st
// (the allocator's only one).
func (b *viewBook) machine(st *State) *State {
	if b.truth != nil {
		return b.truth
	}
	return st
}

// on reports whether views are kept.
func (b *viewBook) on() bool { return b.truth != nil }

// begin starts the book, when it has no views, with the machine's free state
// st (copied) and view 0 (the whole machine) current.
func (b *viewBook) begin(st *State) {
	if b.truth == nil {
		b.truth, b.ins, b.cur = st.Clone(), [][]uint64{nil}, 0
	}
}

// add registers the view of the machine less away (a bitmap of its n nodes)
// and returns its number and the nodes it holds; begin first. The view's free
// nodes are the truth's outside away: the caller makes its state so.
func (b *viewBook) add(name string, away []uint64) (int, []uint64, error) {
	n := b.truth.N()
	if len(away) != (n+63)/64 {
		return 0, nil, fmt.Errorf("%s: a view less %d words of nodes for %d nodes", name, len(away), n)
	}
	in := complementOf(away, n)
	b.ins = append(b.ins, in)
	return len(b.ins) - 1, in, nil
}

// use checks that view v exists (views: 0 to the last added; without views, 0
// alone) and makes it current in the book; the caller catches its state up
// (changed) before deciding in it.
func (b *viewBook) use(name string, v int) error {
	if v < 0 || v >= max(1, len(b.ins)) {
		return fmt.Errorf("%s: no view %d (%d)", name, v, len(b.ins))
	}
	if b.truth != nil {
		b.cur = v
	}
	return nil
}

// drop ends the views.
func (b *viewBook) drop() { *b = viewBook{buf: b.buf[:0]} }

// in returns the nodes of the current view (nil: every node).
func (b *viewBook) in() []uint64 { return b.ins[b.cur] }

// change makes the change (nodes freed when free, else taken) in the truth,
// nothing when it fails (a node out of range, busy when taken, free when
// released, listed twice: the machine's error), and returns the nodes of it
// that the current view holds, for the caller to change in that view's state
// (nodes itself for view 0; else a buffer, valid until the next call).
func (b *viewBook) change(nodes []int, free bool) ([]int, error) {
	if err := stateOp(b.truth, nodes, free); err != nil {
		return nil, err
	}
	in := b.ins[b.cur]
	if in == nil {
		return nodes, nil
	}
	b.buf = b.buf[:0]
	for _, v := range nodes {
		if in[v>>6]>>(v&63)&1 != 0 {
			b.buf = append(b.buf, v)
		}
	}
	return b.buf, nil
}

// eachChanged calls f(w, x, t) for each word w where view v's free bitmap
// vfree differs from the truth's restricted to the view's nodes (t): x the
// bits that differ (a bit of x in t: a node freed since; not in t: taken).
// O(n/64) and those words. The caller applies them to the view's state, vfree
// included.
func (b *viewBook) eachChanged(v int, vfree []uint64, f func(w int, x, t uint64)) {
	in := b.ins[v]
	for w, t := range b.truth.free {
		if in != nil {
			t &= in[w]
		}
		if x := t ^ vfree[w]; x != 0 {
			f(w, x, t)
		}
	}
}

// changed appends to freed and taken the nodes view v holds that were freed
// and taken since its free bitmap vfree was the truth's (eachChanged).
func (b *viewBook) changed(v int, vfree []uint64, freed, taken []int) ([]int, []int) {
	b.eachChanged(v, vfree, func(w int, x, t uint64) {
		for y := x & t; y != 0; y &= y - 1 {
			freed = append(freed, w<<6+bits.TrailingZeros64(y))
		}
		for y := x &^ t; y != 0; y &= y - 1 {
			taken = append(taken, w<<6+bits.TrailingZeros64(y))
		}
	})
	return freed, taken
}

// stateOp frees (free) or takes nodes in st, all or nothing.
func stateOp(st *State, nodes []int, free bool) error {
	if free {
		return st.Release(nodes)
	}
	return st.Take(nodes)
}

// switchView is an allocator's UseView (Viewer) when it keeps each view's free
// state in views (views[v], of type F): view v made current in the book, the
// current state saved as the old view's and v's loaded, then caught up with the
// machine (catchUp). The curve allocators' and MBS's.
func switchView[F any](b *viewBook, name string, views []F, v int, save func() F, load func(F), catchUp func(int) error) error {
	if v == b.cur {
		return nil
	}
	old := b.cur
	if err := b.use(name, v); err != nil {
		return err
	}
	views[old] = save()
	load(views[v])
	return catchUp(v)
}

// endViews is such an allocator's DropViews: view 0's state (the whole
// machine's) loaded and caught up when another view is current, the book
// dropped. The caller forgets its views.
func endViews[F any](b *viewBook, views []F, load func(F), catchUp func(int) error) {
	if b.cur != 0 {
		load(views[0])
		if err := catchUp(0); err != nil {
			panic(err.Error()) // catchUp's nodes come from the view's own bitmap
		}
	}
	b.drop()
}

// allIn reports whether every node of nodes is in the bitmap bm.
func allIn(bm []uint64, nodes []int) bool {
	for _, v := range nodes {
		if bm[v>>6]>>(v&63)&1 == 0 {
			return false
		}
	}
	return true
}

// complementOf returns the nodes of an n-node machine that the bitmap set
// does not hold, as a new bitmap.
func complementOf(set []uint64, n int) []uint64 {
	out := make([]uint64, len(set))
	for w, x := range set {
		out[w] = ^x
	}
	if r := n & 63; r != 0 && len(out) > 0 {
		out[len(out)-1] &= 1<<r - 1
	}
	return out
}

// countBits returns the number of nodes of a bitmap.
func countBits(set []uint64) int {
	k := 0
	for _, x := range set {
		k += bits.OnesCount64(x)
	}
	return k
}
