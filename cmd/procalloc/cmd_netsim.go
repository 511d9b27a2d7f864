package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/procalloc/procalloc/internal/textin"
	"github.com/procalloc/procalloc/netsim"
	"github.com/procalloc/procalloc/sim/sweep"
	"github.com/procalloc/procalloc/topo"
)

// netsimPoint is one offered load of "procalloc netsim" (JSON keys of the issue:
// offered, accepted, mean_latency).
type netsimPoint struct {
	Rate float64 `json:"rate"`
	netsim.TrafficResult
	Saturated bool `json:"saturated"`
}

// netsimOutput is the JSON of "procalloc netsim".
type netsimOutput struct {
	Machine      string `json:"machine"`
	Traffic      string `json:"traffic"`
	Engine       string `json:"engine"`
	MessageFlits int64  `json:"message_flits"`
	RouterDelay  int64  `json:"router_delay_cycles,omitempty"`
	// Flit is the flit engine's configuration (absent with --engine message).
	Flit           *netsimFlitJSON `json:"flit,omitempty"`
	BisectionBound float64         `json:"bisection_bound"`
	// SaturationOffered is the lowest offered load that saturated the network (null
	// when none did); MaxAccepted the most it accepted at any load.
	SaturationOffered *float64 `json:"saturation_offered"`
	// Notes say which parameters have no BookSim2 reference (FlitConfig.Unreferenced).
	Notes       []string      `json:"notes,omitempty"`
	MaxAccepted float64       `json:"max_accepted"`
	Points      []netsimPoint `json:"points"`
}

// netsimFlitJSON is the flit engine's configuration in netsim's JSON.
type netsimFlitJSON struct {
	VCs              int  `json:"vcs"`
	VCBuffer         int  `json:"vc_buffer"`
	RoutingDelay     int  `json:"routing_delay"`
	VCAllocDelay     int  `json:"vc_alloc_delay"`
	SwitchAllocDelay int  `json:"sw_alloc_delay"`
	SwitchDelay      int  `json:"st_delay"`
	LinkDelay        int  `json:"link_delay"`
	HopClasses       bool `json:"hop_classes,omitempty"`
}

// flitJSON is a flit engine's configuration as netsim and batch print it.
func flitJSON(fc netsim.FlitConfig) *netsimFlitJSON {
	return &netsimFlitJSON{VCs: fc.VCs, VCBuffer: fc.VCBuffer, RoutingDelay: fc.RoutingDelay, VCAllocDelay: fc.VCAllocDelay,
		SwitchAllocDelay: fc.SwitchAllocDelay, SwitchDelay: fc.SwitchDelay, LinkDelay: fc.LinkDelay, HopClasses: fc.HopClasses}
}

// parseRates reads "R", "R1,R2,..." or "FROM:TO:STEP".
func parseRates(s string) ([]float64, error) {
	if from, rest, ok := strings.Cut(s, ":"); ok {
		to, step, ok := strings.Cut(rest, ":")
		if !ok {
			return nil, fmt.Errorf("--rate %q: a range is FROM:TO:STEP", s)
		}
		var v [3]float64
		for i, f := range []string{from, to, step} {
			x, ok := parseFinite(strings.TrimSpace(f))
			if !ok {
				return nil, fmt.Errorf("--rate %q: %q is not a number", s, f)
			}
			v[i] = x
		}
		steps := (v[1] - v[0]) / v[2]
		if v[2] <= 0 || v[1] < v[0] || !(steps <= 1000) {
			return nil, fmt.Errorf("--rate %q: need FROM <= TO and a positive STEP giving at most 1000 rates", s)
		}
		// The rates are counted, not stepped to TO: a STEP below FROM's precision
		// (1e300:1e300:1) never moved x past TO and the loop ran until memory ran out.
		n := int(math.Floor(steps+1e-9)) + 1
		out := make([]float64, n)
		for i := range out {
			x := v[0] + float64(i)*v[2]
			if r := math.Round(x*1e9) / 1e9; !math.IsInf(r, 0) {
				x = r // 0.30000000000000004 as 0.3
			}
			out[i] = x
		}
		return out, nil
	}
	return parseList("--rate", s, parseFinite, "a number")
}

