package ptas

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/geom"
	"github.com/procalloc/procalloc/internal/oracle"
)

type algo[T geom.Number] struct {
	name string
	run  func(pts [][]T, k int, opt Options) (Result, error)
}

func algos[T geom.Number]() []algo[T] {
	return []algo[T]{
		{"mm", MM[[]T, T]}, {"genalg", GenAlg[[]T, T]},
		{"mc1x1", MC1x1[[]T, T]}, {"mminc", MMInc[[]T, T]},
	}
}

// checkResult asserts that res is a valid k-subset whose Total is its total, within
// the guarantee of opt.
func checkResult[T geom.Number](t *testing.T, what string, pts [][]T, k int, res Result, opt float64) {
	t.Helper()
	if len(res.Indices) != k {
		t.Fatalf("%s: %d indices for k = %d", what, len(res.Indices), k)
	}
	seen := map[int]bool{}
	for _, i := range res.Indices {
		if i < 0 || i >= len(pts) || seen[i] {
			t.Fatalf("%s: bad or repeated index %d in %v", what, i, res.Indices)
		}
		seen[i] = true
	}
	tot := float64(oracle.PairwiseL1Brute(subset(pts, res.Indices)))
	tol := 1e-9 * max(1, tot)
	if math.Abs(tot-res.Total) > tol {
		t.Fatalf("%s: Total %v but the indices give %v", what, res.Total, tot)
	}
	if tot < opt-tol {
		t.Fatalf("%s: total %v below the optimum %v", what, tot, opt)
	}
	if res.Guarantee < 1 || tot > res.Guarantee*opt+tol {
		t.Fatalf("%s: total %v exceeds guarantee %v x optimum %v (points %v, k %d)", what, tot, res.Guarantee, opt, pts, k)
	}
}

// Every algorithm on thousands of small random instances: valid subsets, honest totals,
// proven ratios against the brute-force optimum, and the optimized searches equal to
// the definitions (refSearch) under both tie rules.
func TestAgainstBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	trials := 3000
	if testing.Short() {
		trials = 500
	}
	for trial := 0; trial < trials; trial++ {
		n := 1 + r.IntN(9)
		d := 1 + r.IntN(3)
		k := 1 + r.IntN(n)
		pts := randomInts(r, n, d, 1+r.IntN(6))
		opt := bruteOpt(pts, k)
		for _, a := range algos[int]() {
			for _, ties := range []Ties{TiesByIndex, TiesPReMAS} {
				res, err := a.run(pts, k, Options{Ties: ties})
				if err != nil {
					t.Fatalf("%s: %v", a.name, err)
				}
				checkResult(t, a.name+"/"+ties.String(), pts, k, res, opt)
				if k == n {
					continue
				}
				var want []int
				switch a.name {
				case "mm":
					want = refSearch(pts, k, refMMCenters(pts, ties), metricL1, scorePairwise, ties)
				case "genalg":
					want = refSearch(pts, k, pts, metricL1, scorePairwise, ties)
				case "mc1x1":
					want = refSearch(pts, k, pts, metricLInf, scoreStar, ties)
				}
				if want != nil && !slices.Equal(res.Indices, want) {
					t.Fatalf("%s/%s on %v k=%d: %v, definition gives %v", a.name, ties, pts, k, res.Indices, want)
				}
			}
		}
		fpts := geom.ToFloat(toPoints(pts))
		res, err := PTAS(context.Background(), asRows(fpts), k, 0.5)
		if err != nil {
			t.Fatal(err)
		}
		checkResult(t, "ptas", asRows(fpts), k, res, opt)
		if d == 1 && res.Total != opt {
			t.Fatalf("ptas in 1D must be exact: %v vs %v on %v", res.Total, opt, pts)
		}
	}
}

// Float coordinates (no ties): same checks.
func TestAgainstBruteForceFloat(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 600; trial++ {
		n := 1 + r.IntN(9)
		d := 1 + r.IntN(3)
		k := 1 + r.IntN(n)
		pts := randomFloats(r, n, d)
		opt := bruteOpt(pts, k)
		for _, a := range algos[float64]() {
			res, err := a.run(pts, k, Options{})
			if err != nil {
				t.Fatal(err)
			}
			checkResult(t, a.name, pts, k, res, opt)
		}
		if k < n {
			res, _ := MM(pts, k, Options{})
			want := refSearch(pts, k, refMMCenters(pts, TiesByIndex), metricL1, scorePairwise, TiesByIndex)
			if !slices.Equal(res.Indices, want) {
				t.Fatalf("mm on %v: %v, definition %v", pts, res.Indices, want)
			}
		}
	}
}

func toPoints(pts [][]int) []geom.Point {
	out := make([]geom.Point, len(pts))
	for i, p := range pts {
		out[i] = p
	}
	return out
}

func asRows(pts []geom.PointF) [][]float64 {
	out := make([][]float64, len(pts))
	for i, p := range pts {
		out[i] = p
	}
	return out
}

