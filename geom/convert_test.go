package geom

import (
	"math"
	"slices"
	"testing"
)

// ToInt converts only integers an int and a float64 both hold exactly; infinities,
// NaN, fractions and magnitudes past 2^53 (ReadPoints refuses them, programmatic
// input need not) report false.
func TestToInt(t *testing.T) {
	got, ok := ToInt([]PointF{{1, -2}, {0, 1 << 53}, {-(1 << 53), 7}})
	if !ok || !slices.EqualFunc(got, []Point{{1, -2}, {0, 1 << 53}, {-(1 << 53), 7}}, slices.Equal) {
		t.Errorf("integers: %v, %v", got, ok)
	}
	for _, v := range []float64{0.5, -3.25, math.Inf(1), math.Inf(-1), math.NaN(), 1 << 54, -(1 << 54), 1e300} {
		if got, ok := ToInt([]PointF{{0, 0}, {1, v}}); ok || got != nil {
			t.Errorf("%v: %v, %v; want false", v, got, ok)
		}
	}
	if back := ToFloat([]Point{{3, -4}}); !slices.Equal(back[0], PointF{3, -4}) {
		t.Errorf("ToFloat: %v", back)
	}
}

// Compare is the lexicographic order of the coordinates, a shorter point first when
// one is a prefix of the other (slices.Compare's rule).
func TestCompareIsLexicographic(t *testing.T) {
	pts := []Point{{}, {0}, {0, 0}, {0, 1}, {1}, {1, -1}, {-1, 5, 2}, {-1, 5}, {2, 0, 0}, {0, 0}}
	for _, a := range pts {
		for _, b := range pts {
			if got, want := Compare(a, b), slices.Compare(a, b); got != want {
				t.Errorf("Compare(%v, %v) = %d, want %d", a, b, got, want)
			}
		}
	}
}

// LInf, package ptas's reference metric for its L-infinity tests, by hand and as the
// largest per-axis term of L1.
func TestLInf(t *testing.T) {
	if got := LInf([]int{1, -5, 3}, []int{4, 2, 3}); got != 7 {
		t.Errorf("LInf = %d, want 7", got)
	}
	if got := LInf([]float64{0.5}, []float64{-0.25}); got != 0.75 {
		t.Errorf("LInf = %g, want 0.75", got)
	}
	for _, c := range [][2][]int{{{0, 0}, {0, 0}}, {{3, 9, -2}, {-1, 9, 4}}, {{7}, {-7}}} {
		want := 0
		for j := range c[0] {
			want = max(want, L1(c[0][j:j+1], c[1][j:j+1]))
		}
		if got := LInf(c[0], c[1]); got != want {
			t.Errorf("LInf(%v, %v) = %d, want %d", c[0], c[1], got, want)
		}
	}
}

func TestFirstNonInteger(t *testing.T) {
	for _, c := range []struct {
		pts  []PointF
		want int
	}{
		{nil, -1},
		{[]PointF{{1, 2}, {-3, 0}}, -1},
		{[]PointF{{1, 2}, {3, 0.5}, {1.5, 1}}, 1},
		{[]PointF{{1 << 53, 0}, {1<<53 + 2, 0}}, 1},
		{[]PointF{{math.NaN()}}, 0},
		{[]PointF{{0}, {math.Inf(-1)}}, 1},
	} {
		if got := FirstNonInteger(c.pts); got != c.want {
			t.Errorf("FirstNonInteger(%v) = %d, want %d", c.pts, got, c.want)
		}
		if _, ok := ToInt(c.pts); ok != (c.want < 0) {
			t.Errorf("ToInt(%v) ok = %v, want %v", c.pts, ok, c.want < 0)
		}
	}
}
