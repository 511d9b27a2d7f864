package ptas

import (
	"cmp"
	"slices"

	"github.com/procalloc/procalloc/geom"
)

// improve runs swap local search from the subset start (returned in place order: a
// swapped-in point takes the swapped-out point's position).
//
// Every point p keeps D[p], its summed L1 distance to the chosen set S, so swapping
// chosen o for unchosen i changes the total by D[i] - d(i, o) - D[o] (O(d)), and
// applying a swap updates D in O(n d). Each round takes the largest decrease; ties go
// to the chosen point earliest in the slice, then the unchosen point of smallest index.
// The scan for a chosen o visits unchosen points by ascending D and stops early: by the
// triangle inequality k d(i, o) <= D[i] + D[o], so the change is at least
// D[i](1 - 1/k) - D[o](1 + 1/k), which only grows along that order.
func improve[T geom.Number](pr *problem[T], start []int) []int {
	n, d, k := pr.n, pr.d, pr.k
	flat := make([]T, 0, n*d)
	for _, p := range pr.pts {
		flat = append(flat, p...)
	}
	dist := func(a, b int) T {
		var s T
		pa, pb := flat[a*d:a*d+d], flat[b*d:b*d+d]
		for j := range pa {
			s += absT(pa[j] - pb[j])
		}
		return s
	}
	sel := slices.Clone(start)
	in := make([]bool, n)
	for _, i := range sel {
		in[i] = true
	}
	D := make([]T, n)
	for p := 0; p < n; p++ {
		var s T
		for _, q := range sel {
			s += dist(p, q)
		}
		D[p] = s
	}
	var total T
	for _, q := range sel {
		total += D[q]
	}
	total /= 2
	float := isFloat[T]()
	// Float sums drift; demand a decrease beyond rounding noise so the search ends.
	tolerance := func() T {
		if !float {
			return 0
		}
		return T(1e-12 * max(float64(total), 1))
	}
	lo, hi := 1-1/float64(k), 1+1/float64(k)
	cand := make([]int, 0, n-k)
	for {
		tol := tolerance()
		cand = cand[:0]
		for i := 0; i < n; i++ {
			if !in[i] {
				cand = append(cand, i)
			}
		}
		slices.SortFunc(cand, func(a, b int) int {
			if c := cmp.Compare(D[a], D[b]); c != 0 {
				return c
			}
			return a - b
		})
		bestDelta, bo, bi := -tol, -1, -1
		for oi, o := range sel {
			Do := D[o]
			for _, i := range cand {
				// Lower bound on the change; stop once it cannot reach the best (with a
				// margin for float rounding; ties at equal change are still visited).
				lb := float64(D[i])*lo - float64(Do)*hi
				if float {
					lb -= 1e-9 * (float64(D[i]) + float64(Do) + 1)
				}
				if lb > float64(bestDelta) {
					break
				}
				delta := D[i] - dist(i, o) - Do
				if delta < bestDelta || delta == bestDelta && oi == bo && i < bi {
					bestDelta, bo, bi = delta, oi, i
				}
			}
		}
		if bo < 0 {
			return sel
		}
		o := sel[bo]
		for p := 0; p < n; p++ {
			D[p] += dist(p, bi) - dist(p, o)
		}
		in[o], in[bi] = false, true
		sel[bo] = bi
		total += bestDelta
	}
}

// isFloat reports whether T is a floating-point type.
func isFloat[T geom.Number]() bool {
	half := 0.5
	return T(half) != 0
}
