package ptas

import (
	"context"
	"testing"
)

// docs/ptas.md: on Fig. 4's instance (k = 8, L = 100, n = 14), MM's worst case, the
// scheme improves on MM with m = 4 (eps = 1) and finds the optimum with m = 5
// (eps = 0.5); the optimum by brute force over all 8-subsets.
func TestPTASFig4AgainstBruteForce(t *testing.T) {
	var pts [][]float64
	for _, p := range fig4(8, 100) {
		pts = append(pts, []float64{float64(p[0]), float64(p[1])})
	}
	opt := bruteOpt(pts, 8)
	mm, err := MM(pts, 8, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if mm.Total <= opt {
		t.Fatalf("MM total %v, optimum %v: not MM's bad case", mm.Total, opt)
	}
	for _, c := range []struct {
		eps     float64
		m       int
		optimal bool
	}{{1, 4, false}, {0.5, 5, true}} {
		if m, err := ChooseM(8, c.eps); err != nil || m != c.m {
			t.Fatalf("eps %v: m = %d (%v), docs/ptas.md says %d", c.eps, m, err, c.m)
		}
		res, err := PTAS(context.Background(), pts, 8, c.eps)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("eps %v: PTAS/OPT %.3f, MM/OPT %.3f", c.eps, res.Total/opt, mm.Total/opt)
		if res.Total >= mm.Total || res.Total < opt || (c.optimal && res.Total != opt) {
			t.Errorf("eps %v: PTAS total %v, MM %v, optimum %v", c.eps, res.Total, mm.Total, opt)
		}
	}
}
