package netsim

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/procalloc/procalloc/topo"
)

// TrafficConfig is an open-loop synthetic traffic experiment (Dally & Towles 2004
// §23.1): every endpoint generates messages by a Bernoulli process, Rate flits per
// cycle on average (a fraction of one channel's bandwidth), to destinations drawn
// from Pattern; messages wait at their source.
type TrafficConfig struct {
	Rate float64 // offered load per endpoint, flits per cycle, in (0, 1]
	// Pattern picks the destinations (the zero value: uniform). On the message
	// engine uniform traffic goes to the other endpoints only (a message to itself
	// would only occupy its ejection channel); the other patterns go where
	// BookSim2's do, the source itself included when the pattern says so.
	Pattern Synthetic
	Warmup  int64 // cycles before measuring (default 10,000)
	Measure int64 // cycles measured (default 50,000)
	// Drain is how long after the measured window the experiment waits for the
	// messages generated in it (default 4 x Measure); those still missing then are
	// counted in Undelivered and left out of MeanLatency.
	Drain int64
	Seed  uint64 // seeds message generation and the pattern's random choices
	// AcceptedOnly skips the drain in FlitUniformTraffic: the measured packets still
	// out at the end of the window count as undelivered and the mean latency is that
	// of those that arrived; offered and accepted are unchanged. It makes a
	// saturation measurement cheaper.
	AcceptedOnly bool
}

// TrafficResult is what the experiment measured.
type TrafficResult struct {
	Offered  float64 `json:"offered"`  // flits generated per endpoint per cycle in the window
	Accepted float64 `json:"accepted"` // flits delivered per endpoint per cycle in the window
	// MeanLatency is the mean time, in cycles, from generation to the tail's arrival
	// of the messages generated in the window (source queueing included).
	MeanLatency     float64 `json:"mean_latency"`
	ZeroLoadLatency float64 `json:"zero_load_latency"` // mean lone-message latency over all pairs
	Generated       int64   `json:"generated"`         // messages generated in the window
	Undelivered     int64   `json:"undelivered"`       // of those, not arrived by the end of the drain
}

// Saturated reports whether the network could not carry the offered load: it
// accepted less than 95 % of it, or did not deliver the window's messages in time.
func (r TrafficResult) Saturated() bool {
	return r.Undelivered > 0 || r.Accepted < 0.95*r.Offered
}

// defaults checks the offered load and fills in the phases left 0: warmup 10,000
// cycles, measurement 50,000, drain drainTimes the measurement.
func (cfg *TrafficConfig) defaults(drainTimes int64) error {
	if !(cfg.Rate > 0 && cfg.Rate <= 1) {
		return fmt.Errorf("offered load %v: must be in (0, 1] flits per cycle (a fraction of one link's bandwidth)", cfg.Rate)
	}
	if cfg.Warmup == 0 {
		cfg.Warmup = 10000
	}
	if cfg.Measure == 0 {
		cfg.Measure = 50000
	}
	if cfg.Drain == 0 {
		cfg.Drain = drainTimes * cfg.Measure
	}
	return nil
}

