package alloc

import (
	"fmt"
	"math/bits"
	"slices"
	"strings"

	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/internal/textin"
	"github.com/procalloc/procalloc/topo"
)

// Curve-based allocators (Leung et al. 2002, §2.3): the nodes are ranked once along a
// 1D ordering (a space-filling curve, or any ranking file); an interval is a maximal
// run of free nodes with consecutive ranks. Semantics follow PReMAS
// (reference-simulators.md, "Curve-based allocators"):
//
//   - freelist (sorted free list, Cplant's default; Paging with page size 1): the k
//     free nodes of lowest rank;
//   - ff (First Fit): the first k nodes of the first interval (lowest start rank) with
//     at least k nodes;
//   - bf (Best Fit): the first k nodes of the smallest interval with at least k nodes,
//     the lowest start rank on ties;
//   - sos (Sum of Squares, Leung §2.3 after Csirik et al.): among the intervals with at
//     least k nodes, the one whose use leaves the multiset of interval lengths with the
//     smallest sum over lengths L of N(L)^2 (N(L) = number of free intervals of length
//     L), the job taking the first k nodes of it; lowest start rank on ties;
//   - ff, bf and sos fall back to minimum span when no interval is large enough: among
//     the free nodes sorted by rank, the window of k consecutive entries with the
//     smallest rank difference between its last and first entry, the earliest on ties.
//
// The ring variant (spec suffix ":ring") treats ranks as a cycle, as Leung's ring span
// does: intervals may wrap from rank n-1 to rank 0 (such an interval starts at its
// first rank after a busy node; when every node is free, the single interval starts
// at rank 0), the first k nodes of an interval may wrap, and the span window is
// cyclic, its length the rank difference around the ring; ties go to the lowest
// starting rank. A set of k free nodes with minimum ring span (Leung's s^w) always
// exists among these cyclic windows, so the fallback minimizes ring span.
//
// Cost. The free intervals are kept in a bitset tree of start ranks with their lengths,
// plus, as the rule needs, a max segment tree over start ranks (First Fit: leftmost
// start with length >= k, O(log n)) and a (length, start) index (Best Fit and Sum of
// Squares: per-length bitsets of starts for lengths <= 64, a treap above; smallest
// length >= k and its earliest start in O(1) resp. O(log n); Sum of Squares scores
// each distinct length >= k, at most sqrt(2n) of them). Taking or releasing a run of
// consecutive ranks costs O(log n). The minimum-span fallback is linear in the number
// I of free intervals, never a rescan of the nodes: a window starting inside an
// interval is never shorter than the one starting at that interval's first node, so
// only interval starts are candidates; they are walked with two pointers (O(I)), or,
// when intervals are dense, scanned in a bitset of free ranks with popcounts
// (O(n/64 + I), a smaller constant).

// CurveRule selects how a CurveAllocator chooses among the free intervals.
type CurveRule int

const (
	SortedFreeList CurveRule = iota // "freelist": the k free nodes of lowest rank
	FirstFit                        // "ff"
	BestFit                         // "bf"
	SumOfSquares                    // "sos"
)

func init() {
	reg := func(name, what string, rule CurveRule) {
		register(name, what, func(a string, m topo.Machine, opt Options) (Allocator, error) {
			return newCurveFromSpec(name, a, m, rule, opt)
		})
	}
	register("freelist", "sorted free list along a curve (Paging, page size 1): the k free nodes of lowest rank",
		func(a string, m topo.Machine, opt Options) (Allocator, error) {
			return newCurveFromSpec("freelist", a, m, SortedFreeList, opt)
		})
	reg("ff", "First Fit along a curve (Leung 2002): first interval of free ranks with room, else minimum span", FirstFit)
	reg("bf", "Best Fit along a curve (Leung 2002): smallest interval of free ranks with room, else minimum span", BestFit)
	reg("sos", "Sum of Squares along a curve (Leung 2002): interval leaving the most varied free lengths, else minimum span", SumOfSquares)
}

// curveArg splits a curve allocator's argument "CURVE", "CURVE:ring" or
// "CURVE:linear" into the curve and the suffix.
func curveArg(arg string) (curve, suffix string) {
	for _, suf := range []string{":ring", ":linear"} {
		if c, ok := strings.CutSuffix(arg, suf); ok {
			return c, suf
		}
	}
	return arg, ""
}

