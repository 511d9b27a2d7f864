package topo_test

import (
	"maps"
	"os"
	"testing"

	"github.com/procalloc/procalloc/internal/fabrictest"
	"github.com/procalloc/procalloc/topo"
)

// The sample fat tree read from both forms of ibnetdiscover's output, with and
// without the node-name-map, is one network (package fabrictest says which).
func TestIBNetDiscoverBothForms(t *testing.T) {
	read := func(path string, m topo.NodeNameMap) *topo.Graph {
		t.Helper()
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		g, err := topo.ReadIBNetDiscover(f, m)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	m := fabrictest.NameMap(t, "testdata/fattree.node-name-map")
	g1 := read("testdata/fattree.ibnetdiscover", m)
	fabrictest.CheckSampleFatTree(t, "default form", g1)
	if v, ok := g1.Lookup("spine02"); !ok || !g1.IsSwitch(v) {
		t.Fatalf("spine02 not a switch")
	}
	g2 := read("testdata/fattree.ibnetdiscover-p", m)
	fabrictest.CheckSampleFatTree(t, "-p form", g2)
	// Without the map switches keep their GUIDs, hosts their descriptions.
	g3 := read("testdata/fattree.ibnetdiscover", nil)
	fabrictest.CheckSampleFatTree(t, "no map", g3)
	if _, ok := g3.Lookup("S-0002c90300a00001"); !ok {
		t.Fatal("unmapped switch not named S-<guid>")
	}
	if d := fabrictest.HostDist(g1); !maps.Equal(d, fabrictest.HostDist(g2)) || !maps.Equal(d, fabrictest.HostDist(g3)) {
		t.Fatal("the two forms give different networks")
	}
}
