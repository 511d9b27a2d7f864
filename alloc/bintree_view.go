package alloc

import "fmt"

// Views of bt, sbt and dbt in their partition view (blockTree) and of the
// non-contiguous trees (subTaskTree), each a Viewer: the
// tree's counts (free processors and largest wholly free block below each tree
// node) of each view (the machine less a node set: a replay's partition's
// outside; view 0 the whole machine), so that a decision in a partition other
// than the last one's holds and frees no node (alloc.Mask), where the mask
// held and freed, through the bitmap path, every free node two partitions'
// outsides differ by and made the counts again over the span of the leaves
// changed: O(n) a change of partition.
//
// A view's counts are those of the tree whose free leaves are the machine's
// free nodes that the view holds (its outside busy, each a block of one node
// as the mask made it): every rule decides on them alone (blocks_occupy.go),
// so a decision in the view is the one the mask's hold gave. The jobs' blocks
// (block, left) and the machine's free nodes (viewBook.truth) are the
// machine's, shared by every view; each change (a start, a release, an
// occupied node) is made there and in the current view's counts, and a view
// is caught up when it is made current: the nodes it holds that were freed and
// taken since (viewBook.changed), their leaves set and their ancestors' counts
// made again level by level (fixUp): O(n/64) and O(log n) a node changed since.

// btFree is the free state of one view of a BinaryTree: its free nodes and
// the tree's counts over them.
type btFree struct {
	st            *State
	free, maxFree []int32
}

// save returns the allocator's current free state.
func (a *BinaryTree) save() btFree { return btFree{st: a.st, free: a.free, maxFree: a.maxFree} }

// load makes f the allocator's current free state.
func (a *BinaryTree) load(f btFree) { a.st, a.free, a.maxFree = f.st, f.free, f.maxFree }

// AddView adds the view of the machine less away (a bitmap of the nodes) and
// returns its number (Viewer): its free nodes are the machine's outside away,
// now and after every change. O(n) once.
func (a *BinaryTree) AddView(away []uint64) (int, error) {
	if a.views == nil {
		a.vb.begin(a.st)
		a.views = []btFree{{}} // view 0's state is the current one until another is made current
	}
	id, in, err := a.vb.add(a.name, away)
	if err != nil {
		if len(a.views) == 1 {
			a.views = nil
			a.vb.drop()
		}
		return 0, err
	}
	n := a.t.n()
	f := btFree{st: NewState(n), free: make([]int32, 2*n), maxFree: make([]int32, 2*n)}
	busy := make([]uint64, len(in))
	for w, x := range a.vb.truth.free {
		busy[w] = ^(x & in[w])
	}
	f.st.TakeFreeIn(busy, busy)
	for v := range n {
		if f.st.IsFree(v) {
			b := a.t.leaf[v]
			f.free[b], f.maxFree[b] = 1, 1
		}
	}
	for p := n - 1; p >= 1; p-- {
		a.t.remake(f.free, f.maxFree, p)
	}
	a.views = append(a.views, f)
	return id, nil
}

// UseView makes view v (0: the whole machine) the one the decisions, NumFree,
// IsFree, AppendFreeIn and State see (Viewer): O(n/64) and O(log n) a node of
// the view changed since it was last current.
func (a *BinaryTree) UseView(v int) error {
	return switchView(&a.vb, a.name, a.views, v, a.save, a.load, a.catchUp)
}

// DropViews removes every view, the whole machine's state current again
// (Viewer).
func (a *BinaryTree) DropViews() {
	if a.views == nil {
		return
	}
	endViews(&a.vb, a.views, a.load, a.catchUp)
	a.views = nil
}

// machineState is the machine's free state (MachineState): with views the
// book's truth, not the current view's.
func (a *BinaryTree) machineState() *State { return a.vb.machine(a.st) }

// catchUp brings the current free state, view v's, up to the machine's: the
// nodes it holds freed and taken since it was last current.
func (a *BinaryTree) catchUp(v int) error {
	freed, taken := a.vb.changed(v, a.st.free, a.catchFreed[:0], a.catchTaken[:0])
	a.catchFreed, a.catchTaken = freed[:0], taken[:0]
	if err := a.st.Release(freed); err != nil {
		return fmt.Errorf("alloc: %s: internal error: view %d out of step with the machine: %w", a.name, v, err)
	}
	if err := a.st.Take(taken); err != nil {
		return fmt.Errorf("alloc: %s: internal error: view %d out of step with the machine: %w", a.name, v, err)
	}
	a.dirty = a.dirty[:0]
	for _, u := range freed {
		b := a.t.leaf[u]
		a.free[b], a.maxFree[b] = 1, 1
		a.dirty = append(a.dirty, b)
	}
	for _, u := range taken {
		b := a.t.leaf[u]
		a.free[b], a.maxFree[b] = 0, 0
		a.dirty = append(a.dirty, b)
	}
	a.fixUp(a.dirty)
	return nil
}

