package alloc_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/internal/masktest"
	"github.com/procalloc/procalloc/slurm"
	"github.com/procalloc/procalloc/topo"
)

// A Mask places every job of random multi-partition histories exactly where
// AllocateWithout does (internal/masktest.Lockstep), for each Slurm emulation: slurm:consec,
// slurm:tree (one parent per switch, shared descendants, leaves under two roots)
// with Slurm 22.05's and 26.05's rules (OneNodeByWeight, Tree2411), slurm:block,
// with every kind of weights.
func TestMaskMatchesAllocateWithout(t *testing.T) {
	maskHistories(t, 2026, masktest.Lockstep)
}

// The same with the emulations' views (alloc.Viewer, slurm_view.go): a mask that
// switches views in place of holding and freeing the nodes two partitions differ
// by places every job where AllocateWithout does, also with random nodes kept
// away besides a partition's outside (held on top of a view), and the views'
// free states, and clones taken in a view, are the reference's
// (internal/masktest.LockstepViews).
func TestMaskViewsMatchAllocateWithout(t *testing.T) {
	maskHistories(t, 2027, masktest.LockstepViews)
}

// maskHistories plays random histories through lockstep on two copies of
// random Slurm emulations: slurm:consec, slurm:tree (one parent per switch,
// shared descendants, leaves under two roots) with Slurm 22.05's and 26.05's
// rules (OneNodeByWeight, Tree2411), slurm:block, with every kind of weights.
func maskHistories(t *testing.T, seed uint64, lockstep func(testing.TB, *rand.Rand, alloc.Occupier, alloc.Occupier, int, string) int) {
	rng := rand.New(rand.NewPCG(seed, 12))
	histories := 2400
	if testing.Short() {
		histories = 600
	}
	decisions := 0
	for h := range histories {
		n := 8 + rng.IntN(90)
		m, err := topo.ParseSpec(fmt.Sprintf("mesh:%d", n))
		if err != nil {
			t.Fatal(err)
		}
		cfg := alloc.SlurmConfig{Names: alloc.SlurmNames(n), Weights: alloc.RandomSlurmWeights(rng, n, rng.IntN(4))}
		newer := h%2 == 1
		cfg.OneNodeByWeight, cfg.Tree2411 = newer, newer
		mode := "consec"
		switch h % 5 {
		case 1, 2:
			mode = "tree"
			var conf string
			switch rng.IntN(3) {
			case 0:
				conf = alloc.TwoSpineTree(rng, n)
			default:
				conf = alloc.RandomSharedTree(rng, n, rng.IntN(2) == 0)
			}
			if cfg.Tree, err = slurm.ParseTree(strings.NewReader(conf)); err != nil {
				t.Fatal(err)
			}
		case 3, 4:
			mode = "block"
			cfg.OneNodeByWeight, cfg.Tree2411 = false, false
			conf := alloc.RandomSlurmBlocks(rng, n, rng.IntN(2) == 0, rng.IntN(3) == 0, func(i int) string { return fmt.Sprintf("n%d", i+1) })
			if cfg.Blocks, err = slurm.ParseBlocks(strings.NewReader(conf)); err != nil {
				t.Fatal(err)
			}
		}
		ref, err := alloc.NewSlurm(m, cfg)
		if err != nil {
			t.Fatal(err)
		}
		got, err := alloc.NewSlurm(m, cfg)
		if err != nil {
			t.Fatal(err)
		}
		decisions += lockstep(t, rng, ref, got, 150, fmt.Sprintf("history %d, slurm:%s on %d nodes, 26.05 rules %v", h, mode, n, newer))
	}
	t.Logf("%d histories, %d decisions placed alike", histories, decisions)
}

// Mask.Release refuses a node that is not busy, and a node listed twice, changing
// nothing; Set refuses a bitmap of the wrong size.
func TestMaskErrors(t *testing.T) {
	m, _ := topo.ParseSpec("mesh:70")
	a, err := alloc.NewSlurm(m, alloc.SlurmConfig{})
	if err != nil {
		t.Fatal(err)
	}
	mask := alloc.NewMask(70)
	if err := mask.Set(a, make([]uint64, 1)); err == nil {
		t.Error("a set of 1 word for 70 nodes accepted")
	}
	away := make([]uint64, 2)
	away[1] = 1 << 2 // node 66
	nodes, err := a.Allocate(70)
	if err != nil {
		t.Fatal(err)
	}
	if err := mask.Set(a, away); err != nil || mask.Held() != 0 {
		t.Fatal(err, mask.Held())
	}
	if err := mask.Release(nil, a, []int{3, 66, 66}); err == nil || mask.Held() != 0 || a.NumFree() != 0 {
		t.Errorf("node 66 twice: %v, %d held, %d free", err, mask.Held(), a.NumFree())
	}
	if err := mask.Release(nil, a, nodes); err != nil || mask.Held() != 1 || a.NumFree() != 69 || a.IsFree(66) {
		t.Errorf("every node: %v, %d held, %d free", err, mask.Held(), a.NumFree())
	}
	if err := mask.Release(nil, a, []int{66}); err == nil || mask.Held() != 1 {
		t.Errorf("node 66 held, released again: %v, %d held", err, mask.Held())
	}
	if err := mask.Release(nil, a, []int{5}); err == nil || a.NumFree() != 69 {
		t.Errorf("node 5 free, released: %v", err)
	}
	if err := mask.Set(a, nil); err != nil || mask.Held() != 0 || a.NumFree() != 70 {
		t.Errorf("cleared: %v, %d held, %d free", err, mask.Held(), a.NumFree())
	}
}

// BenchmarkMask: BenchmarkAllocateWithout's decisions (slurm:consec on 131,072
// nodes, 64 nodes each) kept off half the nodes by a Mask: one set for every
// decision (a run of jobs of one partition: nothing to change), and the lower and
// the upper half kept away in turn (every decision changes the set).
func BenchmarkMask(b *testing.B) {
	m, err := topo.ParseSpec("mesh:256x512")
	if err != nil {
		b.Fatal(err)
	}
	n := m.N()
	lower, upper := make([]uint64, (n+63)/64), make([]uint64, (n+63)/64)
	for v := range n {
		if v < n/2 {
			lower[v>>6] |= 1 << (v & 63)
		} else {
			upper[v>>6] |= 1 << (v & 63)
		}
	}
	for _, name := range []string{"one set", "lower and upper in turn"} {
		b.Run(name, func(b *testing.B) {
			a, err := alloc.NewSlurm(m, alloc.SlurmConfig{})
			if err != nil {
				b.Fatal(err)
			}
			mask := alloc.NewMask(n)
			i := 0
			for b.Loop() {
				away := lower
				if name != "one set" && i%2 == 1 {
					away = upper
				}
				i++
				if err := mask.Set(a, away); err != nil {
					b.Fatal(err)
				}
				nodes, err := a.Allocate(64)
				if err != nil {
					b.Fatal(err)
				}
				if err := mask.Release(nil, a, nodes); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
