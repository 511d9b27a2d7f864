package alloc

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/internal/textin"
	"github.com/procalloc/procalloc/topo"
)

// FuzzParse fuzzes --alloc specs (and a sweep file's allocators) on a small mesh,
// torus and fat tree: a refusal quotes the spec (clipped, textin.Clip); an
// accepted allocator is for that machine, its Name reads back to an allocator of
// the same Name, and a few
// allocations and releases driven by the input keep the interface's contract (k
// distinct free nodes in range, at least k fewer free; an error changes nothing,
// and asking for more than are free is ErrNotEnoughFree).
// slurm:tree and slurm:block are refused here (Options without their readers: the
// library never reads a file a spec names).
func FuzzParse(f *testing.F) {
	for _, s := range []string{"bf:hilbert", "ff:hilbert:ring", "paging:hilbert:1", "mc1x1", "mc1x1:tb=3,9,3,2", "mc1x1:tb=1,2", "slurm:consec", "slurm:tree:x.conf",
		"sbt:4", "dbt:1/4", "dbt:0.25", "dbt:1/0", "mbs", "mc", "mm", "mminc", "genalg", "opt", "freelist:snake", "sos:rcm", "as-run", "bf", "bf:", "bf:nope", "plas", "scbt", "ptas:2", ""} {
		f.Add(s, uint8(0), []byte{3, 5, 0x80, 2})
	}
	machines := []string{"mesh:4x4", "torus:3x3x2", "fattree:2,2:4"}
	f.Fuzz(func(t *testing.T, spec string, mi uint8, ops []byte) {
		if len(spec) > 200 || len(ops) > 16 {
			return
		}
		m, err := topo.ParseMachine(machines[int(mi)%len(machines)])
		if err != nil {
			t.Fatal(err)
		}
		a, err := Parse(spec, m, Options{})
		if err != nil {
			if a != nil || !strings.Contains(err.Error(), "allocator "+strconv.Quote(textin.Clip(spec))) {
				t.Fatalf("%q on %s: %v, error %q does not quote the spec", spec, m.Spec(), a, err)
			}
			return
		}
		if a.Machine() != m || a.NumFree() != m.N() {
			t.Fatalf("%q on %s: machine %v, %d free", spec, m.Spec(), a.Machine(), a.NumFree())
		}
		if b, err := Parse(a.Name(), m, Options{}); err != nil || b.Name() != a.Name() {
			t.Fatalf("%q on %s: name %q does not read back: %v", spec, m.Spec(), a.Name(), err)
		}
		n := m.N()
		busy := make([]bool, n)
		var jobs [][]int
		for _, op := range ops {
			if op&0x80 != 0 && len(jobs) > 0 {
				j := int(op&0x7f) % len(jobs)
				if err := a.Release(jobs[j]); err != nil {
					t.Fatalf("%q: release %v: %v", spec, jobs[j], err)
				}
				for _, v := range jobs[j] {
					busy[v] = false
				}
				jobs = append(jobs[:j], jobs[j+1:]...)
				continue
			}
			free := a.NumFree()
			k := 1 + int(op)%n
			nodes, err := a.Allocate(k)
			if err != nil {
				if a.NumFree() != free || k > free && !errors.Is(err, ErrNotEnoughFree) {
					t.Fatalf("%q: allocate %d of %d free: %v, then %d free", spec, k, free, err, a.NumFree())
				}
				continue
			}
			// Paging and the binary trees give out whole pages or blocks: the
			// free count may fall by more than k.
			if len(nodes) != k || a.NumFree() > free-k {
				t.Fatalf("%q: allocate %d: %v, %d free after %d", spec, k, nodes, a.NumFree(), free)
			}
			for _, v := range nodes {
				if v < 0 || v >= n || busy[v] {
					t.Fatalf("%q: allocate %d: node %d out of range or busy (%v)", spec, k, v, nodes)
				}
				busy[v] = true
			}
			jobs = append(jobs, nodes)
		}
	})
}

// FuzzParseTieBreak fuzzes MC1x1's tb=SR,AF,WF,BF: accepted factors are finite, the
// scan radius non-negative, and the canonical form (String) reads back equal and is
// its own canonical form; a refusal quotes the input (clipped, textin.Clip).
func FuzzParseTieBreak(f *testing.F) {
	for _, s := range []string{"3,9,3,2", "0,0,0,0", " 1 , 2.5 ,-1, 0", "3,9,3", "-1,1,1,1", "1,NaN,1,1", "1,Inf,1,1", "1,1e400,1,1", "1,0x1p3,1,1", "1,-0,1,1", "1.5,1,1,1", "99999999999999999999,1,1,1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tb, err := ParseTieBreak(s)
		if err != nil {
			if tb != (TieBreak{}) || !strings.Contains(err.Error(), "tie-breaking "+strconv.Quote(textin.Clip(s))) {
				t.Fatalf("%q: %+v, error %q does not quote the input", s, tb, err)
			}
			return
		}
		if tb.SR < 0 {
			t.Fatalf("%q: scan radius %d", s, tb.SR)
		}
		for _, v := range []float64{tb.AF, tb.WF, tb.BF} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("%q: factor %g", s, v)
			}
		}
		back, err := ParseTieBreak(tb.String())
		if err != nil || back != tb || back.String() != tb.String() {
			t.Fatalf("%q: %q reads back as %+v, %v", s, tb.String(), back, err)
		}
	})
}