// fixUp makes again the counts of the ancestors of the leaves (tree nodes
// N..2N-1, in any order, each at most once) from their children, level by
// level, each ancestor once: O(leaves + ancestors).
func (a *BinaryTree) fixUp(leaves []int32) {
	if len(a.mark) < len(a.free) {
		a.mark = make([]uint32, len(a.free))
	}
	cur := leaves
	for len(cur) > 0 && cur[0] > 1 {
		if a.gen++; a.gen == 0 {
			clear(a.mark)
			a.gen = 1
		}
		next := a.up[:0]
		for _, b := range cur {
			if p := b / 2; a.mark[p] != a.gen {
				a.mark[p] = a.gen
				next = append(next, p)
			}
		}
		for _, p := range next {
			a.t.remake(a.free, a.maxFree, int(p))
		}
		// The next level reads next; the buffers swap (leaves is the caller's
		// until the first level is made).
		a.up, a.dirty2 = a.dirty2, next
		cur = next
	}
}

// viewTake takes nodes (given to a job or occupied, free in the machine) in
// the machine's free state when views are kept; a node busy there is an
// error and nothing changes. Without views it does nothing.
func (a *BinaryTree) viewTake(nodes []int) error {
	if !a.vb.on() {
		return nil
	}
	return a.vb.truth.Take(nodes)
}

// inView returns the nodes of the current view among nodes (nodes itself for
// the whole machine or when every one is in the view; else a buffer).
func (a *BinaryTree) inView(nodes []int) []int {
	in := a.vb.in()
	if in == nil {
		return nodes
	}
	if allIn(in, nodes) {
		return nodes
	}
	a.viewBuf = a.viewBuf[:0]
	for _, v := range nodes {
		if in[v>>6]>>(v&63)&1 != 0 {
			a.viewBuf = append(a.viewBuf, v)
		}
	}
	return a.viewBuf
}

// freeBlock returns block b (a tree node, every node of it busy) to the free
// tree: in the machine, and with views in the current view's counts, the
// nodes of it the view holds (the whole block by setBlock when it holds every
// one, else leaf by leaf).
func (a *BinaryTree) freeBlock(b int) {
	cells := a.t.cells(b, a.buf[:0])
	a.buf = cells
	if a.vb.on() {
		if err := a.vb.truth.Release(cells); err != nil {
			panic("alloc: " + a.name + " tree out of step with the machine: " + err.Error())
		}
		if in := a.inView(cells); len(in) < len(cells) {
			if err := a.st.Release(in); err != nil {
				panic("alloc: " + a.name + " tree out of step with its view: " + err.Error())
			}
			a.dirty = a.dirty[:0]
			for _, v := range in {
				l := a.t.leaf[v]
				a.free[l], a.maxFree[l] = 1, 1
				a.dirty = append(a.dirty, l)
			}
			a.fixUp(a.dirty)
			return
		}
	}
	if err := a.st.Release(cells); err != nil {
		panic("alloc: " + a.name + " tree out of step with the state: " + err.Error())
	}
	a.setBlock(b, false)
}

// viewBits returns the nodes of set that the current view holds (set itself
// without views or in view 0; else a buffer).
func (a *BinaryTree) viewBits(set []uint64) []uint64 {
	if !a.vb.on() {
		return set
	}
	in := a.vb.in()
	if in == nil {
		return set
	}
	if len(a.viewSet) < len(set) {
		a.viewSet = make([]uint64, len(set))
	}
	out := a.viewSet[:len(set)]
	for w, x := range set {
		out[w] = x & in[w]
	}
	return out
}

// remake makes tree node p's counts (free processors, largest wholly free
// block below it) in free and maxFree from its children's.
func (t *divTree) remake(free, maxFree []int32, p int) {
	f := free[2*p] + free[2*p+1]
	free[p] = f
	if int(f) == t.area(p) {
		maxFree[p] = f
	} else {
		maxFree[p] = max(maxFree[2*p], maxFree[2*p+1])
	}
}