// newCurveFromSpec parses "CURVE" or "CURVE:ring" / "CURVE:linear".
func newCurveFromSpec(family, arg string, m topo.Machine, rule CurveRule, opt Options) (Allocator, error) {
	curve, suffix := curveArg(arg)
	ring := suffix == ":ring"
	if curve == "" {
		return nil, fmt.Errorf("%s needs a curve: %s:CURVE[:ring] with CURVE one of %s, or a ranking file",
			family, family, strings.Join(curves.Names(), ", "))
	}
	if ring && rule == SortedFreeList {
		return nil, fmt.Errorf("the sorted free list takes the lowest ranks; :ring does not apply")
	}
	o, err := resolveCurve(curve, m, opt)
	if err != nil {
		// bf:hilbert:rign is a curve and a misspelt option, not an unknown
		// curve "hilbert:rign".
		if i := strings.LastIndexByte(curve, ':'); i > 0 && slices.Contains(curves.Names(), curve[:i]) {
			if near := textin.DidYouMean(curve[i+1:], []string{"ring", "linear"}); near != "" {
				return nil, fmt.Errorf("unknown option %q after the curve%s: %s:CURVE[:ring]", textin.Clip(curve[i+1:]), near, family)
			}
		}
		return nil, err
	}
	name := family + ":" + arg
	return NewCurveAllocator(name, m, o, rule, ring)
}

// CurveAllocator allocates along a 1D ordering of the nodes (see the rules above).
type CurveAllocator struct {
	name  string
	m     topo.Machine
	st    *State
	rule  CurveRule
	ring  bool
	n     int
	order []int32 // node of each rank
	rank  []int32 // rank of each node

	starts *bitTree   // start ranks of the free intervals
	length []int32    // length[s] for s in starts
	byPos  *maxTree   // FirstFit: length at each start
	bySize *sizeIndex // BestFit, SumOfSquares: intervals by (length, start)

	freeR      []uint64 // bit r set: rank r free (for the word-level span scan)
	nIntervals int      // number of free intervals
	scanMode   int      // tests: 0 choose, 1 always walk intervals, 2 always scan words

	mark []uint64 // scratch bitset over ranks (Release, Occupy)

	// views (curve_view.go; nil: none): views[0] the whole machine's free
	// state, the others each a partition's; st and the interval index above
	// are views[vb.cur]'s (saved there when another view is made current); vb
	// the machine's free nodes and the nodes of each view (views.go)
	views      []curveFree
	vb         viewBook
	catchFreed []int // catch-up's scratch
	catchTaken []int
}

// NewCurveAllocator returns a curve allocator named name over the ordering o (o[r] =
// node of rank r) of machine m, every node free; ring selects the ring span variant
// (ignored for SortedFreeList).
func NewCurveAllocator(name string, m topo.Machine, o curves.Order, rule CurveRule, ring bool) (*CurveAllocator, error) {
	n := m.N()
	if n < 1 || rule < SortedFreeList || rule > SumOfSquares {
		return nil, fmt.Errorf("curve allocator: %d nodes, rule %d", n, rule)
	}
	if err := o.Validate(n); err != nil {
		return nil, fmt.Errorf("ordering for %s: %w", m.Spec(), err)
	}
	a := &CurveAllocator{
		name: name, m: m, rule: rule, ring: ring && rule != SortedFreeList, n: n,
		order: make([]int32, n), rank: make([]int32, n), mark: make([]uint64, (n+63)/64),
	}
	for r, v := range o {
		a.order[r] = int32(v)
		a.rank[v] = int32(r)
	}
	a.load(a.emptyFree())
	return a, nil
}

// emptyFree returns the free state of the machine with every node free: one
// interval of every rank.
func (a *CurveAllocator) emptyFree() curveFree {
	n := a.n
	f := curveFree{st: NewState(n), starts: newBitTree(n), length: make([]int32, n), freeR: make([]uint64, (n+63)/64)}
	switch a.rule {
	case FirstFit:
		f.byPos = newMaxTree(n)
	case BestFit, SumOfSquares:
		f.bySize = newSizeIndex(n)
	}
	cur := a.save()
	a.load(f)
	a.addInterval(0, n)
	a.setRanks(0, n, true)
	f = a.save()
	a.load(cur)
	return f
}

