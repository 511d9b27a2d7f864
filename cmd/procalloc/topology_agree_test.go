package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/sim"
	"github.com/procalloc/procalloc/slurm"
	"github.com/procalloc/procalloc/topo"
)

// topologyFiles are topology.conf and topology.yaml files, valid and malformed, that
// every consumer of Slurm topology files must judge alike (issue 30: the switch with
// Nodes= and Switches= and the two BlockSizes= lines were accepted by one and refused
// by another). kind is the plugin of a valid file ("tree", "block", "torus3d"), ""
// for a file every consumer must refuse.
var topologyFiles = []struct {
	name, src, kind string
}{
	// valid: tree
	{"tree", "SwitchName=l1 Nodes=n[1-4]\nSwitchName=l2 Nodes=n[5-8]\nSwitchName=top Switches=l[1-2]\n", "tree"},
	{"tree root first", "SwitchName=top Switches=l[1-2] LinkSpeed=100\nswitchname=l1 nodes=n[1-4]\nSwitchName=l2 Nodes=n[5-8] # c\n", "tree"},
	{"two roots", "SwitchName=s1 Nodes=cpu[01-04]\nSwitchName=s2 Nodes=cpu[05-10]\n", "tree"},
	{"two trees", "SwitchName=a1 Nodes=x[1-2]\nSwitchName=a2 Nodes=x[3-4]\nSwitchName=a Switches=a[1-2]\nSwitchName=b1 Nodes=x[5-6]\nSwitchName=b Switches=b1\n", "tree"},
	{"two spines", "SwitchName=l1 Nodes=n[1-2]\nSwitchName=l2 Nodes=n[3-4]\nSwitchName=s1 Switches=l[1-2]\nSwitchName=s2 Switches=l[1-2]\n", "tree"},
	{"node on two leaves", "SwitchName=l1 Nodes=n[1-3]\nSwitchName=l2 Nodes=n[3-5]\nSwitchName=t Switches=l[1-2]\n", "tree"},
	{"switch named like a node", "SwitchName=n1 Nodes=n[1-2]\nSwitchName=n2 Nodes=n[3-4]\nSwitchName=tree-root Switches=n[1-2]\nSwitchName=x Nodes=tree-root\n", "tree"},
	{"block named like a node", "BlockName=n1 Nodes=n[1-2]\nBlockName=block-root Nodes=n[3-4],block-root\n", "block"},
	{"key twice", "SwitchName=l1 Nodes=n[1-4] Nodes=n[5-6]\nSwitchName=l2 Nodes=n[7-8]\n", "tree"},
	{"unbalanced", "SwitchName=top Switches=mid,l3\nSwitchName=l1 Nodes=n[1-2]\nSwitchName=l2 Nodes=n[3-5]\nSwitchName=mid Switches=l[1-2]\nSwitchName=l3 Nodes=n6\n", "tree"},
	{"yaml tree", "- topology: a\n  tree:\n    switches:\n      - switch: top\n        children: l[1-2]\n      - switch: l1\n        nodes: n[1-2]\n      - switch: l2\n        nodes: n[3-4]\n", "tree"},
	{"yaml leaf with children", "- topology: a\n  tree:\n    switches:\n      - switch: s1\n        nodes: n[1-4]\n        children: s2\n      - switch: s2\n        nodes: n[5-8]\n", "tree"},
	{"yaml empty switch", "- topology: a\n  tree:\n    switches:\n      - switch: s1\n        nodes: n[1-4]\n      - switch: e\n      - switch: top\n        children: s1,e\n", "tree"},
	// valid: block
	{"blocks", "BlockName=b1 Nodes=n[1-4]\nBlockName=b2 Nodes=n[5-8]\nBlockSizes=4,8\n", "block"},
	{"blocks no sizes", "BlockName=b1 Nodes=n[1-4]\nBlockName=empty\nBlockName=b2 Nodes=n[5-8]\n", "block"},
	{"blocks sizes first", "BlockSizes=2,4\nBlockName=b1 Nodes=n[1-2]\nBlockName=b2 Nodes=n[3-4]\n", "block"},
	{"two BlockSizes lines", "BlockName=b1 Nodes=n[1-4]\nBlockName=b2 Nodes=n[5-8]\nBlockSizes=4\nBlockSizes=4,8\n", "block"},
	{"BlockSizes atoi", "BlockName=b1 Nodes=n[1-4]\nBlockName=b2 Nodes=n[5-8]\nBlockSizes=4x,8\n", "block"},
	{"yaml blocks", "- topology: r\n  block:\n    block_sizes: [2, 4]\n    blocks:\n      - block: r1\n        nodes: n[1-2]\n      - block: r2\n        nodes: n[3-4]\n", "block"},
	{"yaml torus", "- topology: t\n  torus3d:\n    dims: {x: 2, y: 2, z: 1}\n    nodes: n[1-4]\n", "torus3d"},
	// malformed
	{"empty", "", ""},
	{"comments only", "# nothing\n", ""},
	{"both Nodes and Switches", "SwitchName=s1 Nodes=n[1-4] Switches=s2\nSwitchName=s2 Nodes=n[5-8]\n", ""},
	{"neither", "SwitchName=s1 Nodes=n[1-4]\nSwitchName=s2 LinkSpeed=4\n", ""},
	{"switch twice", "SwitchName=s1 Nodes=n[1-4]\nSwitchName=s1 Nodes=n[5-8]\n", ""},
	{"child undefined", "SwitchName=s1 Nodes=n1\nSwitchName=t Switches=s[1-2]\n", ""},
	{"child itself", "SwitchName=s1 Nodes=n1\nSwitchName=t Switches=t\n", ""},
	{"cycle", "SwitchName=s1 Nodes=n1\nSwitchName=a Switches=b\nSwitchName=b Switches=a\n", ""},
	{"no nodes", "SwitchName=a Switches=b\nSwitchName=b Switches=c\nSwitchName=c Switches=d\n", ""},
	{"unknown key", "SwitchName=s1 Nodes=n1 Colour=red\n", ""},
	{"line without name", "Nodes=n1\n", ""},
	{"two names", "SwitchName=s1 Nodes=n1 SwitchName=s2\n", ""},
	{"bad hostlist", "SwitchName=s1 Nodes=n[3-1]\n", ""},
	{"empty value", "SwitchName=s1 Nodes=\n", ""},
	{"bad LinkSpeed", "SwitchName=s1 Nodes=n1 LinkSpeed=fast\n", ""},
	{"not key=value", "SwitchName=s1 Nodes\n", ""},
	{"mixed", "SwitchName=s1 Nodes=n1\nBlockName=b1 Nodes=n2\n", ""},
	{"block twice", "BlockName=b1 Nodes=n[1-4]\nBlockName=b1 Nodes=n[5-8]\n", ""},
	{"BlockSizes on a block line", "BlockName=b1 Nodes=n[1-4] BlockSizes=4\n", ""},
	{"BlockSizes not a power of two", "BlockName=b1 Nodes=n[1-4]\nBlockSizes=4,12\n", ""},
	{"BlockSizes not a multiple", "BlockName=b1 Nodes=n[1-4]\nBlockSizes=4,6\n", ""},
	{"BlockSizes zero", "BlockName=b1 Nodes=n[1-4]\nBlockSizes=4,0\n", ""},
	{"BlockSizes too large", "BlockName=b1 Nodes=n1\nBlockSizes=1,65536\n", ""},
	{"BlockSizes last bad", "BlockName=b1 Nodes=n[1-4]\nBlockSizes=4\nBlockSizes=x\n", ""},
	{"blocks without nodes", "BlockName=b1\nBlockName=b2\n", ""},
	{"only BlockSizes", "BlockSizes=4\n", ""},
	{"block with Switches", "BlockName=b1 Nodes=n1 Switches=s\n", ""},
	{"yaml two kinds", "- topology: a\n  tree: {switches: [{switch: s, nodes: n1}]}\n  block: {blocks: [{block: b, nodes: n1}]}\n", ""},
	{"yaml unknown key", "- topology: a\n  tree:\n    switches:\n      - switch: s\n        nodes: n1\n        speed: 4\n", ""},
	{"yaml cycle", "- topology: a\n  tree:\n    switches:\n      - switch: s0\n        nodes: n1\n      - switch: s1\n        children: s2\n      - switch: s2\n        children: s1\n", ""},
	{"yaml block_sizes", "- topology: a\n  block:\n    block_sizes: [4, 12]\n    blocks: [{block: b, nodes: n[1-4]}]\n", ""},
	{"yaml torus size", "- topology: t\n  torus3d:\n    dims: {x: 2, y: 2, z: 2}\n    nodes: n[1-7]\n", ""},
	{"yaml flat", "- topology: a\n  flat: true\n", ""},
}

