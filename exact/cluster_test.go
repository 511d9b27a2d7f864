package exact

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/procalloc/procalloc/geom"
	"github.com/procalloc/procalloc/internal/oracle"
)

// Fig. 2 of Bender et al. (2005): optimal totals of k = 2..21 points of Z^2
// (numerators of the average distances shown).
var fig2 = []int64{1, 4, 8, 16, 25, 38, 54, 72, 96, 124, 152, 188, 227, 272, 318, 374, 433, 496, 563, 632}

// OEIS A193452 (Demaine, Fekete, Rote, Schweer, Schymura, Zelke 2010, Table 1):
// minimum total pairwise L1 distance of n points of Z^2, n = 1..49.
var a193452 = []int64{0, 1, 4, 8, 16, 25, 38, 54, 72, 96, 124, 152, 188, 227, 272, 318, 374, 433,
	496, 563, 632, 716, 804, 895, 992, 1091, 1204, 1318, 1442, 1570, 1704, 1840, 1996, 2153,
	2318, 2486, 2656, 2847, 3040, 3241, 3446, 3662, 3886, 4112, 4360, 4612, 4868, 5128, 5398}

// OEIS A290190: the same in Z^3, n = 2..13.
var a290190 = []int64{1, 4, 8, 16, 25, 36, 48, 68, 89, 112, 136, 168}

// checkCluster asserts the invariants of a result: k distinct points, the first at
// the origin, Total their recomputed total, Bound <= Total, Bound == Total iff optimal.
func checkCluster(t *testing.T, c ClusterResult) {
	t.Helper()
	seen := map[string]bool{}
	for _, p := range c.Points {
		seen[fmt.Sprint(p)] = true
	}
	if len(c.Points) != c.K || len(seen) != c.K || slices.ContainsFunc(c.Points[0], func(v int) bool { return v != 0 }) {
		t.Fatalf("dim %d k %d: %d points, %d distinct, first %v", c.Dim, c.K, len(c.Points), len(seen), c.Points[0])
	}
	if got := int64(oracle.PairwiseL1Brute(c.Points)); got != c.Total {
		t.Fatalf("dim %d k %d: total %d, points total %d", c.Dim, c.K, c.Total, got)
	}
	if c.Bound > c.Total || c.Optimal != (c.Bound == c.Total) {
		t.Fatalf("dim %d k %d: total %d, bound %d, optimal %v", c.Dim, c.K, c.Total, c.Bound, c.Optimal)
	}
}

func TestClustersPublished(t *testing.T) {
	all, err := Clusters(context.Background(), 2, len(a193452))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range all {
		checkCluster(t, c)
		if want := a193452[c.K-1]; !c.Optimal || c.Total != want {
			t.Errorf("Z^2 k %d: %d (optimal %v), A193452 says %d", c.K, c.Total, c.Optimal, want)
		}
		if c.K >= 2 && c.K <= 21 && c.Total != fig2[c.K-2] {
			t.Errorf("Z^2 k %d: %d, Fig. 2 says %d", c.K, c.Total, fig2[c.K-2])
		}
	}
	all, err = Clusters(context.Background(), 3, len(a290190)+1)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range all[1:] {
		checkCluster(t, c)
		if want := a290190[c.K-2]; !c.Optimal || c.Total != want {
			t.Errorf("Z^3 k %d: %d (optimal %v), A290190 says %d", c.K, c.Total, c.Optimal, want)
		}
	}
}

// The plane-count search against the former point-set search (Subset over lattice
// points), an independent method, where the latter finishes quickly.
func TestClusterMatchesPointSearch(t *testing.T) {
	for _, tc := range []struct{ dim, kmax int }{{2, 16}, {3, 10}} {
		f := []float64{0, 0}
		for k := 1; k <= tc.kmax; k++ {
			want, err := pointCluster(context.Background(), tc.dim, k, f)
			if err != nil || !want.Optimal {
				t.Fatalf("point search dim %d k %d: %v", tc.dim, k, err)
			}
			if k >= 2 {
				f = append(f, float64(want.Total))
			}
			got, err := Cluster(context.Background(), tc.dim, k)
			if err != nil {
				t.Fatal(err)
			}
			checkCluster(t, got)
			if got.Total != want.Total || !got.Optimal {
				t.Errorf("dim %d k %d: plane counts %d (optimal %v), point search %d", tc.dim, k, got.Total, got.Optimal, want.Total)
			}
		}
	}
}

