package topo

import (
	"container/list"
	"context"
	"fmt"
	"math/bits"
	"runtime"
	"slices"
	"sync"
)

// The hop index answers Graph.Dist exactly without an n x n table. It is built once,
// on the first Dist call or by BuildHopIndex (whose context can stop the build, which
// then keeps nothing), and is read-only afterwards except for its row cache, which
// a mutex guards: Dist is safe for concurrent use.
//
// Three reductions make the graph it works on small:
//
//  1. Pendant hosts. A host with one link to a switch (or to a vertex with other
//     links) lies on no shortest path between two other vertices, so d(a, b) = [a is
//     pendant] + [b is pendant] + d(anchor(a), anchor(b)) for distinct a, b whose
//     anchors differ (the anchor of a pendant host is its neighbour, of any other
//     vertex the vertex itself); with a common anchor it is the number of pendant
//     ends. The other vertices, switches and hosts with several links or host-host
//     links, form the core.
//  2. False twins. Core vertices with the same non-empty set of core neighbours (the
//     leaf switches of one merlin fat-tree pod, its top switches of one residue) are
//     two hops apart and equally far from every other vertex; each set of twins is
//     one vertex of the quotient graph Q, where classes are adjacent when their
//     members are (they then all are), and d(u, v) = d_Q(class u, class v) for u, v
//     in different classes.
//  3. Keys. Host pairs only ever ask about the classes of hosts' anchors, the keys.
//
// Distances in Q then come from the first of three tiers that fits:
//
//   - a key x key table of uint8 or uint16 (at most maxTableKeys keys, 16 MiB as
//     uint8): a fat tree of 8,192 hosts has 32 keys, a dragonfly of 10,240 hosts
//     its 2,560 routers;
//   - pruned landmark labels on Q (Akiba, Iwata, Yoshida, "Fast exact shortest-path
//     distance queries on large networks by pruned landmark labeling", SIGMOD 2013,
//     doi:10.1145/2463676.2465315): every class keeps the hubs (classes, highest
//     degree first) on its shortest paths that no earlier hub covers, and d(u, v) is
//     the least d(u, h) + d(h, v) over hubs h the two labels share; given up when the
//     labels would outgrow maxLabelEntries;
//   - the generic fallback, also the way to non-key classes (switches) when there
//     is a table: a breadth-first search from both ends per pair, and for a source
//     asked about many times in a row its breadth-first row of Q, kept in a bounded
//     LRU cache (at most rowCacheBytes). Without a table, a pair whose landmark
//     lower bound is at least guidedMinBound is first searched by A* guided by that
//     bound (Goldberg, Harrelson, "Computing the shortest path: A* search meets
//     graph theory", SODA 2005; ALT): on an edge list of a mesh the bound is exact
//     and the search walks one shortest path, d steps instead of the d^2 vertices
//     a search from both ends visits. It gives up after guidedPops x (bound + 1)
//     vertices, a small fraction of what the search from both ends then costs.
type hopIndex struct {
	anchor []int32 // vertex -> itself (core) or its one neighbour (pendant host)
	class  []int32 // vertex -> class of its anchor, a vertex of Q

	q CSR // Q

	// Tier 1: the key table (nil slices when there is none).
	key  []int32 // class -> key index, -1 for a non-key class
	nkey int
	t8   []uint8  // nkey x nkey, unreachable8 when unreachable
	t16  []uint16 // the same when distances do not fit a byte

	// Tier 2: hub labels in compressed rows (labOff nil when there are none).
	labOff  []int32
	labHub  []int32 // hub ranks, ascending within a label
	labDist []uint16

	// Tier 3: cached rows of Q.
	mu       sync.Mutex
	rows     map[int32]*list.Element // class -> element holding a *qRow
	lru      *list.List              // front = most recent
	maxRows  int
	lastMiss int32
	missRun  int       // consecutive misses of lastMiss
	meetOnly bool      // never cache rows (tests of meetDist)
	scratch  sync.Pool // *meetScratch

	// Landmarks for the guided search (nil lmk when there are none): lmk[c*nl+i] is
	// class c's distance from landmark i, unreachable16 when it cannot reach it.
	lmk       []uint16
	nl        int
	guidedMin int       // the least lower bound worth a guided search
	guided    sync.Pool // *guidedScratch

	pairScratch sync.Pool // *pairScratch

	tier string // "table", "labels" or "rows" (the fallback), for tests
}