func init() {
	register(&command{
		name:    "netsim",
		summary: "measure the network model: latency and accepted load against offered load (synthetic traffic)",
		usage:   "netsim --machine SPEC --traffic uniform --rate R|R1,R2,...|FROM:TO:STEP [--engine flit|message] [--vcs V] [--vc-buffer B] [--msg-flits S] [--router-delay D] [--json]",
		details: `Runs a network model (package netsim, docs/comm.md) on synthetic traffic:
every node generates messages of S flits at random times (a Bernoulli process),
--rate flits per cycle on average, a fraction of one link's bandwidth (one flit per
cycle), each to the node --traffic gives. The patterns are BookSim2's (traffic.cpp),
nodes numbered with x fastest: uniform (a random node, the source included on the
flit engine, another node on the message engine), transpose ((x,y) -> (y,x): the
high and low halves of the node number's bits swapped; an even power of two nodes),
bitcomp, bitrev and shuffle (every bit complemented, the bits reversed, rotated left
by one; a power of two nodes), tornado and neighbor (every coordinate c of a k-node
dimension to c + ceil(k/2) - 1, or c + 1, mod k; meshes and tori), randperm[:SEED] (a
random permutation, by default seeded by --seed; not BookSim2's permutation for the
same seed), hotspot:NODES[:WEIGHTS] (one of the listed nodes, each with probability
proportional to its weight, e.g. hotspot:0,63:3,1; BookSim2's hotspot({0,63},{3,1})).
A pattern a machine cannot take is an error (e.g. bitrev on 48 nodes).

--engine flit (the default) is the flit-level model of BookSim2's input-queued
router: --vcs virtual channels per port, each with a --vc-buffer flit buffer,
credit-based flow control, routing, VC allocation, switch allocation and switch
traversal of one cycle each (--routing-delay, --vc-alloc-delay, --sw-alloc-delay,
--st-delay), one-iteration iSLIP allocators, links of --link-delay cycles (default
BookSim2's: 1 on meshes and graphs, 2 on tori). Routes are dimension-ordered on
meshes; on tori the shorter way round (a tie at random, seeded) with the virtual
channels split into two dateline classes (a torus needs --vcs of at least 2; an
odd number overlaps the classes in one VC, as BookSim2 does); shortest paths on graphs, every VC usable at every hop (a dragonfly or a ring
can then deadlock, which stops the run with the cycle of waiting VCs named) unless
--hop-classes gives the h-th link of a route VC h only. Uniform traffic includes a node sending to itself,
and each node queues its packets without bound, as in BookSim2. It is the default
because it reproduces BookSim2: saturation within 1.5% of BookSim2's on meshes 8x8
and 16x16 with 1 to 8 virtual channels and on the 8x8 torus with 8-flit buffers
(within 4.4% with 32-flit buffers), within 1% on every pattern but randperm (whose
permutation is not BookSim2's) and hotspot (3.2% on the torus), a lone packet's latency equal to BookSim2's for every
stage delay BookSim2 runs (docs/comm.md, "The flit engine against BookSim2"), where the message engine
was 7-20% low on saturation and 40-50% low on zero-load latency.

--engine message is the message-level wormhole model that "sim --comm" uses: a
message holds its whole path, no buffers; a node sends one message at a time, to a
random other node; routes are dimension-ordered, ties in the positive direction, with
dateline virtual channels on tori, and distance classes on graphs and dragonflies
whose routes could wait in a cycle (docs/comm.md, "Deadlock"). It is faster and is what
"sim --comm", "compare" and "batch" still run.

For each rate: offered (flits generated per node per cycle in the measured window),
accepted (flits delivered per node per cycle in the window), mean_latency (cycles
from generation to the tail's arrival, source queueing included, of the window's
messages), zero-load latency, and whether the network saturated (accepted below 95%
of offered, or messages still undelivered long after). The bisection bound is the
most uniform traffic the channel bisection can carry (Dally and Towles 2004
§3.3.1): the narrowest cut halving one axis, 4/k per node across an axis of k nodes,
8/k if that axis wraps, the least over the axes (4/k on a k x k mesh; 1/3 on
mesh:16x12:wrap=x). With several rates the output also gives the first saturated
rate ("none", JSON null, when no rate saturated) and the most accepted. Ctrl-C
writes the rates finished so far and exits with status 130.`,
		example: `procalloc netsim --machine mesh:8x8 --traffic uniform --rate 0.2 --json
procalloc netsim --machine mesh:8x8 --traffic uniform --rate 0.3,0.4,0.5,0.6 --engine flit --vcs 8 --vc-buffer 8 --json
procalloc netsim --machine torus:8x8 --traffic uniform --rate 0.5 --vcs 4
procalloc netsim --machine mesh:8x8 --traffic transpose --rate 0.1:0.5:0.1 --vcs 2
procalloc netsim --machine torus:8x8 --traffic tornado --rate 0.3 --vcs 2
procalloc netsim --machine mesh:8x8 --traffic hotspot:0,63:3,1 --rate 0.01
procalloc netsim --machine mesh:16x16 --traffic uniform --rate 0.1 --engine message
procalloc netsim --machine dragonfly:hosts_per_router=2,routers_per_group=4,intergroup_links=1,num_groups=5 --rate 0.3 --vcs 5 --hop-classes
procalloc netsim --machine mesh:16x16 --traffic uniform --rate 0.02:0.4:0.02
procalloc netsim --machine torus:8x8 --traffic uniform --rate 0.1,0.5,0.9 --msg-flits 16
procalloc netsim --machine fattree:4,4:4,4:8 --traffic uniform --rate 0.05:0.5:0.05
procalloc netsim --machine mesh:8x8 --rate 0.3 --engine flit --routing-delay 0 --vc-alloc-delay 1 --sw-alloc-delay 1 --st-delay 1 --link-delay 2
procalloc netsim --machine mesh:8x8 --rate 0.2 --engine message --router-delay 2 --warmup 5000 --measure 20000 --seed 7 -o mesh8.txt`,
		flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
			machine := fs.String("machine", "", "machine `SPEC`, e.g. mesh:8x8, torus:8x8, fattree:4,4:8 (switches route, hosts send)")
			traffic := fs.String("traffic", "uniform", "traffic `PATTERN`, BookSim2's: uniform, transpose, bitcomp, bitrev, shuffle, tornado, neighbor, randperm[:SEED], hotspot:NODES[:WEIGHTS]")
			rate := fs.String("rate", "", "offered load per node, flits per cycle (a fraction of one link's bandwidth): `R`, a list R1,R2 or a range FROM:TO:STEP")
			d := netsim.DefaultParams()
			flits := fs.Int64("msg-flits", d.MessageFlits, "message length in flits")
			delay := fs.Int64("router-delay", d.RouterDelay, "message engine: cycles a message header takes per hop")
			engine := fs.String("engine", "flit", "network model `ENGINE`: flit (BookSim2's virtual-channel router, the default) or message (message-level wormhole)")
			vcs := fs.Int("vcs", 1, "flit engine: virtual channels per port `V` (default 1 on meshes and graphs, 2 on tori; a torus needs at least 2, an odd number overlapping its two dateline classes in one VC as BookSim2 does)")
			vcBuf := fs.Int("vc-buffer", 8, "flit engine: buffer per virtual channel in flits `B`, 1 or more (below the credit round trip, 5 flits with the default delays on a mesh, 7 on a torus, a lone packet cannot stream one flit per cycle)")
			rtDelay := fs.Int("routing-delay", 1, "flit engine: routing stage, cycles (0: lookahead routing, as BookSim2's routing_delay = 0)")
			vaDelay := fs.Int("vc-alloc-delay", 1, "flit engine: virtual-channel allocation stage, cycles (above 1: no BookSim2 reference, it asserts on them; the output notes it)")
			saDelay := fs.Int("sw-alloc-delay", 1, "flit engine: switch allocation stage, cycles (above 1: no BookSim2 reference, as for --vc-alloc-delay)")
			stDelay := fs.Int("st-delay", 1, "flit engine: switch traversal stage, cycles")
			hopClasses := fs.Bool("hop-classes", false, "flit engine, graphs: a packet's h-th link uses VC min(h, V-1) only, which rules out deadlock when --vcs is at least the longest route in links (else every VC is usable at every hop, as in BookSim2, and shortest paths on a dragonfly or ring can deadlock)")
			linkDelay := fs.Int("link-delay", 0, "flit engine: router-to-router link latency in cycles (0: BookSim2's, 1 on meshes and graphs, 2 on tori)")
			warmup := fs.Int64("warmup", 10000, "cycles before measuring")
			measure := fs.Int64("measure", 50000, "cycles measured")
			seed := fs.Uint64("seed", 1, "random seed")
			asJSON := fs.Bool("json", false, "print JSON")
			out := fs.String("o", "", "write the result to `FILE` instead of stdout")
			return func(ctx context.Context, e *env, args []string) error {
				if len(args) > 0 {
					return usagef("unexpected arguments %q", args)
				}
				if *machine == "" {
					return usagef("--machine SPEC is required, e.g. --machine mesh:8x8")
				}
				pattern, err := netsim.ParseSynthetic(*traffic)
				if err != nil {
					return usageError{"--traffic: " + err.Error()}
				}
				if *rate == "" {
					return usagef("--rate is required, e.g. --rate 0.1 or --rate 0.05:0.5:0.05")
				}
				rates, err := parseRates(*rate)
				if err != nil {
					return usageError{err.Error()}
				}
				for _, r := range rates {
					if !(r > 0 && r <= 1) {
						return usagef("--rate %v: must be in (0, 1] flits per cycle per node", r)
					}
				}
				if err := refuseRepeats("--rate", *rate, "rates", rates); err != nil {
					return err
				}
				p := netsim.Params{MessageFlits: *flits, RouterDelay: *delay, FlitBytes: 1}
				if err := p.Validate(); err != nil {
					return usageError{err.Error()}
				}
				set := map[string]bool{}
				fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
				switch *engine {
				case "flit":
					if set["router-delay"] {
						return usagef("--router-delay is the message engine's; the flit engine's stages are --routing-delay, --vc-alloc-delay, --sw-alloc-delay, --st-delay and --link-delay")
					}
				case "message":
					for _, f := range sweep.FlitFlags() { // the flags only the flit engine reads
						if set[f] {
							return usagef("--%s is the flit engine's (--engine flit)", f)
						}
					}
				default:
					return usagef("--engine %q: flit or message%s", *engine, textin.DidYouMean(*engine, []string{"flit", "message"}))
				}
				if *warmup < 0 || *warmup > 1e8 {
					return usagef("--warmup %d: must be 0..1e8 cycles", *warmup)
				}
				if *measure < 1 || *measure > 1e8 {
					return usagef("--measure %d: must be 1..1e8 cycles", *measure)
				}
				// The limit goes to the parser: a larger fat tree is refused before
				// it is built (a million hosts took 326 MB and a second).
				m, err := topo.ParseMachineContext(ctx, *machine, 1<<16)
				if err != nil && ctx.Err() != nil {
					return context.Cause(ctx)
				}
				if tl := (*topo.TooLargeError)(nil); errors.As(err, &tl) {
					return usagef("--machine %s: synthetic traffic needs 2 to 65536 nodes; it has %d", *machine, tl.Nodes)
				}
				if err == nil && m.N() < 2 {
					return usagef("--machine %s: synthetic traffic needs 2 to 65536 nodes; it has 1", *machine)
				}
				if err != nil {
					return usagef("--machine: %v", err)
				}
				if _, err := pattern.Bind(m, m.N(), *seed); err != nil {
					return usageError{"--traffic: " + err.Error()}
				}
				var r netsim.Router
				var fc netsim.FlitConfig
				o := netsimOutput{Machine: m.Spec(), Traffic: pattern.String(), Engine: *engine, MessageFlits: p.MessageFlits}
				if *engine == "message" {
					if r, err = netsim.NewRouterContext(ctx, m); err != nil {
						return err
					}
					o.RouterDelay = p.RouterDelay
				} else {
					fc = netsim.DefaultFlitConfig(m)
					if set["vcs"] {
						fc.VCs = *vcs
					}
					fc.VCBuffer, fc.PacketFlits = *vcBuf, int(p.MessageFlits)
					fc.RoutingDelay, fc.VCAllocDelay, fc.SwitchAllocDelay, fc.SwitchDelay = *rtDelay, *vaDelay, *saDelay, *stDelay
					if *linkDelay != 0 {
						fc.LinkDelay = *linkDelay
					}
					fc.Seed = *seed
					fc.HopClasses = *hopClasses
					if err := fc.Validate(); err != nil {
						return usageError{err.Error()}
					}
					if err := fc.CheckMachine(m); err != nil {
						return usageError{"--vcs: " + err.Error()}
					}
					o.Flit = flitJSON(fc)
					o.Notes = fc.Unreferenced(m)
				}
				if g, ok := m.(*topo.Grid); ok && pattern.Kind == netsim.Uniform {
					o.BisectionBound = netsim.BisectionBound(g.Dims(), g.Wrap())
				}
				prog := newProgress(e, "netsim", int64(len(rates)))
				var interrupted error
				for i, rt := range rates {
					prog.Update(int64(i), fmt.Sprintf("rate %g", rt))
					tc := netsim.TrafficConfig{Rate: rt, Warmup: *warmup, Measure: *measure, Seed: *seed, Pattern: pattern}
					var res netsim.TrafficResult
					if *engine == "message" {
						res, err = netsim.UniformTraffic(ctx, r, p, tc)
					} else {
						res, err = netsim.FlitUniformTraffic(ctx, m, fc, tc)
					}
					if err != nil {
						if ctx.Err() != nil && len(o.Points) > 0 {
							// Interrupted: the rates finished so far are written (exit 130).
							interrupted = err
							break
						}
						prog.Done()
						return err
					}
					pt := netsimPoint{Rate: rt, TrafficResult: res, Saturated: res.Saturated()}
					o.Points = append(o.Points, pt)
					if pt.Saturated && o.SaturationOffered == nil {
						off := res.Offered
						o.SaturationOffered = &off
					}
					o.MaxAccepted = max(o.MaxAccepted, res.Accepted)
				}
				prog.Done()
				if len(o.Points) > 0 {
					// The window's packets get Measure cycles (times the drain factor)
					// to arrive; shorter than a lone packet's latency, they cannot, and
					// "saturated" then says nothing about the network.
					if zl := o.Points[0].ZeroLoadLatency; float64(*measure) < 2*zl {
						fmt.Fprintf(e.stderr, "procalloc netsim: warning: --measure %d cycles is less than twice the zero-load latency (%.1f cycles): the window's packets have little or no time to arrive, so \"saturated\" and the latency say little; measure longer\n", *measure, zl)
					}
				}
				if err := writeNetsim(e, *out, *asJSON, len(rates) == 1, o); err != nil {
					return err
				}
				if interrupted != nil {
					return fmt.Errorf("the rates finished so far were written; stopped: %w", interrupted)
				}
				return nil
			}
		},
	})
}

