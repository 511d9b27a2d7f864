package alloc

import (
	"math/rand/v2"
	"slices"
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
