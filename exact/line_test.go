package exact

import (
	"context"
	"math/rand/v2"
	"testing"
)

// bruteSubset returns the minimum of cost over all k-subsets of 0..n-1.
func bruteSubset(n, k int, cost func(idx []int) int64) int64 {
	best := int64(-1)
	idx := make([]int, 0, k)
	var rec func(start int)
	rec = func(start int) {
		if len(idx) == k {
			if v := cost(idx); best < 0 || v < best {
				best = v
			}
			return
		}
		for i := start; i <= n-(k-len(idx)); i++ {
			idx = append(idx, i)
			rec(i + 1)
			idx = idx[:len(idx)-1]
		}
	}
	rec(0)
	return best
}

func lineTotal(c []int64, idx []int) int64 {
	var s int64
	for i := range idx {
		for j := i + 1; j < len(idx); j++ {
			d := c[idx[i]] - c[idx[j]]
			if d < 0 {
				d = -d
			}
			s += d
		}
	}
	return s
}

func checkIndices(t *testing.T, idx []int, n, k int) {
	t.Helper()
	if len(idx) != k {
		t.Fatalf("%d indices, want %d", len(idx), k)
	}
	seen := map[int]bool{}
	for _, i := range idx {
		if i < 0 || i >= n || seen[i] {
			t.Fatalf("bad index %d in %v", i, idx)
		}
		seen[i] = true
	}
}

func TestLineMatchesBrute(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	trials := 4000
	if testing.Short() {
		trials = 800
	}
	for trial := 0; trial < trials; trial++ {
		n := 1 + r.IntN(11)
		k := 1 + r.IntN(n)
		span := 1 + r.IntN(30)
		if trial%2 == 0 {
			span = 1 + r.IntN(3) // many ties
		}
		c := make([]int64, n)
		for i := range c {
			c[i] = int64(r.IntN(span) - span/3)
		}
		sol, err := Line(c, k)
		if err != nil {
			t.Fatal(err)
		}
		checkIndices(t, sol.Indices, n, k)
		if got := lineTotal(c, sol.Indices); got != sol.Total {
			t.Fatalf("reported %d, indices cost %d", sol.Total, got)
		}
		want := bruteSubset(n, k, func(idx []int) int64 { return lineTotal(c, idx) })
		if sol.Total != want {
			t.Fatalf("coords %v k %d: got %d, brute %d", c, k, sol.Total, want)
		}
		// Float path agrees.
		cf := make([]float64, n)
		for i, v := range c {
			cf[i] = float64(v)
		}
		if fs, _ := Line(cf, k); fs.Total != float64(want) {
			t.Fatalf("float path %g, want %d", fs.Total, want)
		}
	}
}

func TestLineErrors(t *testing.T) {
	if _, err := Line([]int{1, 2}, 3); err == nil {
		t.Error("k > n accepted")
	}
	if _, err := Line([]int{}, 1); err == nil {
		t.Error("no points accepted")
	}
	if _, err := Line([]int{1}, 0); err == nil {
		t.Error("k = 0 accepted")
	}
}

func TestRadixOrderStableAndSorted(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 9))
	for trial := 0; trial < 200; trial++ {
		n := r.IntN(3000)
		v := make([]int64, n)
		shift := r.IntN(60)
		for i := range v {
			v[i] = r.Int64N(1<<uint(shift)+1) - (1 << uint(shift) / 2)
			if trial%3 == 0 {
				v[i] = int64(r.IntN(4)) - 2
			}
		}
		o := sortedOrder(v)
		for i := 1; i < n; i++ {
			a, b := o[i-1], o[i]
			if v[a] > v[b] || (v[a] == v[b] && a > b) {
				t.Fatalf("not stably sorted at %d", i)
			}
		}
	}
}

