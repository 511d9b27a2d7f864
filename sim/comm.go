package sim

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/netsim"
)

// Comm makes communication decide how long jobs run (Bunde et al. 2004 §3.2): each
// job sends MessagesPerSecond messages per second of its trace run time in Pattern
// over the machine's network, shared with every other running job, and ends when
// the last of them has arrived.
type Comm struct {
	// Pattern is what every job sends, each message between two of its tasks.
	Pattern netsim.Pattern
	Params  netsim.Params // the message engine's wormhole model: message flits, router delay, flit bytes
	// MessagesPerSecond is the quota per second of trace run time (Bunde et al.:
	// 1); a job's quota is its run time times it, rounded.
	MessagesPerSecond float64
	// CycleSeconds is the length of one network cycle (one flit over one link) in
	// seconds of the trace's clock: arrivals are converted to cycles with it and
	// results back to seconds.
	CycleSeconds float64
	// Seed seeds the random pattern's choices (with each job's number).
	Seed uint64
	// Engine is the network model: EngineMessage (the zero value) runs Params on
	// netsim.Engine; EngineFlit runs Flit on netsim.FlitEngine (Params then gives
	// only FlitBytes, for hop-bytes; Flit.PacketFlits is the message length).
	Engine Engine
	Flit   netsim.FlitConfig // the flit engine's configuration, with Engine = EngineFlit
	// Router is the message engine's router, routing Config.Machine; nil:
	// netsim.NewRouter(Machine), one per run. Runs on one machine that share one
	// (the copies of a Replay do) build it, and find its distance classes (~0.4 s
	// on a dragonfly of 102,400 hosts), once; the engines only read it.
	Router netsim.Router
	// FlitNetwork is the flit engine's tables of Config.Machine (its routing and
	// ports); nil: netsim.NewFlitNetwork(Machine), one per run. Runs on one
	// machine may share one, also concurrently (the engines only read it).
	FlitNetwork *netsim.FlitNetwork
}

// DefaultCycleSeconds is the default cycle length. With the default parameters it
// makes Bunde et al.'s load factors 1 to 0.2 span light to saturated load: on the SDSC
// Paragon log of Oct-Dec 1996 on a 16x16 mesh under Hilbert Best Fit with all-to-all
// traffic, utilization is 0.25 at load factor 1, 0.54 at 0.6 and 0.89 (saturated,
// mean wait 877,000 s) at 0.2. docs/comm.md has the measurement and the alternatives.
const DefaultCycleSeconds = 0.05

// CommSummary is the network's side of a replay with communication.
type CommSummary struct {
	Pattern           string  `json:"pattern"`             // Comm.Pattern's name
	MessageFlits      int64   `json:"message_flits"`       // a message's length in flits (the flit engine's PacketFlits)
	RouterDelay       int64   `json:"router_delay_cycles"` // the message engine's router delay, cycles (0 with the flit engine)
	CycleSeconds      float64 `json:"cycle_seconds"`       // Comm.CycleSeconds
	MessagesPerSecond float64 `json:"messages_per_second"` // Comm.MessagesPerSecond
	// Seed is Comm.Seed (--comm-seed): the random pattern's and random task
	// order's draws, and the flit engine's torus ties, depend on it.
	Seed     uint64 `json:"seed"`
	Messages int64  `json:"messages"` // messages delivered over the replay
	// MeanLatency is the mean time in cycles from a message's queueing at its source
	// to its tail's arrival.
	MeanLatency float64 `json:"mean_latency_cycles"`
	// MaxLinkMessages is the most messages any one link carried over the replay.
	MaxLinkMessages int64 `json:"max_link_messages"`
	// MaxLinkLoad is MaxLinkMessages x S flits over the replay's length in cycles:
	// the busiest link's utilisation.
	MaxLinkLoad float64 `json:"max_link_load"`
	// RunTimeFraction is the jobs' simulated node-seconds (procs x (end - start))
	// over their trace node-seconds (procs x trace run time): how much of the
	// trace's load the network replay kept. --msgs-per-second x --cycle-seconds
	// sets it (docs/comm.md, "The cycle length"); 0 when the jobs have no run time.
	RunTimeFraction float64 `json:"run_time_fraction"`
	// DistanceClasses is the message engine's distance classes per
	// router-to-router link (netsim.Engine.DistanceClasses), on a graph whose routes
	// could wait in a cycle; 0 (absent) elsewhere and with the flit engine.
	DistanceClasses int `json:"distance_classes,omitempty"`
	// Engine is "flit" with the flit engine, whose configuration Flit gives
	// (RouterDelay is then 0); both are absent with the message engine.
	Engine string       `json:"engine,omitempty"`
	Flit   *FlitSummary `json:"flit,omitempty"` // the flit engine's configuration; nil with the message engine
}