// writeNetsim writes netsim's result: JSON (one rate asked: the point's keys at the
// top level), or the table with the saturation line.
func writeNetsim(e *env, out string, asJSON, single bool, o netsimOutput) error {
	return writeFileAtomic(e, out, func(w io.Writer) error {
		if asJSON {
			if single && len(o.Points) == 1 {
				// One rate: the point's keys at the top level.
				return writeJSON(w, struct {
					netsimPoint
					Machine        string          `json:"machine"`
					BisectionBound float64         `json:"bisection_bound"`
					Engine         string          `json:"engine"`
					Flit           *netsimFlitJSON `json:"flit,omitempty"`
					Traffic        string          `json:"traffic"`
					Notes          []string        `json:"notes,omitempty"`
				}{o.Points[0], o.Machine, o.BisectionBound, o.Engine, o.Flit, o.Traffic, o.Notes})
			}
			return writeJSON(w, o)
		}
		if f := o.Flit; f != nil {
			fmt.Fprintf(w, "%s, %s traffic, flit engine: %d-flit packets, %d VCs x %d flits, stages %d/%d/%d/%d, links %d",
				o.Machine, o.Traffic, o.MessageFlits, f.VCs, f.VCBuffer, f.RoutingDelay, f.VCAllocDelay, f.SwitchAllocDelay, f.SwitchDelay, f.LinkDelay)
		} else {
			fmt.Fprintf(w, "%s, %s traffic, message engine: %d-flit messages, router delay %d", o.Machine, o.Traffic, o.MessageFlits, o.RouterDelay)
		}
		if o.BisectionBound > 0 {
			fmt.Fprintf(w, "; bisection bound %.4f flits/cycle/node", o.BisectionBound)
		}
		fmt.Fprintln(w)
		for _, n := range o.Notes {
			fmt.Fprintf(w, "note: %s\n", n)
		}
		t := newTable(w, "rate", "offered", "accepted", "mean latency", "zero-load", "saturated")
		for _, pt := range o.Points {
			sat := ""
			if pt.Saturated {
				sat = "yes"
			}
			t.row(fmt.Sprintf("%.4f", pt.Rate), fmt.Sprintf("%.4f", pt.Offered), fmt.Sprintf("%.4f", pt.Accepted),
				fmt.Sprintf("%.1f", pt.MeanLatency), fmt.Sprintf("%.1f", pt.ZeroLoadLatency), sat)
		}
		if err := t.flush(); err != nil {
			return err
		}
		sat := "none"
		if o.SaturationOffered != nil {
			sat = fmt.Sprintf("first at offered %.4f", *o.SaturationOffered)
		}
		if len(o.Points) > 1 && o.BisectionBound > 0 {
			fmt.Fprintf(w, "saturation: %s; most accepted %.4f (%.0f%% of the bisection bound)\n",
				sat, o.MaxAccepted, 100*o.MaxAccepted/o.BisectionBound)
		} else if len(o.Points) > 1 {
			why := "no bisection bound computed for a graph"
			if o.Traffic != "uniform" {
				why = "the bisection bound is uniform traffic's"
			}
			fmt.Fprintf(w, "saturation: %s; most accepted %.4f (%s)\n", sat, o.MaxAccepted, why)
		}
		return nil
	})
}
