// Package masktest checks, in tests, that alloc.Mask keeps an allocator's decisions
// where alloc.AllocateWithout keeps them: both on one random multi-partition history,
// in lockstep (alloc's Slurm emulations, plan's torus3d and fallback).
//
// It follows no paper.
package masktest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/procalloc/procalloc/alloc"
)

// Lockstep plays one random history of jobs in random overlapping partitions
// on two copies of an allocator: the reference keeps each decision off the nodes
// outside the job's partition with AllocateWithout (occupied for the decision,
// freed after it), the other with a Mask (held from one decision to the next, a
// finished job's nodes outside the current partition held). Every decision must
// give the same nodes or the same error, and at the end, with the mask cleared,
// the two free states must be equal. It returns the decisions compared.
// Half the histories hide got's AppendFreeIn and bitmap path (BulkOccupier), so
// that Set's per-node path is played too. got may be an alloc.BlockOccupier (bt,
// paging with pages of several nodes: alloc.ForPartitions), ref then its twin. ref and got must be two allocators in the same state (both empty, typically).
func Lockstep(t testing.TB, rng *rand.Rand, ref, got alloc.Occupier, steps int, what string) int {
	t.Helper()
	return lockstep(t, rng, ref, got, steps, what, plain)
}

// LockstepBulk is Lockstep through got's bulk path (got must be an
// alloc.BulkOccupier: the mask holds and frees the nodes two sets differ by as
// bitmaps, never hidden), with LockstepViews's checks: a quarter of the
// decisions keep random nodes away besides the partition's outside, and every
// tenth step, and after a third of the releases, the allocator's free state is
// checked against the reference's less the nodes kept away and a clone of each
// decides a job alike.
func LockstepBulk(t testing.TB, rng *rand.Rand, ref, got alloc.Occupier, steps int, what string) int {
	t.Helper()
	if _, ok := got.(alloc.BulkOccupier); !ok {
		t.Fatalf("%s: %s has no bulk path", what, got.Name())
	}
	return lockstep(t, rng, ref, got, steps, what, bulk)
}

// The ways lockstep drives the mask: Set's per-node or free-list path (half
// the histories each), views, the bulk path.
const (
	plain = iota
	views
	bulk
)

// LockstepViews is Lockstep with got's views (got must be an alloc.Viewer):
// the mask registers most of the partitions' outsides as views (Mask.Views),
// and a quarter of the decisions keep random nodes away besides the
// partition's outside (a set no view is of: the view of a registered set it
// holds, the rest held, as FCFS's failed partitions and EASY's reservations
// are kept away). Every tenth step the allocator's free state is checked
// against the reference's less the nodes kept away, and a clone of each
// (alloc.Fragmenting) decides a job, again alike; so after a third of the
// releases, with the set of the last decision.
func LockstepViews(t testing.TB, rng *rand.Rand, ref, got alloc.Occupier, steps int, what string) int {
	t.Helper()
	if _, ok := got.(alloc.Viewer); !ok {
		t.Fatalf("%s: %s keeps no views", what, got.Name())
	}
	return lockstep(t, rng, ref, got, steps, what, views)
}

