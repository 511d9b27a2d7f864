package exact

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// sortCase draws n values whose span needs about nbits bits, shifted by an offset
// that may make them negative, with duplicates when dup is set.
func sortCase(r *rand.Rand, n, nbits int, dup bool) []int64 {
	v := make([]int64, n)
	var span uint64 = math.MaxUint64
	if nbits < 64 {
		span = 1<<uint(nbits) - 1
	}
	var base int64
	if nbits < 63 {
		// keep base + span inside int64
		base = r.Int64N(1<<62) - 1<<61
		if nbits == 62 {
			base = -1 << 61
		}
	} else {
		base = math.MinInt64
	}
	for i := range v {
		var d uint64
		if span == math.MaxUint64 {
			d = r.Uint64()
		} else {
			d = r.Uint64N(span + 1)
		}
		v[i] = int64(uint64(base) + d)
	}
	if n > 0 {
		// make sure the full span occurs
		v[r.IntN(n)] = base
		v[r.IntN(n)] = int64(uint64(base) + span)
	}
	if dup && n > 1 {
		for range n / 3 {
			v[r.IntN(n)] = v[r.IntN(n)]
		}
	}
	return v
}

func checkSorted[E int | int32 | int64](t *testing.T, v []E, what string) {
	t.Helper()
	orig := slices.Clone(v)
	want := slices.Clone(v)
	slices.Sort(want)
	got := radixSorted(v)
	if !slices.Equal(got, want) {
		t.Fatalf("%s: radixSorted differs from slices.Sort (n = %d)", what, len(v))
	}
	if !slices.Equal(v, orig) {
		t.Fatalf("%s: radixSorted modified its input", what)
	}
}

func TestRadixSortedMatchesSlicesSort(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	sizes := []int{0, 1, 2, 3, 5, 17, 63, 64, 65, 255, 256, 257, 1000, 4097}
	big := []int{1 << 16, 70_000, 200_000}
	if testing.Short() {
		big = big[:1]
	}
	for nbits := 1; nbits <= 64; nbits++ {
		for _, n := range sizes {
			for _, dup := range []bool{false, true} {
				v := sortCase(r, n, nbits, dup)
				checkSorted(t, v, "int64")
				w := make([]int, len(v))
				for i, x := range v {
					w[i] = int(x)
				}
				checkSorted(t, w, "int")
			}
		}
	}
	for _, nbits := range []int{1, 8, 11, 12, 22, 23, 24, 30, 31, 32, 33, 40, 53, 63, 64} {
		for _, n := range big {
			checkSorted(t, sortCase(r, n, nbits, true), "int64 large")
		}
	}
	// Skewed: one huge MSD bucket plus outliers, and all values equal.
	for _, n := range big {
		v := make([]int64, n)
		for i := range v {
			v[i] = r.Int64N(1000) - 500
		}
		v[0], v[1] = math.MinInt64, math.MaxInt64
		checkSorted(t, v, "skewed")
		v = make([]int64, n)
		for i := range v {
			v[i] = r.Int64N(1<<40) - 1<<39
		}
		v[0] = 1 << 62
		checkSorted(t, v, "skewed 2")
		checkSorted(t, slices.Repeat([]int64{-7}, n), "constant")
	}
	// int32 over its whole range.
	for _, n := range append(sizes, big...) {
		v := make([]int32, n)
		for i := range v {
			v[i] = int32(r.Uint32())
		}
		if n > 1 {
			v[0], v[1] = math.MinInt32, math.MaxInt32
		}
		checkSorted(t, v, "int32")
	}
}

