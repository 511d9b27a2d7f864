package alloc

import (
	"errors"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/topo"
)

var treeMachines = []string{"mesh:16x16:io=left", "mesh:8x4", "mesh:4x8:io=top", "mesh:8x8:io=right", "mesh:4x4:io=bottom"}

var treeSpecs = []string{"bt", "sbt:4", "sbt:0", "sbt:16", "dbt:1/4", "dbt:1/16", "dbt:1", "ind-bt", "ind-sbt:16", "ind-dbt:1/2",
	"d-bt", "d-sbt:16", "d-dbt:1/4", "scbt", "plas"}

// refTree recomputes, from the busy set alone, what the tree allocators decide: the
// free count of every tree node by scanning its cells, the wholly free blocks, and
// the descent of bt, sbt and dbt without the incremental bookkeeping of BinaryTree.
type refTree struct {
	t    *divTree
	busy []bool
	rule treeRule
}

func (r *refTree) freeIn(i int) int {
	c := 0
	for _, v := range r.t.cells(i, nil) {
		if !r.busy[v] {
			c++
		}
	}
	return c
}

// holds reports whether subtree i contains a wholly free node of area A.
func (r *refTree) holds(i, A int) bool {
	if r.t.area(i) < A {
		return false
	}
	if r.t.area(i) == A {
		return r.freeIn(i) == A
	}
	return r.holds(2*i, A) || r.holds(2*i+1, A)
}

// find is the paper's descent with backtracking: try the preferred child, and the
// other one when the preferred one fails.
func (r *refTree) find(i, A int) int {
	if r.t.area(i) == A {
		if r.freeIn(i) == A {
			return i
		}
		return 0
	}
	if r.t.area(i) < A {
		return 0
	}
	l, rr := 2*i, 2*i+1
	first, second := l, rr
	if r.rule.kind != 'b' && r.holds(l, A) && r.holds(rr, A) {
		fl, fr := r.freeIn(l), r.freeIn(rr)
		heavy, light := l, rr
		if fr < fl {
			heavy, light = rr, l
		}
		tol := float64(r.rule.alpha)
		if r.rule.kind == 'd' {
			tol = r.rule.ratio * float64(r.t.area(i))
		}
		imb := r.freeIn(heavy) - A - r.freeIn(light)
		if float64(max(imb, -imb)) <= tol {
			first, second = heavy, light
		} else {
			first, second = light, heavy
		}
	}
	if b := r.find(first, A); b != 0 {
		return b
	}
	return r.find(second, A)
}