type qRow struct {
	src  int32
	dist []int32 // -1 unreachable
}

const (
	maxTableKeys    = 4096     // 16 MiB of uint8, 32 MiB of uint16
	maxTableWork    = 4e9      // key BFS x (classes + links) bound on the table's build
	rowCacheBytes   = 32 << 20 // the row cache's budget
	unreachable8    = 0xFF
	unreachable16   = 0xFFFF
	maxLabelPerNode = 48 // hub labels' budget: this many entries per class on average
	rowAfterMisses  = 64 // a source's row is built at its 64th query in a row
	landmarks       = 8  // landmarks of the guided search: 16 bytes per class
	guidedMinBound  = 16 // closer pairs are searched from both ends (at most ~d^2 = 256 vertices on a mesh)
	guidedPops      = 8  // the guided search gives up after this many vertices per unit of the bound
)

// hopIndex returns g's hop index, building it on first use. Its fast path is kept
// small enough to inline into Dist.
func (g *Graph) hopIndex() *hopIndex {
	if h := g.hop.Load(); h != nil {
		return h
	}
	return g.firstHopIndex()
}

// firstHopIndex builds the hop index without a context (it cannot fail then).
//
//go:noinline
func (g *Graph) firstHopIndex() *hopIndex {
	h, _ := g.buildHopIndex(context.Background())
	return h
}

// BuildHopIndex builds the hop index Dist answers from (see the package doc) unless
// it is built already, and returns ctx's cause, wrapped, when ctx ends first: then
// nothing is kept, and Dist or another BuildHopIndex builds it anew. Dist builds it
// on its first call otherwise, a second or so on a graph of 10^5 hosts that no
// context could stop (procalloc plan's Ctrl-C waited for its watchdog).
func (g *Graph) BuildHopIndex(ctx context.Context) error {
	_, err := g.buildHopIndex(ctx)
	return err
}

func (g *Graph) buildHopIndex(ctx context.Context) (*hopIndex, error) {
	g.hopMu.Lock()
	defer g.hopMu.Unlock()
	if h := g.hop.Load(); h != nil {
		return h, nil
	}
	h, err := newHopIndex(ctx, g.adj, g.hosts, "")
	if err != nil {
		return nil, fmt.Errorf("hop index of %s: %w", g.Spec(), err)
	}
	g.hop.Store(h)
	return h, nil
}

// Dist returns the hop distance between vertices a and b (hosts or switches), -1 when
// they are not connected. It is exact (the breadth-first distance) and safe for
// concurrent use; the first call builds the hop index (see the package doc).
func (g *Graph) Dist(a, b int) int { return g.hopIndex().dist(a, b) }

func (h *hopIndex) dist(a, b int) int {
	if a == b {
		return 0
	}
	ua, ub := h.anchor[a], h.anchor[b]
	off := 0
	if ua != int32(a) {
		off++
	}
	if ub != int32(b) {
		off++
	}
	if ua == ub {
		return off
	}
	ca, cb := h.class[a], h.class[b]
	if ca == cb {
		return off + 2 // false twins: a common neighbour, no link
	}
	d := h.qdist(ca, cb)
	if d < 0 {
		return -1
	}
	return off + d
}

// qdist returns the distance between classes u != v of Q, -1 when unreachable.
func (h *hopIndex) qdist(u, v int32) int {
	if h.key != nil {
		if ku, kv := h.key[u], h.key[v]; ku >= 0 && kv >= 0 {
			i := int(ku)*h.nkey + int(kv)
			if h.t8 != nil {
				if d := h.t8[i]; d != unreachable8 {
					return int(d)
				}
				return -1
			}
			if d := h.t16[i]; d != unreachable16 {
				return int(d)
			}
			return -1
		}
	}
	if h.labOff != nil {
		return h.labelDist(u, v)
	}
	return h.rowDist(u, v)
}