// NearlyIdleFraction is the CommSummary.RunTimeFraction below which a replay's
// machine is nearly idle next to the trace's (CommSummary.NearlyIdle). At the
// defaults (one message a second of run time, 0.05 s cycles) a job alone runs 0.87
// to 4.61 cycles a message by pattern (docs/comm.md), 4 % to 23 % of its trace run
// time, and contention only lengthens that: below 1 % the rate or the cycle was
// lowered at least fourfold from there.
const NearlyIdleFraction = 0.01

// NearlyIdle says why a replay's load is far below its trace's, "" when it is not
// (RunTimeFraction at or above NearlyIdleFraction, or 0: no run time to compare).
// utilization is the replay's Summary.Utilization. A user who lowered
// --msgs-per-second alone saw a machine at 0.17 % utilization and mean slowdowns
// below 1 (run times under the slowdown's bound), and nothing said so.
func (c *CommSummary) NearlyIdle(utilization float64) string {
	if c == nil || c.RunTimeFraction <= 0 || c.RunTimeFraction >= NearlyIdleFraction {
		return ""
	}
	return fmt.Sprintf("the network ran the jobs in %.3g %% of their trace node-seconds (--msgs-per-second %g x --cycle-seconds %g sets it): the machine is nearly idle (utilization %.3g %%), far below the trace's load, and slowdowns may fall below 1; raise --cycle-seconds (docs/comm.md, \"The cycle length\"; examples/demo-sweep.yaml pairs --msgs-per-second 0.01 with --cycle-seconds 10)",
		100*c.RunTimeFraction, c.MessagesPerSecond, c.CycleSeconds, 100*utilization)
}

// FlitSummary is the flit engine's configuration in a replay's summary.
type FlitSummary struct {
	VCs              int   `json:"vcs"`                   // virtual channels per port (netsim.FlitConfig.VCs)
	VCBuffer         int   `json:"vc_buffer_flits"`       // depth of each VC's input buffer, flits
	RoutingDelay     int   `json:"routing_delay"`         // cycles of the routing stage
	VCAllocDelay     int   `json:"vc_alloc_delay"`        // cycles of VC allocation
	SwitchAllocDelay int   `json:"sw_alloc_delay"`        // cycles of switch allocation
	SwitchDelay      int   `json:"st_delay"`              // cycles of switch traversal
	LinkDelay        int   `json:"link_delay"`            // cycles of a router-to-router link
	HopClasses       bool  `json:"hop_classes,omitempty"` // VC chosen by hop count on graphs (netsim.FlitConfig.HopClasses)
	FlitHops         int64 `json:"flit_hops"`             // router-to-router links crossed by all flits of the replay
}

// DeadlockError is a communication replay stopped by a deadlock of the flit engine
// (Err, wrapping netsim.ErrDeadlock, names the cycle of waiting virtual channels),
// with the ways out. WayOut names the fields that give them as {Field}: Comm's and
// Spec's, which have the same names (Engine, Flit.HopClasses, Flit.VCs). Error
// writes them by their names, or as Name calls them when it is set (a command's
// flags: the library names its fields, a command its flags, as in
// plan.UnknownHostsError and FieldError.Named).
type DeadlockError struct {
	Err    error                     // the engine's error, wrapping netsim.ErrDeadlock
	WayOut string                    // the ways out, fields written {Field}
	Name   func(field string) string // nil: the fields' own names
}

// Error is Err and the ways out.
func (e *DeadlockError) Error() string {
	return e.Err.Error() + "; " + nameFields(e.WayOut, e.Name)
}

// Unwrap returns Err: errors.Is(err, netsim.ErrDeadlock) holds.
func (e *DeadlockError) Unwrap() error { return e.Err }

