package alloc

import (
	"fmt"
	"math/bits"

	"github.com/procalloc/procalloc/internal/textin"
	"github.com/procalloc/procalloc/topo"
)

// The Multiple Buddy Strategy (MBS; Lo, Windisch, Liu and Nitzberg 1997, cited as a
// block-based comparator by Johnson et al. 2010 §2) keeps the free processors of a 2D
// mesh as square blocks with power-of-two sides, each block splitting into four
// buddies of half the side. A request for k processors is factored into blocks: as
// many of the largest block size as fit in k, then base-4 digits for the smaller
// sizes (k = sum over i of d_i 4^i). Blocks are served largest first: a free block
// of the size if there is one, else one obtained by splitting the smallest larger
// free block (buddy splitting), else the request for that block becomes four requests
// for blocks of half the side. Released processors merge with their buddies back
// into larger blocks. MBS always succeeds when k processors are free.
//
// procalloc's conventions (where the paper leaves a choice):
//   - Non-power-of-two meshes: the mesh is cut into root blocks as in SST's MBS
//     allocator: the largest power-of-two square at the corner of the region, then
//     the same recursively for the strip to its right (full height) and the strip
//     above it (its width). Buddies never merge across roots. A 24x24 mesh, for
//     example, has roots of side 16 (one) and 8 (five).
//   - 3D and higher meshes: each z layer (each combination of the coordinates
//     beyond x and y) is an independent 2D mesh with its own roots ("layered", as in
//     SST); blocks never span layers. 1D meshes are X x 1: every block is one node.
//   - Tori: the wraparound links are ignored (blocks are submeshes of the mesh).
//   - Which free block of a size: the one whose corner has the lowest node index
//     (lowest z, then y, then x), which makes allocations deterministic. The nodes of
//     each block are returned in node-index order, blocks in the order taken.
//   - Release accepts any set of busy nodes (not only whole jobs): each freed node
//     merges upward with its buddies, so the free blocks are always the maximal free
//     buddy blocks, a function of the free set alone.

func init() {
	register("mbs", "Multiple Buddy Strategy (Lo et al. 1997): square power-of-two buddy blocks on 2D meshes, layered in 3D",
		func(arg string, m topo.Machine, opt Options) (Allocator, error) {
			if arg != "" {
				return nil, fmt.Errorf("mbs takes no argument, got %q", textin.Clip(arg))
			}
			return NewMBS(m)
		})
}

// MBS is the Multiple Buddy Strategy allocator (W. Lo, K. Windisch, W. Liu and B.
// Nitzberg, IEEE TPDS 8(7), 1997, doi:10.1109/71.598343; the block-based comparator of
// Johnson et al. 2010 §2): square power-of-two buddy blocks, rules in mbs.go's notes.
type MBS struct {
	g  *topo.Grid
	st *State
	x  int // mesh width (dimension 1)
	y  int // mesh height (dimension 2; 1 for a 1D mesh)

	rootOf []int32    // root block of each node
	roots  []mbsRoot  // corner node and level (side 2^level)
	free   []*bitTree // free[i]: corner nodes of the free blocks of side 2^i
	nfree  []int      // number of free blocks per level

	touched []int32 // remake: the root blocks holding a node changed
	mark    []bool  // remake: per root block, in touched

	// views (mbs_view.go; nil: none): views[0] the whole machine's free state,
	// views[v] that of the machine less view v's outside; st, free and nfree
	// are views[vb.cur]'s (saved there when another view is made current); vb
	// the machine's free nodes and the nodes of each view (views.go)
	views      []mbsFree
	vb         viewBook
	catchFreed []int
	catchTaken []int
	inView     []uint64 // OccupyFreeIn, ReleaseIn with views: a bitmap's nodes in the current view
}

type mbsRoot struct {
	corner int
	level  int
}

// NewMBS returns the MBS allocator of a mesh or torus, every node free.
func NewMBS(m topo.Machine) (*MBS, error) {
	g, ok := m.(*topo.Grid)
	if !ok {
		return nil, fmt.Errorf("mbs needs a mesh or torus, not %s", m.Spec())
	}
	dims := g.Dims()
	a := &MBS{g: g, x: dims[0], y: 1, rootOf: make([]int32, g.N())}
	if len(dims) > 1 {
		a.y = dims[1]
	}
	layers := g.N() / (a.x * a.y)
	top := 0
	for l := 0; l < layers; l++ {
		a.decompose(l*a.x*a.y, 0, 0, a.x, a.y, &top)
	}
	a.free = make([]*bitTree, top+1)
	a.load(a.emptyFree())
	return a, nil
}