func (h *hopIndex) labelDist(u, v int32) int {
	i, ie := h.labOff[u], h.labOff[u+1]
	j, je := h.labOff[v], h.labOff[v+1]
	best := -1
	for i < ie && j < je {
		switch hu, hv := h.labHub[i], h.labHub[j]; {
		case hu < hv:
			i++
		case hu > hv:
			j++
		default:
			if d := int(h.labDist[i]) + int(h.labDist[j]); best < 0 || d < best {
				best = d
			}
			i++
			j++
		}
	}
	return best
}

// rowDist answers from a cached row of u or v; without one it searches from both
// ends (meetDist), and when u was also the source of the previous miss it computes
// and caches u's row instead: a caller walking many pairs from one source (an
// objective, a job's distances) gets rows, random pairs cost a small search each.
func (h *hopIndex) rowDist(u, v int32) int {
	h.mu.Lock()
	for _, s := range [2]int32{u, v} {
		if e, ok := h.rows[s]; ok {
			h.lru.MoveToFront(e)
			r := e.Value.(*qRow)
			h.mu.Unlock()
			if s == u {
				return int(r.dist[v])
			}
			return int(r.dist[u])
		}
	}
	// A row costs a search of all of Q, a meet only the balls around u and v: a
	// row pays once a source is asked about many times in a row (an ordering's
	// objective asks about each node and its next K; K = 2 built a row per node:
	// 12 s on a 66k-host dragonfly).
	if h.lastMiss == u {
		h.missRun++
	} else {
		h.lastMiss, h.missRun = u, 1
	}
	repeat := h.missRun >= rowAfterMisses && !h.meetOnly
	h.mu.Unlock()
	if !repeat {
		if h.lmk != nil {
			if d, ok := h.guidedDist(u, v); ok {
				return d
			}
		}
		return h.meetDist(u, v)
	}
	dist := make([]int32, len(h.q.Off)-1)
	HopRow(h.q, u, dist, nil)
	h.mu.Lock()
	if _, ok := h.rows[u]; !ok {
		h.rows[u] = h.lru.PushFront(&qRow{src: u, dist: dist})
		for h.lru.Len() > h.maxRows {
			old := h.lru.Remove(h.lru.Back()).(*qRow)
			delete(h.rows, old.src)
		}
	}
	h.mu.Unlock()
	return int(dist[v])
}

// meetScratch is one bidirectional search's marks: a vertex's distance from side s
// is dist[s][v] when stamp[s][v] is the search's stamp.
type meetScratch struct {
	stamp    [2][]uint32
	dist     [2][]int32
	frontier [2][]int32
	next     []int32
	now      uint32
}

// meetDist returns the distance between classes u != v by breadth-first search from
// both ends, a whole level of the smaller frontier at a time, until they meet.
func (h *hopIndex) meetDist(u, v int32) int {
	sc, _ := h.scratch.Get().(*meetScratch)
	nq := len(h.q.Off) - 1
	if sc == nil {
		sc = &meetScratch{}
		for s := range 2 {
			sc.stamp[s] = make([]uint32, nq)
			sc.dist[s] = make([]int32, nq)
		}
	}
	defer h.scratch.Put(sc)
	sc.now++
	if sc.now == 0 { // wrapped: clear the old marks
		for s := range 2 {
			clear(sc.stamp[s])
		}
		sc.now = 1
	}
	now := sc.now
	for s, src := range [2]int32{u, v} {
		sc.stamp[s][src] = now
		sc.dist[s][src] = 0
		sc.frontier[s] = append(sc.frontier[s][:0], src)
	}
	for len(sc.frontier[0]) > 0 && len(sc.frontier[1]) > 0 {
		s := 0
		if len(sc.frontier[1]) < len(sc.frontier[0]) {
			s = 1
		}
		o := 1 - s
		sc.next = sc.next[:0]
		for _, a := range sc.frontier[s] {
			da := sc.dist[s][a]
			for _, b := range h.q.Adj[h.q.Off[a]:h.q.Off[a+1]] {
				if sc.stamp[o][b] == now {
					// The balls (radii ra, rb) were disjoint before this level,
					// so the distance is > ra+rb, and a meeting gives a walk of
					// at most ra+1+rb: the first meeting is exact.
					return int(da + 1 + sc.dist[o][b])
				}
				if sc.stamp[s][b] != now {
					sc.stamp[s][b] = now
					sc.dist[s][b] = da + 1
					sc.next = append(sc.next, b)
				}
			}
		}
		sc.frontier[s], sc.next = sc.next, sc.frontier[s]
	}
	return -1
}

