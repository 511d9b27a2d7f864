package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/procalloc/procalloc/netsim"
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
	Machine        string  `json:"machine"`
	Traffic        string  `json:"traffic"`
	MessageFlits   int64   `json:"message_flits"`
	RouterDelay    int64   `json:"router_delay_cycles"`
	BisectionBound float64 `json:"bisection_bound"`
	// SaturationOffered is the lowest offered load that saturated the network (null
	// when none did); MaxAccepted the most it accepted at any load.
	SaturationOffered *float64      `json:"saturation_offered"`
	MaxAccepted       float64       `json:"max_accepted"`
	Points            []netsimPoint `json:"points"`
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
		if v[2] <= 0 || v[1] < v[0] || (v[1]-v[0])/v[2] > 1000 {
			return nil, fmt.Errorf("--rate %q: need FROM <= TO and a positive STEP giving at most 1000 rates", s)
		}
		var out []float64
		for i := 0; ; i++ {
			x := v[0] + float64(i)*v[2]
			if x > v[1]+v[2]*1e-9 {
				break
			}
			out = append(out, math.Round(x*1e9)/1e9)
		}
		return out, nil
	}
	return parseList("--rate", s, parseFinite, "a number")
}

func init() {
	register(&command{
		name:    "netsim",
		summary: "measure the network model: latency and accepted load against offered load (synthetic traffic)",
		usage:   "netsim --machine SPEC --traffic uniform --rate R|R1,R2,...|FROM:TO:STEP [--msg-flits S] [--router-delay D] [--json]",
		details: `Runs the wormhole network model that "sim --comm" uses (package netsim,
docs/comm.md) on synthetic traffic: every node generates messages of S flits at
random times (a Bernoulli process), --rate flits per cycle on average, a fraction of
one link's bandwidth (one flit per cycle), each to a uniformly random other node.
Messages wait at their source, which sends one at a time; routes are
dimension-ordered (x, then y, then z; on a torus the shorter way round, ties in the
positive direction, with dateline virtual channels).

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
procalloc netsim --machine mesh:16x16 --traffic uniform --rate 0.02:0.4:0.02
procalloc netsim --machine torus:8x8 --traffic uniform --rate 0.1,0.5,0.9 --msg-flits 16
procalloc netsim --machine fattree:4,4:4,4:8 --traffic uniform --rate 0.05:0.5:0.05`,
		flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
			machine := fs.String("machine", "", "machine `SPEC`, e.g. mesh:8x8, torus:8x8, fattree:4,4:8 (switches route, hosts send)")
			traffic := fs.String("traffic", "uniform", "traffic `PATTERN`: uniform (random destinations)")
			rate := fs.String("rate", "", "offered load per node, flits per cycle (a fraction of one link's bandwidth): `R`, a list R1,R2 or a range FROM:TO:STEP")
			d := netsim.DefaultParams()
			flits := fs.Int64("msg-flits", d.MessageFlits, "message length in flits")
			delay := fs.Int64("router-delay", d.RouterDelay, "cycles a message header takes per hop")
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
				if *traffic != "uniform" {
					return usagef("--traffic %q: the synthetic traffic is uniform", *traffic)
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
				p := netsim.Params{MessageFlits: *flits, RouterDelay: *delay, FlitBytes: 1}
				if err := p.Validate(); err != nil {
					return usageError{err.Error()}
				}
				if *warmup < 0 || *measure < 1 || *warmup > 1e8 || *measure > 1e8 {
					return usagef("--warmup and --measure: 0..1e8 and 1..1e8 cycles")
				}
				m, err := topo.ParseMachine(*machine)
				if err != nil {
					return usageError{err.Error()}
				}
				if m.N() < 2 || m.N() > 1<<16 {
					return usagef("--machine %s: uniform traffic needs 2 to 65536 nodes", *machine)
				}
				r, err := netsim.NewRouter(m)
				if err != nil {
					return err
				}
				o := netsimOutput{Machine: m.Spec(), Traffic: *traffic, MessageFlits: p.MessageFlits, RouterDelay: p.RouterDelay}
				if g, ok := m.(*topo.Grid); ok {
					o.BisectionBound = netsim.BisectionBound(g.Dims(), g.Wrap())
				}
				if err := checkOutputs(e, outputFlag{"-o", *out}); err != nil {
					return err
				}
				prog := newProgress(e, "netsim", int64(len(rates)))
				var interrupted error
				for i, rt := range rates {
					prog.Update(int64(i), fmt.Sprintf("rate %g", rt))
					res, err := netsim.UniformTraffic(ctx, r, p, netsim.TrafficConfig{Rate: rt, Warmup: *warmup, Measure: *measure, Seed: *seed})
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
					Machine        string  `json:"machine"`
					BisectionBound float64 `json:"bisection_bound"`
				}{o.Points[0], o.Machine, o.BisectionBound})
			}
			return writeJSON(w, o)
		}
		fmt.Fprintf(w, "%s, %s traffic, %d-flit messages, router delay %d", o.Machine, o.Traffic, o.MessageFlits, o.RouterDelay)
		if o.BisectionBound > 0 {
			fmt.Fprintf(w, "; bisection bound %.4f flits/cycle/node", o.BisectionBound)
		}
		fmt.Fprintln(w)
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
			fmt.Fprintf(w, "saturation: %s; most accepted %.4f (no bisection bound computed for a graph)\n",
				sat, o.MaxAccepted)
		}
		return nil
	})
}
