package alloc

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/procalloc/procalloc/topo"
)

// TestGreedyMemoStampsChangedBlocks checks memoAdvance's stamps against the
// definition: after nodes are taken and released, every block holding a node
// whose free bit changed since the last decision has the new decision's
// number, and every other block keeps its stamp. Grids whose first side the
// blocks split evenly (one test a run of a word's bits) and grids whose do not
// (the changed bits one by one, one stamp a block's run along axis 0), in one
// to three dimensions, with changes scattered and in runs across rows.
func TestGreedyMemoStampsChangedBlocks(t *testing.T) {
	rng := rand.New(rand.NewPCG(32, 7))
	grids := []*topo.Grid{topo.Mesh(13, 7), topo.Mesh(16, 16), topo.Mesh(33, 41), topo.Torus(100),
		topo.Torus(10, 6, 5), topo.Mesh(12, 4, 4), topo.Mesh(7, 9, 3)}
	stamped := 0
	for _, g := range grids {
		a, err := Parse("mc1x1-greedy", g, Options{})
		if err != nil {
			t.Fatal(err)
		}
		mc := a.(*mc1x1)
		n := g.N()
		mc.memoAdvance()
		mo := &mc.memo
		block := func(v int) int {
			b := 0
			for j, u := range mc.x.coord[v*mc.x.d : v*mc.x.d+mc.x.d] {
				b += int(u) / mo.side * mo.bstride[j]
			}
			return b
		}
		for round := range 60 {
			before := make([]bool, n)
			for v := range n {
				before[v] = mc.st.IsFree(v)
			}
			stamps := slices.Clone(mo.stamp)
			// change scattered nodes, or a run of consecutive nodes (across rows)
			var flip []int
			if round%2 == 0 {
				for range 1 + rng.IntN(6) {
					flip = append(flip, rng.IntN(n))
				}
			} else {
				s := rng.IntN(n)
				for v := s; v < min(n, s+1+rng.IntN(3*g.Dims()[0])); v++ {
					flip = append(flip, v)
				}
			}
			slices.Sort(flip)
			flip = slices.Compact(flip)
			var take, release []int
			for _, v := range flip {
				if before[v] {
					take = append(take, v)
				} else {
					release = append(release, v)
				}
			}
			take0 := mc.st.Take
			if round%4 < 2 {
				take0 = mc.Occupy // as a Mask keeps a partition's outside busy
			}
			if err := take0(take); err != nil {
				t.Fatal(err)
			}
			if err := mc.st.Release(release); err != nil {
				t.Fatal(err)
			}
			mc.memoAdvance()
			want := slices.Clone(stamps)
			for _, v := range flip {
				want[block(v)] = mo.epoch
			}
			for b := range want {
				if mo.stamp[b] != want[b] {
					t.Fatalf("%s round %d (changed %v): block %d stamped %d, want %d (decision %d)", g.Spec(), round, flip, b, mo.stamp[b], want[b], mo.epoch)
				}
				if want[b] == mo.epoch {
					stamped++
				}
			}
		}
	}
	t.Logf("%d blocks stamped", stamped)
}
