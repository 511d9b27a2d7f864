package alloc

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/procalloc/procalloc/topo"
)

// AllocateWithout gives the decision the allocator makes on a state with the
// nodes away busy (here slurm:consec with node weights, which without them takes
// the lowest free nodes), leaves the state as it was but for the nodes chosen,
// reports too few free nodes outside away as ErrNotEnoughFree, and refuses an
// allocator without Occupy.
func TestAllocateWithout(t *testing.T) {
	m, err := topo.ParseSpec("mesh:8x8")
	if err != nil {
		t.Fatal(err)
	}
	w := make([]uint32, 64)
	for v := range w {
		w[v] = uint32(64 - v)
	}
	a, err := NewSlurm(m, SlurmConfig{Weights: w})
	if err != nil {
		t.Fatal(err)
	}
	ref, _ := NewSlurm(m, SlurmConfig{Weights: w})
	var away []int
	for v := range 48 {
		away = append(away, v)
	}
	got, held, err := AllocateWithout(context.Background(), a, 4, away, nil)
	if err != nil || len(held) != 48 {
		t.Fatal(err, len(held))
	}
	if err := ref.Occupy(away); err != nil {
		t.Fatal(err)
	}
	want, err := ref.Allocate(4)
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("kept off nodes 0-47: %v, the allocator with them busy %v (%v)", got, want, err)
	}
	if a.NumFree() != 60 || !a.IsFree(0) || a.IsFree(got[0]) {
		t.Errorf("after the decision %d free, node 0 free %v", a.NumFree(), a.IsFree(0))
	}
	if _, _, err := AllocateWithout(context.Background(), a, 13, away, held); !errors.Is(err, ErrNotEnoughFree) || a.NumFree() != 60 {
		t.Errorf("13 of the 12 free outside away: %v, %d free", err, a.NumFree())
	}
	bt, _ := Parse("bt", m, Options{})
	if _, _, err := AllocateWithout(context.Background(), bt, 2, away, nil); !errors.Is(err, ErrNoRestriction) {
		t.Errorf("bt: %v", err)
	}
	if nodes, _, err := AllocateWithout(context.Background(), bt, 2, nil, nil); err != nil || len(nodes) != 2 {
		t.Errorf("bt with nothing away: %v %v", nodes, err)
	}
}

// BenchmarkAllocateWithout: a decision of slurm:consec on 131,072 nodes kept off
// half of them (a job of a partition of the other half), against the same
// decision without (the O(nodes away) that partitions add per decision).
func BenchmarkAllocateWithout(b *testing.B) {
	m, err := topo.ParseSpec("mesh:256x512")
	if err != nil {
		b.Fatal(err)
	}
	for _, name := range []string{"alternate half away", "lower half away", "none away"} {
		b.Run(name, func(b *testing.B) {
			a, err := NewSlurm(m, SlurmConfig{})
			if err != nil {
				b.Fatal(err)
			}
			var away []int
			switch name {
			case "alternate half away": // every other node: runs of one node
				for v := 0; v < m.N(); v += 2 {
					away = append(away, v)
				}
			case "lower half away":
				for v := range m.N() / 2 {
					away = append(away, v)
				}
			}
			var held []int
			for b.Loop() {
				var nodes []int
				nodes, held, err = AllocateWithout(context.Background(), a, 64, away, held)
				if err != nil {
					b.Fatal(err)
				}
				if err := a.Release(nodes); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
