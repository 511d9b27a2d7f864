package netsim

import (
	"fmt"

	"github.com/procalloc/procalloc/topo"
)

// FlitConfig are the parameters of the flit-level engine. Every field must be set
// (DefaultFlitConfig gives BookSim2's defaults); zero or negative values are errors.
type FlitConfig struct {
	// VCs is the number of virtual channels per port. A torus needs at least 2:
	// half for the packets whose route in the current dimension crosses the
	// wraparound link and half for the others, overlapping in the middle one when
	// VCs is odd (BookSim2's dim_order routing on a torus; one class would
	// deadlock).
	VCs int
	// VCBuffer is the depth, in flits, of each virtual channel's input buffer. It
	// must cover the credit round trip (see MinVCBuffer), or a lone packet could
	// not stream one flit per cycle.
	VCBuffer int
	// PacketFlits is the length of every packet (message) in flits.
	PacketFlits int
	// RoutingDelay, VCAllocDelay, SwitchAllocDelay and SwitchDelay are the cycles of
	// the router's four pipeline stages (BookSim2's routing_delay, vc_alloc_delay,
	// sw_alloc_delay and st_final_delay; 1 each by default).
	RoutingDelay, VCAllocDelay, SwitchAllocDelay, SwitchDelay int
	// LinkDelay is the latency of a router-to-router channel in cycles (flits and
	// credits alike). BookSim2's k-ary n-cube gives its channels 1 cycle on a mesh
	// and 2 on a torus (use_noc_latency = 1, "torus channel is longer due to wrap
	// around"); DefaultFlitConfig sets that. Injection and ejection channels
	// always take 1 cycle.
	LinkDelay int
	// Seed drives the engine's own random choices: the direction of a torus route
	// when both ways round are equally long (BookSim2 draws it at random too).
	Seed uint64
	// Tie is the torus tie policy (TieRandom in DefaultFlitConfig, as BookSim2;
	// TiePositive takes GridRouter's routes, those of the message engine and the
	// static route metrics).
	Tie TiePolicy
	// HopClasses, on graphs, gives the packet on its h-th link (h from 0) only
	// virtual channel min(h, VCs-1) instead of any: with at least as many VCs as the
	// longest route has links, every packet climbs to a higher VC at each hop, so
	// shortest-path routing cannot deadlock on any graph (a dragonfly, a ring),
	// the distance-class scheme of Dally and Towles 2004 §14.1.2 (Günther 1981).
	// Without it (BookSim2's behaviour) every VC is usable at every hop. Ignored on
	// grids, whose routing is deadlock-free already.
	HopClasses bool
}

// bookSimLinkDelay is BookSim2's channel latency for machine m: 2 cycles on a grid
// with a wrapped dimension, 1 otherwise.
func bookSimLinkDelay(m topo.Machine) int {
	if g, ok := m.(*topo.Grid); ok && g.Wraps() {
		return 2
	}
	return 1
}

// DefaultFlitConfig is BookSim2's default input-queued router on machine m, with
// the configuration of docs/comm.md: one virtual channel on a mesh or graph and two
// (one per dateline class) on a torus, 8-flit buffers, 32-flit packets, one cycle
// per pipeline stage, BookSim2's link latency.
func DefaultFlitConfig(m topo.Machine) FlitConfig {
	vcs := 1
	if g, ok := m.(*topo.Grid); ok && g.Wraps() {
		vcs = 2
	}
	return FlitConfig{VCs: vcs, VCBuffer: 8, PacketFlits: 32, RoutingDelay: 1, VCAllocDelay: 1,
		SwitchAllocDelay: 1, SwitchDelay: 1, LinkDelay: bookSimLinkDelay(m), Tie: TieRandom}
}