func lockstep(t testing.TB, rng *rand.Rand, ref, got alloc.Occupier, steps int, what string, mode int) int {
	t.Helper()
	checked := mode != plain // free states checked, random nodes kept away
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
	mask := alloc.NewMask(n)
	if mode == views {
		var sets [][]uint64
		for _, p := range parts {
			if rng.IntN(5) != 0 {
				sets = append(sets, p.bm)
			}
		}
		if err := mask.Views(got, sets); err != nil {
			t.Fatalf("%s: views: %v", what, err)
		}
	} else if mode == plain && rng.IntN(2) == 0 {
		got = isFreeOnly{got} // Mask.Set's per-node path (no AppendFreeIn)
		if b, ok := got.(isFreeOnly).Occupier.(alloc.BlockOccupier); ok {
			got = isFreeOnlyBlocks{b} // still a BlockOccupier (its release frees blocks)
		}
	}
	var running [][]int
	var curAway []int // the last set given the mask, as a list and as a bitmap
	var curBM []uint64
	setOnce := false
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
			if checked && setOnce && rng.IntN(3) == 0 { // the free state seen between decisions
				checkSeen(t, rng, ref, got, curAway, curBM, 1+rng.IntN(n), fmt.Sprintf("%s: step %d, after a release", what, step))
			}
			continue
		}
		pi := rng.IntN(len(parts))
		p := parts[pi]
		k := 1 + rng.IntN(max(1, p.size/2))
		if rng.IntN(8) == 0 {
			k = 1
		}
		away, bm := p.away, p.bm
		if checked && rng.IntN(4) == 0 {
			away, bm = withRandomNodes(rng, n, p.bm)
		}
		if checked && step%10 == 0 {
			if err := mask.Set(got, bm); err != nil {
				t.Fatalf("%s: step %d: mask set: %v", what, step, err)
			}
			checkSeen(t, rng, ref, got, away, bm, k, fmt.Sprintf("%s: step %d", what, step))
		}
		want, _, werr := alloc.AllocateWithout(context.Background(), ref, k, away, nil)
		if err := mask.Set(got, bm); err != nil {
			t.Fatalf("%s: step %d: mask set: %v", what, step, err)
		}
		curAway, curBM, setOnce = away, bm, true
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
	if err := mask.Views(got, nil); err != nil {
		t.Fatalf("%s: dropping the views: %v", what, err)
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

// isFreeOnly hides an allocator's AppendFreeIn and bitmap path
// (alloc.BulkOccupier): Mask.Set then asks IsFree node by node.
type isFreeOnly struct{ alloc.Occupier }

// isFreeOnlyBlocks is isFreeOnly for an alloc.BlockOccupier (bt, paging with
// pages of several nodes), which the mask must still know for one.
type isFreeOnlyBlocks struct{ alloc.BlockOccupier }

// withRandomNodes returns the nodes of bm (nil: none) and about a fifth of the
// others, as a list and as a new bitmap.
func withRandomNodes(rng *rand.Rand, n int, bm []uint64) ([]int, []uint64) {
	out := make([]uint64, (n+63)/64)
	var list []int
	for v := range n {
		if (bm != nil && bm[v>>6]>>(v&63)&1 != 0) || rng.IntN(5) == 0 {
			out[v>>6] |= 1 << (v & 63)
			list = append(list, v)
		}
	}
	return list, out
}

// checkSeen fails unless got (a mask of bm set) reports the reference's free
// nodes outside away, and, for allocators that clone, unless a clone of got
// places a job of k nodes where a clone of ref does off away.
func checkSeen(t testing.TB, rng *rand.Rand, ref, got alloc.Occupier, away []int, bm []uint64, k int, what string) {
	t.Helper()
	free := 0
	for v := range ref.Machine().N() {
		want := ref.IsFree(v) && (bm == nil || bm[v>>6]>>(v&63)&1 == 0)
		if got.IsFree(v) != want {
			t.Fatalf("%s: node %d free %v, the reference's outside the set %v", what, v, got.IsFree(v), want)
		}
		if want {
			free++
		}
	}
	if got.NumFree() != free {
		t.Fatalf("%s: %d free, the reference %d outside the set", what, got.NumFree(), free)
	}
	rf, ok1 := ref.(alloc.Fragmenting)
	gf, ok2 := got.(alloc.Fragmenting)
	if !ok1 || !ok2 {
		return
	}
	rc, gc := rf.Clone(), gf.Clone()
	if rng.IntN(2) == 0 {
		k = 1
	}
	want, _, werr := alloc.AllocateWithout(context.Background(), rc, k, away, nil)
	have, herr := gc.Allocate(k)
	if (werr == nil) != (herr == nil) || (werr != nil && werr.Error() != herr.Error()) || !slices.Equal(want, have) {
		t.Fatalf("%s: clones, a job of %d nodes: AllocateWithout %v (%v), the mask's clone %v (%v)", what, k, want, werr, have, herr)
	}
	// (a BlockOccupier's job holds its whole block or pages, more than it
	// was given)
	if _, blocks := got.(alloc.BlockOccupier); !blocks && gc.NumFree() != free-len(have) {
		t.Fatalf("%s: the mask's clone has %d free after the job, %d expected", what, gc.NumFree(), free-len(have))
	}
}
