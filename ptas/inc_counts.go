package ptas

import (
	"math/bits"
	"slices"
	"sort"

	"github.com/procalloc/procalloc/geom"
)

// maxImproveSpan bounds the coordinate range per dimension of improveByCounts.
const maxImproveSpan = 1 << 16

// improveByCounts is improve for integer coordinates of small range, the same swaps
// in the same order (TestImproveMatchesDefinition runs both), without a pass over
// every point or every chosen point per swap.
//
// A point's summed distance to the chosen set is a sum over dimensions of f_j(its
// coordinate j), f_j(v) the summed distance along j from v to the chosen set's
// coordinates, a convex function of v: a swap updates f over the coordinate range
// (O(d span)) instead of every point's sum (O(n d)). The points are kept on lines
// (equal coordinates but the last), each line's chosen and unchosen points apart,
// sorted by last coordinate. A round needs
//   - the largest D[o] of a chosen point: on a line, f_last being convex, it is at
//     the line's first or last chosen point, so a round reads two points per line
//     holding chosen ones, not all k;
//   - the candidates, the unchosen points whose bound can be <= 0 (improve's
//     filter, D[i] <= T): since D is a sum of convex f_j, the coordinates that can
//     reach T form an interval per dimension given the earlier ones (the others at
//     their least f), found by binary search, and on a line the unchosen points in
//     the last dimension's interval are a run of its sorted list;
//   - the chosen points whose scan is not stopped by the first candidate's bound:
//     on a line these are runs at both ends of its sorted chosen list.
//
// The scan over those chosen points, in Indices order, is improve's, so the swap
// taken is the same. ok is false when the path does not apply (fractional
// coordinates, a range over maxImproveSpan, more lines than about twice the
// points, k < 2).
func improveByCounts[T geom.Number](pr *problem[T], start []int) (sel []int, ok bool) {
	n, d, k := pr.n, pr.d, pr.k
	if isFloat[T]() || k < 2 || d < 1 {
		return nil, false
	}
	last := d - 1
	lo := make([]int64, d)
	span := make([]int, d)
	nLines := 1
	for j := range d {
		mn, mx := int64(pr.pts[0][j]), int64(pr.pts[0][j])
		for _, p := range pr.pts {
			mn, mx = min(mn, int64(p[j])), max(mx, int64(p[j]))
		}
		if mx-mn >= maxImproveSpan {
			return nil, false
		}
		lo[j], span[j] = mn, int(mx-mn)+1
		if j < last {
			nLines *= span[j]
			if nLines > 2*n+1024 {
				return nil, false
			}
		}
	}
	// A candidate is kept as its key D[i] << shift | i, so that sorting keys sorts
	// by (D, index); every D is at most k times the box's L1 diameter.
	shift := bits.Len(uint(n))
	diam := 0
	for j := range d {
		diam += span[j] - 1
	}
	if bits.Len64(uint64(k)*uint64(diam))+shift > 62 {
		return nil, false
	}
	mask := uint64(1)<<shift - 1
	// off[i*d+j]: coordinate j of point i minus lo[j]; line[i]: the line of point
	// i, its coordinates but the last in mixed radix (dimension 0 most significant).
	// lStart[l]: the first slot of line l in per-line lists of n slots in all.
	off := make([]int32, n*d)
	line := make([]int32, n)
	lStart := make([]int32, nLines+1)
	ordered := true // the points sorted by (line, last coordinate), as free lists are
	prev := int64(-1)
	for i, p := range pr.pts {
		l := 0
		for j, v := range p {
			off[i*d+j] = int32(int64(v) - lo[j])
			if j < last {
				l = l*span[j] + int(off[i*d+j])
			}
		}
		line[i] = int32(l)
		lStart[l+1]++
		key := int64(l)<<32 | int64(off[i*d+last])
		ordered = ordered && key >= prev
		prev = key
	}
	for l := 1; l <= nLines; l++ {
		lStart[l] += lStart[l-1]
	}
	// A line's points are kept as keys z << 32 | index (z its last coordinate's
	// offset), so sorted keys are in (last coordinate, index) order.
	lineKey := func(i int) uint64 { return uint64(off[i*d+last])<<32 | uint64(i) }
	all := make([]uint64, n)
	if ordered {
		for i := range n {
			all[i] = lineKey(i)
		}
	} else {
		// A counting sort by the last coordinate, then a stable one by line.
		byLast := make([]int32, span[last]+1)
		for i := range n {
			byLast[off[i*d+last]+1]++
		}
		for v := 1; v <= span[last]; v++ {
			byLast[v] += byLast[v-1]
		}
		sorted := make([]int32, n)
		for i := range n {
			v := off[i*d+last]
			sorted[byLast[v]] = int32(i)
			byLast[v]++
		}
		fill := slices.Clone(lStart[:nLines])
		for _, i := range sorted {
			all[fill[line[i]]] = lineKey(int(i))
			fill[line[i]]++
		}
	}
	// ch and un: per line, from lStart[l], its chosen (cc[l] of them) and unchosen
	// (uc[l]) points' keys, each sorted.
	sel = slices.Clone(start)
	in := make([]bool, n)
	pos := make([]int32, n) // pos[o]: o's place in sel
	for oi, i := range sel {
		in[i] = true
		pos[i] = int32(oi)
	}
	ch, un := make([]uint64, n), make([]uint64, n)
	cc, uc := make([]int32, nLines), make([]int32, nLines)
	var chLines []int32 // the lines holding chosen points
	for l := range nLines {
		for _, key := range all[lStart[l]:lStart[l+1]] {
			if in[uint32(key)] {
				ch[lStart[l]+cc[l]] = key
				cc[l]++
			} else {
				un[lStart[l]+uc[l]] = key
				uc[l]++
			}
		}
		if cc[l] > 0 {
			chLines = append(chLines, int32(l))
		}
	}
	remove := func(list []uint64, cnt *int32, key uint64) {
		at, _ := slices.BinarySearch(list[:*cnt], key)
		copy(list[at:*cnt], list[at+1:*cnt])
		*cnt--
	}
	insert := func(list []uint64, cnt *int32, key uint64) {
		at := int(*cnt)
		for at > 0 && key < list[at-1] {
			list[at] = list[at-1]
			at--
		}
		list[at] = key
		*cnt++
	}
	// f[j][v]: summed distance along j from offset v to the chosen points; fMin[j]
	// its least value, at fArg[j].
	f := make([][]int64, d)
	fMin, fArg := make([]int64, d), make([]int, d)
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
		fArg[j] = argMin(f[j])
		fMin[j] = f[j][fArg[j]]
	}
	// restMin[j]: the least sum of f over dimensions j..d-1.
	restMin := make([]int64, d+1)
	lineC := make([]int64, nLines) // per round: a line's sum of f but the last dimension
	lineMax := make([]int64, nLines)
	dist := func(a, b int) int64 {
		var s int64
		for j := range d {
			s += int64(abs(int(off[a*d+j]) - int(off[b*d+j])))
		}
		return s
	}
	k1, k2, kk := int64(k-1), int64(k+1), int64(k)
	var guess []int32
	var cand, asc []uint64 // the round's candidates' keys: a heap, and those taken from it
	for {
		for j := d - 1; j >= 0; j-- {
			restMin[j] = restMin[j+1] + fMin[j]
		}
		// The largest D[o]: per line with chosen points, at its first or last one.
		var maxDo int64
		for _, l := range chLines {
			c, r := int64(0), int(l)
			for j := last - 1; j >= 0; j-- {
				c += f[j][r%span[j]]
				r /= span[j]
			}
			fl := f[last]
			s := lStart[l]
			m := c + max(fl[ch[s]>>32], fl[ch[s+cc[l]-1]>>32])
			lineC[l], lineMax[l] = c, m
			maxDo = max(maxDo, m)
		}
		// first: a chosen point of largest D.
		fl := f[last]
		first := -1
		for _, l := range chLines {
			if lineMax[l] == maxDo {
				s := lStart[l]
				key := ch[s]
				if lineC[l]+fl[key>>32] != maxDo {
					key = ch[s+cc[l]-1]
				}
				first = int(uint32(key))
				break
			}
		}
		// The candidates: D[i] <= T, that is D[i] (k-1) <= maxDo (k+1) + k best,
		// best the least change of a swap known before the walk: the previous
		// round's first candidates (the unchosen points of least D then, most
		// still near the least now) swapped with first, each an actual swap, so
		// the round's best change is at most theirs (the pair of it is scanned
		// below: first is scanned before any other, and the pair's bound lets
		// the scan reach it).
		var best0 int64
		for _, g := range guess {
			if in[g] {
				continue
			}
			var Dg int64
			for j := range d {
				Dg += f[j][off[int(g)*d+j]]
			}
			best0 = min(best0, Dg-dist(int(g), first)-maxDo)
		}
		T := (maxDo*k2 + kk*best0) / k1
		cand = cand[:0]
		// collect takes line l's unchosen points with last coordinate in [a, b]
		// and D <= T, sum being the line's f but the last dimension's.
		fz := f[last]
		collect := func(l int, sum int64, a, b int) {
			s := lStart[l]
			list := un[s : s+uc[l]]
			at, _ := slices.BinarySearch(list, uint64(a)<<32)
			for _, key := range list[at:] {
				z := int(key >> 32)
				if z > b {
					break
				}
				if Di := sum + fz[z]; Di <= T {
					cand = append(cand, uint64(Di)<<shift|uint64(uint32(key)))
				}
			}
		}
		var walk func(j, l int, sum int64)
		walk = func(j, l int, sum int64) {
			fj := f[j]
			a, b, ok := sublevel(fj, fArg[j], T-sum-restMin[j+1])
			if !ok {
				return
			}
			switch {
			case j < last-1:
				for v := a; v <= b; v++ {
					walk(j+1, l*span[j]+v, sum+fj[v])
				}
			case j == last-1:
				// The lines of this prefix, by their coordinate v along j: the
				// last dimension's interval [A, B] of fz <= T - sum - fj[v]
				// follows the budget by moving its ends (empty: A = m+1, B =
				// m-1), about 2 span moves in all, the budget being concave in v.
				m := fArg[last]
				A, B := m+1, m-1
				for v := a; v <= b; v++ {
					r := T - sum - fj[v]
					for A > 0 && fz[A-1] <= r {
						A--
					}
					for A <= m && fz[A] > r {
						A++
					}
					for B < len(fz)-1 && fz[B+1] <= r {
						B++
					}
					for B >= m && fz[B] > r {
						B--
					}
					if A <= B {
						collect(l*span[j]+v, sum+fj[v], A, B)
					}
				}
			default: // one dimension: one line
				collect(l, sum, a, b)
			}
		}
		walk(0, 0, 0)
		if len(cand) == 0 {
			return sel, true
		}
		// The candidates are read in ascending key order from a heap, as far as
		// the scans below go (most stop at the first few), not sorted in full.
		heapInit(cand)
		// The swap: the least (change, place of o in sel, i) over the pairs of a
		// decrease, improve's choice. A chosen point's scan reads the candidates by
		// ascending key and stops where the bound exceeds the best change found,
		// so the chosen points may come in any order: first one of largest D[o]
		// (it has the most candidates to scan, and its best change stops the other
		// scans sooner), then those not stopped at the least candidate, D[o] (k+1)
		// >= min D[i] (k-1) - k bestDelta; on a line these are runs at both ends.
		asc = asc[:0]
		var bestDelta int64
		bo, bi := -1, -1
		scan := func(o int, Do int64) {
			oi := int(pos[o])
			for x := 0; ; x++ {
				if x == len(asc) {
					if len(cand) == 0 {
						return
					}
					asc = append(asc, cand[0])
					cand = heapPop(cand)
				}
				key := asc[x]
				Di, i := int64(key>>shift), int(key&mask)
				if Di*k1-Do*k2 > kk*bestDelta {
					return
				}
				delta := Di - dist(i, o) - Do
				if delta < bestDelta || delta == bestDelta && (oi < bo || oi == bo && i < bi) {
					bestDelta, bo, bi = delta, oi, i
				}
			}
		}
		minD := int64(cand[0] >> shift)
		scan(first, maxDo)
		need := minD*k1 - kk*bestDelta
		for _, l := range chLines {
			if lineMax[l]*k2 < need {
				continue
			}
			s := lStart[l]
			list := ch[s : s+cc[l]]
			stop := len(list)
			for x, key := range list {
				Do := lineC[l] + fl[key>>32]
				if Do*k2 < need {
					stop = x
					break
				}
				scan(int(uint32(key)), Do)
			}
			for x := len(list) - 1; x > stop; x-- {
				key := list[x]
				Do := lineC[l] + fl[key>>32]
				if Do*k2 < need {
					break
				}
				scan(int(uint32(key)), Do)
			}
		}
		if bo < 0 {
			return sel, true
		}
		guess = guess[:0]
		for _, key := range asc {
			guess = append(guess, int32(key&mask))
		}
		o := sel[bo]
		for j := range d {
			a, b := int(off[bi*d+j]), int(off[o*d+j])
			fj := f[j]
			for v := range fj {
				fj[v] += int64(abs(v-a) - abs(v-b))
			}
			fArg[j] = argMin(fj)
			fMin[j] = fj[fArg[j]]
		}
		lo, li := line[o], line[bi]
		ko, ki := lineKey(o), lineKey(bi)
		remove(ch[lStart[lo]:], &cc[lo], ko)
		insert(un[lStart[lo]:], &uc[lo], ko)
		remove(un[lStart[li]:], &uc[li], ki)
		insert(ch[lStart[li]:], &cc[li], ki)
		if cc[lo] == 0 {
			at := slices.Index(chLines, lo)
			chLines = slices.Delete(chLines, at, at+1)
		}
		if cc[li] == 1 {
			chLines = append(chLines, li)
		}
		in[o], in[bi] = false, true
		sel[bo] = bi
		pos[bi] = int32(bo)
	}
}

