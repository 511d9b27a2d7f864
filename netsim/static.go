package netsim

import (
	"context"
	"errors"
	"fmt"

	"github.com/procalloc/procalloc/topo"
)

// RouteLoad is the static communication cost of one cycle of a job's pattern along
// the machine's routes, without contention (Bunde et al. 2004 §4.3; Leung et al.
// 2002 §2.3 for hop counts): how far messages travel and how many of the job's own
// routes meet on one channel.
type RouteLoad struct {
	Messages int64 // messages in one cycle of the pattern
	Hops     int64 // links they cross in all
	// MaxShared is the largest number of the job's routes that use one channel.
	MaxShared int64
}

// MeanDistance is the average message distance, hops per message.
func (l RouteLoad) MeanDistance() float64 {
	if l.Messages == 0 {
		return 0
	}
	return float64(l.Hops) / float64(l.Messages)
}

// RouteMeter measures RouteLoad for jobs on one machine. It is not safe for
// concurrent use.
type RouteMeter struct {
	r     Router
	grid  *topo.Grid       // set when all-to-all loads can be counted per line (a mesh or torus)
	graph *GraphRouter     // set when all-to-all loads are counted on in-trees (a graph)
	tree  *treeModel       // set when they are counted per subtree instead (a fat tree)
	df    *DragonflyRouter // set when they are counted per router and group (a dragonfly)
	dfs   dfLoad           // the dragonfly count's scratch (the router is shared, read only)
	pat   Pattern
	seed  uint64
	count []int64
	stamp []int32
	gen   int32
	buf   []int32
	memo  routeMemo // all-to-all loads counted on in-trees, by node list
	// scratch of the graph all-to-all count (per vertex, stamped)
	anchor                 []int32 // host -> its one neighbour (pendant host), else itself
	vStamp, wStamp         []int32
	weight, below, hopCh   []int32
	vGen, wGen             int32
	anchors, touched, path []int32
	// scratch of the mesh all-to-all count
	coord             []int
	coordTab          []int32 // node v's coordinates at [v*D, v*D+D) (small meshes)
	keyStamp, keyID   []int32
	keyGen            int32
	ids, histA, histB []int32
	// scratch of the torus all-to-all count
	torus               *torusDims // set when the grid wraps (with grid)
	ids2, histC         []int32
	sizeS, sizeT        []int32   // per source and destination group: a bound (windowMax)
	ordS, ordT, sizeBuf []int32   // the groups by decreasing size; bySize's scratch
	srcRows, dstRows    groupRows // per source and destination group: its positions
	pdMade              []int32   // per destination group: its prefix sums are in pd
	pd, ss              []int64
}

// NewRouteMeter returns a meter for pattern pat on router r; random patterns draw
// from seed and the job id.
func NewRouteMeter(r Router, pat Pattern, seed uint64) *RouteMeter {
	m := &RouteMeter{r: r, pat: pat, seed: seed,
		count: make([]int64, r.Channels()), stamp: make([]int32, r.Channels())}
	_, a2a := pat.(allToAll)
	if gr, ok := r.(*GridRouter); ok && a2a {
		if !gr.g.Wraps() {
			m.grid = gr.g
		} else if m.torus = newTorusDims(gr.g); m.torus != nil {
			m.grid = gr.g
		}
	}
	if df, ok := r.(*DragonflyRouter); ok && a2a {
		m.df = df
	}
	if gr, ok := r.(*GraphRouter); ok && a2a {
		m.graph = gr
		m.tree, _ = newTreeModel(gr.g)
	}
	return m
}

// NewMachineRouteMeter returns the meter of pattern pat on machine m's router
// (NewRouter). When pat is all-to-all and m is a fat tree or a tree whose routes the
// tree model predicts (see treeModel), the loads are counted per subtree and no
// router is built: a GraphRouter's next-hop table takes 42 MB on a fat tree of
// 8,192 hosts and would take 10 GiB (refused) on one of 200,704. Measure gives the
// same loads either way.
func NewMachineRouteMeter(m topo.Machine, pat Pattern, seed uint64) (*RouteMeter, error) {
	return NewMachineRouteMeterContext(context.Background(), m, pat, seed)
}

