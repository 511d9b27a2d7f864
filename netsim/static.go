package netsim

import (
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
	grid  *topo.Grid // set when all-to-all loads can be counted per line (a mesh)
	pat   Pattern
	seed  uint64
	count []int64
	stamp []int32
	gen   int32
	buf   []int32
	coord []int
}

// NewRouteMeter returns a meter for pattern pat on router r; random patterns draw
// from seed and the job id.
func NewRouteMeter(r Router, pat Pattern, seed uint64) *RouteMeter {
	m := &RouteMeter{r: r, pat: pat, seed: seed,
		count: make([]int64, r.Channels()), stamp: make([]int32, r.Channels())}
	if gr, ok := r.(*GridRouter); ok && !gr.g.Wraps() {
		if _, a2a := pat.(allToAll); a2a {
			m.grid = gr.g
		}
	}
	return m
}

// Measure returns the route load of one cycle of the pattern over nodes (in
// allocation order); id is the job's id, for random patterns.
func (m *RouteMeter) Measure(id int, nodes []int) RouteLoad {
	if m.grid != nil {
		return allToAllMeshLoad(m.grid, nodes, &m.coord)
	}
	return m.enumerate(id, nodes)
}

// enumerate walks every route of the cycle.
func (m *RouteMeter) enumerate(id int, nodes []int) RouteLoad {
	var l RouteLoad
	m.gen++
	if m.gen == 0 {
		clear(m.stamp)
		m.gen = 1
	}
	PeriodRoutes(m.pat, len(nodes), NewRand(m.seed, uint64(id)), func(s, d int) {
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
	})
	return l
}

// allToAllMeshLoad counts the all-to-all routes of dimension-ordered routing on a
// mesh without enumerating them. A route from s to d crosses the link of dimension j
// between x and x+1 (positive direction) at a position whose coordinates before j
// are d's and after j are s's, exactly when s_j <= x < d_j. So the routes on such a
// link number A x B, A the job's nodes with the link's coordinates after j and s_j
// <= x, B those with its coordinates before j and d_j > x; the largest product over
// the link's other coordinates is the largest A times the largest B, since they
// depend on disjoint coordinates. O(p d + sum of sides) per job instead of O(p^2).
func allToAllMeshLoad(g *topo.Grid, nodes []int, scratch *[]int) RouteLoad {
	p := int64(len(nodes))
	var l RouteLoad
	if p < 2 {
		return l
	}
	l.Messages = p * (p - 1)
	dims := g.Dims()
	D := len(dims)
	coords := (*scratch)[:0]
	c := make([]int, D)
	for _, v := range nodes {
		c = g.Coord(v, c)
		coords = append(coords, c...)
	}
	*scratch = coords
	for j, side := range dims {
		// Hops: every ordered pair crosses |s_j - d_j| links of dimension j.
		cnt := make([]int64, side)
		for i := range nodes {
			cnt[coords[i*D+j]]++
		}
		var below, sumBelow int64
		for x, k := range cnt {
			// pairs with one end at x and the other below it
			l.Hops += 2 * k * (int64(x)*below - sumBelow)
			below += k
			sumBelow += k * int64(x)
		}
		// Per group (the coordinates after j for sources, before j for
		// destinations), the histogram of coordinate j.
		after := map[int][]int64{}
		before := map[int][]int64{}
		for i := range nodes {
			ka, kb := 0, 0
			for t := D - 1; t > j; t-- {
				ka = ka*dims[t] + coords[i*D+t]
			}
			for t := j - 1; t >= 0; t-- {
				kb = kb*dims[t] + coords[i*D+t]
			}
			x := coords[i*D+j]
			if after[ka] == nil {
				after[ka] = make([]int64, side)
			}
			if before[kb] == nil {
				before[kb] = make([]int64, side)
			}
			after[ka][x]++
			before[kb][x]++
		}
		for x := 0; x+1 < side; x++ {
			// Positive direction: A = sources with s_j <= x, B = destinations with
			// d_j > x; negative: A = sources with s_j > x, B = destinations d_j <= x.
			var aLo, aHi, bLo, bHi int64
			for _, h := range after {
				lo := sum(h[:x+1])
				aLo, aHi = max(aLo, lo), max(aHi, sum(h)-lo)
			}
			for _, h := range before {
				lo := sum(h[:x+1])
				bLo, bHi = max(bLo, lo), max(bHi, sum(h)-lo)
			}
			l.MaxShared = max(l.MaxShared, aLo*bHi, aHi*bLo)
		}
	}
	return l
}

func sum(a []int64) int64 {
	var s int64
	for _, v := range a {
		s += v
	}
	return s
}
