package sim

import (
	"fmt"

	"github.com/procalloc/procalloc/netsim"
	"github.com/procalloc/procalloc/topo"
)

// FlitOptions configure the flit engine of a replay (Spec.Engine = EngineFlit) or
// of a Batch (Batch.Engine).
// A zero field takes netsim.DefaultFlitConfig's value for the machine (BookSim2's
// defaults: one virtual channel on a mesh or graph and two, one per dateline class,
// on a torus; 8-flit buffers; one cycle per router stage; links of one cycle, two on
// a torus); negative values are errors. The packet length is the message length
// (Spec.Network.MessageFlits), and the torus tie-breaking seed is Spec.CommSeed.
type FlitOptions struct {
	// VCs is the number of virtual channels per port (a torus needs at least 2;
	// an odd number overlaps its two dateline classes, as BookSim2 does).
	VCs int
	// VCBuffer is each virtual channel's buffer in flits (below the credit round
	// trip, netsim.FlitConfig.MinVCBuffer, a lone packet cannot stream one flit
	// per cycle).
	VCBuffer int
	// The router's stage delays and the link latency, in cycles.
	RoutingDelay, VCAllocDelay, SwitchAllocDelay, SwitchDelay, LinkDelay int
	// HopClasses restricts a packet's h-th link to virtual channel min(h, VCs-1)
	// on graphs (netsim.FlitConfig.HopClasses).
	HopClasses bool
}

// IsZero reports whether every field takes its default.
func (o FlitOptions) IsZero() bool { return o == FlitOptions{} }

// fields lists the options by their Spec field names.
func (o FlitOptions) fields() []struct {
	name string
	v    int
} {
	return []struct {
		name string
		v    int
	}{{"Flit.VCs", o.VCs}, {"Flit.VCBuffer", o.VCBuffer}, {"Flit.RoutingDelay", o.RoutingDelay}, {"Flit.VCAllocDelay", o.VCAllocDelay},
		{"Flit.SwitchAllocDelay", o.SwitchAllocDelay}, {"Flit.SwitchDelay", o.SwitchDelay}, {"Flit.LinkDelay", o.LinkDelay}}
}

// Config is the flit engine's configuration on machine m: the options over
// netsim.DefaultFlitConfig(m), packets of p.MessageFlits flits, seed for the
// torus's tie-breaking. It is not validated (netsim.FlitConfig.CheckMachine does).
func (o FlitOptions) Config(m topo.Machine, p netsim.Params, seed uint64) netsim.FlitConfig {
	c := netsim.DefaultFlitConfig(m)
	set := func(dst *int, v int) {
		if v != 0 {
			*dst = v
		}
	}
	set(&c.VCs, o.VCs)
	set(&c.VCBuffer, o.VCBuffer)
	set(&c.RoutingDelay, o.RoutingDelay)
	set(&c.VCAllocDelay, o.VCAllocDelay)
	set(&c.SwitchAllocDelay, o.SwitchAllocDelay)
	set(&c.SwitchDelay, o.SwitchDelay)
	set(&c.LinkDelay, o.LinkDelay)
	c.HopClasses = o.HopClasses
	c.PacketFlits = int(min(p.MessageFlits, 1<<30))
	c.Seed = seed
	return c
}

// validateEngine adds the errors of Engine and Flit that can be seen without the
// machine.
func (s *Spec) validateEngine(add func(*FieldError)) {
	if _, err := ParseEngine(string(s.Engine)); err == nil && s.Engine == EngineFlit && s.Comm == "" {
		add(fieldErr("Engine", string(s.Engine), "the network engine carries a communication pattern's messages (Comm, sim --comm); without one a replay has no network to model"))
	}
	validateEngineOptions(s.Engine, s.Flit, add)
}

// validateEngineOptions adds the errors of an engine choice and its flit options
// that can be seen without the machine (a replay's Spec and a Batch share them),
// naming the fields Engine, Flit and Flit.*.
func validateEngineOptions(engine Engine, flit FlitOptions, add func(*FieldError)) {
	if _, err := ParseEngine(string(engine)); err != nil {
		add(fieldErr("Engine", fmt.Sprintf("%q", string(engine)), "want %s", Choices(engines)))
		return
	}
	if engine != EngineFlit {
		if !flit.IsZero() {
			add(fieldErr("Flit", "", "configures the flit engine; Engine is %s (set Engine to flit)", engine))
		}
		return
	}
	for _, f := range flit.fields() {
		if f.v < 0 {
			add(fieldErr(f.name, fmt.Sprint(f.v), "must be positive (or 0: the default)"))
		}
	}
}

// flitConfig is the replay's flit configuration on machine m, checked against it.
func (s *Spec) flitConfig(m topo.Machine) (netsim.FlitConfig, error) {
	return s.Flit.checkedConfig(m, s.Network, s.CommSeed)
}

// checkedConfig is Config checked against machine m (netsim.FlitConfig.CheckMachine),
// the error a *FieldError naming the option at fault (Flit.VCs, Flit.VCBuffer, or
// Flit for the others).
func (o FlitOptions) checkedConfig(m topo.Machine, p netsim.Params, seed uint64) (netsim.FlitConfig, error) {
	c := o.Config(m, p, seed)
	if err := c.CheckMachine(m); err != nil {
		field := "Flit"
		switch g, ok := m.(*topo.Grid); {
		case ok && g.Wraps() && c.VCs < 2, c.VCs > 64:
			field = "Flit.VCs"
		case c.VCBuffer > 1<<16:
			field = "Flit.VCBuffer"
		}
		return c, fieldErr(field, "", "%v", err)
	}
	return c, nil
}
