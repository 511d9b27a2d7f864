package sim

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/netsim"
	"github.com/procalloc/procalloc/topo"
)

// meter computes the per-job allocation metrics: on a grid from coordinates, on a
// graph from hop distances (breadth-first rows, cached by the graph).
type meter struct {
	g      *topo.Grid  // nil on a graph
	graph  *topo.Graph // nil on a grid
	n      int
	dist   bool    // measure the pairwise distances (MetricsDist)
	rank   []int32 // rank of each node in the span ordering; nil: node index
	wrap   []bool  // wrap used for distances and boxes (none under PReMAS)
	dims   []int
	coord  [][]int32 // coord[j][node]
	counts []int64   // per-dimension value counts (scratch)
	mark   []int32   // component search (scratch)
	stamp  int32
	stack  []int
	nb     []int
	adjOff []int32 // grid neighbours of node v: adj[adjOff[v]:adjOff[v+1]]; on a graph, of vertex v
	adj    []int32
	swMark []int32 // on a graph: switches whose hosts a component search has taken (stamped)
	// hostSw, on a graph, is the switch (index above the hosts) of each host whose
	// links all go to that one switch, else -1: a job of such hosts has as many
	// components as it has switches (components' fast path).
	hostSw []int32
	ranks  []int              // scratch
	sorted []int              // ringSpan scratch
	bits   []uint64           // ringSpan scratch: one bit a rank, zero between calls
	cm     *alloc.Compactness // nil when the machine is not a 2^m x 2^n mesh
	bl     *baseline          // the exact baseline, when asked for
	pt     *partitions        // the replay's partitions (nil: none), for the D metric
	// running, when D is measured and the allocator reports no state of the
	// machine (alloc.MachineState nil), is the free set D is measured on
	// (runningFree).
	running *runningFree
}

// release tells the baseline and the D metric's running set that nodes are
// free again.
func (m *meter) release(nodes []int) error {
	if m.bl != nil {
		m.bl.release(nodes)
	}
	return m.running.released(nodes)
}

// runningFree is the machine's free set for an allocator that reports no
// state of the machine (alloc.MachineState is nil: the center-based
// allocators, the Slurm emulations, as-run, paging): the nodes no running job
// keeps busy, kept by the replay itself, a job's nodes taken at its start and
// freed at its end (O(k) each). Such an allocator gives a job exactly its
// nodes, so that is the machine's free set, with or without partitions (a node
// held only to keep a decision in a partition runs no job and is free here);
// paging with pages of several nodes gives it whole pages (alloc.Paged), busy
// whole while it runs. An allocator that reports a state is measured on it
// (with partitions, partitions.machineFree of it): its busy units stay busy,
// bt's, sbt's and dbt's whole blocks. nil: D measured on the allocator's state.
type runningFree struct {
	free  *alloc.State
	paged alloc.Paged // nil: a job keeps its nodes busy
}

// newRunningFree returns the running set D is measured on for allocator a of
// an n-node machine, nil when a reports its state of the machine.
func newRunningFree(a alloc.Allocator, n int) *runningFree {
	if alloc.MachineState(a) != nil {
		return nil
	}
	rf := &runningFree{free: alloc.NewState(n)}
	if p, ok := a.(alloc.Paged); ok && p.PageNodes(0) != nil {
		rf.paged = p
	}
	return rf
}

// took marks a starting job's nodes busy (with paging, its pages).
func (rf *runningFree) took(nodes []int) error { return rf.change(nodes, true) }

// released marks a finished job's nodes free (with paging, its pages).
func (rf *runningFree) released(nodes []int) error { return rf.change(nodes, false) }

// change marks a job's nodes (with paging, its pages) busy (take) or free.
func (rf *runningFree) change(nodes []int, take bool) error {
	if rf == nil {
		return nil
	}
	op := rf.free.Release
	if take {
		op = rf.free.Take
	}
	if rf.paged == nil {
		if err := op(nodes); err != nil {
			return fmt.Errorf("sim: internal error: the running jobs' nodes: %w", err)
		}
		return nil
	}
	for _, v := range nodes {
		// A page is one job's: taken (freed) whole at the first of the job's
		// nodes on it, its first node then busy (free).
		if page := rf.paged.PageNodes(v); rf.free.IsFree(page[0]) == take {
			if err := op(page); err != nil {
				return fmt.Errorf("sim: internal error: the running jobs' pages: %w", err)
			}
		}
	}
	return nil
}

// state is the machine's free set given allocator a's: the running set when
// there is one, else a's state of the machine (alloc.MachineState).
func (rf *runningFree) state(a alloc.Allocator) *alloc.State {
	if rf != nil {
		return rf.free
	}
	return alloc.MachineState(a)
}