// Every consumer of a topology file agrees on every file: --graph (sim, curve),
// slurm:tree and slurm:block (the CLI's readers, then the emulators on the graph's
// machine), the writers (what they write of an accepted file reads back with the same
// hosts); accepted alike, refused alike, the same node sets.
func TestTopologyConsumersAgree(t *testing.T) {
	dir := t.TempDir()
	for i, c := range topologyFiles {
		ext := ".conf"
		if strings.HasPrefix(c.src, "- topology") {
			ext = ".yaml"
		}
		path := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-")+ext)
		if err := os.WriteFile(path, []byte(c.src), 0o644); err != nil {
			t.Fatal(err)
		}
		top, errTop := slurm.ReadTopology(strings.NewReader(c.src), "")
		g, errG := slurm.ReadGraphFormat(strings.NewReader(c.src), slurm.GraphReadOptions{})
		tr, errT := (&sim.Files{}).SlurmTree(context.Background(), path, "")
		bl, errB := (&sim.Files{}).SlurmBlocks(context.Background(), path, "")
		if c.kind == "" {
			for what, err := range map[string]error{"Topology": errTop, "--graph": errG, "slurm:tree": errT, "slurm:block": errB} {
				if err == nil {
					t.Errorf("%d %s: %s accepts a malformed file", i, c.name, what)
				}
			}
			// Refused alike: the same reason, whatever the consumer.
			if errTop != nil && errG != nil && errG.Error() != errTop.Error() && !strings.Contains(errG.Error(), "cannot tell the graph format") {
				t.Errorf("%s: --graph says %q, the parser %q", c.name, errG, errTop)
			}
			if errTop != nil && errT != nil && !strings.Contains(errT.Error(), errTop.Error()) {
				t.Errorf("%s: slurm:tree says %q, the parser %q", c.name, errT, errTop)
			}
			continue
		}
		if errTop != nil || errG != nil {
			t.Errorf("%s: refused (%v; --graph %v)", c.name, errTop, errG)
			continue
		}
		if top.Kind() != c.kind {
			t.Errorf("%s: kind %s, want %s", c.name, top.Kind(), c.kind)
		}
		if (errT == nil) != (c.kind == "tree") || (errB == nil) != (c.kind == "block") {
			t.Errorf("%s (%s): slurm:tree %v, slurm:block %v", c.name, c.kind, errT, errB)
			continue
		}
		hosts := names(g)
		var listed []string
		switch {
		case tr != nil:
			for _, s := range tr.Switches {
				listed = append(listed, s.Nodes...)
			}
		case bl != nil:
			for _, b := range bl.Blocks {
				listed = append(listed, b.Nodes...)
			}
		default:
			listed = top.Torus.Nodes
		}
		slices.Sort(listed)
		if listed = slices.Compact(listed); !slices.Equal(listed, hosts) {
			t.Errorf("%s: --graph has hosts %v, the emulators' configuration %v", c.name, hosts, listed)
		}
		// The emulators run on the graph's machine: every node they list is one of it.
		if tr != nil || bl != nil {
			a, err := alloc.NewSlurm(g, alloc.SlurmConfig{Names: curves.NodeNames(g), Tree: tr, Blocks: bl})
			if err != nil {
				t.Errorf("%s: the emulator refuses the graph's machine: %v", c.name, err)
			} else if _, err := a.Allocate(1); err != nil {
				t.Errorf("%s: one node on an empty machine: %v", c.name, err)
			}
		}
		// The writers: what they write of it reads back with the same hosts.
		var buf bytes.Buffer
		o := curves.RowMajor(g.N())
		switch c.kind {
		case "tree":
			_, err := slurm.WriteTopology(&buf, g, o, nil)
			if err != nil {
				t.Errorf("%s: WriteTopology: %v", c.name, err)
				continue
			}
		case "block":
			if err := slurm.WriteBlock(&buf, o, curves.NodeNames(g), bl.Base); err != nil && g.N()%bl.Base == 0 {
				t.Errorf("%s: WriteBlock: %v", c.name, err)
				continue
			}
		default:
			continue
		}
		if buf.Len() == 0 {
			continue
		}
		back, err := slurm.ReadTopology(&buf, "")
		if err != nil {
			t.Errorf("%s: the writer's output is refused: %v\n%s", c.name, err, buf.String())
			continue
		}
		gb, err := back.Graph()
		if err != nil || !slices.Equal(names(gb), hosts) {
			t.Errorf("%s: written and read back: %v, hosts %v", c.name, err, names(gb))
		}
	}
}