// deadlockWayOut says how to replay without the deadlock just met: shortest paths
// on a graph or minimal routes on a dragonfly can wait for each other in a cycle
// under load over the flit engine's virtual channels; distance classes cannot,
// the message engine's (on by itself wherever the routing could deadlock) and the
// flit engine's hop classes (docs/comm.md, "Deadlock"). The fields are named as
// {Field} (DeadlockError).
func (c *Comm) deadlockWayOut() string {
	const message = "the message engine ({Engine} message, the default), which gives a graph's or dragonfly's links distance classes and cannot deadlock"
	const route = "at least the longest route in router-to-router links (3 on a dragonfly)"
	switch {
	case c.Engine == EngineFlit && !c.Flit.HopClasses:
		return "this routing's virtual channels can wait in a cycle; distance classes cannot: use " + message + ", or keep the flit engine with {Flit.HopClasses} and {Flit.VCs} " + route
	case c.Engine == EngineFlit:
		return "with {Flit.HopClasses}, raise {Flit.VCs} to " + route + ", or use " + message
	}
	return "the message engine's distance classes should rule this out (docs/comm.md, \"Deadlock\"); please report it with the command that met it"
}

// The ranges Comm accepts: beyond them a job's message count or a time in cycles
// leaves int64.
const (
	MaxMessagesPerSecond = 1e6
	MinCycleSeconds      = 1e-9
	MaxCycleSeconds      = 1e6
)

func (c *Comm) validate() error {
	if c.Pattern == nil {
		return fmt.Errorf("communication: no pattern")
	}
	if err := c.Params.Validate(); err != nil {
		return fmt.Errorf("communication: %w", err)
	}
	switch c.Engine {
	case EngineMessage:
	case EngineFlit:
		if err := c.Flit.Validate(); err != nil {
			return fmt.Errorf("communication: %w", err)
		}
	default:
		return fmt.Errorf("communication: engine %q: want %s", c.Engine, Choices(engines))
	}
	if !(c.MessagesPerSecond > 0) || c.MessagesPerSecond > MaxMessagesPerSecond {
		return fmt.Errorf("communication: %v messages per second: must be positive and at most %g", c.MessagesPerSecond, MaxMessagesPerSecond)
	}
	if !(c.CycleSeconds >= MinCycleSeconds && c.CycleSeconds <= MaxCycleSeconds) {
		return fmt.Errorf("communication: cycle of %v s: must be between %g and %g seconds", c.CycleSeconds, MinCycleSeconds, MaxCycleSeconds)
	}
	return nil
}

// commChunk is how many cycles runComm lets a busy network run between looks at
// the context: some milliseconds of the flit engine on a fully loaded 16x16 mesh.
const commChunk = 1 << 8

