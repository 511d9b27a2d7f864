package alloc

import (
	"errors"
	"fmt"
	"math/bits"
	"slices"
	"strconv"
	"strings"

	"github.com/procalloc/procalloc/internal/textin"
	"github.com/procalloc/procalloc/topo"
)

// The binary-tree family of Liu, Hsu and Wu, "I/O Processor Allocation for Mesh
// Cluster Computers" (§3; the paper file gives no DOI or year), for 2D meshes of
// 2^m x 2^n nodes, optionally with I/O nodes along one side (mesh:16x16:io=left).
//
// The division tree (§3.1, §4.1's "orthogonal division"): the root is the whole mesh;
// a rectangle is cut in the middle of its longer side; procalloc's choices where the
// paper is silent:
//   - a square is cut across the axis pointing away from the I/O side (into two
//     halves that both touch the I/O side's direction: for io=left or io=right the
//     cut is vertical, giving two tall halves, the "wide front" of §3.1), across x
//     when the mesh has no I/O nodes;
//   - the "left" child is the half nearer the I/O side along the cut axis (for
//     io=right the half of higher x, for io=top the half of higher y); when the cut
//     axis is parallel to the I/O side, or there are no I/O nodes, the half of lower
//     coordinate.
//
// bt (§3.1): a request for k processors takes a wholly free tree node (a block) of
// A = 2^ceil(log2 k) processors, the smallest that holds it (log2 A - 1 < log2 k <=
// log2 A). The search descends from the root and backtracks to the sibling on
// external fragmentation; procalloc keeps, per tree node, the largest wholly free
// block below it, so the descent only enters children that hold such a block, which
// is the backtracking search without its dead ends: bt takes the first free block of
// size A in left-to-right order. The whole block is reserved for the job (the
// internal fragmentation that §3.2's non-contiguous variants remove); the job gets
// its first k nodes in column-first order from the side facing the I/O nodes
// (column by column from x = 0 for io=left or no I/O nodes, from x = X-1 for
// io=right; row by row from the I/O row for io=bottom and io=top; each column or row
// in increasing coordinate). The block is freed when all k nodes are released. When
// no free block of size A exists although k processors are free, Allocate fails with
// an error wrapping ErrFragmented (the caller waits for a release).
//
// sbt:ALPHA and dbt:RATIO (§3.1, "imbalance tolerance"): when both children of the
// current node hold a free block of size A, the search prefers the child with the
// heavier load (fewer free processors; the left one on ties) if, after taking A
// processors from it, its free count differs from its sibling's by at most the
// tolerance; otherwise it takes the lighter child. The tolerance is ALPHA processors
// for sbt (static; Liu tests 4, 16, 64, 256; any integer 0..N is accepted) and RATIO
// times the current node's size for dbt (dynamic; Liu tests 1/16 to 1/2; a fraction
// or decimal in [0, 1]). A large tolerance packs jobs (compact); a small one spreads
// them (balanced towards the I/O nodes).
//
// Non-contiguous variants (§3.2): ind-bt, ind-sbt:ALPHA, ind-dbt:RATIO and the
// dependent d-bt, d-sbt:ALPHA, d-dbt:RATIO split a request into sub-tasks of the
// powers of two of its binary representation, largest first, and give each a free
// block of exactly its size with the base rule (no internal fragmentation). An
// independent variant searches from the root for every sub-task; a dependent one
// searches for the next sub-task below the parent of the last block taken, and
// climbs towards the root (to the grandparent, and so on) while that subtree has no
// free block of the size. A sub-task with no free block anywhere (external
// fragmentation) is split into two sub-tasks of half its size, which procalloc
// chooses as MBS does (§3.2 borrows MBS's decomposition); so these allocators always
// succeed when k processors are free. Nodes are returned block by block, in the order
// taken, column-first inside each block.

// ErrFragmented is wrapped by contiguous allocators (bt, sbt, dbt) when enough
// processors are free but no free block can hold the request.
var ErrFragmented = errors.New("no free block large enough (external fragmentation)")

// divTree is the orthogonal division of a 2^m x 2^n mesh: tree node 1 is the mesh,
// the children of node i are 2i (the "left" half) and 2i+1; the leaves N..2N-1 are
// single compute nodes.
type divTree struct {
	g         *topo.Grid
	x, y      int
	x0, y0    []int32 // corner of each tree node
	w, h      []int32 // sides
	leaf      []int32 // tree node of each compute node
	side      topo.IOSide
	hasIO     bool
	leafOrder []int // compute nodes in left-to-right leaf order
}

