//go:build unix

package netsim

import (
	"syscall"
	"testing"

	"github.com/procalloc/procalloc/topo"
)

// BenchmarkFlitEngine measures the flit engine's speed in flit-hops (flits times
// router-to-router links crossed) per second on BookSim2's speed configuration:
// mesh 16x16, uniform traffic at 0.08 flits per node per cycle, one virtual channel
// of 8 flits, 32-flit packets. BookSim2 (commit 28f43299, g++ -O3) does about 0.9 M
// flit-hops per CPU second there; the target is ten times that.
func BenchmarkFlitEngine(b *testing.B) {
	for _, c := range []struct {
		name string
		m    topo.Machine
		vcs  int
		rate float64
	}{
		{"mesh16x16/vc1/0.08", topo.Mesh(16, 16), 1, 0.08},
		{"mesh16x16/vc8/0.15", topo.Mesh(16, 16), 8, 0.15},
		{"torus8x8/vc2/0.2", topo.Torus(8, 8), 2, 0.2},
	} {
		b.Run(c.name, func(b *testing.B) {
			cfg := DefaultFlitConfig(c.m)
			cfg.VCs = c.vcs
			e, err := NewFlitEngine(c.m, cfg, nil)
			if err != nil {
				b.Fatal(err)
			}
			n := c.m.N()
			rng := NewRand(1, 0)
			prob := c.rate / float64(cfg.PacketFlits)
			e.gen = func(t int64) {
				for s := range n {
					if rng.Float64() < prob {
						e.enqueue(int32(s), int32(rng.Uint64n(uint64(n))), 0, t)
					}
				}
			}
			if err := e.Run(2000); err != nil { // warm up
				b.Fatal(err)
			}
			h0 := e.Stats().FlitHops
			c0 := cpuSeconds()
			b.ResetTimer()
			const cycles = 1000
			for range b.N {
				if err := e.Run(e.Now() + cycles); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			hops := float64(e.Stats().FlitHops - h0)
			b.ReportMetric(hops/b.Elapsed().Seconds(), "flit-hops/s")
			if c := cpuSeconds() - c0; c > 0 {
				// On a shared machine wall time overstates the cost: also per CPU second.
				b.ReportMetric(hops/c, "flit-hops/cpu-s")
			}
			b.ReportMetric(0, "ns/op")
		})
	}
}

// cpuSeconds is the process's user and system CPU time so far.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}