// Small clusters against exhaustive search over a lattice box.
func TestClustersMatchBrute(t *testing.T) {
	for dim := 1; dim <= 3; dim++ {
		kmax := map[int]int{1: 8, 2: 6, 3: 5}[dim]
		all, err := Clusters(context.Background(), dim, kmax)
		if err != nil {
			t.Fatal(err)
		}
		box := latticeBox(dim, map[int]int{1: 4, 2: 2, 3: 1}[dim])
		for _, c := range all {
			checkCluster(t, c)
			if c.K < 2 {
				continue
			}
			want := bruteSubset(len(box), c.K, func(idx []int) int64 { return int64(geom.PairwiseL1Subset(box, idx)) })
			if c.Total != want || !c.Optimal {
				t.Errorf("dim %d k %d: %d (optimal %v), brute %d", dim, c.K, c.Total, c.Optimal, want)
			}
		}
	}
}

// lineCost against every order of small weight vectors, and lineOrder's order has
// that cost.
func TestLineCostMatchesPermutations(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for trial := 0; trial < 300; trial++ {
		m := 1 + r.IntN(7)
		w := make([]int, m)
		for i := range w {
			w[i] = 1 + r.IntN(6)
		}
		brute := infCost
		perm := make([]int, m)
		for i := range perm {
			perm[i] = i
		}
		var rec func(i int)
		rec = func(i int) {
			if i == m {
				brute = min(brute, orderCost(w, perm))
				return
			}
			for j := i; j < m; j++ {
				perm[i], perm[j] = perm[j], perm[i]
				rec(i + 1)
				perm[i], perm[j] = perm[j], perm[i]
			}
		}
		rec(0)
		c, pos := lineOrder(w)
		if c != brute || orderCost(w, pos) != c {
			t.Fatalf("w %v: lineCost %d (order cost %d), brute %d", w, c, orderCost(w, pos), brute)
		}
	}
}

func orderCost(w, pos []int) int64 {
	var c int64
	for i := range w {
		for j := i + 1; j < len(w); j++ {
			c += int64(w[i] * w[j] * max(pos[i]-pos[j], pos[j]-pos[i]))
		}
	}
	return c
}

// Compression to a down-set never raises Σ lineCost of the plane counts and yields a
// down-set: the reduction the searches rest on.
func TestDownSetNeverWorse(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for trial := 0; trial < 200; trial++ {
		dim := 2 + r.IntN(2)
		k := 1 + r.IntN(20)
		seen := map[string]bool{}
		var pts []geom.Point
		for len(pts) < k {
			p := make(geom.Point, dim)
			for j := range p {
				p[j] = r.IntN(6) - 2
			}
			if !seen[fmt.Sprint(p)] {
				seen[fmt.Sprint(p)] = true
				pts = append(pts, p)
			}
		}
		ds := downSet(pts)
		in := map[string]bool{}
		for _, p := range ds {
			in[fmt.Sprint(p)] = true
		}
		for _, p := range ds {
			for j := range p {
				if p[j] > 0 {
					q := slices.Clone(p)
					q[j]--
					if !in[fmt.Sprint(q)] {
						t.Fatalf("%v: not a down-set (%v without %v)", ds, p, q)
					}
				}
			}
		}
		before := int64(geom.PairwiseL1(arrangePlanes(pts)))
		after := int64(geom.PairwiseL1(arrangePlanes(ds)))
		if len(in) != k || after > before || before > int64(geom.PairwiseL1(pts)) {
			t.Fatalf("%v: %d distinct after, arranged cost %d -> %d (raw %d)", pts, len(in), before, after, geom.PairwiseL1(pts))
		}
	}
}

