package topo_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/internal/fabrictest"
	"github.com/procalloc/procalloc/topo"
)

// The fabric readers read every dump as the readers before wt-fabricmem did
// (topo.CompareFabricReaders: the same Graph, warnings and errors): the dumps of
// random fat trees and dragonflies in the four forms, with random host names, a
// random node-name-map, and mutated line by line and byte by byte.
func TestFabricReadersMatchReference(t *testing.T) {
	r := rand.New(rand.NewPCG(30, 7))
	forms := []struct {
		reader string
		form   fabrictest.DumpForm
	}{{"ibnetdiscover", fabrictest.IBNetDiscover}, {"ibnetdiscover", fabrictest.IBNetDiscoverPorts}, {"subnet-lst", fabrictest.SubnetLst}, {"opareport", fabrictest.OPAReport}}
	var seeds []struct{ reader, src string }
	for _, f := range []struct{ reader, path string }{
		{"ibnetdiscover", "testdata/fattree.ibnetdiscover"}, {"ibnetdiscover", "testdata/fattree.ibnetdiscover-p"},
		{"ibnetdiscover", "testdata/scrambled.ibnetdiscover"}, {"subnet-lst", "testdata/fattree.subnet-lst"},
		{"subnet-lst", "testdata/scrambled.subnet-lst"}, {"opareport", "testdata/fattree.opareport.xml"},
		{"opareport", "testdata/fattree.opareport-links.txt"},
	} {
		data, err := os.ReadFile(f.path)
		if err != nil {
			t.Fatal(err)
		}
		seeds = append(seeds, struct{ reader, src string }{f.reader, string(data)})
	}
	dumps := 60
	if testing.Short() {
		dumps = 15
	}
	for range dumps {
		var spec string
		if r.IntN(2) == 0 {
			spec = fmt.Sprintf("fattree:%d,%d:%d", 1+r.IntN(4), 1+r.IntN(3), 1+r.IntN(4))
		} else {
			spec = fmt.Sprintf("dragonfly:hosts_per_router=%d,routers_per_group=%d,intergroup_links=1,num_groups=%d", 1+r.IntN(3), 2+r.IntN(3), 2+r.IntN(3))
		}
		m, err := topo.ParseMachine(spec)
		if err != nil {
			continue // a shape the spec refuses
		}
		g := m.(*topo.Graph)
		f := forms[r.IntN(len(forms))]
		d := fabrictest.Dump{Graph: g, Ports: 8 + 8*r.IntN(5)}
		switch r.IntN(3) {
		case 0:
			d.HostName = func(v int) string { return fmt.Sprintf("cn%d", g.N()-v) }
		case 1:
			d.HostName = func(v int) string { return fmt.Sprintf("node%02d", v/2) } // two CAs a name: refused or joined
		}
		var buf bytes.Buffer
		if err := fabrictest.WriteDump(&buf, d, f.form); err != nil {
			t.Fatal(err)
		}
		seeds = append(seeds, struct{ reader, src string }{f.reader, buf.String()})
	}
	read, refused := 0, 0
	for _, s := range seeds {
		for k := range 40 {
			src := s.src
			if k > 0 {
				src = mutateDump(r, src, 1+r.IntN(3))
			}
			var names topo.NodeNameMap
			if r.IntN(4) == 0 {
				names = randomNameMap(r, src)
			}
			ok, diff := topo.CompareFabricReaders(s.reader, []byte(src), names)
			if diff != nil {
				t.Fatalf("%s %.3000q (names %v): %v", s.reader, src, names, diff)
			}
			if ok {
				read++
			} else {
				refused++
			}
		}
	}
	t.Logf("%d dumps read alike, %d refused alike", read, refused)
	if read < 100 || refused < 100 {
		t.Fatalf("only %d read and %d refused: the dumps do not exercise both", read, refused)
	}
}

// mutateDump changes src k times: a line dropped, repeated, moved or cut, a byte
// changed, a message line or a description added.
func mutateDump(r *rand.Rand, src string, k int) string {
	lines := strings.SplitAfter(src, "\n")
	for range k {
		i := r.IntN(len(lines))
		switch r.IntN(9) {
		case 0:
			lines = append(lines[:i], lines[i+1:]...)
		case 1:
			lines = append(lines[:i+1], lines[i:]...)
		case 2:
			j := r.IntN(len(lines))
			lines[i], lines[j] = lines[j], lines[i]
		case 3:
			if l := lines[i]; len(l) > 0 {
				lines[i] = l[:r.IntN(len(l))] + "\n"
			}
		case 4, 5:
			if l := lines[i]; len(l) > 0 {
				c := "[]{}()#=\"' \t-?SCHRx0123456789abcdef\r\n<>:;"
				j := r.IntN(len(l))
				lines[i] = l[:j] + string(c[r.IntN(len(c))]) + l[j+1:]
			}
		case 6:
			lines = append(lines[:i], append([]string{[]string{"ibwarn: [12] f: x\n", "src/query_smp.c:195; bad status 110\n", "# comment\n", "\n", "vendid=0x2c9\n"}[r.IntN(5)]}, lines[i:]...)...)
		case 7:
			lines[i] = strings.Replace(lines[i], "mlx5_0", []string{"mlx5_1", "Aggregation Node", "", "x y"}[r.IntN(4)], 1)
		case 8:
			lines[i] = strings.Replace(lines[i], "n0", []string{"localhost n", "MT4129 ConnectX7   Mellanox Technologies", "n1", "n:"}[r.IntN(4)], 1)
		}
		if len(lines) == 0 {
			lines = []string{""}
		}
	}
	return strings.Join(lines, "")
}

// randomNameMap names a few of the GUIDs src holds (16 hexadecimal digits),
// some alike.
func randomNameMap(r *rand.Rand, src string) topo.NodeNameMap {
	m := topo.NodeNameMap{}
	for _, w := range strings.FieldsFunc(src, func(c rune) bool { return !strings.ContainsRune("0123456789abcdef", c) }) {
		if len(w) != 16 || r.IntN(6) != 0 {
			continue
		}
		var g uint64
		fmt.Sscanf(w, "%x", &g)
		m[g] = fmt.Sprintf("m%d", r.IntN(8))
	}
	return m
}

// The same on the benchmarks' dumps at 10^5 hosts.
func TestFabricReadersMatchReferenceAtScale(t *testing.T) {
	if testing.Short() {
		t.Skip("10^8-byte dumps")
	}
	for _, c := range []struct {
		reader, spec string
		form         fabrictest.DumpForm
	}{
		{"ibnetdiscover", benchFatTree, fabrictest.IBNetDiscover},
		{"ibnetdiscover", benchFatTree, fabrictest.IBNetDiscoverPorts},
		{"ibnetdiscover", benchDragonfly, fabrictest.IBNetDiscover},
		{"subnet-lst", benchFatTree, fabrictest.SubnetLst},
		{"opareport", benchFatTree, fabrictest.OPAReport},
	} {
		ok, diff := topo.CompareFabricReaders(c.reader, benchDump(t, c.spec, c.form), nil)
		if diff != nil || !ok {
			t.Fatalf("%s of %s: read %v, %v", c.reader, c.spec, ok, diff)
		}
	}
}