// newDivTree checks that g is a 2D mesh with power-of-two sides and builds its
// division tree.
func newDivTree(m topo.Machine, family string) (*divTree, error) {
	g, ok := m.(*topo.Grid)
	if !ok || g.Dim() != 2 || g.Wraps() {
		return nil, fmt.Errorf("%s needs a 2D mesh of 2^m x 2^n nodes, not %s", family, m.Spec())
	}
	d := g.Dims()
	if bits.OnesCount(uint(d[0])) != 1 || bits.OnesCount(uint(d[1])) != 1 {
		return nil, fmt.Errorf("%s needs a 2D mesh of 2^m x 2^n nodes (Liu et al. §3.1), not %s: use a mesh such as mesh:16x16 or mesh:32x16", family, m.Spec())
	}
	n := g.N()
	t := &divTree{g: g, x: d[0], y: d[1],
		x0: make([]int32, 2*n), y0: make([]int32, 2*n), w: make([]int32, 2*n), h: make([]int32, 2*n),
		leaf: make([]int32, n)}
	if io := g.IO(); io != nil {
		t.side, t.hasIO = io.Side, true
	}
	t.x0[1], t.y0[1], t.w[1], t.h[1] = 0, 0, int32(d[0]), int32(d[1])
	for i := 1; i < n; i++ {
		x0, y0, w, h := t.x0[i], t.y0[i], t.w[i], t.h[i]
		cutX := w > h || (w == h && (!t.hasIO || t.side.Vertical()))
		l, r := 2*i, 2*i+1
		if cutX {
			t.w[l], t.w[r], t.h[l], t.h[r] = w/2, w/2, h, h
			t.y0[l], t.y0[r] = y0, y0
			t.x0[l], t.x0[r] = x0, x0+w/2
			if t.hasIO && t.side == topo.IORight {
				t.x0[l], t.x0[r] = x0+w/2, x0
			}
		} else {
			t.w[l], t.w[r], t.h[l], t.h[r] = w, w, h/2, h/2
			t.x0[l], t.x0[r] = x0, x0
			t.y0[l], t.y0[r] = y0, y0+h/2
			if t.hasIO && t.side == topo.IOTop {
				t.y0[l], t.y0[r] = y0+h/2, y0
			}
		}
	}
	for i := n; i < 2*n; i++ {
		v := int(t.x0[i]) + int(t.y0[i])*t.x
		t.leaf[v] = int32(i)
		t.leafOrder = append(t.leafOrder, v)
	}
	return t, nil
}

func (t *divTree) n() int         { return len(t.leaf) }
func (t *divTree) area(i int) int { return int(t.w[i]) * int(t.h[i]) }
func (t *divTree) isAncestor(a, b int) bool {
	for b >= a {
		if a == b {
			return true
		}
		b >>= 1
	}
	return false
}

// cells appends the compute nodes of tree node i in column-first order from the
// side facing the I/O nodes (see the package notes).
func (t *divTree) cells(i int, dst []int) []int {
	x0, y0, w, h := int(t.x0[i]), int(t.y0[i]), int(t.w[i]), int(t.h[i])
	side := topo.IOLeft
	if t.hasIO {
		side = t.side
	}
	switch side {
	case topo.IOLeft, topo.IORight:
		for a := range w {
			x := x0 + a
			if side == topo.IORight {
				x = x0 + w - 1 - a
			}
			for y := y0; y < y0+h; y++ {
				dst = append(dst, x+y*t.x)
			}
		}
	default:
		for b := range h {
			y := y0 + b
			if side == topo.IOTop {
				y = y0 + h - 1 - b
			}
			for x := x0; x < x0+w; x++ {
				dst = append(dst, x+y*t.x)
			}
		}
	}
	return dst
}

// treeRule is how a tree allocator chooses between two children that both hold a
// free block: always the left one (bt), or by imbalance tolerance (sbt, dbt).
type treeRule struct {
	kind  byte    // 'b' bt, 's' sbt, 'd' dbt
	alpha int     // sbt tolerance
	ratio float64 // dbt tolerance ratio
	arg   string  // as given, for the name
}

type treeMode byte

const (
	contiguous  treeMode = iota // bt, sbt, dbt
	independent                 // ind-*
	dependent                   // d-*
)

