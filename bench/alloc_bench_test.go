package bench

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/topo"
)

// curveFamilies are the allocator families that take a curve argument.
var curveFamilies = []string{"freelist", "ff", "bf", "sos"}

// benchCurve picks the curve the benchmarks allocate along: the Hilbert curve when
// it applies (2D or 3D power-of-two), else the generalized Hilbert curve (2D), else
// the cut 3D Hilbert curve, else the snake.
func benchCurve(m topo.Machine) string {
	ok := curves.Applicable(m)
	for _, c := range []string{"hilbert", "hilbert3d", "gilbert", "hilbert3d-trunc", "snake"} {
		if slices.Contains(ok, c) {
			return c
		}
	}
	return "rowmajor"
}

// allocSpecs returns the allocator specs to time on m: the curve families (Best Fit
// also in its ring variant), MBS, and, unless curveOnly, every other registered
// family by its bare name plus MC1x1 with tie-breaking (the center-based allocators
// register themselves; a family that is not registered in this build is simply
// absent).
func allocSpecs(m topo.Machine, curveOnly bool) []string {
	c := benchCurve(m)
	var specs []string
	registered := alloc.Names()
	for _, f := range curveFamilies {
		if slices.Contains(registered, f) {
			specs = append(specs, f+":"+c)
		}
	}
	if slices.Contains(registered, "bf") {
		specs = append(specs, "bf:"+c+":ring")
	}
	if slices.Contains(registered, "mbs") {
		specs = append(specs, "mbs")
	}
	if !curveOnly {
		for _, f := range registered {
			// opt solves every decision exactly (a search per job): not a speed peer.
			if !slices.Contains(curveFamilies, f) && f != "mbs" && f != "opt" {
				specs = append(specs, f)
			}
		}
		// MC1x1 with Johnson et al.'s tie-breaking, when this build accepts the spec.
		for _, spec := range []string{"mc1x1:tb=3,9,3,2"} {
			if _, err := alloc.Parse(spec, m, alloc.Options{}); err == nil {
				specs = append(specs, spec)
			}
		}
	}
	return specs
}

// randomHalfBusy makes a random half of the nodes busy (seeded, so every allocator
// starts from the same free set): the worst case for fragmentation.
func randomHalfBusy(a alloc.Allocator) error {
	m := a.Machine()
	all, err := a.Allocate(m.N())
	if err != nil {
		return err
	}
	slices.Sort(all)
	rng := rand.New(rand.NewPCG(1, 2))
	rng.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
	return a.Release(all[:m.N()/2])
}

// jobsHalfBusy reaches 50% occupancy the way a machine does: the allocator itself
// places jobs of log-uniform sizes 1..4096 until 75% of the nodes are busy, then a
// random selection of them ends until at most half are busy (seeded).
func jobsHalfBusy(a alloc.Allocator) error {
	n := a.Machine().N()
	rng := rand.New(rand.NewPCG(3, 4))
	var jobs [][]int
	for a.NumFree() > n/4 {
		k := min(1<<rng.IntN(13)+rng.IntN(1<<rng.IntN(13)), a.NumFree()-n/4)
		nodes, err := a.Allocate(max(k, 1))
		if err != nil {
			return err
		}
		jobs = append(jobs, nodes)
	}
	rng.Shuffle(len(jobs), func(i, j int) { jobs[i], jobs[j] = jobs[j], jobs[i] })
	for a.NumFree() < n/2 {
		if err := a.Release(jobs[len(jobs)-1]); err != nil {
			return err
		}
		jobs = jobs[:len(jobs)-1]
	}
	return nil
}

func benchAllocRelease(b *testing.B, spec string, m topo.Machine, k int, fill func(alloc.Allocator) error) {
	// NoMemo: every iteration meets the same state, which an allocator that
	// remembers its decisions would answer from memory; this times the search.
	a, err := alloc.Parse(spec, m, alloc.Options{NoMemo: true})
	if err != nil {
		b.Fatal(err)
	}
	if err := fill(a); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		nodes, err := a.Allocate(k)
		if err != nil {
			b.Fatal(err)
		}
		if err := a.Release(nodes); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAllocRelease times one Allocate(k) plus the Release of its nodes at 50%
// occupancy, the state being the same before every iteration. "random": a random half
// of the nodes is busy (the worst fragmentation: on the big machine every curve
// allocation with k >= 32 falls back to the minimum-span search over ~n/4 free
// intervals); "jobs": the allocator's own placement of a stream of jobs, half of
// them ended (see jobsHalfBusy).
func BenchmarkAllocRelease(b *testing.B) {
	machines := []struct {
		spec      string
		curveOnly bool // only the curve allocators and MBS (the others are O(n^2) and up)
		fills     []string
	}{
		{"mesh:32x32", false, []string{"random"}},
		{"mesh:24x24x24", false, []string{"random"}},
		{"mesh:1000x1000", true, []string{"random", "jobs"}},
	}
	fills := map[string]func(alloc.Allocator) error{"random": randomHalfBusy, "jobs": jobsHalfBusy}
	for _, mc := range machines {
		m, err := topo.ParseSpec(mc.spec)
		if err != nil {
			b.Fatal(err)
		}
		for _, fill := range mc.fills {
			for _, spec := range allocSpecs(m, mc.curveOnly) {
				for _, k := range []int{4, 32, 256} {
					b.Run(fmt.Sprintf("%s/%s/%s/k=%d", mc.spec, fill, spec, k), func(b *testing.B) {
						benchAllocRelease(b, spec, m, k, fills[fill])
					})
				}
			}
		}
	}
}
