package alloc

import "math/bits"

// Near keys by their sum, for greedyCollectShells on 3D grids (issue 32 item 1).
//
// The collector's candidates sit in a 4-ary heap by the key they had when last
// computed (a lower bound of the key now), and the heap's top is computed again
// until it is current. On issue 32's workload on torus:32x32x32 about 9.5 tops a
// node taken are stale, and each grows (by 1-3 for 4 %, 4-63 for 46 %, 64-1,023
// for 40 % of them) and sinks most of the heap's depth: a quarter of the CPU. The
// sums (total distance to the nodes taken less the nodes taken) are small
// integers, so the candidates whose sum is within greedyBucketWidth of the least
// bucketed one are kept in buckets by their sum instead (Dial's bucket queue):
// a stale one goes to its new sum's bucket in O(1), not down the heap. The least
// key is then the least, by the whole key (sum, L1 distance to the center,
// free-list position), over the current candidates of the least bucket, whose
// stale ones move up as it is scanned (about 2 candidates a node taken share the
// least sum there). Candidates further out stay in the heap, and the heap's top
// comes first when its kept sum is at most the least bucket's.
//
// The keys, and so the candidate taken, are those of the heap alone: a bucket
// holds the candidates whose kept sum is its sum (a lower bound of their sums
// now), and the least bucket's scan computes each of its candidates' keys, so
// the least current key there is below every other bucket's and the heap's kept
// keys (their sums are larger).

// greedyBucketWidth is the buckets' window of sums (a power of 2).
const greedyBucketWidth = 65536

// greedyBuckets is greedyCollectShells' bucket queue: singly linked lists of
// candidate indices by sum modulo the window (head), a bit per nonempty bucket.
// A bucketed candidate's list link sits next to a copy of its coordinates (node:
// x, y, z, next), so that the scan of a bucket, which computes the key of each
// candidate and moves most of them on, reads one 16-byte entry a candidate where
// it read the coordinates, the link and the kept key from three arrays.
type greedyBuckets struct {
	on    bool
	width int64 // the window (greedyBucketWidth; tests set less)
	lo    int64 // every bucketed candidate's kept sum is in lo..lo+width-1 (n > 0)
	hi    int64 // and at most hi
	n     int   // candidates in buckets
	head  []int32
	bits  []uint64
	node  [][4]int32 // by candidate: its coordinates, then the next in its bucket (-1: none)
	spill []int64    // scan: keys that left the window, for the heap
	// tests: candidates returned from a bucket, sent to the heap from a
	// scan, and windows moved down
	scans, spills, lowered int
}

// greedyCur is what a candidate's key is computed from on a 3D grid (current in
// greedyCollectShells).
type greedyCur struct {
	xy       []int32
	axisKey  []int
	keys     []int64
	candOf   []int32
	o1, o2   int
	taken    int
	sumShift uint
	lowMask  int64
	posMask  int64
}

func (c *greedyCur) key(i int32) int64 {
	q := c.xy[3*i : 3*i+3 : 3*i+3]
	sum := c.axisKey[q[0]] + c.axisKey[c.o1+int(q[1])] + c.axisKey[c.o2+int(q[2])]
	return int64(sum-c.taken)<<c.sumShift | c.keys[i]&c.lowMask
}

// reset empties the buckets for a run; on: they are used, with a window of
// width (a power of 2 from 64 on; 0: greedyBucketWidth).
func (q *greedyBuckets) reset(on bool, width int) {
	q.on, q.n = on, 0
	if !on {
		return
	}
	if width == 0 {
		width = greedyBucketWidth
	}
	if len(q.head) != width {
		q.head = make([]int32, width)
		q.bits = make([]uint64, width/64)
		q.width = int64(width)
	}
	clear(q.bits)
}

// add puts candidate i, at coordinates xy[3i:3i+3], whose key's sum is s, in its
// bucket, or reports false when s is outside the window (the candidate then goes
// to the heap).
func (q *greedyBuckets) add(i int32, s int64, xy []int32) bool {
	if !q.on {
		return false
	}
	switch {
	case q.n == 0:
		q.lo, q.hi = s, s
	case s >= q.lo+q.width:
		return false
	case s < q.lo:
		// (hi only spares work: a bucketed sum past lo+width-1 would
		// be read as one width lower, scanned early and moved on; a
		// sum below lo, read as one width higher, is what must not be)
		if q.hi-s >= q.width {
			return false
		}
		q.lo = s // every bucketed sum is in s..hi, within the window
		q.lowered++
	default:
		q.hi = max(q.hi, s)
	}
	if int(i) >= len(q.node) {
		q.node = append(q.node, make([][4]int32, int(i)+1-len(q.node)+len(q.node)/2)...)
	}
	nd := &q.node[i]
	p := xy[3*i : 3*i+3 : 3*i+3]
	nd[0], nd[1], nd[2] = p[0], p[1], p[2]
	w := int(s & (q.width - 1))
	word, bit := w>>6, uint64(1)<<(w&63)
	h := q.head[w] // as in scan, no branch on whether the bucket was empty
	if q.bits[word]&bit == 0 {
		h = -1
	}
	nd[3] = h
	q.bits[word] |= bit
	q.head[w] = i
	q.n++
	return true
}

