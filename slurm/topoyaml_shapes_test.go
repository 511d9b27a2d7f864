package slurm

import (
	"bytes"
	"context"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/topo/hostlist"
)

// TestTopologyYAMLShapeErrors: each way a topology.yaml can have the wrong shape
// is refused with the line and the key at fault (these branches had no test).
func TestTopologyYAMLShapeErrors(t *testing.T) {
	sw := "  tree:\n    switches:\n      - switch: s\n        nodes: "
	for _, c := range []struct{ name, src, want string }{
		{"", "", "empty topology.yaml"},
		{"", "topology: a\n", "is a list of topologies"},
		{"", "- just a name\n", "line 1: a topology is a mapping"},
		{"", "- tree: {switches: [{switch: s, nodes: n1}]}\n", "line 1: topology without \"topology: NAME\""},
		{"b", "- topology: a\n  tree: {switches: [{switch: s, nodes: n1}]}\n- topology: c\n  flat: true\n", "no topology \"b\" (the file has a, c)"},
		{"", "- topology: a\n  tree: {}\n", "line 2: tree needs a list \"switches\""},
		{"", "- topology: a\n  tree: {switches: s1}\n", "line 2: tree needs a list \"switches\""},
		{"", "- topology: a\n  tree:\n    switches:\n      - nodes: n1\n", "line 4: a switch needs \"switch: NAME\""},
		{"", "- topology: a\n  tree:\n    switches:\n      - switch: s\n        children: {a: b}\n", "line 5: children: want a hostlist"},
		{"", "- topology: a\n  block: {}\n", "line 2: block needs a list \"blocks\""},
		{"", "- topology: a\n  block:\n    blocks:\n      - nodes: n1\n", "line 4: a block needs \"block: NAME\""},
		{"", "- topology: a\n  block:\n    block_sizes: {a: 1}\n    blocks: [{block: b, nodes: n1}]\n", "line 3: block_sizes: want a list of positive integers"},
		{"", "- topology: a\n  block:\n    blocks: [{block: b, nodes: n1}, {block: b, nodes: n2}]\n", "block b"},
		{"", "- topology: t\n  torus3d:\n    toruses: {name: t}\n", "line 3: toruses: want a list of tori"},
		{"", "- topology: t\n  torus3d:\n    toruses: []\n", "line 3: 0 tori in one topology"},
		{"", "- topology: t\n  torus3d:\n    - {dims: {x: 1, y: 1, z: 1}, nodes: n1}\n    - {dims: {x: 1, y: 1, z: 1}, nodes: n2}\n", "line 3: 2 tori in one topology; procalloc reads one"},
		{"", "- topology: t\n  torus3d:\n    toruses:\n      - name\n", "line 4: torus: want a mapping"},
		{"", "- topology: t\n  torus3d:\n    dims: {x: 2, y: 2, z: 1}\n    regions:\n      - {anchor: {x: 0, y: 0, z: 0}, dims: {x: 2, y: 1, z: 1}, nodes: \"n[1-2]\"}\n    nodes: n[1-4]\n", "line 3: torus3d with nodes and regions (Slurm: \"Torus3d configuration cannot specify both nodes and regions\")"},
		{"", "- topology: t\n  torus3d:\n    dims: {x: 2, y: 2, z: 1}\n    regions:\n      - {anchor: {x: 0, y: 0, z: 0}, dims: {x: 2, y: 1, z: 1}}\n", "line 5: a region without nodes (Slurm: \"Torus3d region missing nodes\""},
		{"", "- topology: t\n  torus3d:\n    dims: {x: 2, y: 2, z: 1}\n    regions:\n      - {anchor: {x: 1, y: 0, z: 0}, dims: {x: 2, y: 1, z: 1}, nodes: \"n[1-2]\"}\n", "line 5: region anchor [1 0 0] + dims [2 1 1] leaves the 2x2x1 torus (regions do not wrap; Slurm: \"Torus3d region dims exceed torus dimensions\""},
		{"", "- topology: t\n  torus3d:\n    dims: {x: 2, y: 2, z: 1}\n    regions:\n      - {dims: {x: 2, y: 1, z: 1}, nodes: \"n[1-3]\"}\n", "line 5: region 2x1x1 = 2 positions but 3 nodes (Slurm: \"Torus3d region node count does not match dims\""},
		{"", "- topology: t\n  torus3d:\n    dims: {x: 2, y: 2, z: 1}\n    regions:\n      - {dims: {x: 2, y: 1, z: 1}, nodes: \"n[1-2]\"}\n      - {anchor: {x: 1}, dims: {x: 1, y: 2, z: 1}, nodes: \"n[3-4]\"}\n", "line 6: region overlaps the region of line 5 at (1, 0, 0) (Slurm: \"Torus3d region overlaps existing nodes\""},
		{"", "- topology: t\n  torus3d:\n    dims: {x: 2, y: 2, z: 1}\n    regions:\n      - {anchor: {x: -1}, dims: {x: 2, y: 1, z: 1}, nodes: \"n[1-2]\"}\n", "line 5: region anchor x = \"-1\": want a non-negative integer"},
		{"", "- topology: t\n  torus3d:\n    dims: {x: 2, y: 2, z: 1}\n    regions:\n      - {corner: {x: 0}, dims: {x: 2, y: 1, z: 1}, nodes: \"n[1-2]\"}\n", "unknown key \"corner\" in a region"},
		{"", "- topology: t\n  torus3d:\n    dims: {x: 2, y: 2, z: 1}\n    regions:\n      - {anchor: {w: 0}, dims: {x: 2, y: 1, z: 1}, nodes: \"n[1-2]\"}\n", "unknown key \"w\" in a torus3d dims"},
		{"", "- topology: t\n  torus3d:\n    dims: {x: 2, y: 2, z: 1}\n    regions: n1\n", "line 4: region: want a mapping"},
		{"", "- topology: t\n  torus3d:\n    dims: {x: 2, y: 2, z: 1}\n    regions:\n      - {dims: {x: 2, y: 1, z: 1}, nodes: \"n[1-2]\"}\n", "torus3d: its regions leave 2 of its 4 positions without a node"},
		{"", "- topology: t\n  torus3d:\n    nodes: n1\n", "line 3: torus3d needs dims"},
		{"", "- topology: t\n  torus3d:\n    dims: {x: 2, y: 0, z: 1}\n    nodes: n[1-2]\n", "line 3: torus3d dims y = \"0\": want a positive integer"},
		{"", "- topology: t\n  torus3d:\n    dims: {x: 2, z: 1}\n    nodes: n[1-2]\n", "line 3: torus3d dims y = \"\""},
		{"", "- topology: t\n  torus3d:\n    dims: {x: 2, y: 1, z: 1}\n    nodes: n[2-1]\n", "line 4: nodes"},
		{"", "- topology: t\n  torus3d:\n    toruses: [{dims: {x: 1, y: 1, z: 1}, nodes: n1}]\n    name: t\n", "line 3: torus3d has toruses and other keys"},
		{"", "- topology: t\n  torus3d:\n    dims: {x: 2, y: 1, z: 1}\n    nodes: n[1-2]\n    placements: {dims: {x: 1}}\n", "line 5: placements: want a list"},
		{"", "- topology: t\n  torus3d:\n    dims: {x: 2, y: 1, z: 1}\n    nodes: n[1-2]\n    placements:\n      - anchor_seed: {x: 0, y: 0, z: 0}\n", "line 6: a placement needs dims"},
		{"", "- topology: t\n  torus3d:\n    dims: {x: 2, y: 1, z: 1}\n    nodes: n[1-2]\n    placements:\n      - dims: {x: 3, y: 1, z: 1}\n", "line 6: placement dims x = \"3\": want an integer within the torus"},
		{"", "- topology: t\n  torus3d:\n    dims: {x: 2, y: 1, z: 1}\n    nodes: n[1-2]\n    placements:\n      - dims: {x: 1, y: 1, z: 1}\n        anchor_spacing: {x: -1}\n", "line 7: placement anchor_spacing x = \"-1\""},
		{"", "- topology: t\n  torus3d:\n    dims: {x: 2, y: 1, z: 1}\n    nodes: n[1-2]\n    placements:\n      - dims: {x: 1, y: 1, z: 1}\n        anchor: {x: 0}\n", "line 7: unknown key \"anchor\" in a placement"},
		{"", "- topology: a\n  tree:\n    switches: [{switch: s, nodes: n1}]\n    depth: 2\n", "line 4: unknown key \"depth\" in a tree"},
		{"", "- topology: a\n  block:\n    blocks: [{block: b, nodes: n1, size: 2}]\n", "unknown key \"size\" in a block entry"},
		{"", "- topology: t\n  torus3d:\n    toruses:\n      - {dims: {x: 1, y: 1, z: 1}, nodes: n1, shape: cube}\n", "unknown key \"shape\" in a torus"},
		{"", "- topology: a\n  zone: x\n", "line 2: unknown key \"zone\" in a topology"},
		{"", "- topology: a\n", "line 1: topology a has none of tree, block, torus3d, ring, flat"},
		{"", "- topology: r\n  ring: {}\n", "line 2: ring needs \"rings\""},
		{"", "- topology: r\n  ring:\n    rings: []\n", "line 3: rings: an empty list (Slurm: \"No rings configured\""},
		{"", "- topology: r\n  ring:\n    rings: r0\n", "line 3: rings: want a list"},
		{"", "- topology: r\n  ring:\n    rings:\n      - nodes: n[1-3]\n", "line 4: a ring needs \"ring: NAME\" (Slurm: \"Can't create a ring without a name\""},
		{"", "- topology: r\n  ring:\n    rings:\n      - {ring: a, nodes: n1}\n      - {ring: a, nodes: n2}\n", "line 5: ring a defined twice (first on line 4; Slurm: \"Ring (a) has already been defined\""},
		{"", "- topology: r\n  ring:\n    rings:\n      - {ring: a, nodes: \"n[1-3],n2\"}\n", "line 4: ring a lists node n2 twice (positions 1 and 3)"},
		{"", "- topology: r\n  ring:\n    rings: [{ring: a, nodes: n1, size: 2}]\n", "unknown key \"size\" in a ring entry"},
		{"", "- topology: r\n  ring:\n    rings: {ring: a, nodes: n1, next: b}\n", "unknown key \"next\" in a ring entry"},
		{"", "- topology: r\n  ring:\n    rings: [{ring: a, nodes: n1}]\n    spacing: 2\n", "line 4: unknown key \"spacing\" in a ring"},
		{"", "- topology: r\n  ring:\n    rings: [{ring: a, nodes: n1}]\n  flat: true\n", "one topology with ring and flat"},
		{"", "- topology: r\n  ring:\n    rings: [{ring: a, nodes: n1}]\n", "a topology/ring configuration (line 3) lists rings of at most 16 nodes with no switches"},
		{"", "- topology: a\n  tree:\n    switches:\n      - &l\n        switch: s\n        nodes: *nothing\n", "unknown anchor 'nothing'"},
		// A list item that is itself a list or a mapping has no names: it was
		// dropped without a word, "nodes: [n1, [n2]]" read as n1 alone.
		{"", "- topology: a\n" + sw + "[n1, [n2]]\n", "line 5: nodes: an item of the list is not a hostlist"},
		{"", "- topology: a\n" + sw + "\n          - n1\n          - {n2: x}\n", "line 7: nodes: an item of the list is not a hostlist"},
		{"", "- topology: t\n  torus3d:\n    dims: {x: 2, y: 1, z: 1}\n    nodes: [n1, [n2]]\n", "line 4: nodes: an item of the list is not a hostlist"},
	} {
		_, err := ReadTopologyYAML(strings.NewReader(c.src), c.name)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q (topology %q): error %v, want %q", c.src, c.name, err, c.want)
		}
	}
}

