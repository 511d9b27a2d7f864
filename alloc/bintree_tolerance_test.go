package alloc

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/procalloc/procalloc/topo"
)

// treeRun drives allocators a and b through the same requests and releases and
// reports the first step at which they answer differently (-1 if never).
type treeRun struct {
	a, b Allocator
	jobs [][]int
	step int
}

// allocate offers k to both; it reports whether they agreed, and keeps the job.
func (r *treeRun) allocate(k int) (agree, ok bool) {
	r.step++
	x, e1 := r.a.Allocate(k)
	y, e2 := r.b.Allocate(k)
	if (e1 == nil) != (e2 == nil) || !slices.Equal(x, y) {
		return false, false
	}
	if e1 != nil {
		return true, false
	}
	r.jobs = append(r.jobs, x)
	return true, true
}

func (r *treeRun) release(t *testing.T, j int) {
	t.Helper()
	if err := r.a.Release(r.jobs[j]); err != nil {
		t.Fatal(err)
	}
	if err := r.b.Release(r.jobs[j]); err != nil {
		t.Fatal(err)
	}
	r.jobs = slices.Delete(r.jobs, j, j+1)
}

func newTreeRun(t *testing.T, m topo.Machine, a, b string) *treeRun {
	t.Helper()
	x, err := Parse(a, m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	y, err := Parse(b, m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return &treeRun{a: x, b: y}
}

// TestTreeToleranceNoLimit: the imbalance between two children of a node of size S
// after taking a block from the heavier one is at most S/2 (the lighter child's free
// count, at most S/2, minus the heavier one's after the block, at least 0), so a
// tolerance of at least S/2 never rejects the heavier child: dbt:1/2, dbt:1 and
// sbt:ALPHA with ALPHA >= N/2 are one allocator ("always the heavier child, the left
// one on ties") on every sequence of requests and releases (docs/io.md,
// "Which labels coincide").
func TestTreeToleranceNoLimit(t *testing.T) {
	for _, ms := range treeMachines {
		m, err := topo.ParseSpec(ms)
		if err != nil {
			t.Fatal(err)
		}
		n := m.N()
		for _, mode := range []string{"", "ind-", "d-"} {
			for _, other := range []string{"dbt:1", "sbt:" + strconv.Itoa(n/2), "sbt:" + strconv.Itoa(n)} {
				r := newTreeRun(t, m, mode+"dbt:1/2", mode+other)
				rng := rand.New(rand.NewPCG(uint64(n), uint64(len(other))))
				for range 600 {
					if len(r.jobs) > 0 && rng.IntN(5) < 2 {
						r.release(t, rng.IntN(len(r.jobs)))
						continue
					}
					if agree, _ := r.allocate(1 + rng.IntN(1+n/4)); !agree {
						t.Fatalf("%s: %sdbt:1/2 and %s%s differ at step %d", ms, mode, mode, other, r.step)
					}
				}
			}
		}
		// Just below S/2 at the root, the tolerance can reject the heavier child.
		r := newTreeRun(t, m, "dbt:1/2", "sbt:"+strconv.Itoa(n/2-1))
		differ := false
		rng := rand.New(rand.NewPCG(3, uint64(n)))
		for range 600 {
			if len(r.jobs) > 0 && rng.IntN(5) < 2 {
				r.release(t, rng.IntN(len(r.jobs)))
				continue
			}
			if agree, _ := r.allocate(1 + rng.IntN(1+n/4)); !agree {
				differ = true
				break
			}
		}
		if !differ {
			t.Errorf("%s: dbt:1/2 and sbt:%d never differed", ms, n/2-1)
		}
	}
}

// TestTreeHeavyIsLeftInBatches: "always the heavier child" (dbt:1/2) and "always the
// left child" (bt) choose the same blocks
//   - from an empty machine without releases: leftmost allocation keeps every left
//     child at least as loaded as its right sibling whenever both hold a free block
//     of the size asked for (ties go left);
//   - under the batch's list scheduling (sim.Batch): after one job's release, the
//     waiting requests are offered in order; each waited because no block of its size
//     was free, so every block it can take lies in the free subtree that the release
//     created, where the first property applies again;
//
// and they differ when two jobs are released before the next request: with the two
// left blocks of 4 of a 4x4 mesh freed and the right half half full, bt returns to
// the first block and dbt:1/2 takes the last one.
func TestTreeHeavyIsLeftInBatches(t *testing.T) {
	for _, ms := range treeMachines {
		m, err := topo.ParseSpec(ms)
		if err != nil {
			t.Fatal(err)
		}
		n := m.N()
		rng := rand.New(rand.NewPCG(7, uint64(n)))
		for seq := range 200 {
			r := newTreeRun(t, m, "bt", "dbt:1/2")
			for range 30 {
				if agree, _ := r.allocate(1 + rng.IntN(1+n/4)); !agree {
					t.Fatalf("%s sequence %d without releases: bt and dbt:1/2 differ at step %d", ms, seq, r.step)
				}
			}
		}
		for seq := range 200 {
			r := newTreeRun(t, m, "bt", "dbt:1/2")
			var waiting []int
			for range n / 8 {
				waiting = append(waiting, 1+int(rng.ExpFloat64()*float64(n)/16))
			}
			offer := func() {
				for i := 0; i < len(waiting); {
					k := min(waiting[i], n)
					agree, ok := r.allocate(k)
					if !agree {
						t.Fatalf("%s batch sequence %d: bt and dbt:1/2 differ at step %d", ms, seq, r.step)
					}
					if ok {
						waiting = slices.Delete(waiting, i, i+1)
					} else {
						i++
					}
				}
			}
			offer()
			for len(r.jobs) > 0 {
				r.release(t, rng.IntN(len(r.jobs)))
				offer()
			}
		}
	}
	m := topo.Mesh(4, 4)
	r := newTreeRun(t, m, "bt", "dbt:1/2")
	for range 3 {
		if agree, ok := r.allocate(4); !agree || !ok {
			t.Fatal("three blocks of 4 on an empty 4x4")
		}
	}
	r.release(t, 0)
	r.release(t, 0)
	x, err1 := r.a.Allocate(4)
	y, err2 := r.b.Allocate(4)
	if err := errors.Join(err1, err2); err != nil {
		t.Fatal(err)
	}
	if slices.Equal(x, y) {
		t.Errorf("after two releases bt and dbt:1/2 both took %v", x)
	}
	if x[0] != 0 || y[0] != 10 {
		t.Errorf("after two releases: bt took %v (want the block at 0), dbt:1/2 %v (want the block at 10)", x, y)
	}
}