func names(g *topo.Graph) []string {
	out := make([]string, g.N())
	for i := range out {
		out[i] = g.Name(i)
	}
	slices.Sort(out)
	return out
}

// Issue 29: a topology.conf with two trees replays (sim refused it: "cpu10 and cpu01
// are not connected: no route"); the trees are joined by slurm.TreeRootSwitch for the
// metrics, and slurm:tree, like Slurm, puts no job across them: a job larger than
// either tree is never placed.
func TestSimTwoTrees(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "topology.conf")
	if err := os.WriteFile(conf, []byte("SwitchName=s1 Nodes=cpu[01-04]\nSwitchName=s2 Nodes=cpu[05-10]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	trace := filepath.Join(dir, "t.txt")
	if err := os.WriteFile(trace, []byte("0 3 10 10\n100 2 10 10\n200 4 10 10\n300 1 10 10\n400 6 10 10\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, spec := range []string{"slurm:tree:" + conf, "freelist:name-order"} {
		code, out, stderr := runCLI(t, "", "sim", "--trace", trace, "--graph", conf, "--alloc", spec, "--json")
		if code != 0 || !strings.Contains(out, "\"alloc\"") || !strings.Contains(stderr, "2 separate trees") {
			t.Errorf("%s: exit %d, stderr %q, stdout %.200q", spec, code, stderr, out)
		}
	}
	g, err := slurm.ReadGraphFormat(strings.NewReader("SwitchName=s1 Nodes=cpu[01-04]\nSwitchName=s2 Nodes=cpu[05-10]\n"), slurm.GraphReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Hosts of one tree are two hops apart, of two trees four (through tree-root).
	a, b, c := index(g, "cpu01"), index(g, "cpu02"), index(g, "cpu10")
	if g.Dist(a, b) != 2 || g.Dist(a, c) != 4 {
		t.Errorf("hops cpu01-cpu02 %d, cpu01-cpu10 %d; want 2 and 4", g.Dist(a, b), g.Dist(a, c))
	}
	tr, err := (&sim.Files{}).SlurmTree(context.Background(), conf, "")
	if err != nil {
		t.Fatal(err)
	}
	em, err := alloc.NewSlurm(g, alloc.SlurmConfig{Names: curves.NodeNames(g), Tree: tr})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := em.Allocate(7); err == nil {
		t.Errorf("7 nodes across two trees of 4 and 6: placed on %v; Slurm never places it", got)
	}
	got, err := em.Allocate(5)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range got {
		if n := g.Name(v); n < "cpu05" {
			t.Errorf("5 nodes: %s is on s1; the job fits only s2", n)
		}
	}
}

func index(g *topo.Graph, name string) int {
	for v := range g.N() {
		if g.Name(v) == name {
			return v
		}
	}
	return -1
}

// Issue 34: the slurm-topology writer gives every machine kind a tree slurm:tree
// places every job size on: curve --format slurm-topology, then sim --alloc
// slurm:tree with that file, jobs of 1 node to the whole machine one after another.
func TestSlurmTopologyWriterReplays(t *testing.T) {
	dir := t.TempDir()
	sample := filepath.Join("..", "..", "topo", "testdata")
	for _, c := range []struct {
		machine []string // --machine SPEC or --graph FILE ...
		curve   string
		n       int
	}{
		{[]string{"--machine", "mesh:8x8"}, "hilbert", 64},
		{[]string{"--machine", "torus:6x5"}, "snake", 30},
		{[]string{"--machine", "mesh:4x4x4"}, "rowmajor", 64},
		{[]string{"--machine", "fattree:4,4:4,4:8"}, "name-order", 128},
		{[]string{"--machine", "dragonfly:hosts_per_router=2,routers_per_group=4,intergroup_links=1,num_groups=9"}, "rcm", 72},
		{[]string{"--graph", filepath.Join(sample, "fattree.ibnetdiscover"), "--node-name-map", filepath.Join(sample, "fattree.node-name-map")}, "rcm", 16},
	} {
		conf := filepath.Join(dir, "topology.conf")
		args := append([]string{"curve"}, c.machine...)
		code, _, stderr := runCLI(t, "", append(args, "--curve", c.curve, "--format", "slurm-topology", "-o", conf)...)
		if code != 0 {
			t.Errorf("%v: curve: exit %d: %s", c.machine, code, stderr)
			continue
		}
		var trace strings.Builder
		for i, k := range []int{1, c.n / 2, c.n, 3, c.n - 1, c.n} {
			fmt.Fprintf(&trace, "%d %d 10 10\n", 100*i, k)
		}
		tf := filepath.Join(dir, "jobs.txt")
		if err := os.WriteFile(tf, []byte(trace.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		args = append([]string{"sim"}, c.machine...)
		code, out, stderr := runCLI(t, "", append(args, "--trace", tf, "--alloc", "slurm:tree:"+conf, "--metrics", "sched", "--json")...)
		if code != 0 || !strings.Contains(out, `"jobs": 6`) {
			b, _ := os.ReadFile(conf)
			t.Errorf("%v: sim slurm:tree: exit %d: %s\n%.2000s", c.machine, code, stderr, b)
		}
	}
}
