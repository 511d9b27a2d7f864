package ptas

import (
	"context"
	"fmt"
	"math/rand/v2"
	"syscall"
	"testing"
	"time"
)

// cpuTime is the process's user+system CPU time. Benchmarks report it per operation
// ("cpu-ns/op") next to wall time because the shared build machine is often loaded.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// loop runs f under b.Loop and reports CPU time per operation.
func loop(b *testing.B, f func() error) {
	start, n := cpuTime(), 0
	for b.Loop() {
		if err := f(); err != nil {
			b.Fatal(err)
		}
		n++
	}
	if n > 0 {
		b.ReportMetric(float64(cpuTime()-start)/float64(n), "cpu-ns/op")
	}
}

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
				loop(b, func() error { _, err := a.f(pts, k, Options{Ties: ties}); return err })
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

// PTAS time and achieved ratio against the brute-force optimum ("ratio"), with the
// guarantee for the m used and MM's ratio on the same instance ("mm-ratio"). Random
// instances are easy for MM; Fig. 4's family (k = 8, epsilon = 1/100) is MM's worst
// case, where the scheme has to find the optimum itself.
func BenchmarkPTAS(b *testing.B) {
	type inst struct {
		name string
		pts  [][]float64
		k    int
	}
	var insts []inst
	for _, c := range []struct{ n, k int }{{12, 4}, {20, 4}, {20, 8}} {
		r := rand.New(rand.NewPCG(uint64(c.n), uint64(c.k)))
		insts = append(insts, inst{fmt.Sprintf("random/n=%d/k=%d", c.n, c.k), randomFloats(r, c.n, 2), c.k})
	}
	var fig [][]float64
	for _, p := range fig4(8, 100) {
		fig = append(fig, []float64{float64(p[0]), float64(p[1])})
	}
	insts = append(insts, inst{"fig4/n=14/k=8", fig, 8})
	for _, in := range insts {
		opt := bruteOpt(in.pts, in.k)
		mm, _ := MM(in.pts, in.k, Options{})
		for _, eps := range []float64{1, 0.5, 0.25} {
			b.Run(fmt.Sprintf("%s/eps=%v", in.name, eps), func(b *testing.B) {
				var res Result
				loop(b, func() (err error) {
					res, err = PTAS(context.Background(), in.pts, in.k, eps)
					return err
				})
				m, _ := ChooseM(in.k, eps)
				b.ReportMetric(float64(m), "m")
				b.ReportMetric(res.Total/opt, "ratio")
				b.ReportMetric(res.Guarantee, "guarantee")
				b.ReportMetric(mm.Total/opt, "mm-ratio")
			})
		}
	}
}

// meshFree3 returns the free nodes of an X x Y x Z mesh (x outermost, then y, z).
func meshFree3(X, Y, Z int, busy float64, seed uint64) [][]int {
	r := rand.New(rand.NewPCG(seed, 3))
	var pts [][]int
	for x := 0; x < X; x++ {
		for y := 0; y < Y; y++ {
			for z := 0; z < Z; z++ {
				if r.Float64() >= busy {
					pts = append(pts, []int{x, y, z})
				}
			}
		}
	}
	return pts
}

// MM on the free nodes of a 16x16x16 mesh at 50% occupancy, k = 32.
func BenchmarkMesh16x16x16HalfMM(b *testing.B) {
	pts := meshFree3(16, 16, 16, 0.5, 1)
	for _, ties := range []Ties{TiesByIndex, TiesPReMAS} {
		b.Run(ties.String(), func(b *testing.B) {
			loop(b, func() error { _, err := MM(pts, 32, Options{Ties: ties}); return err })
		})
	}
}
