package alloc

import "math/bits"

// greedyCenters is allocateGreedy's queue of centers in order of their
// count-based lower bound, then free-list position. A decision usually stops
// long before its last center (on issue 32's workload on mesh:332x332 about
// 1,100 of 11,600 free centers come up a decision), so only the centers whose
// bound lies in a band [base, top] are in the heap, as one int64 key each
// ((lower-base) << posBits | position: one comparison a level, 8 bytes an entry);
// the others wait unordered in over, every one of them with a bound above top.
// When the heap runs dry the band moves to the least bound waiting, twice as
// wide, and the centers in it are heaped. A center put back (a tighter bound:
// greedyRefine) goes to the heap if its bound is at most top, else to over, so
// the order in which centers come out is the order of (lower, position) over
// all of them, as from one heap of all centers.
type greedyCenters struct {
	lower   []int   // by free-list position: the center's bound
	L, m    []int32 // by free-list position: as greedyCand's
	heap    []int64 // a binary min-heap of the band's keys
	over    []int32 // positions whose bound exceeds top
	base    int     // the band's keys are relative to base
	top     int
	width   int // the band's width, doubled at each move
	posBits uint
	posMask int64
}

// greedyCenterBand is the first band's width beyond the least bound's m (the
// pool's limit is the least bound plus m, and best lies within a few tens of
// the least bound on issue 32's workload: docs/center-speed.md).
const greedyCenterBand = 64

// reset prepares the queue for n centers (free-list positions 0..n-1), whose
// bounds the caller then writes with set.
func (q *greedyCenters) reset(n int) {
	q.lower = growInts(&q.lower, n)
	q.L = growInt32s(&q.L, n)
	q.m = growInt32s(&q.m, n)
	q.heap, q.over = q.heap[:0], q.over[:0]
	q.posBits = uint(bits.Len(uint(n)))
	q.posMask = 1<<q.posBits - 1
}

func (q *greedyCenters) set(cd greedyCand) {
	q.lower[cd.i], q.L[cd.i], q.m[cd.i] = cd.lower, cd.L, cd.m
}

func (q *greedyCenters) cand(i int32) greedyCand {
	return greedyCand{lower: q.lower[i], i: i, L: q.L[i], m: q.m[i]}
}

// maxWidth is the widest band whose relative bounds fit the keys' bits.
func (q *greedyCenters) maxWidth() int { return 1 << (62 - q.posBits) }

// start makes the first band, from the least bound of all centers: its width
// is the least's m plus greedyCenterBand.
func (q *greedyCenters) start() {
	n := len(q.lower)
	if n == 0 {
		return
	}
	least := 0
	for i := 1; i < n; i++ {
		if q.lower[i] < q.lower[least] {
			least = i
		}
	}
	q.width = min(max(int(q.m[least]), 0)+greedyCenterBand, q.maxWidth())
	q.base = q.lower[least]
	q.top = q.base + q.width - 1
	for i := range n {
		if q.lower[i] <= q.top {
			q.heap = append(q.heap, q.key(int32(i)))
		} else {
			q.over = append(q.over, int32(i))
		}
	}
	for h := len(q.heap)/2 - 1; h >= 0; h-- {
		q.down(h)
	}
}

func (q *greedyCenters) key(i int32) int64 {
	return int64(q.lower[i]-q.base)<<q.posBits | int64(i)
}

// move makes the next band when the heap is empty: from the least bound
// waiting, twice as wide as the last.
func (q *greedyCenters) move() {
	least := q.lower[q.over[0]]
	for _, i := range q.over[1:] {
		least = min(least, q.lower[i])
	}
	q.width = min(2*q.width, q.maxWidth())
	q.base = least
	q.top = q.base + q.width - 1
	w := 0
	for _, i := range q.over {
		if q.lower[i] <= q.top {
			q.heap = append(q.heap, q.key(i))
		} else {
			q.over[w] = i
			w++
		}
	}
	q.over = q.over[:w]
	for h := len(q.heap)/2 - 1; h >= 0; h-- {
		q.down(h)
	}
}

func (q *greedyCenters) down(h int) {
	hp := q.heap
	n := len(hp)
	e := hp[h]
	for {
		c := 2*h + 1
		if c >= n {
			break
		}
		if c+1 < n && hp[c+1] < hp[c] {
			c++
		}
		if hp[c] >= e {
			break
		}
		hp[h] = hp[c]
		h = c
	}
	hp[h] = e
}

// empty says whether no center is left (and moves the band if the heap is
// empty and centers wait).
func (q *greedyCenters) empty() bool {
	if len(q.heap) == 0 {
		if len(q.over) == 0 {
			return true
		}
		q.move()
	}
	return false
}

// first is the next center to come out; the queue must not be empty.
func (q *greedyCenters) first() greedyCand {
	return q.cand(int32(q.heap[0] & q.posMask))
}

// next takes the next center out, if any.
func (q *greedyCenters) next() (greedyCand, bool) {
	if q.empty() {
		return greedyCand{}, false
	}
	hp := q.heap
	e := hp[0]
	last := len(hp) - 1
	// Floyd's pop: the hole goes down the lesser children to a leaf, and
	// the last key comes up from there (it came from the bottom, so it
	// rarely climbs far), one comparison a level less than sifting it down
	h := 0
	for {
		c := 2*h + 1
		if c >= last {
			break
		}
		if c+1 < last && hp[c+1] < hp[c] {
			c++
		}
		hp[h] = hp[c]
		h = c
	}
	siftUp(hp, h, hp[last])
	q.heap = hp[:last]
	return q.cand(int32(e & q.posMask)), true
}

// push puts a center back with a new bound (never below the bound it came
// out with, so never below base).
func (q *greedyCenters) push(cd greedyCand) {
	q.set(cd)
	if cd.lower > q.top {
		q.over = append(q.over, cd.i)
		return
	}
	e := q.key(cd.i)
	q.heap = append(q.heap, e)
	siftUp(q.heap, len(q.heap)-1, e)
}

// siftUp puts key e into the hole h of the binary min-heap hp, moving the
// greater parents above it down (next's and push's last step).
func siftUp(hp []int64, h int, e int64) {
	for h > 0 {
		p := (h - 1) / 2
		if hp[p] <= e {
			break
		}
		hp[h] = hp[p]
		h = p
	}
	hp[h] = e
}

// rest appends the positions of the centers left, in no order.
func (q *greedyCenters) rest(dst []int32) []int32 {
	for _, e := range q.heap {
		dst = append(dst, int32(e&q.posMask))
	}
	return append(dst, q.over...)
}