// BinaryTree is the bt family of Liu et al. §3 (see the package notes above).
type BinaryTree struct {
	name string
	t    *divTree
	st   *State
	rule treeRule
	mode treeMode

	free    []int32 // free processors per tree node
	maxFree []int32 // largest wholly free block below each tree node
	block   []int32 // per compute node given to a job: its block (tree node), else 0
	left    []int32 // per block: its nodes given out and not yet released
	seen    []bool  // scratch for Release
	buf     []int

	// Views (bt, sbt, dbt in their partition view, bintree_view.go): with
	// views st, free and maxFree are the current view's, the machine's free
	// nodes the book's truth, block and left the machine's.
	vb                     viewBook
	views                  []btFree
	catchFreed, catchTaken []int
	dirty, up, dirty2      []int32  // fixUp's levels
	mark                   []uint32 // fixUp's ancestors seen, by generation
	gen                    uint32
	viewBuf                []int
	viewSet                []uint64
	done, leaves           []int // Release's blocks freed
}

func parseTreeRule(kind byte, arg string, n int) (treeRule, error) {
	r := treeRule{kind: kind, arg: arg}
	switch kind {
	case 'b':
		if arg != "" {
			return r, fmt.Errorf("takes no argument, got %q", textin.Clip(arg))
		}
	case 's':
		a, err := strconv.Atoi(arg)
		if err != nil || a < 0 || a > n {
			return r, fmt.Errorf("imbalance tolerance %q: want an integer number of processors 0..%d, e.g. sbt:16 (Liu tests 4, 16, 64, 256)", textin.Clip(arg), n)
		}
		r.alpha = a
	case 'd':
		f, err := parseRatio(arg)
		if err != nil {
			return r, fmt.Errorf("tolerance ratio %q: %w; e.g. dbt:1/4 or dbt:0.25 (Liu tests 1/16, 1/8, 1/4, 1/2)", textin.Clip(arg), err)
		}
		r.ratio = f
	}
	return r, nil
}

// parseRatio reads "P/Q" or a decimal in [0, 1].
func parseRatio(s string) (float64, error) {
	var f float64
	if p, q, ok := strings.Cut(s, "/"); ok {
		a, err1 := strconv.Atoi(p)
		b, err2 := strconv.Atoi(q)
		if err1 != nil || err2 != nil || b <= 0 {
			return 0, errors.New("want a fraction P/Q of integers with Q > 0")
		}
		f = float64(a) / float64(b)
	} else {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return 0, errors.New("want a fraction P/Q or a decimal")
		}
		f = v
	}
	if !(f >= 0 && f <= 1) {
		return 0, errors.New("must be between 0 and 1")
	}
	return f, nil
}

func init() {
	for _, base := range []struct {
		kind byte
		name string
		arg  string
	}{{'b', "bt", "no ARG"}, {'s', "sbt", "ARG: ALPHA, the static imbalance tolerance in processors (e.g. sbt:16)"},
		{'d', "dbt", "ARG: RATIO, the tolerance relative to the block, P/Q or a decimal in [0,1] (e.g. dbt:1/4)"}} {
		for _, mode := range []struct {
			m      treeMode
			prefix string
			what   string
		}{{contiguous, "", "contiguous block of the next power of two"},
			{independent, "ind-", "non-contiguous, power-of-two sub-tasks searched from the root"},
			{dependent, "d-", "non-contiguous, each sub-task searched next to the previous one"}} {
			name := mode.prefix + base.name
			kind, m := base.kind, mode.m
			register(name, fmt.Sprintf("binary tree allocation (Liu et al. §3): %s. %s", mode.what, base.arg),
				func(arg string, mc topo.Machine, opt Options) (Allocator, error) {
					a, err := newBinaryTree(name, kind, arg, m, mc)
					if err != nil {
						return nil, err
					}
					if m == contiguous {
						return a, nil
					}
					return &subTaskTree{a}, nil
				})
		}
	}
}

// newBinaryTree returns the tree allocator family ("bt", "ind-sbt", ...) with base
// rule kind ('b', 's', 'd'), its argument and mode on machine m.
func newBinaryTree(family string, kind byte, arg string, mode treeMode, m topo.Machine) (*BinaryTree, error) {
	t, err := newDivTree(m, family)
	if err != nil {
		return nil, err
	}
	rule, err := parseTreeRule(kind, arg, m.N())
	if err != nil {
		return nil, err
	}
	name := family
	if arg != "" {
		name += ":" + arg
	}
	n := t.n()
	a := &BinaryTree{name: name, t: t, st: NewState(n), rule: rule, mode: mode,
		free: make([]int32, 2*n), maxFree: make([]int32, 2*n), block: make([]int32, n), left: make([]int32, 2*n)}
	for i := 1; i < 2*n; i++ {
		a.free[i] = int32(t.area(i))
		a.maxFree[i] = a.free[i]
	}
	return a, nil
}