// newMeter returns the meter of machine m (a *topo.Grid or a *topo.Graph). Spans are
// measured on the ranks of ordering span (node of each rank; nil: node indices).
// It looks at ctx every meterEvery vertices (a tenth of a second or more at 10^5
// hosts) and returns its cause when it ends.
func newMeter(ctx context.Context, m topo.Machine, c Compat, span []int, dist bool) (*meter, error) {
	mt := &meter{n: m.N(), dist: dist, mark: make([]int32, m.N())}
	if span != nil {
		if len(span) != m.N() {
			return nil, fmt.Errorf("span ordering has %d ranks for %d nodes", len(span), m.N())
		}
		mt.rank = make([]int32, m.N())
		for r, v := range span {
			mt.rank[v] = int32(r)
		}
	}
	mt.cm, _ = alloc.NewCompactness(m)
	switch g := m.(type) {
	case *topo.Graph:
		mt.graph = g
		// The adjacency, once (Graph.Neighbors sorts a copy on every call).
		mt.adjOff = make([]int32, g.Vertices()+1)
		mt.hostSw = make([]int32, g.N())
		var nb []int
		for v := range g.Vertices() {
			if v%meterEvery == 0 && ctx.Err() != nil {
				return nil, context.Cause(ctx)
			}
			nb = g.Neighbors(v, nb[:0])
			for _, w := range nb {
				mt.adj = append(mt.adj, int32(w))
			}
			mt.adjOff[v+1] = int32(len(mt.adj))
			if v < g.N() {
				mt.hostSw[v] = -1
				if len(nb) > 0 && nb[0] >= g.N() && nb[0] == nb[len(nb)-1] {
					mt.hostSw[v] = int32(nb[0]) // sorted: every link to nb[0]
				}
			}
		}
		mt.swMark = make([]int32, g.Vertices()-g.N())
		return mt, nil
	case *topo.Grid:
		mt.g = g
	default:
		return nil, fmt.Errorf("sim: no metrics for machine %s", m.Spec())
	}
	g := mt.g
	mt.dims, mt.wrap = g.Dims(), measuredWrap(g, c)
	mt.coord = make([][]int32, len(mt.dims))
	c0 := make([]int, len(mt.dims))
	for j := range mt.dims {
		mt.coord[j] = make([]int32, g.N())
	}
	for i := range g.N() {
		if i%meterEvery == 0 && ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		c0 = g.Coord(i, c0)
		for j, v := range c0 {
			mt.coord[j][i] = int32(v)
		}
	}
	mt.counts = make([]int64, slices.Max(mt.dims))
	// The neighbour lists, once: the component count of every job walks them
	// (beyond 2^20 nodes the grid computes them instead, to keep memory small).
	if g.N() > 1<<20 {
		return mt, nil
	}
	mt.adjOff = make([]int32, g.N()+1)
	var nb []int
	for v := range g.N() {
		if v%meterEvery == 0 && ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		nb = g.Neighbors(v, nb[:0])
		for _, w := range nb {
			mt.adj = append(mt.adj, int32(w))
		}
		mt.adjOff[v+1] = int32(len(mt.adj))
	}
	return mt, nil
}

// meterEvery is how many vertices newMeter handles between looks at its context.
const meterEvery = 1 << 12

// measuredWrap is which axes of g wrap in the distances the replay measures (its
// metrics and the exact baseline): g's own, and none under PReMAS, which has
// meshes only and measures plain L1 on every machine.
func measuredWrap(g *topo.Grid, c alloc.Compat) []bool {
	wrap := slices.Clone(g.Wrap())
	if c == alloc.CompatPReMAS {
		clear(wrap)
	}
	return wrap
}

// measureCompactness records D and Lemma 1's condition of the machine's free set
// after r's allocation, when the machine allows it (a 2^m x 2^n mesh; else
// FreeSquares = -1), for every allocator. An allocator that reports its state of
// the machine (alloc.MachineState) is measured on it; with partitions that is not
// the machine's free set: the nodes held busy to keep decisions in the job's
// partition are free (partitions.machineFree), and an allocator keeping a view
// per partition reports the machine's state, not the view's. Any other is
// measured on the nodes no running job holds (runningFree).
func (m *meter) measureCompactness(r *JobResult, a alloc.Allocator) error {
	r.FreeSquares = -1
	if m.cm == nil {
		return nil
	}
	if m.running != nil {
		if err := m.running.took(r.Nodes); err != nil {
			return err
		}
		r.FreeSquares, r.SpatiallyCompact = m.cm.Measure(m.running.free)
		return nil
	}
	st := alloc.MachineState(a)
	if st == nil {
		return nil
	}
	r.FreeSquares, r.SpatiallyCompact = m.cm.Measure(m.pt.machineFree(st))
	return nil
}

// HasCoordinates reports whether machine m has coordinates (a grid: a mesh or a
// torus), where a job's bounding box means something; a graph has none.
func HasCoordinates(m topo.Machine) bool {
	_, grid := m.(*topo.Grid)
	return grid
}

func (m *meter) measure(r *JobResult) {
	nodes := r.Nodes
	k := len(nodes)
	r.TotalL1, r.AvgL1 = 0, 0
	r.BoxVolume, r.BoxSides = 1, 0
	if m.graph != nil {
		r.BoxVolume = 0 // a bounding box means nothing on a graph
	}
	if m.graph != nil && m.dist {
		// Hop distances.
		if sum, ok := m.graph.PairDistSum(nodes); ok {
			r.TotalL1 = sum
		} else {
			for i, a := range nodes {
				for _, b := range nodes[i+1:] {
					r.TotalL1 += int64(m.graph.Dist(a, b))
				}
			}
		}
	}
	for j, d := range m.dims {
		cnt := m.counts[:d]
		clear(cnt)
		for _, v := range nodes {
			cnt[m.coord[j][v]]++
		}
		if m.dist {
			r.TotalL1 += pairwise1D(cnt, m.wrap[j])
		}
		side := extent(cnt, m.wrap[j])
		r.BoxVolume *= int64(side)
		r.BoxSides += side
	}
	if k > 1 {
		r.AvgL1 = float64(r.TotalL1) / (float64(k) * float64(k-1) / 2)
	}
	ranks := nodes
	if m.rank != nil {
		m.ranks = m.ranks[:0]
		for _, v := range nodes {
			m.ranks = append(m.ranks, int(m.rank[v]))
		}
		ranks = m.ranks
	}
	lo, hi := slices.Min(ranks), slices.Max(ranks)
	r.Span = hi - lo + 1
	r.RingSpan = m.ringSpan(ranks)
	r.Components = m.components(nodes)
}

