package voronoi

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/procalloc/procalloc/geom"
)

// bruteSets samples every center on the quarter lattice of the bounding box — the
// arrangement of all L1 bisectors has its vertices there, every region of centers of a
// k-nearest set is closed and piecewise linear with edges of slope 0, infinity and ±1
// through half-integers, and outside the box the distance order does not change — and
// collects every k-set satisfying the tie rule at some sampled center.
func bruteSets(pts []geom.Point, k int) map[string][]int {
	b := geom.BoundingBox(pts)
	out := map[string][]int{}
	type pd struct {
		i int
		d int64
	}
	for x4 := 4 * b.Min[0]; x4 <= 4*b.Max[0]; x4++ {
		for y4 := 4 * b.Min[1]; y4 <= 4*b.Max[1]; y4++ {
			ds := make([]pd, len(pts))
			for i, p := range pts {
				ds[i] = pd{i, abs64(int64(4*p[0]-x4)) + abs64(int64(4*p[1]-y4))}
			}
			slices.SortFunc(ds, func(a, b pd) int { return int(a.d - b.d) })
			r := ds[k-1].d
			var inner, shell []int
			for _, e := range ds {
				if e.d < r {
					inner = append(inner, e.i)
				} else if e.d == r {
					shell = append(shell, e.i)
				}
			}
			need := k - len(inner)
			var rec func(start int, pick []int)
			rec = func(start int, pick []int) {
				if len(pick) == need {
					idx := append(slices.Clone(inner), pick...)
					slices.Sort(idx)
					out[setKey(idx)] = idx
					return
				}
				for i := start; i <= len(shell)-(need-len(pick)); i++ {
					rec(i+1, append(pick, shell[i]))
				}
			}
			rec(0, nil)
		}
	}
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
