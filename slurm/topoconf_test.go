package slurm

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/internal/fabrictest"
	"github.com/procalloc/procalloc/topo"
)

// The sample fabric files of topo/testdata: one two-level fat tree as ibnetdiscover
// prints it and as Slurm's topology.conf and topology.yaml describe it.
const testdata = "../topo/testdata/"

func readFile(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestSlurmTopologyFilesMatchTheFabric(t *testing.T) {
	ib := fabrictest.SampleFabric(t, testdata)
	conf, err := ReadTopologyConf(strings.NewReader(readFile(t, testdata+"topology.conf")))
	if err != nil {
		t.Fatal(err)
	}
	fabrictest.CheckSampleFatTree(t, "topology.conf", conf)
	yml, err := ReadTopologyYAML(strings.NewReader(readFile(t, testdata+"topology.yaml")), "")
	if err != nil {
		t.Fatal(err)
	}
	fabrictest.CheckSampleFatTree(t, "topology.yaml tree", yml)
	if ib := fabrictest.HostDist(ib); !maps.Equal(ib, fabrictest.HostDist(conf)) || !maps.Equal(ib, fabrictest.HostDist(yml)) {
		t.Fatal("topology.conf / topology.yaml differ from the ibnetdiscover fabric")
	}
	blocks, err := ReadTopologyYAML(strings.NewReader(readFile(t, testdata+"topology.yaml")), "racks")
	if err != nil {
		t.Fatal(err)
	}
	for a := range blocks.N() {
		for b := range blocks.N() {
			ka, _ := fabrictest.HostNumber(blocks.Name(a))
			kb, _ := fabrictest.HostNumber(blocks.Name(b))
			want := 4
			if a == b {
				want = 0
			} else if (ka-1)/4 == (kb-1)/4 {
				want = 2
			}
			if blocks.Dist(a, b) != want {
				t.Fatalf("blocks: Dist(%s,%s) = %d, want %d", blocks.Name(a), blocks.Name(b), blocks.Dist(a, b), want)
			}
		}
	}
	torus, err := ReadTopologyYAML(strings.NewReader(readFile(t, testdata+"topology.yaml")), "torus")
	if err != nil {
		t.Fatal(err)
	}
	grid := topo.Torus(4, 2, 2)
	for a := range grid.N() {
		for b := range grid.N() {
			if torus.Dist(a, b) != grid.Dist(a, b) {
				t.Fatalf("torus3d: Dist(%d,%d) = %d, torus:4x2x2 has %d", a, b, torus.Dist(a, b), grid.Dist(a, b))
			}
		}
	}
}

func TestDetectGraphFormat(t *testing.T) {
	for file, want := range map[string]string{
		testdata + "fattree.ibnetdiscover": "ibnetdiscover", testdata + "fattree.ibnetdiscover-p": "ibnetdiscover",
		testdata + "topology.conf": "slurm-topology", testdata + "topology.yaml": "slurm-topology-yaml",
		testdata + "fattree.subnet-lst": "subnet-lst", testdata + "fattree.opareport.xml": "opareport",
		testdata + "fattree.opareport-links.txt": "opareport",
	} {
		got, err := DetectGraphFormat([]byte(readFile(t, file)))
		if err != nil || got != want {
			t.Errorf("%s: detected %q (%v), want %q", file, got, err, want)
		}
		// Read as any other format, the file is refused (topo's formats among
		// themselves: topo's TestGraphFormatsPairwise).
		for _, f := range GraphFormats() {
			_, err := ReadGraphFormat(strings.NewReader(readFile(t, file)), GraphReadOptions{Format: f})
			if (f == want) != (err == nil) {
				t.Errorf("%s read as %s: %v", file, f, err)
			}
		}
	}
	// 23.11's block file may start with its BlockLevels= line (read, and so detected).
	blocks := "# 23.11\nBlockLevels=0-1\nBlockName=b1 Nodes=n[1-2]\nBlockName=b2 Nodes=n[3-4]\n"
	if got, err := DetectGraphFormat([]byte(blocks)); err != nil || got != "slurm-topology" {
		t.Errorf("BlockLevels= first: detected %q (%v)", got, err)
	}
	if _, err := ReadTopologyConf(strings.NewReader(blocks)); err != nil {
		t.Errorf("BlockLevels= first: %v", err)
	}
	if got, err := DetectGraphFormat([]byte("# x\na b\n")); err != nil || got != "edges" {
		t.Errorf("edge list detected as %q (%v)", got, err)
	}
	if _, err := DetectGraphFormat([]byte("what is this line\n")); err == nil {
		t.Error("an unknown format was guessed")
	}
}

// Bad input is an error naming the line.
func TestTopologyBadInput(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"SwitchName=s0 Nodes=n[0-3]\nSwitchName=s0 Nodes=n[4-5]\n", "line 2: switch s0 already defined on line 1"},
		{"SwitchName=s0 Nodes=n[3-1]\n", "line 1: Nodes=n[3-1]"},
		{"SwitchName=s0 Nodes=n[0-99999999999999999999]\n", "line 1: Nodes="},
		{"SwitchName=s0 Nodes=n1\nSwitchName=s1 Switches=s[0,2]\n", "line 2: switch s1 has invalid child switch \"s2\""},
		{"SwitchName=s0 Nodes=n1\nBlockName=b Nodes=n2\n", "line 2: BlockName/BlockSizes lines mixed with SwitchName (line 1 is topology/tree)"},
		{"SwitchName=s0 Foo=1\n", "line 1: unknown key \"Foo\""},
		{"SwitchName=s1 SwitchName=s2 Nodes=n1\n", "line 1: two SwitchName= on one line"},
		{"BlockName=b1 Nodes=n1 LinkSpeed=1 LinkSpeed=2\n", "line 1: LinkSpeed= is topology/tree"},
		{"BlockName=b1 Nodes=n1\nBlockSizes=-4,NaN\n", "line 2: BlockSizes=-4,NaN: \"-4\" is not a positive integer"},
		// Issue 30: a switch with both Nodes= and Switches= was accepted here and
		// refused by slurm:tree; Slurm refuses it.
		{"SwitchName=s1 Nodes=n[1-4] Switches=s2\nSwitchName=s2 Nodes=n[5-8]\n", "line 1: switch s1 has both Nodes= and Switches="},
	} {
		_, err := ReadTopologyConf(strings.NewReader(c.src))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.src, err, c.want)
		}
	}
	for _, c := range []struct{ src, want string }{
		{"- topology: a\n  tree:\n    switches:\n      - switch: s\n        nodes: n1\n      - switch: s\n        nodes: n2\n", "line 6: switch s already defined on line 4"},
		{"- topology: a\n  tree:\n    switches:\n      - switch: s\n        nodes: n[5-2]\n", "line 5: nodes"},
		{"- topology: a\n  flat: true\n", "flat"},
		{"- topology: a\n  tree: {switches: []}\n- topology: b\n  flat: true\n", "none has cluster_default"},
		{"- topology: t\n  torus3d:\n    dims: {x: 2, y: 2, z: 2}\n    nodes: n[1-7]\n", "8 positions but 7 nodes"},
		// Issue 24 row 24: what used to be accepted silently.
		{"- topology: a\n  tree:\n    switches:\n      - switch: s\n        nodes: n1\n        speed: 4\n", "line 6: unknown key \"speed\" in a switch"},
		{"- topology: a\n  colour: red\n  tree:\n    switches:\n      - switch: s\n        nodes: n1\n", "line 2: unknown key \"colour\" in a topology"},
		{"- topology: a\n  block:\n    blocks: []\n    sizes: [4]\n", "line 4: unknown key \"sizes\" in a block"},
		{"- topology: a\n  tree: {switches: [{switch: s, nodes: n1}]}\n- topology: a\n  tree: {switches: [{switch: t, nodes: n2}]}\n", "line 3: topology a listed twice (first on line 1)"},
		{"- topology: a\n  tree: {switches: [{switch: s, nodes: n1}]}\n  block: {blocks: [{block: b, nodes: n1}]}\n", "line 1: one topology with tree and block"},
		{"- topology: a\n  cluster_default: yes please\n  tree: {switches: [{switch: s, nodes: n1}]}\n", "line 2: cluster_default: want true or false"},
		{"- topology: a\n  tree:\n    switches:\n      - switch: s0\n        nodes: n1\n      - switch: s1\n        children: s2\n      - switch: s2\n        children: s1\n", "switches form a cycle: s1 -> s2 -> s1"},
		{"- topology: a\n  tree:\n    switches:\n      - switch: s0\n        nodes: n1\n      - switch: s1\n        children: s1\n", "invalid child switch \"s1\""},
		{"- topology: a\n  block:\n    block_sizes: [-4, NaN]\n    blocks: [{block: b, nodes: n1}]\n", "line 3: block_sizes: \"-4\" is not a positive integer"},
		{"- topology: a\n  block:\n    block_sizes: [4, NaN]\n    blocks: [{block: b, nodes: n1}]\n", "block_sizes: \"NaN\""},
		{"- topology: a\n  block:\n    block_sizes: [16, 4]\n    blocks: [{block: b, nodes: n1}]\n", "4 is not a multiple of the base block size 16"},
		{"- topology: a\n  tree: {switches: [{switch: s, nodes: n1, nodes: n2}]}\n", "nodes"},
		{"- topology: a\n  tree: {switches: [{switch: s, nodes: n1}]}\n---\n- topology: b\n  tree: {switches: [{switch: t, nodes: n2}]}\n", "line 4: a second YAML document"},
		{"- topology: t\n  torus3d:\n    dims: {x: 2, y: 2, z: 2, w: 2}\n    nodes: n[1-8]\n", "line 3: unknown key \"w\" in a torus3d dims"},
	} {
		_, err := ReadTopologyYAML(strings.NewReader(c.src), "")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.src, err, c.want)
		}
	}
}

