package exact

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/procalloc/procalloc/geom"
)

// ringArcOld is RingArc as it was before it stopped materialising the unrolled
// positions and their prefix sums (2n values each): the bit-for-bit reference for
// the totals, float rounding included, and the chosen window.
func ringArcOld[T geom.Number](coords []T, c T, k int) (Solution1D[T], error) {
	if err := checkRing(coords, c, k); err != nil {
		return Solution1D[T]{}, err
	}
	n := len(coords)
	sorted := sortedValues(coords)
	// Unrolled positions x[0..2n): x[i+n] = x[i] + c, and prefix sums.
	x := make([]T, 2*n)
	for i, v := range sorted {
		x[i] = v
		x[i+n] = v + c
	}
	pre := make([]T, 2*n+1)
	for i, v := range x {
		pre[i+1] = pre[i] + v
	}
	sum := func(a, b int) T { return pre[b] - pre[a] } // x[a..b)
	near := func(d T) bool { return 2*d <= c }         // d <= c/2 without halving
	// dist from x[i] to every x[j], j in [a, b), all with x[j] >= x[i]; split at the
	// first j with x[j]-x[i] > c/2 (found by the monotone pointer *p).
	fwd := func(i, a, b int, p *int) T {
		if *p < a {
			*p = a
		}
		for *p < b && near(x[*p]-x[i]) {
			*p++
		}
		m := *p
		if m > b {
			m = b
		}
		return sum(a, m) - T(m-a)*x[i] + T(b-m)*(c+x[i]) - sum(m, b)
	}
	// dist from x[i] to every x[j], j in [a, b), all with x[j] <= x[i]; j in [a, m)
	// are far (measured the other way), [m, b) near; m is the first j with
	// x[i]-x[j] <= c/2 (monotone pointer *p).
	bwd := func(i, a, b int, p *int) T {
		if *p < a {
			*p = a
		}
		for *p < b && !near(x[i]-x[*p]) {
			*p++
		}
		m := *p
		if m > b {
			m = b
		}
		return T(m-a)*(c-x[i]) + sum(a, m) + T(b-m)*x[i] - sum(m, b)
	}
	if k == n {
		idx := pickWindow(coords, sorted, 0, n)
		return Solution1D[T]{Indices: idx, Total: RingTotal(coords, c, idx)}, nil
	}
	// First window [0, k): build by adding points one at a time.
	var cost T
	for j := 1; j < k; j++ {
		p := 0
		cost += bwd(j, 0, j, &p)
	}
	best, bestCost := 0, cost
	pOut, pIn := 0, 0
	for s := 1; s < n; s++ {
		// remove x[s-1] (distances to s..s+k-2), add x[s+k-1] (distances to s..s+k-2)
		cost -= fwd(s-1, s, s+k-1, &pOut)
		cost += bwd(s+k-1, s, s+k-1, &pIn)
		if cost < bestCost {
			best, bestCost = s, cost
		}
	}
	return Solution1D[T]{Indices: pickWindow(coords, sorted, best, k), Total: bestCost}, nil
}

// ringArcRef is the best circular window by the definition, in O(n k): window s
// holds the sorted values s, s+1, ..., s+k-1 (mod n); its total is updated by the
// ring distances from the leaving and the entering value to the k-1 shared ones.
// The first window of least total wins. Exact for integers and for floats whose
// sums are exact (small multiples of a power of two).
func ringArcRef[T geom.Number](coords []T, c T, k int) Solution1D[T] {
	n := len(coords)
	v := slices.Sorted(slices.Values(coords))
	if k == n {
		idx := pickWindow(coords, v, 0, n)
		return Solution1D[T]{Indices: idx, Total: RingTotal(coords, c, idx)}
	}
	var cost T
	for i := 0; i < k; i++ {
		for j := i + 1; j < k; j++ {
			cost += RingDistance(v[i], v[j], c)
		}
	}
	best, bestCost := 0, cost
	for s := 1; s < n; s++ {
		out, in := v[s-1], v[(s+k-1)%n]
		for j := s; j < s+k-1; j++ {
			cost += RingDistance(in, v[j%n], c) - RingDistance(out, v[j%n], c)
		}
		if cost < bestCost {
			best, bestCost = s, cost
		}
	}
	return Solution1D[T]{Indices: pickWindow(coords, v, best, k), Total: bestCost}
}

