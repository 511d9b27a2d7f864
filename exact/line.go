package exact

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"
	"slices"

	"github.com/procalloc/procalloc/geom"
)

// Solution1D is an optimal (or best found) k-subset of points on a line or a ring.
type Solution1D[T geom.Number] struct {
	// Indices are positions in the input, ascending.
	Indices []int
	// Total is the total pairwise distance of the chosen points in the problem's metric
	// (|a-b| on the line, min(|a-b|, C-|a-b|) on the ring).
	Total T
}

// Line returns k points of coords with minimum total pairwise distance |a - b|.
//
// Structure (proof). Some optimal set is k consecutive points in sorted order. Take
// any k-set S that is not, with leftmost point b1 and rightmost b2, and an unchosen
// point r strictly between them in sorted order (b1 <= r <= b2 by value). Let g(x) be
// the sum of |x - s| over s in S \ {b1, b2}; g is convex. Swapping b1 for r changes the
// total by g(r) - g(b1) - (r - b1); swapping b2 for r changes it by g(r) - g(b2) -
// (b2 - r). If both were positive, g would rise by more than slope 1 on [b1, r] and fall
// by more than slope 1 on [r, b2], which a convex function cannot do. So one swap does
// not increase the total, and it shrinks the span of sorted positions S covers; repeat
// until S is a window. The cost of the window c_j..c_{j+k-1} is
// sum_i c_{j+i} (2i - k + 1), evaluated for every j from prefix sums of c and i*c.
//
// Time O(n) after sorting; integer coordinates ([]int, []int32, []int64) are sorted
// by radix sort over the value range (digits of at most 11 bits; see radixSorted),
// others by comparison. Large inputs use two goroutines.
// Ties: the leftmost optimal window in sorted order; among equal coordinates at its
// ends, the first occurrences in input order. Errors: k outside 1..n, non-finite coordinates.
func Line[T geom.Number](coords []T, k int) (Solution1D[T], error) {
	n := len(coords)
	if err := check1D(coords, k); err != nil {
		return Solution1D[T]{}, err
	}
	_ = n
	c := sortedValues(coords)
	best, total := bestWindow(c, k)
	return Solution1D[T]{Indices: pickWindow(coords, c, best, k), Total: total}, nil
}

// sortedValues returns a new slice of the values ascending: integer slices by
// radixSorted, others by comparison sort. coords is not modified.
func sortedValues[T geom.Number](coords []T) []T {
	switch v := any(coords).(type) {
	case []int64:
		return any(radixSorted(v)).([]T)
	case []int:
		return any(radixSorted(v)).([]T)
	case []int32:
		return any(radixSorted(v)).([]T)
	}
	out := slices.Clone(coords)
	slices.Sort(out)
	return out
}

// radixSmall is the length below which radixSorted uses a comparison sort.
const radixSmall = 256

// radixParallel is the length from which radixSorted splits its passes over the
// input between two goroutines.
const radixParallel = 1 << 16

// radixMaxBits bounds a radix digit: 2^11 counters fit in L1 and 2^11 write streams
// stay cheap.
const radixMaxBits = 11

// inHalves calls f(0, 0, n/2) and f(1, n/2, n), in parallel (see both) when n is at
// least radixParallel, and returns when both are done.
func inHalves(n int, f func(h, a, b int)) {
	if n < radixParallel {
		f(0, 0, n/2)
		f(1, n/2, n)
		return
	}
	both(func(h int) {
		if h == 0 {
			f(0, 0, n/2)
		} else {
			f(1, n/2, n)
		}
	})
}

// both calls f(0) and f(1) at once, f(1) on another goroutine, and returns when both
// are done.
func both(f func(h int)) {
	done := make(chan struct{})
	go func() {
		f(1)
		close(done)
	}()
	f(0)
	<-done
}

// radixSorted returns a sorted copy of src by radix sort of the keys x - min, over
// the bits of the span max - min. Only values are sorted (equal values are
// indistinguishable), so stability does not matter. A span below 2^32 sorts 4-byte
// keys, which halves the memory traffic. Large inputs take one MSD pass on the top
// digit, then each bucket (a few thousand keys on spread-out data, so it sits in
// cache) is finished by LSD passes on the remaining bits; the passes over the input
// and the buckets are split between two goroutines.
func radixSorted[E int | int32 | int64](src []E) []E {
	n := len(src)
	out := make([]E, n)
	if n < radixSmall {
		copy(out, src)
		slices.Sort(out)
		return out
	}
	var los, his [2]E
	inHalves(n, func(h, a, b int) {
		l, u := src[a], src[a]
		for _, x := range src[a:b] {
			l, u = min(l, x), max(u, x)
		}
		los[h], his[h] = l, u
	})
	lo, hi := min(los[0], los[1]), max(his[0], his[1])
	span := uint64(int64(hi) - int64(lo)) // wraps correctly for any int64 range
	if span == 0 {
		for i := range out {
			out[i] = lo
		}
		return out
	}
	nbits := bits.Len64(span)
	if nbits <= 32 {
		radixMSD[E, uint32](src, out, int64(lo), nbits)
	} else {
		radixMSD[E, uint64](src, out, int64(lo), nbits)
	}
	return out
}