// A cancelled search still returns a valid cluster of the requested size with a
// proven bound.
func TestClusterTimeLimit(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct{ dim, k int }{{2, 150}, {2, 250}, {3, 50}, {3, 80}} {
		c, err := Cluster(ctx, tc.dim, tc.k)
		if err != nil {
			t.Fatal(err)
		}
		checkCluster(t, c)
		// 2D k = 150 and 3D k = 50 are in the table of proven optima (LatticeBound), so
		// the incumbent may be proven by it; 2D k = 250 and 3D k = 80 are not.
		tabulated := tc.dim == 2 && tc.k < len(z2Optima) || tc.dim == 3 && tc.k < len(z3Optima)
		if c.Optimal && !tabulated || c.Bound <= 0 {
			t.Errorf("dim %d k %d: optimal %v bound %d after cancel", tc.dim, tc.k, c.Optimal, c.Bound)
		}
	}
	ctx, cancel = context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	c, err := Cluster(ctx, 2, 200)
	if err != nil {
		t.Fatal(err)
	}
	checkCluster(t, c)
}

// The boundary dynamic program (ferrersDP) against the Ferrers branch and bound
// (ferrersOptimum), two independent methods, on every k the latter proves quickly;
// the DP also runs without an incumbent (U = infinity) so it must find the optimum by
// itself and trace a diagram of exactly that cost.
func TestFerrersDPMatchesBranchAndBound(t *testing.T) {
	kmax := 100
	if testing.Short() {
		kmax = 40
	}
	for k := 1; k <= kmax; k++ {
		inc := improveFerrers(context.Background(), columnsOf(downSet(roundPoints(2, k))))
		_, want, _, opt, _ := ferrersOptimum(context.Background(), k, inc)
		if !opt {
			t.Fatalf("k %d: branch and bound did not finish", k)
		}
		got, cost, ok := ferrersDPOptimum(context.Background(), k, inc, nil)
		if !ok || cost != want || lineCost(got)+lineCost(conjugate(got)) != cost || sum(got) != k ||
			!slices.IsSortedFunc(got, func(a, b int) int { return b - a }) {
			t.Errorf("k %d: DP %d (optimal %v, cols %v), branch and bound %d", k, cost, ok, got, want)
		}
		if k%7 == 0 { // no incumbent: the DP finds and traces the optimum itself
			d := newFerrersDP(context.Background(), k, int64(inf32), nil)
			v, _ := d.run()
			if int64(v) != want {
				t.Errorf("k %d: DP without incumbent %d, want %d", k, v, want)
			}
			d2 := newFerrersDP(context.Background(), k, int64(v)+1, nil)
			d2.keep = map[[2]int]*keptLayer{}
			d2.run()
			if cols := d2.backtrack(v); sum(cols) != k || lineCost(cols)+lineCost(conjugate(cols)) != want {
				t.Errorf("k %d: traced %v", k, cols)
			}
		}
	}
}

// A deadline stops the 3D search promptly even at k = 200, where the bottom layers are
// far between the partitions it walks (it once ran 54 s past a 1 s limit), and the
// result is a cluster of k points with a bound no larger than its total.
func TestCluster3DStopsPromptlyAtLargeK(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	r, err := Cluster(ctx, 3, 200)
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("stopped after %v, want about the 50 ms deadline", took)
	}
	if len(r.Points) != 200 || r.Optimal || r.Bound > r.Total {
		t.Fatalf("got %d points, optimal %v, bound %v, total %v", len(r.Points), r.Optimal, r.Bound, r.Total)
	}
}

