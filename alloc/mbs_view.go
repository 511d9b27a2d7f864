package alloc

import "fmt"

// Views of MBS (Viewer): the free state of each view (the machine less a node
// set: a replay's partition's outside; view 0 the whole machine), so that a
// decision in a partition other than the last one's holds and frees no node
// (alloc.Mask). MBS decides on its free blocks, the maximal buddy blocks of its
// free nodes (mbs.go), so each view keeps its own State and free lists, and a
// decision reads the current one's as it reads the machine's without views.
//
// The bookkeeping is the curve allocators' (viewBook, views.go; curve_view.go):
// every change made in the machine's free bitmap and in the current view's
// state, and a view caught up when it is made current: the nodes it holds
// that were freed and taken since it was last current, found word by word,
// released and occupied node by node (each merged with its free buddies, or
// its free block split down to it, as Release and Occupy do). A change of view
// costs O(n/64) and O(log n) a node changed since, where the bitmap path
// (OccupyFreeIn, ReleaseIn) made anew the free blocks of every root block
// holding a node that the two partitions' outsides differ by.

// mbsFree is MBS's free state: the State and the free lists of one view.
type mbsFree struct {
	st    *State
	free  []*bitTree
	nfree []int
}

// save returns the allocator's current free state.
func (a *MBS) save() mbsFree { return mbsFree{st: a.st, free: a.free, nfree: a.nfree} }

// load makes f the allocator's current free state.
func (a *MBS) load(f mbsFree) { a.st, a.free, a.nfree = f.st, f.free, f.nfree }

// AddView adds the view of the machine less away (a bitmap of the nodes) and
// returns its number (Viewer): its free nodes are the machine's outside away,
// now and after every change. O(n) once.
func (a *MBS) AddView(away []uint64) (int, error) {
	if a.views == nil {
		a.vb.begin(a.st)
		a.views = []mbsFree{{}} // view 0's state is the current one until another is made current
	}
	id, in, err := a.vb.add("mbs", away)
	if err != nil {
		if len(a.views) == 1 {
			a.views = nil
			a.vb.drop()
		}
		return 0, err
	}
	// The view's busy nodes: the machine's, and those it does not hold.
	busy := make([]uint64, len(in))
	for w, f := range a.vb.truth.free {
		busy[w] = ^(f & in[w])
	}
	cur := a.save()
	a.load(a.emptyFree())
	a.st.TakeFreeIn(busy, busy)
	a.remake(busy)
	f := a.save()
	a.load(cur)
	a.views = append(a.views, f)
	return id, nil
}

// UseView makes view v (0: the whole machine) the one the decisions, NumFree,
// IsFree, AppendFreeIn and State see (Viewer): O(n/64) and O(log n) a node of
// the view changed since it was last current.
func (a *MBS) UseView(v int) error {
	return switchView(&a.vb, "mbs", a.views, v, a.save, a.load, a.catchUp)
}

// DropViews removes every view, the whole machine's state current again
// (Viewer).
func (a *MBS) DropViews() {
	if a.views == nil {
		return
	}
	endViews(&a.vb, a.views, a.load, a.catchUp)
	a.views = nil
}

// catchUp brings the current free state, view v's, up to the machine's: the
// nodes it holds freed and taken since it was last current (viewBook.changed).
// Many nodes (more than catchUpBulk) go through the bitmap path (the free
// blocks of the root blocks holding them made anew, remake), fewer node by
// node.
func (a *MBS) catchUp(v int) error {
	freed, taken := a.vb.changed(v, a.st.free, a.catchFreed[:0], a.catchTaken[:0])
	a.catchFreed, a.catchTaken = freed[:0], taken[:0]
	var err error
	if len(freed)+len(taken) > catchUpBulk {
		err = a.catchUpBits(freed, taken)
	} else if err = a.releaseNodes(freed); err == nil {
		err = a.occupyNodes(taken)
	}
	if err != nil {
		return fmt.Errorf("alloc: mbs: internal error: view %d out of step with the machine: %w", v, err)
	}
	return nil
}

// catchUpBulk is the number of nodes changed above which catchUp takes the
// bitmap path: a root block's rows a level cost about as much as this many
// nodes merged or split one by one.
const catchUpBulk = 64

// catchUpBits frees the nodes freed and takes the nodes taken in the current
// state through the bitmap path (ReleaseIn's and OccupyFreeIn's without views).
func (a *MBS) catchUpBits(freed, taken []int) error {
	bm := a.bitsOf(freed)
	if err := a.st.ReleaseIn(bm); err != nil {
		return err
	}
	a.remake(bm)
	bm = a.bitsOf(taken)
	if a.st.TakeFreeIn(bm, bm) != len(taken) {
		return fmt.Errorf("occupy: of %d nodes taken since, some are busy in the view", len(taken))
	}
	a.remake(bm)
	return nil
}

// bitsOf returns the nodes as a bitmap (a buffer, valid until the next call).
func (a *MBS) bitsOf(nodes []int) []uint64 {
	words := len(a.st.free)
	if len(a.inView) < words {
		a.inView = make([]uint64, words)
	}
	bm := a.inView[:words]
	clear(bm)
	for _, u := range nodes {
		bm[u>>6] |= 1 << (u & 63)
	}
	return bm
}
