package netsim

import (
	"context"
	"fmt"
	"math"

	"github.com/procalloc/procalloc/topo"
)

// FlitUniformTraffic is the open-loop synthetic-traffic experiment of BookSim2
// (traffic = uniform or cfg.Pattern's, injection_process = bernoulli,
// injection_rate_uses_flits = 1) on the flit engine: in every cycle every terminal
// creates a packet of S flits with probability Rate/S, to the destination the
// pattern gives (uniform: a random terminal, itself included); packets wait
// in an unbounded queue at their source, and latency runs from creation to the
// tail's arrival. Packets created in [Warmup, Warmup+Measure) are measured (offered,
// latency), and accepted is the flits that reach their destination in that window per
// terminal per cycle (BookSim2's "accepted flit rate" over its sample periods). The
// terminals keep creating packets while the measured ones drain, as BookSim2 does; the
// drain stops after cfg.Drain cycles (default Measure) or as soon as the measured
// packets still out cannot arrive in time at the rate the network delivers.
func FlitUniformTraffic(ctx context.Context, m topo.Machine, fc FlitConfig, cfg TrafficConfig) (TrafficResult, error) {
	var res TrafficResult
	if err := cfg.defaults(1); err != nil {
		return res, err
	}
	if cfg.Warmup < 0 || cfg.Measure < 0 || cfg.Drain < 0 || cfg.Warmup > 1e9 || cfg.Measure > 1e9 || cfg.Drain > 1e10 {
		return res, fmt.Errorf("warmup %d, measure %d, drain %d cycles: must be positive and at most 1e9", cfg.Warmup, cfg.Measure, cfg.Drain)
	}
	var window, acceptedFlits, latSum, arrived int64
	start, end := cfg.Warmup, cfg.Warmup+cfg.Measure
	e, err := NewFlitEngine(m, fc, func(d *Delivery) {
		if d.Tag == 1 {
			arrived++
			latSum += d.Arrived - d.Queued
		}
	})
	if err != nil {
		return res, err
	}
	n := e.nterm
	if e.ioAttach != nil {
		n = int(e.ncomp) // the I/O nodes only write (IORouter); uniform traffic is among compute nodes
	}
	if n < 1 {
		return res, fmt.Errorf("uniform traffic on %s: no nodes", m.Spec())
	}
	dests, err := cfg.Pattern.Bind(m, n, cfg.Seed)
	if err != nil {
		return res, err
	}
	var recent int64 // flits ejected since the last drain check
	e.eject = func(t int64, f int32) {
		if t >= start && t < end {
			acceptedFlits++
		}
		recent++
	}
	S := int64(fc.PacketFlits)
	prob := cfg.Rate / float64(S)
	rng := NewRand(cfg.Seed, 0)
	lp := math.Log1p(-prob)
	// A gap reaching past the run's last cycle is cut to it: that terminal creates
	// nothing more in the run. Uncut, a tiny rate (1e-20, or 5e-324, where prob is 0
	// and the quotient NaN) gives gaps beyond int64, whose conversion is undefined
	// (it gave negative gaps: a packet every cycle), and keys beyond 2^40 wrap the
	// heap's time<<24.
	horizon := end + cfg.Drain + 1
	gap := func() int64 {
		if prob >= 1 {
			return 1
		}
		g := math.Floor(math.Log1p(-rng.Float64()) / lp)
		if !(g < float64(horizon)) {
			return horizon
		}
		return 1 + int64(g)
	}
	// Next creation time of every terminal, in a heap keyed by time<<24 | terminal
	// (ties in terminal order).
	h := make(genHeap, 0, n)
	for i := range n {
		h.push(uint64(gap()-1)<<24 | uint64(i))
	}
	if n >= 1<<24 {
		return res, fmt.Errorf("uniform traffic on %s: at most %d nodes", m.Spec(), 1<<24-1)
	}
	e.gen = func(t int64) {
		for len(h) > 0 && int64(h[0]>>24) <= t {
			src := int32(h[0] & (1<<24 - 1))
			dst := int32(dests.Dest(int(src), rng))
			var tag int32
			if t >= start && t < end {
				tag = 1
				window++
			}
			e.enqueue(src, dst, tag, t)
			h.replaceTop(uint64(t+gap())<<24 | uint64(src))
		}
	}
	step := pollCycles(n)
	for t := int64(0); t < end; t += 1024 {
		if err := runPolled(ctx, e, min(t+1024, end-1), step); err != nil {
			if ctx.Err() != nil {
				return res, fmt.Errorf("uniform traffic interrupted at cycle %d: %w", e.Now(), err)
			}
			return res, err
		}
	}
	for t := end - 1; arrived < window && t < end+cfg.Drain && !cfg.AcceptedOnly; {
		recent = 0
		t = min(t+1024, end+cfg.Drain)
		if err := runPolled(ctx, e, t, step); err != nil {
			if ctx.Err() != nil {
				return res, fmt.Errorf("uniform traffic interrupted while draining: %w", err)
			}
			return res, err
		}
		// Hopeless: the measured flits still out exceed what the network delivers in
		// the drain time left (with a margin).
		left := end + cfg.Drain - t
		if float64((window-arrived)*S) > 1.5*float64(recent)/1024*float64(left)+float64(S) {
			break
		}
	}
	win := float64(cfg.Measure) * float64(n)
	res.Offered = float64(window) * float64(S) / win
	res.Accepted = float64(acceptedFlits) / win
	res.Generated = window
	res.Undelivered = window - arrived
	if arrived > 0 {
		res.MeanLatency = float64(latSum) / float64(arrived)
	}
	res.ZeroLoadLatency = e.patternZeroLoad(dests)
	return res, nil
}

// genHeap is a binary min-heap of uint64 keys.
type genHeap []uint64

func (h *genHeap) push(x uint64) {
	*h = append(*h, x)
	a := *h
	i := len(a) - 1
	for i > 0 {
		p := (i - 1) / 2
		if a[p] <= a[i] {
			break
		}
		a[p], a[i] = a[i], a[p]
		i = p
	}
}

func (h genHeap) replaceTop(x uint64) {
	h[0] = x
	i := 0
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		c := l
		if r := l + 1; r < len(h) && h[r] < h[l] {
			c = r
		}
		if h[i] <= h[c] {
			return
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
}

// pollCycles is how many cycles of an n-node network the traffic runs simulate
// between two looks at their context: about 2^18 node-cycles, a power of two, at
// most 1,024 (the step of the small networks). A cycle of the flit engine on
// 65,536 nodes costs milliseconds, and 1,024 of them between two looks kept Ctrl-C
// waiting for the command's watchdog.
func pollCycles(n int) int64 {
	c := int64(1024)
	for c > 1 && c*int64(n) > 1<<18 {
		c >>= 1
	}
	return c
}

// runPolled is e.Run(to) in pieces of step cycles, with a look at ctx before each
// (returning its cause): Run in pieces simulates the same cycles as one Run.
func runPolled(ctx context.Context, e *FlitEngine, to, step int64) error {
	for e.Now() < to {
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		if err := e.Run(min(e.Now()+step, to)); err != nil {
			return err
		}
	}
	return nil
}
