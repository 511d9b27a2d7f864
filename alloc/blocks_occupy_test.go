package alloc

import (
	"errors"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/procalloc/procalloc/topo"
)

// TestBlockOccupiersMatchPlainModel: bt, sbt, dbt and paging with pages of
// several nodes, replayed through a Mask in their ForPartitions view over
// random histories (random overlapping partitions switched at random, random
// nodes kept away besides, jobs started and finished), decide every job as the
// definition says, computed from scratch by brute force at each step: the free
// nodes are those in no running job's block (bt: the whole power-of-two tree
// node the job was given, its reserved remainder included; paging: the job's
// whole pages) and not kept away; bt takes, by the rule's descent, a tree node
// of area 2^ceil(log2 k) all of whose nodes are free (counting each tree node's
// free nodes and looking for a wholly free block below it node by node), paging
// the free pages of lowest rank (a page free when all its nodes are). Between
// steps the allocator's free nodes (IsFree, NumFree) must be the model's, the
// mask's held nodes the model's free nodes kept away, and at the end, the mask
// cleared and every job released, every node free.
func TestBlockOccupiersMatchPlainModel(t *testing.T) {
	cases := []struct{ spec, m string }{
		{"bt", "mesh:8x8"}, {"bt", "mesh:16x4:io=bottom"}, {"sbt:4", "mesh:8x16"}, {"sbt:0", "mesh:16x16:io=right"},
		{"dbt:1/4", "mesh:8x8:io=left"}, {"dbt:1/2", "mesh:32x8"},
		{"paging:hilbert:1", "mesh:8x8"}, {"paging:snake:1", "mesh:6x10"}, {"paging:morton:2", "mesh:16x8"},
		{"paging:hilbert:1", "torus:8x8"},
	}
	histories, steps := 10, 200
	if testing.Short() {
		histories = 4
	}
	decisions, placed, viewed := 0, 0, 0
	for ci, c := range cases {
		m, err := topo.ParseMachine(c.m)
		if err != nil {
			t.Fatal(err)
		}
		for h := range histories {
			for _, views := range []bool{false, true} {
				rng := rand.New(rand.NewPCG(uint64(ci), uint64(h)+77))
				d, p := blockModelHistory(t, rng, c.spec, m, steps, views, fmt.Sprintf("%s on %s, history %d, views %v", c.spec, c.m, h, views))
				decisions, placed = decisions+d, placed+p
				if views {
					viewed += d
				}
			}
		}
	}
	t.Logf("%d allocators, %d decisions as the plain model's (%d with the partitions' sets registered as views; %d jobs placed, the others refused alike)", len(cases), decisions, viewed, placed)
}

// blockModel is the definition of bt's or paging's decision on a free set,
// by brute force: each decision counts the free nodes of each block it looks
// at anew.
type blockModel struct {
	tree  *BinaryTree // bt: its division tree and rule (its counts unused)
	paged *Paging     // paging: its pages by rank (its free state unused)
}

// decide returns the nodes a job of k gets on the free nodes free, and the
// nodes it then holds (its block or pages), or an error.
func (bm blockModel) decide(free []bool, k int) (nodes, holds []int, err error) {
	nfree := 0
	for _, f := range free {
		if f {
			nfree++
		}
	}
	if bm.paged != nil {
		p := bm.paged
		per := p.side * p.side
		need := (k + per - 1) / per
		for _, page := range p.pages {
			if len(holds)/per == need {
				break
			}
			if !slices.ContainsFunc(page, func(v int) bool { return !free[v] }) {
				holds = append(holds, page...)
			}
		}
		if len(holds)/per < need {
			return nil, nil, ErrNotEnoughFree
		}
		return slices.Clone(holds[:k]), holds, nil
	}
	a := bm.tree
	if k > nfree {
		return nil, nil, ErrNotEnoughFree
	}
	busy := make([]bool, len(free))
	for v, f := range free {
		busy[v] = !f
	}
	ref := refTree{t: a.t, busy: busy, rule: a.rule} // bintree_test.go: the paper's descent by brute force
	b := ref.find(1, 1<<bits.Len(uint(k-1)))
	if b == 0 {
		return nil, nil, ErrFragmented
	}
	holds = a.t.cells(b, nil)
	return slices.Clone(holds[:k]), holds, nil
}