// NewMachineRouteMeterContext is NewMachineRouteMeter building the tree model
// under ctx (0.3 s for a fat tree of 131,072 hosts): when ctx ends first it
// returns ctx's cause.
func NewMachineRouteMeterContext(ctx context.Context, m topo.Machine, pat Pattern, seed uint64) (*RouteMeter, error) {
	if pat == nil {
		return nil, errors.New("netsim: a route meter needs a pattern (nil; ParsePattern makes one)")
	}
	if g, ok := m.(*topo.Graph); ok {
		if _, a2a := pat.(allToAll); a2a {
			tm, _ := buildTreeModel(ctx, g, false)
			if ctx.Err() != nil {
				return nil, context.Cause(ctx)
			}
			if tm != nil {
				return &RouteMeter{pat: pat, seed: seed, tree: tm}, nil
			}
		}
	}
	r, err := NewRouterContext(ctx, m)
	if err != nil {
		return nil, err
	}
	return NewRouteMeter(r, pat, seed), nil
}

// Measure returns the route load of one cycle of the pattern over nodes (in
// allocation order); id is the job's id, for random patterns. A node outside the
// network is an error naming it (and the load is zero). It is MeasureContext
// without a context.
func (m *RouteMeter) Measure(id int, nodes []int) (RouteLoad, error) {
	return m.MeasureContext(context.Background(), id, nodes)
}

// MeasureContext is Measure that stops when ctx ends, returning ctx's cause: the
// patterns without a counting shortcut walk every route of the cycle, p(p-1) of
// them for n-body (5.9 x 10^8 for a job of 24,320 nodes, seconds), and ctx is
// asked every enumerateLook routes. A node outside the network is an error, as for
// Measure.
func (m *RouteMeter) MeasureContext(ctx context.Context, id int, nodes []int) (RouteLoad, error) {
	n, spec := 0, "the fat tree"
	if m.r != nil {
		n, spec = m.r.Endpoints(), m.r.Spec()
	} else {
		n = m.tree.n // a fat tree's meter counts per subtree, without a router
	}
	for _, v := range nodes {
		if v < 0 || v >= n {
			return RouteLoad{}, fmt.Errorf("route meter: node %d: endpoints of %s are 0..%d", v, spec, n-1)
		}
	}
	switch {
	case m.torus != nil:
		return m.allToAllTorusLoad(nodes), nil
	case m.grid != nil:
		return m.allToAllMeshLoad(nodes), nil
	case m.tree != nil:
		if len(nodes) < 2 {
			return RouteLoad{}, nil
		}
		return m.tree.load(nodes), nil
	case m.df != nil:
		if len(nodes) < 2 {
			return RouteLoad{}, nil
		}
		return m.dfs.count(m.df, nodes), nil
	case m.graph != nil:
		if l, ok := m.memo.get(nodes); ok {
			return l, nil
		}
		l := m.allToAllGraphLoad(nodes)
		m.memo.put(nodes, l)
		return l, nil
	}
	return m.enumerate(ctx, id, nodes)
}

