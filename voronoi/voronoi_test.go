package voronoi

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/procalloc/procalloc/geom"
	"github.com/procalloc/procalloc/internal/oracle"
)

// bruteSets is every k-nearest set of the plane, by key (oracle.LatticeKNearestSets:
// every center of the quarter lattice of the bounding box, ties completed every way).
func bruteSets(pts []geom.Point, k int) map[string][]int {
	out := map[string][]int{}
	oracle.LatticeKNearestSets(pts, k, func(idx []int) { out[setKey(idx)] = idx })
	return out
}

func randomPoints(r *rand.Rand, n, span int, collinear bool) []geom.Point {
	pts := make([]geom.Point, n)
	for i := range pts {
		x, y := r.IntN(span), r.IntN(span)
		if collinear {
			switch r.IntN(3) {
			case 0:
				y = x
			case 1:
				y = span - 1 - x
			default:
				y = 0
			}
		}
		pts[i] = geom.Point{x, y}
	}
	return pts
}

func TestKNearestSetsMatchBrute(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	trials := 1500
	if testing.Short() {
		trials = 300
	}
	for trial := 0; trial < trials; trial++ {
		n := 1 + r.IntN(8)
		k := 1 + r.IntN(n)
		span := 1 + r.IntN(6)
		pts := randomPoints(r, n, span, trial%4 == 0)
		sets, err := KNearestSets(pts, k, 0)
		if err != nil {
			t.Fatal(err)
		}
		want := bruteSets(pts, k)
		got := map[string]bool{}
		for _, s := range sets {
			got[setKey(s.Indices)] = true
			if err := CheckWitness(pts, s.Indices, s.Center2); err != nil {
				t.Fatalf("points %v k %d set %v witness %v: %v", pts, k, s.Indices, s.Center2, err)
			}
		}
		for key, idx := range want {
			if !got[key] {
				t.Fatalf("points %v k %d: missing %d-nearest set %v", pts, k, k, idx)
			}
		}
		if len(got) != len(want) {
			t.Fatalf("points %v k %d: %d sets, brute force %d", pts, k, len(got), len(want))
		}
	}
}

// In general position the order-k diagram has O(k(n-k)) cells; check the family count
// stays linear in n for random points.
func TestFamilyCountLinear(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 33))
	for _, k := range []int{1, 2, 3, 5} {
		n := 2000
		pts := randomPoints(r, n, 1<<20, false)
		sets, err := KNearestSets(pts, k, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(sets) > 2*k*(n-k)+n {
			t.Errorf("k %d: %d sets for n %d", k, len(sets), n)
		}
		t.Logf("k %d n %d: %d distinct sets", k, n, len(sets))
	}
}

func TestInputErrors(t *testing.T) {
	if _, err := KNearestSets([]geom.Point{{0, 0}}, 2, 0); err == nil {
		t.Error("k > n accepted")
	}
	if _, err := KNearestSets([]geom.Point{{0, 0, 0}}, 1, 0); err == nil {
		t.Error("3D accepted")
	}
	if _, err := KNearestSets([]geom.Point{{0, 0}, {1}}, 1, 0); err == nil {
		t.Error("mixed dimensions accepted")
	}
	many := make([]geom.Point, 12)
	for i := range many {
		many[i] = geom.Point{0, 0}
	}
	if _, err := KNearestSets(many, 6, 100); err == nil {
		t.Error("limit not enforced on 924 coincident sets")
	}
}

