package alloc

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestGreedyCentersOrder checks allocateGreedy's queue of centers (greedyCenters:
// a band of bounds heaped, the rest waiting) against the plain definition, the
// least (bound, free-list position) of the centers left, through random takes
// and put-backs with bounds raised (as greedyRefine raises them), over bounds
// spread narrower and far wider than a band; and that what is left at the end
// (rest) is the centers not taken. It requires centers left waiting past the
// first band, and bands moved.
func TestGreedyCentersOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(34, 5))
	var q greedyCenters
	waited, moved, taken := 0, 0, 0
	for trial := range 1000 {
		n := 1 + rng.IntN(300)
		spread := []int{1, 8, 100, 150, 300, 5000, 1 << 40}[trial%7]
		mMax := []int{1, 16, 200}[trial%3] // the first band: the least's m + 64 wide
		q.reset(n)
		want := make([]greedyCand, n) // the reference: every center left
		for i := range n {
			cd := greedyCand{lower: rng.IntN(spread), i: int32(i), L: int32(rng.IntN(8) - 2), m: int32(rng.IntN(mMax))}
			q.set(cd)
			want[i] = cd
		}
		q.start()
		if len(q.over) > 0 {
			waited++
		}
		for len(want) > 0 {
			// the reference's least
			j := 0
			for h, cd := range want {
				if cd.lower < want[j].lower || cd.lower == want[j].lower && cd.i < want[j].i {
					j = h
				}
			}
			base := q.base
			if q.empty() {
				t.Fatalf("trial %d: the queue is empty, %d centers left", trial, len(want))
			}
			if first := q.first(); first != want[j] {
				t.Fatalf("trial %d: first %+v, want %+v", trial, first, want[j])
			}
			if q.base != base {
				moved++
			}
			got, ok := q.next()
			if !ok || got != want[j] {
				t.Fatalf("trial %d: next %+v (%v), want %+v", trial, got, ok, want[j])
			}
			taken++
			want = slices.Delete(want, j, j+1)
			if rng.IntN(3) == 0 {
				// put back with a bound not below the one it came out with
				// (or at the band's edges, where a center goes to the heap or waits)
				got.lower += []int{0, 1, rng.IntN(50), rng.IntN(spread + 1)}[rng.IntN(4)]
				if edge := q.top + rng.IntN(2); rng.IntN(3) == 0 && edge >= got.lower {
					got.lower = edge
				}
				got.L, got.m = int32(rng.IntN(8)-2), int32(rng.IntN(mMax))
				q.push(got)
				want = append(want, got)
			}
			if rng.IntN(20) == 0 {
				break // the rest left, as allocateGreedy leaves it
			}
		}
		rest := q.rest(nil)
		slices.Sort(rest)
		var wantRest []int32
		for _, cd := range want {
			wantRest = append(wantRest, cd.i)
		}
		slices.Sort(wantRest)
		if !slices.Equal(rest, wantRest) {
			t.Fatalf("trial %d: left %v, want %v", trial, rest, wantRest)
		}
	}
	t.Logf("%d centers taken; %d trials left centers past the first band, %d bands moved", taken, waited, moved)
	if waited == 0 || moved == 0 {
		t.Fatalf("no center waited past the first band (%d) or no band moved (%d)", waited, moved)
	}
}