// runComm is Run with communication: job ends come from the network model. The
// event order is Run's: at each time, departures (jobs whose last message arrived in
// that cycle), then arrivals, then the scheduler starts what it can. Times inside
// are cycles; results are converted back to seconds (rounded to the nearest second,
// the trace's resolution); Runtime stays the trace's, End - Start is the simulated
// run time.
func runComm(ctx context.Context, res []JobResult, cfg Config, sch scheduler, pl *placer, m *meter, rm *routeMeter, tasks *taskOrdering) (*Result, error) {
	c := cfg.Comm
	if err := c.validate(); err != nil {
		return nil, err
	}
	toCycles := func(s int64) (int64, error) {
		v := math.Round(float64(s) / c.CycleSeconds)
		if v > 1<<60 || v < -(1<<60) {
			return 0, fmt.Errorf("communication: time %d s is %g cycles of %g s, too many", s, v, c.CycleSeconds)
		}
		return int64(v), nil
	}
	quota := make([]int64, len(res))
	for i := range res {
		r := &res[i]
		q := math.Round(float64(r.Runtime) * c.MessagesPerSecond)
		if q > 1<<40 {
			return nil, fmt.Errorf("job %d (line %d): %g messages is too many", r.ID, r.Line, q)
		}
		quota[i] = int64(q)
		var err error
		if r.Arrival, err = toCycles(r.Arrival); err != nil {
			return nil, err
		}
		if r.EstimateUsed, err = toCycles(r.EstimateUsed); err != nil {
			return nil, err
		}
	}
	finished := []int{}
	tagJob := map[int]int{}
	var latency int64
	msgFlits := c.Params.MessageFlits
	if c.Engine == EngineFlit {
		msgFlits = int64(c.Flit.PacketFlits)
	}
	jobDone := func(tag int, st netsim.JobStats) {
		i := tagJob[tag]
		delete(tagJob, tag)
		r := &res[i]
		r.End = st.End
		r.Messages = st.Messages
		r.MessageHops = st.Hops
		r.HopBytes = st.Hops * msgFlits * c.Params.FlitBytes
		if st.Messages > 0 {
			r.MessageDistance = float64(st.Hops) / float64(st.Messages)
		}
		latency += st.Latency
		finished = append(finished, i)
	}
	var wl *netsim.Workload
	var err error
	if c.Engine == EngineFlit {
		if c.FlitNetwork == nil {
			wl, err = netsim.NewFlitWorkload(cfg.Machine, c.Flit, c.Pattern, c.Seed, jobDone)
		} else if c.FlitNetwork.Machine() != cfg.Machine {
			return nil, fmt.Errorf("communication: the flit engine's tables are those of %s, the machine is %s", c.FlitNetwork.Machine().Spec(), cfg.Machine.Spec())
		} else {
			wl, err = netsim.NewFlitWorkloadOn(c.FlitNetwork, c.Flit, c.Pattern, c.Seed, jobDone)
		}
	} else {
		router := c.Router
		if router == nil {
			if router, err = netsim.NewRouterContext(ctx, cfg.Machine); err != nil {
				return nil, err
			}
		} else if router.Endpoints() != cfg.Machine.N() {
			return nil, fmt.Errorf("communication: router %s has %d endpoints, the machine %s %d nodes", router.Spec(), router.Endpoints(), cfg.Machine.Spec(), cfg.Machine.N())
		}
		wl, err = netsim.NewWorkloadContext(ctx, router, c.Params, c.Pattern, c.Seed, jobDone)
	}
	if err != nil {
		return nil, err
	}
	eng := wl.Network()
	em := newJobEmitter(&jobTable{recs: res}, len(res), cfg, nil, true) // times are in cycles until the end
	ties := tieReporter(cfg)
	running := &runSet{}
	next, done := 0, 0 // next arrival (res is in arrival order), jobs finished
	start := int64(0)
	if len(res) > 0 {
		start = res[0].Arrival
	}
	if err := eng.Run(start); err != nil {
		return nil, err
	}
	summary := func(k int, last int64) (*Result, error) {
		return commSummary(res, k, res[0].Arrival, last, cfg, em, ties, wl, msgFlits, latency)
	}
	// An interrupt reports the jobs finished in trace order before the first one
	// still queued or running (prefix of them), as Run does, with the network's
	// figures up to the stop.
	fin, prefix := make([]bool, len(res)), 0
	stopped := func() (*Result, error) {
		cause := context.Cause(ctx)
		if prefix == 0 {
			return nil, cause
		}
		out, err := summary(prefix, eng.Now())
		if err != nil {
			return nil, err
		}
		out.Interrupted, out.JobsInTrace = true, len(res)
		return out, cause
	}
	for done < len(res) {
		if ctx.Err() != nil {
			return stopped()
		}
		if len(finished) == 0 {
			limit := int64(math.MaxInt64)
			if next < len(res) {
				limit = res[next].Arrival
			}
			if len(tagJob) == 0 && limit == math.MaxInt64 {
				return nil, fmt.Errorf("sim: internal error: %d jobs queued with nothing running", len(res)-done)
			}
			// In chunks, so that Ctrl-C is seen within a second on the flit engine
			// too; Run in pieces simulates the same cycles as one Run.
			for {
				to := limit
				if len(tagJob) > 0 { // jobs are sending (else the network is idle)
					to = min(limit, eng.Now()+commChunk)
				}
				if err := eng.Run(to); err != nil {
					if errors.Is(err, netsim.ErrDeadlock) { // it names the cycle
						return nil, &DeadlockError{Err: err, WayOut: c.deadlockWayOut()}
					}
					return nil, fmt.Errorf("at cycle %d: %w", eng.Now(), err)
				}
				if len(finished) > 0 || eng.Now() >= limit {
					break
				}
				if ctx.Err() != nil {
					return stopped()
				}
			}
		}
		now := eng.Now()
		for _, i := range finished {
			r := &res[i]
			if err := m.release(r.Nodes); err != nil {
				return nil, err
			}
			if err := cfg.Clock.Release(cfg.Alloc, r.Nodes); err != nil {
				return nil, fmt.Errorf("job %d finishing at cycle %d: %w", r.ID, now, err)
			}
			if err := em.finished(i); err != nil {
				return nil, err
			}
			for fin[i] = true; prefix < len(fin) && fin[prefix]; prefix++ {
			}
			pl.released()
			running.remove(i)
			sch.depart(now, cfg.Alloc.NumFree(), running)
			done++
		}
		finished = finished[:0]
		for next < len(res) && res[next].Arrival == now {
			sch.arrive(next, now, cfg.Alloc.NumFree(), running)
			next++
		}
		pl.now = now
		for {
			i, nodes, err := sch.next(now, cfg.Alloc.NumFree(), running, pl)
			if err != nil {
				if ctx.Err() != nil { // the allocator stopped on it
					return stopped()
				}
				return nil, fmt.Errorf("%w at cycle %d", err, now)
			}
			if i < 0 {
				break
			}
			r := &res[i]
			if err := startJob(ctx, r, nodes, cfg, ties, m, rm, tasks); err != nil {
				if ctx.Err() != nil { // the route metrics or the exact baseline stopped on it
					return stopped()
				}
				return nil, fmt.Errorf("%w at cycle %d", err, now)
			}
			r.Start = now
			running.add(i, r.Start+r.EstimateUsed, r.Procs)
			if quota[i] == 0 {
				// Nothing to send: it ends now, and leaves at this time stamp's
				// next round of departures, as in Run. Its message figures are
				// those of the messages sent, none (startJob measured one static
				// cycle of the pattern; MaxShared, a property of the placement,
				// stays).
				r.End = now
				r.Messages, r.MessageHops, r.HopBytes, r.MessageDistance = 0, 0, 0, 0
				finished = append(finished, i)
				continue
			}
			tag, err := wl.Start(r.ID, r.Nodes, quota[i])
			if err != nil {
				return nil, err
			}
			tagJob[tag] = i
		}
		if cfg.Progress != nil && done&255 == 0 {
			cfg.Progress(done, len(res))
		}
	}
	if cfg.Progress != nil {
		cfg.Progress(done, len(res))
	}
	if cfg.Alloc.NumFree() != cfg.Machine.N() {
		return nil, fmt.Errorf("sim: internal error: %d of %d nodes free after the replay", cfg.Alloc.NumFree(), cfg.Machine.N())
	}
	last := int64(0)
	for i := range res {
		last = max(last, res[i].End)
	}
	return summary(len(res), last)
}