// ctxEvery is how many vertices (or classes, or searches of a few) the hop index's
// build handles between looks at its context: a few milliseconds at most.
const ctxEvery = 1 << 12

// stopped returns ctx's cause when ctx has ended, at every ctxEvery-th i.
func stopped(ctx context.Context, i int) error {
	if i%ctxEvery == 0 && ctx.Err() != nil {
		return context.Cause(ctx)
	}
	return nil
}

// newHopIndex builds the index of the graph adj whose vertices 0..hosts-1 are hosts;
// tier forces "table", "labels", "rows" or "meet" (rows never cached) for tests, ""
// picks the first that fits. It returns ctx's cause, looked at every ctxEvery
// vertices, classes or searches, when ctx ends first.
func newHopIndex(ctx context.Context, adj [][]int, hosts int, tier string) (*hopIndex, error) {
	nv := len(adj)
	h := &hopIndex{anchor: make([]int32, nv), class: make([]int32, nv)}
	// 1. Pendant hosts and their anchors.
	core := make([]int32, 0, nv-hosts)
	cidx := make([]int32, nv) // vertex -> core index, -1 for a pendant host
	for v := range nv {
		if err := stopped(ctx, v); err != nil {
			return nil, err
		}
		h.anchor[v] = int32(v)
		cidx[v] = -1
		if v < hosts && len(adj[v]) == 1 {
			if w := adj[v][0]; w >= hosts || len(adj[w]) > 1 {
				h.anchor[v] = int32(w)
				continue
			}
		}
		cidx[v] = int32(len(core))
		core = append(core, int32(v))
	}
	// The core's links, each list sorted (vertex indices).
	cOff := make([]int32, len(core)+1)
	for i, v := range core {
		if err := stopped(ctx, i); err != nil {
			return nil, err
		}
		n := 0
		for _, w := range adj[v] {
			if cidx[w] >= 0 {
				n++
			}
		}
		cOff[i+1] = cOff[i] + int32(n)
	}
	cAdj := make([]int32, cOff[len(core)])
	for i, v := range core {
		if err := stopped(ctx, i); err != nil {
			return nil, err
		}
		nb := cAdj[cOff[i]:cOff[i]:cOff[i+1]]
		for _, w := range adj[v] {
			if cidx[w] >= 0 {
				nb = append(nb, int32(w))
			}
		}
		slices.Sort(nb)
	}
	nbOf := func(i int32) []int32 { return cAdj[cOff[i]:cOff[i+1]] }
	// 2. False twins: sort the core by neighbour list; equal non-empty lists share a
	// class. Classes are numbered in the order of their smallest vertex.
	perm := make([]int32, len(core))
	for i := range perm {
		perm[i] = int32(i)
	}
	slices.SortFunc(perm, func(a, b int32) int {
		if c := slices.Compare(nbOf(a), nbOf(b)); c != 0 {
			return c
		}
		return int(a - b)
	})
	first := make([]int32, len(core)) // core index -> first core index of its twin set
	for k, i := range perm {
		first[i] = i
		if k > 0 && len(nbOf(i)) > 0 && slices.Equal(nbOf(i), nbOf(perm[k-1])) {
			first[i] = first[perm[k-1]]
		}
	}
	perm = nil
	ccls := make([]int32, len(core)) // core index -> class
	var reps []int32                 // class -> core index of its first member
	for i := range core {
		if first[i] == int32(i) {
			ccls[i] = int32(len(reps))
			reps = append(reps, int32(i))
		} else {
			ccls[i] = ccls[first[i]]
		}
	}
	first = nil
	for v := range nv {
		h.class[v] = ccls[cidx[h.anchor[v]]]
	}
	// Q: the classes, adjacent when their representatives are.
	nq := len(reps)
	h.q.Off = make([]int32, nq+1)
	var buf []int32
	for c, r := range reps {
		if err := stopped(ctx, c); err != nil {
			return nil, err
		}
		buf = buf[:0]
		for _, w := range nbOf(r) {
			buf = append(buf, ccls[cidx[w]])
		}
		slices.Sort(buf)
		buf = slices.Compact(buf)
		h.q.Adj = append(h.q.Adj, buf...)
		h.q.Off[c+1] = int32(len(h.q.Adj))
	}
	cOff, cAdj, cidx, ccls, reps = nil, nil, nil, nil, nil
	// 3. Keys: the classes of hosts' anchors.
	key := make([]int32, nq)
	for i := range key {
		key[i] = -1
	}
	nkey := 0
	for v := range hosts {
		if c := h.class[v]; key[c] < 0 {
			key[c] = int32(nkey)
			nkey++
		}
	}
	if ctx.Err() != nil { // the twins' sort
		return nil, context.Cause(ctx)
	}
	bound := h.diameterBound()
	var stop error // ctx's cause, when it ends the build
	work := float64(nkey) * float64(nq+len(h.q.Adj))
	fits := nkey <= maxTableKeys && work <= maxTableWork
	budget := maxLabelPerNode * nq
	if tier != "" {
		fits, budget = tier == "table", nq*nq
	}
	labels := func() bool {
		ok, err := h.buildLabels(ctx, budget)
		if err != nil {
			stop = err
		}
		return ok
	}
	switch {
	case fits && bound < unreachable16:
		h.key, h.nkey = key, nkey
		stop = h.buildTable(ctx, bound)
		h.tier = "table"
	case tier != "rows" && tier != "meet" && tier != "guided" && bound < unreachable16 && labels():
		h.tier = "labels"
	case stop != nil:
	default:
		h.tier = "rows"
		if tier != "meet" && bound < unreachable16 {
			h.guidedMin = guidedMinBound
			if tier == "guided" {
				h.guidedMin = 1 // every pair, for tests
			}
			h.buildLandmarks()
		}
	}
	h.rows = map[int32]*list.Element{}
	h.lru = list.New()
	h.lastMiss = -1
	h.meetOnly = tier == "meet"
	h.maxRows = max(4, min(1024, rowCacheBytes/(4*max(nq, 1))))
	if stop != nil {
		return nil, stop
	}
	return h, nil
}

