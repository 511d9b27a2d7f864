package bench

import (
	"errors"
	"math"
)

// Exponent fits t = a n^e by least squares on log t against log n and returns e,
// the growth of a decision's time with the machine's size (1 linear, 2 quadratic).
// Points with t <= 0 are left out; fewer than two points left is an error.
func Exponent(n []int, t []float64) (float64, error) {
	var sx, sy, sxx, sxy float64
	m := 0
	for i := range n {
		if i >= len(t) || t[i] <= 0 || n[i] <= 0 {
			continue
		}
		x, y := math.Log(float64(n[i])), math.Log(t[i])
		sx, sy, sxx, sxy = sx+x, sy+y, sxx+x*x, sxy+x*y
		m++
	}
	if m < 2 {
		return 0, errors.New("bench: an exponent needs two sizes or more")
	}
	den := float64(m)*sxx - sx*sx
	if den == 0 {
		return 0, errors.New("bench: an exponent needs two different sizes")
	}
	return (float64(m)*sxy - sx*sy) / den, nil
}
