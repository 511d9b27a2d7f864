package netsim

import (
	"testing"

	"github.com/procalloc/procalloc/topo"
)

// TestFlitLonePacketMatchesBookSim checks a lone packet's latency against BookSim2's
// measured minimum packet latency (commit 28f43299, mesh 8x8, dor, 2 VCs, neighbor
// traffic at injection rate 0.002, whose shortest routes are 2 hops:
// scripts/booksim-compare.sh GRID=delays and the runs recorded in docs/comm.md).
// BookSim2's switch traversal of ST > 1 cycles costs a 32-flit packet ST-1 cycles
// more than a routing stage as long (its flits cross the switch in batches), and a
// buffer smaller than the credit round trip stalls the body.
func TestFlitLonePacketMatchesBookSim(t *testing.T) {
	m, err := topo.ParseMachine("mesh:8x8")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name           string
		S, B, R, ST    int
		bookSimMinimum int64
	}{
		{"32 flits, BookSim2's defaults", 32, 8, 1, 1, 48},
		{"32 flits, routing 2", 32, 8, 2, 1, 51},
		{"32 flits, switch traversal 2", 32, 8, 1, 2, 52},
		{"32 flits, switch traversal 3", 32, 8, 1, 3, 59},
		{"32 flits, 32-flit buffers, switch traversal 2", 32, 32, 1, 2, 52},
		{"32 flits, 32-flit buffers, switch traversal 3", 32, 32, 1, 3, 56},
		{"32 flits, lookahead routing", 32, 8, 0, 1, 45},
		{"1 flit, defaults", 1, 8, 1, 1, 17},
		{"1 flit, routing 2", 1, 8, 2, 1, 20},
		{"1 flit, switch traversal 2", 1, 8, 1, 2, 20},
		{"1 flit, switch traversal 3", 1, 8, 1, 3, 23},
	} {
		fc := DefaultFlitConfig(m)
		fc.VCs, fc.PacketFlits, fc.VCBuffer, fc.RoutingDelay, fc.SwitchDelay = 2, c.S, c.B, c.R, c.ST
		var got int64 = -1
		// Send queues the packet at cycle 0 and it leaves in cycle 1; BookSim2's
		// (and FlitUniformTraffic's) packets can leave in the cycle they are created.
		e, err := NewFlitEngine(m, fc, func(d *Delivery) { got = d.Arrived - d.Queued - 1 })
		if err != nil {
			t.Fatal(err)
		}
		if err := e.Send(Message{Src: 0, Dst: 9}); err != nil { // (0,0) -> (1,1)
			t.Fatal(err)
		}
		if err := e.Run(1000); err != nil {
			t.Fatal(err)
		}
		if got != c.bookSimMinimum {
			t.Errorf("%s: lone 2-hop packet takes %d cycles, BookSim2's minimum is %d", c.name, got, c.bookSimMinimum)
		}
	}
}
