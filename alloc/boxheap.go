package alloc

// The two best-first branch and bounds over boxes of centers (centerSearch for
// a center's cost, an int, tieSearch for Johnson's tie score, a float64) keep
// their queued boxes in one boxQueue: a binary min-heap ordered by least bound,
// then least rank, so that equal bounds are popped in the documented tie order.

// boxItem is a queued box of centers: its bound (a cost for centerSearch, a tie
// score for tieSearch), the least rank of its centers, and its id in the queue.
type boxItem[B int | float64] struct {
	lb   B
	rank int
	id   int32
}

// before orders queued boxes by bound, then by rank.
func (p boxItem[B]) before(q boxItem[B]) bool {
	return p.lb < q.lb || p.lb == q.lb && p.rank < q.rank
}

// boxQueue is a branch and bound's queued boxes: the heap, and by id each box's low
// corner (d coordinates) and level (extent 2^level per dimension, clipped to the
// machine).
type boxQueue[B int | float64] struct {
	heap   []boxItem[B]
	los    []int32
	levels []int8
	d      int
}

// reset empties the queue, keeping its storage.
func (q *boxQueue[B]) reset() {
	q.heap, q.los, q.levels = q.heap[:0], q.los[:0], q.levels[:0]
}

// push queues the box of low corner lo at level with bound lb and least rank rank.
func (q *boxQueue[B]) push(lo []int, level int, lb B, rank int) {
	id := int32(len(q.levels))
	for _, v := range lo {
		q.los = append(q.los, int32(v))
	}
	q.levels = append(q.levels, int8(level))
	q.heap = heapPush(q.heap, boxItem[B]{lb, rank, id})
}

// pop removes the queued box of least bound (then rank) from the non-empty queue and
// returns it with its level and low corner.
func (q *boxQueue[B]) pop() (it boxItem[B], level int, base []int32) {
	it, q.heap = heapPop(q.heap)
	return it, int(q.levels[it.id]), q.los[int(it.id)*q.d : int(it.id)*q.d+q.d]
}

// heapPush appends x to the heap h and restores the heap order.
func heapPush[B int | float64](h []boxItem[B], x boxItem[B]) []boxItem[B] {
	h = append(h, x)
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !h[i].before(h[p]) {
			break
		}
		h[p], h[i] = h[i], h[p]
		i = p
	}
	return h
}

// heapPop removes the least item of the non-empty heap h and returns it with
// the shortened heap.
func heapPop[B int | float64](h []boxItem[B]) (boxItem[B], []boxItem[B]) {
	top := h[0]
	n := len(h) - 1
	h[0] = h[n]
	h = h[:n]
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		if r := l + 1; r < n && h[r].before(h[l]) {
			l = r
		}
		if !h[l].before(h[i]) {
			break
		}
		h[i], h[l] = h[l], h[i]
		i = l
	}
	return top, h
}

// childBox sets clo and e to the low corner and extent of child mask (bit j: the
// upper half along axis j) of the queued box at base whose children have side
// half, clipped to the machine's dims; it reports false when the child lies
// outside the machine. Both branch and bounds split their boxes this way.
func childBox(base []int32, half, mask int, dims, clo, e []int) bool {
	for j, dj := range dims {
		clo[j] = int(base[j])
		if mask>>j&1 != 0 {
			clo[j] += half
		}
		if clo[j] >= dj {
			return false
		}
		e[j] = min(half, dj-clo[j])
	}
	return true
}
