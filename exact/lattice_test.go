package exact

import (
	"context"
	"testing"
)

// The tabulated optima are what Clusters proves, every size in one run as the CLI
// does (in -short mode a prefix; the full Z^3 run to m = 60 takes about a minute).
func TestLatticeTable(t *testing.T) {
	for _, tc := range []struct {
		dim   int
		table []int64
		short int
	}{{2, z2Optima, 120}, {3, z3Optima, 30}} {
		upto := len(tc.table) - 1
		if testing.Short() {
			upto = tc.short
		}
		all, err := Clusters(context.Background(), tc.dim, upto)
		if err != nil {
			t.Fatal(err)
		}
		if len(all) != upto {
			t.Fatalf("dim %d: %d results, want %d", tc.dim, len(all), upto)
		}
		for _, c := range all {
			if !c.Optimal || c.Total != tc.table[c.K] {
				t.Errorf("dim %d k %d: computed %d (optimal %v), table %d", tc.dim, c.K, c.Total, c.Optimal, tc.table[c.K])
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