// MinVCBuffer is the smallest buffer that lets a lone virtual channel stream one
// flit per cycle: a credit comes back ST + 2L + 2SA cycles after the switch
// allocation that used it (switch traversal, link, the downstream switch allocation
// that frees the slot, the credit's link back, and the allocation that uses it
// again), and a virtual channel wins at most one allocation every SA cycles, so it
// needs ceil((ST + 2L + 2SA) / SA) credits in flight (5 with BookSim2's defaults on a
// mesh, 7 with its 2-cycle torus links). Smaller buffers are allowed, as in BookSim2:
// a packet then moves in bursts of VCBuffer flits per credit round trip.
func (c FlitConfig) MinVCBuffer() int {
	rt := c.SwitchDelay + 2*c.LinkDelay + 2*c.SwitchAllocDelay
	return (rt + c.SwitchAllocDelay - 1) / c.SwitchAllocDelay
}

const maxFlitParam = 1 << 12

// Validate reports parameters outside their ranges, naming the field. The routing
// delay may be 0: lookahead routing, the route at the next router computed while
// the head crosses this one (BookSim2's routing_delay = 0).
func (c FlitConfig) Validate() error {
	for _, f := range []struct {
		name string
		v    int
		min  int
		max  int
	}{
		{"virtual channels", c.VCs, 1, 64},
		{"vc buffer", c.VCBuffer, 1, 1 << 16},
		{"packet size (flits)", c.PacketFlits, 1, 1 << 20},
		{"routing delay", c.RoutingDelay, 0, maxFlitParam},
		{"vc allocation delay", c.VCAllocDelay, 1, maxFlitParam},
		{"switch allocation delay", c.SwitchAllocDelay, 1, maxFlitParam},
		{"switch traversal delay", c.SwitchDelay, 1, maxFlitParam},
		{"link delay", c.LinkDelay, 1, maxFlitParam},
	} {
		if f.v < f.min || f.v > f.max {
			return fmt.Errorf("%s %d: must be %d..%d", f.name, f.v, f.min, f.max)
		}
	}
	return nil
}

// Unreferenced lists the parameters of c that BookSim2 (commit 28f43299) cannot run,
// so that no reference figure exists for them: the engine runs them as its stage
// model says, and the caller should say so.
func (c FlitConfig) Unreferenced(m topo.Machine) []string {
	var notes []string
	if c.VCAllocDelay > 1 {
		notes = append(notes, fmt.Sprintf("vc allocation delay %d: BookSim2 stops on an assertion with a VC-allocation delay above 1, so no reference exists for it", c.VCAllocDelay))
	}
	if c.SwitchAllocDelay > 1 {
		notes = append(notes, fmt.Sprintf("switch allocation delay %d: BookSim2 stops on an assertion with a switch-allocation delay above 1 (without speculation), so no reference exists for it", c.SwitchAllocDelay))
	}
	if c.LinkDelay != bookSimLinkDelay(m) {
		notes = append(notes, fmt.Sprintf("link delay %d: BookSim2's k-ary n-cubes have links of %d cycles, so no reference exists for it", c.LinkDelay, bookSimLinkDelay(m)))
	}
	if c.HopClasses {
		notes = append(notes, "hop classes: not a BookSim2 routing function, so no reference exists for it")
	}
	return notes
}

// CheckMachine is Validate, and whether the engine can run on machine m: a mesh
// (with or without I/O nodes), a torus with at least 2 virtual channels, or a graph.
// A torus splits its VCs into two dateline classes of V/2 each, rounded up and
// overlapping in the middle VC when V is odd, as BookSim2's dim_order_torus does
// (with the overlap a cycle of waiting VCs is possible again: the watchdog reports
// it); one VC cannot be split (BookSim2 asserts on it) and one class around a ring
// deadlocks.
func (c FlitConfig) CheckMachine(m topo.Machine) error {
	if err := c.Validate(); err != nil {
		return err
	}
	switch g := m.(type) {
	case *topo.Grid:
		if g.IO() != nil && g.Wraps() {
			return fmt.Errorf("flit engine: %s has I/O nodes on a torus; I/O nodes need a mesh", m.Spec())
		}
		if g.Wraps() && c.VCs < 2 {
			return fmt.Errorf("flit engine on torus %s: %d virtual channel; a torus needs at least 2 "+
				"for the two dateline classes (one class of virtual channels around a ring deadlocks)", m.Spec(), c.VCs)
		}
	case *topo.Graph:
	default:
		return fmt.Errorf("flit engine: no model for machine %s", m.Spec())
	}
	return nil
}
