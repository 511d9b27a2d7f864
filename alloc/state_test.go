package alloc

import (
	"errors"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/topo"
)

func TestStateTakeRelease(t *testing.T) {
	for _, n := range []int{1, 63, 64, 65, 200} {
		s := NewState(n)
		if s.NumFree() != n || len(s.AppendFree(nil)) != n {
			t.Fatalf("n=%d: new state has %d free (%d listed)", n, s.NumFree(), len(s.AppendFree(nil)))
		}
		rng := rand.New(rand.NewPCG(uint64(n), 1))
		busy := make([]bool, n)
		for step := 0; step < 2000; step++ {
			nodes := make([]int, 1+rng.IntN(4))
			for i := range nodes {
				nodes[i] = rng.IntN(n+2) - 1 // sometimes out of range
			}
			before := slices.Clone(busy)
			wantOK := true
			take := rng.IntN(2) == 0
			seen := map[int]bool{}
			for _, v := range nodes {
				if v < 0 || v >= n || seen[v] || busy[v] == take {
					wantOK = false
				}
				seen[v] = true
			}
			var err error
			if take {
				err = s.Take(nodes)
			} else {
				err = s.Release(nodes)
			}
			if (err == nil) != wantOK {
				t.Fatalf("n=%d take=%v %v: err=%v, want ok=%v", n, take, nodes, err, wantOK)
			}
			if err == nil {
				for _, v := range nodes {
					busy[v] = take
				}
			}
			nf := 0
			for i := range n {
				if s.IsFree(i) == busy[i] {
					t.Fatalf("n=%d: node %d free=%v, want %v (before %v, op %v %v)", n, i, s.IsFree(i), !busy[i], before[i], take, nodes)
				}
				if !busy[i] {
					nf++
				}
			}
			if s.NumFree() != nf || len(s.AppendFree(nil)) != nf {
				t.Fatalf("n=%d: NumFree %d, listed %d, want %d", n, s.NumFree(), len(s.AppendFree(nil)), nf)
			}
		}
	}
}

func TestStateErrors(t *testing.T) {
	s := NewState(10)
	if err := s.CheckRequest(0); err == nil {
		t.Error("k=0 accepted")
	}
	if err := s.CheckRequest(11); !errors.Is(err, ErrNotEnoughFree) {
		t.Errorf("k=11 of 10: %v, want ErrNotEnoughFree", err)
	}
	if err := s.CheckRequest(10); err != nil {
		t.Errorf("k=10 of 10: %v", err)
	}
	if err := s.Take([]int{3, 3}); err == nil || s.NumFree() != 10 || !s.IsFree(3) {
		t.Errorf("double take: err=%v free=%d", err, s.NumFree())
	}
	if err := s.Release([]int{3}); err == nil {
		t.Error("release of a free node accepted")
	}
}

func TestFreeListOrder(t *testing.T) {
	g := topo.Mesh(3, 2, 2)
	order := FreeListOrder(g)
	var c []int
	prev := []int{-1, -1, -1}
	for r, v := range order {
		c = g.Coord(v, c)
		if r > 0 && slices.Compare(prev, c) >= 0 {
			t.Fatalf("free list %v not sorted by (x,y,z) at %d", order, r)
		}
		copy(prev, c)
	}
	if len(order) != 12 || order[1] != 6 { // (0,0,0) then (0,0,1) = 0 + 0*3 + 1*6
		t.Fatalf("free list %v", order)
	}
	s := NewState(12)
	_ = s.Take([]int{6, 0})
	got := s.AppendFreeInOrder(nil, order)
	if len(got) != 10 || got[0] != 3 || got[1] != 9 {
		t.Fatalf("free in order %v", got)
	}
}

