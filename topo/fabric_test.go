package topo

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func readFile(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func nameMap(t testing.TB) NodeNameMap {
	t.Helper()
	m, err := ReadNodeNameMap(strings.NewReader(readFile(t, "testdata/fattree.node-name-map")))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// hostDist returns the hop distances between the named hosts of g, by name.
func hostDist(g *Graph) map[[2]string]int {
	d := map[[2]string]int{}
	for a := range g.N() {
		for b := range g.N() {
			d[[2]string{g.Name(a), g.Name(b)}] = g.Dist(a, b)
		}
	}
	return d
}

// The sample fat tree: node k sits on leaf ((k-1) mod 4)+1, two spines above the four
// leaves. Hosts on one leaf are 2 hops apart, others 4.
func checkSampleFatTree(t *testing.T, what string, g *Graph) {
	t.Helper()
	if g.N() != 16 || g.Vertices() != 22 {
		t.Fatalf("%s: %d hosts, %d vertices; want 16 and 22", what, g.N(), g.Vertices())
	}
	for a := range g.N() {
		ka, err := atoiSuffix(g.Name(a))
		if err != nil {
			t.Fatalf("%s: host name %q", what, g.Name(a))
		}
		for b := range g.N() {
			kb, _ := atoiSuffix(g.Name(b))
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

func atoiSuffix(s string) (int, error) {
	i := len(s)
	for i > 0 && s[i-1] >= '0' && s[i-1] <= '9' {
		i--
	}
	v := 0
	for _, c := range s[i:] {
		v = v*10 + int(c-'0')
	}
	if i == len(s) {
		return 0, os.ErrInvalid
	}
	return v, nil
}

func TestIBNetDiscoverBothForms(t *testing.T) {
	m := nameMap(t)
	g1, err := ReadIBNetDiscover(strings.NewReader(readFile(t, "testdata/fattree.ibnetdiscover")), m)
	if err != nil {
		t.Fatal(err)
	}
	checkSampleFatTree(t, "default form", g1)
	if v, ok := g1.Lookup("spine02"); !ok || !g1.IsSwitch(v) {
		t.Fatalf("spine02 not a switch")
	}
	g2, err := ReadIBNetDiscover(strings.NewReader(readFile(t, "testdata/fattree.ibnetdiscover-p")), m)
	if err != nil {
		t.Fatal(err)
	}
	checkSampleFatTree(t, "-p form", g2)
	// Without the map switches keep their GUIDs, hosts their descriptions.
	g3, err := ReadIBNetDiscover(strings.NewReader(readFile(t, "testdata/fattree.ibnetdiscover")), nil)
	if err != nil {
		t.Fatal(err)
	}
	checkSampleFatTree(t, "no map", g3)
	if _, ok := g3.Lookup("S-0002c90300a00001"); !ok {
		t.Fatal("unmapped switch not named S-<guid>")
	}
	if !mapsEqual(hostDist(g1), hostDist(g2)) || !mapsEqual(hostDist(g1), hostDist(g3)) {
		t.Fatal("the two forms give different networks")
	}
}

func mapsEqual(a, b map[[2]string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// Fat trees built from merlin's shape: host count, switches per level and port counts
// as merlin wires them; hop distances bounded by twice the number of levels.
func TestFatTreeShape(t *testing.T) {
	for _, c := range []struct {
		shape                string
		hosts, switches, max int
	}{
		{"4,4:4,4:8", 128, 32 + 32 + 16, 6},
		{"2,2:4", 8, 4 + 2, 4},
		{"8", 8, 1, 2},
		{"3,1:3,1:3", 27, 9 + 3 + 1, 6},
	} {
		m, err := ParseMachine("fattree:" + c.shape)
		if err != nil {
			t.Fatal(err)
		}
		g := m.(*Graph)
		if g.N() != c.hosts || g.Vertices()-g.N() != c.switches || g.Spec() != "fattree:"+c.shape {
			t.Fatalf("%s: %d hosts %d switches (%s)", c.shape, g.N(), g.Vertices()-g.N(), g.Spec())
		}
		lv := SwitchLevels(g)
		levels := strings.Split(c.shape, ":")
		for v := g.N(); v < g.Vertices(); v++ {
			l := lv[v-g.N()]
			parts := strings.Split(levels[l], ",")
			down, _ := atoiSuffix(parts[0])
			up := 0
			if len(parts) > 1 {
				up, _ = atoiSuffix(parts[1])
			}
			var nb []int
			nb = g.Neighbors(v, nb)
			if len(nb) > down+up {
				t.Fatalf("%s: switch %s at level %d has %d links, more than %d+%d ports", c.shape, g.Name(v), l, len(nb), down, up)
			}
		}
		far := 0
		for a := range g.N() {
			row := g.DistRow(a)
			for b := range g.N() {
				if row[b] < 0 {
					t.Fatalf("%s: disconnected", c.shape)
				}
				far = max(far, int(row[b]))
			}
		}
		if far != c.max {
			t.Fatalf("%s: diameter between hosts %d, want %d", c.shape, far, c.max)
		}
	}
	for _, bad := range []string{"fattree:", "fattree:4,4", "fattree:4:4", "fattree:0", "fattree:4,x:8", "fattree:1000,1000:1000,1000:1000"} {
		if _, err := ParseMachine(bad); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

// A dragonfly with one global link between every pair of groups (merlin's absolute
// arrangement): every pair of groups is joined, routers are all-to-all in a group,
// so any two hosts are at most 2 + 3 hops apart.
func TestDragonfly(t *testing.T) {
	for _, c := range [][4]int{{2, 4, 1, 9}, {1, 3, 2, 4}, {2, 2, 1, 1}, {1, 4, 1, 5}} {
		g, err := Dragonfly(c[0], c[1], c[2], c[3])
		if err != nil {
			t.Fatal(err)
		}
		if g.N() != c[0]*c[1]*c[3] || g.Vertices()-g.N() != c[1]*c[3] {
			t.Fatalf("%v: %d hosts, %d routers", c, g.N(), g.Vertices()-g.N())
		}
		joined := map[[2]int]bool{}
		for v := g.N(); v < g.Vertices(); v++ {
			gv := (v - g.N()) / c[1]
			for _, w := range g.Neighbors(v, nil) {
				if w >= g.N() {
					if gw := (w - g.N()) / c[1]; gw != gv {
						joined[[2]int{min(gv, gw), max(gv, gw)}] = true
					}
				}
			}
		}
		if len(joined) != c[3]*(c[3]-1)/2 {
			t.Fatalf("%v: %d pairs of groups joined, want all %d", c, len(joined), c[3]*(c[3]-1)/2)
		}
		for a := range g.N() {
			for b := range g.N() {
				if d := g.Dist(a, b); d < 0 || d > 5 {
					t.Fatalf("%v: Dist(%d,%d) = %d", c, a, b, d)
				}
			}
		}
	}
	m, err := ParseMachine("dragonfly:hosts_per_router=2,routers_per_group=4,intergroup_links=1,num_groups=9")
	if err != nil || m.N() != 72 {
		t.Fatalf("dragonfly spec: %v %v", m, err)
	}
	for _, bad := range []string{"dragonfly:", "dragonfly:hosts_per_router=2", "dragonfly:hosts_per_router=2,routers_per_group=4,intergroup_links=0,num_groups=3",
		"dragonfly:hosts_per_router=2,routers_per_group=4,intergroup_links=1,num_groups=3,foo=1", "dragonfly:hosts_per_router=2,hosts_per_router=2,routers_per_group=4,intergroup_links=1,num_groups=3"} {
		if _, err := ParseMachine(bad); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

// Bad input is an error naming the line.
func TestFabricBadInput(t *testing.T) {
	ib := readFile(t, "testdata/fattree.ibnetdiscover")
	lines := strings.Split(ib, "\n")
	// A link to a GUID without a block.
	i := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "[1]\t\"S-0002c90300a00001\"") })
	unknown := slices.Clone(lines)
	unknown[i] = strings.Replace(unknown[i], "0002c90300a00001", "00000000deadbeef", 1)
	// A switch listed twice.
	j := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "Switch\t40 \"S-0002c90300b00002\"") })
	twice := slices.Clone(lines)
	twice[j] = strings.Replace(twice[j], "b00002", "b00001", 1)
	for _, c := range []struct{ what, src, want string }{
		{"unknown GUID", strings.Join(unknown, "\n"), "line " + strconv.Itoa(i+1) + ": link to GUID 00000000deadbeef"},
		{"switch twice", strings.Join(twice, "\n"), "line " + strconv.Itoa(j+1) + ": switch 0002c90300b00001 listed twice"},
		{"garbage", "Switch 4 \"S-00\"\n[x] nonsense\n", "line 2: malformed port line"},
		{"mixed forms", ib + "\nCA 3 1 0x1 4x HDR - SW 1 1 0x2 ( 'a' - 'b' )\n", "do not mix"},
	} {
		_, err := ReadIBNetDiscover(strings.NewReader(c.src), nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.what, err, c.want)
		}
	}
}

func TestEdgeListSwitches(t *testing.T) {
	src := "%switch top\n%switch s1\n%switch s2\na s1\nb s1\nc s2\nd s2\ns1 top\ns2 top\n"
	g, err := ReadGraph(strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	if g.N() != 4 || g.Vertices() != 7 || len(g.Groups()) != 2 || g.Dist(0, 1) != 2 || g.Dist(0, 2) != 4 {
		t.Fatalf("N=%d V=%d groups=%v d=%d,%d", g.N(), g.Vertices(), g.Groups(), g.Dist(0, 1), g.Dist(0, 2))
	}
	if _, err := ReadGraph(strings.NewReader("%switch s\n%switch s\na s\n")); err == nil || !strings.Contains(err.Error(), "line 2: switch s listed twice") {
		t.Fatalf("switch twice: %v", err)
	}
	if _, err := ReadGraph(strings.NewReader("%switch s\na s\nb s\n%group g: a s\n")); err == nil || !strings.Contains(err.Error(), "line 4: group \"g\" names switch") {
		t.Fatalf("a group holding a switch: %v", err)
	}
}

func FuzzReadIBNetDiscover(f *testing.F) {
	f.Add(readFile(f, "testdata/fattree.ibnetdiscover"))
	f.Add(readFile(f, "testdata/fattree.ibnetdiscover-p"))
	f.Add("Switch 2 \"S-01\" # \"x\"\n[1] \"H-02\"[1]\nCa 1 \"H-02\" # \"h1 HCA\"\n[1](3) \"S-01\"[1]\n")
	f.Fuzz(func(t *testing.T, src string) {
		g, err := ReadIBNetDiscover(strings.NewReader(src), nil)
		if err != nil {
			return
		}
		checkFabricInvariants(t, g)
		// The same fabric as a -p ports report reads as the same network: the same
		// hosts and switches, linked alike.
		ports, ok := ibPortsReport(src)
		if !ok {
			return
		}
		gp, err := ReadIBNetDiscover(strings.NewReader(ports), nil)
		if err != nil {
			t.Fatalf("%q as a ports report %q: %v", src, ports, err)
		}
		if d, dp := fabricByName(g), fabricByName(gp); d != dp {
			t.Fatalf("%q: default form\n%s\nports report %q\n%s", src, d, ports, dp)
		}
	})
}

// ibPortsReport writes a default-form ibnetdiscover dump as the -p ports report
// of the same links (node GUIDs for port GUIDs), or false when it cannot: a node
// without a link (the report lists ports, so it would be missing), or a description
// with a quote; and false for a ports report.
func ibPortsReport(src string) (string, bool) {
	type node struct {
		typ, desc string
		linked    bool
	}
	nodes := map[uint64]*node{}
	var cur uint64
	var links [][2]uint64
	guid := func(s string) uint64 { v, _ := strconv.ParseUint(s, 16, 64); return v }
	for l := range strings.Lines(src) {
		t := strings.TrimSpace(l)
		if m := ibNodeRe.FindStringSubmatch(t); m != nil {
			cur = guid(m[4])
			n := &node{typ: map[string]string{"Switch": "SW", "Ca": "CA", "Rt": "RT"}[m[1]]}
			if _, c, ok := strings.Cut(m[5], "#"); ok {
				if q := ibQuoted.FindStringSubmatch(c); q != nil {
					n.desc = q[1]
				}
			}
			nodes[cur] = n
		} else if m := ibPortRe.FindStringSubmatch(t); m != nil && strings.HasPrefix(t, "[") {
			links = append(links, [2]uint64{cur, guid(m[3])})
		}
	}
	if len(nodes) == 0 {
		return "", false // a ports report already
	}
	var b strings.Builder
	for _, l := range links {
		a, z := nodes[l[0]], nodes[l[1]]
		if a == nil || z == nil {
			return "", false
		}
		a.linked, z.linked = true, true
		fmt.Fprintf(&b, "%s 1 1 0x%016x 4x HDR - %s 2 1 0x%016x ( '%s' - '%s' )\n", a.typ, l[0], z.typ, l[1], a.desc, z.desc)
	}
	for _, n := range nodes {
		if !n.linked || strings.ContainsRune(n.desc, '\'') {
			return "", false
		}
	}
	return b.String(), true
}

// fabricByName is g's hosts, switches and links by name, sorted: a network
// independent of the order its vertices were met in.
func fabricByName(g *Graph) string {
	var hosts, sws, links []string
	for v := range g.Vertices() {
		if g.IsSwitch(v) {
			sws = append(sws, g.Name(v))
		} else {
			hosts = append(hosts, g.Name(v))
		}
		for _, w := range g.Neighbors(v, nil) {
			if g.Name(v) < g.Name(w) {
				links = append(links, g.Name(v)+" "+g.Name(w))
			}
		}
	}
	for _, s := range [][]string{hosts, sws, links} {
		slices.Sort(s)
	}
	return fmt.Sprintf("hosts %v\nswitches %v\nlinks %v", hosts, sws, links)
}

func FuzzParseMachine(f *testing.F) {
	for _, s := range []string{"fattree:4,4:4,4:8", "fattree:2,2:4", "dragonfly:hosts_per_router=1,routers_per_group=2,intergroup_links=1,num_groups=3", "mesh:4x4"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		m, err := ParseMachine(spec)
		// A sweep checks its machines with CheckMachineSpec before its first item
		// runs: it accepts what ParseMachine builds and refuses what it refuses.
		if cerr := CheckMachineSpec(spec); (cerr == nil) != (err == nil) {
			t.Fatalf("%q: CheckMachineSpec %v, ParseMachine %v", spec, cerr, err)
		}
		if err != nil {
			return
		}
		if m.N() < 1 {
			t.Fatalf("%q: %d nodes", spec, m.N())
		}
		if g, ok := m.(*Graph); ok && g.Vertices() < 5000 {
			checkFabricInvariants(t, g)
		}
	})
}

func checkFabricInvariants(t *testing.T, g *Graph) {
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

func FuzzReadNodeNameMap(f *testing.F) {
	f.Add(readFile(f, "testdata/fattree.node-name-map"))
	f.Add("0x1 a # c\n0X2 \"b\"\n")
	f.Fuzz(func(t *testing.T, src string) {
		m, err := ReadNodeNameMap(strings.NewReader(src))
		if err != nil {
			return
		}
		for g, name := range m {
			if name == "" || strings.ContainsAny(name, " \t") {
				t.Fatalf("GUID %x mapped to %q", g, name)
			}
		}
	})
}

// BFSOrder walks through the switches and returns the hosts only, each once.
func TestBFSOrderSkipsSwitches(t *testing.T) {
	m, _ := ParseMachine("fattree:4,4:8")
	g := m.(*Graph)
	o := BFSOrder(g, 5)
	seen := map[int]bool{}
	for _, v := range o {
		if v < 0 || v >= g.N() || seen[v] {
			t.Fatalf("BFSOrder gave %v", o)
		}
		seen[v] = true
	}
	if len(o) != g.N() || o[0] != 5 {
		t.Fatalf("BFSOrder: %d of %d hosts, first %d", len(o), g.N(), o[0])
	}
	// The four hosts of node 5's leaf come first.
	for _, v := range o[1:4] {
		if g.Dist(5, v) != 2 {
			t.Fatalf("BFSOrder from 5: %v", o[:4])
		}
	}
}

func TestDetectGraphFormat(t *testing.T) {
	for file, want := range map[string]string{
		"testdata/fattree.ibnetdiscover": "ibnetdiscover", "testdata/fattree.ibnetdiscover-p": "ibnetdiscover",
	} {
		got, err := DetectGraphFormat([]byte(readFile(t, file)))
		if err != nil || got != want {
			t.Errorf("%s: detected %q (%v), want %q", file, got, err, want)
		}
	}
	if got, err := DetectGraphFormat([]byte("# x\na b\n")); err != nil || got != "edges" {
		t.Errorf("edge list detected as %q (%v)", got, err)
	}
	// topo knows nothing of Slurm: a topology.conf is not guessed (package slurm's
	// DetectGraphFormat reads it).
	for _, src := range []string{"what is this line\n", readFile(t, "testdata/topology.conf")} {
		var u *UndetectedFormatError
		if _, err := DetectGraphFormat([]byte(src)); !errors.As(err, &u) || !strings.Contains(err.Error(), "give --graph-format (edges, ibnetdiscover)") {
			t.Errorf("%.30q: %v", src, err)
		}
	}
}
