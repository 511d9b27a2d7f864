package alloc

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/slurm"
	"github.com/procalloc/procalloc/topo"
)

// MaskLockstep plays one random history of jobs in random overlapping partitions
// on two copies of an allocator: the reference keeps each decision off the nodes
// outside the job's partition with AllocateWithout (occupied for the decision,
// freed after it), the other with a Mask (held from one decision to the next, a
// finished job's nodes outside the current partition held). Every decision must
// give the same nodes or the same error, and at the end, with the mask cleared,
// the two free states must be equal. It returns the decisions compared.
func maskLockstep(t *testing.T, rng *rand.Rand, ref, got Occupier, steps int, what string) int {
	t.Helper()
	n := ref.Machine().N()
	type part struct {
		away []int
		bm   []uint64
		size int
	}
	var parts []part
	for range 2 + rng.IntN(3) {
		var p part
		p.bm = make([]uint64, (n+63)/64)
		keep := 0.2 + 0.7*rng.Float64()
		if rng.IntN(5) == 0 {
			keep = 1 // a partition of every node: nothing away
		}
		for v := range n {
			if rng.Float64() >= keep {
				p.away = append(p.away, v)
				p.bm[v>>6] |= 1 << (v & 63)
			}
		}
		if len(p.away) == n {
			p.away, p.bm = p.away[1:], nil // keep node 0
			p.bm = make([]uint64, (n+63)/64)
			for _, v := range p.away {
				p.bm[v>>6] |= 1 << (v & 63)
			}
		}
		if len(p.away) == 0 {
			p.bm = nil
		}
		p.size = n - len(p.away)
		parts = append(parts, p)
	}
	mask := NewMask(n)
	var running [][]int
	decisions := 0
	for step := range steps {
		if len(running) > 0 && rng.IntN(100) < 45 {
			j := rng.IntN(len(running))
			nodes := running[j]
			running = slices.Delete(running, j, j+1)
			if err := ref.Release(nodes); err != nil {
				t.Fatalf("%s: step %d: reference release: %v", what, step, err)
			}
			if err := mask.Release(nil, got, nodes); err != nil {
				t.Fatalf("%s: step %d: mask release: %v", what, step, err)
			}
			continue
		}
		pi := rng.IntN(len(parts))
		p := parts[pi]
		k := 1 + rng.IntN(max(1, p.size/2))
		if rng.IntN(8) == 0 {
			k = 1
		}
		want, _, werr := AllocateWithout(context.Background(), ref, k, p.away, nil)
		if err := mask.Set(got, p.bm); err != nil {
			t.Fatalf("%s: step %d: mask set: %v", what, step, err)
		}
		have, herr := got.Allocate(k)
		decisions++
		if (werr == nil) != (herr == nil) || (werr != nil && werr.Error() != herr.Error()) || !slices.Equal(want, have) {
			t.Fatalf("%s: step %d, job of %d nodes in partition %d (%d nodes): AllocateWithout %v (%v), mask %v (%v)", what, step, k, pi, p.size, want, werr, have, herr)
		}
		if werr == nil {
			running = append(running, want)
		}
	}
	if err := mask.Set(got, nil); err != nil {
		t.Fatalf("%s: clearing the mask: %v", what, err)
	}
	if mask.Held() != 0 || ref.NumFree() != got.NumFree() {
		t.Fatalf("%s: after the history %d held, %d free against %d", what, mask.Held(), got.NumFree(), ref.NumFree())
	}
	for v := range n {
		if ref.IsFree(v) != got.IsFree(v) {
			t.Fatalf("%s: after the history node %d free %v against %v", what, v, got.IsFree(v), ref.IsFree(v))
		}
	}
	return decisions
}

// A Mask places every job of random multi-partition histories exactly where
// AllocateWithout does (maskLockstep), for each Slurm emulation: slurm:consec,
// slurm:tree (one parent per switch, shared descendants, leaves under two roots)
// with Slurm 22.05's and 26.05's rules (OneNodeByWeight, Tree2411), slurm:block,
// with every kind of weights.
func TestMaskMatchesAllocateWithout(t *testing.T) {
	rng := rand.New(rand.NewPCG(2026, 12))
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
		cfg := SlurmConfig{Names: slurmNames(n), Weights: randomSlurmWeights(rng, n, rng.IntN(4))}
		newer := h%2 == 1
		cfg.OneNodeByWeight, cfg.Tree2411 = newer, newer
		mode := "consec"
		switch h % 5 {
		case 1, 2:
			mode = "tree"
			var conf string
			switch rng.IntN(3) {
			case 0:
				conf = twoSpineTree(rng, n)
			default:
				conf = randomSharedTree(rng, n, rng.IntN(2) == 0)
			}
			if cfg.Tree, err = slurm.ParseTree(strings.NewReader(conf)); err != nil {
				t.Fatal(err)
			}
		case 3, 4:
			mode = "block"
			cfg.OneNodeByWeight, cfg.Tree2411 = false, false
			conf := randomSlurmBlocks(rng, n, rng.IntN(2) == 0, rng.IntN(3) == 0, func(i int) string { return fmt.Sprintf("n%d", i+1) })
			if cfg.Blocks, err = slurm.ParseBlocks(strings.NewReader(conf)); err != nil {
				t.Fatal(err)
			}
		}
		ref, err := NewSlurm(m, cfg)
		if err != nil {
			t.Fatal(err)
		}
		got, err := NewSlurm(m, cfg)
		if err != nil {
			t.Fatal(err)
		}
		decisions += maskLockstep(t, rng, ref, got, 150, fmt.Sprintf("history %d, slurm:%s on %d nodes, 26.05 rules %v", h, mode, n, newer))
	}
	t.Logf("%d histories, %d decisions placed alike", histories, decisions)
}

// Mask.Release refuses a node that is not busy, and a node listed twice, changing
// nothing; Set refuses a bitmap of the wrong size.
func TestMaskErrors(t *testing.T) {
	m, _ := topo.ParseSpec("mesh:70")
	a, err := NewSlurm(m, SlurmConfig{})
	if err != nil {
		t.Fatal(err)
	}
	mask := NewMask(70)
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