// MM+Inc ends in a local minimum: no single swap lowers the total.
func TestMMIncLocalMinimum(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for trial := 0; trial < 300; trial++ {
		n := 2 + r.IntN(12)
		k := 1 + r.IntN(n-1)
		pts := randomInts(r, n, 2, 8)
		res, err := MMInc(pts, k, Options{})
		if err != nil {
			t.Fatal(err)
		}
		mm, _ := MM(pts, k, Options{})
		if res.Total > mm.Total {
			t.Fatalf("MM+Inc %v worse than MM %v", res.Total, mm.Total)
		}
		in := map[int]bool{}
		for _, i := range res.Indices {
			in[i] = true
		}
		for pos := range res.Indices {
			for j := 0; j < n; j++ {
				if in[j] {
					continue
				}
				sw := slices.Clone(res.Indices)
				sw[pos] = j
				if tot := float64(oracle.PairwiseL1Brute(subset(pts, sw))); tot < res.Total {
					t.Fatalf("swap %d->%d lowers %v to %v", res.Indices[pos], j, res.Total, tot)
				}
			}
		}
	}
}

func TestBadInput(t *testing.T) {
	good := [][]float64{{0, 0}, {1, 1}}
	cases := []struct {
		name string
		pts  [][]float64
		k    int
		want string
	}{
		{"empty", nil, 1, "no points"},
		{"k zero", good, 0, "k = 0"},
		{"k negative", good, -1, "k = -1"},
		{"k too big", good, 3, "k = 3"},
		{"mixed dims", [][]float64{{0, 0}, {1}}, 1, "dimension"},
		{"no coordinates", [][]float64{{}, {}}, 1, "no coordinates"},
		{"nan", [][]float64{{0, math.NaN()}, {1, 1}}, 1, "NaN"},
		{"inf", [][]float64{{0, 0}, {math.Inf(-1), 1}}, 1, "Inf"},
	}
	for _, c := range cases {
		for _, a := range algos[float64]() {
			_, err := a.run(c.pts, c.k, Options{})
			if err == nil || !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s %s: error %v, want one mentioning %q", a.name, c.name, err, c.want)
			}
		}
		if _, err := PTAS(context.Background(), c.pts, c.k, 0.5); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ptas %s: error %v", c.name, err)
		}
	}
	if _, err := MM([][]int{{0, 1 << 40}}, 1, Options{}); err == nil || !strings.Contains(err.Error(), "overflow") {
		t.Errorf("huge integer coordinate: %v", err)
	}
	if _, err := MM(good, 1, Options{Ties: 7}); err == nil {
		t.Error("unknown ties rule accepted")
	}
	for _, floor := range []float64{-1, math.NaN(), math.Inf(1)} {
		if _, err := MM(good, 1, Options{Floor: floor}); !errors.Is(err, ErrInput) {
			t.Errorf("MM floor %v: %v", floor, err)
		}
		if _, err := GenAlg(good, 1, Options{Floor: floor}); !errors.Is(err, ErrInput) {
			t.Errorf("Gen-Alg floor %v: %v", floor, err)
		}
	}
	for _, eps := range []float64{0, -1, math.NaN(), math.Inf(1)} {
		if _, err := PTAS(context.Background(), good, 1, eps); err == nil {
			t.Errorf("eps %v accepted", eps)
		}
	}
	if _, err := PTASWithM(context.Background(), good, 1, 0); err == nil {
		t.Error("m = 0 accepted")
	}
}

// k == n returns every point.
func TestAllPoints(t *testing.T) {
	pts := [][]int{{0, 0}, {3, 1}, {3, 1}}
	for _, a := range algos[int]() {
		res, err := a.run(pts, 3, Options{})
		if err != nil || !slices.Equal(res.Indices, []int{0, 1, 2}) || res.Total != 8 {
			t.Errorf("%s: %+v %v", a.name, res, err)
		}
	}
}

func TestContextAndLimits(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	pts := randomFloats(rand.New(rand.NewPCG(1, 1)), 30, 2)
	if _, err := MMContext(ctx, pts, 5, Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("MMContext on a cancelled context: %v", err)
	}
	if _, err := MMIncContext(ctx, pts, 5, Options{Ties: TiesPReMAS}); !errors.Is(err, context.Canceled) {
		t.Errorf("MMIncContext on a cancelled context: %v", err)
	}
	if _, err := PTAS(ctx, pts, 5, 0.5); !errors.Is(err, context.Canceled) {
		t.Errorf("PTAS on a cancelled context: %v", err)
	}
	big := randomFloats(rand.New(rand.NewPCG(2, 2)), 300, 2)
	if _, err := PTAS(context.Background(), big, 40, 0.1); !errors.Is(err, ErrTooLarge) {
		t.Errorf("huge PTAS: %v", err)
	}
}

// Beyond the sweep's memory bound MM scans every point per center; both paths give
// the same subsets.
func TestMMScanEqualsSweep(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for trial := 0; trial < 300; trial++ {
		n := 2 + r.IntN(30)
		k := 1 + r.IntN(n-1)
		pts := randomInts(r, n, 1+r.IntN(3), 2+r.IntN(10))
		if trial%10 == 0 {
			// Large groups of equal first coordinate (the sweep selects within them).
			n, k = 150+r.IntN(100), 1+r.IntN(40)
			pts = randomInts(r, n, 2, 40)
			for _, p := range pts {
				p[0] %= 3
			}
		}
		sweep, _ := MM(pts, k, Options{})
		saved := maxSweepEntries
		maxSweepEntries = 0
		scan, _ := MM(pts, k, Options{})
		maxSweepEntries = saved
		if !slices.Equal(sweep.Indices, scan.Indices) || !slices.Equal(sweep.Center, scan.Center) {
			t.Fatalf("sweep %+v, scan %+v on %v k=%d", sweep, scan, pts, k)
		}
	}
}