// TestTreeAllocatorsContract replays random allocate/release sequences on every tree
// allocator: k distinct free nodes, release restores the count, contiguous ones
// reserve exactly the block of the next power of two and refuse only when no such
// block is free (ErrFragmented), non-contiguous ones never refuse with k free, and
// every decision of bt, sbt and dbt (and the first block of the others) equals the
// reference descent recomputed from the busy set.
func TestTreeAllocatorsContract(t *testing.T) {
	for _, ms := range treeMachines {
		m, err := topo.ParseSpec(ms)
		if err != nil {
			t.Fatal(err)
		}
		for si, spec := range treeSpecs {
			a, err := Parse(spec, m, Options{})
			if err != nil {
				t.Fatalf("%s on %s: %v", spec, ms, err)
			}
			bt, isTree := treeOf(a)
			n := m.N()
			busy := make([]bool, n) // nodes given to jobs
			used := make([]bool, n) // nodes given or reserved (the allocator's busy set)
			var ref *refTree
			if isTree {
				ref = &refTree{t: bt.t, busy: used, rule: bt.rule}
			}
			rng := rand.New(rand.NewPCG(uint64(si), uint64(n)))
			var jobs [][]int
			var reserved [][]int
			refused := 0
			for step := range 400 {
				if len(jobs) > 0 && rng.IntN(5) < 2 {
					j := rng.IntN(len(jobs))
					before := a.NumFree()
					if err := a.Release(jobs[j]); err != nil {
						t.Fatalf("%s %s step %d: release: %v", spec, ms, step, err)
					}
					for _, v := range jobs[j] {
						busy[v] = false
					}
					for _, v := range reserved[j] {
						used[v] = false
					}
					if a.NumFree() != before+len(reserved[j]) {
						t.Fatalf("%s %s step %d: release of %d reserved nodes took free from %d to %d", spec, ms, step, len(reserved[j]), before, a.NumFree())
					}
					jobs = slices.Delete(jobs, j, j+1)
					reserved = slices.Delete(reserved, j, j+1)
					continue
				}
				nf := a.NumFree()
				if nf == 0 {
					continue
				}
				k := 1 + rng.IntN(min(nf, 1+n/4))
				A := 1 << bits.Len(uint(k-1))
				var want int
				if isTree {
					first := A
					if bt.mode != contiguous {
						first = 1 << (bits.Len(uint(k)) - 1)
					}
					want = ref.find(1, first)
					for want == 0 && bt.mode != contiguous {
						first /= 2 // no block of the sub-task's size: it splits
						want = ref.find(1, first)
					}
				}
				got, err := a.Allocate(k)
				if err != nil {
					if isTree && bt.mode == contiguous && errors.Is(err, ErrFragmented) {
						if want != 0 {
							t.Fatalf("%s %s step %d: refused %d but block %d is free", spec, ms, step, k, want)
						}
						if a.NumFree() != nf {
							t.Fatalf("%s: a refusal changed the free count", spec)
						}
						refused++
						continue
					}
					t.Fatalf("%s %s step %d: allocate %d of %d free: %v", spec, ms, step, k, nf, err)
				}
				if len(got) != k {
					t.Fatalf("%s: %d nodes for %d", spec, len(got), k)
				}
				for _, v := range got {
					if v < 0 || v >= n || used[v] {
						t.Fatalf("%s %s step %d: node %d busy or out of range", spec, ms, step, v)
					}
					busy[v], used[v] = true, true
				}
				res := got
				if isTree {
					b := bt.block[got[0]]
					if bt.mode == contiguous {
						if int(b) != want {
							t.Fatalf("%s %s step %d: block %d, reference %d", spec, ms, step, b, want)
						}
						res = bt.t.cells(int(b), nil)
						if len(res) != A || !slices.Equal(res[:k], got) {
							t.Fatalf("%s %s step %d: nodes %v are not the first %d of block %d in fill order", spec, ms, step, got, k, b)
						}
						for _, v := range res {
							used[v] = true
						}
					} else if int(b) != want {
						t.Fatalf("%s %s step %d: first block %d, reference %d", spec, ms, step, b, want)
					}
				}
				if a.NumFree() != nf-len(res) {
					t.Fatalf("%s %s step %d: free %d, want %d", spec, ms, step, a.NumFree(), nf-len(res))
				}
				jobs = append(jobs, got)
				reserved = append(reserved, res)
			}
			for len(jobs) > 0 {
				if err := a.Release(jobs[0]); err != nil {
					t.Fatal(err)
				}
				jobs = jobs[1:]
			}
			if a.NumFree() != n {
				t.Fatalf("%s %s: %d free after releasing everything", spec, ms, a.NumFree())
			}
			t.Logf("%s on %s: %d refusals for fragmentation", spec, ms, refused)
		}
	}
}

func TestTreeReleaseErrors(t *testing.T) {
	m, _ := topo.ParseSpec("mesh:4x4:io=left")
	a, _ := Parse("bt", m, Options{})
	got, _ := a.Allocate(3) // a block of 4, one node reserved
	bt := a.(*BinaryTree)
	reservedNode := bt.t.cells(int(bt.block[got[0]]), nil)[3]
	for _, bad := range [][]int{{got[0], got[0]}, {reservedNode}, {got[0], 99}, {-1}} {
		if err := a.Release(bad); err == nil {
			t.Errorf("release %v accepted", bad)
		}
		if a.NumFree() != 12 {
			t.Fatalf("a rejected release changed the state: %d free", a.NumFree())
		}
	}
	if err := a.Release(got[:1]); err != nil || a.NumFree() != 12 {
		t.Fatalf("partial release: %v, %d free (the block stays until all its nodes return)", err, a.NumFree())
	}
	if err := a.Release(got[1:]); err != nil || a.NumFree() != 16 {
		t.Fatalf("rest of the release: %v, %d free", err, a.NumFree())
	}
}