// pairwise1D is the sum over unordered pairs of |a-b| (the shorter way around when
// wrap) for values given by their counts.
func pairwise1D(cnt []int64, wrap bool) int64 {
	d := int64(len(cnt))
	var total int64
	if !wrap {
		var n, sum int64
		for v, c := range cnt {
			if c == 0 {
				continue
			}
			total += c * (int64(v)*n - sum)
			n += c
			sum += c * int64(v)
		}
		return total
	}
	// Around the ring a pair at circular distance t < d/2 is counted once, from the
	// end whose forward distance to the other is t: S(u) = sum over t = 1..h of
	// cnt[u+t] t (h = (d-1)/2), slid along the ring in O(1) per step; pairs
	// opposite each other (t = d/2, d even) are added apart. O(d), not O(d^2).
	h := (d - 1) / 2
	at := func(i int64) int64 { return cnt[i%d] }
	var S, W int64 // S(u), and W(u) = sum over t = 1..h of cnt[u+t]
	for t := int64(1); t <= int64(h); t++ {
		S += at(t) * t
		W += at(t)
	}
	for u := int64(0); u < d; u++ {
		total += cnt[u] * S
		next := at(u + int64(h) + 1)
		S += int64(h)*next - W
		W += next - at(u+1)
	}
	if d%2 == 0 {
		for u := int64(0); u < d/2; u++ {
			total += cnt[u] * cnt[u+d/2] * (d / 2)
		}
	}
	return total
}

// extent is the side of the smallest interval (arc, when wrap) holding every value.
func extent(cnt []int64, wrap bool) int {
	first, last := -1, -1
	for v, c := range cnt {
		if c != 0 {
			if first < 0 {
				first = v
			}
			last = v
		}
	}
	if first < 0 {
		return 0
	}
	if !wrap {
		return last - first + 1
	}
	// Largest run of empty values around the circle.
	d := len(cnt)
	gap, run := 0, 0
	for i := 0; i < 2*d; i++ {
		if cnt[i%d] == 0 {
			run++
			gap = max(gap, min(run, d))
		} else {
			run = 0
		}
	}
	return d - gap
}

// ringSpan is the ring span of a job's ranks (distinct, 0..n-1): ringSpanSorted
// of them sorted, or, for a job of more than n/256 nodes, the same read from a
// bitmap of the ranks, O(k + n/64) instead of a sort's O(k log k) (a 5,000-node job
// of a 10^5-node machine sorted for about a fifth of a millisecond, in each of
// plan's replays).
func (m *meter) ringSpan(ranks []int) int {
	if slices.IsSorted(ranks) || len(ranks) <= m.n/256 { // sorted already from center-based allocators on node indices
		return ringSpanSorted(ranks, m.n, &m.sorted)
	}
	if m.bits == nil {
		m.bits = make([]uint64, (m.n+63)/64)
	}
	for _, v := range ranks {
		m.bits[v>>6] |= 1 << (v & 63)
	}
	first, prev, gap := -1, -1, 0
	for wi, w := range m.bits {
		for w != 0 {
			v := wi<<6 + bits.TrailingZeros64(w)
			w &= w - 1
			if prev < 0 {
				first = v
			} else {
				gap = max(gap, v-prev)
			}
			prev = v
		}
	}
	for _, v := range ranks {
		m.bits[v>>6] = 0
	}
	gap = max(gap, first+m.n-prev) // the wrap-around gap
	return m.n - gap + 1
}

// ringSpanSorted is the ring span of distinct ranks (0..n-1), sorted in scratch
// unless they are sorted: n less the longest step between ranks around the ring,
// plus one.
func ringSpanSorted(nodes []int, n int, scratch *[]int) int {
	s := nodes
	if !slices.IsSorted(s) {
		s = append((*scratch)[:0], nodes...)
		slices.Sort(s)
		*scratch = s
	}
	gap := s[0] + n - s[len(s)-1] // wrap-around gap, counted in steps
	for i := 1; i < len(s); i++ {
		gap = max(gap, s[i]-s[i-1])
	}
	return n - gap + 1
}

