package qap

import (
	"context"
	"fmt"
	"math"
	"slices"
)

// MaxOrderBBWork caps the size of the walk tables of BranchAndBoundOrdering (entries
// times candidate nodes, per table).
const MaxOrderBBWork = 2e8

// BranchAndBoundOrdering solves an ordering QAP exactly (facilities are ranks,
// locations nodes; the flows are banded: ranks interact only within K of each other,
// and with ring also across the wrap, where the later rank meets one of the first K).
// It places nodes rank by rank, depth first, and bounds a prefix by its cost plus the
// cheapest way to continue it as a walk in which every K+1 consecutive nodes are
// distinct: a dynamic program over the last K nodes, computed once per run (line) or
// once per choice of the first K nodes (ring), so each bound costs one table lookup.
// The walk sees exactly how consecutive steps interact (on a bipartite grid two unit
// steps force distance 2 between ranks two apart), which is what the Gilmore-Lawler
// bound misses; it ignores only repetitions of nodes more than K ranks apart. Two more
// devices cut the tree: dominance (two prefixes on the same node set ending in the
// same K nodes have the same completions, so the costlier one is dropped; a table per
// worker) and the automorphisms of the distances (a prefix is kept only if no
// automorphism maps it to a lexicographically smaller one; for the ring node 0 takes
// rank 0). Rounding, stopping and determinism are as in BranchAndBound.
//
// It needs symmetric distances, at most 64 nodes and K small enough that the tables
// (n^K entries) fit MaxOrderBBWork; otherwise it returns an error and the general
// BranchAndBound applies.
func BranchAndBoundOrdering(ctx context.Context, q *QAP, ring bool, incumbent []int, opt BBOptions) (*BBResult, error) {
	return runBBTree(ctx, q, incumbent, func() (bbTree, error) { return newOrderBB(q, ring, opt) })
}

type predTerm struct {
	r    int
	coef float64
}

// orderBB is the shared state of BranchAndBoundOrdering.
type orderBB struct {
	*bbShared
	k     int
	ring  bool
	nk    int          // n^k
	pred  [][]predTerm // rank s: earlier ranks r with a flow to s, coefficient of B[p_r][p_s]
	win   [][]float64  // win[s][t]: coefficient of the pair (s-t, s), t = 1..k
	head  [][]predTerm // rank s: pairs with r < k and s - r > k (ring wrap)
	diag  []float64
	auts  [][]int
	lineV []float64 // walk table of the line (no head terms), nil for the ring
	// useDom: the dominance key (8 bits per node, the last k nodes and for the ring
	// the first k) fits in 64 bits.
	useDom bool
	codes  []int32 // codes of k-tuples of distinct nodes
}

func newOrderBB(q *QAP, ring bool, opt BBOptions) (*orderBB, error) {
	n := q.N
	if !q.SymmetricB() {
		return nil, fmt.Errorf("ordering branch and bound: distances are not symmetric")
	}
	if n > 64 {
		return nil, fmt.Errorf("ordering branch and bound: %d nodes, at most 64", n)
	}
	k := Band(q, ring)
	if k == 0 || k >= n {
		k = max(1, min(k, n-1))
	}
	work := math.Pow(float64(n), float64(k+1)) * float64(n)
	if k > 6 || work > MaxOrderBBWork {
		return nil, fmt.Errorf("ordering branch and bound: band K = %d on %d nodes needs tables of %.3g entries (limit %g)", k, n, work, float64(MaxOrderBBWork))
	}
	sopt := opt
	sopt.NoSymmetry = true
	ob := &orderBB{bbShared: newBBShared(q, sopt), k: k, ring: ring, pred: make([][]predTerm, n),
		win: make([][]float64, n), head: make([][]predTerm, n), diag: make([]float64, n)}
	ob.nk = 1
	for range k {
		ob.nk *= n
	}
	for s := 0; s < n; s++ {
		ob.diag[s] = q.A[s*n+s]
		ob.win[s] = make([]float64, k+1)
		for r := 0; r < s; r++ {
			c := q.A[r*n+s] + q.A[s*n+r]
			if c == 0 {
				continue
			}
			ob.pred[s] = append(ob.pred[s], predTerm{r, c})
			switch {
			case s-r <= k:
				ob.win[s][s-r] = c
			case r < k:
				ob.head[s] = append(ob.head[s], predTerm{r, c})
			default:
				return nil, fmt.Errorf("ordering branch and bound: ranks %d and %d interact but are more than K = %d apart", r, s, k)
			}
		}
	}
	if !opt.NoSymmetry {
		ob.auts = distanceAutomorphisms(q.B, n)
	}
	ob.useDom = k <= 8 && (!ring || 2*k <= 8)
	tup := make([]int, k)
	for code := 0; code < ob.nk; code++ {
		ob.decode(code, tup)
		if distinct(tup) {
			ob.codes = append(ob.codes, int32(code))
		}
	}
	if !ring {
		ob.lineV = ob.walkTable(nil)
	}
	return ob, nil
}