// radixMSD sorts src into out by the keys K(x - lo) of nbits significant bits: a
// counting pass and a scatter on the top digit into a key buffer, then radixLSD on
// each bucket.
func radixMSD[E int | int32 | int64, K uint32 | uint64](src, out []E, lo int64, nbits int) {
	n := len(src)
	if nbits <= 2*radixMaxBits || n < radixParallel {
		keys := make([]K, n)
		for i, x := range src {
			keys[i] = K(int64(x) - lo)
		}
		radixLSD(keys, make([]K, n), out, lo, nbits, make([]int, 2<<radixMaxBits))
		return
	}
	const buckets = 1 << radixMaxBits
	shift := uint(nbits - radixMaxBits)
	var count [2][buckets]int
	inHalves(n, func(h, a, b int) {
		c := &count[h]
		for _, x := range src[a:b] {
			c[K(int64(x)-lo)>>shift]++
		}
	})
	// Bucket b holds keys[start[b]:start[b+1]]: the first half's keys, then the
	// second's; count[h][b] becomes where half h writes its next key of bucket b.
	var start [buckets + 1]int
	sum, half := 0, 0
	for b := range buckets {
		m0, m1 := count[0][b], count[1][b]
		start[b] = sum
		count[0][b] = sum
		count[1][b] = sum + m0
		sum += m0 + m1
		if sum <= n/2 {
			half = b + 1
		}
	}
	start[buckets] = n
	keys := make([]K, n)
	inHalves(n, func(h, a, b int) {
		c := &count[h]
		for _, x := range src[a:b] {
			k := K(int64(x) - lo)
			d := k >> shift
			keys[c[d]] = k
			c[d]++
		}
	})
	// Keys in one bucket share their top digit, so radixLSD on the low shift bits
	// sorts them without masking it off (a digit reaching into it only adds a
	// constant).
	both(func(h int) {
		b0, b1 := 0, half
		if h == 1 {
			b0, b1 = half, buckets
		}
		maxLen := 0
		for b := b0; b < b1; b++ {
			maxLen = max(maxLen, start[b+1]-start[b])
		}
		scratch := make([]K, maxLen)
		counts := make([]int, 2<<radixMaxBits)
		for b := b0; b < b1; b++ {
			s, e := start[b], start[b+1]
			if s < e {
				radixLSD(keys[s:e], scratch[:e-s], out[s:e], lo, int(shift), counts)
			}
		}
	})
}

// radixLSD sorts keys (each below 2^nbits, or all with the same bits from nbits up) into out as E(key + lo) by LSD passes of
// at most radixMaxBits bits, using scratch (len(keys)) and counts (at least
// passes * 2^width) as work space; keys is overwritten.
func radixLSD[E int | int32 | int64, K uint32 | uint64](keys, scratch []K, out []E, lo int64, nbits int, counts []int) {
	n := len(keys)
	if n < 64 || nbits == 0 {
		if nbits > 0 {
			slices.Sort(keys)
		}
		for i, k := range keys {
			out[i] = E(int64(k) + lo)
		}
		return
	}
	passes := (nbits + radixMaxBits - 1) / radixMaxBits
	width := uint((nbits + passes - 1) / passes)
	mask := K(1)<<width - 1
	buckets := 1 << width
	if len(counts) < passes*buckets {
		counts = make([]int, passes*buckets)
	}
	counts = counts[:passes*buckets]
	clear(counts)
	if passes == 2 { // the usual case, unrolled
		c0, c1 := counts[:buckets], counts[buckets:2*buckets]
		for _, k := range keys {
			c0[k&mask]++
			c1[(k>>width)&mask]++
		}
	} else {
		for _, k := range keys {
			for p := range passes {
				counts[p*buckets+int((k>>(uint(p)*width))&mask)]++
			}
		}
	}
	for p := range passes {
		c := counts[p*buckets : (p+1)*buckets]
		sum := 0
		for b, m := range c {
			c[b], sum = sum, sum+m
		}
	}
	a, t := keys, scratch
	for p := 0; p < passes-1; p++ {
		c := counts[p*buckets : (p+1)*buckets]
		shift := uint(p) * width
		for _, k := range a {
			b := (k >> shift) & mask
			t[c[b]] = k
			c[b]++
		}
		a, t = t, a
	}
	c := counts[(passes-1)*buckets:]
	shift := uint(passes-1) * width
	for _, k := range a {
		b := (k >> shift) & mask
		out[c[b]] = E(int64(k) + lo)
		c[b]++
	}
}

