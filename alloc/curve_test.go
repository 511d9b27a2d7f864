package alloc

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/topo"
)

// refInterval is a maximal run of free ranks (cyclic in the ring variant).
type refInterval struct{ start, length int }

// refIntervals lists the free intervals by the definition, sorted by start.
func refIntervals(freeRank []bool, ring bool) []refInterval {
	n := len(freeRank)
	var iv []refInterval
	for r := 0; r < n; r++ {
		if freeRank[r] && (r == 0 || !freeRank[r-1]) {
			l := 0
			for r+l < n && freeRank[r+l] {
				l++
			}
			iv = append(iv, refInterval{r, l})
		}
	}
	if ring && len(iv) > 1 && freeRank[0] && freeRank[n-1] {
		// The run at the top wraps into the run at rank 0.
		last := &iv[len(iv)-1]
		last.length += iv[0].length
		iv = iv[1:]
	}
	return iv
}

// refCurveAllocate is the slow, literal definition of the curve rules: it returns
// the ranks the rule takes, in order.
func refCurveAllocate(freeRank []bool, rule CurveRule, ring bool, k int) []int {
	n := len(freeRank)
	var fr []int
	for r, f := range freeRank {
		if f {
			fr = append(fr, r)
		}
	}
	if rule == SortedFreeList {
		return fr[:k]
	}
	iv := refIntervals(freeRank, ring)
	chosen := -1
	switch rule {
	case FirstFit:
		for i, v := range iv {
			if v.length >= k {
				chosen = i
				break
			}
		}
	case BestFit:
		for i, v := range iv {
			if v.length >= k && (chosen < 0 || v.length < iv[chosen].length) {
				chosen = i
			}
		}
	case SumOfSquares:
		bestScore := 0
		for i, v := range iv {
			if v.length < k {
				continue
			}
			count := map[int]int{}
			for j, w := range iv {
				if j != i {
					count[w.length]++
				}
			}
			if v.length > k {
				count[v.length-k]++
			}
			score := 0
			for _, c := range count {
				score += c * c
			}
			if chosen < 0 || score < bestScore {
				chosen, bestScore = i, score
			}
		}
	}
	var ranks []int
	if chosen >= 0 {
		for t := 0; t < k; t++ {
			ranks = append(ranks, (iv[chosen].start+t)%n)
		}
		return ranks
	}
	// Minimum span over windows of k consecutive free ranks.
	f := len(fr)
	bestI, bestSpan := -1, 0
	last := f - k
	if ring {
		last = f - 1
	}
	for i := 0; i <= last; i++ {
		span := fr[(i+k-1)%f] - fr[i]
		if ring {
			span = (span + n) % n
		}
		if bestI < 0 || span < bestSpan {
			bestI, bestSpan = i, span
		}
	}
	for t := 0; t < k; t++ {
		ranks = append(ranks, fr[(bestI+t)%f])
	}
	return ranks
}

// checkIndex compares the allocator's interval index with the definition.
func checkIndex(t *testing.T, a *CurveAllocator) {
	t.Helper()
	freeRank := make([]bool, a.n)
	for r := range freeRank {
		freeRank[r] = a.st.IsFree(int(a.order[r]))
	}
	want := refIntervals(freeRank, a.ring)
	if a.ring && len(want) == 1 && want[0].length == a.n {
		want[0].start = 0
	}
	var got []refInterval
	for s := a.starts.next(0); s >= 0; s = a.starts.next(s + 1) {
		got = append(got, refInterval{s, int(a.length[s])})
	}
	if !slices.Equal(got, want) {
		t.Fatalf("%s: interval index %v, want %v", a.name, got, want)
	}
	if a.bySize != nil && a.bySize.len() != len(want) {
		t.Fatalf("%s: size index holds %d intervals, want %d", a.name, a.bySize.len(), len(want))
	}
}

var curveRules = []struct {
	name string
	rule CurveRule
}{{"freelist", SortedFreeList}, {"ff", FirstFit}, {"bf", BestFit}, {"sos", SumOfSquares}}

