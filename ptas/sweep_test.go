package ptas

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/procalloc/procalloc/geom"
)

// sweepCase draws one random point set for TestSweepMatchesPlain: kind picks the
// shape (small integer spans with many duplicate coordinates, collinear points,
// one repeated point, clusters, large integers) in d dimensions.
func sweepCase(r *rand.Rand, kind, d int) [][]int {
	n := 1 + r.IntN(45)
	pts := make([][]int, n)
	for i := range pts {
		p := make([]int, d)
		switch kind {
		case 0: // tiny span: duplicates and ties everywhere
			for j := range p {
				p[j] = r.IntN(4)
			}
		case 1: // collinear: on an axis-parallel line or a diagonal
			t := r.IntN(20)
			for j := range p {
				p[j] = t * (j % 2)
				if i%2 == 0 {
					p[j] = t
				}
			}
			if n%3 == 0 {
				for j := 1; j < d; j++ {
					p[j] = 7
				}
			}
		case 2: // one point repeated
			for j := range p {
				p[j] = 5 - j
			}
		case 3: // two or three clusters with gaps between them
			cl := r.IntN(3)
			for j := range p {
				p[j] = cl*30 + r.IntN(5)
			}
		case 4: // large integers (2^30): the integer pruning stays exact
			for j := range p {
				p[j] = 1<<30 - r.IntN(50)*(1<<20)
			}
		default: // medium span
			for j := range p {
				p[j] = r.IntN(25) - 10
			}
		}
		pts[i] = p
	}
	return pts
}

// TestSweepMatchesPlain checks that mmSweep (seed rows, same-set skips, pruning by
// crossBound) returns exactly the plain sweep's subset and center (mmSweepPlain, the
// sweep before the pruning) on thousands of random point sets with duplicates,
// collinear points, one repeated point, clusters and large coordinates, as int, as
// float64 with fractional values (where the slack matters) and as int32, for k = 1,
// 2, a random k, n - 1 and n. sweepChecks checks every center's shortcuts too (the
// split against the merge, the same-set verdict against the sets, a pruned
// center's total against the incumbent), so a wrong shortcut fails even where it
// does not change the winner. The sums over all trials must show centers both
// skipped and pruned, so the paths under test were taken.
func TestSweepMatchesPlain(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 5))
	trials := 3000
	if testing.Short() {
		trials = 500
	}
	counts := &sweepCheck{}
	sweepChecks = counts
	defer func() { sweepChecks = nil }()
	for trial := 0; trial < trials; trial++ {
		d := []int{1, 2, 2, 2, 3}[r.IntN(5)]
		kind := r.IntN(6)
		pts := sweepCase(r, kind, d)
		n := len(pts)
		ks := []int{1, 2, 1 + r.IntN(n), n - 1, n}
		for _, k := range ks {
			if k < 1 || k > n {
				continue
			}
			compareSweeps(t, trial, pts, k)
			if counts.fail != "" {
				t.Fatalf("trial %d (int), k = %d: %s\npoints %v", trial, k, counts.fail, pts)
			}
			// float64 with fractional values: a tenth of each integer plus a third of
			// a tenth, so totals round.
			fpts := make([][]float64, n)
			for i, p := range pts {
				fpts[i] = make([]float64, d)
				for j, v := range p {
					fpts[i][j] = float64(v)/10 + 1.0/30
				}
			}
			compareSweeps(t, trial, fpts, k)
			if counts.fail != "" {
				t.Fatalf("trial %d (float64), k = %d: %s\npoints %v", trial, k, counts.fail, fpts)
			}
			// float64 where adding a center's x rounds distinct keys to one distance:
			// jitter of 1e-11 and one point at 1e6 in every coordinate (a center x of
			// 1e6, whose ulp is 1.2e-10).
			jpts := make([][]float64, n, n+1)
			for i, p := range pts {
				jpts[i] = make([]float64, d)
				for j, v := range p {
					jpts[i][j] = float64(v) + float64((i+j)%3)*1e-11
				}
			}
			far := make([]float64, d)
			for j := range far {
				far[j] = 1e6
			}
			jpts = append(jpts, far)
			compareSweeps(t, trial, jpts, k)
			if counts.fail != "" {
				t.Fatalf("trial %d (float64, jitter), k = %d: %s\npoints %v", trial, k, counts.fail, jpts)
			}
			if kind != 4 {
				ipts := make([][]int32, n)
				for i, p := range pts {
					ipts[i] = make([]int32, d)
					for j, v := range p {
						ipts[i][j] = int32(v * 1000)
					}
				}
				compareSweeps(t, trial, ipts, k)
				if counts.fail != "" {
					t.Fatalf("trial %d (int32), k = %d: %s\npoints %v", trial, k, counts.fail, ipts)
				}
			}
		}
	}
	t.Logf("centers: %d skipped (same set), %d pruned, %d scored", counts.same, counts.pruned, counts.scored)
	if counts.same == 0 || counts.pruned == 0 {
		t.Fatalf("the cross-check did not reach both shortcuts: %+v", counts)
	}
}

