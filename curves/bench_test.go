package curves

import (
	"testing"

	"github.com/procalloc/procalloc/topo"
)

// benchCurve reports ns/op and nodes per second of whole-curve generation.
func benchCurve(b *testing.B, g *topo.Grid, gen func(*topo.Grid) (Order, error)) {
	b.ReportAllocs()
	iters := 0
	for b.Loop() {
		if _, err := gen(g); err != nil {
			b.Fatal(err)
		}
		iters++
	}
	b.ReportMetric(float64(g.N())*float64(iters)/b.Elapsed().Seconds(), "nodes/s")
}

func BenchmarkHilbert1024x1024(b *testing.B) { benchCurve(b, topo.Mesh(1024, 1024), Hilbert) }
func BenchmarkGilbert1024x1024(b *testing.B) { benchCurve(b, topo.Mesh(1024, 1024), Gilbert) }
func BenchmarkGilbert1000x1000(b *testing.B) { benchCurve(b, topo.Mesh(1000, 1000), Gilbert) }
func BenchmarkSnake1024x1024(b *testing.B) {
	benchCurve(b, topo.Mesh(1024, 1024), func(g *topo.Grid) (Order, error) { return Snake(g), nil })
}
func BenchmarkHIndex1024x1024(b *testing.B) { benchCurve(b, topo.Mesh(1024, 1024), HIndex) }
func BenchmarkHilbertTrunc1000x1000(b *testing.B) {
	benchCurve(b, topo.Mesh(1000, 1000), HilbertTrunc)
}
func BenchmarkHilbert3D128(b *testing.B) { benchCurve(b, topo.Mesh(128, 128, 128), Hilbert3D) }
func BenchmarkHilbert3DTrunc100(b *testing.B) {
	benchCurve(b, topo.Mesh(100, 100, 100), Hilbert3DTrunc)
}

// BenchmarkObjectiveK8Mesh1M scores the Hilbert curve of a 1024 x 1024 mesh with K = 8.
func BenchmarkObjectiveK8Mesh1M(b *testing.B) {
	g := topo.Mesh(1024, 1024)
	o, _ := Hilbert(g)
	w, _ := ParseWeights("exp:2:8")
	b.ReportAllocs()
	iters := 0
	for b.Loop() {
		if _, err := Objective(g, o, w, false); err != nil {
			b.Fatal(err)
		}
		iters++
	}
	b.ReportMetric(float64(g.N())*float64(iters)/b.Elapsed().Seconds(), "nodes/s")
}

func BenchmarkGilbert3D128(b *testing.B) { benchCurve(b, topo.Mesh(128, 128, 128), Gilbert3D) }
func BenchmarkGilbert3D100(b *testing.B) { benchCurve(b, topo.Mesh(100, 100, 100), Gilbert3D) }