func distinct(t []int) bool {
	for i := range t {
		for j := 0; j < i; j++ {
			if t[i] == t[j] {
				return false
			}
		}
	}
	return true
}

// decode writes the k nodes of a table code (oldest first).
func (ob *orderBB) decode(code int, t []int) {
	n := ob.n
	for j := ob.k - 1; j >= 0; j-- {
		t[j] = code % n
		code /= n
	}
}

// walkTable returns V with V[(s-k)*nk + code] = the cheapest cost of ranks s..n-1
// given the nodes of ranks s-k..s-1 (code), over walks whose every k+1 consecutive
// nodes are distinct and avoid the first k nodes head (ring; nil for the line).
func (ob *orderBB) walkTable(head []int) []float64 {
	n, k, nk := ob.n, ob.k, ob.nk
	layers := n - k + 1
	V := make([]float64, layers*nk)
	inf := math.Inf(1)
	for i := range V[:(layers-1)*nk] {
		V[i] = inf
	}
	inHead := make([]bool, n)
	for _, v := range head {
		inHead[v] = true
	}
	tup := make([]int, k)
	hc := make([]float64, n) // head cost of each node at rank s
	for s := n - 1; s >= k; s-- {
		cur := V[(s-k)*nk:]
		next := V[(s+1-k)*nk:]
		for v := 0; v < n; v++ {
			hc[v] = ob.diag[s] * ob.b[v*n+v]
			if head != nil {
				for _, h := range ob.head[s] {
					hc[v] += h.coef * ob.b[head[h.r]*n+v]
				}
			}
		}
		for _, c32 := range ob.codes {
			code := int(c32)
			ob.decode(code, tup)
			best := inf
			shift := (code * n) % nk
			for v := 0; v < n; v++ {
				if inHead[v] || slices.Contains(tup, v) {
					continue
				}
				c := hc[v] + next[shift+v]
				for t := 1; t <= k; t++ {
					if w := ob.win[s][t]; w != 0 {
						c += w * ob.b[tup[k-t]*n+v]
					}
				}
				best = min(best, c)
			}
			cur[code] = best
		}
	}
	return V
}

// obWorker searches subtrees of the ordering tree.
type obWorker struct {
	ob        *orderBB
	p         []int
	used      uint64
	V         []float64
	vHead     []int // the first k nodes V was built for (ring)
	stab      [][]int32
	children  [][]obChild
	dom       []domEntry
	nodes     int64
	flushed   int64
	pendingLB float64

	collectDepth int
	collected    *[]bbTask
}

type obChild struct {
	v     int
	delta float64
	lb    float64
}

type domEntry struct {
	mask, tail uint64
	cost       float64
}

const domBits = 20

func newOBWorker(ob *orderBB) *obWorker {
	n := ob.n
	w := &obWorker{ob: ob, p: make([]int, n), stab: make([][]int32, n+1), children: make([][]obChild, n+1),
		dom: make([]domEntry, 1<<domBits), V: ob.lineV}
	for i := range w.dom {
		w.dom[i].cost = math.Inf(1) // empty: never prunes
	}
	for d := range w.children {
		w.children[d] = make([]obChild, 0, n)
	}
	return w
}

func (w *obWorker) flush() {
	total := w.ob.nodes.Add(w.nodes - w.flushed)
	w.flushed = w.nodes
	w.ob.progress(total)
}