// Ranked is an allocator that allocates along an ordering of the nodes; a replay
// measures spans on its ranks (Leung et al. 2002 §2.3).
type Ranked interface {
	// Ordering returns the node of each rank (a new slice).
	Ordering() []int
}

// Ordering returns the node of each rank.
func (a *CurveAllocator) Ordering() []int {
	o := make([]int, len(a.order))
	for r, v := range a.order {
		o[r] = int(v)
	}
	return o
}

// Name returns the spec the allocator was built from, e.g. "bf:hilbert".
func (a *CurveAllocator) Name() string { return a.name }

// Machine returns the machine the allocator was built for.
func (a *CurveAllocator) Machine() topo.Machine { return a.m }

// NumFree returns the number of free nodes.
func (a *CurveAllocator) NumFree() int { return a.st.NumFree() }

// State returns the allocator's free/busy state (read it, do not change it).
func (a *CurveAllocator) State() *State { return a.st }

// machineState is the machine's free state (MachineState): with views, not
// the current view's.
func (a *CurveAllocator) machineState() *State { return a.vb.machine(a.st) }

func (a *CurveAllocator) addInterval(s, l int) {
	a.nIntervals++
	a.starts.add(s)
	a.length[s] = int32(l)
	if a.byPos != nil {
		a.byPos.set(s, int32(l))
	}
	if a.bySize != nil {
		a.bySize.add(s, l)
	}
}

// resizeInterval changes the length of the interval that starts at s.
func (a *CurveAllocator) resizeInterval(s, l int) {
	old := int(a.length[s])
	a.length[s] = int32(l)
	if a.byPos != nil {
		a.byPos.set(s, int32(l))
	}
	if a.bySize != nil {
		a.bySize.remove(s, old)
		a.bySize.add(s, l)
	}
}

func (a *CurveAllocator) removeInterval(s int) int {
	a.nIntervals--
	l := int(a.length[s])
	a.starts.remove(s)
	if a.byPos != nil {
		a.byPos.set(s, 0)
	}
	if a.bySize != nil {
		a.bySize.remove(s, l)
	}
	return l
}

// intervalOf returns the start of the free interval holding free rank r.
func (a *CurveAllocator) intervalOf(r int) int {
	if s := a.starts.prev(r); s >= 0 && r < s+int(a.length[s]) {
		return s
	}
	// Ring only: r lies in the part of the last interval that wrapped past rank 0.
	return a.starts.prev(a.n - 1)
}

// nextStart returns the start of the interval after the one starting at s, in rank
// order (cyclically in the ring variant), or -1.
func (a *CurveAllocator) nextStart(s int) int {
	t := a.starts.next(s + 1)
	if t < 0 && a.ring {
		t = a.starts.next(0)
	}
	return t
}

// takeRunIn marks c free ranks r, r+1, ... (cyclic in the ring variant), all in the
// interval that starts at s, busy in the interval index. The caller updates the State.
func (a *CurveAllocator) takeRunIn(s, r, c int) {
	a.setRanks(r, c, false)
	l := int(a.length[s])
	if l == a.n && a.ring {
		// The whole ring was free: what is left is one interval after the run.
		a.removeInterval(s)
		if c < a.n {
			a.addInterval((r+c)%a.n, a.n-c)
		}
		return
	}
	off := r - s
	if off < 0 {
		off += a.n
	}
	if off > 0 {
		a.resizeInterval(s, off) // the part before the run keeps its start
	} else {
		a.removeInterval(s)
	}
	if rest := l - off - c; rest > 0 {
		a.addInterval((r+c)%a.n, rest)
	}
}