// emptyFree returns the free state of the machine with every node free: the
// root blocks free.
func (a *MBS) emptyFree() mbsFree {
	f := mbsFree{st: NewState(a.g.N()), free: make([]*bitTree, len(a.free)), nfree: make([]int, len(a.free))}
	for i := range f.free {
		f.free[i] = newBitTree(a.g.N())
	}
	for _, r := range a.roots {
		f.free[r.level].add(r.corner)
		f.nfree[r.level]++
	}
	return f
}

// decompose cuts the w x h region at (x0, y0) of the layer whose first node is base
// into root blocks: the largest power-of-two square at its corner, then the strip to
// its right (full height) and the strip above it.
func (a *MBS) decompose(base, x0, y0, w, h int, top *int) {
	if w <= 0 || h <= 0 {
		return
	}
	lv := bits.Len(uint(min(w, h))) - 1
	side := 1 << lv
	corner := base + x0 + y0*a.x
	id := int32(len(a.roots))
	a.roots = append(a.roots, mbsRoot{corner, lv})
	*top = max(*top, lv)
	for dy := 0; dy < side; dy++ {
		for dx := 0; dx < side; dx++ {
			a.rootOf[corner+dx+dy*a.x] = id
		}
	}
	a.decompose(base, x0+side, y0, w-side, h, top)
	a.decompose(base, x0, y0+side, side, h-side, top)
}

// Name returns "mbs", the spec Parse knows it by.
func (a *MBS) Name() string { return "mbs" }

// Machine returns the grid the allocator was built for.
func (a *MBS) Machine() topo.Machine { return a.g }

// NumFree returns the number of free nodes.
func (a *MBS) NumFree() int { return a.st.NumFree() }

// State returns the allocator's free/busy state (read it, do not change it).
func (a *MBS) State() *State { return a.st }

// machineState is the machine's free state (MachineState): with views, not
// the current view's.
func (a *MBS) machineState() *State { return a.vb.machine(a.st) }

// parent returns the corner of the block of level lv+1 holding the level-lv block at
// corner c, or -1 when that block is a root.
func (a *MBS) parent(c, lv int) int {
	r := a.roots[a.rootOf[c]]
	if lv >= r.level {
		return -1
	}
	// Offsets inside the root; clear bit lv of both to get the parent's corner.
	dx, dy := (c-r.corner)%a.x, (c-r.corner)/a.x
	return c - (dx & (1 << lv)) - (dy&(1<<lv))*a.x
}

// children returns the four corners of the level-(lv-1) buddies of block c at lv.
func (a *MBS) children(c, lv int) [4]int {
	h := 1 << (lv - 1)
	return [4]int{c, c + h, c + h*a.x, c + h + h*a.x}
}

func (a *MBS) addFree(c, lv int) {
	a.free[lv].add(c)
	a.nfree[lv]++
}

func (a *MBS) removeFree(c, lv int) {
	a.free[lv].remove(c)
	a.nfree[lv]--
}

// Allocate takes k free nodes as buddy blocks (see above).
func (a *MBS) Allocate(k int) ([]int, error) {
	if err := a.st.CheckRequest(k); err != nil {
		return nil, err
	}
	top := len(a.free) - 1
	need := make([]int, top+1)
	rest := k
	for i := top; i >= 0; i-- {
		need[i] = rest >> (2 * i)
		rest -= need[i] << (2 * i)
	}
	nodes := make([]int, 0, k)
	for i := top; i >= 0; i-- {
		for need[i] > 0 {
			if a.nfree[i] == 0 && !a.splitDownTo(i) {
				if i == 0 {
					// Cannot happen: k <= free nodes and every free node is in a block.
					panic("alloc: mbs lost track of free nodes")
				}
				need[i]--
				need[i-1] += 4
				continue
			}
			c := a.free[i].next(0)
			a.removeFree(c, i)
			side := 1 << i
			for dy := 0; dy < side; dy++ {
				for dx := 0; dx < side; dx++ {
					nodes = append(nodes, c+dx+dy*a.x)
				}
			}
			need[i]--
		}
	}
	if err := a.st.Take(nodes); err != nil {
		panic("alloc: mbs blocks out of step with the state: " + err.Error())
	}
	if a.vb.on() { // free in the current view, so in the machine
		if err := a.vb.truth.Take(nodes); err != nil {
			panic("alloc: mbs: view out of step with the machine: " + err.Error())
		}
	}
	return nodes, nil
}