// least returns the least sum with a candidate (n > 0) and moves the window there.
func (q *greedyBuckets) least() int64 {
	mask := int(q.width - 1)
	w := int(q.lo) & mask
	word := w >> 6
	m := q.bits[word] &^ (uint64(1)<<(w&63) - 1)
	for m == 0 {
		word = (word + 1) & (mask >> 6)
		m = q.bits[word] // (back at the first word: its bits below w, sums past the window's end)
	}
	idx := word<<6 | bits.TrailingZeros64(m)
	q.lo += int64((idx - w) & mask)
	return q.lo
}

// settle returns the candidate with the least current key and that key (or -1),
// and the heap hp after it: the heap's top first while its kept sum is at most
// the least bucket's (taken when current and below every bucket, else computed
// again and moved to a bucket or down the heap), then the least bucket scanned.
// fromHeap says where the candidate returned is.
func (q *greedyBuckets) settle(hp []int64, c *greedyCur, xy []int32, keys []int64, taken int) (b int32, top int64, fromHeap bool, out []int64) {
	c.xy, c.keys, c.taken = xy, keys, taken
	for {
		s := int64(-1)
		if q.n > 0 {
			s = q.least()
		}
		if len(hp) > 0 && (s < 0 || hp[0]>>c.sumShift <= s) {
			i := c.candOf[hp[0]&c.posMask]
			k := c.key(i)
			if k == hp[0] && (s < 0 || k>>c.sumShift < s) {
				return i, k, true, hp
			}
			if q.add(i, k>>c.sumShift, xy) {
				last := len(hp) - 1
				hp[0] = hp[last]
				hp = hp[:last]
			} else {
				hp[0] = k
			}
			greedySiftDown(hp, 0)
			continue
		}
		if s < 0 {
			return -1, 0, false, hp
		}
		b, top = q.scan(s, c)
		for _, k := range q.spill {
			hp = greedyHeapPush(hp, k)
		}
		if b >= 0 {
			return b, top, false, hp
		}
	}
}

// scan computes the keys of bucket s's candidates (the least bucket, s = lo): those
// whose sum grew move to their sum's bucket, or to spill when past the window, and
// the least key of those that stay is returned with its candidate (-1 when none
// stays). The sums are computed from the nodes' copies of the coordinates, as
// greedyCur.key does from xy, and the kept key (its low bits: L1 distance and
// free-list position) is read only for a candidate that stays or spills.
func (q *greedyBuckets) scan(s int64, c *greedyCur) (int32, int64) {
	w := int(s & (q.width - 1))
	q.spill = q.spill[:0]
	q.scans++
	i := q.head[w]
	stay, best, bestK := int32(-1), int32(-1), int64(1<<63-1)
	// the bucket is taken off first, so that add never sees it: the candidates
	// that stay are linked again below
	q.bits[w>>6] &^= uint64(1) << (w & 63)
	ak := c.axisKey
	for i >= 0 {
		nd := &q.node[i]
		nx := nd[3]
		ks := int64(ak[nd[0]] + ak[c.o1+int(nd[1])] + ak[c.o2+int(nd[2])] - c.taken)
		switch {
		case ks == s:
			nd[3] = stay
			stay = i
			if k := ks<<c.sumShift | c.keys[i]&c.lowMask; k < bestK {
				best, bestK = i, k
			}
		case uint64(ks-s) < uint64(q.width) || q.n == 1:
			// s < ks < lo+width (lo = s): into its bucket, not bucket s
			// (taken off above), as add does; the only candidate
			// bucketed moves the window to its sum, as add does
			// into empty buckets
			if q.n == 1 {
				q.lo, q.hi = ks, ks
			} else {
				q.hi = max(q.hi, ks)
			}
			w := int(ks & (q.width - 1))
			word, bit := w>>6, uint64(1)<<(w&63)
			// (a conditional move: whether the bucket was empty is
			// not predictable)
			h := q.head[w]
			if q.bits[word]&bit == 0 {
				h = -1
			}
			nd[3] = h
			q.bits[word] |= bit
			q.head[w] = i
		default:
			q.n--
			q.spill = append(q.spill, ks<<c.sumShift|c.keys[i]&c.lowMask)
			q.spills++
		}
		i = nx
	}
	if stay >= 0 {
		q.head[w] = stay
		q.bits[w>>6] |= uint64(1) << (w & 63)
	}
	return best, bestK
}

// remove takes candidate b out of bucket s.
func (q *greedyBuckets) remove(b int32, s int64) {
	w := int(s & (q.width - 1))
	q.n--
	if i := q.head[w]; i == b {
		if q.head[w] = q.node[b][3]; q.head[w] < 0 {
			q.bits[w>>6] &^= uint64(1) << (w & 63)
		}
		return
	}
	for i := q.head[w]; ; i = q.node[i][3] {
		if q.node[i][3] == b {
			q.node[i][3] = q.node[b][3]
			return
		}
	}
}

// greedyHeapPush adds key k to greedyCollectShells' 4-ary heap of kept keys.
func greedyHeapPush(hp []int64, k int64) []int64 {
	hp = append(hp, k)
	for h := len(hp) - 1; h > 0; {
		p := (h - 1) / 4
		if hp[p] <= hp[h] {
			break
		}
		hp[h], hp[p] = hp[p], hp[h]
		h = p
	}
	return hp
}
