package alloc

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/topo"
)

// A Fragmenting allocator's Clone is independent: whatever is done on a copy, the
// original decides as a twin that was never copied, and a fresh copy decides as the
// original.
func TestFragmentingClone(t *testing.T) {
	mk := map[string]func() Fragmenting{
		"bt":          func() Fragmenting { a, _ := Parse("bt", topo.Mesh(8, 8), Options{}); return a.(Fragmenting) },
		"sbt:4":       func() Fragmenting { a, _ := Parse("sbt:4", topo.Mesh(8, 8), Options{}); return a.(Fragmenting) },
		"slurm:block": func() Fragmenting { return newSlurmBlockT(t, 16, nil, slurmTestBlocks+"BlockSizes=4,8\n") },
		// Two trees (no core switch): a job neither spine reaches waits.
		"slurm:tree": func() Fragmenting {
			return newSlurmT(t, 16, nil, strings.Replace(slurmTestTree, "SwitchName=core Switches=spine[1-2]\n", "", 1))
		},
	}
	for name, newA := range mk {
		rng := rand.New(rand.NewPCG(3, 4))
		a, twin := newA(), newA()
		if !a.MayFragment() {
			t.Fatalf("%s: MayFragment false", name)
		}
		var held [][]int
		refused := 0
		for step := range 400 {
			if len(held) > 0 && rng.IntN(3) == 0 {
				i := rng.IntN(len(held))
				if err := a.Release(held[i]); err != nil {
					t.Fatal(err)
				}
				if err := twin.Release(held[i]); err != nil {
					t.Fatal(err)
				}
				held = slices.Delete(held, i, i+1)
				continue
			}
			// Work on a copy first: allocate and release on it at random.
			c := a.Clone()
			for range 3 {
				if got, err := c.Allocate(1 + rng.IntN(6)); err == nil && rng.IntN(2) == 0 {
					c.Release(got)
				}
			}
			if c2 := a.Clone(); c2.NumFree() != a.NumFree() {
				t.Fatalf("%s, step %d: a copy has %d free, the original %d", name, step, c2.NumFree(), a.NumFree())
			}
			k := 1 + rng.IntN(6)
			got, err := a.Allocate(k)
			want, werr := twin.Allocate(k)
			if (err == nil) != (werr == nil) || !slices.Equal(got, want) {
				t.Fatalf("%s, step %d: after work on a copy %v %v, its twin %v %v", name, step, got, err, want, werr)
			}
			if err != nil {
				if !errors.Is(err, ErrFragmented) && !errors.Is(err, ErrNotEnoughFree) {
					t.Fatal(err)
				}
				if errors.Is(err, ErrFragmented) {
					refused++
				}
				continue
			}
			held = append(held, got)
		}
		if refused == 0 {
			t.Errorf("%s: never refused a request that fit by count", name)
		}
	}
}