// components counts the connected components of the job's nodes: on a grid through
// its links, on a graph through host-to-host links and shared switches (two hosts on
// one switch are neighbours).
func (m *meter) components(nodes []int) int {
	m.stamp++
	if m.stamp <= 0 {
		clear(m.mark)
		clear(m.swMark)
		m.stamp = 1
	}
	in := m.stamp
	m.stamp++
	seen := m.stamp
	if m.hostSw != nil {
		// Hosts each on one switch only: a component is the job's hosts on one
		// switch, so count the switches (the search below finds the same).
		comps, fast := 0, true
		for _, v := range nodes {
			s := m.hostSw[v]
			if s < 0 {
				fast = false
				break
			}
			if m.swMark[int(s)-m.n] != in {
				m.swMark[int(s)-m.n] = in
				comps++
			}
		}
		if fast {
			return comps
		}
	}
	for _, v := range nodes {
		m.mark[v] = in
	}
	var nb2 []int
	comps := 0
	for _, v := range nodes {
		if m.mark[v] == seen {
			continue
		}
		comps++
		m.mark[v] = seen
		m.stack = append(m.stack[:0], v)
		for len(m.stack) > 0 {
			u := m.stack[len(m.stack)-1]
			m.stack = m.stack[:len(m.stack)-1]
			if m.graph != nil {
				for _, w := range m.adj[m.adjOff[u]:m.adjOff[u+1]] {
					if int(w) >= m.n { // a switch: its hosts are u's neighbours
						if m.swMark[int(w)-m.n] == seen {
							continue // its hosts were taken already
						}
						m.swMark[int(w)-m.n] = seen
						for _, x := range m.adj[m.adjOff[w]:m.adjOff[w+1]] {
							if int(x) < m.n && m.mark[x] == in {
								m.mark[x] = seen
								m.stack = append(m.stack, int(x))
							}
						}
						continue
					}
					if m.mark[w] == in {
						m.mark[w] = seen
						m.stack = append(m.stack, int(w))
					}
				}
				continue
			}
			if m.adjOff != nil {
				for _, w := range m.adj[m.adjOff[u]:m.adjOff[u+1]] {
					if m.mark[w] == in {
						m.mark[w] = seen
						m.stack = append(m.stack, int(w))
					}
				}
				continue
			}
			if m.graph != nil {
				m.nb = m.graph.Neighbors(u, m.nb[:0])
			} else {
				m.nb = m.g.Neighbors(u, m.nb[:0])
			}
			for _, w := range m.nb {
				if w >= m.n { // a switch: its hosts are u's neighbours
					nb2 = m.graph.Neighbors(w, nb2[:0])
					for _, x := range nb2 {
						if x < m.n && m.mark[x] == in {
							m.mark[x] = seen
							m.stack = append(m.stack, x)
						}
					}
					continue
				}
				if m.mark[w] == in {
					m.mark[w] = seen
					m.stack = append(m.stack, w)
				}
			}
		}
	}
	return comps
}

// Summary is the aggregate of a replay: means over its jobs. Times (MeanWait,
// MeanResponse, MaxWait, Makespan) are in the trace's seconds; MeanSlowdown is the mean
// of response / max(run time, 1); Makespan is the last departure minus the first
// arrival and Utilization the sum of procs x run time over N x Makespan; PctContiguous
// is the percentage of jobs whose nodes form one connected component (MeanComponents
// the mean number of components). Metrics lists every metric's key and name;
// docs/sim.md defines them.
type Summary struct {
	Alloc   string `json:"alloc"`   // the allocator's Name
	Machine string `json:"machine"` // the machine's spec (topo.Machine.Spec)
	Sched   string `json:"sched"`   // the scheduler (Sched.String)
	Compat  string `json:"compat"`  // the conventions (Compat.String: "default", "premas", "sst")
	Jobs    int    `json:"jobs"`    // jobs summarized
	// Interrupted says the replay was stopped (its context ended) before every job
	// had finished: the figures are those of the first Jobs jobs of the trace, all
	// finished, out of JobsInTrace (sim.Run).
	Interrupted bool `json:"interrupted,omitempty"`
	JobsInTrace int  `json:"jobs_in_trace,omitempty"` // set only when Interrupted
	// LoadFactor is the arrival contraction the trace was replayed with (set by the
	// caller that scaled it; 0 when not recorded).
	LoadFactor float64 `json:"load_factor,omitempty"`
	// Seconds is the replay's wall-clock time (set by the caller that timed it).
	Seconds float64 `json:"seconds,omitempty"`

	// AllocTime is the allocator's own time within Seconds (set, like Seconds,
	// by the caller that timed it: Replay.Run); it depends on the run, not on the
	// input.
	AllocTime *AllocTime `json:"alloc_time,omitempty"`

	// The pairwise distances, nil (and absent from the JSON) when they were not
	// computed (MetricSet).
	*PairwiseL1
	MeanWait     float64 `json:"mean_wait"`     // start - arrival, seconds
	MeanResponse float64 `json:"mean_response"` // end - arrival, seconds
	MeanSlowdown float64 `json:"mean_slowdown"` // response / max(run time, 1)
	MaxWait      int64   `json:"max_wait"`      // longest start - arrival, seconds
	Makespan     int64   `json:"makespan"`      // last end - first arrival, seconds
	// SpanOrder names the ordering whose ranks span, ring span and stretch-span are
	// measured on (Leung et al. 2002 §2.3): the curve allocator's own, the one
	// Config.SpanName names, or "node index".
	SpanOrder       string  `json:"span_order"`
	Utilization     float64 `json:"utilization"`       // sum of procs x run time / (N x Makespan), a fraction 0..1
	MeanSpan        float64 `json:"mean_span"`         // JobResult.Span, ranks
	MeanRingSpan    float64 `json:"mean_ring_span"`    // JobResult.RingSpan, ranks
	MeanStretchSpan float64 `json:"mean_stretch_span"` // span / procs (1: consecutive ranks)
	MeanBoxVolume   float64 `json:"mean_bbox_volume"`  // bounding box volume, nodes (0 on a graph)
	MeanBoxSides    float64 `json:"mean_bbox_sides"`   // sum of the bounding box's sides, nodes (0 on a graph)
	// NoCoordinates is set when the machine is a graph (a fat tree, a dragonfly, a
	// fabric): without coordinates no bounding box applies, so MeanBoxVolume and
	// MeanBoxSides read 0 and Metric.Has reports false for them (tables print "-").
	NoCoordinates  bool    `json:"no_coordinates,omitempty"`
	MeanComponents float64 `json:"mean_components"` // connected components per job
	PctContiguous  float64 `json:"pct_contiguous"`  // % of jobs in one component
	// The route metrics, nil (and absent from the JSON) when they were not
	// computed (MetricSet).
	*RouteSummary
	Comm *CommSummary `json:"comm,omitempty"` // the network's side, with Config.Comm; else nil
	Ties *Ties        `json:"ties,omitempty"` // tie statistics of an allocator that counts them (alloc.TieReporter), with MetricsTies
	// With the exact baseline (Config.Baseline): the ratios to the optimum, then
	// the decisions and proven ones.
	BaselineRatios
	BaselineDecisions       *int `json:"baseline_decisions,omitempty"`        // decisions solved exactly (nil without Config.Baseline)
	BaselineProvenDecisions *int `json:"baseline_proven_decisions,omitempty"` // of which proven optimal
	// Fallbacks counts the decisions an exact allocator (opt) left unproven.
	Fallbacks *Fallbacks `json:"fallbacks,omitempty"`
	// Compactness (Liu et al. §4) after the allocations, on 2^m x 2^n meshes,
	// with MetricsCompact.
	Compactness *CompactnessSummary `json:"compactness,omitempty"`
	// NotComputed names the metric groups the replay left out (MetricSet.LeftOut:
	// "route", "dist", "ties", "compact"), whose keys are absent; nil (no key)
	// with every group.
	NotComputed []string `json:"metrics_not_computed,omitempty"`
	// BlockWaits, with an allocator that may refuse a job that fits by count
	// (alloc.Fragmenting: bt, sbt, dbt, slurm:tree, slurm:block), are the jobs
	// that waited for a block.
	BlockWaits *BlockWaits `json:"block_waits,omitempty"`
	BySize     []Size      `json:"by_size"` // one row per job size, by size
}