func TestRingMatchesBrute(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	trials := 6000
	if testing.Short() {
		trials = 1000
	}
	arcWorse := 0
	for trial := 0; trial < trials; trial++ {
		n := 1 + r.IntN(12)
		k := 1 + r.IntN(n)
		C := int64(1 + r.IntN(40))
		if trial%3 == 0 {
			C = int64(1 + r.IntN(5)) // many ties, duplicates, antipodal pairs
		}
		c := make([]int64, n)
		for i := range c {
			c[i] = r.Int64N(C)
		}
		cost := func(idx []int) int64 { return RingTotal(c, C, idx) }
		want := bruteSubset(n, k, cost)
		sol, opt, err := Ring(context.Background(), c, C, k)
		if err != nil {
			t.Fatal(err)
		}
		checkIndices(t, sol.Indices, n, k)
		if !opt || sol.Total != want || cost(sol.Indices) != want {
			t.Fatalf("C %d coords %v k %d: got %d (indices cost %d, optimal %v), brute %d",
				C, c, k, sol.Total, cost(sol.Indices), opt, want)
		}
		arc, err := RingArc(c, C, k)
		if err != nil {
			t.Fatal(err)
		}
		checkIndices(t, arc.Indices, n, k)
		if cost(arc.Indices) != arc.Total {
			t.Fatalf("C %d coords %v k %d: arc reports %d, its indices cost %d", C, c, k, arc.Total, cost(arc.Indices))
		}
		// The arc is the best window: compare with brute force over windows.
		if arc.Total < want {
			t.Fatalf("arc %d below optimum %d", arc.Total, want)
		}
		if arc.Total > want {
			arcWorse++
		}
	}
	t.Logf("arc strictly worse than optimum in %d of %d instances", arcWorse, trials)
}

// The documented counterexample: the optimum is not an arc.
func TestRingOptimumNotAnArc(t *testing.T) {
	c := []int{0, 12, 15, 18, 20, 32, 41, 42, 44, 50, 62, 64}
	sol, opt, err := Ring(context.Background(), c, 65, 10)
	if err != nil || !opt {
		t.Fatal(err, opt)
	}
	arc, _ := RingArc(c, 65, 10)
	if sol.Total != 755 || arc.Total <= 755 {
		t.Fatalf("ring %d (want 755), arc %d (want > 755)", sol.Total, arc.Total)
	}
	want := bruteSubset(len(c), 10, func(idx []int) int64 {
		return int64(RingTotal(c, 65, idx))
	})
	if want != 755 {
		t.Fatalf("brute %d", want)
	}
}

// Arc windows against brute force over all circular windows.
func TestRingArcIsBestWindow(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 55))
	for trial := 0; trial < 3000; trial++ {
		n := 1 + r.IntN(15)
		k := 1 + r.IntN(n)
		C := int64(1 + r.IntN(30))
		c := make([]int64, n)
		for i := range c {
			c[i] = r.Int64N(C)
		}
		arc, err := RingArc(c, C, k)
		if err != nil {
			t.Fatal(err)
		}
		o := sortedOrder(c)
		best := int64(-1)
		for s := 0; s < n; s++ {
			idx := make([]int, k)
			for i := range idx {
				idx[i] = o[(s+i)%n]
			}
			if v := RingTotal(c, C, idx); best < 0 || v < best {
				best = v
			}
		}
		if arc.Total != best {
			t.Fatalf("C %d coords %v k %d: arc %d, best window %d", C, c, k, arc.Total, best)
		}
	}
}

func TestRingErrors(t *testing.T) {
	ctx := context.Background()
	if _, _, err := Ring(ctx, []int{0, 5, 10}, 10, 2); err == nil {
		t.Error("coordinate == C accepted")
	}
	if _, _, err := Ring(ctx, []int{-1, 5}, 10, 2); err == nil {
		t.Error("negative coordinate accepted")
	}
	if _, _, err := Ring(ctx, []int{1, 5}, 0, 2); err == nil {
		t.Error("C = 0 accepted")
	}
	if _, _, err := Ring(ctx, []int{1, 5}, 10, 3); err == nil {
		t.Error("k > n accepted")
	}
	if _, err := RingArc([]float64{0.5, 9.9}, 10, 2); err != nil {
		t.Error(err)
	}
}

func TestRingFloatMatchesBrute(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	for trial := 0; trial < 1500; trial++ {
		n := 1 + r.IntN(10)
		k := 1 + r.IntN(n)
		C := float64(1+r.IntN(30)) / 2
		c := make([]float64, n)
		for i := range c {
			c[i] = float64(r.IntN(int(2*C))) / 2
		}
		want := bruteSubset(n, k, func(idx []int) int64 { return int64(2 * RingTotal(c, C, idx)) })
		sol, opt, err := Ring(context.Background(), c, C, k)
		if err != nil {
			t.Fatal(err)
		}
		if !opt || int64(2*sol.Total) != want || int64(2*RingTotal(c, C, sol.Indices)) != want {
			t.Fatalf("C %g coords %v k %d: got %g, brute %g", C, c, k, sol.Total, float64(want)/2)
		}
	}
}