func compareSweeps[T geom.Number](t *testing.T, trial int, pts [][]T, k int) {
	t.Helper()
	pr, err := newProblem(pts, k)
	if err != nil {
		t.Fatal(err)
	}
	pi, pc, err := mmSweepPlain(context.Background(), pr)
	if err != nil {
		t.Fatal(err)
	}
	si, sc, err := mmSweep(context.Background(), pr)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(pi, si) || !slices.Equal(pc, sc) {
		t.Fatalf("trial %d (%T), n = %d, k = %d: plain %v at %v, pruned sweep %v at %v\npoints %v", trial, pts[0][0], len(pts), k, pi, pc, si, sc, pts)
	}
}

// TestCrossBoundIsALowerBound checks crossBound against the total it bounds (brute
// force over pairs) for random sets and centers, integers exactly.
func TestCrossBoundIsALowerBound(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 9))
	for trial := 0; trial < 5000; trial++ {
		d, n := 1+r.IntN(3), 1+r.IntN(12)
		pts := make([][]int, n)
		for i := range pts {
			pts[i] = make([]int, d)
			for j := range pts[i] {
				pts[i][j] = r.IntN(9) - 4
			}
		}
		sel := r.Perm(n)[:1+r.IntN(n)]
		c := make([]int, d)
		for j := range c {
			c[j] = r.IntN(13) - 6
		}
		tot := 0
		for a := range sel {
			for b := a + 1; b < len(sel); b++ {
				tot += geom.L1(pts[sel[a]], pts[sel[b]])
			}
		}
		coord := make([][]int, d)
		for j := range coord {
			for _, p := range pts {
				coord[j] = append(coord[j], p[j])
			}
		}
		lb := crossBound(coord, sel, c)
		if lb > tot || lb < 0 {
			t.Fatalf("trial %d: bound %d, total %d (points %v, chosen %v, center %v)", trial, lb, tot, pts, sel, c)
		}
	}
}

// benchSweepPoints is n uniform float64 points in [0,100)^2 (seed 1), the general
// points of `subset --algo mm` that take mmSweep.
func benchSweepPoints(n int) [][]float64 {
	r := rand.New(rand.NewPCG(1, 1))
	pts := make([][]float64, n)
	for i := range pts {
		pts[i] = []float64{100 * r.Float64(), 100 * r.Float64()}
	}
	return pts
}

// BenchmarkMMSweep times mmSweep and the plain sweep on 3,000 uniform points, k = 50
// (docs/reliability.md, thirty-first round, wt-subsetmm).
func BenchmarkMMSweep(b *testing.B) {
	pr, err := newProblem(benchSweepPoints(3000), 50)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("pruned", func(b *testing.B) {
		for b.Loop() {
			if _, _, err := mmSweep(context.Background(), pr); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("nobound", func(b *testing.B) {
		sweepBound = false
		defer func() { sweepBound = true }()
		for b.Loop() {
			if _, _, err := mmSweep(context.Background(), pr); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("plain", func(b *testing.B) {
		for b.Loop() {
			if _, _, err := mmSweepPlain(context.Background(), pr); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkMMSweepClustered is BenchmarkMMSweep on 3,000 points in 12 clusters
// (normal, sd 2) over [0,100)^2 with a tenth of them spread uniformly, k = 50: the
// free nodes of a fragmented machine, where most centers' k nearest span a gap and
// crossBound prunes them.
func BenchmarkMMSweepClustered(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 3))
	var cx, cy [12]float64
	for i := range cx {
		cx[i], cy[i] = 100*r.Float64(), 100*r.Float64()
	}
	pts := make([][]float64, 3000)
	for i := range pts {
		if i%10 == 0 {
			pts[i] = []float64{100 * r.Float64(), 100 * r.Float64()}
			continue
		}
		c := r.IntN(12)
		pts[i] = []float64{cx[c] + 2*r.NormFloat64(), cy[c] + 2*r.NormFloat64()}
	}
	pr, err := newProblem(pts, 50)
	if err != nil {
		b.Fatal(err)
	}
	for _, bound := range []bool{true, false} {
		name := map[bool]string{true: "pruned", false: "nobound"}[bound]
		b.Run(name, func(b *testing.B) {
			sweepBound = bound
			defer func() { sweepBound = true }()
			for b.Loop() {
				if _, _, err := mmSweep(context.Background(), pr); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