// checkRingArc compares RingArc with ringArcOld (bit for bit) and, when ref is
// set, with ringArcRef.
func checkRingArc[T geom.Number](t *testing.T, coords []T, c T, k int, ref bool) {
	t.Helper()
	got, err := RingArc(coords, c, k)
	if err != nil {
		t.Fatal(err)
	}
	desc := func() string {
		if len(coords) > 30 {
			return fmt.Sprintf("n %d C %v k %d", len(coords), c, k)
		}
		return fmt.Sprintf("coords %v C %v k %d", coords, c, k)
	}
	old, err := ringArcOld(coords, c, k)
	if err != nil {
		t.Fatal(err)
	}
	if !sameTotal(got.Total, old.Total) || !slices.Equal(got.Indices, old.Indices) {
		t.Fatalf("%s: RingArc %v %v, before the rewrite %v %v", desc(), got.Total, got.Indices, old.Total, old.Indices)
	}
	if ref {
		want := ringArcRef(coords, c, k)
		if got.Total != want.Total || !slices.Equal(got.Indices, want.Indices) {
			t.Fatalf("%s: RingArc %v %v, reference %v %v", desc(), got.Total, got.Indices, want.Total, want.Indices)
		}
	}
}

// sameTotal is equality, bit for bit for floats.
func sameTotal[T geom.Number](a, b T) bool {
	if !isInteger[T]() {
		return math.Float64bits(float64(a)) == math.Float64bits(float64(b))
	}
	return a == b
}

// Every k = 1..n on small inputs: integers of three types, heavy ties (tiny C,
// many equal values, antipodal pairs), exact floats and general floats.
func TestRingArcMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(71, 72))
	trials := 400
	if testing.Short() {
		trials = 100
	}
	for trial := 0; trial < trials; trial++ {
		n := 1 + r.IntN(40)
		C := int64(1 + r.IntN(100))
		switch trial % 4 {
		case 0:
			C = int64(1 + r.IntN(6)) // heavy ties
		case 1:
			C = 2 * int64(1+r.IntN(8)) // even C: exact antipodes
		}
		distinct := 1 + r.IntN(int(C)) // how many values occur at most
		vals := make([]int64, distinct)
		for i := range vals {
			vals[i] = r.Int64N(C)
		}
		c64 := make([]int64, n)
		for i := range c64 {
			c64[i] = vals[r.IntN(distinct)]
		}
		c32 := make([]int32, n)
		ci := make([]int, n)
		cq := make([]float64, n) // quarters: all sums exact
		cf := make([]float64, n) // general floats
		Cf := float64(C) * (0.5 + r.Float64())
		for i, v := range c64 {
			c32[i], ci[i], cq[i] = int32(v), int(v), float64(v)/4
			cf[i] = float64(v) / float64(C) * Cf
		}
		for k := 1; k <= n; k++ {
			checkRingArc(t, c64, C, k, true)
			checkRingArc(t, c32, int32(C), k, true)
			checkRingArc(t, ci, int(C), k, true)
			checkRingArc(t, cq, float64(C)/4, k, true)
			checkRingArc(t, cf, Cf, k, false)
		}
	}
}

// Inputs large enough for the two-goroutine integer scan and for windows that
// wrap, with ties between windows in both halves (the first must win).
func TestRingArcLarge(t *testing.T) {
	r := rand.New(rand.NewPCG(73, 74))
	n := radixParallel + 1234
	for _, C := range []int64{1 << 30, 5000, 97, 2} {
		c := make([]int64, n)
		cf := make([]float64, n)
		for i := range c {
			c[i] = r.Int64N(C)
			cf[i] = float64(c[i]) + r.Float64()
		}
		for _, k := range []int{1, 2, 3, 64, 65, 1000, n / 4, n/4 + 1, n / 2} {
			checkRingArc(t, c, C, k, k <= 64)
			checkRingArc(t, cf, float64(C), k, false)
		}
	}
	// The least total occurs only in equal windows in both halves of the windows
	// (runs of 40 equal values, every other value spread out): the first must win.
	c := make([]int64, n)
	for i := range c {
		c[i] = int64(i) * 1000
	}
	for i := 0; i < 40; i++ {
		c[100+i] = c[100]
		c[n-200+i] = c[n-200]
	}
	checkRingArc(t, c, int64(n)*1000, 30, true)
	// ... and only in the second half.
	for i := 0; i < 40; i++ {
		c[100+i] = int64(100+i) * 1000
	}
	checkRingArc(t, c, int64(n)*1000, 30, true)
	// int32 with a circumference near the type's limit: positions + C and doubled
	// distances overflow (so "near" is not monotone); RingArc must still reproduce
	// the old results, which takes the plain sequential scan.
	const C32 = 3 << 29
	for _, n32 := range []int{3000, radixParallel + 100} {
		c32 := make([]int32, n32)
		for i := range c32 {
			c32[i] = int32(r.Int64N(C32))
		}
		for _, k := range []int{1, 5, 64, 2999} {
			checkRingArc(t, c32, C32, k, false)
		}
	}
}
