package slurm

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/topo"
)

// A written topology.conf reads back as the same network (hop distances between hosts,
// by name), with the hosts in the ordering's order (the reader numbers hosts in order
// of appearance, as SwitchAsNodeRank ranks them by leaf order).
func TestSlurmTopologyRoundTrip(t *testing.T) {
	f, err := os.Open("../topo/testdata/fattree.ibnetdiscover")
	if err != nil {
		t.Fatal(err)
	}
	ib, err := topo.ReadIBNetDiscover(f, nil)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	// On the fat tree a step between hosts of one leaf is 2 hops, not a jump: an
	// ordering leaf by leaf jumps only between leaves.
	if o, _ := curves.Generate("rcm", ib); curves.StepStats(ib, o, false).Jumps != 3 {
		t.Fatalf("rcm on 4 leaves: %+v", curves.StepStats(ib, o, false))
	}
	ft, _ := topo.ParseMachine("fattree:4,4:4,4:8")
	for _, c := range []struct {
		g     *topo.Graph
		curve string
	}{{ib, "rcm"}, {ib, "name-order"}, {ft.(*topo.Graph), "rcm"}, {ft.(*topo.Graph), "bfs"}} {
		g := c.g
		o, err := curves.Generate(c.curve, g)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if _, err := WriteTopology(&buf, g, o, nil); err != nil {
			t.Fatal(err)
		}
		back, err := ReadTopologyConf(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatalf("%s: reading back: %v\n%s", g.Spec(), err, buf.String())
		}
		if back.N() != g.N() {
			t.Fatalf("%s: %d hosts back", g.Spec(), back.N())
		}
		// Hosts come back leaf by leaf, leaves in the order o reaches them: o itself
		// when o keeps each leaf's hosts together (rcm, bfs), else o grouped by leaf.
		_, byLeaf := topo.LeafOrder(g, o)
		want := slices.Concat(byLeaf...)
		for r, v := range want {
			if back.Name(r) != g.Name(v) {
				t.Fatalf("%s %s: host %d read back is %s, want %s", g.Spec(), c.curve, r, back.Name(r), g.Name(v))
			}
		}
		if c.curve != "name-order" && !slices.Equal(want, []int(o)) {
			t.Fatalf("%s %s: the ordering does not keep leaves together", g.Spec(), c.curve)
		}
		for a := range g.N() {
			for b := range g.N() {
				ba, _ := back.Lookup(g.Name(a))
				bb, _ := back.Lookup(g.Name(b))
				if g.Dist(a, b) != back.Dist(ba, bb) {
					t.Fatalf("%s: Dist(%s,%s) %d, read back %d", g.Spec(), g.Name(a), g.Name(b), g.Dist(a, b), back.Dist(ba, bb))
				}
			}
		}
		if !strings.Contains(buf.String(), "TopologyParam=SwitchAsNodeRank") {
			t.Fatal("no TopologyParam line")
		}
	}
}