// Name returns the spec the allocator was built from, e.g. "sbt:16" or "ind-dbt:1/4".
func (a *BinaryTree) Name() string { return a.name }

// Machine returns the grid the allocator was built for.
func (a *BinaryTree) Machine() topo.Machine { return a.t.g }

// NumFree returns the number of free nodes.
func (a *BinaryTree) NumFree() int { return a.st.NumFree() }

// MayFragment reports whether the allocator can refuse a request that the free
// count allows: bt, sbt and dbt can (no free block of the size), the
// non-contiguous variants cannot.
func (a *BinaryTree) MayFragment() bool { return a.mode == contiguous }

// Clone returns an independent copy in the same state (Fragmenting); the scratch
// buffers, which every call leaves clean, are shared. With views (blockTree)
// the copy keeps none: its free nodes are the current view's, the nodes the
// view leaves out that are free in the machine each busy as a block of one
// node, as a mask holding them makes them.
func (a *BinaryTree) Clone() Fragmenting {
	c := *a
	c.st = a.st.Clone()
	c.free = slices.Clone(a.free)
	c.maxFree = slices.Clone(a.maxFree)
	c.block = slices.Clone(a.block)
	c.left = slices.Clone(a.left)
	c.mark, c.gen = nil, 0 // fixUp's marks are by generation: never shared
	if a.vb.on() {
		if in := a.vb.in(); in != nil {
			for w, x := range a.vb.truth.free {
				for x &^= in[w]; x != 0; x &= x - 1 {
					v := w<<6 + bits.TrailingZeros64(x)
					b := c.t.leaf[v]
					c.block[v], c.left[b] = b, 1
				}
			}
		}
		c.vb, c.views = viewBook{}, nil
		c.catchFreed, c.catchTaken, c.viewBuf, c.viewSet = nil, nil, nil, nil
	}
	return &c
}

// State returns the allocator's free/busy state (reserved nodes count as busy).
func (a *BinaryTree) State() *State { return a.st }

// prefer chooses between children l and r of node p that both hold a free block of
// size A (see sbt and dbt above).
func (a *BinaryTree) prefer(p, l, r, A int) int {
	if a.rule.kind == 'b' {
		return l
	}
	heavy, light := l, r
	if a.free[r] < a.free[l] {
		heavy, light = r, l
	}
	tol := float64(a.rule.alpha)
	if a.rule.kind == 'd' {
		tol = a.rule.ratio * float64(a.t.area(p))
	}
	imb := int(a.free[heavy]) - A - int(a.free[light])
	if imb < 0 {
		imb = -imb
	}
	if float64(imb) <= tol {
		return heavy
	}
	return light
}

// find returns a wholly free tree node of area A below s chosen by the rule, or 0.
func (a *BinaryTree) find(s, A int) int {
	if int(a.maxFree[s]) < A || a.t.area(s) < A {
		return 0
	}
	p := s
	for a.t.area(p) > A {
		l, r := 2*p, 2*p+1
		okL, okR := int(a.maxFree[l]) >= A, int(a.maxFree[r]) >= A
		switch {
		case okL && okR:
			p = a.prefer(p, l, r, A)
		case okL:
			p = l
		default:
			p = r
		}
	}
	return p
}

// setBlock marks tree node b and its subtree wholly busy (take) or free, and updates
// its ancestors.
func (a *BinaryTree) setBlock(b int, take bool) {
	n := a.t.n()
	lo, hi := b, b
	for lo < 2*n {
		for i := lo; i <= hi; i++ {
			if take {
				a.free[i], a.maxFree[i] = 0, 0
			} else {
				a.free[i] = int32(a.t.area(i))
				a.maxFree[i] = a.free[i]
			}
		}
		lo, hi = 2*lo, 2*hi+1
	}
	d := int32(a.t.area(b))
	if take {
		d = -d
	}
	for p := b / 2; p >= 1; p /= 2 {
		a.free[p] += d
		if int(a.free[p]) == a.t.area(p) {
			a.maxFree[p] = a.free[p]
		} else {
			a.maxFree[p] = max(a.maxFree[2*p], a.maxFree[2*p+1])
		}
	}
}

