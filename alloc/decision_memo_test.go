package alloc

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/topo"
)

// An allocator that remembers its decisions answers every request as one that
// searches each time (Options.NoMemo): on meshes and a torus, under both
// conventions, along random sequences that return to earlier states.
func TestDecisionMemoAnswersAsSearched(t *testing.T) {
	for _, m := range []topo.Machine{topo.Mesh(8, 8), topo.Mesh(7, 5), topo.Torus(6, 5)} {
		for _, name := range []string{"mm", "genalg", "mminc"} {
			for _, compat := range []Compat{CompatDefault, CompatPReMAS} {
				memo, err := newPTASAlloc(name, "", m, Options{Compat: compat})
				if err != nil {
					t.Fatal(err)
				}
				ref, _ := newPTASAlloc(name, "", m, Options{Compat: compat, NoMemo: true})
				a, b := memo.(*ptasAlloc), ref.(*ptasAlloc)
				what := fmt.Sprintf("%s %q on %s", name, compat, m.Spec())
				remembered := func(k int) bool { _, _, ok := a.seen.lookup(k, false, a.st); return ok }
				checkTwins(t, what, a, b, remembered, func() int { return len(b.seen.m) }, uint64(m.N()+len(compat)))
			}
		}
	}
}

// The same for MC1x1, with and without tie-breaking and the greedy collector, tie
// counting on and off: the nodes, the tie count of each decision and the tie
// statistics.
func TestDecisionMemoMC1x1(t *testing.T) {
	for _, m := range []topo.Machine{topo.Mesh(8, 8), topo.Torus(6, 5), topo.Mesh(4, 3, 3)} {
		for _, spec := range []struct {
			arg    string
			greedy bool
		}{{"", false}, {"tb=3,9,3,2", false}, {"", true}} {
			for _, count := range []bool{true, false} {
				memo, err := newMC1x1("mc1x1", spec.arg, m, Options{}, spec.greedy)
				if err != nil {
					t.Fatal(err)
				}
				ref, _ := newMC1x1("mc1x1", spec.arg, m, Options{NoMemo: true}, spec.greedy)
				a, b := memo.(*mc1x1), ref.(*mc1x1)
				a.CountTies(count)
				b.CountTies(count)
				what := fmt.Sprintf("%s %q greedy %v ties %v", m.Spec(), spec.arg, spec.greedy, count)
				remembered := func(k int) bool { _, _, ok := a.seen.lookup(k, count, a.st); return ok }
				checkTwins(t, what, a, b, remembered, func() int { return len(b.seen.m) }, uint64(m.N()))
			}
		}
	}
}

// checkTwins drives a, which remembers its decisions, and b, which does not, through
// one random sequence of 300 allocations, Occupy calls (Occupiers) and releases
// that often returns to an earlier state (a job ended at once, the next request
// meeting its free set again),
// and fails at the first answer that differs: the nodes, and for a TieReporter the
// tie count and statistics. remembered(k) tells whether a has met the request
// before; some requests must be; bMemo counts the decisions b remembered (none).
func checkTwins(t *testing.T, what string, a, b Allocator, remembered func(k int) bool, bMemo func() int, seed uint64) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 7))
	release := func(nodes []int) {
		if err := a.Release(nodes); err != nil {
			t.Fatal(err)
		}
		if err := b.Release(nodes); err != nil {
			t.Fatal(err)
		}
	}
	var jobs [][]int
	hits := 0
	for range 300 {
		if len(jobs) > 0 && (a.NumFree() == 0 || r.IntN(2) == 0) {
			j := r.IntN(len(jobs))
			release(jobs[j])
			jobs = slices.Delete(jobs, j, j+1)
			continue
		}
		if oa, ok := a.(Occupier); ok && r.IntN(6) == 0 {
			// nodes kept busy (a partition's outside): both occupy them
			var nodes []int
			for v := range a.Machine().N() {
				if oa.IsFree(v) && r.IntN(4) == 0 {
					nodes = append(nodes, v)
				}
			}
			if err := oa.Occupy(nodes); err != nil {
				t.Fatal(err)
			}
			if err := b.(Occupier).Occupy(nodes); err != nil {
				t.Fatal(err)
			}
			if len(nodes) > 0 {
				jobs = append(jobs, nodes)
			}
			continue
		}
		k := 1 + r.IntN(min(a.NumFree(), 12))
		if remembered(k) {
			hits++
		}
		got := allocateTwins(t, what, a, b, k)
		jobs = append(jobs, got)
		if r.IntN(3) == 0 {
			release(got)
			jobs = jobs[:len(jobs)-1]
		}
	}
	if hits == 0 {
		t.Errorf("%s: no decision was remembered", what)
	}
	if n := bMemo(); n != 0 {
		t.Errorf("%s: NoMemo remembered %d decisions", what, n)
	}
}

