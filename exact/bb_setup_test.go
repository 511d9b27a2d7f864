package exact

import (
	"context"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/procalloc/procalloc/geom"
)

// bruteSubsetOpt is the plain definition of Subset's problem with its options: the
// least W(S) + Σ_{i∈S} Linear[i] over k-subsets S holding every forced point, the
// others allowed, distances the shorter way round when Periods says so.
func bruteSubsetOpt(pts []geom.PointF, k int, opt SubsetOptions) float64 {
	n := len(pts)
	best := math.Inf(1)
	for m := uint(0); m < 1<<n; m++ {
		if bits.OnesCount(m) != k {
			continue
		}
		var idx []int
		ok := true
		for i := range n {
			in := m>>i&1 == 1
			if slices.Contains(opt.Forced, i) && !in || in && !slices.Contains(opt.Forced, i) && opt.Allowed != nil && !opt.Allowed[i] {
				ok = false
			}
			if in {
				idx = append(idx, i)
			}
		}
		if !ok {
			continue
		}
		t := 0.0
		for a, i := range idx {
			if opt.Linear != nil {
				t += opt.Linear[i]
			}
			for _, j := range idx[a+1:] {
				t += periodicL1(pts[i], pts[j], opt.Periods)
			}
		}
		best = min(best, t)
	}
	return best
}

// randomSubsetInput draws n points of 1-3 integer coordinates in [0, span) and
// options: linear terms in [-30, 10] (half the time), a torus of period span in
// some dimensions (a third), one forced point (a third), some points disallowed (a
// third).
func randomSubsetInput(r *rand.Rand, n, span int) ([]geom.PointF, SubsetOptions) {
	d := 1 + r.IntN(3)
	pts := make([]geom.PointF, n)
	for i := range pts {
		pts[i] = make(geom.PointF, d)
		for j := range d {
			pts[i][j] = float64(r.IntN(span))
		}
	}
	var opt SubsetOptions
	if r.IntN(2) == 0 {
		opt.Linear = make([]float64, n)
		for i := range opt.Linear {
			opt.Linear[i] = float64(r.IntN(41) - 30)
		}
	}
	if r.IntN(3) == 0 {
		opt.Periods = make([]float64, d)
		for j := range opt.Periods {
			opt.Periods[j] = float64(span * r.IntN(2))
		}
	}
	if r.IntN(3) == 0 {
		opt.Forced = []int{r.IntN(n)}
	}
	if r.IntN(3) == 0 {
		opt.Allowed = make([]bool, n)
		for i := range opt.Allowed {
			opt.Allowed[i] = r.IntN(4) != 0
		}
	}
	return pts, opt
}

// feasibleTotal checks that idx is a k-subset of the points holding every forced
// point and only allowed others, and returns its objective recomputed.
func feasibleTotal(t *testing.T, trial int, pts []geom.PointF, k int, opt SubsetOptions, idx []int) float64 {
	t.Helper()
	checkIndices(t, idx, len(pts), k)
	got := 0.0
	for a, i := range idx {
		if opt.Linear != nil {
			got += opt.Linear[i]
		}
		for _, j := range idx[a+1:] {
			got += periodicL1(pts[i], pts[j], opt.Periods)
		}
		if !slices.Contains(opt.Forced, i) && opt.Allowed != nil && !opt.Allowed[i] {
			t.Fatalf("trial %d: point %d not allowed in %v", trial, i, idx)
		}
	}
	for _, f := range opt.Forced {
		if !slices.Contains(idx, f) {
			t.Fatalf("trial %d: forced %d missing from %v", trial, f, idx)
		}
	}
	return got
}