// diameterBound returns twice the largest eccentricity of one vertex per connected
// component of Q: no two classes are further apart.
func (h *hopIndex) diameterBound() int {
	nq := len(h.q.Off) - 1
	seen := make([]bool, nq)
	dist := make([]int32, nq)
	var queue []int32
	bound := 0
	for s := range nq {
		if seen[s] {
			continue
		}
		queue = HopRow(h.q, int32(s), dist, queue)
		for _, v := range queue {
			seen[v] = true
		}
		bound = max(bound, 2*int(dist[queue[len(queue)-1]]))
	}
	return bound
}

// buildTable fills the key table by breadth-first searches of 64 keys at a time
// (HopRows64: a pass over Q's links serves 64 keys; one search per key made the
// table O(keys x links), 0.55 s of CPU on the 196,608-host fat tree's 768 keys),
// batches in parallel, and returns ctx's cause when ctx ends first (the table then
// unfinished).
func (h *hopIndex) buildTable(ctx context.Context, bound int) error {
	nq, nk := len(h.q.Off)-1, h.nkey
	if bound < unreachable8 {
		h.t8 = make([]uint8, nk*nk)
		for i := range h.t8 {
			h.t8[i] = unreachable8
		}
	} else {
		h.t16 = make([]uint16, nk*nk)
		for i := range h.t16 {
			h.t16[i] = unreachable16
		}
	}
	srcs := make([]int32, nk) // key index -> class
	for c, k := range h.key {
		if k >= 0 {
			srcs[k] = int32(c)
		}
	}
	batches := (nk + 63) / 64
	workers := max(1, min(runtime.GOMAXPROCS(0), batches))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			seen, front, next := make([]uint64, nq), make([]uint64, nq), make([]uint64, nq)
			for b := w; b < batches; b += workers {
				if ctx.Err() != nil {
					return
				}
				base := b * 64
				HopRows64(h.q, srcs[base:min(base+64, nk)], seen, front, next, func(c int32, w uint64, d int) {
					j := int(h.key[c])
					if j < 0 {
						return
					}
					for ; w != 0; w &= w - 1 {
						k := base + bits.TrailingZeros64(w)
						if h.t8 != nil {
							h.t8[k*nk+j] = uint8(d)
						} else {
							h.t16[k*nk+j] = uint16(d)
						}
					}
				})
			}
		}()
	}
	wg.Wait()
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	return nil
}