// UniformTraffic runs the experiment on router r with parameters p, the
// destinations from cfg.Pattern (uniform by default).
func UniformTraffic(ctx context.Context, r Router, p Params, cfg TrafficConfig) (TrafficResult, error) {
	var res TrafficResult
	if err := cfg.defaults(4); err != nil {
		return res, err
	}
	if cfg.Warmup < 0 || cfg.Measure < 0 || cfg.Drain < 0 || cfg.Warmup > 1e9 || cfg.Measure > 1e9 || cfg.Drain > 1e10 {
		return res, fmt.Errorf("warmup %d, measure %d, drain %d cycles: must be positive and at most 1e9", cfg.Warmup, cfg.Measure, cfg.Drain)
	}
	n := r.Endpoints()
	if n < 2 {
		return res, errors.New("uniform traffic needs at least two endpoints")
	}
	var dests *Destinations
	if cfg.Pattern.Kind != Uniform {
		m, nodes := trafficNodes(r)
		if m == nil {
			return res, fmt.Errorf("%s traffic on %s: the pattern needs the router of a machine", cfg.Pattern, r.Spec())
		}
		var err error
		if dests, err = cfg.Pattern.Bind(m, nodes, cfg.Seed); err != nil {
			return res, err
		}
		n = nodes
	}
	if err := p.Validate(); err != nil {
		return res, err
	}
	var err error
	if res.ZeroLoadLatency, err = zeroLoadLatency(ctx, r, p); err != nil {
		return res, fmt.Errorf("uniform traffic interrupted: %w", err)
	}
	var buf []int32
	if h, ok := dests.meanHops(func(s, d int) int {
		buf = r.Route(s, d, buf[:0])
		return len(buf)
	}); ok {
		res.ZeroLoadLatency = h*float64(p.RouterDelay) + float64(p.MessageFlits)
	}

	start, end := cfg.Warmup, cfg.Warmup+cfg.Measure
	var inWindow, acceptedFlits, latSum, arrived int64
	eng, err := NewEngineContext(ctx, r, p, func(d *Delivery) {
		if d.Arrived > start && d.Arrived <= end {
			acceptedFlits += p.MessageFlits
		}
		if d.Tag == 1 {
			arrived++
			latSum += d.Arrived - d.Queued
		}
	})
	if err != nil {
		return res, err
	}
	rng := NewRand(cfg.Seed, 0)
	prob := cfg.Rate / float64(p.MessageFlits)
	// Inter-generation gaps are geometric: draw each endpoint's next generation time
	// instead of tossing a coin per endpoint per cycle.
	next := make([]int64, n)
	gap := func() int64 {
		if prob >= 1 {
			return 1
		}
		u := rng.Float64()
		return 1 + int64(math.Floor(math.Log1p(-u)/math.Log1p(-prob)))
	}
	for i := range next {
		next[i] = gap()
	}
	pollMask := 4*pollCycles(n) - 1 // 4,095 on small networks; each cycle is O(n) here
	for t := int64(1); t <= end; t++ {
		if t&pollMask == 0 && ctx.Err() != nil {
			return res, fmt.Errorf("uniform traffic interrupted at cycle %d: %w", t, context.Cause(ctx))
		}
		if err := eng.Run(t); err != nil {
			return res, err
		}
		for i := range next {
			for next[i] == t {
				var d int
				if dests != nil {
					d = dests.Dest(i, rng)
				} else if d = int(rng.Uint64n(uint64(n - 1))); d >= i {
					d++
				}
				var tag int32
				if t > start {
					tag = 1
					inWindow++
				}
				eng.Send(Message{Src: int32(i), Dst: int32(d), Tag: tag})
				next[i] += gap()
			}
		}
	}
	for t := end + 1024; arrived < inWindow && t <= end+cfg.Drain; t += 1024 {
		if ctx.Err() != nil {
			return res, fmt.Errorf("uniform traffic interrupted while draining: %w", context.Cause(ctx))
		}
		if err := eng.Run(t); err != nil {
			return res, err
		}
	}
	win := float64(cfg.Measure) * float64(n)
	res.Offered = float64(inWindow) * float64(p.MessageFlits) / win
	res.Accepted = float64(acceptedFlits) / win
	res.Generated = inWindow
	res.Undelivered = inWindow - arrived
	if arrived > 0 {
		res.MeanLatency = float64(latSum) / float64(arrived)
	}
	return res, nil
}

// trafficNodes returns the machine of router r and the nodes among which synthetic
// traffic runs (a mesh with I/O nodes: its compute nodes), or nil.
func trafficNodes(r Router) (topo.Machine, int) {
	switch r := r.(type) {
	case *GridRouter:
		return r.g, r.g.N()
	case *IORouter:
		return r.mesh.g, r.n
	case *GraphRouter:
		return r.g, r.n
	case *DragonflyRouter:
		return r.g, r.n
	}
	return nil, 0
}

