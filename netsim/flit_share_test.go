package netsim

import (
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/procalloc/procalloc/topo"
)

// flitDeliveries runs light random traffic (a fixed seed) on e until it has
// drained; e's deliver callback records what arrives.
func flitDeliveries(e *FlitEngine) error {
	n := e.nterm
	rng := NewRand(4, 0)
	for range 1500 {
		for s := range n {
			if rng.Float64() < 0.01 {
				if err := e.Send(Message{Src: int32(s), Dst: int32(rng.Uint64n(uint64(n)))}); err != nil {
					return err
				}
			}
		}
		if err := e.Run(e.Now() + 1); err != nil {
			return err
		}
	}
	return e.Run(e.Now() + 5000)
}

// Engines on one FlitNetwork, at once in goroutines and with different link
// delays, deliver what engines on their own tables (NewFlitEngine) deliver: the
// tables are only read, and each engine's channel latencies are its own. On a
// dragonfly (DragonflyRouter), a fat tree (GraphRouter's table) and a torus.
func TestFlitEnginesShareTheirNetwork(t *testing.T) {
	for _, spec := range []string{"dragonfly:hosts_per_router=2,routers_per_group=4,intergroup_links=1,num_groups=13", "fattree:4,4:8", "torus:4x4"} {
		m, err := topo.ParseMachine(spec)
		if err != nil {
			t.Fatal(err)
		}
		fn, err := NewFlitNetwork(m)
		if err != nil {
			t.Fatal(err)
		}
		var cfgs []FlitConfig
		for _, link := range []int{1, 3} {
			c := DefaultFlitConfig(m)
			c.VCs, c.VCBuffer, c.HopClasses, c.LinkDelay, c.Seed = 4, 16, true, link, 9
			cfgs = append(cfgs, c)
			// A lone packet on the shared tables takes the stage model's cycles
			// (zeroLoad) over its route: the engine's own latencies, terminal
			// channels of 1 cycle.
			var lone int64 = -1
			e, err := NewFlitEngineOn(fn, c, func(d *Delivery) { lone = d.Arrived - d.Queued - 1 })
			if err != nil {
				t.Fatal(err)
			}
			src, dst := 0, m.N()-1
			if err := e.Send(Message{Src: int32(src), Dst: int32(dst)}); err != nil {
				t.Fatal(err)
			}
			if err := e.Run(1 << 20); err != nil {
				t.Fatal(err)
			}
			if want := e.zeroLoad(float64(e.routeHops(src, dst))); float64(lone) != want {
				t.Errorf("%s, link delay %d: a lone packet over %d hops took %d cycles, want %v", spec, link, e.routeHops(src, dst), lone, want)
			}
		}
		want := make([][]Delivery, len(cfgs))
		for i, c := range cfgs {
			e, err := NewFlitEngine(m, c, func(d *Delivery) { want[i] = append(want[i], *d) })
			if err != nil {
				t.Fatal(err)
			}
			if err := flitDeliveries(e); err != nil {
				t.Fatal(err)
			}
			if len(want[i]) < 100 {
				t.Fatalf("%s: %d deliveries, want at least 100", spec, len(want[i]))
			}
		}
		if slices.Equal(want[0], want[1]) {
			t.Fatalf("%s: link delays 1 and 3 deliver at the same cycles", spec)
		}
		var wg sync.WaitGroup
		errs := make([]error, 2*len(cfgs))
		for k := range errs {
			wg.Go(func() {
				i := k % len(cfgs)
				var got []Delivery
				e, err := NewFlitEngineOn(fn, cfgs[i], func(d *Delivery) { got = append(got, *d) })
				if err == nil {
					err = flitDeliveries(e)
				}
				if err == nil && !slices.Equal(got, want[i]) {
					err = fmt.Errorf("link delay %d: %d deliveries on the shared tables, %d on its own (or they differ)", cfgs[i].LinkDelay, len(got), len(want[i]))
				}
				errs[k] = err
			})
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				t.Errorf("%s: %v", spec, err)
			}
		}
	}
}
