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
// D[i](1 - 1/k) - D[o](1 + 1/k), which only grows along that order. On integer
// coordinates that bound is compared times k, exactly: in floating point its
// rounding could stop a scan before a swap of equal change and smaller index (the
// documented tie rule), as it did before 2026-12-05 (TestImproveMatchesDefinition).
func improve[T geom.Number](pr *problem[T], start []int) []int {
	if !improveByScan {
		if sel, ok := improveByCounts(pr, start); ok {
			return sel
		}
	}
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
	if !sumDistancesByCounts(pr.pts, sel, D) {
		for p := 0; p < n; p++ {
			var s T
			for _, q := range sel {
				s += dist(p, q)
			}
			D[p] = s
		}
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
	k1, k2, kk := int64(k-1), int64(k+1), int64(k) // the same bound times k, exact on integers
	cand := make([]int, 0, n-k)
	for {
		tol := tolerance()
		// Only the unchosen points whose bound below can be <= 0 for some chosen
		// point are ever visited: the bound grows with D[i] and falls with D[o],
		// so with the largest D[o] it sorts out, before the sort, every point the
		// scans below would stop at or never reach (integer totals; on floats
		// every point is sorted, as the margin's rounding is not monotone).
		cand = cand[:0]
		var maxDo T
		for _, o := range sel {
			maxDo = max(maxDo, D[o])
		}
		for i := 0; i < n; i++ {
			if !in[i] && (float || int64(D[i])*k1-int64(maxDo)*k2 <= 0) {
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
				// Lower bound on the change; stop once it cannot reach the best (ties
				// at equal change are still visited: on integers the bound times k
				// is compared exactly, on floats with a margin for rounding).
				if float {
					lb := float64(D[i])*lo - float64(Do)*hi
					lb -= 1e-9 * (float64(D[i]) + float64(Do) + 1)
					if lb > float64(bestDelta) {
						break
					}
				} else if int64(D[i])*k1-int64(Do)*k2 > kk*int64(bestDelta) {
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

// improveByScan makes improve take the scan on every input (tests compare both).
var improveByScan = false

// isFloat reports whether T is a floating-point type.
func isFloat[T geom.Number]() bool {
	half := 0.5
	return T(half) != 0
}

// maxCountSpan bounds the coordinate range per dimension for which
// sumDistancesByCounts uses per-value counts.
const maxCountSpan = 1 << 22

// sumDistancesByCounts sets D[p] to the summed L1 distance from point p to the
// points sel, for integer coordinates, in O(n d + span) instead of O(n k d): per
// dimension, prefix counts and coordinate sums of sel over the value range. false
// (D untouched) for fractional coordinates or a range over maxCountSpan.
func sumDistancesByCounts[T geom.Number](pts [][]T, sel []int, D []T) bool {
	if isFloat[T]() || len(pts) == 0 {
		return false
	}
	d := len(pts[0])
	lo, hi := make([]int64, d), make([]int64, d)
	for j := range d {
		lo[j], hi[j] = int64(pts[0][j]), int64(pts[0][j])
	}
	for _, p := range pts {
		for j, v := range p {
			lo[j], hi[j] = min(lo[j], int64(v)), max(hi[j], int64(v))
		}
	}
	for j := range d {
		if hi[j]-lo[j] >= maxCountSpan {
			return false
		}
	}
	acc := make([]int64, len(pts))
	k := int64(len(sel))
	for j := range d {
		span := int(hi[j]-lo[j]) + 1
		// cnt[v+1], sum[v+1]: points of sel with coordinate offset <= v and
		// their offsets' sum.
		cnt, sum := make([]int64, span+1), make([]int64, span+1)
		var tot int64
		for _, q := range sel {
			v := int64(pts[q][j]) - lo[j]
			cnt[v+1]++
			sum[v+1] += v
			tot += v
		}
		for v := 1; v <= span; v++ {
			cnt[v] += cnt[v-1]
			sum[v] += sum[v-1]
		}
		for i, p := range pts {
			v := int64(p[j]) - lo[j]
			c, s := cnt[v+1], sum[v+1] // at or below v
			acc[i] += v*c - s + (tot - s) - v*(k-c)
		}
	}
	for i, a := range acc {
		D[i] = T(a)
	}
	return true
}