// A full memo starts afresh instead of growing past its bound.
func TestDecisionMemoBound(t *testing.T) {
	st := NewState(64)
	var d decisionMemo
	nodes := make([]int, 1000)
	for k := 1; k <= 2*decisionMemoBytes/(4*len(nodes)); k++ {
		if _, _, ok := d.lookup(k, false, st); ok {
			t.Fatalf("k = %d found before it was stored", k)
		}
		d.store(nodes, 0, TieStats{})
		if d.bytes > decisionMemoBytes {
			t.Fatalf("memo holds %d bytes, bound %d", d.bytes, decisionMemoBytes)
		}
	}
	if _, _, ok := d.lookup(1, false, st); ok {
		t.Error("the first answer survived the memo's restart")
	}
}

// FuzzDecisionMemo drives an allocator that remembers its decisions and a twin that
// searches every time (Options.NoMemo) with the fuzzers' operation bytes (runOps):
// every allocation, tie count and the tie statistics must agree. Input: byte 0 picks
// the allocator and conventions, byte 1 the mesh, then the operations.
func FuzzDecisionMemo(f *testing.F) {
	f.Add([]byte{0, 9, 5, 0x80, 5, 0x80, 5, 3, 0x81, 3})
	f.Add([]byte{0, 9, 5, 0x80, 3, 0x80, 5, 0x80, 3}) // one state, two sizes, each met twice
	f.Add([]byte{4, 16, 2, 6, 0x80, 6, 0x81, 4, 0x80, 6, 0x80, 4})
	f.Add([]byte{5, 20, 12, 4, 0x80, 12, 0x80, 12, 7, 0x81, 0x80, 7})
	f.Add([]byte{10, 33, 1, 1, 0x80, 0x80, 1, 1, 2, 0x82, 2})
	specs := []struct {
		name, arg string
		compat    Compat
	}{{"mm", "", CompatPReMAS}, {"mm", "", CompatDefault}, {"genalg", "", CompatPReMAS}, {"mminc", "", CompatPReMAS},
		{"mc1x1", "", CompatPReMAS}, {"mc1x1", "tb=3,9,3,2", CompatPReMAS}, {"mc1x1-greedy", "", CompatPReMAS}}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 2 {
			return
		}
		s := specs[int(data[0])%len(specs)]
		m := topo.Mesh(2+int(data[1])%7, 2+int(data[1]/7)%6)
		mk := func(noMemo bool) Allocator {
			a, err := Parse(strings.TrimSuffix(s.name+":"+s.arg, ":"), m, Options{Compat: s.compat, NoMemo: noMemo})
			if err != nil {
				t.Fatal(err)
			}
			if tr, ok := a.(TieReporter); ok {
				tr.CountTies(true)
			}
			return a
		}
		a, b := mk(false), mk(true)
		what := fmt.Sprintf("%s:%s on %s", s.name, s.arg, m.Spec())
		runOps(t, releaseBoth{a, b}, data[2:], func(k int) []int { return allocateTwins(t, what, a, b, k) }, func() {})
	})
}

// allocateTwins allocates k nodes from a, which remembers its decisions, and from b,
// which does not, and fails unless they answer alike: the nodes, and for a
// TieReporter the tie count and statistics.
func allocateTwins(t *testing.T, what string, a, b Allocator, k int) []int {
	t.Helper()
	got, err := a.Allocate(k)
	if err != nil {
		t.Fatal(err)
	}
	want, err := b.Allocate(k)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("%s: allocate %d: remembered %v, searched %v", what, k, got, want)
	}
	if ta, ok := a.(TieReporter); ok {
		tb := b.(TieReporter)
		if ta.LastTies() != tb.LastTies() || ta.TieStats() != tb.TieStats() {
			t.Fatalf("%s: allocate %d: ties %d %+v, searched %d %+v", what, k, ta.LastTies(), ta.TieStats(), tb.LastTies(), tb.TieStats())
		}
	}
	return got
}

// releaseBoth is a for runOps, with every release done on b too.
type releaseBoth struct {
	Allocator
	b Allocator
}

func (r releaseBoth) Release(nodes []int) error {
	if err := r.Allocator.Release(nodes); err != nil {
		return err
	}
	return r.b.Release(nodes)
}