// splitDownTo makes a free block of level i by splitting the smallest larger free
// block (lowest corner among those); it reports false when there is none.
func (a *MBS) splitDownTo(i int) bool {
	j := i + 1
	for j < len(a.free) && a.nfree[j] == 0 {
		j++
	}
	if j == len(a.free) {
		return false
	}
	c := a.free[j].next(0)
	// Keep splitting the corner child: it has the lowest corner of the four.
	a.split(c, j, i, c, true)
	return true
}

// split takes the free block of corner c and level j out of the free lists and
// cuts it down to level i towards node v (in the block): at each level the
// three buddies not holding v become free blocks, and the level-i block holding
// v is free when keep.
func (a *MBS) split(c, j, i, v int, keep bool) {
	a.removeFree(c, j)
	for ; j > i; j-- {
		ch := a.children(c, j)
		h := 1 << (j - 1)
		dx, dy := (v-c)%a.x, (v-c)/a.x
		in := 0
		if dx >= h {
			in++
		}
		if dy >= h {
			in += 2
		}
		for q, d := range ch {
			if q != in {
				a.addFree(d, j-1)
			}
		}
		c = ch[in]
	}
	if keep {
		a.addFree(c, i)
	}
}

// Occupy marks the nodes busy (Occupier), all or nothing: the free block
// holding each is split down to the node as Allocate splits a block
// (split), its buddies at every level staying free. The free blocks are then
// the maximal buddy blocks of the free nodes, as after any Allocate and
// Release, and MBS's choice depends on them alone, so it decides as on a
// machine where jobs took those nodes.
func (a *MBS) Occupy(nodes []int) error {
	if a.vb.on() {
		in, err := a.vb.change(nodes, false)
		if err != nil {
			return fmt.Errorf("mbs: %w", err)
		}
		if err := a.occupyNodes(in); err != nil {
			return fmt.Errorf("mbs: internal error: view %d: %w", a.vb.cur, err)
		}
		return nil
	}
	if err := a.occupyNodes(nodes); err != nil {
		return fmt.Errorf("mbs: %w", err)
	}
	return nil
}

// occupyNodes is Occupy in the current free state alone.
func (a *MBS) occupyNodes(nodes []int) error {
	if err := a.st.Take(nodes); err != nil {
		return err
	}
	for _, v := range nodes {
		r := a.roots[a.rootOf[v]]
		dx, dy := (v-r.corner)%a.x, (v-r.corner)/a.x
		for lv := 0; lv <= r.level; lv++ {
			m := ^(1<<lv - 1)
			if c := r.corner + dx&m + (dy&m)*a.x; a.free[lv].has(c) {
				a.split(c, lv, 0, v, false)
				break
			}
		}
	}
	return nil
}

// OccupyFreeIn marks busy the free nodes of set (a bitmap of the nodes), writes
// them to taken and returns their number (BulkOccupier: a Mask's hold of a
// partition's outside): the state word by word, then the free blocks of each
// root block holding a node taken made anew from its free nodes (remake), the
// maximal buddy blocks of the free nodes, as Occupy leaves them.
func (a *MBS) OccupyFreeIn(set, taken []uint64) int {
	if a.vb.on() { // the machine's free nodes of set; the current view's of them
		k := a.vb.truth.TakeFreeIn(set, taken)
		in := a.inCurrent(taken) // free in the machine, so in the view
		a.st.TakeFreeIn(in, in)
		a.remake(in)
		return k
	}
	k := a.st.TakeFreeIn(set, taken)
	a.remake(taken)
	return k
}

// inCurrent returns the nodes of set in the current view (set itself in view
// 0; else a buffer, valid until the next call).
func (a *MBS) inCurrent(set []uint64) []uint64 {
	in := a.vb.in()
	if in == nil {
		return set
	}
	if len(a.inView) < len(set) {
		a.inView = make([]uint64, len(set))
	}
	for w, x := range set {
		a.inView[w] = x & in[w]
	}
	return a.inView[:len(set)]
}

// ReleaseIn frees every node of set (BulkOccupier), all or nothing, the free
// blocks made anew as OccupyFreeIn's, the maximal buddy blocks of the free
// nodes, as Release leaves them.
func (a *MBS) ReleaseIn(set []uint64) error {
	if a.vb.on() {
		if err := a.vb.truth.ReleaseIn(set); err != nil {
			return fmt.Errorf("mbs: %w", err)
		}
		set = a.inCurrent(set)
		if err := a.st.ReleaseIn(set); err != nil {
			return fmt.Errorf("mbs: internal error: view %d: %w", a.vb.cur, err)
		}
		a.remake(set)
		return nil
	}
	if err := a.st.ReleaseIn(set); err != nil {
		return fmt.Errorf("mbs: %w", err)
	}
	a.remake(set)
	return nil
}

