package topo_test

import (
	"fmt"

	"github.com/procalloc/procalloc/topo"
)

// A machine from its spec, and its hop distances. Node i of a grid has coordinates
// (i mod X, i div X). Corners 0 = (0,0) and 15 = (3,3) of a 4x4 mesh are 3 + 3 = 6
// hops apart; on the 4x4 torus each axis wraps, so 3 steps forward are 1 back and
// the corners are 1 + 1 = 2 hops apart.
func ExampleParseMachine() {
	for _, spec := range []string{"mesh:4x4", "torus:4x4"} {
		m, err := topo.ParseMachine(spec)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(m.Spec(), m.N(), "nodes; hops from 0 to 15:", m.Dist(0, 15), "from 0 to 5:", m.Dist(0, 5))
	}
	// Output:
	// mesh:4x4 16 nodes; hops from 0 to 15: 6 from 0 to 5: 2
	// torus:4x4 16 nodes; hops from 0 to 15: 2 from 0 to 5: 2
}

// A two-level fat tree (SST merlin's shape "4,2:4"): 4 leaf switches of 4 hosts,
// each with 2 links up to 2 top switches. Switches route but get no ranks: N counts
// the 16 hosts only. Hosts under one leaf are 2 hops apart (host, leaf, host); hosts
// under different leaves 4 (host, leaf, top, leaf, host).
func ExampleFatTree() {
	g, err := topo.FatTree("4,2:4")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(g.N(), "hosts,", topo.Vertices(g)-g.N(), "switches")
	fmt.Println("hops 0-1:", g.Dist(0, 1), "hops 0-4:", g.Dist(0, 4), "hops 0-15:", g.Dist(0, 15))
	// Output:
	// 16 hosts, 6 switches
	// hops 0-1: 2 hops 0-4: 4 hops 0-15: 4
}
