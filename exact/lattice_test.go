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

// LatticeOptimum answers from the table and refuses what it does not hold.
func TestLatticeOptimum(t *testing.T) {
	for _, c := range []struct {
		dim, m int
		want   int64
		ok     bool
	}{
		{2, 0, 0, true}, {2, 3, 4, true}, {2, 49, 5398, true}, {2, len(z2Optima) - 1, z2Optima[len(z2Optima)-1], true},
		{2, len(z2Optima), 0, false}, {2, -1, 0, false}, {3, 13, 168, true}, {3, len(z3Optima), 0, false},
		{1, 5, 0, false}, {4, 5, 0, false},
	} {
		got, ok := LatticeOptimum(c.dim, c.m)
		if got != c.want || ok != c.ok {
			t.Errorf("LatticeOptimum(%d, %d) = %d, %v; want %d, %v", c.dim, c.m, got, ok, c.want, c.ok)
		}
	}
}
