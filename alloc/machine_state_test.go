package alloc_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/topo"
)

// MachineState and Mask.HeldNodes give the machine's free set while a Mask keeps
// decisions in random partitions, with and without views (mbs, the curve
// allocators and the non-contiguous trees keep one per partition; mc1x1 reports
// no State): MachineState's free
// nodes with the held ones added (State.SetUnion) are exactly the nodes no live job
// holds, counted right, after every step of random histories; the State an
// allocator with views reports (its current view's) is not always that set.
func TestMachineStateWithMask(t *testing.T) {
	m, err := topo.ParseMachine("mesh:16x16")
	if err != nil {
		t.Fatal(err)
	}
	n := m.N()
	words := (n + 63) / 64
	// three partitions' outsides: the upper half, the lower half, the odd columns
	outs := make([][]uint64, 3)
	for i := range outs {
		outs[i] = make([]uint64, words)
	}
	for v := range n {
		if v >= n/2 {
			outs[0][v>>6] |= 1 << (v & 63)
		} else {
			outs[1][v>>6] |= 1 << (v & 63)
		}
		if v%2 == 1 {
			outs[2][v>>6] |= 1 << (v & 63)
		}
	}
	for _, spec := range []string{"mbs", "bf:hilbert", "ff:snake", "mc1x1", "ind-bt", "d-sbt:4"} {
		for _, views := range []bool{false, true} {
			what := fmt.Sprintf("%s, views %v", spec, views)
			a, err := alloc.Parse(spec, m, alloc.Options{})
			if err != nil {
				t.Fatal(err)
			}
			oc := a.(alloc.Occupier)
			mask := alloc.NewMask(n)
			if views {
				if err := mask.Views(oc, outs); err != nil {
					t.Fatalf("%s: %v", what, err)
				}
			}
			rng := rand.New(rand.NewPCG(uint64(len(spec)), 7))
			var live [][]int
			got := alloc.NewState(n)
			viewDiffers := false
			for step := range 400 {
				if len(live) > 0 && rng.IntN(3) == 0 {
					j := rng.IntN(len(live))
					if err := mask.Release(nil, oc, live[j]); err != nil {
						t.Fatalf("%s, step %d: %v", what, step, err)
					}
					live = append(live[:j], live[j+1:]...)
				} else {
					if err := mask.Set(oc, outs[rng.IntN(len(outs))]); err != nil {
						t.Fatalf("%s, step %d: %v", what, step, err)
					}
					nodes, err := a.Allocate(1 + rng.IntN(6))
					if errors.Is(err, alloc.ErrNotEnoughFree) || errors.Is(err, alloc.ErrFragmented) {
						continue
					}
					if err != nil {
						t.Fatalf("%s, step %d: %v", what, step, err)
					}
					live = append(live, nodes)
				}
				st := alloc.MachineState(a)
				if spec == "mc1x1" {
					if st != nil {
						t.Fatalf("%s: a state from an allocator that reports none", what)
					}
					continue
				}
				got.SetUnion(st, mask.HeldNodes())
				busy := make([]bool, n)
				for _, job := range live {
					for _, v := range job {
						busy[v] = true
					}
				}
				free := 0
				for v := range n {
					if got.IsFree(v) == busy[v] {
						t.Fatalf("%s, step %d: node %d free %v in the machine's state, a live job's %v", what, step, v, got.IsFree(v), busy[v])
					}
					if !busy[v] {
						free++
					}
				}
				if got.NumFree() != free {
					t.Fatalf("%s, step %d: %d free counted, %d free", what, step, got.NumFree(), free)
				}
				if s, ok := a.(interface{ State() *alloc.State }); ok && s.State() != st {
					viewDiffers = true
				}
			}
			if views && spec != "mc1x1" && !viewDiffers {
				t.Fatalf("%s: the current view's state was the machine's at every step: the test checks no view", what)
			}
		}
	}
}