// allToAllGraphLoad counts the all-to-all routes of a GraphRouter without tracing the
// p(p-1) routes one by one. Its routes are destination-based: the next hop depends on
// the vertex and the destination only, so the routes into one destination d form a
// tree (an in-tree rooted at d), and the routes crossing the channel from v to its
// next hop are those from the sources in v's subtree. Per destination the sources
// are merged by where they enter (a pendant host, one link to a switch, enters at
// that switch; its own channel carries its p-1 routes whatever the destination),
// each entry walks towards d until it meets the tree built so far, and the subtree
// counts are summed leaves first (in reverse order of joining the tree): O(p x
// (entries + tree size)) per job, against O(p^2 x route length) for the trace. The counts, hence Hops and MaxShared,
// are those of the trace (TestAllToAllGraphLoadMatchesTrace).
func (m *RouteMeter) allToAllGraphLoad(nodes []int) RouteLoad {
	var l RouteLoad
	p := int64(len(nodes))
	if p < 2 {
		return l
	}
	l.Messages = p * (p - 1)
	r := m.graph
	nv := r.nv
	if m.anchor == nil {
		m.anchor = make([]int32, r.n)
		var nb []int
		for v := range r.n {
			m.anchor[v] = int32(v)
			if nb = r.g.Neighbors(v, nb[:0]); len(nb) == 1 {
				m.anchor[v] = int32(nb[0])
			}
		}
		m.vStamp, m.wStamp = make([]int32, nv), make([]int32, nv)
		m.weight, m.below, m.hopCh = make([]int32, nv), make([]int32, nv), make([]int32, nv)
	}
	m.gen = bumpGen(m.gen, m.stamp)
	add := func(c int32, n int64) {
		if m.stamp[c] != m.gen {
			m.stamp[c], m.count[c] = m.gen, 0
		}
		m.count[c] += n
		l.MaxShared = max(l.MaxShared, m.count[c])
	}
	// Entries: each node's anchor, with the number of the job's nodes entering there;
	// a pendant node's own channel carries its p-1 routes.
	m.wGen = bumpGen(m.wGen, m.wStamp)
	m.anchors = m.anchors[:0]
	for i, s := range nodes {
		a := m.anchor[s]
		if m.wStamp[a] != m.wGen {
			m.wStamp[a], m.weight[a] = m.wGen, 0
			m.anchors = append(m.anchors, a)
		}
		m.weight[a]++
		if a != int32(s) {
			other := nodes[(i+1)%len(nodes)]
			add(r.hop(r.row(other), s), p-1)
			l.Hops += p - 1
		}
	}
	for _, d := range nodes {
		row := r.row(d)
		head := r.head
		m.vGen = bumpGen(m.vGen, m.vStamp)
		vg := m.vGen
		m.vStamp[d], m.below[d] = vg, 0
		m.touched = append(m.touched[:0], int32(d))
		ad := m.anchor[d]
		for _, a := range m.anchors {
			w := m.weight[a]
			if a == ad {
				w-- // d sends nothing to itself
			}
			if w == 0 {
				continue
			}
			// Walk from a until the tree; the new path joins touched from the tree
			// outwards, so every vertex comes after its next hop there.
			m.path = m.path[:0]
			v := a
			for m.vStamp[v] != vg {
				c := r.hop(row, int(v))
				m.vStamp[v], m.below[v], m.hopCh[v] = vg, 0, c
				m.path = append(m.path, v)
				v = head[c]
			}
			for k := len(m.path) - 1; k >= 0; k-- {
				m.touched = append(m.touched, m.path[k])
			}
			m.below[a] += w
		}
		// Subtree sums, every vertex before its next hop: below[v] routes leave v by
		// hopCh[v].
		for i := len(m.touched) - 1; i >= 1; i-- {
			v := m.touched[i]
			n := int64(m.below[v])
			c := m.hopCh[v]
			add(c, n)
			l.Hops += n
			m.below[head[c]] += m.below[v]
		}
	}
	return l
}

// routeMemo remembers the all-to-all loads of recent node lists: a replay places
// many jobs on the very same nodes (a curve allocator on a lightly loaded machine
// starts every job of one size at the same free interval), and counting on in-trees
// costs O(p^2) per job. A hit compares the whole list, so the load is the counted
// one; the memo holds at most memoInts node indices and is emptied when full.
type routeMemo struct {
	m    map[uint64][]memoEntry
	ints int
}

type memoEntry struct {
	nodes []int32
	load  RouteLoad
}

const memoInts = 1 << 22 // 16 MiB of node indices

func memoKey(nodes []int) uint64 {
	h := uint64(14695981039346656037) // FNV-1a over the indices
	for _, v := range nodes {
		h ^= uint64(v)
		h *= 1099511628211
	}
	return h
}

func (mm *routeMemo) get(nodes []int) (RouteLoad, bool) {
	for _, e := range mm.m[memoKey(nodes)] {
		if len(e.nodes) != len(nodes) {
			continue
		}
		same := true
		for i, v := range nodes {
			if int(e.nodes[i]) != v {
				same = false
				break
			}
		}
		if same {
			return e.load, true
		}
	}
	return RouteLoad{}, false
}