// Issue 24 row 24: a YAML alias reads as the node it names (an alias for a list
// failed).
func TestSlurmTopologyYAMLAliases(t *testing.T) {
	src := `- topology: a
  tree:
    switches:
      - switch: top
        children: &leaves [l1, l2]
      - switch: l1
        nodes: &first n[1-2]
      - switch: l2
        nodes: [n3, *first]
- topology: b
  block:
    blocks:
      - block: b1
        nodes: *leaves
`
	g, err := ReadTopologyYAML(strings.NewReader(src), "a")
	if err != nil {
		t.Fatal(err)
	}
	if g.N() != 3 {
		t.Errorf("%d hosts, want 3 (n1 n2 n3; n[1-2] again under l2 is a second link)", g.N())
	}
	g, err = ReadTopologyYAML(strings.NewReader(src), "b")
	if err != nil || g.N() != 2 {
		t.Fatalf("block of aliased names: %v", err)
	}
}

func FuzzReadSlurmTopology(f *testing.F) {
	f.Add(readFile(f, testdata+"topology.conf"), false)
	f.Add(readFile(f, testdata+"topology.yaml"), true)
	f.Add("BlockName=b1 Nodes=n[1-4]\nBlockName=b2 Nodes=n[5-8]\nBlockSizes=4,8\n", false)
	f.Add("SwitchName=s1 Nodes=n[1-4] Nodes=n[5-6]\n", false)
	f.Add("- topology: a\n  tree:\n    switches:\n      - switch: top\n        children: &l [l1]\n      - switch: l1\n        nodes: n[1-2]\n", true)
	f.Add("- topology: a\n  block:\n    block_sizes: [-4, NaN]\n    blocks: [{block: b, nodes: n1}]\n---\n- x\n", true)
	f.Add("- topology: a\n  tree:\n    switches:\n      - switch: s1\n        children: s2\n      - switch: s2\n        children: s1\n        nodes: n1\n", true)
	f.Add("- topology: t\n  torus3d:\n    toruses:\n      - name: a\n        dims: {x: 2, y: 2, z: 1}\n        nodes: n[1-4]\n        placements:\n          - dims: {x: 2, y: 1, z: 1}\n            anchor_spacing: {x: 1, y: 1, z: 1}\n", true)
	f.Add("SwitchName=n1 Nodes=n[1-2]\nSwitchName=x Nodes=tree-root\n", false)
	// Shapes of real sites' files: spines that list each other (a cycle, which
	// slurmctld refuses), a node on two leaves, names with dots and several
	// hostlists in one Nodes=, LinkSpeed, a leaf of nodes no slurm.conf defines.
	f.Add("SwitchName=S-01 Switches=S-02,S-10,S-11\nSwitchName=S-02 Switches=S-01,S-10\nSwitchName=S-10 Nodes=H-7e,h[22,28]\nSwitchName=S-11 Nodes=r[1-2,5-8],x[1-2]\n", false)
	f.Add("# rack\nSwitchName=switch.2.1 Switches=switch.1.[1-2] LinkSpeed=100Gb/s\nSwitchName=switch.1.1 Nodes=c-n[001-016],n[019-020]\nSwitchName=switch.1.2 Nodes=c-n[017-018,021-036,051]\nSwitchName=s4 Nodes=c-n[037-039,051]\n", false)
	// topology/ring: RingName= lines (Slurm 26.05), a node on two rings, a
	// ring without nodes, keys in any case, a ring of a topology.yaml.
	f.Add("RingName=r0 Nodes=n[1-8]\nringname=r1 nodes=n[16,14,12,10,9,11,13,15] Nodes=n[1-2]\nRingName=r2\n", false)
	f.Add("# rings\nRingName=a Nodes=n[1-4],n[8,7]\nRingName=b Nodes=n[3-6]\nRingName=a Nodes=n9\n", false)
	f.Add("RingName=a Nodes=n[1-3],n2\nRingName=b Nodes=n1 Switches=s\n", false)
	f.Add("- topology: r\n  ring:\n    rings:\n      - {ring: a, nodes: n[1-8]}\n      - {ring: b, nodes: \"n[3,1]\"}\n", true)
	f.Fuzz(func(t *testing.T, src string, yml bool) {
		var top *Topology
		var err error
		if yml {
			top, err = ParseTopologyYAML(strings.NewReader(src), "")
		} else {
			top, err = ParseTopologyConf(strings.NewReader(src))
		}
		if err != nil {
			return
		}
		if top.Rings != nil {
			checkFuzzedRings(t, src, top)
			return
		}
		// What the parser accepts, --graph accepts (issue 30: one set of rules), with
		// the same nodes.
		want := map[string]bool{}
		switch {
		case top.Tree != nil:
			for _, s := range top.Tree.Switches {
				for _, n := range s.Nodes {
					want[n] = true
				}
			}
		case top.Blocks != nil:
			for _, b := range top.Blocks.Blocks {
				for _, n := range b.Nodes {
					want[n] = true
				}
			}
		default:
			for _, n := range top.Torus.Nodes {
				want[n] = true
			}
		}
		g, err := top.Graph()
		if len(want) == 0 {
			// But a topology of no node at all: Slurm accepts blocks without nodes
			// when BlockSizes is set (newBlocks), and a network of no host is refused
			// as such (found by fuzzing: "BlockName=0\nBlockSizes=10").
			if err == nil || !strings.Contains(err.Error(), "no hosts") {
				t.Fatalf("no node: graph %v, error %v; want the network refused for having no hosts", g, err)
			}
			return
		}
		if err != nil {
			t.Fatalf("parsed, but no graph: %v", err)
		}
		checkFabricInvariants(t, g)
		if len(want) != g.N() {
			t.Fatalf("%d nodes in the topology, %d hosts in the graph", len(want), g.N())
		}
		for v := range g.N() {
			if !want[g.Name(v)] {
				t.Fatalf("host %s is in no switch or block", g.Name(v))
			}
		}
	})
}