// TestTopologyYAMLTorusForms: the three ways to write one torus (Slurm 26.05's
// toruses list, the earlier mapping, a list of one) and a node list written as a
// YAML list read as the same network, with the nodes in the same order.
func TestTopologyYAMLTorusForms(t *testing.T) {
	forms := []string{
		"- topology: t\n  torus3d:\n    name: t1\n    dims: {x: 3, y: 2, z: 2}\n    nodes: n[01-12]\n",
		"- topology: t\n  torus3d:\n    toruses:\n      - name: t1\n        dims: {x: 3, y: 2, z: 2}\n        nodes: n[01-12]\n",
		"- topology: t\n  torus3d:\n    - name: t1\n      dims: {x: 3, y: 2, z: 2}\n      nodes: n[01-12]\n",
		"- topology: t\n  torus3d:\n    dims: {x: 3, y: 2, z: 2}\n    nodes: [n01, 'n[02-06]', 'n[07-11]', n12]\n",
	}
	var first *Topology
	for i, src := range forms {
		tp, err := ParseTopologyYAML(strings.NewReader(src), "")
		if err != nil {
			t.Fatalf("form %d: %v", i, err)
		}
		if tp.Torus == nil || tp.Torus.Dims != [3]int{3, 2, 2} || len(tp.Torus.Nodes) != 12 {
			t.Fatalf("form %d: torus %+v", i, tp.Torus)
		}
		for j, n := range tp.Torus.Nodes {
			if want := "n" + string(rune('0'+(j+1)/10)) + string(rune('0'+(j+1)%10)); n != want {
				t.Fatalf("form %d: node %d is %s, want %s (x-fastest order)", i, j, n, want)
			}
		}
		if i == 0 {
			first = tp
			continue
		}
		g0, err0 := first.Graph()
		g, err := tp.Graph()
		if err0 != nil || err != nil {
			t.Fatalf("form %d: %v / %v", i, err0, err)
		}
		if g.N() != g0.N() || g.Spec() != g0.Spec() {
			t.Fatalf("form %d: %s, want %s", i, g.Spec(), g0.Spec())
		}
		for a := range g.N() {
			for b := range g.N() {
				if g.Dist(a, b) != g0.Dist(a, b) {
					t.Fatalf("form %d: dist(%d,%d) = %d, want %d", i, a, b, g.Dist(a, b), g0.Dist(a, b))
				}
			}
		}
	}
}

