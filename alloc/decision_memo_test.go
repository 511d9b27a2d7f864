package alloc

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/procalloc/procalloc/topo"
)

// An allocator that remembers its decisions answers every request as one that
// searches each time: on meshes and a torus, under both conventions, along random
// sequences that return to earlier states (a job ended and asked for again).
func TestDecisionMemoAnswersAsSearched(t *testing.T) {
	for _, m := range []topo.Machine{topo.Mesh(8, 8), topo.Mesh(7, 5), topo.Torus(6, 5)} {
		for _, name := range []string{"mm", "genalg", "mminc"} {
			for _, compat := range []Compat{CompatDefault, CompatPReMAS} {
				memo, err := newPTASAlloc(name, "", m, Options{Compat: compat})
				if err != nil {
					t.Fatal(err)
				}
				ref, _ := newPTASAlloc(name, "", m, Options{Compat: compat})
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
					if _, ok := a.seen.lookup(k, a.st); ok {
						hits++
					}
					got, err := a.Allocate(k)
					if err != nil {
						t.Fatal(err)
					}
					b.seen = decisionMemo{} // searches every time
					want, err := b.Allocate(k)
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
		if _, ok := d.lookup(k, st); ok {
			t.Fatalf("k = %d found before it was stored", k)
		}
		d.store(nodes)
		if d.bytes > decisionMemoBytes {
			t.Fatalf("memo holds %d bytes, bound %d", d.bytes, decisionMemoBytes)
		}
	}
	if _, ok := d.lookup(1, st); ok {
		t.Error("the first answer survived the memo's restart")
	}
}