// BlockWaits is how long jobs waited because the allocator refused them although
// enough nodes were free (JobResult.WaitedForBlock, BlockWait).
type BlockWaits struct {
	// Jobs is the number of jobs refused at least once; MeanBlockWait and
	// MaxBlockWait are over them, from the first refusal to the start (seconds).
	Jobs          int     `json:"jobs"`
	MeanBlockWait float64 `json:"mean_block_wait"` // seconds
	MaxBlockWait  int64   `json:"max_block_wait"`  // seconds
	// ConsecMeanWait is the mean wait of the same replay (trace, machine,
	// scheduler) with slurm:consec, Slurm's selection without topology, which
	// places every job that fits by count; ExtraMeanWait is MeanWait minus it.
	// Nil when not measured (with a communication model, or Spec.NoConsecWait).
	ConsecMeanWait *float64 `json:"consec_mean_wait,omitempty"`
	ExtraMeanWait  *float64 `json:"extra_mean_wait,omitempty"` // Summary.MeanWait - ConsecMeanWait, seconds
}

// PairwiseL1 is the mean over jobs of the total and of the average pairwise hop (L1)
// distance of their nodes (JobResult.TotalL1, AvgL1).
type PairwiseL1 struct {
	MeanTotalPairwiseL1 float64 `json:"mean_total_pairwise_l1"` // JobResult.TotalL1, hops
	MeanAvgPairwiseL1   float64 `json:"mean_avg_pairwise_l1"`   // JobResult.AvgL1, hops
}

// RouteSummary is the route metrics of the jobs' communication pattern (JobResult):
// the mean over jobs of their average message distance (hops), of their hop-bytes,
// and of the most of their routes on one link.
type RouteSummary struct {
	RoutePattern        string  `json:"route_pattern"`             // the pattern's name (Config.Pattern or Comm.Pattern; "all-to-all" by default)
	MeanMessageDistance float64 `json:"mean_message_distance"`     // JobResult.MessageDistance, hops
	MeanHopBytes        float64 `json:"mean_hop_bytes"`            // JobResult.HopBytes, hops x bytes
	MeanMaxShared       float64 `json:"mean_max_routes_on_a_link"` // JobResult.MaxShared, routes
}

// Fallbacks is alloc.FallbackCounter's count for one replay.
type Fallbacks struct {
	Decisions int64 `json:"decisions"` // decisions the allocator made
	Fallbacks int64 `json:"fallbacks"` // of which left unproven when the budget ran out
}

// CompactnessSummary is the mean D (Definition 1: free power-of-two squares) after
// each allocation and the percentage of allocations after which the free set met
// Lemma 1's condition of spatial compactness.
type CompactnessSummary struct {
	MeanFreeSquares     float64 `json:"mean_free_squares"`     // D, free squares
	PctSpatiallyCompact float64 `json:"pct_spatially_compact"` // % of allocations
}

// Ties is Johnson et al. 2010 Fig. 4 for one replay.
type Ties struct {
	Decisions  int64   `json:"decisions"`    // allocations counted
	Tied       int64   `json:"tied"`         // of which had more than one best candidate
	PctTied    float64 `json:"pct_tied"`     // 100 x Tied / Decisions
	AvgNumTied float64 `json:"avg_num_tied"` // mean candidates (distinct node sets) sharing the best score, over tied decisions
	// AvgTiedCenters counts centers rather than distinct node sets.
	AvgTiedCenters float64 `json:"avg_tied_centers"`
}