// step is the cost rank d adds when it holds node v after the prefix p[:d].
func (w *obWorker) step(d, v int) float64 {
	ob, n := w.ob, w.ob.n
	c := ob.diag[d] * ob.b[v*n+v]
	for _, t := range ob.pred[d] {
		c += t.coef * ob.b[w.p[t.r]*n+v]
	}
	return c
}

// toGo is the walk bound of the remaining ranks after a prefix of length d whose last
// node is v (p[d-1] = v already written), 0 while d < k or no table applies.
func (w *obWorker) toGo(d int) float64 {
	ob := w.ob
	if d < ob.k || w.V == nil || d == ob.n {
		return 0
	}
	code := 0
	for j := d - ob.k; j < d; j++ {
		code = code*ob.n + w.p[j]
	}
	return w.V[(d-ob.k)*ob.nk+code]
}

func (w *obWorker) domKey(d int) (uint64, uint64, int) {
	ob := w.ob
	tail := uint64(0)
	for j := d - ob.k; j < d; j++ {
		tail = tail<<8 | uint64(w.p[j])
	}
	if ob.ring {
		for j := 0; j < ob.k; j++ {
			tail = tail<<8 | uint64(w.p[j])
		}
	}
	h := (w.used*0x9e3779b97f4a7c15 ^ tail*0xc2b2ae3d27d4eb4f)
	h ^= h >> 29
	return w.used, tail, int(h & (1<<domBits - 1))
}

// load sets the worker to the prefix of t (the ranks 0..d-1 with p >= 0).
func (w *obWorker) load(t bbTask) int {
	ob := w.ob
	d := 0
	w.used = 0
	for _, v := range t.p {
		if v < 0 {
			break
		}
		w.p[d] = v
		w.used |= 1 << v
		d++
	}
	w.stab[0] = w.stab[0][:0]
	for a := range ob.auts {
		w.stab[0] = append(w.stab[0], int32(a))
	}
	for j := 0; j < d; j++ {
		w.stab[j+1] = w.stab[j+1][:0]
		for _, a := range w.stab[j] {
			if ob.auts[a][w.p[j]] == w.p[j] {
				w.stab[j+1] = append(w.stab[j+1], a)
			}
		}
	}
	if ob.ring && d >= ob.k {
		w.ensureTable()
	}
	return d
}

// ensureTable builds the ring's walk table for the current first k nodes.
func (w *obWorker) ensureTable() {
	ob := w.ob
	head := w.p[:ob.k]
	if w.V != nil && slices.Equal(w.vHead, head) {
		return
	}
	w.vHead = slices.Clone(head)
	w.V = ob.walkTable(w.vHead)
}

// allowed reports whether node v may take rank d: free, and no automorphism fixing the
// prefix maps v to a smaller node (lexicographic leader); for the ring node 0 first.
func (w *obWorker) allowed(d, v int) bool {
	if w.used&(1<<v) != 0 {
		return false
	}
	if w.ob.ring && d == 0 {
		return v == 0
	}
	for _, a := range w.stab[d] {
		if w.ob.auts[a][v] < v {
			return false
		}
	}
	return true
}