// TestParseTopologyYAMLAll: every topology of a topology.yaml read whole is the
// topology ParseTopologyYAML selects by its name (the same parser), flat ones
// kept as topologies without a network; Default is the cluster_default one,
// else the first listed (Slurm's topology index 0); Index is by exact name;
// a torus's placements are kept, anchors of their own flagged.
func TestParseTopologyYAMLAll(t *testing.T) {
	data := readFile(t, "../topo/testdata/topology.yaml")
	src := data + `- topology: none
  flat: true
- topology: t2
  torus3d:
    toruses:
      - name: t2
        dims: {x: 2, y: 2, z: 1}
        nodes: m[1-4]
        placements:
          - dims: {x: 2, y: 1, z: 1}
          - dims: {x: 1, y: 1, z: 1}
            anchor_seed: {x: 1, y: 0, z: 0}
`
	y, err := ParseTopologyYAMLAll(context.Background(), strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, e := range y.Topologies {
		kinds = append(kinds, e.Name+":"+e.Kind())
		if e.Topology == nil {
			if _, err := ParseTopologyYAML(strings.NewReader(src), e.Name); err == nil || !strings.Contains(err.Error(), "flat") {
				t.Errorf("%s: ParseTopologyYAML %v", e.Name, err)
			}
			continue
		}
		one, err := ParseTopologyYAML(strings.NewReader(src), e.Name)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(one, e.Topology) {
			t.Errorf("%s: read whole %+v, alone %+v", e.Name, e.Topology, one)
		}
	}
	if got := strings.Join(kinds, " "); got != "fabric:tree racks:block torus:torus3d none:flat t2:torus3d" {
		t.Errorf("topologies %s", got)
	}
	if y.Default() != 0 || y.Index("racks") != 1 || y.Index("Racks") != -1 || y.Names() != "fabric, racks, torus, none, t2" {
		t.Errorf("default %d, index %d %d, names %s", y.Default(), y.Index("racks"), y.Index("Racks"), y.Names())
	}
	t2 := y.Topologies[4].Torus
	if !slices.Equal(t2.Placements, []Box{{2, 1, 1}, {1, 1, 1}}) || !t2.OwnAnchors || y.Topologies[2].Torus.OwnAnchors {
		t.Errorf("placements %v, own anchors %v", t2.Placements, t2.OwnAnchors)
	}
	// Without cluster_default the first listed is the default.
	y, err = ParseTopologyYAMLAll(context.Background(), strings.NewReader(strings.Replace(src, "  cluster_default: true\n", "", 1)))
	if err != nil || y.Default() != 0 {
		t.Fatalf("no cluster_default: %v", err)
	}
	y, err = ParseTopologyYAMLAll(context.Background(), strings.NewReader(strings.Replace(strings.Replace(src, "  cluster_default: true\n", "", 1), "- topology: none\n", "- topology: none\n  cluster_default: true\n", 1)))
	if err != nil || y.Default() != 3 {
		t.Fatalf("cluster_default on none: %v %d", err, y.Default())
	}
	// Two cluster_default: true: Slurm takes the first (topology_g_init's
	// sort keeps file order), said with the line of the second.
	two := strings.Replace(src, "- topology: none\n", "- topology: none\n  cluster_default: true\n", 1)
	y, err = ParseTopologyYAMLAll(context.Background(), strings.NewReader(two))
	if err != nil || y.Default() != 0 || len(y.Warnings) != 1 || !strings.Contains(y.Warnings[0], "line 36: a second cluster_default: true (the first on line 3): Slurm takes the first") {
		t.Errorf("two defaults: %v, default %d, warnings %q", err, y.Default(), y.Warnings)
	}
	if one, err := ParseTopologyYAML(strings.NewReader(two), ""); err != nil || one.Tree == nil || !slices.ContainsFunc(one.Warnings, func(w string) bool { return strings.Contains(w, "line 36") }) {
		t.Errorf("two defaults, the default alone: %v", err)
	}
	// An empty list is no topology.yaml (it was a panic in plan).
	for _, empty := range []string{"[]\n", "# none\n[]\n"} {
		if _, err := ParseTopologyYAMLAll(context.Background(), strings.NewReader(empty)); err == nil || !strings.Contains(err.Error(), "an empty list") {
			t.Errorf("%q: %v", empty, err)
		}
	}
	// An error in any topology is the file's, naming its line.
	if _, err := ParseTopologyYAMLAll(context.Background(), strings.NewReader(src+"- topology: bad\n  block:\n    blocks:\n      - block: b\n        nodes: x[1-2]\n      - block: b\n        nodes: x[3-4]\n")); err == nil || !strings.Contains(err.Error(), "line") {
		t.Errorf("a bad topology: %v", err)
	}
}

// FuzzParseTopologyYAMLAll: whatever the file, reading it whole does not panic;
// when it succeeds, each of its topologies is what ParseTopologyYAML reads by
// that name (a flat one refused there as describing no network), the default is
// one of them, and ParseTopologyYAML without a name reads the default when the
// file has one topology or a cluster_default one.
func FuzzParseTopologyYAMLAll(f *testing.F) {
	f.Add(readFile(f, "../topo/testdata/topology.yaml"))
	f.Add("- topology: none\n  flat: true\n- topology: a\n  cluster_default: true\n  block:\n    block_sizes: [2]\n    blocks: [{block: b, nodes: n[1-2]}]\n")
	f.Add("[]\n")
	f.Add("- topology: r\n  cluster_default: true\n  ring:\n    rings:\n      - ring: r0\n        nodes: n[3,1,2]\n      - {ring: r1, nodes: [n4, n1]}\n")
	f.Add("- topology: a\n  cluster_default: true\n  flat: true\n- topology: b\n  cluster_default: true\n  tree: {switches: [{switch: s, nodes: n1}]}\n")
	f.Fuzz(func(t *testing.T, src string) {
		y, err := ParseTopologyYAMLAll(context.Background(), strings.NewReader(src))
		if err != nil {
			return
		}
		if d := y.Default(); d < 0 || d >= len(y.Topologies) {
			t.Fatalf("default %d of %d", d, len(y.Topologies))
		}
		for i, e := range y.Topologies {
			if y.Index(e.Name) != i {
				t.Fatalf("Index(%q) = %d, want %d", e.Name, y.Index(e.Name), i)
			}
			one, err := ParseTopologyYAML(strings.NewReader(src), e.Name)
			if e.Topology == nil {
				if err == nil || !strings.Contains(err.Error(), "flat") {
					t.Fatalf("%s: flat read whole, alone %v", e.Name, err)
				}
				continue
			}
			if err != nil {
				t.Fatalf("%s: read whole, alone: %v", e.Name, err)
			}
			if !reflect.DeepEqual(one.Tree, e.Tree) || !reflect.DeepEqual(one.Blocks, e.Blocks) || !reflect.DeepEqual(one.Torus, e.Torus) || !reflect.DeepEqual(one.Rings, e.Rings) {
				t.Fatalf("%s: read whole and alone differ", e.Name)
			}
		}
		def := &y.Topologies[y.Default()]
		if len(y.Topologies) == 1 || def.ClusterDefault {
			one, err := ParseTopologyYAML(strings.NewReader(src), "")
			if def.Topology == nil {
				if err == nil {
					t.Fatal("the default is flat, read alone without a name")
				}
				return
			}
			if err != nil || !reflect.DeepEqual(one.Tree, def.Tree) || !reflect.DeepEqual(one.Blocks, def.Blocks) || !reflect.DeepEqual(one.Torus, def.Torus) || !reflect.DeepEqual(one.Rings, def.Rings) {
				t.Fatalf("the default %s, read alone without a name: %v", def.Name, err)
			}
		}
	})
}

// TestTopologyYAMLRings: a ring topology's two forms of rings (a list, one
// mapping; data_parser's TOPOLOGY_RING_CONFIG_ARRAY takes either) and a node
// list written as a YAML list read as the same rings, each ring's nodes in the
// order written (not sorted: the ring's order), a ring without nodes kept
// empty; the kind is "ring", RingsOf returns them and TreeOf refuses them.
func TestTopologyYAMLRings(t *testing.T) {
	want := &Rings{Rings: []Ring{{Name: "r0", Line: 5, Nodes: []string{"n3", "n1", "n2", "n10"}}}}
	for _, src := range []string{
		"- topology: a\n  flat: true\n- topology: r\n  ring:\n    rings:\n      - ring: r0\n        nodes: n[3,1-2],n10\n",
		"- topology: a\n  flat: true\n- topology: r\n  ring:\n    rings:\n      - ring: r0\n        nodes: [n3, \"n[1-2]\", n10]\n",
		"- topology: a\n  flat: true\n- topology: r\n  ring:\n    rings:\n      ring: r0\n      nodes: n[3,1-2],n10\n",
	} {
		top, err := ParseTopologyYAML(strings.NewReader(src), "r")
		if err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		got, err := top.RingsOf()
		if err != nil || top.Kind() != "ring" {
			t.Fatalf("%q: kind %s, %v", src, top.Kind(), err)
		}
		if !reflect.DeepEqual(got.Rings[0].Nodes, want.Rings[0].Nodes) || got.Rings[0].Name != "r0" {
			t.Errorf("%q: %+v, want %+v", src, got, want)
		}
		if _, err := top.TreeOf(); err == nil || !strings.Contains(err.Error(), "topology/ring") {
			t.Errorf("TreeOf: %v", err)
		}
	}
	y, err := ParseTopologyYAMLAll(context.Background(), strings.NewReader("- topology: r\n  ring:\n    rings:\n      - ring: empty\n      - ring: b\n        nodes: n1\n"))
	if err != nil {
		t.Fatal(err)
	}
	if rs := y.Topologies[0].Rings; rs == nil || len(rs.Rings) != 2 || len(rs.Rings[0].Nodes) != 0 || rs.Rings[1].Line != 5 || y.Topologies[0].Kind() != "ring" {
		t.Errorf("rings %+v", y.Topologies[0].Topology)
	}
}

// TestTopologyYAMLTorusRegions: a torus given by regions reads as the torus
// given by nodes in the positions the regions put them at (x fastest within a
// region, offset by its anchor), in both forms of regions (a list, one
// mapping); positions no region covers are empty and counted.
func TestTopologyYAMLTorusRegions(t *testing.T) {
	byNodes, err := ParseTopologyYAML(strings.NewReader("- topology: t\n  torus3d:\n    dims: {x: 2, y: 2, z: 2}\n    nodes: n[5,6,7,8,1,3,2,4]\n"), "t")
	if err != nil {
		t.Fatal(err)
	}
	byRegions, err := ParseTopologyYAML(strings.NewReader("- topology: t\n  torus3d:\n    dims: {x: 2, y: 2, z: 2}\n    regions:\n      - {anchor: {z: 1}, dims: {x: 1, y: 2, z: 1}, nodes: \"n[1-2]\"}\n      - {anchor: {x: 1, z: 1}, dims: {x: 1, y: 2, z: 1}, nodes: \"n[3-4]\"}\n      - {dims: {x: 2, y: 2, z: 1}, nodes: \"n[5-8]\"}\n"), "t")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(byNodes.Torus.Nodes, byRegions.Torus.Nodes) || byRegions.Torus.Empty != 0 {
		t.Fatalf("by regions %v (empty %d), by nodes %v", byRegions.Torus.Nodes, byRegions.Torus.Empty, byNodes.Torus.Nodes)
	}
	g1, err1 := byNodes.Graph()
	g2, err2 := byRegions.Graph()
	if err1 != nil || err2 != nil || g1.N() != g2.N() {
		t.Fatalf("graphs: %v %v", err1, err2)
	}
	one, err := ParseTopologyYAML(strings.NewReader("- topology: t\n  torus3d:\n    toruses:\n      - name: a\n        dims: {x: 2, y: 2, z: 1}\n        regions: {anchor: {y: 1}, dims: {x: 2, y: 1, z: 1}, nodes: \"n[1-2]\"}\n"), "t")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"", "", "n1", "n2"}; !slices.Equal(one.Torus.Nodes, want) || one.Torus.Empty != 2 {
		t.Fatalf("one region: %q (empty %d), want %q", one.Torus.Nodes, one.Torus.Empty, want)
	}
}

