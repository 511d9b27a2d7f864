package slurm_test

import (
	"fmt"
	"strings"

	"github.com/procalloc/procalloc/slurm"
)

// A two-level topology/tree topology.conf (topology.conf(5)): two leaf switches of
// two nodes under one root. ParseTopologyConf reads it with slurmctld's rules into
// the switch table; Graph makes it the network of --graph, hosts first, switches
// after. Checked by hand: the leaves are level 0 and the root level 1 (one above its
// highest child); the graph has 4 hosts and 3 switches, n1 and n2 share leaf s1 (2
// hops: n1, s1, n2), n1 and n3 meet at the root (4 hops: n1, s1, top, s2, n3).
func ExampleParseTopologyConf() {
	conf := `# two leaves under one root
SwitchName=s1 Nodes=n[1-2]
SwitchName=s2 Nodes=n[3-4]
SwitchName=top Switches=s[1-2]
`
	t, err := slurm.ParseTopologyConf(strings.NewReader(conf))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range t.Tree.Switches {
		fmt.Println(s.Name, "level", s.Level, "nodes", s.Nodes, "root", s.IsRoot)
	}
	g, err := t.Graph()
	if err != nil {
		fmt.Println(err)
		return
	}
	n1, _ := g.Lookup("n1")
	n2, _ := g.Lookup("n2")
	n3, _ := g.Lookup("n3")
	fmt.Println(g.N(), "hosts,", g.Vertices()-g.N(), "switches; hops n1-n2:", g.Dist(n1, n2), "n1-n3:", g.Dist(n1, n3))
	// Output:
	// s1 level 0 nodes [n1 n2] root false
	// s2 level 0 nodes [n3 n4] root false
	// top level 1 nodes [] root true
	// 4 hosts, 3 switches; hops n1-n2: 2 n1-n3: 4
}

// A mistake is an error naming the line, as slurmctld refuses the file at startup:
// here line 2 lists a child switch that no line defines.
func ExampleParseTopologyConf_error() {
	conf := "SwitchName=s1 Nodes=n[1-2]\nSwitchName=top Switches=s[1-2]\n"
	_, err := slurm.ParseTopologyConf(strings.NewReader(conf))
	fmt.Println(err)
	// Output:
	// line 2: switch top has invalid child switch "s2" (not defined, or itself)
}