// checkFuzzedRings checks rings that were read: no ring named twice, no node
// twice in a ring, no network made of them; read from a topology.conf, the
// same rings written as a topology.yaml read back the same (one model for
// both formats).
func checkFuzzedRings(t *testing.T, src string, top *Topology) {
	t.Helper()
	names := map[string]bool{}
	for _, r := range top.Rings.Rings {
		if names[r.Name] {
			t.Fatalf("%q: ring %s read twice", src, r.Name)
		}
		names[r.Name] = true
		in := map[string]bool{}
		for _, n := range r.Nodes {
			if in[n] {
				t.Fatalf("%q: ring %s holds %s twice", src, r.Name, n)
			}
			in[n] = true
		}
	}
	if _, err := top.Graph(); err == nil || !strings.Contains(err.Error(), "topology/ring") {
		t.Fatalf("%q: rings made a network (%v)", src, err)
	}
	if top.Rings.Format != "topology.conf" {
		return
	}
	yml, ok := ringsAsYAML(top.Rings)
	if !ok {
		return
	}
	back, err := ParseTopologyYAML(strings.NewReader(yml), "")
	if err != nil {
		t.Fatalf("%q: its rings written as a topology.yaml do not read back: %v\n%s", src, err, yml)
	}
	if got, want := ringsSummary(back.Rings), ringsSummary(top.Rings); got != want {
		t.Fatalf("%q: read %s, as a topology.yaml %s", src, want, got)
	}
}

