package bench

import (
	"math"
	"testing"
)

func TestExponent(t *testing.T) {
	n := []int{1000, 4000, 16000, 64000}
	for _, e := range []float64{0, 0.5, 1, 2} {
		var ts []float64
		for _, v := range n {
			ts = append(ts, 3*math.Pow(float64(v), e))
		}
		got, err := Exponent(n, ts)
		if err != nil || math.Abs(got-e) > 1e-9 {
			t.Errorf("n^%g: fitted %g, %v", e, got, err)
		}
	}
	if _, err := Exponent([]int{5}, []float64{1}); err == nil {
		t.Error("one point fitted")
	}
	if _, err := Exponent([]int{5, 5}, []float64{1, 2}); err == nil {
		t.Error("one size fitted")
	}
}