// The 3D search (layers along the longest axis, coupled bounds: the splits on the cells
// to come in plane x = 0 and on the number of layers, partial layers, bottom-layer
// prefixes) against the former search (layers along the shortest axis, each axis
// completed on its own, every layer listed), on every k the latter proves quickly;
// every fifth k also from a poor incumbent (one column of k cells), so the search must
// find the optimum itself.
func TestPlaneSearchMatchesFormerSearch(t *testing.T) {
	kmax := 34
	if testing.Short() {
		kmax = 24
	}
	var prev []geom.Point
	for k := 1; k <= kmax; k++ {
		inc := planeIncumbent(k, prev)
		_, want, _, ok, _ := planeOptimumWith(context.Background(), k, inc, true)
		if !ok {
			t.Fatalf("k %d: plain search did not finish", k)
		}
		layers, got, _, ok, _ := planeOptimumWith(context.Background(), k, inc, false)
		if !ok || got != want || planeCost(layers) != got || layersSize(layers) != k {
			t.Errorf("k %d: coupled search %d (optimal %v, layers %v), plain %d", k, got, ok, layers, want)
		}
		if k%5 == 0 {
			layers, got, _, ok, _ = planeOptimum(context.Background(), k, [][]int{{k}})
			if !ok || got != want || planeCost(layers) != got || layersSize(layers) != k {
				t.Errorf("k %d from a column: %d (optimal %v, layers %v), want %d", k, got, ok, layers, want)
			}
		}
		c, err := Cluster(context.Background(), 3, k)
		if err != nil {
			t.Fatal(err)
		}
		prev = c.Points
	}
}

func layersSize(layers [][]int) int {
	n := 0
	for _, l := range layers {
		n += sum(l)
	}
	return n
}

// Sizes beyond MaxClusterK are refused, not run out of memory (4*k overflowed for
// k = MaxInt and panicked), and a search whose context has already ended still
// returns a valid cluster of the requested size with a proven bound: every long
// phase (the incumbent's local search, the 2D boxes' bounds) polls the context, so
// this test would hang, not pass, when one does not.
func TestClusterSizeLimitAndCancelled(t *testing.T) {
	for _, k := range []int{MaxClusterK + 1, math.MaxInt, 100000000} {
		if _, err := Cluster(context.Background(), 2, k); err == nil {
			t.Errorf("k %d: no error", k)
		}
		if _, err := Clusters(context.Background(), 3, k); err == nil {
			t.Errorf("Clusters kmax %d: no error", k)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct{ dim, k int }{{2, 30000}, {3, 30000}} {
		c, err := Cluster(ctx, tc.dim, tc.k)
		if err != nil {
			t.Fatal(err)
		}
		if len(c.Points) != tc.k || c.Total != int64(geom.PairwiseL1(c.Points)) || c.Bound > c.Total || c.Bound <= 0 {
			t.Errorf("dim %d k %d: %d points, total %d (pairwise %d), bound %d", tc.dim, tc.k, len(c.Points), c.Total, geom.PairwiseL1(c.Points), c.Bound)
		}
		seen := map[[3]int]bool{}
		for _, p := range c.Points {
			var q [3]int
			copy(q[:], p)
			if seen[q] {
				t.Fatalf("dim %d: point %v twice", tc.dim, p)
			}
			seen[q] = true
		}
	}
}

// The searches of a large cluster end early enough to leave the layout and scoring
// their time before the caller's deadline; without a deadline nothing changes.
func TestClusterSearchLeavesTimeToFinish(t *testing.T) {
	dl := time.Now().Add(time.Hour)
	ctx, cancel := context.WithDeadline(context.Background(), dl)
	defer cancel()
	sctx, scancel := searchContext(ctx, 200000)
	defer scancel()
	got, ok := sctx.Deadline()
	if want := dl.Add(-200000 * finishPerPoint); !ok || !got.Equal(want) {
		t.Errorf("search deadline %v (set %v), want %v", got, ok, want)
	}
	bctx, bcancel := searchContext(context.Background(), 200000)
	defer bcancel()
	if _, ok := bctx.Deadline(); ok {
		t.Errorf("a search without a deadline got one")
	}
}

func sum(v []int) int {
	t := 0
	for _, x := range v {
		t += x
	}
	return t
}