func checkFabricInvariants(t *testing.T, g *topo.Graph) {
	t.Helper()
	if g.N() < 1 || g.N() > g.Vertices() {
		t.Fatalf("%d hosts of %d vertices", g.N(), g.Vertices())
	}
	in := map[int]bool{}
	for _, gr := range g.Groups() {
		for _, v := range gr.Nodes {
			if v < 0 || v >= g.N() || in[v] {
				t.Fatalf("group %s holds %d", gr.Name, v)
			}
			in[v] = true
		}
	}
	for v := range g.N() {
		if len(g.Neighbors(v, nil)) == 0 {
			t.Fatalf("host %s has no link", g.Name(v))
		}
	}
}

// A topology file lists at most MaxConfNodes names in all (nameBudget), the line
// that crosses the bound named: two lines of Nodes=a[1-4000000] made a network of
// 8 million hosts in 54 s and 2.6 GB.
func TestTopologyNamesBounded(t *testing.T) {
	half := MaxConfNodes/2 + 1
	conf := fmt.Sprintf("SwitchName=s1 Nodes=a[1-%d]\nSwitchName=s2 Nodes=b[1-%d]\nSwitchName=t Switches=s[1-2]\n", half, half)
	blocks := fmt.Sprintf("BlockName=b1 Nodes=a[1-%d]\nBlockName=b2 Nodes=b[1-%d]\n", half, half)
	yml := fmt.Sprintf("- topology: t\n  cluster_default: true\n  block:\n    block_sizes: [1]\n    blocks:\n      - block: b1\n        nodes: a[1-%d]\n      - block: b2\n        nodes: b[1-%d]\n", half, half)
	want := fmt.Sprintf("%d names, %d with the lines before: more than %d", half, 2*half, MaxConfNodes)
	for _, c := range []struct {
		name, text, line string
		parse            func(string) error
	}{
		{"tree", conf, "line 2: ", func(s string) error { _, err := ParseTopologyConf(strings.NewReader(s)); return err }},
		{"block", blocks, "line 2: ", func(s string) error { _, err := ParseTopologyConf(strings.NewReader(s)); return err }},
		{"yaml", yml, "line 9: ", func(s string) error { _, err := ParseTopologyYAML(strings.NewReader(s), ""); return err }},
	} {
		if err := c.parse(c.text); err == nil || !strings.Contains(err.Error(), c.line) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q and %q", c.name, err, c.line, want)
		}
	}
}