// buildLabels builds pruned landmark labels on Q (Akiba et al. 2013, Algorithm 2),
// hubs by degree, highest first (ties: smaller class first). It gives up and reports
// false when the labels would hold more than budget entries, or when ctx ends (with
// ctx's cause, looked at before each hub's search).
func (h *hopIndex) buildLabels(ctx context.Context, budget int) (bool, error) {
	nq := len(h.q.Off) - 1
	order := make([]int32, nq)
	for i := range order {
		order[i] = int32(i)
	}
	deg := func(c int32) int32 { return h.q.Off[c+1] - h.q.Off[c] }
	slices.SortStableFunc(order, func(a, b int32) int { return int(deg(b) - deg(a)) })
	hubs := make([][]int32, nq)
	dists := make([][]uint16, nq)
	tmp := make([]int32, nq) // the source's label by hub rank, -1 elsewhere
	dist := make([]int32, nq)
	for i := range tmp {
		tmp[i], dist[i] = -1, -1
	}
	var queue []int32
	total := 0
	for rank, src := range order {
		if ctx.Err() != nil { // a hub's search can cover Q: ~1M links on a 10^5-host dragonfly
			return false, context.Cause(ctx)
		}
		for i, hb := range hubs[src] {
			tmp[hb] = int32(dists[src][i])
		}
		dist[src] = 0
		queue = append(queue[:0], src)
		for head := 0; head < len(queue); head++ {
			u := queue[head]
			d := dist[u]
			pruned := false
			for i, hb := range hubs[u] {
				if t := tmp[hb]; t >= 0 && t+int32(dists[u][i]) <= d {
					pruned = true
					break
				}
			}
			if pruned {
				continue
			}
			hubs[u] = append(hubs[u], int32(rank))
			dists[u] = append(dists[u], uint16(d))
			if total++; total > budget {
				return false, nil
			}
			for _, w := range h.q.Adj[h.q.Off[u]:h.q.Off[u+1]] {
				if dist[w] < 0 {
					dist[w] = d + 1
					queue = append(queue, w)
				}
			}
		}
		for _, u := range queue {
			dist[u] = -1
		}
		for _, hb := range hubs[src] {
			tmp[hb] = -1
		}
	}
	h.labOff = make([]int32, nq+1)
	h.labHub = make([]int32, 0, total)
	h.labDist = make([]uint16, 0, total)
	for c := range nq {
		h.labHub = append(h.labHub, hubs[c]...)
		h.labDist = append(h.labDist, dists[c]...)
		h.labOff[c+1] = int32(len(h.labHub))
	}
	return true, nil
}

// PairDistSum returns the sum of the hop distances between all unordered pairs of
// the distinct vertices nodes, and false (sum 0) when some pair is not connected.
// On the fat trees and dragonflies FatTree and Dragonfly build, hosts' sums come in
// closed form from their structure (structdist.go), as on any graph with a
// dragonfly's structure (Graph.Dragonfly: a dragonfly read from a file). Otherwise it
// groups the vertices by anchor and class (see Dist), so that it looks up one
// distance per pair of classes instead of per pair of vertices: a job of 1,024 hosts
// on 256 leaf switches of a fat tree has a few dozen classes.
func (g *Graph) PairDistSum(nodes []int) (int64, bool) {
	if s := g.structLayout(); s != nil {
		if sum, ok := g.structuredPairDistSum(s, nodes); ok {
			return sum, true
		}
	}
	return g.indexPairDistSum(nodes)
}

