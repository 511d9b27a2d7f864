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

// benchCurve picks the curve the benchmarks allocate along: Hilbert when it applies,
// else the generalized Hilbert curve, else the snake.
func benchCurve(m topo.Machine) string {
	ok := curves.Applicable(m)
	for _, c := range []string{"hilbert", "gilbert", "snake"} {
		if slices.Contains(ok, c) {
			return c
		}
	}
	return "rowmajor"
}

// allocSpecs returns the allocator specs to time on m: the curve families (Best Fit
// also in its ring variant), MBS, and, unless curveOnly, every other registered
// family by its bare name (the center-based allocators register themselves; a family
// that is not registered in this build is simply absent).
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
			if !slices.Contains(curveFamilies, f) && f != "mbs" {
				specs = append(specs, f)
			}
		}
	}
	return specs
}

// loaded returns the allocator spec on m with a random half of the nodes busy
// (seeded, so every allocator starts from the same free set).
func loaded(b *testing.B, spec string, m topo.Machine) alloc.Allocator {
	b.Helper()
	a, err := alloc.Parse(spec, m, alloc.Options{})
	if err != nil {
		b.Fatal(err)
	}
	all, err := a.Allocate(m.N())
	if err != nil {
		b.Fatal(err)
	}
	slices.Sort(all)
	rng := rand.New(rand.NewPCG(1, 2))
	rng.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
	if err := a.Release(all[:m.N()/2]); err != nil {
		b.Fatal(err)
	}
	return a
}

func benchAllocRelease(b *testing.B, spec string, m topo.Machine, k int) {
	a := loaded(b, spec, m)
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

// BenchmarkAllocRelease times one Allocate(k) plus the Release of its nodes, at 50%
// random occupancy (the state is the same before every iteration).
func BenchmarkAllocRelease(b *testing.B) {
	machines := []struct {
		spec      string
		curveOnly bool
	}{
		{"mesh:32x32", false},
		{"mesh:24x24x24", false},
		{"mesh:1000x1000", true},
	}
	for _, mc := range machines {
		m, err := topo.ParseSpec(mc.spec)
		if err != nil {
			b.Fatal(err)
		}
		for _, spec := range allocSpecs(m, mc.curveOnly) {
			for _, k := range []int{4, 32, 256} {
				b.Run(fmt.Sprintf("%s/%s/k=%d", mc.spec, spec, k), func(b *testing.B) {
					benchAllocRelease(b, spec, m, k)
				})
			}
		}
	}
}
