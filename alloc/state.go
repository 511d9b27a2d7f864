package alloc

import (
	"fmt"
	"math/bits"

	"github.com/procalloc/procalloc/topo"
)

// State is a machine's free/busy state: one bit per node and a free count. Every
// allocator keeps one; Take and Release validate their arguments and are all or
// nothing, so a rejected call never changes the state.
//
// The zero value is not usable; build one with NewState.
type State struct {
	n    int
	free []uint64 // bit i set = node i free
	nf   int
}

// NewState returns the state of an n-node machine with every node free; n must not
// be negative (it panics).
func NewState(n int) *State {
	s := &State{n: n, free: make([]uint64, (n+63)/64)}
	s.Reset()
	return s
}

// Reset marks every node free.
func (s *State) Reset() {
	for i := range s.free {
		s.free[i] = ^uint64(0)
	}
	if r := s.n % 64; r != 0 {
		s.free[len(s.free)-1] = 1<<r - 1
	}
	s.nf = s.n
}

// N returns the number of nodes.
func (s *State) N() int { return s.n }

// Clone returns an independent copy of the state.
func (s *State) Clone() *State {
	c := *s
	c.free = append([]uint64(nil), s.free...)
	return &c
}

// NumFree returns the number of free nodes.
func (s *State) NumFree() int { return s.nf }

// SetUnion makes s's free nodes those of a (a state of as many nodes) and those
// of plus (a bitmap of the nodes, as long as a's; nil: none). O(n/64).
func (s *State) SetUnion(a *State, plus []uint64) {
	if len(s.free) != len(a.free) {
		s.free = make([]uint64, len(a.free))
	}
	s.n, s.nf = a.n, 0
	for w, x := range a.free {
		if plus != nil {
			x |= plus[w]
		}
		s.free[w] = x
		s.nf += bits.OnesCount64(x)
	}
}

// IsFree reports whether node i is free; nodes outside 0..N-1 are not.
func (s *State) IsFree(i int) bool {
	return i >= 0 && i < s.n && s.free[i>>6]>>(i&63)&1 != 0
}

// CheckRequest returns nil when k nodes can be allocated now: an error for k < 1, and
// an error wrapping ErrNotEnoughFree when fewer than k nodes are free.
func (s *State) CheckRequest(k int) error {
	if k < 1 {
		return fmt.Errorf("request for %d nodes: must be at least 1", k)
	}
	if k > s.nf {
		return fmt.Errorf("request for %d nodes, %d of %d free: %w", k, s.nf, s.n, ErrNotEnoughFree)
	}
	return nil
}

// Take marks the nodes busy. Every node must be in range, free, and listed once;
// otherwise Take returns an error naming the first offending node and changes nothing.
func (s *State) Take(nodes []int) error {
	for j, v := range nodes {
		if v < 0 || v >= s.n || s.free[v>>6]>>(v&63)&1 == 0 {
			err := s.badNode("take", nodes, j, true)
			for _, u := range nodes[:j] { // roll back
				s.free[u>>6] |= 1 << (u & 63)
			}
			return err
		}
		s.free[v>>6] &^= 1 << (v & 63)
	}
	s.nf -= len(nodes)
	return nil
}

// Release marks the nodes free. Every node must be in range, busy, and listed once;
// otherwise Release returns an error naming the first offending node and changes
// nothing.
func (s *State) Release(nodes []int) error {
	for j, v := range nodes {
		if v < 0 || v >= s.n || s.free[v>>6]>>(v&63)&1 != 0 {
			err := s.badNode("release", nodes, j, false)
			for _, u := range nodes[:j] { // roll back
				s.free[u>>6] &^= 1 << (u & 63)
			}
			return err
		}
		s.free[v>>6] |= 1 << (v & 63)
	}
	s.nf += len(nodes)
	return nil
}

// badNode explains why nodes[j] cannot be taken (take) or released; the nodes before
// j have already been flipped, which is how a repeat is told from a plain conflict.
func (s *State) badNode(op string, nodes []int, j int, take bool) error {
	v := nodes[j]
	if v < 0 || v >= s.n {
		return fmt.Errorf("%s: node %d is outside 0..%d", op, v, s.n-1)
	}
	for _, u := range nodes[:j] {
		if u == v {
			return fmt.Errorf("%s: node %d is listed twice", op, v)
		}
	}
	if take {
		return fmt.Errorf("%s: node %d is already busy", op, v)
	}
	return fmt.Errorf("%s: node %d is not busy", op, v)
}

