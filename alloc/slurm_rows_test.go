package alloc

import (
	"bytes"
	"testing"

	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/slurm"
	"github.com/procalloc/procalloc/topo"
)

// fatTreeSlurm is slurm:tree on the topology.conf procalloc's writer makes of a
// fat tree (`curve --curve name-order --format slurm-topology`): its leaves of one
// pod are twins, its upper switches have several parents.
func fatTreeSlurm(tb testing.TB, shape string) *SlurmAllocator {
	tb.Helper()
	g, err := topo.FatTree(shape)
	if err != nil {
		tb.Fatal(err)
	}
	o, err := curves.Generate("name-order", g)
	if err != nil {
		tb.Fatal(err)
	}
	var conf bytes.Buffer
	if _, err := slurm.WriteTopology(&conf, g, o, nil); err != nil {
		tb.Fatal(err)
	}
	tree, err := slurm.ParseTree(&conf)
	if err != nil {
		tb.Fatal(err)
	}
	a, err := NewSlurm(g, SlurmConfig{Names: curves.NodeNames(g), Tree: tree})
	if err != nil {
		tb.Fatal(err)
	}
	return a
}

// On fat trees of more twin classes than a word has bits (fillRows' searches go
// 64 classes at a time), the rows fillRows measures are those leafDistances
// measures one switch at a time, for every switch.
func TestSlurmTreeFillRowsManyClasses(t *testing.T) {
	shapes := []string{"4,4:4,4:4,4:20", "4,4:4,4:4,4:4,4:10"}
	if testing.Short() {
		shapes = shapes[:1]
	}
	for _, shape := range shapes {
		one, byClass := fatTreeSlurm(t, shape), fatTreeSlurm(t, shape)
		if nc := len(byClass.tr.twins); nc <= 64 {
			t.Fatalf("fattree:%s: %d twin classes, want more than 64", shape, nc)
		}
		checkFillRows(t, one, byClass, "fattree:"+shape)
	}
}

// BenchmarkSlurmTreeFillRows measures every distance row of slurm:tree's emulation
// on the 131,072- and 196,608-host fat trees' topology.conf (512 and 768 twin
// classes of leaves; 28,672 and 43,008 switches).
// go test -run '^$' -bench SlurmTreeFillRows -benchtime 3x ./alloc
func BenchmarkSlurmTreeFillRows(b *testing.B) {
	for _, shape := range []string{"16,16:16,16:16,16:32", "16,16:16,16:16,16:48"} {
		b.Run(shape, func(b *testing.B) {
			a := fatTreeSlurm(b, shape)
			st := a.tr
			for b.Loop() {
				st.rows, st.rowBytes, st.filled = make([][]uint16, st.rowKeys), 0, false
				st.fillRows(a.tree)
			}
			b.ReportMetric(float64(st.rowBytes)/1e6, "rows-MB")
			b.ReportMetric(float64(len(st.twins)), "classes")
			b.ReportMetric(float64(len(a.tree.Switches)), "switches")
		})
	}
}

// Measuring every switch's row costs fewer passes over the switch links than one
// search per twin class: after fillAfter(nc) searches, the rest are filled 64
// classes a pass (before, nc single searches came first, then nc more to fill).
func TestSlurmTreeRowsFewPasses(t *testing.T) {
	a := fatTreeSlurm(t, "4,4:4,4:4,4:20")
	st := a.tr
	nc := len(st.twins)
	for i := range a.tree.Switches {
		st.leafDistances(a.tree, i)
	}
	if !st.filled {
		t.Fatalf("%d twin classes, %d row keys: rows never filled", nc, st.rowKeys)
	}
	// a fat tree of four levels: routes of at most 6 hops between switches
	if limit := fillAfter(nc) + (nc+63)/64*7; st.passes > limit || st.passes >= nc {
		t.Errorf("%d twin classes: %d passes over the links, want at most %d (and fewer than %d)", nc, st.passes, limit, nc)
	}
}
