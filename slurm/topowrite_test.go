package slurm

import (
	"bytes"
	"fmt"
	"math/rand/v2"
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

// TestWriteTopologyDragonflyGroups: on dragonflies of every shape (1 to 6 routers a
// group, 1 to 6 groups, 1 to 3 global links between two groups, 1 to 3 hosts a
// router), built from the spec and read back from an edge list that declares hosts,
// routers and links in random order, along rcm and a random ordering, the written
// file is one tree whose every procalloc-group switch holds exactly one dragonfly
// group's routers (topo's group of each router, DragonflyRouterIndex /
// RoutersPerGroup, checked router by router), every group of two or more routers has
// one, and a group of one router hangs under the root itself. On the spec the groups
// are also the builder's (router GxRy in group x) and no warning doubts them; on the
// file they are the builder's too, unless the links allow other groups, and then a
// warning says the groups are not certain (but for routers all joined, one group or
// groups of one, which make the same tree).
func TestWriteTopologyDragonflyGroups(t *testing.T) {
	rng := rand.New(rand.NewPCG(2026, 1206))
	shapes, fileOther, fileWarned := 0, 0, 0
	for a := 1; a <= 6; a++ {
		for G := 1; G <= 6; G++ {
			for l := 1; l <= 3; l++ {
				if G == 1 && l > 1 {
					continue
				}
				p := 1 + rng.IntN(3)
				spec := fmt.Sprintf("dragonfly:hosts_per_router=%d,routers_per_group=%d,intergroup_links=%d,num_groups=%d", p, a, l, G)
				m, err := topo.ParseMachine(spec)
				if err != nil {
					t.Fatal(err)
				}
				sg := m.(*topo.Graph)
				file := shuffledEdgeList(sg, rng)
				fg, err := topo.ReadGraph(strings.NewReader(file))
				if err != nil {
					t.Fatal(err)
				}
				builder := func(name string) int { // GxRy: group x
					var x, y int
					if _, err := fmt.Sscanf(name, "G%dR%d", &x, &y); err != nil {
						t.Fatalf("%s: router %q", spec, name)
					}
					return x
				}
				for _, g := range []*topo.Graph{sg, fg} {
					sh, ok := g.Dragonfly()
					if !ok {
						t.Fatalf("%s: not a dragonfly: %s", spec, g.DragonflyReason())
					}
					// Does topo's split differ from the builder's?
					differs := false
					together := map[int]int{} // builder's group -> topo's
					for v := g.N(); v < g.Vertices(); v++ {
						b, mine := builder(g.Name(v)), g.DragonflyRouterIndex(v)/sh.RoutersPerGroup
						if x, seen := together[b]; seen && x != mine || sh.RoutersPerGroup != a {
							differs = true
						}
						together[b] = mine
					}
					if g == sg && differs {
						t.Fatalf("%s: topo's groups of the spec are not the builder's", spec)
					}
					rcm, err := curves.Generate("rcm", g)
					if err != nil {
						t.Fatal(err)
					}
					for _, o := range []curves.Order{rcm, curves.Order(rng.Perm(g.N()))} {
						var buf bytes.Buffer
						ws, err := WriteTopology(&buf, g, o, nil)
						if err != nil {
							t.Fatalf("%s: %v", spec, err)
						}
						doubt := slices.ContainsFunc(ws, func(w string) bool { return strings.Contains(w, "are not certain") })
						oneTree := a == 1 && sh.Groups == 1 // the file's reading of G routers of one group each
						switch {
						case g == sg && doubt:
							t.Errorf("%s: the spec's groups doubted: %q", spec, ws)
						case differs && !doubt && !oneTree:
							t.Errorf("%s read from a file: groups of %d, the builder's differ, no warning: %q", spec, sh.RoutersPerGroup, ws)
						}
						if g == fg && differs {
							fileOther++
							if doubt {
								fileWarned++
							}
						}
						checkGroupSwitches(t, spec, g, buf.Bytes())
					}
				}
				shapes++
			}
		}
	}
	t.Logf("%d shapes (spec and file, two orderings each); %d file readings split otherwise than the builder, %d of them warned of (the others: routers all joined, one group or groups of one, the same tree)", shapes, fileOther/2, fileWarned/2)
}

// checkGroupSwitches checks a written topology.conf of dragonfly g: one tree, every
// procalloc-group switch holding exactly one of g's groups (topo's, router by router),
// every group of two or more routers under one, a group of one router under the root.
func checkGroupSwitches(t *testing.T, spec string, g *topo.Graph, conf []byte) {
	t.Helper()
	sh, _ := g.Dragonfly()
	a := sh.RoutersPerGroup
	top, err := ParseTopologyConf(bytes.NewReader(conf))
	if err != nil {
		t.Fatalf("%s: the written file is refused: %v\n%s", spec, err, conf)
	}
	tr := top.Tree
	if len(tr.Tops()) != 1 {
		t.Fatalf("%s: %d trees\n%s", spec, len(tr.Tops()), conf)
	}
	groupOf := func(s int) int {
		v, ok := g.Lookup(tr.Switches[s].Name)
		if !ok || tr.Switches[s].Level != 0 {
			t.Fatalf("%s: %s is no router of the dragonfly\n%s", spec, tr.Switches[s].Name, conf)
		}
		return g.DragonflyRouterIndex(v) / a
	}
	switched := map[int]string{} // group -> its switch
	for _, s := range tr.Switches {
		if !strings.HasPrefix(s.Name, "procalloc-group") {
			continue
		}
		gr := groupOf(s.Children[0])
		if prev, dup := switched[gr]; dup {
			t.Fatalf("%s: group %d under %s and %s\n%s", spec, gr, prev, s.Name, conf)
		}
		switched[gr] = s.Name
		var got, want []int
		for _, c := range s.Children {
			if groupOf(c) != gr {
				t.Fatalf("%s: %s holds %s of group %d and %s of group %d\n%s", spec, s.Name, tr.Switches[s.Children[0]].Name, gr, tr.Switches[c].Name, groupOf(c), conf)
			}
			v, _ := g.Lookup(tr.Switches[c].Name)
			got = append(got, g.DragonflyRouterIndex(v))
		}
		for r := gr * a; r < (gr+1)*a; r++ {
			want = append(want, r)
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Fatalf("%s: %s holds routers %v, group %d is %v\n%s", spec, s.Name, got, gr, want, conf)
		}
	}
	root := tr.Tops()[0]
	for gr := range sh.Groups {
		if _, ok := switched[gr]; ok != (a > 1) {
			t.Fatalf("%s: group %d of %d routers has a group switch: %v\n%s", spec, gr, a, ok, conf)
		}
		if a == 1 && sh.Groups > 1 && tr.Switches[tr.Switches[mustIndex(t, tr, g.Name(g.DragonflyRouterVertex(gr)))].Parent].Name != tr.Switches[root].Name {
			t.Fatalf("%s: router of group %d is not under the root\n%s", spec, gr, conf)
		}
	}
}

func mustIndex(t *testing.T, tr *Tree, name string) int {
	i, ok := tr.Index(name)
	if !ok {
		t.Fatalf("no switch %s", name)
	}
	return i
}

// shuffledEdgeList writes g as an edge list (topo.ReadGraph) with its own names,
// hosts, switches and links declared in random order (so the file numbers them
// otherwise than g).
func shuffledEdgeList(g *topo.Graph, rng *rand.Rand) string {
	var b strings.Builder
	n := g.N()
	for _, h := range rng.Perm(n) {
		fmt.Fprintf(&b, "%%node %s\n", g.Name(h))
	}
	for _, s := range rng.Perm(g.Vertices() - n) {
		fmt.Fprintf(&b, "%%switch %s\n", g.Name(n+s))
	}
	var links [][2]int
	for v := range g.Vertices() {
		for _, w := range g.Neighbors(v, nil) {
			if v < w {
				links = append(links, [2]int{v, w})
			}
		}
	}
	rng.Shuffle(len(links), func(i, j int) { links[i], links[j] = links[j], links[i] })
	for _, l := range links {
		fmt.Fprintf(&b, "%s %s\n", g.Name(l[0]), g.Name(l[1]))
	}
	return b.String()
}

// A network of separate trees that is no dragonfly topo recognises (one router of a
// dragonfly with a host more than the others) gets groups guessed from triangles,
// and a warning says they are guessed and why the network is no dragonfly.
func TestWriteTopologyGuessedGroupsWarned(t *testing.T) {
	m, err := topo.ParseMachine("dragonfly:hosts_per_router=2,routers_per_group=4,intergroup_links=1,num_groups=3")
	if err != nil {
		t.Fatal(err)
	}
	file := shuffledEdgeList(m.(*topo.Graph), rand.New(rand.NewPCG(1, 2))) + "%node extra\nextra G1R2\n"
	g, err := topo.ReadGraph(strings.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := g.Dragonfly(); ok {
		t.Fatal("a router with a host more is taken for a dragonfly's")
	}
	var buf bytes.Buffer
	ws, err := WriteTopology(&buf, g, curves.RowMajor(g.N()), nil)
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(ws, "\n")
	if !strings.Contains(all, "is no dragonfly procalloc recognises (switch") || !strings.Contains(all, "procalloc-group<N> are guessed") {
		t.Errorf("no warning that the groups are guessed: %q", ws)
	}
	top, err := ParseTopologyConf(&buf)
	if err != nil || len(top.Tree.Tops()) != 1 {
		t.Fatalf("not one tree Slurm accepts: %v\n%s", err, buf.String())
	}
}
