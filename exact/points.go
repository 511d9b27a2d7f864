package exact

import (
	"fmt"
	"math"

	"github.com/procalloc/procalloc/geom"
)

// exactSumLimit bounds the magnitude of every value the branch and bound adds up on
// integral input: below it, sums of integers and halves of integers are exact in
// float64 (2^52 halves; one bit of margin for the running sums alpha and wA).
const exactSumLimit = 1 << 51

// floatPoints returns pts as the float points the search runs on, after the checks
// every Subset input gets: at least one point, one positive dimension, finite
// coordinates. A []geom.PointF is returned as it is and a point type over float64
// shares its storage (no copy: the float path costs what it did); other coordinate
// types are converted. isInt reports an integer coordinate type; its coordinates
// must be below 2^53 in magnitude, where float64 holds every integer.
func floatPoints[P ~[]T, T geom.Number](pts []P) (fp []geom.PointF, isInt bool, err error) {
	if len(pts) == 0 {
		return nil, false, fmt.Errorf("exact: no points")
	}
	if err := geom.CheckDims(pts); err != nil {
		return nil, false, fmt.Errorf("exact: %w", err)
	}
	isInt = T(1)/T(2) == 0 // 0.5 for float types, 0 for integer ones
	if f, ok := any(pts).([]geom.PointF); ok {
		fp = f
	} else {
		fp = make([]geom.PointF, len(pts))
		for i, p := range pts {
			if f, ok := any([]T(p)).([]float64); ok {
				fp[i] = f
				continue
			}
			q := make(geom.PointF, len(p))
			for j, v := range p {
				q[j] = float64(v)
			}
			fp[i] = q
		}
	}
	for i, p := range fp {
		for j, v := range p {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, false, fmt.Errorf("exact: point %d coordinate %d is %v", i, j, v)
			}
			// Conversion rounds monotonically, so every |x| >= 2^53 lands here.
			if isInt && math.Abs(v) >= 1<<53 {
				return nil, false, fmt.Errorf("exact: point %d coordinate %d is %v: integer coordinates must be below 2^53 in magnitude to be exact in float64", i, j, pts[i][j])
			}
		}
	}
	return fp, isInt, nil
}

// sumBound bounds the magnitude of every sum the search forms on pts with linear
// terms of magnitude at most linMax: n (2 n D + linMax), D the L1 diameter of the
// points' bounding box (a bound on every distance, on a torus too). A bound at node
// is w(A) plus m terms α + Linear + β, each at most k D + linMax + k D.
func sumBound(pts []geom.PointF, linMax float64) float64 {
	n := float64(len(pts))
	box := geom.BoundingBox(pts)
	return n * (2*n*box.SumOfSides() + linMax)
}

// maxAbs is the largest magnitude in lin (0 for none).
func maxAbs(lin []float64) float64 {
	m := 0.0
	for _, v := range lin {
		m = max(m, math.Abs(v))
	}
	return m
}

// checkExactRange refuses integer input whose sums would leave float64's exact
// integers: the search could then round a bound past the optimum and claim it.
func checkExactRange(pts []geom.PointF, linMax float64) error {
	if b := sumBound(pts, linMax); b >= exactSumLimit {
		return fmt.Errorf("exact: integer points spread too far for exact totals: the search's sums reach %.3g, and float64 is exact only below 2^51 (%.3g); bring the points closer, fewer of them, or pass float points (then no certificate is exact)", b, float64(exactSumLimit))
	}
	return nil
}

// exactIntegral reports whether the search may round its bounds up to integers:
// integral coordinates, linear terms and periods, and every sum exact (sumBound
// below exactSumLimit). Float input with integral values far apart is searched as
// float input, without rounding.
func exactIntegral(pts []geom.PointF, lin, periods []float64) bool {
	for _, vs := range [][]float64{lin, periods} {
		for _, v := range vs {
			if v != math.Trunc(v) {
				return false
			}
		}
	}
	for _, p := range pts {
		for _, v := range p {
			if v != math.Trunc(v) {
				return false
			}
		}
	}
	return sumBound(pts, maxAbs(lin)) < exactSumLimit
}