// randomStateAndSet is a state of 1-300 nodes, about half of them busy, and a
// bitmap of about a third of its nodes, one word shorter or longer than the
// state's words at times.
func randomStateAndSet(t *testing.T, rng *rand.Rand) (int, *State, []uint64) {
	t.Helper()
	n := 1 + rng.IntN(300)
	s := NewState(n)
	var take []int
	for v := range n {
		if rng.IntN(2) == 0 {
			take = append(take, v)
		}
	}
	if err := s.Take(take); err != nil {
		t.Fatal(err)
	}
	set := make([]uint64, (n+63)/64+rng.IntN(3)-1)
	for v := range len(set) * 64 {
		if rng.IntN(3) == 0 {
			set[v>>6] |= 1 << (v & 63)
		}
	}
	return n, s, set
}

// AppendFreeIn lists the free nodes of a bitmap, in index order, as IsFree node by
// node does, on random states and sets (a set shorter or longer than the state's
// words too).
func TestStateAppendFreeIn(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 12))
	for range 300 {
		n, s, set := randomStateAndSet(t, rng)
		var want []int
		for v := range len(set) * 64 {
			if set[v>>6]&(1<<(v&63)) != 0 && s.IsFree(v) {
				want = append(want, v)
			}
		}
		if got := s.AppendFreeIn([]int{-1}, set); !slices.Equal(got, append([]int{-1}, want...)) {
			t.Fatalf("%d nodes, %d words: %v, node by node %v", n, len(set), got, want)
		}
	}
}

// TakeFreeIn takes the free nodes of a bitmap as Take of their list does (the
// same state, count and nodes), and ReleaseIn of them gives the state back;
// ReleaseIn of a set with a free node, or a node past the last, fails naming
// it and changes nothing (random states and sets, sets shorter and longer than
// the state's words too).
func TestStateBitmapTakeRelease(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 13))
	for range 300 {
		n, s, set := randomStateAndSet(t, rng)
		before := s.Clone()
		want := s.AppendFreeIn(nil, set)
		ref := s.Clone()
		if err := ref.Take(want); err != nil {
			t.Fatal(err)
		}
		taken := make([]uint64, len(set))
		if k := s.TakeFreeIn(set, taken); k != len(want) || s.NumFree() != ref.NumFree() || !slices.Equal(s.free, ref.free) {
			t.Fatalf("%d nodes, %d words: took %d, %d free, Take of the list %d, %d free", n, len(set), k, s.NumFree(), len(want), ref.NumFree())
		}
		var got []int
		for w, x := range taken {
			for ; x != 0; x &= x - 1 {
				got = append(got, w<<6+bits.TrailingZeros64(x))
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%d nodes: taken %v, want %v", n, got, want)
		}
		after := s.Clone()
		if v := rng.IntN(n); s.IsFree(v) && v>>6 < len(taken) { // a free node among them: refused
			bad := slices.Clone(taken)
			bad[v>>6] |= 1 << (v & 63)
			if err := s.ReleaseIn(bad); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("node %d is not busy", v)) ||
				!slices.Equal(s.free, after.free) || s.NumFree() != after.NumFree() {
				t.Fatalf("%d nodes: ReleaseIn with free node %d: %v, state changed %v", n, v, err, !slices.Equal(s.free, after.free))
			}
		}
		if len(taken) > n>>6 { // a node past the last (in the last word or after): refused
			bad := slices.Clone(taken)
			if n&63 != 0 {
				bad[(n-1)>>6] |= 1 << (n & 63)
			} else {
				bad[n>>6] |= 1
			}
			if err := s.ReleaseIn(bad); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("node %d is outside", n)) ||
				!slices.Equal(s.free, after.free) {
				t.Fatalf("%d nodes, %d words: ReleaseIn with node %d: %v", n, len(bad), n, err)
			}
		}
		if err := s.ReleaseIn(taken); err != nil || !slices.Equal(s.free, before.free) || s.NumFree() != before.NumFree() {
			t.Fatalf("%d nodes: ReleaseIn of the nodes taken: %v, the state not as before", n, err)
		}
	}
}