// argMin returns the first place of the least value of f, convex: the first v
// whose next value is not smaller.
func argMin(f []int64) int {
	return sort.Search(len(f)-1, func(v int) bool { return f[v+1] >= f[v] })
}

// sublevel returns the interval [a, b] of v where f[v] <= r, for f convex with a
// least value at m (so not increasing before m, not decreasing after); ok is false
// when it is empty.
func sublevel(f []int64, m int, r int64) (a, b int, ok bool) {
	if f[m] > r {
		return 0, 0, false
	}
	// First v in [0, m] with f[v] <= r, last in [m, len) with f[v] <= r.
	a = m - sort.Search(m, func(x int) bool { return f[m-1-x] > r })
	b = m + sort.Search(len(f)-1-m, func(x int) bool { return f[m+1+x] > r })
	return a, b, true
}

// heapInit orders h as a binary min-heap.
func heapInit(h []uint64) {
	for i := len(h)/2 - 1; i >= 0; i-- {
		siftDown(h, i)
	}
}

// heapPop removes the least element of the min-heap h and returns what is left.
func heapPop(h []uint64) []uint64 {
	n := len(h) - 1
	h[0] = h[n]
	h = h[:n]
	siftDown(h, 0)
	return h
}

func siftDown(h []uint64, i int) {
	for {
		c := 2*i + 1
		if c >= len(h) {
			return
		}
		if c+1 < len(h) && h[c+1] < h[c] {
			c++
		}
		if h[i] <= h[c] {
			return
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
}