// Allocate gives k nodes (see the package notes for each variant).
func (a *BinaryTree) Allocate(k int) ([]int, error) {
	if err := a.st.CheckRequest(k); err != nil {
		return nil, err
	}
	if a.mode == contiguous {
		A := 1 << bits.Len(uint(k-1))
		b := a.find(1, A)
		if b == 0 {
			return nil, fmt.Errorf("request for %d nodes (a block of %d), %d free: %w", k, A, a.st.NumFree(), ErrFragmented)
		}
		cells := a.t.cells(b, a.buf[:0])
		a.buf = cells
		if err := a.st.Take(cells); err != nil {
			panic("alloc: " + a.name + " tree out of step with the state: " + err.Error())
		}
		if err := a.viewTake(cells); err != nil {
			panic("alloc: " + a.name + " tree out of step with the machine: " + err.Error())
		}
		a.setBlock(b, true)
		nodes := append([]int(nil), cells[:k]...)
		for _, v := range nodes {
			a.block[v] = int32(b)
		}
		a.left[b] = int32(k)
		return nodes, nil
	}
	var blocks []int
	want := []int{}
	for i := bits.Len(uint(k)) - 1; i >= 0; i-- {
		if k>>i&1 == 1 {
			want = append(want, 1<<i)
		}
	}
	last := 0
	for len(want) > 0 {
		A := want[0]
		b := 0
		if a.mode == dependent && last > 1 {
			for s := last / 2; s >= 1 && b == 0; s /= 2 {
				b = a.find(s, A)
			}
		} else {
			b = a.find(1, A)
		}
		if b == 0 {
			if A == 1 {
				panic("alloc: " + a.name + " lost track of free nodes")
			}
			want = append([]int{A / 2, A / 2}, want[1:]...)
			continue
		}
		want = want[1:]
		a.setBlock(b, true)
		blocks = append(blocks, b)
		last = b
	}
	nodes := make([]int, 0, k)
	for _, b := range blocks {
		start := len(nodes)
		nodes = a.t.cells(b, nodes)
		for _, v := range nodes[start:] {
			a.block[v] = int32(b)
		}
		a.left[b] = int32(len(nodes) - start)
	}
	if err := a.st.Take(nodes); err != nil {
		panic("alloc: " + a.name + " tree out of step with the state: " + err.Error())
	}
	if err := a.viewTake(nodes); err != nil {
		panic("alloc: " + a.name + " tree out of step with the machine: " + err.Error())
	}
	return nodes, nil
}

// subTaskTree is a non-contiguous variant of the binary-tree family (ind-*,
// d-*): a BinaryTree that is an Occupier. Its jobs get blocks of exactly their
// sizes, so a release frees the nodes it names and no other, and a node can
// be busy as a block of its own. The contiguous bt, sbt and dbt are not
// Occupiers (whyNoOccupy); ForPartitions gives them a view for partitions
// (blockTree, blocks_occupy.go).
type subTaskTree struct{ *BinaryTree }

// Occupy marks the nodes busy (Occupier), all or nothing: each becomes a block
// of one node given out (setBlock on its leaf, as Allocate takes a sub-task's
// block), freed by Release as a job's block. The tree's counts are then those
// of the free nodes left (free processors and the largest wholly free block
// below each tree node, functions of the free leaves alone), on which every
// rule decides, so the allocator decides as on a machine where jobs of one
// node took them.
func (a *subTaskTree) Occupy(nodes []int) error { return a.occupyLeaves(nodes) }

// occupyLeaves marks the nodes busy, all or nothing, each a block of one node
// given out (its leaf), freed by Release as a job's block: subTaskTree's and
// blockTree's Occupy.
//
// With views (blockTree) the nodes are taken in the machine, and those the
// current view holds in its counts.
func (a *BinaryTree) occupyLeaves(nodes []int) error {
	in := nodes
	if a.vb.on() {
		if err := a.vb.truth.Take(nodes); err != nil {
			return fmt.Errorf("%s: %w", a.name, err)
		}
		in = a.inView(nodes)
		if err := a.st.Take(in); err != nil {
			panic("alloc: " + a.name + " tree out of step with its view: " + err.Error())
		}
	} else if err := a.st.Take(nodes); err != nil {
		return fmt.Errorf("%s: %w", a.name, err)
	}
	for _, v := range nodes {
		b := a.t.leaf[v]
		a.block[v], a.left[b] = b, 1
	}
	a.setLeafList(in, 0)
	return nil
}