// pickWindow returns the input positions (ascending) of the values at sorted
// positions start, start+1, ..., start+k-1 (mod n, so a ring window may wrap). Values
// strictly inside the window's range are all taken; of the values equal to the
// window's first (last) value, the first occurrences in input order, as many as the
// window holds.
func pickWindow[T geom.Number](coords, sorted []T, start, k int) []int {
	n := len(sorted)
	if k == n {
		idx := make([]int, n)
		for i := range idx {
			idx[i] = i
		}
		return idx
	}
	loV, hiV := sorted[start], sorted[(start+k-1)%n]
	wrap := start+k > n
	needLo, needHi := 0, 0
	for p := start; p < start+k; p++ {
		switch sorted[p%n] {
		case loV:
			needLo++
		case hiV:
			needHi++
		}
	}
	// Each half of the input lists, ascending, its positions inside the window's
	// range and its first needLo (needHi) positions equal to loV (hiV); the halves'
	// lists are then merged in input order, keeping the first occurrences overall.
	scan := func(a, b int) []int {
		var idx []int
		nLo, nHi := needLo, needHi
		for i, v := range coords[a:b] {
			if wrap {
				if v < loV && v > hiV {
					continue
				}
			} else if v < loV || v > hiV {
				continue
			}
			switch v {
			case loV:
				if nLo > 0 {
					nLo--
					idx = append(idx, a+i)
				}
			case hiV:
				if nHi > 0 {
					nHi--
					idx = append(idx, a+i)
				}
			default:
				idx = append(idx, a+i)
			}
		}
		return idx
	}
	var parts [2][]int
	if len(coords) < radixParallel {
		parts[0] = scan(0, len(coords))
	} else {
		both(func(h int) {
			if h == 0 {
				parts[0] = scan(0, len(coords)/2)
			} else {
				parts[1] = scan(len(coords)/2, len(coords))
			}
		})
	}
	idx := make([]int, 0, k)
	for _, part := range parts {
		for _, i := range part {
			switch coords[i] {
			case loV:
				if needLo > 0 {
					needLo--
					idx = append(idx, i)
				}
			case hiV:
				if needHi > 0 {
					needHi--
					idx = append(idx, i)
				}
			default:
				idx = append(idx, i)
			}
		}
	}
	return idx
}

func check1D[T geom.Number](coords []T, k int) error {
	n := len(coords)
	if n == 0 {
		return fmt.Errorf("exact: no points")
	}
	if k < 1 || k > n {
		return fmt.Errorf("exact: k = %d must be between 1 and the number of points (%d)", k, n)
	}
	if isInteger[T]() {
		return nil // integers are always finite
	}
	for i, v := range coords {
		if f := float64(v); math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("exact: coordinate %d is %v", i, f)
		}
	}
	return nil
}

// isInteger reports whether T is one of the integer types of geom.Number.
func isInteger[T geom.Number]() bool {
	one := T(1)
	return one/2 == 0
}

// bestWindow returns the start of the first window of k consecutive values of the
// sorted c with minimum total pairwise distance, and that total.
func bestWindow[T geom.Number](c []T, k int) (int, T) {
	if isInteger[T]() {
		return bestWindowInt(c, k)
	}
	return bestWindowPrefix(c, k)
}

// bestWindowPrefix is bestWindow by the prefix-sum form, used for floating point.
func bestWindowPrefix[T geom.Number](c []T, k int) (int, T) {
	// P[j] = c_0+...+c_{j-1}; Q[j] = sum_{i<j} i*c_i. Window at j:
	// sum_{i=0}^{k-1} c_{j+i}(2i-k+1) = 2(Q[j+k]-Q[j] - j(P[j+k]-P[j])) - (k-1)(P[j+k]-P[j]).
	// Evaluated with running sums instead of arrays.
	var s, q T // window sum of c and of (position-in-array)*c
	for i := 0; i < k; i++ {
		s += c[i]
		q += T(i) * c[i]
	}
	cost := func(j int) T { return 2*(q-T(j)*s) - T(k-1)*s }
	best, bestCost := 0, cost(0)
	for j := 1; j+k <= len(c); j++ {
		out, in := c[j-1], c[j+k-1]
		s += in - out
		q += T(j+k-1)*in - T(j-1)*out
		if v := cost(j); v < bestCost {
			best, bestCost = j, v
		}
	}
	return best, bestCost
}

