package alloc

import (
	"fmt"
	"math/bits"

	"github.com/procalloc/procalloc/topo"
)

// Compactness of Liu et al. §4.
//
// Squares (Definition 1): the free processors of a 2^m x 2^n mesh decomposed into
// squares of side 2^i; D is their number, and an allocator is compact when D after
// every allocation is the least that any choice of the job's processors could leave.
// procalloc counts aligned squares, MBS's buddy blocks (the mesh cut into squares of
// side 2^min(m,n), each cut into four, and so on): every aligned free square lies in a
// maximal one, so the least number of aligned squares covering the free set is the
// number of maximal free aligned squares, which Squares returns.
//
// Spatial compactness (Definition 2, Lemma 1): with the free processors decomposed
// into maximal free blocks of the orthogonal division tree (bt's tree), every block
// size occurs at most once, and for free blocks p bigger than q, the parent of p is
// an ancestor of q. SpatiallyCompact checks this.

// Compactness measures free sets of one 2^m x 2^n mesh (Squares and
// SpatiallyCompact without rebuilding the division tree each time). Not safe for
// concurrent use.
type Compactness struct {
	t           *divTree
	whole       []bool
	level, next []bool // Squares scratch

	// Measure's incremental state: the free set it last saw, the free nodes under
	// every division-tree node, and under every aligned square of side 2^l
	// (quad[l], row-major over the squares of that side, l = 1..top).
	seen   []uint64
	inTree []int32
	quad   [][]int32
	top    int // log2 of the side of the largest squares
	blocks []int
}

// NewCompactness returns the meter of m, or an error when m is not a 2D mesh of
// 2^m x 2^n nodes.
func NewCompactness(m topo.Machine) (*Compactness, error) {
	t, err := newDivTree(m, "compactness")
	if err != nil {
		return nil, err
	}
	c := &Compactness{t: t, whole: make([]bool, 2*t.n()), inTree: make([]int32, 2*t.n())}
	c.top = bits.Len(uint(min(t.x, t.y))) - 1
	c.quad = make([][]int32, c.top+1)
	for l := 1; l <= c.top; l++ {
		c.quad[l] = make([]int32, (t.x>>l)*(t.y>>l))
	}
	return c, nil
}

// Squares returns D, the number of maximal free aligned power-of-two squares of the
// free set of a 2^m x 2^n mesh (see above); free reports whether a node is free.
func Squares(m topo.Machine, free func(v int) bool) (int, error) {
	c, err := NewCompactness(m)
	if err != nil {
		return 0, err
	}
	return c.Squares(free), nil
}

// SpatiallyCompact reports whether the free set of a 2^m x 2^n mesh satisfies the
// condition of Liu et al.'s Lemma 1 (see above); when it does not, reason names the
// two offending blocks.
func SpatiallyCompact(m topo.Machine, free func(v int) bool) (ok bool, reason string, err error) {
	c, err := NewCompactness(m)
	if err != nil {
		return false, "", err
	}
	ok, reason = c.SpatiallyCompact(free)
	return ok, reason, nil
}

// Squares is D of the free set (see the package function). Level by level from
// single nodes up: a square of side 2s is wholly free when its four quarters are;
// a wholly free square whose parent is not counts once (the top level's squares
// have no parent).
func (c *Compactness) Squares(free func(v int) bool) int {
	t := c.t
	side := min(t.x, t.y)
	cur := c.level[:0]
	for v := range t.x * t.y {
		cur = append(cur, free(v))
	}
	c.level = cur
	w, h := t.x, t.y
	count := 0
	next := c.next[:0]
	for s := 1; s < side; s *= 2 {
		w2, h2 := w/2, h/2
		next = next[:0]
		for y := range h2 {
			for x := range w2 {
				q := [4]bool{cur[2*x+2*y*w], cur[2*x+1+2*y*w], cur[2*x+(2*y+1)*w], cur[2*x+1+(2*y+1)*w]}
				all := q[0] && q[1] && q[2] && q[3]
				if !all {
					for _, f := range q {
						if f {
							count++
						}
					}
				}
				next = append(next, all)
			}
		}
		cur, next = next, cur
		w, h = w2, h2
	}
	for _, f := range cur {
		if f {
			count++
		}
	}
	c.level, c.next = cur, next
	return count
}

// freeBlocks returns the maximal wholly free tree nodes of the orthogonal division
// (bt's division tree) as tree node numbers (root 1, children 2i and 2i+1); whole is
// scratch of 2N entries.
func freeBlocks(t *divTree, whole []bool, free func(v int) bool) []int {
	n := t.n()
	for i := 2*n - 1; i >= 1; i-- {
		if i >= n {
			whole[i] = free(int(t.x0[i]) + int(t.y0[i])*t.x)
		} else {
			whole[i] = whole[2*i] && whole[2*i+1]
		}
	}
	var out []int
	for i := 1; i < 2*n; i++ {
		if whole[i] && (i == 1 || !whole[i/2]) {
			out = append(out, i)
		}
	}
	return out
}