// Size is the breakdown for one job size.
type Size struct {
	Procs          int     `json:"procs"` // the job size, nodes
	Jobs           int     `json:"jobs"`  // jobs of that size
	*PairwiseL1            // the size's pairwise distances, nil without MetricsDist
	MeanWait       float64 `json:"mean_wait"`      // seconds
	PctContiguous  float64 `json:"pct_contiguous"` // % of those jobs in one component
	BaselineRatios         // the job size's decisions' (Config.Baseline)
}

// BaselineRatios are the exact baseline's ratios over a replay's decisions, or one
// job size's (Config.Baseline; all nil, and absent from the JSON, without it): the
// mean over decisions proven optimal of the allocator's total pairwise L1 over the
// optimum and the fraction of decisions proven; with every decision's ratio bounded,
// the fraction of decisions with a certified bound (1 unless a bound failed), the
// mean over them of the total over the proven lower bound (an upper bound on the mean
// ratio to the optimum over all decisions when every one is bounded) and the mean
// over all decisions of the total over the best found (a lower bound on it).
type BaselineRatios struct {
	MeanRatioToOptimal      *float64 `json:"mean_ratio_to_optimal,omitempty"`       // over proven decisions: total / optimum
	BaselineProven          *float64 `json:"baseline_proven,omitempty"`             // fraction of decisions proven
	BaselineBounded         *float64 `json:"baseline_bounded,omitempty"`            // fraction of decisions with a certified bound
	MeanRatioToOptimalUpper *float64 `json:"mean_ratio_to_optimal_upper,omitempty"` // over bounded decisions: total / proven lower bound
	MeanRatioToOptimalLower *float64 `json:"mean_ratio_to_optimal_lower,omitempty"` // over all decisions: total / best found
}

// ratios points BaselineRatios at b's fields.
func (b *BaselineSummary) ratios() BaselineRatios {
	return BaselineRatios{&b.MeanRatio, &b.Proven, &b.Bounded, &b.MeanRatioUpper, &b.MeanRatioLower}
}

// Result is a finished replay.
type Result struct {
	Summary             // the aggregate of PerJob
	PerJob  []JobResult `json:"-"` // in trace order; nil with Config.NoPerJob
}

func summarize(res []JobResult, cfg Config, tr alloc.TieReporter) *Result {
	var a aggregate
	for i := range res {
		f, x := foldOf(&res[i])
		a.add(&f, &x)
	}
	out := a.result(cfg, tr)
	out.PerJob = res
	return out
}

// foldRec is what the summary reads of a job's record (aggregate.add) but the
// distances, route metrics and exact baseline (foldExtra, zero when not measured):
// a replay that keeps no records holds these, not the JobResult, for a job that
// finished while an earlier one had not (its fold must wait for the earlier one's,
// the sums being in trace order): no node list, no strings; 72 bytes, and 72 more
// for the foldExtra when it is measured, against 336.
type foldRec struct {
	arrival, start, end, boxVolume, blockWait                int64
	procs, span, ringSpan, boxSides, components, freeSquares int32
	waitedForBlock, spatiallyCompact                         bool
}

// foldExtra is the rest of what the summary reads of a job's record: the pairwise
// distances (MetricsDist), the route metrics (MetricsRoute) and the exact baseline
// (Config.Baseline), all zero when none is measured.
type foldExtra struct {
	totalL1, hopBytes, maxShared, optTotalL1   int64
	avgL1, msgDist, ratioToOptimal, ratioUpper float64
	optProven, optBounded                      bool
}

// zero reports whether every field of x is zero (the floats +0, bit for bit:
// folding a zero foldExtra in its place gives the same sums).
func (x *foldExtra) zero() bool {
	return x.totalL1 == 0 && x.hopBytes == 0 && x.maxShared == 0 && x.optTotalL1 == 0 &&
		math.Float64bits(x.avgL1)|math.Float64bits(x.msgDist)|math.Float64bits(x.ratioToOptimal)|math.Float64bits(x.ratioUpper) == 0 &&
		!x.optProven && !x.optBounded
}

// foldOf is r's foldRec and foldExtra. The int32 fields count nodes or free
// squares, fewer than the machine's nodes (topo numbers nodes in int32: grids of
// at most 2^31 - 1).
func foldOf(r *JobResult) (foldRec, foldExtra) {
	return foldRec{
			arrival: r.Arrival, start: r.Start, end: r.End, boxVolume: r.BoxVolume, blockWait: r.BlockWait,
			procs: int32(r.Procs), span: int32(r.Span), ringSpan: int32(r.RingSpan), boxSides: int32(r.BoxSides),
			components: int32(r.Components), freeSquares: int32(r.FreeSquares),
			waitedForBlock: r.WaitedForBlock, spatiallyCompact: r.SpatiallyCompact,
		}, foldExtra{
			totalL1: r.TotalL1, hopBytes: r.HopBytes, maxShared: r.MaxShared, optTotalL1: r.OptTotalL1,
			avgL1: r.AvgL1, msgDist: r.MessageDistance, ratioToOptimal: r.RatioToOptimal, ratioUpper: r.RatioUpper,
			optProven: r.OptProven, optBounded: r.OptBounded,
		}
}