// indexPairDistSum is PairDistSum from the hop index, one distance per pair of
// classes.
func (g *Graph) indexPairDistSum(nodes []int) (int64, bool) {
	h := g.hopIndex()
	k := int64(len(nodes))
	ps, _ := h.pairScratch.Get().(*pairScratch)
	if ps == nil {
		ps = &pairScratch{clsStamp: make([]int32, h.classes()), clsIdx: make([]int32, h.classes()),
			ancStamp: make([]int32, len(h.anchor)), ancCnt: make([]int32, len(h.anchor))}
	}
	defer h.pairScratch.Put(ps)
	ps.gen++
	if ps.gen <= 0 {
		clear(ps.clsStamp)
		clear(ps.ancStamp)
		ps.gen = 1
	}
	gen := ps.gen
	// Classes with their counts, and the hosts per anchor: pairs in one class but
	// under different anchors are twins' pairs, two hops apart beyond the offsets
	// (an anchor determines its class).
	cls, cnt := ps.cls[:0], ps.cnt[:0]
	var sum, twins int64
	for _, v := range nodes {
		a, c := h.anchor[v], h.class[v]
		if a != int32(v) {
			sum += k - 1 // v's one hop to its anchor, on each of its k-1 pairs
		}
		if ps.clsStamp[c] != gen {
			ps.clsStamp[c], ps.clsIdx[c] = gen, int32(len(cls))
			cls, cnt = append(cls, c), append(cnt, 0)
		}
		i := ps.clsIdx[c]
		twins += cnt[i] // pairs within the class ...
		cnt[i]++
		if ps.ancStamp[a] != gen {
			ps.ancStamp[a], ps.ancCnt[a] = gen, 0
		}
		twins -= int64(ps.ancCnt[a]) // ... but not under one anchor
		ps.ancCnt[a]++
	}
	ps.cls, ps.cnt = cls, cnt
	sum += 2 * twins
	if h.key != nil && h.t8 != nil {
		// The key table, read directly when every class is a key.
		keys := ps.keys[:0]
		for _, c := range cls {
			if h.key[c] < 0 {
				keys = nil
				break
			}
			keys = append(keys, h.key[c])
		}
		if keys != nil || len(cls) == 0 {
			ps.keys = keys
			for i, ku := range keys {
				row := h.t8[int(ku)*h.nkey : int(ku+1)*h.nkey]
				var s int64
				for j := i + 1; j < len(keys); j++ {
					d := row[keys[j]]
					if d == unreachable8 {
						return 0, false
					}
					s += cnt[j] * int64(d)
				}
				sum += cnt[i] * s
			}
			return sum, true
		}
	}
	for i, c := range cls {
		for j := i + 1; j < len(cls); j++ {
			d := h.qdist(c, cls[j])
			if d < 0 {
				return 0, false
			}
			sum += cnt[i] * cnt[j] * int64(d)
		}
	}
	return sum, true
}

// pairScratch is PairDistSum's per-call scratch (stamped per class and per
// anchor), pooled so that concurrent calls do not share it.
type pairScratch struct {
	gen                                int32
	clsStamp, clsIdx, ancStamp, ancCnt []int32
	cls, keys                          []int32
	cnt                                []int64
}

// classes is the number of classes (vertices of Q).
func (h *hopIndex) classes() int { return len(h.q.Off) - 1 }

// buildLandmarks picks up to landmarks classes of the component of class 0, each
// the farthest from those picked before (the first the farthest from class 0;
// ties to the lowest class), and stores every class's distances from them.
func (h *hopIndex) buildLandmarks() {
	nq := len(h.q.Off) - 1
	if nq < 2 {
		return
	}
	dist := make([]int32, nq)
	minDist := make([]int32, nq)
	queue := HopRow(h.q, 0, dist, nil)
	if len(queue) < 2 {
		return
	}
	next := farthest(queue, dist)
	nl := min(landmarks, len(queue))
	lmk := make([]uint16, nq*nl)
	for i := range nl {
		queue = HopRow(h.q, next, dist, queue)
		for c, d := range dist {
			if d < 0 {
				lmk[c*nl+i] = unreachable16
			} else {
				lmk[c*nl+i] = uint16(d)
			}
		}
		if i == 0 {
			copy(minDist, dist)
		}
		for _, c := range queue {
			minDist[c] = min(minDist[c], dist[c])
		}
		next = farthest(queue, minDist)
	}
	h.lmk, h.nl = lmk, nl
}