// TestTreeLayoutChoices pins the documented choices: which half is "left", the
// column-first fill facing the I/O side, and what the tolerance does.
func TestTreeLayoutChoices(t *testing.T) {
	alloc := func(spec, machine string, ks ...int) [][]int {
		m, err := topo.ParseSpec(machine)
		if err != nil {
			t.Fatal(err)
		}
		a, err := Parse(spec, m, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var out [][]int
		for _, k := range ks {
			got, err := a.Allocate(k)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, got)
		}
		return out
	}
	// io=left on 4x4: the square is cut vertically into two tall 2x4 halves, the
	// left one (x 0-1) first, then across y; a block of 4 is the 2x2 at the origin,
	// filled column-first from x = 0: (0,0), (0,1), then (1,0).
	if got := alloc("bt", "mesh:4x4:io=left", 3)[0]; !slices.Equal(got, []int{0, 4, 1}) {
		t.Errorf("bt io=left: %v", got)
	}
	// io=right: the right half first, filled from x = 3.
	if got := alloc("bt", "mesh:4x4:io=right", 3)[0]; !slices.Equal(got, []int{3, 7, 2}) {
		t.Errorf("bt io=right: %v", got)
	}
	// io=top: cut horizontally, the top half first, row by row from y = 3.
	if got := alloc("bt", "mesh:4x4:io=top", 3)[0]; !slices.Equal(got, []int{12, 13, 8}) {
		t.Errorf("bt io=top: %v", got)
	}
	// bt packs both jobs of 4 into the left half of an 8x8; sbt:0 (no tolerance)
	// balances: at the root, taking 4 from either half leaves |28 - 32| = 4 > 0, so
	// the first job goes to the lighter (right, on the tie) half, the second to the
	// then lighter left half.
	half := func(v int) int { return v % 8 / 4 }
	if got := alloc("bt", "mesh:8x8:io=left", 4, 4); half(got[0][0]) != 0 || half(got[1][0]) != 0 {
		t.Errorf("bt: jobs at x=%d and x=%d, want both in the left half", got[0][0]%8, got[1][0]%8)
	}
	if got := alloc("sbt:0", "mesh:8x8:io=left", 4, 4); half(got[0][0]) == half(got[1][0]) {
		t.Errorf("sbt:0: jobs at x=%d and x=%d, want different halves", got[0][0]%8, got[1][0]%8)
	}
	// sbt with a large tolerance packs like bt.
	if got := alloc("sbt:64", "mesh:8x8:io=left", 4, 4); half(got[0][0]) != 0 || half(got[1][0]) != 0 {
		t.Errorf("sbt:64: jobs at x=%d and x=%d, want both in the left half", got[0][0]%8, got[1][0]%8)
	}
	// Independent against dependent: leaves 0-2 taken by three jobs of one, the
	// first released; a job of 3 = 2 + 1 gets leaves 4-5 for its 2 (the first free
	// pair), then its 1 at the first free leaf (0) when independent, and below the
	// parent of the pair (leaves 4-7: leaf 6) when dependent. No node is reserved.
	m, _ := topo.ParseSpec("mesh:4x4:io=left")
	for _, tc := range []struct {
		spec string
		leaf int
	}{{"ind-bt", 0}, {"d-bt", 6}} {
		a, _ := Parse(tc.spec, m, Options{})
		first, _ := a.Allocate(1)
		a.Allocate(1)
		a.Allocate(1)
		a.Release(first)
		got, _ := a.Allocate(3)
		bt, _ := treeOf(a)
		lo := bt.t.leafOrder
		if !slices.Equal(got, []int{lo[4], lo[5], lo[tc.leaf]}) || a.NumFree() != 11 {
			t.Errorf("%s: %v (%d free), want leaves 4, 5, %d = %v", tc.spec, got, a.NumFree(), tc.leaf, []int{lo[4], lo[5], lo[tc.leaf]})
		}
	}
}