// TestBlocksWithoutNodes: blocks without nodes are accepted when BlockSizes is set,
// with Slurm's warning (block_record.c, block_record_validate: "Blocks do not
// contain any nodes"), in topology.conf and topology.yaml; without BlockSizes they
// are refused as slurmctld refuses them.
func TestBlocksWithoutNodes(t *testing.T) {
	top, err := ParseTopologyConf(strings.NewReader("BlockName=b0\nBlockName=b1\nBlockSizes=4\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(top.Warnings) != 1 || !strings.Contains(top.Warnings[0], "line 3: no block has nodes") || !strings.Contains(top.Warnings[0], "Blocks do not contain any nodes") {
		t.Errorf("warnings %q", top.Warnings)
	}
	if b, err := top.BlocksOf(); err != nil || b.Base != 4 || len(b.Blocks) != 2 {
		t.Errorf("blocks %+v, %v", b, err)
	}
	top, err = ParseTopologyConf(strings.NewReader("BlockName=b0 Nodes=n1\nBlockName=b1\nBlockSizes=4\n"))
	if err != nil || len(top.Warnings) != 0 {
		t.Errorf("a block with nodes: warnings %q, %v", top.Warnings, err)
	}
	if _, err := ParseTopologyConf(strings.NewReader("BlockName=b0\nBlockName=b1\n")); err == nil || !strings.Contains(err.Error(), "BlockSizes are not set") {
		t.Errorf("no nodes, no BlockSizes: %v", err)
	}
}

// sampleTreeGraph reads the sample fat tree's topology.conf (topo/testdata).
func sampleTreeGraph(t testing.TB) *topo.Graph {
	t.Helper()
	g, err := ReadTopologyConf(strings.NewReader(readFile(t, testdata+"topology.conf")))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// rcmTopologyFiles writes, in a temporary directory, g's topology.conf in rcm's
// order (WriteTopology) and a slurm.conf fragment setting
// TopologyParam=SwitchAsNodeRank, for the tests that start a Slurm on them.
func rcmTopologyFiles(t testing.TB, g *topo.Graph) (o curves.Order, topoPath, extra string) {
	t.Helper()
	o, _ = curves.Generate("rcm", g)
	var buf bytes.Buffer
	if _, err := WriteTopology(&buf, g, o, nil); err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	topoPath, extra = filepath.Join(tmp, "topology.conf"), filepath.Join(tmp, "extra.conf")
	if err := os.WriteFile(topoPath, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(extra, []byte("TopologyParam=SwitchAsNodeRank\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return o, topoPath, extra
}