// farthest returns the class of queue with the largest d, the lowest class on ties.
func farthest(queue []int32, d []int32) int32 {
	best := queue[0]
	for _, c := range queue[1:] {
		if d[c] > d[best] || d[c] == d[best] && c < best {
			best = c
		}
	}
	return best
}

// guidedScratch is one guided search's state: class c's best distance from the
// source is g[c] when seen[c] is the search's stamp, and it is settled when
// closed[c] is; buckets[f-bound] holds the classes to expand at estimate f.
type guidedScratch struct {
	seen, closed []uint32
	g            []int32
	buckets      [][]int32
	now          uint32
}

// guidedDist returns the distance between classes u != v by A* search with the
// landmarks' lower bound max_i |d(l_i, c) - d(l_i, v)| (consistent, so a class's
// first expansion is at its distance), expanding at equal estimates the class
// reached last: where the bound is exact the search follows one shortest path. It
// reports false, having given up, when the bound from u is below h.guidedMin or
// the search expands more than guidedPops x (bound + 1) classes.
func (h *hopIndex) guidedDist(u, v int32) (int, bool) {
	d, _, ok := h.guidedSearch(u, v)
	return d, ok
}

// guidedSearch is guidedDist that also returns how many classes it expanded.
func (h *hopIndex) guidedSearch(u, v int32) (d, expanded int, ok bool) {
	nl := h.nl
	lv := h.lmk[int(v)*nl : int(v)*nl+nl]
	lu := h.lmk[int(u)*nl : int(u)*nl+nl]
	for i := range nl {
		if (lu[i] == unreachable16) != (lv[i] == unreachable16) {
			return -1, 0, true // one reaches the landmark, the other does not
		}
	}
	bound := func(c int32) int32 {
		lc := h.lmk[int(c)*nl : int(c)*nl+nl]
		var b int32
		for i, x := range lc {
			if y := lv[i]; x != unreachable16 && y != unreachable16 {
				b = max(b, int32(x)-int32(y), int32(y)-int32(x))
			}
		}
		return b
	}
	lb := bound(u)
	if int(lb) < h.guidedMin {
		return 0, 0, false
	}
	sc, _ := h.guided.Get().(*guidedScratch)
	if sc == nil {
		nq := len(h.q.Off) - 1
		sc = &guidedScratch{seen: make([]uint32, nq), closed: make([]uint32, nq), g: make([]int32, nq)}
	}
	defer h.guided.Put(sc)
	sc.now++
	if sc.now == 0 { // wrapped: clear the old marks
		clear(sc.seen)
		clear(sc.closed)
		sc.now = 1
	}
	now := sc.now
	for i := range sc.buckets {
		sc.buckets[i] = sc.buckets[i][:0]
	}
	push := func(c, f int32) {
		i := int(f - lb)
		for i >= len(sc.buckets) {
			sc.buckets = append(sc.buckets, nil)
		}
		sc.buckets[i] = append(sc.buckets[i], c)
	}
	sc.seen[u], sc.g[u] = now, 0
	push(u, lb)
	budget := guidedPops * (int(lb) + 1)
	for cur := 0; cur < len(sc.buckets); {
		b := sc.buckets[cur]
		if len(b) == 0 {
			cur++
			continue
		}
		a := b[len(b)-1]
		sc.buckets[cur] = b[:len(b)-1]
		if sc.closed[a] == now {
			continue // a stale entry
		}
		sc.closed[a] = now
		ga := sc.g[a]
		if a == v {
			return int(ga), expanded, true
		}
		if expanded++; expanded > budget {
			return 0, expanded, false
		}
		for _, c := range h.q.Adj[h.q.Off[a]:h.q.Off[a+1]] {
			if sc.seen[c] != now || ga+1 < sc.g[c] {
				sc.seen[c], sc.g[c] = now, ga+1
				push(c, ga+1+bound(c))
			}
		}
	}
	return -1, expanded, true // u's component searched: v is not in it
}
