package exact

import (
	"context"
	"testing"
)

func TestLatticeTable(t *testing.T) {
	for _, tc := range []struct {
		dim, upto int
		table     []int64
	}{{3, 13, z3Optima}} {
		all, err := Clusters(context.Background(), tc.dim, tc.upto)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range all {
			if !c.Optimal || c.Total != tc.table[c.K] {
				t.Errorf("dim %d k %d: computed %d (optimal %v), table %d", tc.dim, c.K, c.Total, c.Optimal, tc.table[c.K])
			}
		}
	}
	for k := 2; k <= 21; k++ {
		if z2Optima[k] != fig2[k-2] {
			t.Errorf("table k %d: %d, Fig. 2 %d", k, z2Optima[k], fig2[k-2])
		}
	}
	// The recursive extension never exceeds a known optimum.
	for m := 4; m < len(z2Optima); m++ {
		if r := float64(m) * float64(z2Optima[m-1]) / float64(m-2); r > float64(z2Optima[m]) {
			t.Errorf("recursive bound %g > optimum %d at m %d", r, z2Optima[m], m)
		}
	}
}
