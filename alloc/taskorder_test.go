package alloc

import (
	"slices"
	"testing"

	"github.com/procalloc/procalloc/topo"
)

func TestCollectionOrderIsAPermutationInShells(t *testing.T) {
	g, err := topo.ParseSpec("mesh:9x9")
	if err != nil {
		t.Fatal(err)
	}
	for _, spec := range []string{"mc1x1", "genalg", "mm", "mc", "bf:hilbert-trunc", "freelist:snake"} {
		a, err := Parse(spec, g, Options{})
		if err != nil {
			t.Fatal(err)
		}
		// Some jobs first, so that the free set is ragged.
		for _, k := range []int{7, 3, 12} {
			if _, err := a.Allocate(k); err != nil {
				t.Fatal(err)
			}
		}
		for _, k := range []int{1, 2, 9, 21} {
			nodes, err := a.Allocate(k)
			if err != nil {
				t.Fatal(err)
			}
			before := slices.Clone(nodes)
			got, err := CollectionOrder(a, nodes)
			if err != nil {
				t.Fatalf("%s: %v", spec, err)
			}
			if !slices.Equal(nodes, before) {
				t.Errorf("%s: CollectionOrder changed its argument", spec)
			}
			if !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(nodes))) {
				t.Fatalf("%s, k=%d: %v is not a reordering of %v", spec, k, got, nodes)
			}
			switch spec {
			case "mc", "bf:hilbert-trunc", "freelist:snake":
				// Returned in collection order already.
				if !slices.Equal(got, nodes) {
					t.Errorf("%s: reordered %v to %v", spec, nodes, got)
				}
			default:
				// Distances from the recovered center never decrease along the order
				// (L-infinity shells for MC1x1, L1 for MM and Gen-Alg), and the
				// center comes first.
				c := CenterOf(g, nodes, spec == "mc1x1")
				if got[0] != c {
					t.Errorf("%s: order starts at %d, center %d", spec, got[0], c)
				}
				cc := g.Coord(c, nil)
				prev := -1
				for _, v := range got {
					d := 0
					for j, x := range g.Coord(v, nil) {
						if spec == "mc1x1" {
							d = max(d, abs(x-cc[j]))
						} else {
							d += abs(x - cc[j])
						}
					}
					if d < prev {
						t.Errorf("%s: %v: distance %d after %d", spec, got, d, prev)
					}
					prev = d
				}
			}
		}
	}
}

func TestCenterOfABlockIsItsMiddle(t *testing.T) {
	// A 3x3 block of a 9x9 mesh around (4, 5), and a plus shape around (2, 2):
	// both centers are the middles, in L-infinity and in L1.
	g, err := topo.ParseSpec("mesh:9x9")
	if err != nil {
		t.Fatal(err)
	}
	var block []int
	for x := 3; x <= 5; x++ {
		for y := 4; y <= 6; y++ {
			block = append(block, g.Index([]int{x, y}))
		}
	}
	plus := []int{g.Index([]int{2, 1}), g.Index([]int{1, 2}), g.Index([]int{2, 2}), g.Index([]int{3, 2}), g.Index([]int{2, 3})}
	for _, linf := range []bool{true, false} {
		if c := CenterOf(g, block, linf); c != g.Index([]int{4, 5}) {
			t.Errorf("block, linf %v: center %v", linf, g.Coord(c, nil))
		}
		if c := CenterOf(g, plus, linf); c != g.Index([]int{2, 2}) {
			t.Errorf("plus, linf %v: center %v", linf, g.Coord(c, nil))
		}
	}
	// On a ring of 8 the set {7, 0, 1} wraps: its center is 0.
	ring, err := topo.ParseSpec("torus:8x1")
	if err != nil {
		t.Fatal(err)
	}
	if c := CenterOf(ring, []int{1, 7, 0}, true); c != 0 {
		t.Errorf("wrapped set {7, 0, 1}: center %d, want 0", c)
	}
}