func (mm *routeMemo) put(nodes []int, l RouteLoad) {
	if len(nodes) > memoInts/16 {
		return
	}
	if mm.m == nil || mm.ints+len(nodes) > memoInts {
		mm.m, mm.ints = map[uint64][]memoEntry{}, 0
	}
	e := memoEntry{nodes: make([]int32, len(nodes)), load: l}
	for i, v := range nodes {
		e.nodes[i] = int32(v)
	}
	k := memoKey(nodes)
	mm.m[k] = append(mm.m[k], e)
	mm.ints += len(nodes)
}

// bumpGen returns the next stamp generation, clearing stamp when it wraps.
func bumpGen(gen int32, stamp []int32) int32 {
	gen++
	if gen <= 0 {
		clear(stamp)
		gen = 1
	}
	return gen
}

// enumerateLook is how many routes enumerate walks between two looks at its
// context (tens of microseconds at the most).
const enumerateLook = 1 << 12

// enumerate walks every route of the cycle; when ctx ends it stops and returns its
// cause.
func (m *RouteMeter) enumerate(ctx context.Context, id int, nodes []int) (RouteLoad, error) {
	var l RouteLoad
	var stop error
	m.gen = bumpGen(m.gen, m.stamp)
	p := len(nodes)
	if p < 2 {
		return l, nil
	}
	rng := NewRand(m.seed, uint64(id))
	for k := range m.pat.Phases(p) {
		m.pat.Phase(p, k, rng, func(s, d int) bool {
			if l.Messages%enumerateLook == 0 {
				if stop = context.Cause(ctx); stop != nil {
					return false
				}
			}
			l.Messages++
			m.buf = m.r.Route(nodes[s], nodes[d], m.buf[:0])
			l.Hops += int64(len(m.buf))
			for _, c := range m.buf {
				if m.stamp[c] != m.gen {
					m.stamp[c], m.count[c] = m.gen, 0
				}
				m.count[c]++
				l.MaxShared = max(l.MaxShared, m.count[c])
			}
			return true
		})
		if stop != nil {
			return RouteLoad{}, stop
		}
	}
	return l, nil
}

// allToAllMeshLoad counts the all-to-all routes of dimension-ordered routing on a
// mesh without enumerating them. A route from s to d crosses the link of dimension j
// between x and x+1 (positive direction) at a position whose coordinates before j
// are d's and after j are s's, exactly when s_j <= x < d_j. So the routes on such a
// link number A x B, A the job's nodes with the link's coordinates after j and s_j
// <= x, B those with its coordinates before j and d_j > x; the largest product over
// the link's other coordinates is the largest A times the largest B, since they
// depend on disjoint coordinates. Only links between the job's smallest and largest
// coordinate j carry its routes, so per dimension the cost is O(p + G x extent), G
// the groups the job's nodes fall in: O(p d + p x extent) per job at worst instead
// of O(p^2), without maps (this runs once per allocation of every replay).
func (m *RouteMeter) allToAllMeshLoad(nodes []int) RouteLoad {
	l, coords, ok := m.allToAllStart(nodes)
	if !ok {
		return l
	}
	D := len(m.grid.Dims())
	for j := range D {
		lo, hi := axisSpan(coords, D, j)
		if lo == hi {
			continue // no link of dimension j is crossed
		}
		width := hi - lo + 1
		// Hops: every ordered pair crosses |s_j - d_j| links of dimension j.
		cnt := zeros(&m.histA, width)
		for i := range nodes {
			cnt[coords[i*D+j]-lo]++
		}
		var below, sumBelow int64
		for x, k := range cnt {
			k := int64(k)
			// pairs with one end at x and the other below it
			l.Hops += 2 * k * (int64(x)*below - sumBelow)
			below += k
			sumBelow += k * int64(x)
		}
		// Per group (the coordinates after j for sources, before j for
		// destinations), the cumulative histogram of coordinate j: A(x) and B(x)
		// are its maxima over the groups.
		after := m.groupPrefix(&m.histA, nodes, j, lo, width, j+1, D)
		before := m.groupPrefix(&m.histB, nodes, j, lo, width, 0, j)
		aGroups, bGroups := len(after)/width, len(before)/width
		for x := range width - 1 {
			// Positive direction: A = sources with s_j <= x, B = destinations with
			// d_j > x; negative: A = sources with s_j > x, B = destinations d_j <= x.
			var aLo, aHi, bLo, bHi int32
			for t := range aGroups {
				h := after[t*width : (t+1)*width]
				aLo, aHi = max(aLo, h[x]), max(aHi, h[width-1]-h[x])
			}
			for t := range bGroups {
				h := before[t*width : (t+1)*width]
				bLo, bHi = max(bLo, h[x]), max(bHi, h[width-1]-h[x])
			}
			l.MaxShared = max(l.MaxShared, int64(aLo)*int64(bHi), int64(aHi)*int64(bLo))
		}
	}
	return l
}

