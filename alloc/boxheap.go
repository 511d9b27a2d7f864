package alloc

// The two best-first branch and bounds over boxes of centers (centerSearch for
// a center's cost, tieSearch for Johnson's tie score) keep their queued boxes in
// a binary min-heap ordered by the item's own before: least bound, then least
// rank, so that equal bounds are popped in the documented tie order.

// heapItem is a queued box that knows its order.
type heapItem[T any] interface {
	before(T) bool
}

// heapPush appends x to the heap h and restores the heap order.
func heapPush[T heapItem[T]](h []T, x T) []T {
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
func heapPop[T heapItem[T]](h []T) (T, []T) {
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