// setLeafList sets the leaves of nodes (each listed once) free (f = 1) or
// busy (0) in the tree's counts, and makes their ancestors' counts again
// (fixUp): O(nodes + ancestors), where setBlock on each leaf is O(log n) a
// node.
func (a *BinaryTree) setLeafList(nodes []int, f int32) {
	if len(nodes) == 0 {
		return
	}
	a.dirty = a.dirty[:0]
	for _, v := range nodes {
		b := a.t.leaf[v]
		a.free[b], a.maxFree[b] = f, f
		a.dirty = append(a.dirty, b)
	}
	a.fixUp(a.dirty)
}

// IsFree reports whether node v is free (Occupier).
func (a *subTaskTree) IsFree(v int) bool { return a.st.IsFree(v) }

// AppendFreeIn appends the free nodes of the bitmap set (Mask's bulk path).
func (a *subTaskTree) AppendFreeIn(dst []int, set []uint64) []int { return a.st.AppendFreeIn(dst, set) }

// Clone returns an independent copy in the same state (Fragmenting), an
// Occupier too.
func (a *subTaskTree) Clone() Fragmenting {
	return &subTaskTree{a.BinaryTree.Clone().(*BinaryTree)}
}

// whyNoOccupy says why bt, sbt and dbt are not Occupiers (NoRestriction).
func (a *BinaryTree) whyNoOccupy() string {
	return "it reserves a whole block of the next power of two for each job and frees the block with the job, nodes the job was not given included, so nodes kept from its decisions (a partition's outside) would be freed by other jobs' releases (a replay's partitions take it through alloc.ForPartitions, whose mask holds them again); the non-contiguous ind-" + a.name + " and d-" + a.name + " keep nodes busy"
}

// Release frees nodes given by Allocate; for bt, sbt and dbt a block returns to
// the free tree when all the nodes given from it are released (its reserved
// remainder with it); the non-contiguous variants, whose blocks hold exactly
// the nodes given, free each node as it is released (its leaf, setBlock: the
// tree's counts are those of the free leaves, so a job's release leaves the
// tree as freeing its blocks whole did), so that a release of some of a job's
// nodes (a Mask holding the others, a partition's outside) frees exactly
// those. A node not given out, or listed twice, is an error and changes
// nothing.
func (a *BinaryTree) Release(nodes []int) error {
	if len(a.seen) < a.t.n() {
		a.seen = make([]bool, a.t.n())
	}
	var err error
	j := 0
	for ; j < len(nodes); j++ {
		v := nodes[j]
		switch {
		case v < 0 || v >= a.t.n():
			err = fmt.Errorf("release: node %d is outside 0..%d", v, a.t.n()-1)
		case a.seen[v]:
			err = fmt.Errorf("release: node %d is listed twice", v)
		case a.block[v] == 0:
			err = fmt.Errorf("release: node %d is not busy", v)
		}
		if err != nil {
			break
		}
		a.seen[v] = true
	}
	for _, v := range nodes[:j] {
		a.seen[v] = false
	}
	if err != nil {
		return err
	}
	if a.mode != contiguous {
		in := nodes
		if a.vb.on() {
			if err := a.vb.truth.Release(nodes); err != nil {
				panic("alloc: " + a.name + " tree out of step with the machine: " + err.Error())
			}
			in = a.inView(nodes)
		}
		if err := a.st.Release(in); err != nil {
			panic("alloc: " + a.name + " tree out of step with the state: " + err.Error())
		}
		for _, v := range nodes {
			b := a.block[v]
			a.block[v] = 0
			a.left[b]--
		}
		a.setLeafList(in, 1)
		return nil
	}
	// Blocks of one node (nodes occupied) are freed together, their leaves'
	// ancestors made again once (setLeafList), after the larger blocks.
	a.done, a.leaves = a.done[:0], a.leaves[:0]
	for _, v := range nodes {
		b := a.block[v]
		a.block[v] = 0
		a.left[b]--
		if a.left[b] == 0 {
			if int(b) >= a.t.n() {
				a.leaves = append(a.leaves, v)
			} else {
				a.done = append(a.done, int(b))
			}
		}
	}
	for _, b := range a.done {
		a.freeBlock(b)
	}
	if len(a.leaves) > 0 {
		in := a.leaves
		if a.vb.on() {
			if err := a.vb.truth.Release(a.leaves); err != nil {
				panic("alloc: " + a.name + " tree out of step with the machine: " + err.Error())
			}
			in = a.inView(a.leaves)
		}
		if err := a.st.Release(in); err != nil {
			panic("alloc: " + a.name + " tree out of step with the state: " + err.Error())
		}
		a.setLeafList(in, 1)
	}
	return nil
}
