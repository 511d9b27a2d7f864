package ptas

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
)

// meshFree returns the free nodes of an X x Y mesh with the given fraction busy
// (seeded), in the reference free-list order (x outermost, then y).
func meshFree(X, Y int, busy float64, seed uint64) [][]int {
	r := rand.New(rand.NewPCG(seed, 1))
	var pts [][]int
	for x := 0; x < X; x++ {
		for y := 0; y < Y; y++ {
			if r.Float64() >= busy {
				pts = append(pts, []int{x, y})
			}
		}
	}
	return pts
}

func randomPlane(n int, seed uint64) ([][]int, [][]float64) {
	r := rand.New(rand.NewPCG(seed, 2))
	ip := make([][]int, n)
	fp := make([][]float64, n)
	for i := range ip {
		ip[i] = []int{r.IntN(1024), r.IntN(1024)}
		fp[i] = []float64{r.Float64(), r.Float64()}
	}
	return ip, fp
}

func benchAlgos[T interface{ ~int | ~float64 }](b *testing.B, pts [][]T, k int) {
	for _, a := range []struct {
		name string
		f    func([][]T, int, Options) (Result, error)
	}{{"MM", MM[[]T, T]}, {"GenAlg", GenAlg[[]T, T]}, {"MC1x1", MC1x1[[]T, T]}, {"MMInc", MMInc[[]T, T]}} {
		for _, ties := range []Ties{TiesByIndex, TiesPReMAS} {
			b.Run(a.name+"/"+ties.String(), func(b *testing.B) {
				for b.Loop() {
					if _, err := a.f(pts, k, Options{Ties: ties}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// The free nodes of a 32x32 mesh at 50% occupancy, k = 64 (goal: MM under 10 ms).
func BenchmarkMesh32x32Half(b *testing.B) {
	benchAlgos(b, meshFree(32, 32, 0.5, 1), 64)
}

// The free nodes of a 16x16 mesh at 50% occupancy, k = 32: trace replay's case.
func BenchmarkMesh16x16Half(b *testing.B) {
	benchAlgos(b, meshFree(16, 16, 0.5, 1), 32)
}

// 1,024 random points with integer coordinates in [0, 1024)^2, k = 64.
func BenchmarkRandom1024Int(b *testing.B) {
	ip, _ := randomPlane(1024, 3)
	benchAlgos(b, ip, 64)
}

// 1,024 random points in the unit square (float64), k = 64.
func BenchmarkRandom1024Float(b *testing.B) {
	_, fp := randomPlane(1024, 3)
	benchAlgos(b, fp, 64)
}

// PTAS time and achieved ratio against the brute-force optimum (reported as the
// "ratio" metric, the scheme's guarantee as "guarantee").
func BenchmarkPTAS(b *testing.B) {
	for _, n := range []int{12, 20} {
		for _, k := range []int{4, 8} {
			r := rand.New(rand.NewPCG(uint64(n), uint64(k)))
			pts := randomFloats(r, n, 2)
			opt := bruteOpt(pts, k)
			for _, eps := range []float64{1, 0.5, 0.25} {
				b.Run(fmt.Sprintf("n=%d/k=%d/eps=%v", n, k, eps), func(b *testing.B) {
					var res Result
					for b.Loop() {
						var err error
						if res, err = PTAS(context.Background(), pts, k, eps); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(res.Total/opt, "ratio")
					b.ReportMetric(res.Guarantee, "guarantee")
					mm, _ := MM(pts, k, Options{})
					b.ReportMetric(mm.Total/opt, "mm-ratio")
				})
			}
		}
	}
}
