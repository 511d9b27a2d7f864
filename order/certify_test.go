package order

import (
	"math"
	"math/big"
	"testing"

	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/topo"
)

// A float64 F can round down onto a bound that the true F exceeds: optimality is
// certified only on F recomputed exactly from the integer lag sums.
func TestCertifiesNotOnRounding(t *testing.T) {
	m := topo.Mesh(4)
	o := []int{0, 1, 3, 2} // D_1 = 1+2+1 = 4, D_2 = 3+1 = 4
	w := curves.Weights{1, math.Ldexp(1, -60)}
	f, err := curves.Objective(m, o, w, false)
	if err != nil {
		t.Fatal(err)
	}
	if f != 4 {
		t.Fatalf("float64 F = %v, want it rounded to 4 (true F = 4 + 2^-58)", f)
	}
	if certifies(m, o, w, false, 4) {
		t.Errorf("bound 4 certified F = 4 + 2^-58 as optimal")
	}
	if !certifies(m, o, w, false, math.Nextafter(4, 5)) {
		t.Errorf("a bound above the exact F did not certify it")
	}
	// Exact weights: F = 4 + 4/2 = 6 meets a bound of 6 exactly.
	if !certifies(m, o, curves.Weights{1, 0.5}, false, 6) {
		t.Errorf("exact F = 6 not certified by the bound 6")
	}
	if certifies(m, o, w, false, math.Inf(1)) || certifies(m, o, w, false, math.NaN()) {
		t.Errorf("a non-finite bound certified an ordering")
	}
}

// The pairs bound is Exact only when its float64 equals the rational sum.
func TestPairBoundExactness(t *testing.T) {
	m := topo.Mesh(4)
	b := pairBound(m, curves.Weights{1, math.Ldexp(1, -60)}, false) // 3 + 2·2^-60
	if b.Exact || b.Value > 3+math.Ldexp(1, -59) {
		t.Errorf("pairs bound %v exact=%v: want the float64 below 3 + 2^-59, not exact", b.Value, b.Exact)
	}
	b = pairBound(m, curves.Weights{1, 0.5}, false) // 3 + 2·0.5 = 4
	if !b.Exact || b.Value != 4 {
		t.Errorf("pairs bound %v exact=%v, want 4 exact", b.Value, b.Exact)
	}
}

// A bound beyond float64's range rounds down to the largest float64, never to +Inf
// and never with a panic.
func TestRatFloorFloatOutOfRange(t *testing.T) {
	huge := new(big.Rat).SetFloat64(math.MaxFloat64)
	huge.Mul(huge, big.NewRat(4, 1))
	if f, exact := ratFloorFloat(huge); f != math.MaxFloat64 || exact {
		t.Errorf("ratFloorFloat(4 MaxFloat64) = %v, %v; want MaxFloat64, false", f, exact)
	}
	if f, exact := ratFloorFloat(new(big.Rat).Neg(huge)); !math.IsInf(f, -1) || exact {
		t.Errorf("ratFloorFloat(-4 MaxFloat64) = %v, %v; want -Inf, false", f, exact)
	}
	third := big.NewRat(1, 3)
	if f, exact := ratFloorFloat(third); exact || new(big.Rat).SetFloat64(f).Cmp(third) > 0 {
		t.Errorf("ratFloorFloat(1/3) = %v, %v: above 1/3 or claimed exact", f, exact)
	}
}