// releaseRun frees c busy ranks r, r+1, ... (consecutive, not wrapping) in the
// interval index, merging with the free intervals on either side.
// The caller has already marked the run free in freeR.
func (a *CurveAllocator) releaseRun(r, c int) {
	left := r - 1
	if left < 0 && a.ring {
		left = a.n - 1
	}
	// A left neighbour busy in freeR (the common case) is in no interval: no lookup.
	leftFree := left >= 0 && a.freeR[left>>6]>>(left&63)&1 != 0
	start, l := r, c
	right := r + c
	if right == a.n {
		right = -1
		if a.ring {
			right = 0
		}
	}
	rightStart := -1
	if right >= 0 && a.starts.has(right) {
		rightStart = right
	}
	leftStart := -1
	if leftFree {
		leftStart = a.intervalContaining(left)
	}
	if leftStart >= 0 && leftStart == rightStart {
		// Ring: the run closes the only gap; everything is free.
		a.removeInterval(leftStart)
		a.addInterval(0, a.n)
		return
	}
	if rightStart >= 0 {
		l += a.removeInterval(rightStart)
	}
	if leftStart >= 0 {
		l += int(a.length[leftStart])
		if l < a.n || leftStart == 0 {
			a.resizeInterval(leftStart, l) // the merged interval keeps the left start
			return
		}
		a.removeInterval(leftStart)
		start = leftStart
	}
	if l == a.n {
		start = 0 // everything free: the canonical interval starts at rank 0
	}
	a.addInterval(start, l)
}

// intervalContaining returns the start of the free interval that covers rank r in
// the interval index, or -1 (Release consults the index, not the State, which
// already shows the whole released set free).
func (a *CurveAllocator) intervalContaining(r int) int {
	if s := a.starts.prev(r); s >= 0 && r < s+int(a.length[s]) {
		return s
	}
	if a.ring {
		if s := a.starts.prev(a.n - 1); s >= 0 && r < s+int(a.length[s])-a.n {
			return s
		}
	}
	return -1
}

// Allocate chooses k free nodes by the allocator's rule (see the package notes on
// curve allocators); the nodes are returned in rank order from the first one taken.
func (a *CurveAllocator) Allocate(k int) ([]int, error) {
	if err := a.st.CheckRequest(k); err != nil {
		return nil, err
	}
	var s int
	switch a.rule {
	case SortedFreeList:
		s = a.starts.next(0)
		return a.takeWindow(s, k), nil
	case FirstFit:
		s = a.byPos.leftmostAtLeast(int32(k))
	case BestFit:
		s = -1
		if _, t, ok := a.bySize.ceil(k); ok {
			s = t
		}
	case SumOfSquares:
		s = a.sumSquaresChoice(k)
	}
	if s < 0 {
		s = a.minSpan(k)
	}
	return a.takeWindow(s, k), nil
}

// sumSquaresChoice returns the start of the interval Sum of Squares picks, or -1
// when no interval holds k nodes. Taking k nodes from the front of an interval of
// length L turns one interval of length L into one of length L-k (none when L = k),
// so sum N^2 changes by (1 - 2 N(L)) + (2 N(L-k) + 1 if L > k); only the length
// matters, so each distinct length is scored once, with its earliest interval.
func (a *CurveAllocator) sumSquaresChoice(k int) int {
	best, bestDelta := -1, 0
	for l := k; ; {
		var s int
		var ok bool
		if l, s, ok = a.bySize.ceil(l); !ok {
			break
		}
		delta := 1 - 2*int(a.bySize.count[l])
		if l > k {
			delta += 2*int(a.bySize.count[l-k]) + 1
		}
		if best < 0 || delta < bestDelta || (delta == bestDelta && s < best) {
			best, bestDelta = s, delta
		}
		l++
	}
	return best
}

// setRanks marks c ranks from r (cyclically) free or busy in freeR.
func (a *CurveAllocator) setRanks(r, c int, free bool) {
	if r+c > a.n { // wraps: two pieces
		a.setRanks(r, a.n-r, free)
		a.setRanks(0, r+c-a.n, free)
		return
	}
	for lo, hi := r, r+c; lo < hi; {
		w := lo >> 6
		end := min(hi, (w+1)<<6)
		var mask uint64 = ^uint64(0)
		if end-lo < 64 {
			mask = (1<<(end-lo) - 1) << (lo & 63)
		}
		if free {
			a.freeR[w] |= mask
		} else {
			a.freeR[w] &^= mask
		}
		lo = end
	}
}

