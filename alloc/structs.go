package alloc

import "math/bits"

// This file holds the small index structures behind the curve allocators and MBS:
// a hierarchical bitset (ordered set of small integers with next/previous queries in
// O(log64 n)), a max segment tree (leftmost position holding at least a value), and
// a treap (ordered set of uint64 keys). All are deterministic: the treap's priorities
// are a hash of the key, so its shape depends only on the set of keys it holds.

// bitTree is an ordered set of integers in 0..n-1: level 0 has one bit per element,
// each higher level one bit per non-zero word of the level below.
type bitTree struct {
	levels [][]uint64
}

func newBitTree(n int) *bitTree {
	t := &bitTree{}
	for {
		words := (n + 63) / 64
		t.levels = append(t.levels, make([]uint64, words))
		if words <= 1 {
			return t
		}
		n = words
	}
}

func (t *bitTree) has(i int) bool { return t.levels[0][i>>6]>>(i&63)&1 != 0 }

func (t *bitTree) add(i int) {
	for _, lv := range t.levels {
		w := lv[i>>6]
		lv[i>>6] = w | 1<<(i&63)
		if w != 0 {
			return // the word was already non-zero: the levels above know
		}
		i >>= 6
	}
}

func (t *bitTree) remove(i int) {
	for _, lv := range t.levels {
		lv[i>>6] &^= 1 << (i & 63)
		if lv[i>>6] != 0 {
			return
		}
		i >>= 6
	}
}

// removeRange removes the elements lo..hi-1.
func (t *bitTree) removeRange(lo, hi int) {
	for _, lv := range t.levels {
		if lo >= hi {
			return
		}
		clearBits(lv, lo, hi)
		// The words strictly inside are now empty; the end words may not be.
		wlo, whi := lo>>6, (hi-1)>>6
		lo, hi = wlo, whi+1
		if lv[wlo] != 0 {
			lo++
		}
		if lv[whi] != 0 {
			hi--
		}
	}
}

// next returns the smallest element >= i, or -1.
func (t *bitTree) next(i int) int {
	if i < 0 {
		i = 0
	}
	h := 0
	for {
		if h == len(t.levels) {
			return -1
		}
		lv := t.levels[h]
		if i>>6 >= len(lv) {
			return -1
		}
		w := lv[i>>6] >> (i & 63)
		if w != 0 {
			i += bits.TrailingZeros64(w)
			break
		}
		// Nothing left in this word: continue with the next word, one level up.
		i = i>>6 + 1
		h++
	}
	for h > 0 { // descend to the first set bit below
		h--
		i = i<<6 + bits.TrailingZeros64(t.levels[h][i])
	}
	return i
}

// prev returns the largest element <= i, or -1.
func (t *bitTree) prev(i int) int {
	h := 0
	for {
		if i < 0 || h == len(t.levels) {
			return -1
		}
		lv := t.levels[h]
		if i>>6 >= len(lv) {
			i = len(lv)*64 - 1
		}
		w := lv[i>>6] << (63 - i&63)
		if w != 0 {
			i -= bits.LeadingZeros64(w)
			break
		}
		i = i>>6 - 1
		h++
	}
	for h > 0 {
		h--
		i = i<<6 + 63 - bits.LeadingZeros64(t.levels[h][i])
	}
	return i
}

// maxTree is a segment tree over positions 0..n-1 holding non-negative values; it
// finds the leftmost position whose value is at least k.
type maxTree struct {
	size int     // leaves, a power of two
	t    []int32 // t[1] root, leaves at size..2*size-1
}

func newMaxTree(n int) *maxTree {
	size := 1
	for size < n {
		size <<= 1
	}
	return &maxTree{size: size, t: make([]int32, 2*size)}
}

func (m *maxTree) set(i int, v int32) {
	i += m.size
	m.t[i] = v
	for i > 1 {
		i >>= 1
		nv := max(m.t[2*i], m.t[2*i+1])
		if m.t[i] == nv {
			return
		}
		m.t[i] = nv
	}
}

// leftmostAtLeast returns the smallest position with value >= k, or -1.
func (m *maxTree) leftmostAtLeast(k int32) int {
	if m.t[1] < k {
		return -1
	}
	i := 1
	for i < m.size {
		i <<= 1
		if m.t[i] < k {
			i++
		}
	}
	return i - m.size
}

// treap is an ordered set of uint64 keys, its nodes kept in a slice (index 0 = nil).
type treap struct {
	key         []uint64
	left, right []int32
	freeNodes   []int32
	root        int32
}

func newTreap() *treap {
	return &treap{key: []uint64{0}, left: []int32{0}, right: []int32{0}}
}