// allToAllStart begins the grid counts (allToAllMeshLoad, allToAllTorusLoad): the
// job's p(p-1) messages and its nodes' coordinates (jobCoords); ok is false for
// fewer than two nodes, which send nothing.
func (m *RouteMeter) allToAllStart(nodes []int) (l RouteLoad, coords []int, ok bool) {
	p := int64(len(nodes))
	if p < 2 {
		return l, nil, false
	}
	l.Messages = p * (p - 1)
	return l, m.jobCoords(nodes), true
}

// axisSpan returns the least and greatest coordinate j of a job's nodes, coords
// holding D coordinates per node (jobCoords); the mesh's and the torus's counts
// (allToAllMeshLoad, allToAllTorusLoad) skip a dimension the job does not extend in.
func axisSpan(coords []int, D, j int) (lo, hi int) {
	lo, hi = coords[j], coords[j]
	for i := j + D; i < len(coords); i += D {
		lo, hi = min(lo, coords[i]), max(hi, coords[i])
	}
	return lo, hi
}

// zeros returns *buf resized to n zeros.
func zeros(buf *[]int32, n int) []int32 {
	if cap(*buf) < n {
		*buf = make([]int32, n)
	}
	*buf = (*buf)[:n]
	clear(*buf)
	return *buf
}

// groupPrefix groups the nodes by their coordinates t0..t1-1 (a node's key) and
// returns in buf, for each group in order of first appearance, the cumulative
// histogram of coordinate j - lo over width entries, the groups one after the other.
func (m *RouteMeter) groupPrefix(buf *[]int32, nodes []int, j, lo, width, t0, t1 int) []int32 {
	coords := m.coord
	D := len(m.grid.Dims())
	if t0 >= t1 {
		// No coordinates to group by (j is the first or last dimension): one group.
		h := zeros(buf, width)
		for i := range nodes {
			h[coords[i*D+j]-lo]++
		}
		for x := 1; x < width; x++ {
			h[x] += h[x-1]
		}
		return h
	}
	ids, groups := m.groupIDs(&m.ids, nodes, t0, t1)
	h := zeros(buf, width*groups)
	for i, id := range ids {
		h[int(id)*width+coords[i*D+j]-lo]++
	}
	for t := range groups {
		row := h[t*width : (t+1)*width]
		for x := 1; x < width; x++ {
			row[x] += row[x-1]
		}
	}
	return h
}

// groupIDs numbers the job's nodes' groups, a group being the nodes with the same
// coordinates t0..t1-1 (one group when t0 >= t1), in order of first appearance, and
// returns each node's group in *buf and the number of groups.
func (m *RouteMeter) groupIDs(buf *[]int32, nodes []int, t0, t1 int) ([]int32, int) {
	ids := (*buf)[:0]
	if t0 >= t1 {
		for range nodes {
			ids = append(ids, 0)
		}
		*buf = ids
		return ids, 1
	}
	coords := m.coord
	dims := m.grid.Dims()
	D := len(dims)
	if len(m.keyStamp) < m.grid.N() {
		m.keyStamp, m.keyID = make([]int32, m.grid.N()), make([]int32, m.grid.N())
	}
	m.keyGen = bumpGen(m.keyGen, m.keyStamp)
	groups := 0
	for i := range nodes {
		key := 0
		for t := t1 - 1; t >= t0; t-- {
			key = key*dims[t] + coords[i*D+t]
		}
		if m.keyStamp[key] != m.keyGen {
			m.keyStamp[key], m.keyID[key] = m.keyGen, int32(groups)
			groups++
		}
		ids = append(ids, m.keyID[key])
	}
	*buf = ids
	return ids, groups
}