// minSpan returns the rank where the minimum-span window of k free nodes begins
// (see minSpanStart for the rule). Both methods below give the same answer; the
// interval walk costs O(I) for I free intervals, the word scan O(n/64 + I) with a
// smaller constant, so the scan is used when intervals are dense.
func (a *CurveAllocator) minSpan(k int) int {
	switch {
	case a.scanMode == 1:
		return a.minSpanStart(k)
	case a.scanMode == 2 || a.nIntervals > len(a.freeR)/4:
		return a.minSpanScan(k)
	}
	return a.minSpanStart(k)
}

// minSpanScan is minSpanStart computed over the bitset of free ranks: the window
// candidates are the free ranks whose predecessor is busy (interval starts) and, in
// the ring variant, rank 0 when free; each candidate's window ends at the free node
// k-1 places further in the (cyclic) free list, found by a forward-only pointer with
// popcounts and an in-word select. The ring is handled as the free list doubled.
func (a *CurveAllocator) minSpanScan(k int) int {
	nf := a.st.NumFree()
	words := len(a.freeR)
	best, bestSpan := -1, 0
	// End pointer: the free node with free-list index eidx is bit eb of word ew, on
	// the first or (ring) second lap; above masks the bits of word ew after it.
	ew, eb, lap, eidx := 0, -1, 0, -1
	above := ^uint64(0)
	sbase := 0 // free ranks in the words before sw
	var prevTop uint64
	for sw := 0; sw < words; sw++ {
		w := a.freeR[sw]
		for m := w &^ (w<<1 | prevTop); m != 0; m &= m - 1 {
			b := bits.TrailingZeros64(m)
			p := sw<<6 + b
			target := sbase + bits.OnesCount64(w&(1<<b-1)) + k - 1 // free-list index of the window's last node
			if target >= nf && !a.ring {
				return best
			}
			for need := target - eidx; need > 0; {
				rest := a.freeR[ew] & above
				if c := bits.OnesCount64(rest); c >= need {
					eb = select64(rest, need-1)
					above = ^uint64(0) << uint(eb) << 1
					break
				} else {
					need -= c
				}
				if ew++; ew == words {
					ew, lap = 0, 1
				}
				above = ^uint64(0)
			}
			eidx = target
			e := ew<<6 + eb + lap*a.n
			if span := e - p; best < 0 || span < bestSpan {
				best, bestSpan = p, span
			}
		}
		prevTop = w >> 63
		sbase += bits.OnesCount64(w)
	}
	return best
}

// select64 returns the position of the j-th (from 0) set bit of w; w has more than
// j set bits.
func select64(w uint64, j int) int {
	if j < 4 {
		for ; j > 0; j-- {
			w &= w - 1
		}
		return bits.TrailingZeros64(w)
	}
	pos := 0
	for _, sh := range [3]uint{32, 16, 8} {
		if low := bits.OnesCount64(w & (1<<sh - 1)); j >= low {
			j -= low
			w >>= sh
			pos += int(sh)
		}
	}
	for ; j > 0; j-- {
		w &= w - 1
	}
	return pos + bits.TrailingZeros64(w)
}

// minSpanStart returns the rank where the minimum-span window of k free nodes
// begins. Windows are compared by the rank difference between their last and first
// node (around the ring in the ring variant); ties go to the lowest start rank. It
// walks the intervals in rank order with two pointers: cur is the interval of the
// candidate start pos, j the interval where its window ends (cyclically in the ring
// variant), sum the free nodes from pos to the end of interval j. Candidates are the
// interval starts, and in the ring variant also rank 0 when the last interval wraps
// past it (it is the lowest rank of that interval). The caller guarantees that no
// interval holds k nodes and k <= free nodes.
func (a *CurveAllocator) minSpanStart(k int) int {
	best, bestSpan := -1, 0
	cur := a.starts.next(0)
	pos, head := cur, int(a.length[cur]) // head: free nodes from pos to the end of cur
	if a.ring {
		if w := a.starts.prev(a.n - 1); w+int(a.length[w]) > a.n {
			cur, pos, head = w, 0, w+int(a.length[w])-a.n
		}
	}
	j, sum := cur, head
	back := false // the window from rank 0 came round to the part of cur before it
	for {
		for sum < k {
			nj := a.nextStart(j)
			if nj < 0 {
				return best // linear: no window from pos on holds k nodes
			}
			if nj == cur {
				if pos == cur || back {
					return best // cannot happen when k <= free nodes
				}
				back = true
			}
			j = nj
			if back && j == cur {
				sum += int(a.length[cur]) - head
			} else {
				sum += int(a.length[j])
			}
		}
		end := pos + k - 1
		switch {
		case back && j == cur: // ends in the part of cur from its start to rank n-1
			end = cur + k - (sum - (int(a.length[cur]) - head)) - 1
		case j != cur: // ends inside interval j
			end = j + k - (sum - int(a.length[j])) - 1
		}
		span := end - pos
		if a.ring {
			span = ((end-pos)%a.n + a.n) % a.n
		}
		if best < 0 || span < bestSpan {
			best, bestSpan = pos, span
		}
		var next int
		if pos != cur {
			next = a.starts.next(0) // from rank 0 in the wrapping interval to the first
		} else if next = a.starts.next(cur + 1); next < 0 {
			return best
		}
		if j == cur || back {
			j, sum, back = next, int(a.length[next]), false
		} else {
			sum -= head
		}
		cur, pos, head = next, next, int(a.length[next])
	}
}