// SpatiallyCompact is Lemma 1's condition on the free set (see the package
// function).
func (c *Compactness) SpatiallyCompact(free func(v int) bool) (ok bool, reason string) {
	return c.lemma1(freeBlocks(c.t, c.whole, free))
}

// lemma1 checks Lemma 1's condition on the maximal free blocks of the division tree
// and says why it fails.
func (c *Compactness) lemma1(blocks []int) (ok bool, reason string) {
	t := c.t
	a, b, twoOfSize := c.lemma1Fails(blocks)
	switch {
	case a == 0:
		return true, ""
	case twoOfSize:
		return false, fmt.Sprintf("two free blocks of %d processors (tree nodes %d and %d)", t.area(b), a, b)
	}
	return false, fmt.Sprintf("free block %d (%d processors): its parent is not an ancestor of free block %d (%d processors)", a, t.area(a), b, t.area(b))
}

// lemma1Fails returns two free blocks that break Lemma 1's condition (a = 0 when it
// holds): two of one size (twoOfSize), or a block whose parent is not an ancestor
// of a smaller one. Measure calls it for every allocation of a replay, so it formats
// nothing.
func (c *Compactness) lemma1Fails(blocks []int) (a, b int, twoOfSize bool) {
	t := c.t
	var bySize [64]int // tree node of the free block of 2^i processors, 0 if none
	for _, b := range blocks {
		i := bits.Len(uint(t.area(b))) - 1 // log2 of b's area
		if prev := bySize[i]; prev != 0 {
			return prev, b, true
		}
		bySize[i] = b
	}
	// Now at most one block per size: at most log2(N)+1 blocks, so the pairwise check
	// below is cheap.
	for _, p := range blocks {
		for _, q := range blocks {
			if t.area(p) > t.area(q) && !t.isAncestor(p/2, q) {
				return p, q, false
			}
		}
	}
	return 0, 0, false
}

// Measure returns D (Squares) and Lemma 1's condition (SpatiallyCompact) of the free
// set of s, a State of the meter's mesh. It keeps free-node counts per square and per
// division-tree node, updated only for the nodes whose state changed since the last
// call, and walks down from the roots only into partly free squares and blocks: the
// cost follows the changes and the number of free blocks, not the machine's size
// (the per-job meter of every replay on a 2^m x 2^n mesh calls it).
func (c *Compactness) Measure(s *State) (squares int, compact bool) {
	t := c.t
	if c.seen == nil {
		c.seen = make([]uint64, len(s.free))
	}
	for w, now := range s.free {
		for d := now ^ c.seen[w]; d != 0; d &= d - 1 {
			v := w<<6 + bits.TrailingZeros64(d)
			delta := int32(-1)
			if now>>(v&63)&1 != 0 {
				delta = 1
			}
			for i := int(t.leaf[v]); i >= 1; i /= 2 {
				c.inTree[i] += delta
			}
			x, y := v%t.x, v/t.x
			for l := 1; l <= c.top; l++ {
				c.quad[l][(y>>l)*(t.x>>l)+x>>l] += delta
			}
		}
		c.seen[w] = now
	}
	for y := 0; y < t.y>>c.top; y++ {
		for x := 0; x < t.x>>c.top; x++ {
			squares += c.squaresIn(s, c.top, x, y)
		}
	}
	var sizes uint64
	blocks, twoOfSize := c.freeBlocksIn(1, c.blocks[:0], &sizes)
	c.blocks = blocks
	if twoOfSize {
		return squares, false
	}
	a, _, _ := c.lemma1Fails(c.blocks)
	return squares, a == 0
}

// squaresIn counts the maximal free aligned squares inside the square of side 2^l at
// (x, y) in units of 2^l.
func (c *Compactness) squaresIn(s *State, l, x, y int) int {
	if l == 0 {
		if s.IsFree(x + y*c.t.x) {
			return 1
		}
		return 0
	}
	switch c.quad[l][y*(c.t.x>>l)+x] {
	case 0:
		return 0
	case 1 << (2 * l):
		return 1
	}
	return c.squaresIn(s, l-1, 2*x, 2*y) + c.squaresIn(s, l-1, 2*x+1, 2*y) +
		c.squaresIn(s, l-1, 2*x, 2*y+1) + c.squaresIn(s, l-1, 2*x+1, 2*y+1)
}

// freeBlocksIn appends the maximal wholly free division-tree nodes below tree node i,
// depth first (freeBlocks finds the same set), until a block of a size already met
// (sizes: bit log2(area) of each size met): it then stops and reports it, Lemma
// 1's condition broken. So the walk meets at most one block per size before it
// stops, whatever the number of free blocks.
func (c *Compactness) freeBlocksIn(i int, dst []int, sizes *uint64) ([]int, bool) {
	switch area := c.t.area(i); int(c.inTree[i]) {
	case 0:
		return dst, false
	case area:
		bit := uint64(1) << (bits.Len(uint(area)) - 1)
		if *sizes&bit != 0 {
			return dst, true
		}
		*sizes |= bit
		return append(dst, i), false
	}
	dst, twoOfSize := c.freeBlocksIn(2*i, dst, sizes)
	if twoOfSize {
		return dst, true
	}
	return c.freeBlocksIn(2*i+1, dst, sizes)
}
