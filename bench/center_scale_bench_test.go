package bench

import (
	"context"
	"math"
	"runtime"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/topo"
)

// centerScaleMachines are the machines of BenchmarkCenterScaleSDSC: square meshes
// and cubic 3D tori of about 1k to 110k nodes.
var centerScaleMachines = [][]string{
	{"mesh:32x32", "mesh:64x64", "mesh:128x128", "mesh:256x256", "mesh:332x332"},
	{"torus:10x10x10", "torus:16x16x16", "torus:25x25x25", "torus:32x32x32", "torus:40x40x40", "torus:48x48x48"},
}

// scaledSDSC is issue 32's workload on machine m (ScaledSDSC).
func scaledSDSC(b *testing.B, m topo.Machine) Workload {
	b.Helper()
	w, err := ScaledSDSC(context.Background(), readTrace(b, sdsc), m)
	if err != nil {
		b.Fatal(err)
	}
	return w
}

// BenchmarkCenterScaleSDSC measures MC1x1 (plain and with Johnson's tie-breaking),
// MC, MM, MM+Inc, Gen-Alg and PReMAS's greedy MC1x1 on issue 32's workload (scaledSDSC) at growing machine sizes: per
// decision, the CPU time of the replaying thread (Allocate and Release, the
// allocator's garbage collection on other threads left out), and the wall-clock
// mean, median and 99th percentile of Allocate alone; it logs the fitted exponent
// of CPU time against n per machine family. The decision memo is on, as in a
// replay. Run with -benchtime 1x (one replay per machine and allocator), and pick
// allocators and machines with -bench: MM and MM+Inc take minutes per replay from
// 65,536 nodes (docs/alloc.md).
func BenchmarkCenterScaleSDSC(b *testing.B) {
	for _, family := range centerScaleMachines {
		for _, spec := range []string{"mc1x1", "mc1x1:tb=3,9,3,2", "mc", "mm", "mminc", "genalg", "mc1x1-greedy"} {
			var ns []int
			var cpus []float64
			for _, ms := range family {
				m, err := topo.ParseMachine(ms)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := alloc.Parse(spec, m, alloc.Options{}); err != nil {
					continue // mc on tori
				}
				b.Run(spec+"/"+ms, func(b *testing.B) {
					w := scaledSDSC(b, m)
					var cpu, wall time.Duration
					var lat []time.Duration
					decisions := 0
					runtime.LockOSThread()
					defer runtime.UnlockOSThread()
					for b.Loop() {
						a, err := alloc.Parse(spec, m, alloc.Options{})
						if err != nil {
							b.Fatal(err)
						}
						held := make([][]int, w.Jobs)
						lat = lat[:0]
						cpu0 := cpuNanos(syscall.RUSAGE_THREAD)
						for _, op := range w.Ops {
							if op.Release {
								if err := a.Release(held[op.Job]); err != nil {
									b.Fatal(err)
								}
								held[op.Job] = nil
								continue
							}
							t0 := time.Now()
							nodes, err := a.Allocate(int(op.Procs))
							d := time.Since(t0)
							if err != nil {
								b.Fatal(err)
							}
							lat = append(lat, d)
							wall += d
							held[op.Job] = nodes
						}
						cpu += time.Duration(cpuNanos(syscall.RUSAGE_THREAD) - cpu0)
						decisions += len(lat)
					}
					slices.Sort(lat)
					q := func(p float64) float64 {
						return float64(lat[max(0, int(math.Ceil(p*float64(len(lat))))-1)].Nanoseconds()) / 1e3
					}
					perCPU := float64(cpu.Nanoseconds()) / 1e3 / float64(decisions)
					b.ReportMetric(perCPU, "cpu-µs/decision")
					b.ReportMetric(float64(wall.Nanoseconds())/1e3/float64(decisions), "mean-µs/decision")
					b.ReportMetric(q(0.5), "median-µs")
					b.ReportMetric(q(0.99), "p99-µs")
					b.ReportMetric(float64(len(lat)), "decisions")
					ns = append(ns, m.N())
					cpus = append(cpus, perCPU)
				})
			}
			if e, err := Exponent(ns, cpus); err == nil {
				b.Logf("%s on %s..%s: CPU per decision ~ n^%.2f", spec, family[0], family[len(family)-1], e)
			}
		}
	}
}