// takeWindow takes the k free nodes that follow free rank p in rank order
// (cyclically in the ring variant), p included. The intervals strictly between the
// first and the last one the window touches are used whole: their starts and free
// bits are cleared as one range each at the end, not one interval at a time.
func (a *CurveAllocator) takeWindow(p, k int) []int {
	nodes := make([]int, k)
	s := a.intervalOf(p)
	off := p - s
	if off < 0 {
		off += a.n
	}
	c := min(int(a.length[s])-off, k)
	i := a.appendRanks(nodes, 0, p, c)
	if i == k {
		a.takeRunIn(s, p, c)
		return a.commit(nodes)
	}
	next := a.nextStart(s)
	a.takeRunIn(s, p, c)
	firstMid, lastMid, endMid := -1, -1, 0
	for s = next; ; s = next {
		l := int(a.length[s])
		if i+l >= k { // the last interval
			c = k - i
			a.appendRanks(nodes, i, s, c)
			a.takeRunIn(s, s, c)
			break
		}
		i = a.appendRanks(nodes, i, s, l)
		next = a.nextStart(s)
		a.nIntervals--
		if a.byPos != nil {
			a.byPos.set(s, 0)
		}
		if a.bySize != nil {
			a.bySize.remove(s, l)
		}
		if firstMid < 0 {
			firstMid = s
		}
		lastMid, endMid = s, s+l
	}
	if firstMid >= 0 {
		if lastMid >= firstMid {
			a.starts.removeRange(firstMid, lastMid+1)
		} else {
			a.starts.removeRange(firstMid, a.n)
			a.starts.removeRange(0, lastMid+1)
		}
		span := endMid - firstMid
		if span <= 0 {
			span += a.n
		}
		a.setRanks(firstMid, span, false)
	}
	return a.commit(nodes)
}

// appendRanks writes the nodes of the c ranks from r (cyclically) into nodes from
// index i and returns the index after them.
func (a *CurveAllocator) appendRanks(nodes []int, i, r, c int) int {
	if r+c > a.n {
		i = a.appendRanks(nodes, i, r, a.n-r)
		return a.appendRanks(nodes, i, 0, r+c-a.n)
	}
	dst := nodes[i : i+c]
	for t, v := range a.order[r : r+c] {
		dst[t] = int(v)
	}
	return i + c
}

// commit marks the chosen nodes busy in the State (and, with views, in the
// machine's: they are free in the current view, so in the machine).
func (a *CurveAllocator) commit(nodes []int) []int {
	// The nodes were free (they come from the interval index), so this cannot fail.
	if err := a.st.Take(nodes); err != nil {
		panic("alloc: curve interval index out of step with the state: " + err.Error())
	}
	if a.vb.on() {
		if err := a.vb.truth.Take(nodes); err != nil {
			panic("alloc: " + a.name + ": view out of step with the machine: " + err.Error())
		}
	}
	return nodes
}

// Release frees the nodes; they must all be busy (else nothing changes).
func (a *CurveAllocator) Release(nodes []int) error {
	if !a.vb.on() {
		return a.releaseNodes(nodes)
	}
	in, err := a.vb.change(nodes, true)
	if err != nil {
		return err
	}
	if err := a.releaseNodes(in); err != nil {
		return fmt.Errorf("%s: internal error: view %d: %w", a.name, a.vb.cur, err)
	}
	return nil
}

