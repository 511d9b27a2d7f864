package exact

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/geom"
)

// Subset and SubsetSeeded take the points a user has: []geom.Point, [][]int64,
// [][]float64 and []geom.PointF of the same lattice points give the brute-force
// optimum, certified, and the same answer.
func TestSubsetTakesAnyPointType(t *testing.T) {
	r := rand.New(rand.NewPCG(71, 72))
	for trial := range 300 {
		n := 1 + r.IntN(11)
		k := 1 + r.IntN(n)
		d := 1 + r.IntN(3)
		ip := make([]geom.Point, n)
		i64 := make([][]int64, n)
		f64 := make([][]float64, n)
		for i := range ip {
			ip[i] = make(geom.Point, d)
			i64[i] = make([]int64, d)
			f64[i] = make([]float64, d)
			for j := range d {
				v := r.IntN(7) - 3
				ip[i][j], i64[i][j], f64[i][j] = v, int64(v), float64(v)
			}
		}
		want := float64(bruteL1(ip, k))
		ctx := context.Background()
		for name, solve := range map[string]func() (SubsetResult, error){
			"Subset/Point":        func() (SubsetResult, error) { return Subset(ctx, ip, k, SubsetOptions{}) },
			"Subset/int64":        func() (SubsetResult, error) { return Subset(ctx, i64, k, SubsetOptions{}) },
			"Subset/float64":      func() (SubsetResult, error) { return Subset(ctx, f64, k, SubsetOptions{}) },
			"Subset/PointF":       func() (SubsetResult, error) { return Subset(ctx, geom.ToFloat(ip), k, SubsetOptions{}) },
			"SubsetSeeded/Point":  func() (SubsetResult, error) { return SubsetSeeded(ctx, ip, k, SubsetOptions{}) },
			"SubsetSeeded/int64":  func() (SubsetResult, error) { return SubsetSeeded(ctx, i64, k, SubsetOptions{}) },
			"SubsetSeeded/PointF": func() (SubsetResult, error) { return SubsetSeeded(ctx, geom.ToFloat(ip), k, SubsetOptions{}) },
		} {
			res, err := solve()
			if err != nil {
				t.Fatalf("trial %d %s: %v", trial, name, err)
			}
			checkIndices(t, res.Indices, n, k)
			if !res.Optimal || res.Total != want || res.Bound != want ||
				float64(geom.PairwiseL1Subset(ip, res.Indices)) != want {
				t.Fatalf("trial %d %s: points %v k %d: %+v, brute %v", trial, name, ip, k, res, want)
			}
		}
	}
}

// Integer input is refused, with an error, where float64 stops being exact: a
// coordinate of 2^53 or more, or points so far apart that the search's sums could
// round. Just inside the limit the certificate matches the brute force in int64.
func TestSubsetIntegerExactRange(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		pts  [][]int64
		k    int
		want string
	}{
		{"coordinate 2^53", [][]int64{{0}, {1 << 53}}, 1, "below 2^53"},
		{"coordinate -2^53-1", [][]int64{{0}, {-(1 << 53) - 1}}, 1, "below 2^53"},
		{"spread", [][]int64{{0}, {1}, {1 << 48}}, 2, "exact totals"},
	} {
		for name, solve := range map[string]func() (SubsetResult, error){
			"Subset":       func() (SubsetResult, error) { return Subset(ctx, tc.pts, tc.k, SubsetOptions{}) },
			"SubsetSeeded": func() (SubsetResult, error) { return SubsetSeeded(ctx, tc.pts, tc.k, SubsetOptions{}) },
		} {
			if _, err := solve(); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s %s: err %v, want one saying %q", tc.name, name, err, tc.want)
			}
		}
	}
	// n (2 n D + nD) just below 2^51 for the left-out search (k > n/2): accepted,
	// and the totals are exact.
	r := rand.New(rand.NewPCG(73, 74))
	for range 50 {
		n := 2 + r.IntN(8)
		k := 1 + r.IntN(n)
		D := int64(exactSumLimit/(3*n*n)) - 1
		ip := make([]geom.Point, n)
		for i := range ip {
			ip[i] = geom.Point{int(r.Int64N(D + 1))}
		}
		ip[0][0], ip[n-1][0] = 0, int(D)
		want := float64(bruteL1(ip, k))
		for name, solve := range map[string]func() (SubsetResult, error){
			"Subset":       func() (SubsetResult, error) { return Subset(ctx, ip, k, SubsetOptions{}) },
			"SubsetSeeded": func() (SubsetResult, error) { return SubsetSeeded(ctx, ip, k, SubsetOptions{}) },
		} {
			res, err := solve()
			if err != nil {
				t.Fatalf("%s %v k %d: %v", name, ip, k, err)
			}
			if !res.Optimal || res.Total != want {
				t.Fatalf("%s %v k %d: %+v, brute %v", name, ip, k, res, want)
			}
		}
	}
}

// Integral points on a torus of non-integral circumference have non-integral
// distances: the bound must not be rounded up there (a stopped search reported a
// bound above the optimum).
func TestSubsetFractionalPeriodsNotRounded(t *testing.T) {
	r := rand.New(rand.NewPCG(75, 76))
	for trial := range 300 {
		n := 2 + r.IntN(8)
		k := 2 + r.IntN(n-1)
		pts := make([]geom.PointF, n)
		for i := range pts {
			pts[i] = geom.PointF{float64(r.IntN(5)), float64(r.IntN(5))}
		}
		opt := SubsetOptions{Periods: []float64{2.5 + float64(r.IntN(3)), 0}}
		want := bruteSubsetOpt(pts, k, opt)
		res, err := Subset(context.Background(), pts, k, opt)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(res.Total-want) > 1e-9 || !res.Optimal {
			t.Fatalf("trial %d: %v k %d periods %v: %+v, brute %v", trial, pts, k, opt.Periods, res, want)
		}
		// Stopped early, the bound it reports is still at most the optimum.
		for _, budget := range []int64{1, 2, 3, 5, 8} {
			opt.MaxNodes = budget
			res, err := Subset(context.Background(), pts, k, opt)
			if err != nil {
				t.Fatal(err)
			}
			if res.Bound > want+1e-9 {
				t.Fatalf("trial %d: %v k %d periods %v MaxNodes %d: bound %v above the optimum %v", trial, pts, k, opt.Periods, budget, res.Bound, want)
			}
		}
	}
}