// Issue 34: every machine gets one tree Slurm can use. A dragonfly's routers go under
// one virtual switch per group (its all-to-all links) under a virtual root; a mesh
// gets a virtual tree along the ordering; either reads back as one tree, every host
// on a leaf, the groups as the dragonfly has them.
func TestWriteTopologyOneTree(t *testing.T) {
	df, err := topo.ParseMachine("dragonfly:hosts_per_router=2,routers_per_group=4,intergroup_links=1,num_groups=9")
	if err != nil {
		t.Fatal(err)
	}
	mesh, _ := topo.ParseSpec("mesh:10x7")
	for _, m := range []topo.Machine{df, mesh, topo.GraphOf(topo.Mesh(3, 3))} {
		var buf bytes.Buffer
		ws, err := WriteTopology(&buf, m, curves.RowMajor(m.N()), nil)
		if err != nil {
			t.Fatalf("%s: %v", m.Spec(), err)
		}
		if !strings.Contains(strings.Join(ws, "\n"), "virtual") {
			t.Errorf("%s: no warning about the virtual switches: %q", m.Spec(), ws)
		}
		top, err := ParseTopologyConf(&buf)
		if err != nil {
			t.Fatalf("%s: the written file is refused: %v", m.Spec(), err)
		}
		tr := top.Tree
		if tops := tr.Tops(); len(tops) != 1 {
			t.Errorf("%s: %d separate trees, want one", m.Spec(), len(tops))
		}
		hosts := 0
		for _, s := range tr.Switches {
			hosts += len(s.Nodes)
		}
		if hosts != m.N() {
			t.Errorf("%s: %d hosts on leaves, want %d", m.Spec(), hosts, m.N())
		}
		if m == df {
			// 36 routers (leaves) in 9 groups of 4: the routers of a group share a group
			// switch, named in the order the ordering reaches them.
			i, ok := tr.Index("procalloc-group1")
			if !ok || len(tr.Switches[i].Children) != 4 {
				t.Fatalf("dragonfly: no group switch of 4 routers\n%s", buf.String())
			}
			for _, c := range tr.Switches[i].Children {
				if name := tr.Switches[c].Name; !strings.HasPrefix(name, "G0R") {
					t.Errorf("dragonfly: group 1 holds %s, want the routers G0R*", name)
				}
			}
			if r, ok := tr.Index("procalloc-root"); !ok || len(tr.Switches[r].Children) != 9 {
				t.Errorf("dragonfly: the root is not over 9 groups\n%s", buf.String())
			}
		}
	}
}

func TestSlurmTorus3DRoundTrip(t *testing.T) {
	for _, spec := range []string{"torus:4x3x2", "torus:5x4", "torus:6"} {
		m, _ := topo.ParseSpec(spec)
		hosts := make([]string, m.N())
		for i := range hosts {
			hosts[i] = fmt.Sprintf("nid%03d", i)
		}
		var buf bytes.Buffer
		if err := WriteTorus3D(&buf, m, hosts, nil); err != nil {
			t.Fatal(err)
		}
		back, err := ReadTopologyYAML(bytes.NewReader(buf.Bytes()), "")
		if err != nil {
			t.Fatalf("%s: %v\n%s", spec, err, buf.String())
		}
		if !slices.Equal(curves.NodeNames(back), hosts) {
			t.Fatalf("%s: hosts back %v", spec, curves.NodeNames(back))
		}
		for a := range m.N() {
			for b := range m.N() {
				if m.Dist(a, b) != back.Dist(a, b) {
					t.Fatalf("%s: Dist(%d,%d) %d, read back %d", spec, a, b, m.Dist(a, b), back.Dist(a, b))
				}
			}
		}
	}
	mesh, _ := topo.ParseSpec("mesh:4x4x4")
	if err := WriteTorus3D(&bytes.Buffer{}, mesh, nil, nil); err == nil {
		t.Fatal("a mesh was written as a torus")
	}
}

// WriteTopology warns about what Slurm does not obey: a leaf whose nodes are not in
// natural name order (Slurm takes them in name order), an ordering that goes back and
// forth between leaves, and SwitchAsNodeRank's Slurm version.
func TestWriteTopologyWarnings(t *testing.T) {
	g := sampleTreeGraph(t)
	has := func(ws []string, s string) bool {
		return slices.ContainsFunc(ws, func(w string) bool { return strings.Contains(w, s) })
	}
	for _, c := range []struct {
		curve            string
		inLeaf, interlvd bool
	}{{"name-order", false, true}, {"rcm", true, false}} {
		o, _ := curves.Generate(c.curve, g)
		ws, err := WriteTopology(&bytes.Buffer{}, g, o, nil)
		if err != nil {
			t.Fatal(err)
		}
		if has(ws, "no node order inside a leaf") != c.inLeaf || has(ws, "NodeName lines: list those in ordering order") != c.inLeaf ||
			has(ws, "back and forth") != c.interlvd || !has(ws, "from Slurm 23.02") {
			t.Errorf("%s: warnings %q", c.curve, ws)
		}
	}
}