// ZeroLoadLatency is the mean latency of a lone message over all ordered pairs of
// distinct endpoints: r x (mean hops) + S.
func ZeroLoadLatency(r Router, p Params) float64 {
	z, _ := zeroLoadLatency(context.Background(), r, p)
	return z
}

// zeroLoadLatency is ZeroLoadLatency returning ctx's cause when ctx ends first. On
// a mesh or torus the hops of all pairs are summed per dimension, exactly and in
// O(sum of k^2): every route is minimal, so the total is sum over dimensions j of
// (n/k_j)^2 x (the distances between all pairs of coordinates along j). Routing
// every pair took O(n^2) routes: hours on mesh:256x256, and Ctrl-C went unseen.
// On a dragonfly they are summed by pairs of routers (DragonflyRouter.pairHops),
// on another graph taken from the breadth-first searches that built its routes
// (GraphRouter.pairHops): routing every pair of 16,384 hosts took minutes.
// Other routers (none that UniformTraffic is given) route every pair, with a look
// at ctx per source.
func zeroLoadLatency(ctx context.Context, r Router, p Params) (float64, error) {
	n := r.Endpoints()
	if n < 2 {
		return float64(p.MessageFlits), nil
	}
	var hops int64
	switch r := r.(type) {
	case *GridRouter:
		hops = gridPairHops(r.dims, r.wrap)
	case *DragonflyRouter:
		hops = r.pairHops()
	case *GraphRouter:
		hops = r.pairHops
	default:
		var buf []int32
		for s := range n {
			if ctx.Err() != nil {
				return 0, context.Cause(ctx)
			}
			for d := range n {
				if s != d {
					buf = r.Route(s, d, buf[:0])
					hops += int64(len(buf))
				}
			}
		}
	}
	mean := float64(hops) / float64(n*(n-1))
	return mean*float64(p.RouterDelay) + float64(p.MessageFlits), nil
}

// gridPairHops is the sum of the minimal hop distances over all ordered pairs of
// nodes of the grid dims (wrap per dimension: the shorter way round).
func gridPairHops(dims []int, wrap []bool) int64 {
	n := int64(1)
	for _, k := range dims {
		n *= int64(k)
	}
	var hops int64
	for j, k := range dims {
		var s int64 // over all ordered pairs of coordinates along j
		for a := range k {
			for b := range k {
				d := a - b
				if d < 0 {
					d = -d
				}
				if wrap[j] && 2*d > k {
					d = k - d
				}
				s += int64(d)
			}
		}
		rest := n / int64(k) // nodes per coordinate value
		hops += s * rest * rest
	}
	return hops
}

// BisectionBound is the largest per-endpoint uniform load, in flits per cycle, that
// the channel bisection of a k_1 x ... grid can carry (Dally & Towles 2004 §3.3.1):
// half of all traffic crosses the bisection, so N*R/2 <= 2*B_c, B_c the channels
// crossing it in one direction. The bisection is the narrowest cut: every axis of
// at least 2 nodes is cut in half, crossing N/k_i channels per direction, twice that
// when that axis wraps, and the least of those bounds, 4/k_i (8/k_i with wrap), is
// returned: for a k x k mesh 4/k, a torus doubles it, and mesh:16x12:wrap=x is bound
// by its unwrapped 12-node axis (1/3), not by its longest one. The result does not
// depend on the order of the axes. It is 0 for a machine that is not a grid.
func BisectionBound(dims []int, wrap []bool) float64 {
	best := 0.0
	for i, d := range dims {
		if d < 2 {
			continue
		}
		// Traffic across the cut one way: (N/2 sources) x R x (N/2)/(N-1) of their
		// messages go to the other half; the bound uses the large-N form N*R/4, and
		// 4 x (N/k_i channels) / N = 4/k_i.
		b := 4 / float64(d)
		if i < len(wrap) && wrap[i] {
			b *= 2
		}
		if best == 0 || b < best {
			best = b
		}
	}
	return best
}
