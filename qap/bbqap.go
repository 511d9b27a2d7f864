package qap

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// BBOptions control BranchAndBound.
type BBOptions struct {
	// Workers is the number of goroutines that share the search tree (0: 2). The tree
	// is cut into subproblems at a fixed depth, handed out in depth-first order.
	Workers int
	// Allowed, when not nil, reports whether facility i may take location k
	// (symmetry breaking: the forbidden pairs must leave an optimal assignment).
	Allowed func(i, k int) bool
	// Prune, when not nil, reports whether a partial assignment (p[i] = -1 for an
	// unassigned facility) may be discarded because an equivalent assignment of equal
	// cost is kept elsewhere in the tree (symmetry breaking).
	Prune func(p []int) bool
	// NoSymmetry turns off the symmetry breaking BranchAndBound derives itself
	// (interchangeable facilities; and, when neither Allowed nor Prune is given, the
	// automorphisms of the distance matrix).
	NoSymmetry bool
	// Progress, when not nil, receives snapshots about twice a second.
	Progress func(BBProgress)
}

// BBProgress is a snapshot of a running branch and bound.
type BBProgress struct {
	Incumbent float64 // objective of the best assignment so far
	RootBound float64 // Gilmore-Lawler bound of the root
	Nodes     int64   // nodes whose bound was computed so far
}

// BBResult is the outcome of BranchAndBound.
type BBResult struct {
	Assignment []int   // best assignment found (facility -> location)
	Objective  float64 // q.Objective(Assignment)
	// Bound is a proven lower bound on the optimum: equal to Objective when the search
	// completed, else the smallest bound of the subproblems left open.
	Bound     float64
	RootBound float64 // Gilmore-Lawler bound of the root
	Optimal   bool    // the search completed: Objective is optimal
	Status    Status  // StatusOptimal, StatusTimeLimit or StatusInterrupted
	Nodes     int64   // nodes whose bound was computed
	Seconds   float64 // wall-clock time of the search
}

// BranchAndBound solves the QAP q exactly by depth-first branch and bound with the
// Gilmore-Lawler bound at every node (Gilmore 1962, Lawler 1963), in the form of the
// classic QAP codes (Pardalos, Ramakrishnan, Resende and Li 1997; Clausen and
// Perregaard 1997): at a node some facilities are assigned; each pair (unassigned
// facility i, free location k) costs its linear interaction with the assigned
// facilities plus the minimal scalar product of i's remaining flows with k's
// remaining distances, and a linear assignment over those costs (Hungarian method)
// bounds every completion. The reduced costs of that assignment bound the children
// without solving theirs, which both prunes children early and chooses the branching:
// the facility (or location) whose row (column) of reduced costs prunes the most
// children. Children are visited in order of their reduced-cost bound.
//
// incumbent, if not nil, is the starting upper bound (from a local search). Flows and
// distances must be finite and non-negative. When every objective value is a multiple
// of a granularity g (integer or dyadic data, see granularity) bounds are rounded up to
// multiples of g; otherwise they are lowered by a relative 1e-9 so that float rounding
// never works in the bound's favour. Stopping (ctx cancelled or past its deadline)
// returns within milliseconds with the best assignment and the smallest open bound.
//
// The result is deterministic: when several workers improve on the incumbent, the
// optimal value they prove is searched again by one worker that stops at the first
// assignment of that value in depth-first order. Only Nodes varies between runs with
// more than one worker.
func BranchAndBound(ctx context.Context, q *QAP, incumbent []int, opt BBOptions) (*BBResult, error) {
	return runBBTree(ctx, q, incumbent, func() (bbTree, error) { return newBBShared(q, opt), nil })
}

// bbTree is a branch and bound over the shared state: BranchAndBound's own search
// (*bbShared) or the ordering search (*orderBB, which embeds it).
type bbTree interface {
	shared() *bbShared
	run() *BBResult
}

func (s *bbShared) shared() *bbShared { return s }