// priority is a fixed hash of the key (splitmix64 finalizer), so the tree's shape
// is a function of its key set: deterministic and independent of operation order.
func priority(k uint64) uint64 {
	k += 0x9e3779b97f4a7c15
	k = (k ^ k>>30) * 0xbf58476d1ce4e5b9
	k = (k ^ k>>27) * 0x94d049bb133111eb
	return k ^ k>>31
}

func (t *treap) newNode(k uint64) int32 {
	if n := len(t.freeNodes); n > 0 {
		x := t.freeNodes[n-1]
		t.freeNodes = t.freeNodes[:n-1]
		t.key[x], t.left[x], t.right[x] = k, 0, 0
		return x
	}
	t.key = append(t.key, k)
	t.left = append(t.left, 0)
	t.right = append(t.right, 0)
	return int32(len(t.key) - 1)
}

// split divides tree x into keys < k (returned first) and keys >= k.
func (t *treap) split(x int32, k uint64) (int32, int32) {
	if x == 0 {
		return 0, 0
	}
	if t.key[x] < k {
		l, r := t.split(t.right[x], k)
		t.right[x] = l
		return x, r
	}
	l, r := t.split(t.left[x], k)
	t.left[x] = r
	return l, x
}

// merge joins trees a and b, every key of a below every key of b.
func (t *treap) merge(a, b int32) int32 {
	if a == 0 {
		return b
	}
	if b == 0 {
		return a
	}
	if priority(t.key[a]) > priority(t.key[b]) {
		t.right[a] = t.merge(t.right[a], b)
		return a
	}
	t.left[b] = t.merge(a, t.left[b])
	return b
}

// insert adds k (it must not be present).
func (t *treap) insert(k uint64) {
	x := t.newNode(k)
	p := priority(k)
	// Walk down to where x belongs by priority, then split that subtree around k.
	link := &t.root
	for *link != 0 && priority(t.key[*link]) > p {
		if k < t.key[*link] {
			link = &t.left[*link]
		} else {
			link = &t.right[*link]
		}
	}
	t.left[x], t.right[x] = t.split(*link, k)
	*link = x
}

// delete removes k; it reports whether k was present.
func (t *treap) delete(k uint64) bool {
	link := &t.root
	for *link != 0 && t.key[*link] != k {
		if k < t.key[*link] {
			link = &t.left[*link]
		} else {
			link = &t.right[*link]
		}
	}
	x := *link
	if x == 0 {
		return false
	}
	*link = t.merge(t.left[x], t.right[x])
	t.freeNodes = append(t.freeNodes, x)
	return true
}

// ceil returns the smallest key >= k.
func (t *treap) ceil(k uint64) (uint64, bool) {
	var best uint64
	found := false
	for x := t.root; x != 0; {
		if t.key[x] >= k {
			best, found = t.key[x], true
			x = t.left[x]
		} else {
			x = t.right[x]
		}
	}
	return best, found
}

// smallLen is the longest interval length sizeIndex keeps in per-length bitsets.
const smallLen = 64

// sizeIndex orders free intervals by (length, start) for Best Fit and Sum of Squares.
// Short intervals, the common case on a fragmented machine, sit in one bitset of
// starts per length (plus a mask of the lengths present), so adding or removing one
// is a few word operations; longer ones, of which there are at most n/smallLen, sit
// in a treap keyed by length<<32 | start.
type sizeIndex struct {
	n     int
	small [smallLen + 1]*bitTree // small[l]: starts of the intervals of length l
	mask  uint64                 // bit l-1 set: some interval has length l <= smallLen
	count []int32                // intervals of each length
	large *treap
}

func newSizeIndex(n int) *sizeIndex {
	return &sizeIndex{n: n, count: make([]int32, n+1), large: newTreap()}
}

func (x *sizeIndex) add(s, l int) {
	x.count[l]++
	if l > smallLen {
		x.large.insert(uint64(l)<<32 | uint64(s))
		return
	}
	if x.small[l] == nil {
		x.small[l] = newBitTree(x.n)
	}
	x.small[l].add(s)
	x.mask |= 1 << (l - 1)
}

func (x *sizeIndex) remove(s, l int) {
	x.count[l]--
	if l > smallLen {
		x.large.delete(uint64(l)<<32 | uint64(s))
		return
	}
	x.small[l].remove(s)
	if x.count[l] == 0 {
		x.mask &^= 1 << (l - 1)
	}
}

// ceil returns the smallest length l >= k held by some interval and the lowest start
// among the intervals of that length.
func (x *sizeIndex) ceil(k int) (l, s int, ok bool) {
	if k <= smallLen {
		if m := x.mask >> (k - 1); m != 0 {
			l = k + bits.TrailingZeros64(m)
			return l, x.small[l].next(0), true
		}
		k = smallLen + 1
	}
	key, ok := x.large.ceil(uint64(k) << 32)
	return int(key >> 32), int(uint32(key)), ok
}
