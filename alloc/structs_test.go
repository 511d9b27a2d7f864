package alloc

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestBitTree(t *testing.T) {
	for _, n := range []int{1, 2, 63, 64, 65, 4096, 4097, 300000} {
		rng := rand.New(rand.NewPCG(uint64(n), 2))
		bt := newBitTree(n)
		ref := make([]bool, n)
		steps := 3000
		for s := 0; s < steps; s++ {
			i := rng.IntN(n)
			if op := rng.IntN(7); op < 2 {
				bt.remove(i)
				ref[i] = false
			} else if op == 2 {
				// removeRange over a short or a long range, sometimes empty.
				hi := min(n, i+rng.IntN(1+[]int{3, 70, 5000}[rng.IntN(3)]))
				bt.removeRange(i, hi)
				for j := i; j < hi; j++ {
					ref[j] = false
				}
			} else {
				bt.add(i)
				ref[i] = true
			}
			q := rng.IntN(n+2) - 1
			wantNext, wantPrev := -1, -1
			for j := max(q, 0); j < n; j++ {
				if ref[j] {
					wantNext = j
					break
				}
			}
			for j := min(q, n-1); j >= 0; j-- {
				if ref[j] {
					wantPrev = j
					break
				}
			}
			if got := bt.next(q); got != wantNext {
				t.Fatalf("n=%d next(%d) = %d, want %d", n, q, got, wantNext)
			}
			if got := bt.prev(q); got != wantPrev {
				t.Fatalf("n=%d prev(%d) = %d, want %d", n, q, got, wantPrev)
			}
			if bt.has(i) != ref[i] {
				t.Fatalf("n=%d has(%d) wrong", n, i)
			}
		}
	}
}

func TestMaxTree(t *testing.T) {
	for _, n := range []int{1, 5, 64, 100} {
		rng := rand.New(rand.NewPCG(uint64(n), 3))
		mt := newMaxTree(n)
		ref := make([]int32, n)
		for s := 0; s < 2000; s++ {
			i, v := rng.IntN(n), int32(rng.IntN(20))
			mt.set(i, v)
			ref[i] = v
			k := int32(1 + rng.IntN(21))
			want := -1
			for j, x := range ref {
				if x >= k {
					want = j
					break
				}
			}
			if got := mt.leftmostAtLeast(k); got != want {
				t.Fatalf("n=%d leftmostAtLeast(%d) = %d, want %d (%v)", n, k, got, want, ref)
			}
		}
	}
}

func TestTreap(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	tr := newTreap()
	ref := map[uint64]bool{}
	for s := 0; s < 20000; s++ {
		k := uint64(rng.IntN(500))
		if ref[k] {
			if !tr.delete(k) {
				t.Fatalf("delete(%d) missed", k)
			}
			delete(ref, k)
		} else {
			tr.insert(k)
			ref[k] = true
		}
		if tr.delete(1000) {
			t.Fatal("deleted an absent key")
		}
		q := uint64(rng.IntN(510))
		keys := make([]uint64, 0, len(ref))
		for x := range ref {
			keys = append(keys, x)
		}
		slices.Sort(keys)
		i, _ := slices.BinarySearch(keys, q)
		got, ok := tr.ceil(q)
		if (i < len(keys)) != ok || (ok && got != keys[i]) {
			t.Fatalf("ceil(%d) = %d,%v", q, got, ok)
		}
		if tr.len() != len(ref) {
			t.Fatalf("len %d, want %d", tr.len(), len(ref))
		}
	}
}

// len returns the number of keys (for tests).
func (t *treap) len() int { return len(t.key) - 1 - len(t.freeNodes) }

// len returns the number of intervals held (for tests).
func (x *sizeIndex) len() int {
	c := x.large.len()
	for l := 1; l <= smallLen; l++ {
		if x.small[l] != nil {
			for s := x.small[l].next(0); s >= 0; s = x.small[l].next(s + 1) {
				c++
			}
		}
	}
	return c
}
