package ptas

import (
	"cmp"
	"slices"

	"github.com/procalloc/procalloc/geom"
)

// maxImproveSpan bounds the coordinate range per dimension of improveByCounts.
const maxImproveSpan = 1 << 16

// improveByCounts is improve for integer coordinates of small range, the same swaps
// in the same order (TestImproveMatchesDefinition runs both), without a pass over
// every point per swap. A point's summed distance to the chosen set is a sum over
// dimensions of f_j(its coordinate j), f_j(v) the summed distance along j from v
// to the chosen set's coordinates: a swap updates f over the coordinate range
// (O(d span)) instead of every point's sum (O(n d)). The candidates of a round
// (unchosen points whose bound can be <= 0, improve's filter) are read from the
// points grouped by their first coordinate, passing over every group whose f_0
// plus the other dimensions' smallest f is already too large. ok is false when the
// path does not apply (fractional coordinates, a range over maxImproveSpan, k < 2).
func improveByCounts[T geom.Number](pr *problem[T], start []int) (sel []int, ok bool) {
	n, d, k := pr.n, pr.d, pr.k
	if isFloat[T]() || k < 2 {
		return nil, false
	}
	lo := make([]int64, d)
	span := make([]int, d)
	for j := range d {
		mn, mx := int64(pr.pts[0][j]), int64(pr.pts[0][j])
		for _, p := range pr.pts {
			mn, mx = min(mn, int64(p[j])), max(mx, int64(p[j]))
		}
		if mx-mn >= maxImproveSpan {
			return nil, false
		}
		lo[j], span[j] = mn, int(mx-mn)+1
	}
	// off[i*d+j]: coordinate j of point i minus lo[j].
	off := make([]int32, n*d)
	for i, p := range pr.pts {
		for j, v := range p {
			off[i*d+j] = int32(int64(v) - lo[j])
		}
	}
	// Points grouped by their first coordinate, ascending by index in each group.
	gStart := make([]int32, span[0]+1)
	for i := range n {
		gStart[off[i*d]+1]++
	}
	for v := 1; v <= span[0]; v++ {
		gStart[v] += gStart[v-1]
	}
	gPts := make([]int32, n)
	fill := slices.Clone(gStart[:span[0]])
	for i := range n {
		v := off[i*d]
		gPts[fill[v]] = int32(i)
		fill[v]++
	}
	// f[j][v]: summed distance along j from offset v to the chosen points.
	f := make([][]int64, d)
	for j := range d {
		f[j] = make([]int64, span[j])
		cnt := make([]int64, span[j])
		for _, q := range start {
			cnt[off[q*d+j]]++
		}
		// Left to right: points at or left of v and their distance; then from the
		// right likewise.
		var c, s int64
		for v := range span[j] {
			s += c // every point left of v is one further
			c += cnt[v]
			f[j][v] = s
		}
		c, s = 0, 0
		for v := span[j] - 1; v >= 0; v-- {
			s += c
			c += cnt[v]
			f[j][v] += s
		}
	}
	Dof := func(i int) int64 {
		var s int64
		for j := range d {
			s += f[j][off[i*d+j]]
		}
		return s
	}
	dist := func(a, b int) int64 {
		var s int64
		for j := range d {
			s += int64(abs(int(off[a*d+j]) - int(off[b*d+j])))
		}
		return s
	}
	sel = slices.Clone(start)
	in := make([]bool, n)
	for _, i := range sel {
		in[i] = true
	}
	D := make([]int64, n) // valid for the chosen points and the round's candidates
	k1, k2, kk := int64(k-1), int64(k+1), int64(k)
	var cand []int
	for {
		var maxDo int64
		for _, o := range sel {
			D[o] = Dof(o)
			maxDo = max(maxDo, D[o])
		}
		// A group can hold a candidate only if f_0 plus the other dimensions'
		// smallest f passes the filter.
		var rest int64
		for j := 1; j < d; j++ {
			rest += slices.Min(f[j])
		}
		cand = cand[:0]
		for v := range span[0] {
			if (f[0][v]+rest)*k1-maxDo*k2 > 0 {
				continue
			}
			for _, i := range gPts[gStart[v]:gStart[v+1]] {
				if in[i] {
					continue
				}
				if Di := Dof(int(i)); Di*k1-maxDo*k2 <= 0 {
					D[i] = Di
					cand = append(cand, int(i))
				}
			}
		}
		slices.SortFunc(cand, func(a, b int) int {
			if c := cmp.Compare(D[a], D[b]); c != 0 {
				return c
			}
			return a - b
		})
		var bestDelta int64
		bo, bi := -1, -1
		for oi, o := range sel {
			Do := D[o]
			for _, i := range cand {
				if D[i]*k1-Do*k2 > kk*bestDelta {
					break
				}
				delta := D[i] - dist(i, o) - Do
				if delta < bestDelta || delta == bestDelta && oi == bo && i < bi {
					bestDelta, bo, bi = delta, oi, i
				}
			}
		}
		if bo < 0 {
			return sel, true
		}
		o := sel[bo]
		for j := range d {
			a, b := int(off[bi*d+j]), int(off[o*d+j])
			fj := f[j]
			for v := range fj {
				fj[v] += int64(abs(v-a) - abs(v-b))
			}
		}
		in[o], in[bi] = false, true
		sel[bo] = bi
	}
}