// TestSubsetSetupHonoursContext ends Subset's context in the middle of its set-up (at
// each of the set-up's looks at it, through setupRowHook) and checks that the set-up
// stops at that look, and that the answer is a feasible k-subset whose Total is its
// recomputed objective (the caller's incumbent when it gave a feasible one), not
// claimed optimal, with a Bound at most the brute-force optimum, on random inputs with
// linear terms (negative too, as in the complement search), forced and disallowed
// points, and tori.
func TestSubsetSetupHonoursContext(t *testing.T) {
	defer func() { setupRowHook = nil }()
	r := rand.New(rand.NewPCG(91, 92))
	for trial := range 120 {
		n := 4 + r.IntN(9)
		k := 1 + r.IntN(n)
		pts, opt := randomSubsetInput(r, n, 6)
		allowed := 0
		for i := range n {
			if slices.Contains(opt.Forced, i) || opt.Allowed == nil || opt.Allowed[i] {
				allowed++
			}
		}
		if allowed < k || len(opt.Forced) > k {
			continue
		}
		if r.IntN(2) == 0 {
			opt.Incumbent = r.Perm(n)[:k]
		}
		want := bruteSubsetOpt(pts, k, opt)
		for _, stop := range []int{0, n} { // in the table, in the sums
			ctx, cancel := context.WithCancel(context.Background())
			looks := 0
			setupRowHook = func(step int) {
				if step == stop {
					cancel()
				} else if step > stop {
					looks++
				}
			}
			res, err := Subset(ctx, pts, k, opt)
			cancel()
			if err != nil {
				t.Fatalf("trial %d: %v", trial, err)
			}
			if looks != 0 {
				t.Fatalf("trial %d, ended at step %d: the set-up went on (%d more looks)", trial, stop, looks)
			}
			got := feasibleTotal(t, trial, pts, k, opt, res.Indices)
			if res.Optimal || res.Total != got || res.Bound > want || res.Total < want || res.Nodes != 0 {
				t.Fatalf("trial %d, ended at step %d, opt %+v: %+v; recomputed total %g, brute force %g", trial, stop, opt, res, got, want)
			}
		}
	}
}

// TestSubsetSeededPastDeadline runs SubsetSeeded, as the replay baseline does, with a
// deadline already past and the allocator's subset as incumbent (both searches:
// k <= n/2 and the complement's, k > n/2): the answer is that subset, unproven, with
// a bound at most the brute-force optimum.
func TestSubsetSeededPastDeadline(t *testing.T) {
	r := rand.New(rand.NewPCG(93, 94))
	for trial := range 60 {
		n := 4 + r.IntN(9)
		k := 2 + r.IntN(n-2)
		pts := make([]geom.PointF, n)
		ip := make([]geom.Point, n)
		for i := range pts {
			ip[i] = geom.Point{r.IntN(5), r.IntN(5)}
			pts[i] = geom.PointF{float64(ip[i][0]), float64(ip[i][1])}
		}
		inc := r.Perm(n)[:k]
		ctx, cancel := context.WithDeadline(context.Background(), time.Unix(0, 0))
		res, err := SubsetSeeded(ctx, pts, k, SubsetOptions{Incumbent: inc})
		cancel()
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		want := float64(bruteL1(ip, k))
		if !slices.Equal(res.Indices, slices.Sorted(slices.Values(inc))) || res.Total != geom.PairwiseL1Subset(pts, inc) ||
			res.Optimal || res.Bound > want {
			t.Fatalf("trial %d, points %v, k %d, incumbent %v: %+v; brute force %g", trial, ip, k, inc, res, want)
		}
	}
}

// TestSubsetSwapsHonourContext ends Subset's context during the greedy incumbent's
// swap rounds (through improveRoundHook, at round 1 of the first seed that gets
// there), without a caller's incumbent, and checks that no swap round runs after it
// and that the answer is a feasible k-subset whose Total is its recomputed objective,
// with a Bound at most the brute-force optimum and a Total at least it (the optimum
// if claimed optimal: the search after the set-up looks at the context every 1,024
// nodes, so these small searches may finish), on random inputs with linear terms, forced and disallowed points and tori.
func TestSubsetSwapsHonourContext(t *testing.T) {
	defer func() { improveRoundHook = nil }()
	r := rand.New(rand.NewPCG(95, 96))
	ended := 0
	for trial := range 300 {
		n := 5 + r.IntN(9)
		k := 2 + r.IntN(n-3)
		pts, opt := randomSubsetInput(r, n, 9)
		allowed := 0
		for i := range n {
			if slices.Contains(opt.Forced, i) || opt.Allowed == nil || opt.Allowed[i] {
				allowed++
			}
		}
		if allowed < k {
			continue
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancelled, after := false, 0
		improveRoundHook = func(round int) {
			if cancelled {
				after++
			} else if round == 1 {
				cancel()
				cancelled = true
			}
		}
		res, err := Subset(ctx, pts, k, opt)
		cancel()
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		if !cancelled {
			continue // no seed needed a second round
		}
		ended++
		if after != 0 {
			t.Fatalf("trial %d: %d swap rounds after the context ended", trial, after)
		}
		got := feasibleTotal(t, trial, pts, k, opt, res.Indices)
		want := bruteSubsetOpt(pts, k, opt)
		if res.Optimal && res.Total != want || res.Total != got || res.Bound > want || res.Total < want {
			t.Fatalf("trial %d, opt %+v: %+v; recomputed total %g, brute force %g", trial, opt, res, got, want)
		}
	}
	if ended < 50 {
		t.Fatalf("only %d of the trials reached a second swap round", ended)
	}
}
