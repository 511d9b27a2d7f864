package slurm

import (
	"bytes"
	"os"
	"testing"

	"github.com/procalloc/procalloc/topo"
)

// FuzzReadGraphFormat fuzzes the reader behind every --graph FILE (sim, compare,
// bench, curve, evaluate, order, plan): the format detected from the content, then
// topo's edge list or ibnetdiscover or Slurm's topology.conf or topology.yaml. A
// network read with the format detected is the one read with that format named
// (DetectGraphFormat agrees with the reader), its hosts come first and are named
// once, names look up their vertices, and hop distances are symmetric, 0 on the
// diagonal and at least 1 (or -1, not connected) elsewhere. Every format named
// explicitly is tried too, for panics and the same invariants.
func FuzzReadGraphFormat(f *testing.F) {
	for _, name := range []string{"fattree.ibnetdiscover", "fattree.ibnetdiscover-p", "topology.conf", "topology.yaml"} {
		if b, err := os.ReadFile(testdata + name); err == nil {
			f.Add(b)
		}
	}
	if b, err := os.ReadFile(testdata + "fattree.ibnetdiscover"); err == nil {
		// ibnetdiscover's standard error saved before its output (a public dump's
		// first line; topo.TestIBNetDiscoverStandardError).
		f.Add(append([]byte("src/query_smp.c:195; umad (DR path slid 0; dlid 0; 0,1,1,31 Attr 0x11:0) bad status 110; Connection timed out\n"), b...))
	}
	if b, err := os.ReadFile("../order/testdata/cplant-dev.txt"); err == nil {
		f.Add(b)
	}
	f.Add([]byte("# x\na b\nb c\nc a\n"))
	f.Add([]byte("SwitchName=s1 Nodes=n[1-4]\nSwitchName=s2 Nodes=n[5-8]\nSwitchName=t Switches=s[1-2]\n"))
	f.Add([]byte("BlockName=b1 Nodes=n[1-4]\nBlockName=b2 Nodes=n[5-8]\nBlockSizes=4,8\n"))
	f.Add([]byte("- topology: t\n  cluster_default: true\n  tree:\n    switches:\n      - switch: s1\n        children: n[1-2]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		g, err := ReadGraphFormat(bytes.NewReader(data), GraphReadOptions{})
		if err == nil {
			checkGraphInvariants(t, "detected", g)
			format, derr := DetectGraphFormat(data)
			if derr != nil {
				t.Fatalf("read, but DetectGraphFormat says %v", derr)
			}
			named, err := ReadGraphFormat(bytes.NewReader(data), GraphReadOptions{Format: format})
			if err != nil {
				t.Fatalf("read as detected (%s), refused with the format named: %v", format, err)
			}
			if !sameGraph(g, named) {
				t.Fatalf("%s: the network read with the format detected differs from the one read with it named", format)
			}
		} else if err.Error() == "" {
			t.Fatal("an empty error")
		}
		for _, format := range graphFormats {
			if g, err := ReadGraphFormat(bytes.NewReader(data), GraphReadOptions{Format: format}); err == nil {
				checkGraphInvariants(t, format, g)
			}
		}
	})
}

// checkGraphInvariants checks what every reader's network must satisfy, on the
// first 64 vertices (a fuzzed file is small; the cap bounds the pairs).
func checkGraphInvariants(t *testing.T, what string, g *topo.Graph) {
	t.Helper()
	if g.N() < 1 || g.N() > g.Vertices() {
		t.Fatalf("%s: %d hosts of %d vertices", what, g.N(), g.Vertices())
	}
	seen := map[string]int{}
	for v := range g.Vertices() {
		name := g.Name(v)
		if name == "" {
			t.Fatalf("%s: vertex %d has no name", what, v)
		}
		if u, dup := seen[name]; dup {
			t.Fatalf("%s: vertices %d and %d are both %q", what, u, v, name)
		}
		seen[name] = v
		if u, ok := g.Lookup(name); !ok || u != v {
			t.Fatalf("%s: Lookup(%q) = %d, %v; want %d", what, name, u, ok, v)
		}
		if g.IsSwitch(v) != (v >= g.N()) {
			t.Fatalf("%s: vertex %d: IsSwitch %v with %d hosts", what, v, g.IsSwitch(v), g.N())
		}
	}
	n := min(g.Vertices(), 64)
	for a := range n {
		for b := range n {
			d := g.Dist(a, b)
			switch {
			case a == b && d != 0:
				t.Fatalf("%s: Dist(%d,%d) = %d", what, a, a, d)
			case a != b && d == 0 || d < -1:
				t.Fatalf("%s: Dist(%s,%s) = %d", what, g.Name(a), g.Name(b), d)
			case d != g.Dist(b, a):
				t.Fatalf("%s: Dist(%s,%s) = %d, the other way %d", what, g.Name(a), g.Name(b), d, g.Dist(b, a))
			}
		}
	}
}

// sameGraph reports whether two readings name the same vertices in the same order
// with the same hop distances.
func sameGraph(a, b *topo.Graph) bool {
	if a.N() != b.N() || a.Vertices() != b.Vertices() {
		return false
	}
	n := min(a.Vertices(), 64)
	for u := range a.Vertices() {
		if a.Name(u) != b.Name(u) {
			return false
		}
	}
	for u := range n {
		for v := range n {
			if a.Dist(u, v) != b.Dist(u, v) {
				return false
			}
		}
	}
	return true
}