func (w *obWorker) dfs(d int, C float64) (bool, float64) {
	ob, n, k := w.ob, w.ob.n, w.ob.k
	if d == n {
		w.nodes++
		ob.offer(w.p, ob.q.Objective(w.p))
		return true, math.Inf(1)
	}
	if w.collected != nil && d == w.collectDepth {
		t := bbTask{p: slices.Repeat([]int{-1}, n), lb: w.pendingLB, fixed: C}
		copy(t.p, w.p[:d])
		*w.collected = append(*w.collected, t)
		return true, math.Inf(1)
	}
	w.nodes++
	if w.nodes-w.flushed >= 1024 {
		w.flush()
	}
	if ob.ring && d == k {
		w.ensureTable()
	}
	// Dominance only where no automorphism fixes the prefix: below such a node the
	// symmetry breaking prunes nothing, so a completed subtree really covers every
	// completion of its state (with symmetry pruning below, two prefixes could each
	// rely on the other).
	var dm, dt uint64
	di := -1
	if d >= k && d > 0 && ob.useDom && len(w.stab[d]) <= 1 {
		dm, dt, di = w.domKey(d)
		if e := &w.dom[di]; e.mask == dm && e.tail == dt && w.dominated(e.cost, C) {
			return true, math.Inf(1)
		}
	}
	ch := w.children[d][:0]
	for v := 0; v < n; v++ {
		if !w.allowed(d, v) {
			continue
		}
		delta := w.step(d, v)
		w.p[d] = v
		lb := C + delta
		if !ob.ring || d+1 > k {
			lb += w.toGo(d + 1)
		}
		if ob.prunes(lb) {
			continue
		}
		ch = append(ch, obChild{v, delta, lb})
	}
	slices.SortStableFunc(ch, func(x, y obChild) int { return cmpFloat(x.lb, y.lb) })
	w.children[d] = ch
	for idx, c := range ch {
		if ob.stop.Load() {
			return false, openMin(ch[idx:], func(c obChild) float64 { return c.lb }, math.Inf(1))
		}
		if ob.prunes(c.lb) {
			continue
		}
		w.p[d] = c.v
		w.used |= 1 << c.v
		w.stab[d+1] = w.stab[d+1][:0]
		for _, a := range w.stab[d] {
			if ob.auts[a][c.v] == c.v {
				w.stab[d+1] = append(w.stab[d+1], a)
			}
		}
		w.pendingLB = c.lb
		ok, om := w.dfs(d+1, C+c.delta)
		w.used &^= 1 << c.v
		if !ok {
			return false, openMin(ch[idx+1:], func(c obChild) float64 { return c.lb }, om)
		}
	}
	if di >= 0 && w.collected == nil { // while collecting, a subtree is only cut off, not searched
		w.dom[di] = domEntry{dm, dt, C}
	}
	return true, math.Inf(1)
}

// dominated reports whether a prefix of cost c is no better than a completed one of
// cost stored on the same state (on float data only when clearly no better).
func (w *obWorker) dominated(stored, c float64) bool {
	if w.ob.g > 0 {
		return stored <= c
	}
	return stored <= c-1e-9*max(1, math.Abs(c))
}

func (ob *orderBB) run() *BBResult {
	n := ob.n
	res := &BBResult{RootBound: math.Inf(-1)}
	w := newOBWorker(ob)
	root := bbTask{p: slices.Repeat([]int{-1}, n)}
	if ob.lineV != nil {
		// The root bound: the cheapest walk over all starts.
		tup := make([]int, ob.k)
		rb := math.Inf(1)
		for _, c := range ob.codes {
			ob.decode(int(c), tup)
			var in float64
			for s := 0; s < ob.k; s++ {
				in += ob.diag[s] * ob.b[tup[s]*n+tup[s]]
				for _, t := range ob.pred[s] {
					in += t.coef * ob.b[tup[t.r]*n+tup[s]]
				}
			}
			rb = min(rb, in+ob.lineV[int(c)])
		}
		res.RootBound = ob.safe(rb)
	}
	ob.rootLB = res.RootBound
	var tasks []bbTask
	complete, openMin := true, math.Inf(1)
	if ob.workers == 1 || n < 6 {
		w.load(root)
		if ok, om := w.dfs(0, 0); !ok {
			complete, openMin = false, om
		}
	} else {
		depth := ob.k
		if !ob.ring {
			depth = 1
		}
		for ; ; depth++ {
			tasks = tasks[:0]
			w.collectDepth, w.collected = depth, &tasks
			w.load(root)
			ok, om := w.dfs(0, 0)
			w.collected = nil
			if !ok {
				complete, openMin, tasks = false, om, nil
				break
			}
			if len(tasks) >= 16*ob.workers || depth >= n-4 {
				break
			}
		}
	}
	if len(tasks) > 0 {
		workers := []*obWorker{w}
		for len(workers) < ob.workers {
			workers = append(workers, newOBWorker(ob))
		}
		c, om := runTasks(ob.bbShared, workers, tasks, func(wk *obWorker, t bbTask) (bool, float64) {
			return wk.dfs(wk.load(t), t.fixed)
		})
		complete, openMin = complete && c, min(openMin, om)
		for _, wk := range workers[1:] {
			wk.flush()
		}
	}
	w.flush()
	return ob.finish(res, complete, openMin)
}