// Issue 13 item 14: a set's radius is that of its farthest member, never more.
func TestSetRadiusIsTheFarthestMember(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for range 200 {
		n := 3 + rng.IntN(12)
		pts := make([]geom.Point, n)
		for i := range pts {
			pts[i] = geom.Point{rng.IntN(6), rng.IntN(6)}
		}
		k := 1 + rng.IntN(n)
		sets, err := KNearestSets(pts, k, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range sets {
			var far int64
			for _, i := range s.Indices {
				d := abs64(2*int64(pts[i][0])-s.Center2[0]) + abs64(2*int64(pts[i][1])-s.Center2[1])
				far = max(far, d)
			}
			if s.Radius2 != far {
				t.Fatalf("set %v: radius2 %d, farthest member at %d", s.Indices, s.Radius2, far)
			}
		}
	}
}

func TestKNearestSetsStopsWhenCancelled(t *testing.T) {
	var many []geom.Point
	for i := range 40 {
		many = append(many, geom.Point{i % 3, i % 2})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := KNearestSetsContext(ctx, many, 15, 0); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

// Denser inputs than TestKNearestSetsMatchBrute's (up to 40 points on spans of 3 to
// 8, duplicates and diagonal runs): squares stops a pair as soon as more than k
// points lie strictly inside all its squares, and a count once more than k lie
// inside one; a point on a side counted inside, or k counted as too many, loses
// sets that only such inputs have.
func TestKNearestSetsMatchBruteDense(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	trials := 400
	if testing.Short() {
		trials = 150
	}
	for trial := range trials {
		n := 9 + r.IntN(32)
		k := 1 + r.IntN(6)
		pts := randomPoints(r, n, 3+r.IntN(6), trial%3 == 0)
		sets, err := KNearestSets(pts, k, 0)
		if err != nil {
			t.Fatal(err)
		}
		want := bruteSets(pts, k)
		if len(sets) != len(want) {
			t.Fatalf("points %v k %d: %d sets, brute force %d", pts, k, len(sets), len(want))
		}
		for _, s := range sets {
			if _, ok := want[setKey(s.Indices)]; !ok {
				t.Fatalf("points %v k %d: set %v is not a k-nearest set", pts, k, s.Indices)
			}
		}
	}
}

// squares' early stops (squaresStopEarly) skip only pairs and positions without a
// family: the walk reports the same families in the same order as with full scans,
// on inputs with ties, duplicates and diagonal runs and on random ones large enough
// for boxes of hundreds of points.
func TestSquaresStopEarlyKeepsFamilies(t *testing.T) {
	defer func() { squaresStopEarly = true }()
	forRandomWalkInputs(t, 7, 8, func(pts []geom.Point, n, span, k int) {
		squaresStopEarly = false
		full := walkFamilyStrings(t, pts, k)
		squaresStopEarly = true
		if early := walkFamilyStrings(t, pts, k); !slices.Equal(full, early) {
			t.Fatalf("%d points on a span of %d, k %d: %d families by full scans, %d with early stops", n, span, k, len(full), len(early))
		}
	})
}

// walkFamilyStrings lists the families Walk reports, in order, one string each.
func walkFamilyStrings(t *testing.T, pts []geom.Point, k int) []string {
	t.Helper()
	var out []string
	if err := Walk(pts, k, func(f *Family) bool {
		out = append(out, fmt.Sprint(f.Inner, f.Boundary, f.Center2, f.Radius2))
		return true
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// forRandomWalkInputs calls check on random point sets (300 trials, 100 with
// -short) with ties, duplicates and diagonal runs, every fifth on a span wide
// enough for boxes of hundreds of points.
func forRandomWalkInputs(t *testing.T, seed1, seed2 uint64, check func(pts []geom.Point, n, span, k int)) {
	r := rand.New(rand.NewPCG(seed1, seed2))
	trials := 300
	if testing.Short() {
		trials = 100
	}
	for trial := range trials {
		n := 2 + r.IntN(200)
		k := 1 + r.IntN(min(n, 6))
		span := 2 + r.IntN(30)
		if trial%5 == 4 {
			span = 1 << 16
		}
		check(randomPoints(r, n, span, trial%3 == 0), n, span, k)
	}
}

// A box's points in U order (and a square's in V order) come from filtering the
// global order or from sorting ranks: both give the same families in the same order
// as the other, on inputs with ties, duplicates and boxes of hundreds of points.
func TestBoxOrderFilterOrSortSameFamilies(t *testing.T) {
	defer func() { boxOrder = boxOrderAuto }()
	forRandomWalkInputs(t, 11, 12, func(pts []geom.Point, n, span, k int) {
		boxOrder = boxOrderSort
		sorted := walkFamilyStrings(t, pts, k)
		for _, order := range []int{boxOrderFilter, boxOrderAuto} {
			boxOrder = order
			if got := walkFamilyStrings(t, pts, k); !slices.Equal(got, sorted) {
				t.Fatalf("%d points on a span of %d, k %d, order %d: %d families, %d by sorting ranks", n, span, k, order, len(got), len(sorted))
			}
		}
	})
}

// setKey identifies a set of indices (as KNearestSets does).
func setKey(idx []int) string { return string(appendIndices(nil, idx)) }

// KNearestSets keys short families and sets by packed 128-bit keys and long ones by
// strings: with strings only it returns the same sets with the same witnesses, on
// inputs with ties (families too long to pack), duplicates and diagonal runs.
func TestKNearestSetsPackedKeysSameSets(t *testing.T) {
	defer func() { packKeys = true }()
	forRandomWalkInputs(t, 13, 14, func(pts []geom.Point, n, span, k int) {
		// Dense inputs have C(m, k) sets for m tied points: bounded, and a bound
		// met must be met by both.
		const limit = 20000
		packKeys = false
		want, werr := KNearestSets(pts, k, limit)
		packKeys = true
		got, err := KNearestSets(pts, k, limit)
		if (err == nil) != (werr == nil) {
			t.Fatalf("%d points on a span of %d, k %d: error %v with packed keys, %v with strings", n, span, k, err, werr)
		}
		if !slices.EqualFunc(got, want, func(a, b Set) bool {
			return slices.Equal(a.Indices, b.Indices) && a.Center2 == b.Center2 && a.Radius2 == b.Radius2
		}) {
			t.Fatalf("%d points on a span of %d, k %d: %d sets with packed keys, %d with strings (or other witnesses)", n, span, k, len(got), len(want))
		}
	})
}

// packKey is injective: distinct (a, b) pairs of lists that fit get distinct keys,
// among them lists that differ only in where a ends and b begins, and indices at
// the width's limit crossing the 64-bit word boundary.
func TestPackKeyInjective(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, width := range []int{0, 1, 3, 17, 21, 29, 58} {
		seen := map[[2]uint64]string{}
		for range 20000 {
			m := r.IntN(8)
			na := r.IntN(m + 1)
			l := make([]int, m)
			for i := range l {
				if width > 0 {
					l[i] = r.IntN(1 << width)
					if r.IntN(4) == 0 {
						l[i] = 1<<width - 1
					}
				}
			}
			key, ok := packKey(width, l[:na], l[na:])
			if ok != (12+m*width <= 128) {
				t.Fatalf("width %d, %d indices: ok %v", width, m, ok)
			}
			if !ok {
				continue
			}
			s := fmt.Sprint(l[:na], l[na:])
			if prev, dup := seen[key]; dup && prev != s {
				t.Fatalf("width %d: %s and %s share key %x", width, prev, s, key)
			}
			seen[key] = s
		}
	}
}

// For k = 1 the only canonical square of a point is its own, of side 0 (a square
// with a and b != a on opposite sides holds at most k-2 < 0 other points of a set):
// Walk reports, per orientation, one family per distinct position, centered on it
// with radius 0 and the points there as its boundary, and nothing else.
func TestWalkK1OnlyEachPointsOwnSquare(t *testing.T) {
	forRandomWalkInputs(t, 13, 14, func(pts []geom.Point, n, span, _ int) {
		at := map[[2]int64][]int{} // doubled position -> input indices there
		for i, p := range pts {
			c := [2]int64{2 * int64(p[0]), 2 * int64(p[1])}
			at[c] = append(at[c], i)
		}
		seen := map[[2]int64]int{}
		if err := Walk(pts, 1, func(f *Family) bool {
			want, ok := at[f.Center2]
			if !ok || f.Radius2 != 0 || len(f.Inner) != 0 || !slices.Equal(f.Boundary, want) {
				t.Fatalf("%d points on a span of %d: family %v %v center2 %v radius2 %d is not a point's own square", n, span, f.Inner, f.Boundary, f.Center2, f.Radius2)
			}
			seen[f.Center2]++
			return true
		}); err != nil {
			t.Fatal(err)
		}
		for c := range at {
			if seen[c] != 2 {
				t.Fatalf("%d points on a span of %d: position %v reported %d times, want 2 (once per orientation)", n, span, c, seen[c])
			}
		}
	})
}