// Line on radix-sorted integers agrees with Line on the same values as float64,
// which takes the comparison-sort path: same indices (tie rule) and total.
func TestLineIntegerMatchesComparisonPath(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for _, n := range []int{1, 2, 7, 300, 5000, 70_000} {
		for _, span := range []int64{1, 3, 50, 1 << 20} {
			v := make([]int64, n)
			f := make([]float64, n)
			for i := range v {
				v[i] = r.Int64N(span) - span/2
				f[i] = float64(v[i])
			}
			for _, k := range []int{1, 2, 5, 64, n} {
				if k > n {
					continue
				}
				a, err := Line(v, k)
				if err != nil {
					t.Fatal(err)
				}
				b, err := Line(f, k)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(a.Indices, b.Indices) || float64(a.Total) != b.Total {
					t.Fatalf("n=%d span=%d k=%d: int path %v (%d), float path %v (%v)",
						n, span, k, a.Indices, a.Total, b.Indices, b.Total)
				}
				// The same on a ring holding every value (shifted to [0, C)); k = n
				// is skipped for large n (RingArc then sums all pairs).
				if k == n && n > 5000 {
					continue
				}
				const off = 1 << 21
				rv, rf := make([]int64, n), make([]float64, n)
				for i := range v {
					rv[i], rf[i] = v[i]+off, f[i]+off
				}
				ra, err := RingArc(rv, 1<<22, k)
				if err != nil {
					t.Fatal(err)
				}
				rb, err := RingArc(rf, 1<<22, k)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(ra.Indices, rb.Indices) || float64(ra.Total) != rb.Total {
					t.Fatalf("ring n=%d span=%d k=%d: int path %v (%d), float path %v (%v)",
						n, span, k, ra.Indices, ra.Total, rb.Indices, rb.Total)
				}
			}
		}
	}
}

// The one-multiplication window update gives the prefix form's totals, bit for bit,
// also when the totals wrap around.
func TestBestWindowIntMatchesPrefix(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	for trial := range 300 {
		n := 1 + r.IntN(200)
		if trial%50 == 0 {
			n = radixParallel + r.IntN(1000) // the two-goroutine split
		}
		c := make([]int64, n)
		scale := []int64{3, 1000, 1 << 40, math.MaxInt64}[trial%4]
		for i := range c {
			c[i] = r.Int64N(scale) - scale/2
		}
		slices.Sort(c)
		k := 1 + r.IntN(n)
		j1, t1 := bestWindowInt(c, k)
		j2, t2 := bestWindowPrefix(c, k)
		if j1 != j2 || t1 != t2 {
			t.Fatalf("n=%d k=%d scale=%d: bestWindowInt (%d, %d), prefix form (%d, %d)", n, k, scale, j1, t1, j2, t2)
		}
		c32 := make([]int32, n)
		for i := range c {
			c32[i] = int32(c[i] >> 32)
		}
		slices.Sort(c32)
		j1, u1 := bestWindowInt(c32, k)
		j2, u2 := bestWindowPrefix(c32, k)
		if j1 != j2 || u1 != u2 {
			t.Fatalf("int32 n=%d k=%d: bestWindowInt (%d, %d), prefix form (%d, %d)", n, k, j1, u1, j2, u2)
		}
	}
}

// pickWindowRef is the one-pass definition of pickWindow, the reference for its
// split form.
func pickWindowRef(coords, sorted []int64, start, k int) []int {
	n := len(sorted)
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
	var idx []int
	for i, v := range coords {
		switch {
		case v == loV:
			if needLo > 0 {
				needLo--
				idx = append(idx, i)
			}
		case v == hiV:
			if needHi > 0 {
				needHi--
				idx = append(idx, i)
			}
		case !wrap && v > loV && v < hiV, wrap && (v > loV || v < hiV):
			idx = append(idx, i)
		}
	}
	return idx
}

func TestPickWindowMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 18))
	for _, n := range []int{1, 2, 10, 1000, radixParallel, radixParallel + 777} {
		for _, span := range []int64{1, 2, 5, 1000, 1 << 40} {
			coords := make([]int64, n)
			for i := range coords {
				coords[i] = r.Int64N(span) - span/3
			}
			sorted := slices.Sorted(slices.Values(coords))
			for range 20 {
				k := 1 + r.IntN(min(n, 300))
				if r.IntN(4) == 0 {
					k = 1 + r.IntN(n)
				}
				start := r.IntN(n) // may wrap, as RingArc's windows do
				if k == n {
					start = 0
				}
				got := pickWindow(coords, sorted, start, k)
				want := pickWindowRef(coords, sorted, start, k)
				if !slices.Equal(got, want) {
					t.Fatalf("n=%d span=%d start=%d k=%d: got %d positions, want %d (differ)", n, span, start, k, len(got), len(want))
				}
			}
		}
	}
}

// BenchmarkRadixSorted: the integer sort alone, on BenchmarkLine's input.
func BenchmarkRadixSorted(b *testing.B) {
	r := rand.New(rand.NewPCG(2, 3))
	c := make([]int64, 10_000_000)
	for i := range c {
		c[i] = r.Int64N(1 << 30)
	}
	for b.Loop() {
		radixSorted(c)
	}
}