// runBBTree runs the tree that mk builds from the incumbent until it is exhausted or
// ctx ends, and makes the result deterministic: when several workers improve on the
// incumbent, the optimal value they prove is searched again by one worker that stops
// at the first assignment of that value in depth-first order.
func runBBTree(ctx context.Context, q *QAP, incumbent []int, mk func() (bbTree, error)) (*BBResult, error) {
	t0 := time.Now()
	if err := q.CheckSolvable(); err != nil {
		return nil, err
	}
	tree, err := mk()
	if err != nil {
		return nil, err
	}
	s := tree.shared()
	startVal := math.Inf(1)
	if incumbent != nil {
		if err := q.CheckPerm(incumbent); err != nil {
			return nil, fmt.Errorf("incumbent: %w", err)
		}
		startVal = q.Objective(incumbent)
		s.best, s.bestVal = slices.Clone(incumbent), startVal
		s.setCut(s.bestVal)
	}
	stopWatch := context.AfterFunc(ctx, func() { s.stop.Store(true) })
	defer stopWatch()
	if ctx.Err() != nil {
		s.stop.Store(true)
	}
	res := tree.run()
	if res.Optimal && s.workers > 1 && res.Objective < startVal {
		again, _ := mk() // mk succeeded once on the same data
		f := again.shared()
		f.workers, f.findFirst, f.bestVal = 1, true, math.Inf(1)
		f.setCut(f.above(res.Objective))
		stop2 := context.AfterFunc(ctx, func() { f.stop.Store(true) })
		r2 := again.run()
		stop2()
		res.Nodes += r2.Nodes
		if r2.Assignment != nil && r2.Objective <= res.Objective {
			res.Assignment, res.Objective = r2.Assignment, r2.Objective
		}
	}
	switch {
	case res.Optimal:
		res.Status, res.Bound = StatusOptimal, res.Objective
	case ctx.Err() != nil:
		res.Status = ContextStatus(ctx)
	default:
		res.Status = StatusInterrupted
	}
	res.Seconds = time.Since(t0).Seconds()
	return res, nil
}

// bbShared is the state the workers share.
type bbShared struct {
	q       *QAP
	n       int
	a, b    []float64 // the data with one matrix symmetrized (same objective)
	g       float64   // granularity of objective values (0: none)
	flowOrd [][]int32 // facility i: the j != i with a[i][j] > 0, by flow descending
	distOrd [][]int32 // location k: the l != k, by distance ascending
	opt     BBOptions
	workers int
	twin    []int             // smallest interchangeable facility (itself if none)
	lsym    *locationSymmetry // automorphisms of the distances, nil if unused

	cutBits   atomic.Uint64 // prune a node whose rounded bound is >= cut
	stop      atomic.Bool
	findFirst bool // stop at the first assignment below the cut

	mu       sync.Mutex
	best     []int
	bestVal  float64
	nodes    atomic.Int64
	lastProg time.Time
	rootLB   float64
}

func newBBShared(q *QAP, opt BBOptions) *bbShared {
	n := q.N
	s := &bbShared{q: q, n: n, g: Granularity(q), opt: opt, workers: opt.Workers, bestVal: math.Inf(1)}
	if s.workers <= 0 {
		s.workers = 2
	}
	s.a, s.b = slices.Clone(q.A), slices.Clone(q.B)
	// With one matrix symmetric, symmetrizing the other leaves every objective value
	// unchanged and lets each row's scalar product see both directions of a flow.
	if q.SymmetricB() {
		symmetrize(s.a, n)
	} else if isSymmetric(q.A, n) {
		symmetrize(s.b, n)
	}
	s.flowOrd = make([][]int32, n)
	s.distOrd = make([][]int32, n)
	for i := 0; i < n; i++ {
		var f []int32
		for j := 0; j < n; j++ {
			if j != i && s.a[i*n+j] > 0 {
				f = append(f, int32(j))
			}
		}
		slices.SortStableFunc(f, func(x, y int32) int { return cmpFloat(s.a[i*n+int(y)], s.a[i*n+int(x)]) })
		s.flowOrd[i] = f
		d := make([]int32, 0, n-1)
		for l := 0; l < n; l++ {
			if l != i {
				d = append(d, int32(l))
			}
		}
		slices.SortStableFunc(d, func(x, y int32) int { return cmpFloat(s.b[i*n+int(x)], s.b[i*n+int(y)]) })
		s.distOrd[i] = d
	}
	s.setCut(math.Inf(1))
	s.twin = make([]int, n)
	for i := range s.twin {
		s.twin[i] = i
	}
	if !opt.NoSymmetry {
		var skip []int
		if opt.Allowed == nil && opt.Prune == nil {
			s.lsym = newLocationSymmetry(q.A, q.B, n)
			if s.lsym != nil {
				skip = []int{s.lsym.f0, s.lsym.f1}
			}
		}
		s.twin = facilityTwins(q.A, n, skip...)
	}
	return s
}

