package bench

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/procalloc/procalloc/topo"
)

// growthMachines are issue 32 item 2's sizes: 1k, 4k, 16k, 65k and 110k nodes,
// as square meshes and cubic 3D tori.
var growthMachines = [][]string{
	{"mesh:32x32", "mesh:64x64", "mesh:128x128", "mesh:256x256", "mesh:332x332"},
	{"torus:10x10x10", "torus:16x16x16", "torus:25x25x25", "torus:40x40x40", "torus:48x48x48"},
}

// growthAllocs are the allocators whose growth docs/alloc.md tabulates.
var growthAllocs = []string{"bf:snake", "mc1x1", "mc1x1:tb=3,9,3,2", "mc1x1-greedy", "mc", "mm", "mminc", "genalg"}

// BenchmarkDecisionGrowth measures, per allocator and machine, the median time of a
// decision inside the allocator (package bench's Run on 30 jobs of the synthetic
// stream, at most 10 s per allocator and machine) and logs the fitted exponent of
// time against n per machine family, next to the floor (reading the free set
// once). An allocator that does not apply to a machine (mc on tori, a curve that
// does not exist there) is logged with its error.
func BenchmarkDecisionGrowth(b *testing.B) {
	for _, family := range growthMachines {
		for _, spec := range append([]string{FloorName}, growthAllocs...) {
			var ns []int
			var med []float64
			for _, ms := range family {
				m, err := topo.ParseMachine(ms)
				if err != nil {
					b.Fatal(err)
				}
				b.Run(spec+"/"+ms, func(b *testing.B) {
					w, err := SyntheticWorkload(m.N(), 30, 1)
					if err != nil {
						b.Fatal(err)
					}
					allocs := []string{spec}
					if spec == FloorName {
						allocs = []string{"bf:snake"} // any; the floor row is what is read
					}
					cfg := Config{Machine: m, Allocs: allocs, Workload: w, TimeLimit: 10 * time.Second}
					if err := Check(cfg); err != nil {
						b.Skipf("%s on %s: %v", spec, ms, err)
					}
					var r Result
					for b.Loop() {
						rep, err := Run(context.Background(), cfg)
						if err != nil {
							b.Fatal(err)
						}
						if r = rep.Allocs[0]; spec == FloorName {
							r = rep.Floor
						}
					}
					b.ReportMetric(r.Latency.Median*1e3, "median-ns/decision")
					b.ReportMetric(r.Latency.P99*1e3, "p99-ns/decision")
					ns = append(ns, m.N())
					med = append(med, r.Latency.Median)
				})
			}
			if e, err := Exponent(ns, med); err == nil && !math.IsNaN(e) {
				b.Logf("%s on %s..%s: time per decision ~ n^%.2f", spec, family[0], family[len(family)-1], e)
			}
		}
	}
}