// bestWindowInt is bestWindow for integer T with one multiplication per step.
// Sliding the window drops out = c[j-1] and adds in = c[j+k-1]; the k-1 points r
// they share lie between them by value, so the total changes by
// sum_r (in - r) - sum_r (r - out) = (k-1)(in + out) - 2 sum_r r. Integer arithmetic
// is exact (or wraps exactly as the prefix form does), so every window total equals
// bestWindow's bit for bit and the same window wins.
func bestWindowInt[T geom.Number](c []T, k int) (int, T) {
	w := len(c) - k + 1 // number of windows
	if len(c) < radixParallel || w < 2 {
		return bestWindowRange(c, k, 0, w)
	}
	var start [2]int
	var cost [2]T
	both(func(h int) {
		if h == 0 {
			start[0], cost[0] = bestWindowRange(c, k, 0, w/2)
		} else {
			start[1], cost[1] = bestWindowRange(c, k, w/2, w)
		}
	})
	if cost[1] < cost[0] {
		return start[1], cost[1]
	}
	return start[0], cost[0]
}

// bestWindowRange is bestWindowInt over the windows starting at j0..j1-1 (j0 < j1).
func bestWindowRange[T geom.Number](c []T, k, j0, j1 int) (int, T) {
	var cost, s T // total of window j0; s = sum of its values
	for i := 0; i < k; i++ {
		cost += T(2*i-k+1) * c[j0+i]
		s += c[j0+i]
	}
	best, bestCost := j0, cost
	km1 := T(k - 1)
	for j := j0 + 1; j < j1; j++ {
		out, in := c[j-1], c[j+k-1]
		s -= out // s = sum of the shared points
		cost += km1*(in+out) - 2*s
		s += in
		if cost < bestCost {
			best, bestCost = j, cost
		}
	}
	return best, bestCost
}

// sortedOrder returns the input positions in ascending order of value, stable.
func sortedOrder[T geom.Number](coords []T) []int {
	switch v := any(coords).(type) {
	case []int:
		return radixOrder(len(v), func(i int) int64 { return int64(v[i]) })
	case []int64:
		return radixOrder(len(v), func(i int) int64 { return v[i] })
	case []int32:
		return radixOrder(len(v), func(i int) int64 { return int64(v[i]) })
	}
	order := make([]int, len(coords))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(coords[a], coords[b]) })
	return order
}

// radixOrder is a stable LSD radix sort of positions 0..n-1 by key, 11 bits per pass
// over the range max-min, so a range below 2^22 takes two passes.
func radixOrder(n int, key func(int) int64) []int {
	if n == 0 {
		return nil
	}
	keys := make([]uint64, n)
	lo, hi := key(0), key(0)
	for i := range n {
		k := key(i)
		lo, hi = min(lo, k), max(hi, k)
	}
	for i := range n {
		keys[i] = uint64(key(i) - lo) // wraps correctly for any int64 range
	}
	span := uint64(hi - lo)
	const bits = 11
	const buckets = 1 << bits
	order := make([]int32, n)
	for i := range order {
		order[i] = int32(i)
	}
	if n >= math.MaxInt32 {
		out := make([]int, n)
		for i := range out {
			out[i] = i
		}
		slices.SortStableFunc(out, func(a, b int) int { return cmp.Compare(keys[a], keys[b]) })
		return out
	}
	tmp := make([]int32, n)
	tmpKeys := make([]uint64, n)
	var count [buckets]int
	for shift := uint(0); shift < 64 && (span>>shift) > 0; shift += bits {
		clear(count[:])
		for _, k := range keys {
			count[(k>>shift)&(buckets-1)]++
		}
		sum := 0
		for b := range count {
			count[b], sum = sum, sum+count[b]
		}
		for i, k := range keys {
			b := (k >> shift) & (buckets - 1)
			tmp[count[b]] = order[i]
			tmpKeys[count[b]] = k
			count[b]++
		}
		order, tmp = tmp, order
		keys, tmpKeys = tmpKeys, keys
	}
	out := make([]int, n)
	for i, v := range order {
		out[i] = int(v)
	}
	return out
}