// allowed reports whether facility i may take location k (symmetry breaking).
func (s *bbShared) allowed(p []int, i, k int) bool {
	if s.opt.Allowed != nil && !s.opt.Allowed(i, k) {
		return false
	}
	return s.lsym == nil || s.lsym.allowed(p, i, k)
}

func cmpFloat(x, y float64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

func isSymmetric(m []float64, n int) bool {
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			if m[i*n+j] != m[j*n+i] {
				return false
			}
		}
	}
	return true
}

// symmetrize replaces m by (m + m^T)/2 (exact in binary floating point).
func symmetrize(m []float64, n int) {
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			v := (m[i*n+j] + m[j*n+i]) / 2
			m[i*n+j], m[j*n+i] = v, v
		}
	}
}

func (s *bbShared) setCut(v float64) { s.cutBits.Store(math.Float64bits(v)) }
func (s *bbShared) cut() float64     { return math.Float64frombits(s.cutBits.Load()) }

// safe turns a computed bound into one that is proven: rounded up to the granularity
// (exact data), or lowered by a relative 1e-9 on float data.
func (s *bbShared) safe(lb float64) float64 {
	if s.g > 0 {
		return RoundBound(lb, s.g)
	}
	return lb - 1e-9*max(1, math.Abs(lb))
}

// prunes reports whether a node with computed bound lb can be discarded.
func (s *bbShared) prunes(lb float64) bool { return s.safe(lb) >= s.cut() }

// above returns the smallest cut that keeps nodes whose bound may equal v.
func (s *bbShared) above(v float64) float64 {
	if s.g > 0 {
		return v + s.g/2
	}
	return math.Nextafter(v, math.Inf(1))
}

// offer records a complete assignment of value val.
func (s *bbShared) offer(p []int, val float64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if val < s.bestVal && val < s.cut() {
		s.bestVal = val
		s.best = slices.Clone(p)
		s.setCut(val)
		if s.findFirst {
			s.stop.Store(true)
		}
	}
}

func (s *bbShared) progress(nodes int64) {
	if s.opt.Progress == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if time.Since(s.lastProg) < 500*time.Millisecond {
		return
	}
	s.lastProg = time.Now()
	s.opt.Progress(BBProgress{Incumbent: s.bestVal, RootBound: s.rootLB, Nodes: nodes})
}

// bbTask is a subproblem: a partial assignment and the bound it was created with.
type bbTask struct {
	p     []int
	lb    float64
	fixed float64
}