// AppendFree appends the free nodes to dst in node-index order and returns it.
func (s *State) AppendFree(dst []int) []int {
	for w, word := range s.free {
		for word != 0 {
			dst = append(dst, w<<6+bits.TrailingZeros64(word))
			word &= word - 1
		}
	}
	return dst
}

// AppendFreeIn appends the free nodes of set (a bitmap: bit v of word v/64 for node
// v; words past the state's are ignored) to dst in node-index order and returns
// it: O(n/64) besides the nodes appended.
func (s *State) AppendFreeIn(dst []int, set []uint64) []int {
	for w, x := range set[:min(len(set), len(s.free))] {
		for word := x & s.free[w]; word != 0; word &= word - 1 {
			dst = append(dst, w<<6+bits.TrailingZeros64(word))
		}
	}
	return dst
}

// TakeFreeIn marks busy the free nodes of set (a bitmap: bit v of word v/64 for
// node v; words past the state's, and bits past its nodes, are ignored), writes
// them to taken (a bitmap as long as set, overwritten) and returns their number:
// O(n/64), whatever the number of nodes (a Mask's hold of a partition's outside,
// BulkOccupier).
func (s *State) TakeFreeIn(set, taken []uint64) int {
	k := 0
	for w, x := range set {
		t := uint64(0)
		if w < len(s.free) {
			t = x & s.free[w]
			s.free[w] &^= t
			k += bits.OnesCount64(t)
		}
		taken[w] = t
	}
	s.nf -= k
	return k
}

// ReleaseIn marks free every node of set (a bitmap as TakeFreeIn's). Every node
// must be in range and busy; otherwise ReleaseIn returns an error naming the
// first offending node and changes nothing. O(n/64).
func (s *State) ReleaseIn(set []uint64) error {
	k := 0
	for w, x := range set {
		if x == 0 {
			continue
		}
		out := x // the bits past the last node
		if w == len(s.free)-1 && s.n&63 != 0 {
			out &^= 1<<(s.n&63) - 1
		} else if w < len(s.free) {
			out = 0
		}
		if out != 0 {
			return fmt.Errorf("release: node %d is outside 0..%d", w<<6+bits.TrailingZeros64(out), s.n-1)
		}
		if f := x & s.free[w]; f != 0 {
			return fmt.Errorf("release: node %d is not busy", w<<6+bits.TrailingZeros64(f))
		}
		k += bits.OnesCount64(x)
	}
	for w, x := range set {
		if x != 0 {
			s.free[w] |= x
		}
	}
	s.nf += k
	return nil
}

// AppendFreeInOrder appends the free nodes to dst in the order they appear in order (a
// permutation of the nodes, such as FreeListOrder) and returns it.
func (s *State) AppendFreeInOrder(dst []int, order []int) []int {
	for _, v := range order {
		if s.free[v>>6]>>(v&63)&1 != 0 {
			dst = append(dst, v)
		}
	}
	return dst
}

// FreeListOrder returns the order in which the PReMAS simulator lists free
// processors (reference-simulators.md, "Machine and node order"): on a grid it loops
// over x outermost, then y, then z, so nodes are sorted by (x, y, z, ...) — NOT by
// node index, which has x fastest. On a machine that is not a grid it is node-index
// order. Center-based allocators in CompatPReMAS use it for their candidate centers
// and the initial order of their working array.
func FreeListOrder(m topo.Machine) []int {
	n := m.N()
	order := make([]int, 0, n)
	g, ok := m.(*topo.Grid)
	if !ok {
		for i := range n {
			order = append(order, i)
		}
		return order
	}
	// Sorted by (c0, c1, c2, ...): the transpose of index order. Enumerate
	// coordinates with the last dimension fastest.
	dims := g.Dims()
	c := make([]int, len(dims))
	for range n {
		order = append(order, g.Index(c))
		for j := len(dims) - 1; j >= 0; j-- {
			c[j]++
			if c[j] < dims[j] {
				break
			}
			c[j] = 0
		}
	}
	return order
}

// appendFreeIn appends the free nodes among v0..v1 (inclusive) to dst in ascending
// order, skipping a word of busy nodes at a time: a row of a 2D mesh is such a range.
func (s *State) appendFreeIn(dst []int, v0, v1 int) []int {
	free := s.free
	for v := v0; v <= v1; {
		w := free[v>>6] >> (v & 63)
		if w == 0 {
			v = (v | 63) + 1
			continue
		}
		if v += bits.TrailingZeros64(w); v > v1 {
			break
		}
		dst = append(dst, v)
		v++
	}
	return dst
}