// TestCurveMatchesReference replays random allocate/release sequences on random
// orderings and checks every allocation against the literal definition, the
// interval index against the free set, and the free count.
func TestCurveMatchesReference(t *testing.T) {
	sizes := []int{1, 2, 3, 5, 8, 13, 30, 64, 100}
	steps := 1500
	if testing.Short() {
		steps = 100
	}
	for _, n := range sizes {
		for _, cr := range curveRules {
			for variant := range 4 {
				ring, mode := variant&1 == 1, 1+variant/2 // both span searches
				if ring && cr.rule == SortedFreeList || mode == 2 && cr.rule == SortedFreeList {
					continue
				}
				rng := rand.New(rand.NewPCG(uint64(n), uint64(cr.rule)*4+uint64(variant)))
				o := curves.Order(rng.Perm(n))
				m := topo.Mesh(n)
				a, err := NewCurveAllocator(fmt.Sprintf("%s-n%d-ring%v-mode%d", cr.name, n, ring, mode), m, o, cr.rule, ring)
				if err != nil {
					t.Fatal(err)
				}
				a.scanMode = mode
				replay(t, rng, a, steps, func(k int) []int {
					freeRank := make([]bool, n)
					for r := range freeRank {
						freeRank[r] = a.st.IsFree(o[r])
					}
					ranks := refCurveAllocate(freeRank, cr.rule, ring, k)
					nodes := make([]int, len(ranks))
					for i, r := range ranks {
						nodes[i] = o[r]
					}
					return nodes
				}, func() { checkIndex(t, a) })
			}
		}
	}
}

// replay runs a random sequence of allocations and releases on a, checking the
// Allocator contract; want (may be nil) gives the expected nodes of an allocation,
// check (may be nil) runs after every step.
func replay(t *testing.T, rng *rand.Rand, a Allocator, steps int, want func(k int) []int, check func()) {
	t.Helper()
	n := a.Machine().N()
	busy := make([]bool, n)
	var jobs [][]int
	nf := n
	for step := 0; step < steps; step++ {
		if len(jobs) > 0 && (rng.IntN(5) < 2 || nf == 0) {
			j := rng.IntN(len(jobs))
			if err := a.Release(jobs[j]); err != nil {
				t.Fatalf("%s step %d: release %v: %v", a.Name(), step, jobs[j], err)
			}
			for _, v := range jobs[j] {
				busy[v] = false
			}
			nf += len(jobs[j])
			jobs = slices.Delete(jobs, j, j+1)
		} else {
			k := 1 + rng.IntN(max(1, min(nf, 1+n/3)))
			if rng.IntN(8) == 0 {
				k = nf // exactly the free count
			}
			if k == 0 {
				continue
			}
			var expect []int
			if want != nil {
				expect = want(k)
			}
			got, err := a.Allocate(k)
			if err != nil {
				t.Fatalf("%s step %d: allocate %d of %d free: %v", a.Name(), step, k, nf, err)
			}
			if len(got) != k {
				t.Fatalf("%s step %d: allocate %d returned %d nodes", a.Name(), step, k, len(got))
			}
			for _, v := range got {
				if v < 0 || v >= n || busy[v] {
					t.Fatalf("%s step %d: allocate %d returned node %d, busy or out of range (%v)", a.Name(), step, k, v, got)
				}
				busy[v] = true
			}
			if expect != nil && !slices.Equal(got, expect) {
				t.Fatalf("%s step %d: allocate %d = %v, want %v", a.Name(), step, k, got, expect)
			}
			nf -= k
			jobs = append(jobs, got)
		}
		if a.NumFree() != nf {
			t.Fatalf("%s step %d: NumFree %d, want %d", a.Name(), step, a.NumFree(), nf)
		}
		if check != nil {
			check()
		}
	}
	// Errors leave the state alone.
	if _, err := a.Allocate(nf + 1); !errors.Is(err, ErrNotEnoughFree) {
		t.Fatalf("%s: allocate %d with %d free: %v, want ErrNotEnoughFree", a.Name(), nf+1, nf, err)
	}
	if _, err := a.Allocate(0); err == nil {
		t.Fatalf("%s: allocate 0 accepted", a.Name())
	}
	if len(jobs) > 0 {
		j := jobs[0]
		if err := a.Release(j); err != nil {
			t.Fatal(err)
		}
		if err := a.Release(j); err == nil {
			t.Fatalf("%s: double release accepted", a.Name())
		}
		nf += len(j)
	}
	if a.NumFree() != nf {
		t.Fatalf("%s: NumFree %d after errors, want %d", a.Name(), a.NumFree(), nf)
	}
}

// TestCurveBigRandom checks the index on a larger machine with long runs, where
// Best Fit and First Fit usually find an interval.
func TestCurveBigRandom(t *testing.T) {
	n := 5000
	rng := rand.New(rand.NewPCG(9, 9))
	o := curves.Order(rng.Perm(n))
	for _, cr := range curveRules {
		for _, ring := range []bool{false, true} {
			if ring && cr.rule == SortedFreeList {
				continue
			}
			a, err := NewCurveAllocator(cr.name, topo.Mesh(n), o, cr.rule, ring)
			if err != nil {
				t.Fatal(err)
			}
			steps := 0
			replay(t, rng, a, 300, func(k int) []int {
				steps++
				if steps%10 != 0 {
					return nil
				}
				freeRank := make([]bool, n)
				for r := range freeRank {
					freeRank[r] = a.st.IsFree(o[r])
				}
				ranks := refCurveAllocate(freeRank, cr.rule, ring, k)
				nodes := make([]int, len(ranks))
				for i, r := range ranks {
					nodes[i] = o[r]
				}
				return nodes
			}, nil)
			checkIndex(t, a)
		}
	}
}