// run searches the whole tree and returns the result (Status left to the caller).
func (s *bbShared) run() *BBResult {
	n := s.n
	res := &BBResult{}
	w := newBBWorker(s)
	root := bbTask{p: slices.Repeat([]int{-1}, n)}
	var tasks []bbTask
	openMin := math.Inf(1)
	complete := true
	switch {
	case n == 0:
	case s.workers == 1:
		w.load(root)
		if ok, om := w.dfs(0, 0); !ok {
			complete, openMin = false, om
		}
	default:
		// Cut the tree at the shallowest depth giving enough subproblems per worker.
		for depth := 1; ; depth++ {
			tasks = tasks[:0]
			w.collectDepth = depth
			w.collected = &tasks
			w.load(root)
			ok, om := w.dfs(0, 0)
			w.collected = nil
			if !ok {
				complete, openMin = false, om
				tasks = nil
				break
			}
			if len(tasks) >= 16*s.workers || depth >= n-4 {
				break
			}
		}
	}
	s.rootLB = w.rootLB
	res.RootBound = w.rootLB
	if len(tasks) > 0 {
		workers := []*bbWorker{w}
		for len(workers) < s.workers {
			workers = append(workers, newBBWorker(s))
		}
		c, om := runTasks(s, workers, tasks, func(wk *bbWorker, t bbTask) (bool, float64) {
			wk.load(t)
			return wk.dfs(n-countFree(t.p), t.fixed)
		})
		complete, openMin = complete && c, min(openMin, om)
		for _, wk := range workers[1:] {
			wk.flush()
		}
	}
	w.flush()
	return s.finish(res, complete, openMin)
}

