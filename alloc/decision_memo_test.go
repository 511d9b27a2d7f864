package alloc

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/topo"
)

// An allocator that remembers its decisions answers every request as one that
// searches each time (Options.NoMemo): on meshes and a torus, under both conventions, along random
// sequences that return to earlier states (a job ended and asked for again).
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
				r := rand.New(rand.NewPCG(uint64(m.N()), uint64(len(compat))))
				var jobs [][]int
				hits := 0
				for range 400 {
					if len(jobs) > 0 && (a.NumFree() == 0 || r.IntN(2) == 0) {
						j := r.IntN(len(jobs))
						if err := a.Release(jobs[j]); err != nil {
							t.Fatal(err)
						}
						if err := b.Release(jobs[j]); err != nil {
							t.Fatal(err)
						}
						jobs = slices.Delete(jobs, j, j+1)
						continue
					}
					k := 1 + r.IntN(min(a.NumFree(), 12))
					if _, _, ok := a.seen.lookup(k, false, a.st); ok {
						hits++
					}
					got, err := a.Allocate(k)
					if err != nil {
						t.Fatal(err)
					}
					want, err := b.Allocate(k) // searches every time
					if err != nil {
						t.Fatal(err)
					}
					if !slices.Equal(got, want) {
						t.Fatalf("%s %q on %s: allocate %d: remembered %v, searched %v", name, compat, m.Spec(), k, got, want)
					}
					jobs = append(jobs, got)
					if r.IntN(3) == 0 { // end it at once: the next request may meet this state again
						a.Release(got)
						b.Release(got)
						jobs = jobs[:len(jobs)-1]
					}
				}
				if hits == 0 {
					t.Errorf("%s %q on %s: no decision was remembered", name, compat, m.Spec())
				}
				if len(b.seen.m) != 0 {
					t.Errorf("%s %q on %s: NoMemo remembered %d decisions", name, compat, m.Spec(), len(b.seen.m))
				}
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
				r := rand.New(rand.NewPCG(uint64(m.N()), 7))
				var jobs [][]int
				hits := 0
				for range 300 {
					if len(jobs) > 0 && (a.NumFree() == 0 || r.IntN(2) == 0) {
						j := r.IntN(len(jobs))
						if err := a.Release(jobs[j]); err != nil {
							t.Fatal(err)
						}
						if err := b.Release(jobs[j]); err != nil {
							t.Fatal(err)
						}
						jobs = slices.Delete(jobs, j, j+1)
						continue
					}
					k := 1 + r.IntN(min(a.NumFree(), 12))
					if _, _, ok := a.seen.lookup(k, count, a.st); ok {
						hits++
					}
					got, err := a.Allocate(k)
					if err != nil {
						t.Fatal(err)
					}
					want, err := b.Allocate(k)
					if err != nil {
						t.Fatal(err)
					}
					if !slices.Equal(got, want) || a.LastTies() != b.LastTies() || a.TieStats() != b.TieStats() {
						t.Fatalf("%s %q greedy %v ties %v: allocate %d: remembered %v (ties %d, %+v), searched %v (ties %d, %+v)",
							m.Spec(), spec.arg, spec.greedy, count, k, got, a.LastTies(), a.TieStats(), want, b.LastTies(), b.TieStats())
					}
					jobs = append(jobs, got)
					if r.IntN(3) == 0 {
						a.Release(got)
						b.Release(got)
						jobs = jobs[:len(jobs)-1]
					}
				}
				if hits == 0 {
					t.Errorf("%s %q greedy %v: no decision was remembered", m.Spec(), spec.arg, spec.greedy)
				}
				if len(b.seen.m) != 0 {
					t.Errorf("%s %q greedy %v: NoMemo remembered %d decisions", m.Spec(), spec.arg, spec.greedy, len(b.seen.m))
				}
			}
		}
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
		runOps(t, releaseBoth{a, b}, data[2:], func(k int) []int {
			got, err := a.Allocate(k)
			if err != nil {
				t.Fatal(err)
			}
			want, err := b.Allocate(k)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("%s:%s on %s: allocate %d: remembered %v, searched %v", s.name, s.arg, m.Spec(), k, got, want)
			}
			if ta, ok := a.(TieReporter); ok {
				tb := b.(TieReporter)
				if ta.LastTies() != tb.LastTies() || ta.TieStats() != tb.TieStats() {
					t.Fatalf("%s:%s: allocate %d: ties %d %+v, searched %d %+v", s.name, s.arg, k, ta.LastTies(), ta.TieStats(), tb.LastTies(), tb.TieStats())
				}
			}
			return got
		}, func() {})
	})
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
