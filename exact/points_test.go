package exact

import (
	"context"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
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

// Integer points with a caller's Linear terms, n (2 n D + max |Linear|) just
// below 2^51: accepted, and the total and certificate are the int64 brute force's
// (the linear terms count in the range check: the bound's α + Linear + β sums);
// just above, refused.
func TestSubsetIntegerExactRangeWithLinear(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(77, 78))
	for trial := range 60 {
		n := 2 + r.IntN(8)
		k := 1 + r.IntN(n)
		// Half of the range to distances, half to the linear terms.
		D := int64(exactSumLimit/(4*n*n)) - 1
		L := int64(exactSumLimit/(2*n)) - 1
		pts := make([][]int64, n)
		for i := range pts {
			pts[i] = []int64{r.Int64N(D + 1)}
		}
		pts[0][0], pts[n-1][0] = 0, D
		lin := make([]float64, n)
		li := make([]int64, n)
		for i := range lin {
			li[i] = r.Int64N(2*L+1) - L
			lin[i] = float64(li[i])
		}
		li[0], lin[0] = -L, float64(-L)
		want := int64(math.MaxInt64)
		for m := 0; m < 1<<n; m++ {
			if bits.OnesCount(uint(m)) != k {
				continue
			}
			var tot int64
			for i := range n {
				if m>>i&1 == 0 {
					continue
				}
				tot += li[i]
				for j := i + 1; j < n; j++ {
					if m>>j&1 == 1 {
						d := pts[i][0] - pts[j][0]
						tot += max(d, -d)
					}
				}
			}
			want = min(want, tot)
		}
		for name, solve := range map[string]func(opt SubsetOptions) (SubsetResult, error){
			"Subset":       func(opt SubsetOptions) (SubsetResult, error) { return Subset(ctx, pts, k, opt) },
			"SubsetSeeded": func(opt SubsetOptions) (SubsetResult, error) { return SubsetSeeded(ctx, pts, k, opt) },
		} {
			res, err := solve(SubsetOptions{Linear: lin})
			if err != nil {
				t.Fatalf("trial %d %s %v k %d: %v", trial, name, pts, k, err)
			}
			if !res.Optimal || res.Total != float64(want) || res.Bound != float64(want) {
				t.Fatalf("trial %d %s %v linear %v k %d: %+v, brute %d", trial, name, pts, lin, k, res, want)
			}
			// Stopped early, the bound is still at most the optimum.
			for _, budget := range []int64{1, 2, 3} {
				res, err := solve(SubsetOptions{Linear: lin, MaxNodes: budget})
				if err != nil {
					t.Fatal(err)
				}
				if res.Bound > float64(want) {
					t.Fatalf("trial %d %s MaxNodes %d: bound %v above the optimum %d", trial, name, budget, res.Bound, want)
				}
			}
			big := slices.Clone(lin)
			big[0] = float64(-2 * L)
			if _, err := solve(SubsetOptions{Linear: big}); err == nil || !strings.Contains(err.Error(), "exact totals") {
				t.Fatalf("trial %d %s: linear term %v beyond the range: err %v, want a refusal", trial, name, big[0], err)
			}
		}
	}
}
