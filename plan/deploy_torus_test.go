package plan

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/slurm"
	"github.com/procalloc/procalloc/topo"
)

// TestPlanTorus3DDeployment: plan on a torus (--machine torus:4x2x2 with a host
// list) at Slurm 26.05 writes a topology.yaml that slurm's own reader reads back as
// the torus: its dimensions, and at each position (x fastest) the host of that grid
// node; slurm.conf is the site's unchanged; tree and block say they want a switched
// network; the torus3d allocator places every job on a box of the machine. Before
// 26.05 torus3d is unsupported, naming the version.
func TestPlanTorus3DDeployment(t *testing.T) {
	g, err := topo.ParseSpec("torus:4x2x2")
	if err != nil {
		t.Fatal(err)
	}
	hosts := make([]string, g.N())
	for i := range hosts {
		hosts[i] = fmt.Sprintf("node%02d", i+1)
	}
	conf := []byte("NodeName=DEFAULT CPUs=1\nNodeName=node[01-16]\nPartitionName=all Nodes=ALL OverSubscribe=EXCLUSIVE\n")
	for _, ver := range []Version{{Major: 26, Minor: 5}, {Major: 25, Minor: 11}} {
		opt := Options{Machine: g, MachineSource: "torus:4x2x2", Hosts: hosts, SlurmConf: conf, SlurmConfPath: "slurm.conf",
			Version: ver, VersionSource: "test", SyntheticJobs: 30, Seed: 1}
		p, err := Make(context.Background(), opt)
		if err != nil {
			t.Fatal(err)
		}
		d := p.Deployment(KindTorus3D)
		if !ver.AtLeast(V2605) {
			if d.Supported || !strings.Contains(d.Why, "26.05") {
				t.Errorf("Slurm %s: torus3d supported %v (%s)", ver, d.Supported, d.Why)
			}
			continue
		}
		for _, k := range []Kind{KindTree, KindBlock} {
			if o := p.Deployment(k); o.Supported || !strings.Contains(o.Why, "switched network") {
				t.Errorf("%s on a torus: supported %v (%s)", k, o.Supported, o.Why)
			}
		}
		if !d.Supported || d.TopologyName != "topology.yaml" || !bytes.Equal(d.SlurmConf, conf) {
			t.Fatalf("torus3d: supported %v (%s), %s, slurm.conf changed %v", d.Supported, d.Why, d.TopologyName, !bytes.Equal(d.SlurmConf, conf))
		}
		top, err := slurm.ParseTopologyYAML(bytes.NewReader(d.Topology), "")
		if err != nil {
			t.Fatal(err)
		}
		tor := top.Torus
		if tor == nil || tor.Dims != [3]int{4, 2, 2} || len(tor.Nodes) != g.N() {
			t.Fatalf("read back: %+v", tor)
		}
		grid := p.Machine.(*topo.Grid)
		for v := range grid.N() {
			c := grid.Coord(v, nil)
			if at := tor.Nodes[c[0]+4*(c[1]+2*c[2])]; at != p.Names[v] {
				t.Errorf("position %v holds %s, the grid node there is %s", c, at, p.Names[v])
			}
		}
		a, err := d.Allocator()
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range []int{8, 4, 2, 1} {
			nodes, err := a.Allocate(k)
			if err != nil {
				t.Fatalf("%d nodes: %v", k, err)
			}
			// A box: along each axis the coordinates taken form a run (around
			// the ring) whose length times the others' is k.
			vol := 1
			for j := range 3 {
				seen := map[int]bool{}
				for _, v := range nodes {
					seen[grid.Coord(v, nil)[j]] = true
				}
				vol *= len(seen)
			}
			if vol != k {
				t.Errorf("%d nodes %v: not a box (spans volume %d)", k, nodes, vol)
			}
		}
	}
}