// TestCurveExample checks a hand-worked case on an 8-node line, identity order.
func TestCurveExample(t *testing.T) {
	// Busy ranks 2 and 5: intervals [0,1] (2), [3,4] (2), [6,7] (2). A 3-node job has
	// no interval; windows of 3 free ranks: 0,1,3 (span 3), 1,3,4 (3), 3,4,6 (3),
	// 4,6,7 (3): earliest wins. Ring: 6,7,0 spans 2 around the ring and wins.
	for _, tc := range []struct {
		spec string
		want []int
	}{
		{"bf:rowmajor", []int{0, 1, 3}},
		{"ff:rowmajor", []int{0, 1, 3}},
		{"bf:rowmajor:ring", []int{6, 7, 0}},
		{"freelist:rowmajor", []int{0, 1, 3}},
	} {
		a, err := Parse(tc.spec, topo.Mesh(8), Options{})
		if err != nil {
			t.Fatal(err)
		}
		all, _ := a.Allocate(8)
		if err := a.Release(slices.DeleteFunc(all, func(v int) bool { return v == 2 || v == 5 })); err != nil {
			t.Fatal(err)
		}
		got, err := a.Allocate(3)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %v (%v), want %v", tc.spec, got, err, tc.want)
		}
	}
	// Sum of Squares vs Best Fit: intervals of lengths 3, 1, 5 (busy 3 and 5 on a
	// 10-line: [0..2], [4], [6..9] is 4 long). Ask 1: Best Fit takes the single node 4;
	// Sum of Squares scores: from the 3 -> (2,1,4): 3; from 1 -> (3,4): 2; from 4 ->
	// (3,1,3): 1+4 = 5. So it also takes node 4.
	a, _ := Parse("sos:rowmajor", topo.Mesh(10), Options{})
	all, _ := a.Allocate(10)
	_ = a.Release(slices.DeleteFunc(all, func(v int) bool { return v == 3 || v == 5 }))
	if got, _ := a.Allocate(1); !slices.Equal(got, []int{4}) {
		t.Errorf("sos: got %v, want [4]", got)
	}
	// Ask 2 next (intervals 3 and 4): from 3 -> (1,4): 2; from 4 -> (3,2): 2; tie ->
	// earliest start: ranks 0,1.
	if got, _ := a.Allocate(2); !slices.Equal(got, []int{0, 1}) {
		t.Errorf("sos: got %v, want [0 1]", got)
	}
}

func TestCurveParseErrors(t *testing.T) {
	m := topo.Mesh(3, 3)
	_, err := Parse("bf:no-such-curve", m, Options{})
	if err == nil || !strings.Contains(err.Error(), "rowmajor") {
		t.Errorf("unknown curve: %v, want the valid names listed", err)
	}
	if _, err := Parse("bf", m, Options{}); err == nil || !strings.Contains(err.Error(), "rowmajor") {
		t.Errorf("missing curve: %v", err)
	}
	if _, err := Parse("freelist:rowmajor:ring", m, Options{}); err == nil {
		t.Error("freelist with :ring accepted")
	}
	_, err = Parse("nosuch:rowmajor", m, Options{})
	if err == nil || !strings.Contains(err.Error(), "bf") {
		t.Errorf("unknown family: %v", err)
	}
	// A ranking file of a 4-node machine used on a 9-node one.
	path := filepath.Join(t.TempDir(), "four.pairs")
	if err := os.WriteFile(path, []byte("0 0\n1 1\n2 3\n3 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Parse("ff:"+path, m, Options{Ranking: curves.ReadMachineRanking}); err == nil {
		t.Error("ranking file of another machine size accepted")
	}
	a, err := Parse("ff:"+path+":ring", topo.Mesh(2, 2), Options{Ranking: curves.ReadMachineRanking})
	if err != nil {
		t.Fatalf("ranking file on its machine: %v", err)
	}
	if got, _ := a.Allocate(3); !slices.Equal(got, []int{0, 1, 3}) {
		t.Errorf("ranking file order: got %v, want [0 1 3]", got)
	}
	if a.Name() != "ff:"+path+":ring" {
		t.Errorf("name %q", a.Name())
	}
}
