package exact

import (
	"context"
	"testing"
)

// The tabulated optima are what Cluster proves (in -short mode a prefix).
func TestLatticeTable(t *testing.T) {
	for _, tc := range []struct {
		dim   int
		table []int64
		short int
	}{{2, z2Optima, 120}, {3, z3Optima, 20}} {
		upto := len(tc.table) - 1
		if testing.Short() {
			upto = tc.short
		}
		for k := 1; k <= upto; k++ {
			c, err := Cluster(context.Background(), tc.dim, k)
			if err != nil {
				t.Fatal(err)
			}
			if !c.Optimal || c.Total != tc.table[k] {
				t.Errorf("dim %d k %d: computed %d (optimal %v), table %d", tc.dim, k, c.Total, c.Optimal, tc.table[k])
			}
		}
	}
	// The recursive extension never exceeds a known optimum.
	for _, table := range [][]int64{z2Optima, z3Optima} {
		for m := 4; m < len(table); m++ {
			if r := float64(m) * float64(table[m-1]) / float64(m-2); r > float64(table[m]) {
				t.Errorf("recursive bound %g > optimum %d at m %d", r, table[m], m)
			}
		}
	}
}