// blockModelHistory plays one history of TestBlockOccupiersMatchPlainModel and
// returns the decisions and the jobs placed. With views the partitions' sets
// are registered with the mask (Mask.Views: an allocator that keeps views,
// alloc.Viewer, switches views in place of holding their nodes), and at each
// decision a clone (EASY's will-run copy) must decide as the model, and, with
// a running job released whole and the set's free nodes held again (as
// sim's will-run test does), have the model's free nodes without that job.
func blockModelHistory(t *testing.T, rng *rand.Rand, spec string, m topo.Machine, steps int, views bool, what string) (int, int) {
	t.Helper()
	a0, err := Parse(spec, m, Options{})
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	var bm blockModel
	switch x := a0.(type) {
	case *BinaryTree:
		bm.tree = x
		c := x.Clone().(*BinaryTree)
		a0 = c
	case *Paging:
		c := *x
		bm.paged = &c // the pages only
	}
	a, err := ForPartitions(a0)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if _, ok := a.(BlockOccupier); !ok {
		t.Fatalf("%s: not a BlockOccupier", what)
	}
	n := m.N()
	var parts [][]uint64
	for range 2 + rng.IntN(3) {
		set := make([]uint64, (n+63)/64)
		keep := 0.3 + 0.7*rng.Float64()
		for v := range n {
			if rng.Float64() >= keep {
				set[v>>6] |= 1 << (v & 63)
			}
		}
		parts = append(parts, set)
	}
	type job = struct{ nodes, holds []int }
	var running []job
	mask := NewMask(n)
	if views {
		if err := mask.Views(a, parts); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	var cur []uint64
	decisions, placed := 0, 0
	free := make([]bool, n) // the model's: in no job's block, not kept away
	model := func(away []uint64) {
		for v := range n {
			free[v] = away == nil || away[v>>6]>>(v&63)&1 == 0
		}
		for _, j := range running {
			for _, v := range j.holds {
				free[v] = false
			}
		}
	}
	check := func(step int, when string) {
		model(cur)
		nf := 0
		for v := range n {
			want := free[v]
			if bm.paged != nil { // free nodes are those of free pages
				want = !slices.ContainsFunc(bm.paged.pages[bm.paged.pageOf[v]], func(u int) bool { return !free[u] })
			}
			if a.IsFree(v) != want {
				t.Fatalf("%s: step %d, %s: node %d free %v, the model's %v", what, step, when, v, a.IsFree(v), want)
			}
			if want {
				nf++
			}
		}
		if a.NumFree() != nf {
			t.Fatalf("%s: step %d, %s: %d free, the model %d", what, step, when, a.NumFree(), nf)
		}
	}
	for step := range steps {
		if len(running) > 0 && rng.IntN(100) < 40 {
			j := rng.IntN(len(running))
			nodes := running[j].nodes
			running = slices.Delete(running, j, j+1)
			if err := mask.Release(nil, a, nodes); err != nil {
				t.Fatalf("%s: step %d: release: %v", what, step, err)
			}
			check(step, "after a release")
			continue
		}
		set := parts[rng.IntN(len(parts))]
		if rng.IntN(2) == 0 { // more nodes kept away (a reservation, a failed partition)
			set = slices.Clone(set)
			for v := range n {
				if rng.IntN(6) == 0 {
					set[v>>6] |= 1 << (v & 63)
				}
			}
		}
		if err := mask.Set(a, set); err != nil {
			t.Fatalf("%s: step %d: set: %v", what, step, err)
		}
		cur = set
		check(step, "after a change of set")
		k := 1 + rng.IntN(max(1, n/3))
		if rng.IntN(3) == 0 {
			k = 1 + rng.IntN(4)
		}
		want, holds, werr := bm.decide(free, k)
		if views {
			cloneMatchesModel(t, a, bm, free, cur, k, running, what+fmt.Sprintf(", step %d", step))
		}
		have, herr := a.Allocate(k)
		decisions++
		if (werr == nil) != (herr == nil) || (werr != nil && !errors.Is(herr, werr)) || !slices.Equal(want, have) {
			t.Fatalf("%s: step %d, a job of %d: the model %v (%v), the mask's %v (%v)", what, step, k, want, werr, have, herr)
		}
		if herr == nil {
			running = append(running, job{have, holds})
			placed++
		}
		check(step, "after a decision")
	}
	if err := mask.Set(a, nil); err != nil {
		t.Fatalf("%s: clearing: %v", what, err)
	}
	if err := mask.Views(a, nil); err != nil {
		t.Fatalf("%s: dropping the views: %v", what, err)
	}
	for _, j := range running {
		if err := a.Release(j.nodes); err != nil {
			t.Fatalf("%s: final release: %v", what, err)
		}
	}
	if mask.Held() != 0 || a.NumFree() != n {
		t.Fatalf("%s: at the end %d held, %d of %d free", what, mask.Held(), a.NumFree(), n)
	}
	return decisions, placed
}

// cloneMatchesModel checks a clone of a (in the state the model's free nodes
// free describe, the set away kept away) as sim's will-run test uses it: the
// clone decides a job of k as the model, and with running's last job released
// whole and the free nodes of away held again (HoldFreeIn), its free nodes
// are the model's without that job.
func cloneMatchesModel(t *testing.T, a Occupier, bm blockModel, free []bool, away []uint64, k int, running []struct{ nodes, holds []int }, what string) {
	t.Helper()
	c := a.(Fragmenting).Clone().(Occupier)
	want, _, werr := bm.decide(free, k)
	have, herr := c.Allocate(k)
	if (werr == nil) != (herr == nil) || !slices.Equal(want, have) {
		t.Fatalf("%s: a clone decides a job of %d: %v (%v), the model %v (%v)", what, k, have, herr, want, werr)
	}
	if len(running) == 0 {
		return
	}
	c = a.(Fragmenting).Clone().(Occupier)
	j := running[len(running)-1]
	if err := c.Release(j.nodes); err != nil {
		t.Fatalf("%s: a clone's release: %v", what, err)
	}
	if _, err := HoldFreeIn(c, away, nil); err != nil {
		t.Fatalf("%s: a clone's hold: %v", what, err)
	}
	after := slices.Clone(free)
	for _, v := range j.holds {
		after[v] = away == nil || away[v>>6]>>(v&63)&1 == 0
	}
	for v := range after {
		want := after[v]
		if bm.paged != nil {
			want = !slices.ContainsFunc(bm.paged.pages[bm.paged.pageOf[v]], func(u int) bool { return !after[u] })
		}
		if c.IsFree(v) != want {
			t.Fatalf("%s: a clone, job %v released: node %d free %v, the model's %v", what, j.nodes, v, c.IsFree(v), want)
		}
	}
}

// TestBlockOccupierContract: ForPartitions's views refuse what an Occupier
// refuses, all or nothing (a busy node, a node twice, one out of range), a
// page occupied through several of its nodes is freed with the last, and a
// clone decides as the original; the Occupiers are returned as they are and
// the non-contiguous trees and paging with pages of one node stay theirs.
func TestBlockOccupierContract(t *testing.T) {
	m, err := topo.ParseMachine("mesh:8x8")
	if err != nil {
		t.Fatal(err)
	}
	for _, spec := range []string{"bt", "sbt:4", "dbt:1/4", "paging:hilbert:1", "paging:snake:2"} {
		a0, err := Parse(spec, m, Options{})
		if err != nil {
			t.Fatal(err)
		}
		a, err := ForPartitions(a0)
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		if _, ok := a.(Fragmenting); !ok {
			t.Fatalf("%s: view is not Fragmenting", spec)
		}
		nodes, err := a.Allocate(3)
		if err != nil {
			t.Fatal(err)
		}
		free := a.NumFree()
		for _, bad := range [][]int{{40, 41, 40}, {40, nodes[0]}, {40, 64}, {-1}} {
			if err := a.Occupy(bad); err == nil || a.NumFree() != free {
				t.Errorf("%s: occupy %v: %v, %d free of %d", spec, bad, err, a.NumFree(), free)
			}
		}
		if err := a.Occupy([]int{40, 41}); err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		// the bitmap path refuses, all or nothing, a node that is not busy
		// (node 63: free, with 41 held)
		b, ok := a.(BulkOccupier)
		if !ok {
			t.Fatalf("%s: view has no bitmap path", spec)
		}
		bad := []uint64{1<<41 | 1<<63}
		if err := b.ReleaseIn(bad); err == nil || a.NumFree() != free-len(pageNodes(a, 40, 41)) || a.IsFree(41) {
			t.Errorf("%s: ReleaseIn of a free node: %v, %d free", spec, err, a.NumFree())
		}
		c := a.(Fragmenting).Clone()
		x, err1 := a.Allocate(5)
		y, err2 := c.Allocate(5)
		if err1 != nil || err2 != nil || !slices.Equal(x, y) {
			t.Errorf("%s: clone decides %v (%v), the original %v (%v)", spec, y, err2, x, err1)
		}
		if err := a.Release(x); err != nil {
			t.Fatal(err)
		}
		if err := a.Release([]int{40, 40}); err == nil {
			t.Errorf("%s: a node released twice", spec)
		}
		if err := a.Release([]int{40}); err != nil {
			t.Fatal(err)
		}
		if a.IsFree(41) {
			t.Errorf("%s: node 41 free while occupied", spec)
		}
		if err := a.Release([]int{41}); err != nil {
			t.Fatal(err)
		}
		if err := a.Release(nodes); err != nil {
			t.Fatal(err)
		}
		if a.NumFree() != m.N() {
			t.Errorf("%s: %d free at the end", spec, a.NumFree())
		}
	}
	// A page freed by the mask's release of its held node while another node
	// of it is kept away (not held: it was busy, its page being taken, when
	// the set that added it was set) must be held then: a node of each set
	// that is free after a change is held, not only those of the nodes added.
	a0, err := Parse("paging:hilbert:1", m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	a, err := ForPartitions(a0)
	if err != nil {
		t.Fatal(err)
	}
	mask := NewMask(m.N())
	bm := func(nodes ...int) []uint64 {
		b := make([]uint64, 1)
		for _, v := range nodes {
			b[0] |= 1 << v
		}
		return b
	}
	for i, set := range [][]uint64{bm(0), bm(0, 1), bm(1)} { // nodes 0 and 1 share a page
		if err := mask.Set(a, set); err != nil {
			t.Fatal(err)
		}
		for v := range 2 {
			if kept := set[0]>>v&1 != 0; kept && a.IsFree(v) {
				t.Errorf("paging:hilbert:1: after set %d node %d is kept away and free", i, v)
			}
		}
	}
	for _, spec := range []string{"ind-bt", "paging:hilbert:0", "mc1x1"} {
		a0, err := Parse(spec, m, Options{})
		if err != nil {
			t.Fatal(err)
		}
		a, err := ForPartitions(a0)
		if err != nil || Allocator(a) != a0 {
			t.Errorf("%s: ForPartitions gave %T (%v), want the allocator itself", spec, a, err)
		}
		if _, ok := a.(BlockOccupier); ok {
			t.Errorf("%s is a BlockOccupier", spec)
		}
	}
}

// pageNodes is the number of nodes Occupy of the nodes made busy, as a list
// of that length: their pages' for paging, themselves for bt.
func pageNodes(a Occupier, nodes ...int) []int {
	p, ok := a.(*pagedBlocks)
	if !ok {
		return nodes
	}
	var out []int
	seen := map[int32]bool{}
	for _, v := range nodes {
		if r := p.pageOf[v]; !seen[r] {
			seen[r] = true
			out = append(out, p.pages[r]...)
		}
	}
	return out
}