// releaseNodes is Release in the current free state alone.
func (a *CurveAllocator) releaseNodes(nodes []int) error {
	if err := a.st.Release(nodes); err != nil {
		return err
	}
	lo, hi := a.markRanks(nodes)
	for w := lo >> 6; w <= hi>>6; w++ {
		a.freeR[w] |= a.mark[w]
	}
	a.eachMarkedRun(lo, hi, a.releaseRun)
	return nil
}

// Occupy marks the nodes busy (Occupier), all or nothing: each run of their
// consecutive ranks is taken from the free interval holding it as Allocate
// takes a window's runs (takeRunIn), so the interval index is the one of the
// free ranks left, as after any Allocate, and the allocator decides as on a
// machine where jobs took those nodes (its rules read the free intervals alone).
func (a *CurveAllocator) Occupy(nodes []int) error {
	if !a.vb.on() {
		if err := a.occupyNodes(nodes); err != nil {
			return fmt.Errorf("%s: %w", a.name, err)
		}
		return nil
	}
	in, err := a.vb.change(nodes, false)
	if err != nil {
		return fmt.Errorf("%s: %w", a.name, err)
	}
	if err := a.occupyNodes(in); err != nil {
		return fmt.Errorf("%s: internal error: view %d: %w", a.name, a.vb.cur, err)
	}
	return nil
}

// occupyNodes is Occupy in the current free state alone.
func (a *CurveAllocator) occupyNodes(nodes []int) error {
	if err := a.st.Take(nodes); err != nil {
		return err
	}
	lo, hi := a.markRanks(nodes)
	a.eachMarkedRun(lo, hi, func(r, c int) { a.takeRunIn(a.intervalOf(r), r, c) })
	return nil
}

// IsFree reports whether node v is free (Occupier).
func (a *CurveAllocator) IsFree(v int) bool { return a.st.IsFree(v) }

// AppendFreeIn appends the free nodes of the bitmap set (Mask's bulk path).
func (a *CurveAllocator) AppendFreeIn(dst []int, set []uint64) []int {
	return a.st.AppendFreeIn(dst, set)
}

// markRanks marks the ranks of nodes (distinct) in a.mark and
// returns the least and the greatest.
func (a *CurveAllocator) markRanks(nodes []int) (lo, hi int) {
	lo, hi = a.n, -1
	for _, v := range nodes {
		r := int(a.rank[v])
		a.mark[r>>6] |= 1 << (r & 63)
		lo, hi = min(lo, r), max(hi, r)
	}
	return lo, hi
}

// eachMarkedRun calls f(r, c) for each run of c consecutive ranks from r marked
// in a.mark between lo and hi (markRanks), in rank order without wrapping, read
// off the marked words without sorting, and clears the marks.
func (a *CurveAllocator) eachMarkedRun(lo, hi int, f func(r, c int)) {
	if hi < lo {
		return // no node
	}
	for r, last := lo, hi>>6; ; {
		w := r >> 6
		x := a.mark[w] >> (r & 63) << (r & 63)
		for x == 0 && w < last {
			w++
			x = a.mark[w]
		}
		if x == 0 {
			break
		}
		r = w<<6 + bits.TrailingZeros64(x)
		end := r // one past the run
		for end < a.n {
			ones := bits.TrailingZeros64(^(a.mark[end>>6] >> (end & 63)))
			if ones == 0 {
				break
			}
			end += ones
			if end&63 != 0 {
				break
			}
		}
		f(r, end-r)
		if r = end; r > hi {
			break
		}
	}
	clear(a.mark[lo>>6 : hi>>6+1])
}

// clearBits clears bits lo..hi-1 of b.
func clearBits(b []uint64, lo, hi int) {
	for lo < hi {
		w := lo >> 6
		end := min(hi, (w+1)<<6)
		var mask uint64 = ^uint64(0)
		if end-lo < 64 {
			mask = (1<<(end-lo) - 1) << (lo & 63)
		}
		b[w] &^= mask
		lo = end
	}
}