// runTasks searches the subtrees tasks on workers, each worker a goroutine taking
// the next subtree not yet taken: a subtree is left open at its bound once the
// search is stopped, closed when s prunes its bound, else searched by search (on
// the worker's own state). It returns whether every subtree was closed and the
// least bound of those left open. The plain QAP's and the orderings' branch and
// bound (bborder.go) run their subtrees with it.
func runTasks[W any](s *bbShared, workers []W, tasks []bbTask, search func(W, bbTask) (bool, float64)) (complete bool, openMin float64) {
	complete, openMin = true, math.Inf(1)
	var next atomic.Int64
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, wk := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				t := int(next.Add(1) - 1)
				if t >= len(tasks) {
					return
				}
				var ok bool
				var om float64
				switch {
				case s.stop.Load():
					ok, om = false, tasks[t].lb
				case s.prunes(tasks[t].lb):
					ok = true
				default:
					ok, om = search(wk, tasks[t])
				}
				if !ok {
					mu.Lock()
					complete, openMin = false, min(openMin, om)
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	return complete, openMin
}

// finish fills res from the shared incumbent once every worker has stopped: complete
// says the tree was exhausted, openMin is the smallest bound left open otherwise. A
// re-search for the first optimum (findFirst) proves nothing and gets no bound.
func (s *bbShared) finish(res *BBResult, complete bool, openMin float64) *BBResult {
	res.Nodes = s.nodes.Load()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.best != nil {
		res.Assignment = slices.Clone(s.best)
		res.Objective = s.q.Objective(s.best)
	} else {
		res.Objective = math.Inf(1)
	}
	res.Optimal = complete && s.best != nil && !s.findFirst
	switch {
	case s.findFirst:
	case complete:
		res.Bound = res.Objective
	default:
		res.Bound = min(res.Objective, s.safe(openMin))
	}
	return res
}

func countFree(p []int) int {
	c := 0
	for _, v := range p {
		if v < 0 {
			c++
		}
	}
	return c
}

// bbLevel is the scratch space of one depth of the search.
type bbLevel struct {
	lin      []float64 // n x n: linear cost of (unassigned i, free k)
	c, rc    []float64 // m x m
	rows     []int     // unassigned facilities
	cols     []int     // free locations
	children []bbChild
}

type bbChild struct {
	i, k int
	lb   float64
}

// bbWorker searches subtrees depth first.
type bbWorker struct {
	s         *bbShared
	p, loc    []int
	lv        []bbLevel
	lap       *lapSolver
	fbuf      []float64
	nf        []int
	dbuf      []float64
	nodes     int64
	flushed   int64
	rootLB    float64
	pendingLB float64 // the bound the parent gave the child being entered

	collectDepth int
	collected    *[]bbTask
}

func newBBWorker(s *bbShared) *bbWorker {
	n := s.n
	w := &bbWorker{s: s, p: make([]int, n), loc: make([]int, n), lv: make([]bbLevel, n+1), lap: newLAPSolver(n),
		fbuf: make([]float64, n*n), nf: make([]int, n), dbuf: make([]float64, n*n), rootLB: math.Inf(-1)}
	for d := range w.lv {
		m := n - d
		w.lv[d] = bbLevel{lin: make([]float64, n*n), c: make([]float64, m*m), rc: make([]float64, m*m),
			rows: make([]int, 0, m), cols: make([]int, 0, m), children: make([]bbChild, 0, m)}
	}
	return w
}

// load sets the worker to the partial assignment of t, rebuilding the linear costs.
func (w *bbWorker) load(t bbTask) {
	s, n := w.s, w.s.n
	for i := range w.loc {
		w.loc[i] = -1
		w.p[i] = -1
	}
	lin := w.lv[0].lin
	for i := 0; i < n; i++ {
		for k := 0; k < n; k++ {
			lin[i*n+k] = s.a[i*n+i] * s.b[k*n+k]
		}
	}
	d := 0
	for i, k := range t.p {
		if k >= 0 {
			w.assign(d, i, k)
			d++
		}
	}
}

// assign puts facility i at location k, computing level d+1's linear costs from d's.
func (w *bbWorker) assign(d, i, k int) {
	s, n := w.s, w.s.n
	w.p[i], w.loc[k] = k, i
	src, dst := w.lv[d].lin, w.lv[d+1].lin
	copy(dst, src)
	for i2 := 0; i2 < n; i2++ {
		if w.p[i2] >= 0 {
			continue
		}
		aij, aji := s.a[i2*n+i], s.a[i*n+i2]
		if aij == 0 && aji == 0 {
			continue
		}
		row := dst[i2*n:]
		for k2 := 0; k2 < n; k2++ {
			if w.loc[k2] < 0 {
				row[k2] += aij*s.b[k2*n+k] + aji*s.b[k*n+k2]
			}
		}
	}
}

// twinFree reports whether a facility interchangeable with i and smaller than i is
// unassigned.
func (w *bbWorker) twinFree(i int) bool {
	for j := w.s.twin[i]; j < i; j++ {
		if w.s.twin[j] == w.s.twin[i] && w.p[j] < 0 {
			return true
		}
	}
	return false
}

// flush adds the worker's node count to the shared one.
func (w *bbWorker) flush() {
	total := w.s.nodes.Add(w.nodes - w.flushed)
	w.flushed = w.nodes
	w.s.progress(total)
}

func (w *bbWorker) unassign(i, k int) {
	w.p[i], w.loc[k] = -1, -1
}

// bound computes the Gilmore-Lawler bound of the node at depth d (fixed: cost among
// the assigned facilities) and leaves the reduced costs in lv[d].rc.
func (w *bbWorker) bound(d int, fixed float64) float64 {
	s, n := w.s, w.s.n
	L := &w.lv[d]
	L.rows, L.cols = L.rows[:0], L.cols[:0]
	for i := 0; i < n; i++ {
		if w.p[i] < 0 {
			L.rows = append(L.rows, i)
		}
		if w.loc[i] < 0 {
			L.cols = append(L.cols, i)
		}
	}
	m := len(L.rows)
	for ii, i := range L.rows {
		f := w.fbuf[ii*m : ii*m+m]
		c := 0
		for _, j := range s.flowOrd[i] {
			if w.p[j] < 0 {
				f[c] = s.a[i*n+int(j)]
				c++
			}
		}
		w.nf[ii] = c
	}
	for kk, k := range L.cols {
		dd := w.dbuf[kk*m : kk*m+m]
		c := 0
		for _, l := range s.distOrd[k] {
			if w.loc[l] < 0 {
				dd[c] = s.b[k*n+int(l)]
				c++
			}
		}
	}
	for ii, i := range L.rows {
		f := w.fbuf[ii*m : ii*m+w.nf[ii]]
		lin := L.lin[i*n:]
		crow := L.c[ii*m : ii*m+m]
		for kk, k := range L.cols {
			dd := w.dbuf[kk*m:]
			v := lin[k]
			for t, x := range f {
				v += x * dd[t]
			}
			crow[kk] = v
		}
	}
	return fixed + w.lap.solve(m, L.c[:m*m], L.rc[:m*m])
}

// dfs searches the subtree of the current node (depth d = facilities assigned, fixed =
// their cost). It returns whether the subtree was searched completely, and if not the
// smallest bound of what was left open.
func (w *bbWorker) dfs(d int, fixed float64) (bool, float64) {
	s, n := w.s, w.s.n
	m := n - d
	if m == 0 {
		w.nodes++
		s.offer(w.p, s.q.Objective(w.p))
		return true, math.Inf(1)
	}
	if w.collected != nil && d == w.collectDepth {
		*w.collected = append(*w.collected, bbTask{p: slices.Clone(w.p), lb: w.pendingLB, fixed: fixed})
		return true, math.Inf(1)
	}
	w.nodes++
	if w.nodes-w.flushed >= 1024 {
		w.flush()
	}
	lb := w.bound(d, fixed)
	if d == 0 {
		w.rootLB = max(w.rootLB, s.safe(lb))
	}
	if s.prunes(lb) {
		return true, math.Inf(1)
	}
	L := &w.lv[d]
	rc := L.rc[:m*m]
	allowed := func(i, k int) bool { return s.allowed(w.p, i, k) }
	// Branch on the row (facility) or column (location) whose reduced costs prune
	// the most children; ties: the larger sum of reduced costs, then the lower index.
	bestCnt, bestSum, bestIdx, bestCol := -1, -1.0, 0, false
	for ii := 0; ii < m; ii++ {
		cnt, sum := 0, 0.0
		for kk := 0; kk < m; kk++ {
			r := rc[ii*m+kk]
			if s.prunes(lb+r) || (!allowed(L.rows[ii], L.cols[kk])) {
				cnt++
			}
			sum += r
		}
		if cnt > bestCnt || (cnt == bestCnt && sum > bestSum) {
			bestCnt, bestSum, bestIdx, bestCol = cnt, sum, ii, false
		}
	}
	for kk := 0; kk < m; kk++ {
		cnt, sum := 0, 0.0
		for ii := 0; ii < m; ii++ {
			r := rc[ii*m+kk]
			if s.prunes(lb+r) || (!allowed(L.rows[ii], L.cols[kk])) {
				cnt++
			}
			sum += r
		}
		if cnt > bestCnt || (cnt == bestCnt && sum > bestSum) {
			bestCnt, bestSum, bestIdx, bestCol = cnt, sum, kk, true
		}
	}
	ch := L.children[:0]
	for t := 0; t < m; t++ {
		ii, kk := bestIdx, t
		if bestCol {
			ii, kk = t, bestIdx
		}
		i, k := L.rows[ii], L.cols[kk]
		if bestCol && s.twin[i] != i && w.twinFree(i) {
			continue // an interchangeable facility with a smaller index is free: same subtree
		}
		clb := lb + rc[ii*m+kk]
		if s.prunes(clb) || (!allowed(i, k)) {
			continue
		}
		ch = append(ch, bbChild{i, k, clb})
	}
	slices.SortStableFunc(ch, func(x, y bbChild) int { return cmpFloat(x.lb, y.lb) })
	L.children = ch
	for idx, c := range ch {
		if s.stop.Load() {
			return false, openMin(ch[idx:], func(c bbChild) float64 { return c.lb }, math.Inf(1))
		}
		if s.prunes(c.lb) {
			continue
		}
		w.assign(d, c.i, c.k)
		if s.opt.Prune != nil && s.opt.Prune(w.p) {
			w.unassign(c.i, c.k)
			continue
		}
		w.pendingLB = c.lb
		ok, om := w.dfs(d+1, fixed+L.lin[c.i*n+c.k])
		w.unassign(c.i, c.k)
		if !ok {
			return false, openMin(ch[idx+1:], func(c bbChild) float64 { return c.lb }, om)
		}
	}
	return true, math.Inf(1)
}
