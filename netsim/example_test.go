package netsim_test

import (
	"fmt"

	"github.com/procalloc/procalloc/netsim"
	"github.com/procalloc/procalloc/topo"
)

// The static cost of an all-to-all job on its nodes, along the machine's routes.
// Checked by hand for 4 nodes in a row (0-1-2-3): 4 x 3 = 12 messages; the ordered
// pairs cross 2 x (1+2+3+1+2+1) = 20 links, a mean distance of 20/12 = 1.667; the
// middle link 1->2 carries every route from {0,1} to {2,3}, 2 x 2 = 4, the most of
// any channel (the link 0->1 carries 3).
func ExampleRouteMeter() {
	m, err := topo.ParseMachine("mesh:4x1")
	if err != nil {
		fmt.Println(err)
		return
	}
	pat, err := netsim.ParsePattern("all-to-all")
	if err != nil {
		fmt.Println(err)
		return
	}
	meter, err := netsim.NewMachineRouteMeter(m, pat, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	l, err := meter.Measure(0, []int{0, 1, 2, 3})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d messages, %d hops, mean %.3f, at most %d routes on one channel\n",
		l.Messages, l.Hops, l.MeanDistance(), l.MaxShared)
	// Output:
	// 12 messages, 20 hops, mean 1.667, at most 4 routes on one channel
}

// Two messages of 4 flits (one router cycle per hop) meet on the way to node 3 of
// a 4-node line. Checked by hand with the wormhole rule (Dally & Towles §13.2): a
// lone message takes hops + flits cycles, so 2->3 arrives at 1 + 4 = 5. 0->3 holds
// 0->1 at cycle 0 and 1->2 at 1, waits at the link 2->3 until the tail of 2->3
// frees it at 5, reaches node 3 at 6 and its tail at 6 + 4 = 10, 3 cycles later than
// its lone latency of 3 + 4 = 7.
func ExampleEngine() {
	m, err := topo.ParseMachine("mesh:4x1")
	if err != nil {
		fmt.Println(err)
		return
	}
	r, err := netsim.NewRouter(m)
	if err != nil {
		fmt.Println(err)
		return
	}
	p := netsim.Params{MessageFlits: 4, RouterDelay: 1, FlitBytes: 8}
	e, err := netsim.NewEngine(r, p, func(d *netsim.Delivery) {
		fmt.Printf("%d->%d: %d hops, arrived at %d\n", d.Src, d.Dst, d.Hops, d.Arrived)
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	e.Send(netsim.Message{Src: 0, Dst: 3})
	e.Send(netsim.Message{Src: 2, Dst: 3})
	if err := e.Run(100); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("lone latency 0->3:", p.Latency(3))
	// Output:
	// 2->3: 1 hops, arrived at 5
	// 0->3: 3 hops, arrived at 10
	// lone latency 0->3: 7
}