// commSummary is the end of runComm: the summary of its first k jobs (all of
// them, or those replayed before an interrupt), their times converted to seconds
// and passed on to em, with the network's figures up to cycle last (the end of
// the last job, or the stop).
func commSummary(res []JobResult, k int, first, last int64, cfg Config, em *jobEmitter, ties alloc.TieReporter, wl *netsim.Workload, msgFlits, latency int64) (*Result, error) {
	c := cfg.Comm
	toSeconds := func(t int64) int64 { return int64(math.Round(float64(t) * c.CycleSeconds)) }
	// The simulated work in cycles, before the times are rounded to seconds (a
	// run of a few cycles rounds to 0 s).
	var simWork, traceWork float64
	for i := range res[:k] {
		r := &res[i]
		simWork += float64(r.Procs) * float64(r.End-r.Start) * c.CycleSeconds
		traceWork += float64(r.Procs) * float64(r.Runtime)
	}
	for i := range res[:k] {
		r := &res[i]
		r.Arrival, r.Start, r.End = toSeconds(r.Arrival), toSeconds(r.Start), toSeconds(r.End)
		r.EstimateUsed = toSeconds(r.EstimateUsed)
		r.BlockWait = toSeconds(r.BlockWait)
	}
	em.total = k
	if err := em.flush(); err != nil {
		return nil, err
	}
	out := summarize(res[:k], cfg, ties)
	st := wl.Stats()
	cs := &CommSummary{Pattern: c.Pattern.Name(), MessageFlits: msgFlits, RouterDelay: c.Params.RouterDelay,
		CycleSeconds: c.CycleSeconds, MessagesPerSecond: c.MessagesPerSecond, Seed: c.Seed, Messages: st.Delivered, MaxLinkMessages: st.MaxLinkMessages}
	if st.Delivered > 0 {
		cs.MeanLatency = float64(latency) / float64(st.Delivered)
	}
	if traceWork > 0 {
		cs.RunTimeFraction = simWork / traceWork
	}
	if last > first {
		cs.MaxLinkLoad = float64(st.MaxLinkMessages*msgFlits) / float64(last-first)
	}
	if e := wl.Engine(); e != nil {
		cs.DistanceClasses = e.DistanceClasses()
	}
	if f := wl.Flit(); f != nil {
		fc := f.Config()
		cs.RouterDelay, cs.Engine = 0, string(EngineFlit)
		cs.Flit = &FlitSummary{VCs: fc.VCs, VCBuffer: fc.VCBuffer, RoutingDelay: fc.RoutingDelay, VCAllocDelay: fc.VCAllocDelay,
			SwitchAllocDelay: fc.SwitchAllocDelay, SwitchDelay: fc.SwitchDelay, LinkDelay: fc.LinkDelay, HopClasses: fc.HopClasses, FlitHops: f.Stats().FlitHops}
	}
	out.Comm = cs
	return out, nil
}