func TestTreeBadInput(t *testing.T) {
	for _, tc := range []struct{ spec, machine, want string }{
		{"bt", "mesh:12x16", "2^m x 2^n"},
		{"d-dbt:1/4", "mesh:16x16x2", "2D mesh"},
		{"scbt", "torus:8x8", "2D mesh"},
		{"bt:3", "mesh:8x8", "no argument"},
		{"sbt", "mesh:8x8", "0..64"},
		{"sbt:-1", "mesh:8x8", "0..64"},
		{"sbt:65", "mesh:8x8", "0..64"},
		{"sbt:1.5", "mesh:8x8", "0..64"},
		{"dbt:2", "mesh:8x8", "between 0 and 1"},
		{"dbt:-1/4", "mesh:8x8", "between 0 and 1"},
		{"dbt:1/0", "mesh:8x8", "Q > 0"},
		{"dbt:NaN", "mesh:8x8", "between 0 and 1"},
		{"ind-dbt:x", "mesh:8x8", "fraction"},
		{"plas", "mesh:4x4x4", "2D mesh"},
	} {
		m, err := topo.ParseSpec(tc.machine)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Parse(tc.spec, m, Options{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s on %s: %v, want an error containing %q", tc.spec, tc.machine, err, tc.want)
		}
	}
}

// TestPLASLayout: on an empty 16x16 with I/O on the left, a job of 16 takes column 0;
// a job of 2 takes the two middle rows of column 0.
func TestPLASLayout(t *testing.T) {
	m, _ := topo.ParseSpec("mesh:16x16:io=left")
	a, _ := Parse("plas", m, Options{})
	got, _ := a.Allocate(2)
	if !slices.Equal(got, []int{7 * 16, 8 * 16}) {
		t.Errorf("plas 2 = %v, want rows 7 and 8 of column 0", got)
	}
	got, _ = a.Allocate(14)
	for _, v := range got {
		if v%16 != 0 {
			t.Fatalf("plas 14 after 2 = %v: not all in column 0", got)
		}
	}
	m, _ = topo.ParseSpec("mesh:8x4:io=top")
	a, _ = Parse("plas", m, Options{})
	if got, _ := a.Allocate(8); !slices.Equal(slices.Sorted(slices.Values(got)), []int{24, 25, 26, 27, 28, 29, 30, 31}) {
		t.Errorf("plas io=top 8 = %v, want the top row", got)
	}
}

// FuzzBinaryTree drives a tree allocator on a small 2^m x 2^n mesh with an operation
// sequence (byte 0: sides, byte 1: variant and I/O side, then one byte per operation:
// high bit set ends a job, else allocate 1 + b mod free) and checks every contiguous
// decision against the reference descent, every allocation for distinct nodes that
// were free, and the free count after every step.
func FuzzBinaryTree(f *testing.F) {
	f.Add([]byte{0x21, 0, 3, 5, 0x80, 2, 7, 0x81, 1})
	f.Add([]byte{0x12, 7, 9, 8, 8, 0x81, 0x80, 12, 3, 3})
	f.Add([]byte{0x22, 13, 1, 2, 3, 4, 5, 0x83, 0x80, 20, 0x82, 7, 7})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 2 {
			return
		}
		w, h := 1<<(int(data[0]&0xf)%4), 1<<(int(data[0]>>4)%4)
		specs := []string{"bt", "sbt:2", "sbt:0", "dbt:1/4", "dbt:1", "ind-bt", "ind-sbt:3", "d-bt", "d-dbt:1/2", "d-sbt:1"}
		spec := specs[int(data[1])%len(specs)]
		sides := []string{"", ":io=left", ":io=right", ":io=top", ":io=bottom"}
		m, err := topo.ParseSpec("mesh:" + itoa(w) + "x" + itoa(h) + sides[int(data[1]>>4)%len(sides)])
		if err != nil {
			t.Fatal(err)
		}
		a, err := Parse(spec, m, Options{})
		if err != nil {
			if strings.Contains(err.Error(), "0..") { // sbt tolerance above a tiny mesh's size
				return
			}
			t.Fatal(err)
		}
		bt, _ := treeOf(a)
		used := make([]bool, m.N())
		ref := &refTree{t: bt.t, busy: used, rule: bt.rule}
		runOps(t, a, data[2:], func(k int) []int {
			want := 0
			if bt.mode == contiguous {
				want = ref.find(1, 1<<bits.Len(uint(k-1)))
			}
			got, err := a.Allocate(k)
			if errors.Is(err, ErrFragmented) && bt.mode == contiguous && want == 0 {
				return nil
			}
			if err != nil {
				t.Fatalf("%s on %s: allocate %d of %d: %v", spec, m.Spec(), k, a.NumFree(), err)
			}
			if bt.mode == contiguous && int(bt.block[got[0]]) != want {
				t.Fatalf("%s: block %d, reference %d", spec, bt.block[got[0]], want)
			}
			seen := map[int]bool{}
			for _, v := range got {
				if seen[v] || used[v] {
					t.Fatalf("%s: node %d repeated or busy", spec, v)
				}
				seen[v] = true
			}
			return got
		}, func() {
			for v := range used {
				used[v] = !bt.st.IsFree(v)
			}
			busy := 0
			for _, u := range used {
				if u {
					busy++
				}
			}
			if a.NumFree() != m.N()-busy {
				t.Fatalf("%s: NumFree %d, busy %d of %d", spec, a.NumFree(), busy, m.N())
			}
		})
	})
}

// treeOf returns the BinaryTree of a binary-tree allocator (bt, ind-bt, ...).
func treeOf(a Allocator) (*BinaryTree, bool) {
	switch t := a.(type) {
	case *BinaryTree:
		return t, true
	case *subTaskTree:
		return t.BinaryTree, true
	}
	return nil, false
}
