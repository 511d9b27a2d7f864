package fabrictest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/topo"
)

// NameMap reads the node-name-map at path (the sample's GUIDs to names).
func NameMap(t testing.TB, path string) topo.NodeNameMap {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := topo.ReadNodeNameMap(strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// HostDist returns the hop distances between the named hosts of g, by name, so that
// two readings of one network compare equal whatever their vertex order.
func HostDist(g *topo.Graph) map[[2]string]int {
	d := map[[2]string]int{}
	for a := range g.N() {
		for b := range g.N() {
			d[[2]string{g.Name(a), g.Name(b)}] = g.Dist(a, b)
		}
	}
	return d
}

// HostNumber returns the number a host name ends in (node07: 7); ok is false when
// the name ends in no digit.
func HostNumber(name string) (n int, ok bool) {
	i := len(name)
	for i > 0 && name[i-1] >= '0' && name[i-1] <= '9' {
		i--
	}
	for _, c := range name[i:] {
		n = n*10 + int(c-'0')
	}
	return n, i < len(name)
}

// CheckSampleFatTree fails t unless g is the sample fat tree: 16 hosts and 22
// vertices, hosts on one leaf 2 hops apart and the others 4, and four groups (the
// leaves, named leafN or, without a node-name-map, S-<guid>) of four hosts.
func CheckSampleFatTree(t testing.TB, what string, g *topo.Graph) {
	t.Helper()
	if g.N() != 16 || g.Vertices() != 22 {
		t.Fatalf("%s: %d hosts, %d vertices; want 16 and 22", what, g.N(), g.Vertices())
	}
	for a := range g.N() {
		ka, ok := HostNumber(g.Name(a))
		if !ok {
			t.Fatalf("%s: host name %q", what, g.Name(a))
		}
		for b := range g.N() {
			kb, _ := HostNumber(g.Name(b))
			want := 4
			switch {
			case a == b:
				want = 0
			case (ka-1)%4 == (kb-1)%4:
				want = 2
			}
			if d := g.Dist(a, b); d != want {
				t.Fatalf("%s: Dist(%s,%s) = %d, want %d", what, g.Name(a), g.Name(b), d, want)
			}
		}
	}
	if len(g.Groups()) != 4 {
		t.Fatalf("%s: %d groups, want the 4 leaves", what, len(g.Groups()))
	}
	for _, gr := range g.Groups() {
		if len(gr.Nodes) != 4 || !strings.HasPrefix(gr.Name, "leaf") && !strings.HasPrefix(gr.Name, "S-") {
			t.Fatalf("%s: group %+v", what, gr)
		}
	}
}

// SampleFabric reads the sample fat tree as ibnetdiscover prints it, with its
// node-name-map (switch names leaf1 ... and spine1 ...), from dir (the path of
// topo/testdata from the calling test's package).
func SampleFabric(t testing.TB, dir string) *topo.Graph {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "fattree.ibnetdiscover"))
	if err != nil {
		t.Fatal(err)
	}
	g, err := topo.ReadIBNetDiscover(strings.NewReader(string(b)), NameMap(t, filepath.Join(dir, "fattree.node-name-map")))
	if err != nil {
		t.Fatal(err)
	}
	return g
}
