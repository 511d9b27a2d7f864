package ptas

import (
	"slices"

	"github.com/procalloc/procalloc/geom"
)

// improve runs swap local search from the subset start (returned in place order: a
// swapped-in point takes the swapped-out point's position).
func improve[T geom.Number](pr *problem[T], start []int) []int {
	n := pr.n
	sel := slices.Clone(start)
	in := make([]bool, n)
	for _, i := range sel {
		in[i] = true
	}
	// D[p] = sum of L1 distances from p to the chosen points.
	D := make([]T, n)
	for p := 0; p < n; p++ {
		var s T
		for _, q := range sel {
			s += geom.L1(pr.pts[p], pr.pts[q])
		}
		D[p] = s
	}
	var total T
	for _, q := range sel {
		total += D[q]
	}
	total /= 2
	// Float sums drift; demand a decrease beyond rounding noise so the search ends.
	tolerance := func() T {
		if !isFloat[T]() {
			return 0
		}
		return T(1e-12 * max(float64(total), 1))
	}
	tol := tolerance()
	for {
		bestDelta, bo, bi := -tol, -1, -1
		for oi, o := range sel {
			po, Do := pr.pts[o], D[o]
			for i := 0; i < n; i++ {
				if in[i] {
					continue
				}
				// New total = total - D[o] + (D[i] - d(i, o)).
				delta := D[i] - geom.L1(pr.pts[i], po) - Do
				if delta < bestDelta {
					bestDelta, bo, bi = delta, oi, i
				}
			}
		}
		if bo < 0 {
			return sel
		}
		o := sel[bo]
		pi, po := pr.pts[bi], pr.pts[o]
		for p := 0; p < n; p++ {
			D[p] += geom.L1(pr.pts[p], pi) - geom.L1(pr.pts[p], po)
		}
		in[o], in[bi] = false, true
		sel[bo] = bi
		total += bestDelta
		tol = tolerance()
	}
}

// isFloat reports whether T is a floating-point type.
func isFloat[T geom.Number]() bool {
	half := 0.5
	return T(half) != 0
}