// remake makes anew the free blocks of the root blocks holding a node of set
// from the state: each one's free blocks out of the lists (found level by level
// in the lists, between its first and last node), then its maximal buddy
// blocks of free nodes in (a block whose nodes are all free, else its four
// buddies, down from the root; a block with no free node skipped). O(n/64 and
// the roots' rows a level): the roots are found a row of a root at a time, the
// free counts a row's words at a time, where Occupy and Release split or merge
// a block a node.
func (a *MBS) remake(set []uint64) {
	if a.mark == nil {
		a.mark = make([]bool, len(a.roots))
	}
	for w, x := range set {
		for x != 0 {
			o := bits.TrailingZeros64(x)
			v := w<<6 + o
			r := a.rootOf[v]
			if !a.mark[r] {
				a.mark[r] = true
				a.touched = append(a.touched, r)
			}
			// on past the root block's nodes of v's row
			rt := a.roots[r]
			if o += rt.corner%a.x + 1<<rt.level - v%a.x; o >= 64 {
				break
			}
			x &^= 1<<o - 1
		}
	}
	for _, r := range a.touched {
		a.mark[r] = false
		rt := a.roots[r]
		side := 1 << rt.level
		last := rt.corner + side - 1 + (side-1)*a.x
		for lv := 0; lv <= rt.level; lv++ {
			for c := a.free[lv].next(rt.corner); c >= 0 && c <= last; c = a.free[lv].next(c + 1) {
				if a.rootOf[c] == r {
					a.removeFree(c, lv)
				}
			}
		}
		a.freeBlocks(rt.corner, rt.level)
	}
	a.touched = a.touched[:0]
}

// freeBlocks adds the maximal buddy blocks of free nodes in the block of corner
// c and level lv to the free lists.
func (a *MBS) freeBlocks(c, lv int) {
	side := 1 << lv
	switch a.freeInBlock(c, side) {
	case 0:
	case side * side:
		a.addFree(c, lv)
	default:
		for _, d := range a.children(c, lv) {
			a.freeBlocks(d, lv-1)
		}
	}
}

// freeInBlock counts the free nodes of the side x side block of corner c, a
// row's words at a time.
func (a *MBS) freeInBlock(c, side int) int {
	n := 0
	for dy := range side {
		v, end := c+dy*a.x, c+dy*a.x+side
		for v < end {
			w := v >> 6
			m := ^uint64(0) << (v & 63)
			if e := end - w<<6; e < 64 {
				m &= 1<<e - 1
			}
			n += bits.OnesCount64(a.st.free[w] & m)
			v = (w + 1) << 6
		}
	}
	return n
}

// IsFree reports whether node v is free (Occupier).
func (a *MBS) IsFree(v int) bool { return a.st.IsFree(v) }

// AppendFreeIn appends the free nodes of the bitmap set (Mask's bulk path).
func (a *MBS) AppendFreeIn(dst []int, set []uint64) []int { return a.st.AppendFreeIn(dst, set) }

// Release frees the nodes; they must all be busy (else nothing changes). Each node
// becomes a free 1x1 block and merges with its buddies as far as they are free.
func (a *MBS) Release(nodes []int) error {
	if a.vb.on() {
		in, err := a.vb.change(nodes, true)
		if err != nil {
			return err
		}
		if err := a.releaseNodes(in); err != nil {
			return fmt.Errorf("mbs: internal error: view %d: %w", a.vb.cur, err)
		}
		return nil
	}
	return a.releaseNodes(nodes)
}

// releaseNodes is Release in the current free state alone.
func (a *MBS) releaseNodes(nodes []int) error {
	if err := a.st.Release(nodes); err != nil {
		return err
	}
	for _, v := range nodes {
		c, lv := v, 0
		for {
			p := a.parent(c, lv)
			if p < 0 {
				break
			}
			ch := a.children(p, lv+1)
			all := true
			for _, d := range ch {
				if d != c && !a.free[lv].has(d) {
					all = false
					break
				}
			}
			if !all {
				break
			}
			for _, d := range ch {
				if d != c {
					a.removeFree(d, lv)
				}
			}
			c, lv = p, lv+1
		}
		a.addFree(c, lv)
	}
	return nil
}
