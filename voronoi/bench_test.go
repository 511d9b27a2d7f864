package voronoi

import (
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
				if err := WalkBounded(pts, 3, func() int64 { return 2 * spacing }, func(*Family) bool { return true }); err != nil {
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