// aggregate folds job records (as foldRecs) into a summary one at a time, in trace
// order (the sums are those of one pass over the records in that order, so that a
// replay that keeps no records reports the very same numbers).
type aggregate struct {
	jobs                                                                  int
	totL1                                                                 int64
	avgL1, wait, resp, slow, span, ring, stretch, vol, sides, comps, work float64
	msgDist, hopBytes, shared                                             float64
	maxWait, first, last                                                  int64
	contig                                                                int
	blocked                                                               int
	blockWait                                                             float64
	maxBlockWait                                                          int64
	by                                                                    map[int]*sizeAcc
	// compactness (all jobs measured, else none) and the exact baseline
	squares, compact int
	unmeasured       bool
	base             baseAcc
}

type sizeAcc struct {
	n, contig       int
	tot, avg, waits float64
	base            baseAcc
}

// baseAcc sums the baseline over decisions as jobs are folded in: BaselineSummary
// is the mean ratio over proven decisions and the proven fraction.
type baseAcc struct {
	n, proven, bounded int
	sum, upper, lower  float64
}

func (b *baseAcc) add(r *foldExtra) {
	b.n++
	if r.optProven {
		b.proven++
		b.sum += r.ratioToOptimal
	}
	if r.optBounded {
		b.bounded++
		b.upper += r.ratioUpper
	}
	if r.optTotalL1 > 0 {
		b.lower += float64(r.totalL1) / float64(r.optTotalL1)
	} else {
		b.lower++ // a total of 0 (one node): its own optimum
	}
}

func (b *baseAcc) summary() BaselineSummary {
	s := BaselineSummary{Decisions: b.n, ProvenDecisions: b.proven}
	if b.n > 0 {
		s.Proven = float64(b.proven) / float64(b.n)
		s.Bounded = float64(b.bounded) / float64(b.n)
		s.MeanRatioLower = b.lower / float64(b.n)
	}
	if b.proven > 0 {
		s.MeanRatio = b.sum / float64(b.proven)
	}
	if b.bounded > 0 {
		s.MeanRatioUpper = b.upper / float64(b.bounded)
	}
	return s
}

func (a *aggregate) add(r *foldRec, x *foldExtra) {
	// The expressions are JobResult's (Wait, Response, Slowdown) on the same
	// values: the same floating-point sums. x nil: a zero foldExtra.
	if x == nil {
		x = &foldExtra{}
	}
	wait, resp := r.start-r.arrival, r.end-r.arrival
	if a.jobs == 0 {
		a.first, a.last = r.arrival, r.end
		a.by = map[int]*sizeAcc{}
	}
	a.jobs++
	a.totL1 += x.totalL1
	a.avgL1 += x.avgL1
	a.wait += float64(wait)
	a.maxWait = max(a.maxWait, wait)
	a.resp += float64(resp)
	a.slow += slowdown(r.arrival, r.start, r.end)
	a.span += float64(r.span)
	a.ring += float64(r.ringSpan)
	a.stretch += float64(r.span) / float64(r.procs)
	a.vol += float64(r.boxVolume)
	a.sides += float64(r.boxSides)
	a.comps += float64(r.components)
	if r.components == 1 {
		a.contig++
	}
	if r.waitedForBlock {
		a.blocked++
		a.blockWait += float64(r.blockWait)
		a.maxBlockWait = max(a.maxBlockWait, r.blockWait)
	}
	a.msgDist += x.msgDist
	a.hopBytes += float64(x.hopBytes)
	a.shared += float64(x.maxShared)
	a.work += float64(r.procs) * float64(r.end-r.start)
	a.first = min(a.first, r.arrival)
	a.last = max(a.last, r.end)
	if r.freeSquares < 0 {
		a.unmeasured = true
	} else {
		a.squares += int(r.freeSquares)
		if r.spatiallyCompact {
			a.compact++
		}
	}
	a.base.add(x)
	z := a.by[int(r.procs)]
	if z == nil {
		z = &sizeAcc{}
		a.by[int(r.procs)] = z
	}
	z.n++
	z.tot += float64(x.totalL1)
	z.avg += x.avgL1
	z.waits += float64(wait)
	if r.components == 1 {
		z.contig++
	}
	z.base.add(x)
}