// TestRenameTopologyYAMLNodes: a topology.yaml of every kind, in block and flow
// styles, with comments, a quoted list, a YAML list of hostlists and an alias,
// renamed: the file read back is the original read with the names mapped (a
// switch's and block's nodes as sets, a ring's and torus's and region's in
// their order), its comments and other names kept, each list given by rename
// with ordered as its kind says; a multi-line hostlist is an error naming its
// line.
func TestRenameTopologyYAMLNodes(t *testing.T) {
	src := `# site topologies
- topology: fabric   # the tree
  cluster_default: true
  tree:
    switches:
      - switch: leaf1
        nodes: &left n[1-4]
      - switch: leaf2
        nodes: [n5, "n[6-8]"]
      - {switch: spine, children: "leaf[1-2]"}
- topology: racks
  block:
    block_sizes: [4]
    blocks:
      - {block: b1, nodes: *left}
      - block: b2
        nodes: 'n[5-8]'
- topology: rings
  ring:
    rings:
      - ring: r0
        nodes: n[7,3,5,1]
- topology: torus
  torus3d:
    toruses:
      - name: t
        dims: {x: 2, y: 2, z: 2}
        regions:
          - {anchor: {z: 1}, dims: {x: 2, y: 2, z: 1}, nodes: "n[8,6,4,2]"}
          - {dims: {x: 2, y: 2, z: 1}, nodes: "n[1-4]"}
`
	// Every node n<i> becomes m<9-i>: the order of a list is reversed.
	mapName := func(n string) string {
		if i, err := strconv.Atoi(strings.TrimPrefix(n, "n")); err == nil && strings.HasPrefix(n, "n") {
			return "m" + strconv.Itoa(9-i)
		}
		return n
	}
	kinds := map[bool]int{}
	out, err := RenameTopologyYAMLNodes(context.Background(), []byte(src), func(list string, ordered bool) (string, error) {
		kinds[ordered]++
		names, err := hostlist.Expand(list)
		if err != nil {
			return "", err
		}
		for i := range names {
			names[i] = mapName(names[i])
		}
		if !ordered {
			slices.SortFunc(names, hostlist.NaturalCompare)
		}
		return hostlist.Compress(names)
	})
	if err != nil {
		t.Fatal(err)
	}
	if kinds[false] != 4 || kinds[true] != 3 {
		t.Errorf("lists renamed: %d sets, %d ordered; want 4 (the alias once), 3", kinds[false], kinds[true])
	}
	for _, keep := range []string{"# site topologies", "# the tree", "*left", `children: "leaf[1-2]"`, "block_sizes: [4]", "ring: r0"} {
		if !strings.Contains(string(out), keep) {
			t.Errorf("%q lost:\n%s", keep, out)
		}
	}
	before, err := ParseTopologyYAMLAll(context.Background(), strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	after, err := ParseTopologyYAMLAll(context.Background(), bytes.NewReader(out))
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	set := func(ns []string) []string {
		out := slices.Clone(ns)
		slices.Sort(out)
		return out
	}
	mapped := func(ns []string) []string {
		out := make([]string, len(ns))
		for i, n := range ns {
			out[i] = mapName(n)
		}
		return out
	}
	for i, b := range before.Topologies {
		a := after.Topologies[i]
		switch b.Kind() {
		case "tree":
			for j, s := range b.Tree.Switches {
				if !slices.Equal(set(a.Tree.Switches[j].Nodes), set(mapped(s.Nodes))) || a.Tree.Switches[j].Name != s.Name {
					t.Errorf("switch %s: %v, want %v", s.Name, a.Tree.Switches[j].Nodes, mapped(s.Nodes))
				}
			}
		case "block":
			for j, bl := range b.Blocks.Blocks {
				if !slices.Equal(set(a.Blocks.Blocks[j].Nodes), set(mapped(bl.Nodes))) {
					t.Errorf("block %s: %v, want %v", bl.Name, a.Blocks.Blocks[j].Nodes, mapped(bl.Nodes))
				}
			}
		case "ring":
			if got, want := a.Rings.Rings[0].Nodes, mapped(b.Rings.Rings[0].Nodes); !slices.Equal(got, want) {
				t.Errorf("ring: %v, want %v", got, want)
			}
		case "torus3d":
			if got, want := a.Torus.Nodes, mapped(b.Torus.Nodes); !slices.Equal(got, want) {
				t.Errorf("torus: %v, want %v", got, want)
			}
		}
	}
	multi := "- topology: r\n  ring:\n    rings:\n      - ring: a\n        nodes: n1,\n          n2\n"
	if _, err := RenameTopologyYAMLNodes(context.Background(), []byte(multi), func(l string, _ bool) (string, error) { return l, nil }); err == nil || !strings.Contains(err.Error(), "line 5: the node list") {
		t.Errorf("a hostlist on two lines: %v", err)
	}
}
