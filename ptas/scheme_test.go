package ptas

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

// runScheme runs the enumeration alone (no MM incumbent, so nothing is pruned) and
// returns its best total.
func runScheme(t *testing.T, pts [][]float64, k, m int) float64 {
	t.Helper()
	pr, err := newProblem(pts, k)
	if err != nil {
		t.Fatal(err)
	}
	s := &scheme{pr: pr, sizes: sliceSizes(k, m), ratio: PTASRatio(k, m), sc: newPairScorer(pr.pts, k),
		bestTotal: math.Inf(1)}
	if err := s.run(context.Background()); err != nil {
		t.Fatal(err)
	}
	return s.bestTotal
}

// The enumeration by itself meets PTASRatio(k, m) for every k and m (also m not
// dividing k, and m >= k where it is exact), in 1, 2 and 3 dimensions.
func TestSchemeMeetsItsRatio(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	worst := map[int]float64{}
	for trial := 0; trial < 400; trial++ {
		d := 1 + r.IntN(3)
		n := 3 + r.IntN(6)
		if d == 3 {
			n = 3 + r.IntN(4)
		}
		k := 2 + r.IntN(n-2)
		m := 1 + r.IntN(6)
		var pts [][]float64
		if r.IntN(2) == 0 {
			pts = randomFloats(r, n, d)
		} else {
			for _, p := range randomInts(r, n, d, 4) {
				q := make([]float64, d)
				for j, v := range p {
					q[j] = float64(v)
				}
				pts = append(pts, q)
			}
		}
		opt := bruteOpt(pts, k)
		got := runScheme(t, pts, k, m)
		ratio := PTASRatio(k, m)
		if math.IsInf(ratio, 1) {
			continue
		}
		if got > ratio*opt+1e-9 || got < opt-1e-9 {
			t.Fatalf("d=%d n=%d k=%d m=%d: scheme %v, optimum %v, ratio %v", d, n, k, m, got, opt, ratio)
		}
		if m >= k && math.Abs(got-opt) > 1e-9 {
			t.Fatalf("m >= k must be exact: %v vs %v", got, opt)
		}
		if opt > 0 {
			worst[m] = max(worst[m], got/opt)
		}
	}
	t.Logf("worst scheme ratio by m: %v", worst)
}

func TestRatios(t *testing.T) {
	// Paper: m = 8, 11, 17 are the smallest m with 1/(1-1/(m-2)-2/(m-1)) <= 2, 1.5, 1.25.
	// mK8 is ChooseM(8, eps), which docs/ptas.md quotes ("4 or 5 for k = 8").
	for _, c := range []struct {
		eps float64
		m   int
		mK8 int
	}{{1, 8, 4}, {0.5, 11, 5}, {0.25, 17, 5}} {
		if m := PaperM(c.eps); m != c.m {
			t.Errorf("eps %v: paper m = %d, want %d", c.eps, m, c.m)
		}
		if m, err := ChooseM(8, c.eps); err != nil || m != c.mK8 {
			t.Errorf("k=8 eps=%v: ChooseM %d (%v), docs/ptas.md says %d", c.eps, m, err, c.mK8)
		}
		if PaperRatio(c.m) > 1+c.eps || PaperRatio(c.m-1) <= 1+c.eps {
			t.Errorf("paper ratio of m=%d: %v", c.m, PaperRatio(c.m))
		}
		// ChooseM never needs more than the paper's m, meets 1+eps, and is minimal.
		for _, k := range []int{2, 3, 7, 8, 16, 33, 64, 1000} {
			m, err := ChooseM(k, c.eps)
			if err != nil || m > max(c.m, 1) || m > k || PTASRatio(k, m) > 1+c.eps {
				t.Errorf("k=%d eps=%v: m=%d ratio %v (%v)", k, c.eps, m, PTASRatio(k, m), err)
			}
			if m > 1 && PTASRatio(k, m-1) <= 1+c.eps {
				t.Errorf("k=%d eps=%v: m=%d is not the smallest", k, c.eps, m)
			}
		}
	}
	// For m | k our ratio is never worse than the paper's.
	for m := 5; m < 30; m++ {
		for q := 1; q < 10; q++ {
			if r := PTASRatio(m*q, m); r > PaperRatio(m)+1e-12 {
				t.Errorf("k=%d m=%d: %v > paper %v", m*q, m, r, PaperRatio(m))
			}
		}
	}
	if PTASRatio(5, 5) != 1 || PTASRatio(5, 9) != 1 || PTASRatio(1, 1) != 1 {
		t.Error("one point per slice must be exact")
	}
	if !math.IsInf(PTASRatio(2, 1), 1) || !math.IsInf(PTASRatio(9, 2), 1) {
		t.Error("one or two slices give no guarantee")
	}
}
