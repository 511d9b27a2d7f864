package voronoi

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkWalkFull: the complete enumeration (unbounded cells included).
func BenchmarkWalkFull(b *testing.B) {
	for _, k := range []int{1, 3, 5} {
		for _, n := range []int{1_000, 10_000} {
			r := rand.New(rand.NewPCG(uint64(n), uint64(k)))
			pts := randomPoints(r, n, 1<<20, false)
			b.Run(fmt.Sprintf("k=%d/n=%d", k, n), func(b *testing.B) {
				for b.Loop() {
					fams := 0
					if err := Walk(pts, k, func(*Family) bool { fams++; return true }); err != nil {
						b.Fatal(err)
					}
					b.ReportMetric(float64(fams)/float64(n), "families/point")
				}
			})
		}
	}
}

// BenchmarkWalkBounded: families of diameter at most a few point spacings, the
// regime of the optimizers.
func BenchmarkWalkBounded(b *testing.B) {
	for _, n := range []int{10_000, 100_000, 1_000_000} {
		r := rand.New(rand.NewPCG(uint64(n), 9))
		pts := randomPoints(r, n, 1<<20, false)
		spacing := int64((1 << 20) / 1000)
		if n != 1_000_000 {
			spacing = int64(float64(1<<20) / float64(intSqrt(n)))
		}
		b.Run(fmt.Sprintf("k=3/n=%d", n), func(b *testing.B) {
			for b.Loop() {
				if err := WalkBounded(context.Background(), pts, 3, func() int64 { return 2 * spacing }, func(*Family) bool { return true }); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func intSqrt(n int) int {
	s := 0
	for (s+1)*(s+1) <= n {
		s++
	}
	return s
}

// BenchmarkKNearestSets: the de-duplicated sets procalloc voronoi lists, on random
// points of a grid (sparse: one point per 10 cells, the density of the 10^5-point
// input of docs/exact.md; dense: ties everywhere, where families repeat).
func BenchmarkKNearestSets(b *testing.B) {
	for _, c := range []struct {
		name       string
		k, n, span int
	}{{"sparse/k=3/n=20000", 3, 20_000, 447}, {"dense/k=4/n=4000", 4, 4_000, 45}} {
		r := rand.New(rand.NewPCG(uint64(c.n), uint64(c.k)))
		pts := randomPoints(r, c.n, c.span, false)
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				sets, err := KNearestSets(pts, c.k, 0)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(len(sets)), "sets")
			}
		})
	}
}
