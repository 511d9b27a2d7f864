package netsim

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// FuzzParseSynthetic fuzzes netsim's --traffic: an accepted pattern's String reads
// back to the same pattern and is its own canonical form, hotspot nodes are
// non-negative and their weights positive and as many, and a refusal quotes the
// input (BookSim2's names, Dally and Towles 2004 §3.2).
func FuzzParseSynthetic(f *testing.F) {
	for _, s := range []string{"uniform", "transpose", "randperm", "randperm:7", "hotspot:0", "hotspot:0,63:3,1", "hotspot:", "hotspot:1,2:3", "tornado:1", "randperm:-1", "hotspot: 4 , 5", "hotspot:0:0", "neighbor", "Uniform"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParseSynthetic(s)
		if err != nil {
			if q := quote(s); !strings.Contains(err.Error(), q) {
				t.Fatalf("%q: error %q does not quote the input", s, err)
			}
			return
		}
		if int(p.Kind) >= len(syntheticKinds) {
			t.Fatalf("%q: kind %d", s, p.Kind)
		}
		for i, v := range p.Hotspots {
			if v < 0 || v >= 1<<31 {
				t.Fatalf("%q: hotspot node %d", s, v)
			}
			if p.Weights != nil && p.Weights[i] < 1 {
				t.Fatalf("%q: hotspot weight %d", s, p.Weights[i])
			}
		}
		if p.Weights != nil && len(p.Weights) != len(p.Hotspots) {
			t.Fatalf("%q: %d nodes, %d weights", s, len(p.Hotspots), len(p.Weights))
		}
		if (p.Kind == Hotspot) != (len(p.Hotspots) > 0) {
			t.Fatalf("%q: kind %v with %d hotspots", s, p.Kind, len(p.Hotspots))
		}
		back, err := ParseSynthetic(p.String())
		if err != nil || back.Kind != p.Kind || !slices.Equal(back.Hotspots, p.Hotspots) || !slices.Equal(back.Weights, p.Weights) ||
			back.PermSeed != p.PermSeed || back.HasPermSeed != p.HasPermSeed {
			t.Fatalf("%q: %q reads back as %+v, %v; want %+v", s, p.String(), back, err, p)
		}
		if back.String() != p.String() {
			t.Fatalf("%q: canonical form not idempotent: %q then %q", s, p.String(), back.String())
		}
	})
}

// FuzzParsePattern fuzzes --comm: an accepted name gives a pattern whose Name reads
// back to a pattern of that Name, whose phases for a few sizes emit pairs of
// distinct processors in range; a refusal quotes the input.
func FuzzParsePattern(f *testing.F) {
	for _, s := range patterns {
		f.Add(s)
	}
	for _, s := range []string{"alltoall", "nbody", "halo", "none", "", "All-to-all"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParsePattern(s)
		if err != nil {
			if !strings.Contains(err.Error(), quote(s)) {
				t.Fatalf("%q: error %q does not quote the input", s, err)
			}
			return
		}
		back, err := ParsePattern(p.Name())
		if err != nil || back.Name() != p.Name() || !slices.Contains(patterns, p.Name()) {
			t.Fatalf("%q: name %q reads back as %v, %v", s, p.Name(), back, err)
		}
		for _, n := range []int{2, 3, 7, 16} {
			for k := range p.Phases(n) {
				p.Phase(n, k, NewRand(1, 0), func(src, dst int) bool {
					if src == dst || src < 0 || dst < 0 || src >= n || dst >= n {
						t.Fatalf("%q: p=%d phase %d emits %d->%d", s, n, k, src, dst)
					}
					return true
				})
			}
		}
	})
}

// quote is the input as the errors' %q writes it.
func quote(s string) string { return fmt.Sprintf("%q", s) }