// result is the summary of the records added.
func (a *aggregate) result(cfg Config, tr alloc.TieReporter) *Result {
	s := Summary{Alloc: cfg.Alloc.Name(), Machine: cfg.Machine.Spec(), Sched: cfg.Sched.String(), Compat: cfg.Compat.String(), Jobs: a.jobs}
	s.NotComputed = cfg.Metrics.LeftOut()
	s.NoCoordinates = !HasCoordinates(cfg.Machine)
	_, s.SpanOrder = spanOrder(cfg)
	if cfg.Metrics.Has(MetricsRoute) {
		s.RouteSummary = &RouteSummary{RoutePattern: "all-to-all"}
		if cfg.Comm != nil && cfg.Comm.Pattern != nil {
			s.RoutePattern = cfg.Comm.Pattern.Name()
		} else if cfg.Pattern != nil {
			s.RoutePattern = cfg.Pattern.Name()
		}
	}
	if a.jobs == 0 {
		return &Result{Summary: s}
	}
	n := float64(a.jobs)
	s.MaxWait = a.maxWait
	if cfg.Metrics.Has(MetricsDist) {
		s.PairwiseL1 = &PairwiseL1{MeanTotalPairwiseL1: float64(a.totL1) / n, MeanAvgPairwiseL1: a.avgL1 / n}
	}
	s.MeanWait = a.wait / n
	s.MeanResponse = a.resp / n
	s.MeanSlowdown = a.slow / n
	s.MeanSpan, s.MeanRingSpan, s.MeanStretchSpan = a.span/n, a.ring/n, a.stretch/n
	s.MeanBoxVolume, s.MeanBoxSides, s.MeanComponents = a.vol/n, a.sides/n, a.comps/n
	s.PctContiguous = 100 * float64(a.contig) / n
	if f, ok := cfg.Alloc.(alloc.Fragmenting); ok && f.MayFragment() {
		s.BlockWaits = &BlockWaits{Jobs: a.blocked, MaxBlockWait: a.maxBlockWait}
		if a.blocked > 0 {
			s.BlockWaits.MeanBlockWait = a.blockWait / float64(a.blocked)
		}
	}
	if !a.unmeasured {
		s.Compactness = &CompactnessSummary{MeanFreeSquares: float64(a.squares) / n, PctSpatiallyCompact: 100 * float64(a.compact) / n}
	}
	if s.RouteSummary != nil {
		s.MeanMessageDistance, s.MeanHopBytes, s.MeanMaxShared = a.msgDist/n, a.hopBytes/n, a.shared/n
	}
	s.Makespan = a.last - a.first
	if s.Makespan > 0 {
		s.Utilization = a.work / (float64(cfg.Machine.N()) * float64(s.Makespan))
	}
	for p, z := range a.by {
		row := Size{Procs: p, Jobs: z.n, MeanWait: z.waits / float64(z.n), PctContiguous: 100 * float64(z.contig) / float64(z.n)}
		if s.PairwiseL1 != nil {
			row.PairwiseL1 = &PairwiseL1{MeanTotalPairwiseL1: z.tot / float64(z.n), MeanAvgPairwiseL1: z.avg / float64(z.n)}
		}
		if cfg.Baseline != nil {
			b := z.base.summary()
			row.BaselineRatios = b.ratios()
		}
		s.BySize = append(s.BySize, row)
	}
	if cfg.Baseline != nil {
		b := a.base.summary()
		s.BaselineRatios = b.ratios()
		s.BaselineDecisions, s.BaselineProvenDecisions = &b.Decisions, &b.ProvenDecisions
	}
	if fc, ok := cfg.Alloc.(alloc.FallbackCounter); ok {
		d, f := fc.Fallbacks()
		s.Fallbacks = &Fallbacks{Decisions: d, Fallbacks: f}
	}
	slices.SortFunc(s.BySize, func(a, b Size) int { return a.Procs - b.Procs })
	if tr != nil {
		ts := tr.TieStats()
		t := &Ties{Decisions: ts.Decisions, Tied: ts.Tied}
		if ts.Decisions > 0 {
			t.PctTied = 100 * float64(ts.Tied) / float64(ts.Decisions)
		}
		if ts.Tied > 0 {
			t.AvgNumTied = float64(ts.TiedCandidates) / float64(ts.Tied)
			t.AvgTiedCenters = float64(ts.TiedCenters) / float64(ts.Tied)
		}
		s.Ties = t
	}
	return &Result{Summary: s}
}

// routeMeter measures the static route metrics of each job's pattern.
type routeMeter struct {
	m     *netsim.RouteMeter
	bytes int64
}

// newRouteMeter returns the route meter of cfg, nil when the route metrics are not
// computed (Config.Metrics).
func newRouteMeter(ctx context.Context, cfg Config) (*routeMeter, error) {
	if !cfg.Metrics.Has(MetricsRoute) {
		if cfg.Comm != nil {
			return nil, errors.New("sim: a communication model measures the route metrics: Metrics must include them")
		}
		return nil, nil
	}
	pat, bytes := cfg.Pattern, cfg.MessageBytes
	if cfg.Comm != nil {
		pat = cfg.Comm.Pattern
		bytes = cfg.Comm.Params.MessageFlits * cfg.Comm.Params.FlitBytes
	}
	if pat == nil {
		pat, _ = netsim.ParsePattern("all-to-all")
	}
	if bytes == 0 {
		d := netsim.DefaultParams()
		bytes = d.MessageFlits * d.FlitBytes
	}
	if bytes < 0 {
		return nil, fmt.Errorf("message size %d bytes: must be positive", bytes)
	}
	seed := uint64(1)
	if cfg.Comm != nil {
		seed = cfg.Comm.Seed
	}
	m, err := netsim.NewMachineRouteMeterContext(ctx, cfg.Machine, pat, seed)
	if err != nil && ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	if err != nil && cfg.Comm == nil {
		// They are optional: say so (a 2 x 10^5-host edge list's table is 150 GiB,
		// and the replay itself needs none).
		return nil, fmt.Errorf("%w; or leave the static route metrics out (Metrics without MetricsRoute: procalloc's --metrics sched,dist)", err)
	}
	if err != nil {
		return nil, err
	}
	return &routeMeter{m: m, bytes: bytes}, nil
}

// measure sets r's route metrics; it stops when ctx ends, returning its cause
// (an n-body job of 24,320 nodes walks 5.9 x 10^8 routes).
func (rm *routeMeter) measure(ctx context.Context, r *JobResult) error {
	if rm == nil {
		return nil
	}
	l, err := rm.m.MeasureContext(ctx, r.ID, r.Nodes)
	if err != nil {
		return err
	}
	r.Messages, r.MessageHops, r.MaxShared = l.Messages, l.Hops, l.MaxShared
	r.MessageDistance = l.MeanDistance()
	r.HopBytes = l.Hops * rm.bytes
	return nil
}
