package topo

import (
	"errors"
	"fmt"
	"math"
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
			down, _ := strconv.Atoi(parts[0])
			up := 0
			if len(parts) > 1 {
				up, _ = strconv.Atoi(parts[1])
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
	// Real dumps' forms (TestIBNetDiscoverFirmwareDescriptions, ...StandardError):
	// firmware-default NodeDescriptions, standard error saved with the output.
	f.Add(strings.ReplaceAll(strings.ReplaceAll(ibFormsBase, "node01 mlx5_0", "MT4129 ConnectX7   Mellanox Technologies"), "node02 mlx5_0", "MT4129 ConnectX7   Mellanox Technologies"))
	f.Add("src/query_smp.c:195; umad (DR path slid 0; dlid 0; 0,1,1,31 Attr 0x11:0) bad status 110; Connection timed out\n" + ibFormsBase + "ibwarn: [1] f: x\n")
	f.Add("\ufeff" + ibFormsBase) // TestIBNetDiscoverByteOrderMark
	f.Fuzz(func(t *testing.T, src string) {
		// As the reader before wt-fabricmem read it (fabricref_test.go).
		if _, diff := CompareFabricReaders("ibnetdiscover", []byte(src), nil); diff != nil {
			t.Fatalf("%.300q: %v", src, diff)
		}
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
	type link struct {
		a, b         uint64
		aPort, bPort string
	}
	var links []link
	guid := func(s string) uint64 { v, _ := strconv.ParseUint(s, 16, 64); return v }
	for l := range strings.Lines(src) {
		t := strings.TrimSpace(l)
		if m := ibNodeRe.FindStringSubmatch(t); m != nil {
			cur = guid(m[4])
			n := &node{typ: map[string]string{"Switch": "SW", "Ca": "CA", "Rt": "RT"}[m[1]]}
			if m[1] != "Switch" {
				n.desc = ibCaDesc(m[5])
			}
			nodes[cur] = n
		} else if m := ibPortRe.FindStringSubmatch(t); m != nil && strings.HasPrefix(t, "[") {
			links = append(links, link{cur, guid(m[3]), m[1], m[4]})
		}
	}
	if len(nodes) == 0 {
		return "", false // a ports report already
	}
	var b strings.Builder
	for _, l := range links {
		a, z := nodes[l.a], nodes[l.b]
		if a == nil || z == nil {
			return "", false
		}
		a.linked, z.linked = true, true
		fmt.Fprintf(&b, "%s 1 %s 0x%016x 4x HDR - %s 2 %s 0x%016x ( '%s' - '%s' )\n", a.typ, l.aPort, l.a, z.typ, l.bPort, l.b, a.desc, z.desc)
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

// FuzzReadNodeNameMap compares ReadNodeNameMap with an independent reading of the
// file as infiniband-diags (rdma-core's util/node_name_map.c, the reader behind
// ibnetdiscover --node-name-map and OpenSM) reads it: whatever ReadNodeNameMap
// accepts must map the same GUIDs to the same names there. ReadNodeNameMap may
// refuse what infiniband-diags takes silently (a GUID given twice, a line without a
// name, a name with spaces); it may not read a file differently.
func FuzzReadNodeNameMap(f *testing.F) {
	f.Add(readFile(f, "testdata/fattree.node-name-map"))
	f.Add("0x1 a # c\n0X2 \"b\"\n")
	f.Add("0x1 node01\r\n0x2 \"node02\" rack 3\n\t# comment\n")
	f.Add("1234 n1\n")                         // infiniband-diags: decimal 1234, not 0x1234
	f.Add("0x10 \"a#b\"\n")                    // infiniband-diags: "a" ('#' ends the name)
	f.Add("0x10 a\"b\n")                       // infiniband-diags: "a"
	f.Add("0x10\u00a0name\n")                  // a no-break space is no space to C's isspace
	f.Add("0x1 a\n0x01 b\n")                   // one GUID twice
	f.Add("H-0002c90300080d28 r510gluster4\n") // ibnetdiscover's node name, no GUID
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
		ref, ok := nodeNameMapAsDiags(src)
		if !ok {
			t.Fatalf("accepted %q, which infiniband-diags refuses; read as %v", src, m)
		}
		if ref == nil {
			return // lines too long for infiniband-diags' buffer, or a NUL: not comparable
		}
		if len(ref) != len(m) {
			t.Fatalf("%q: %d GUIDs, infiniband-diags reads %d: %v against %v", src, len(m), len(ref), m, ref)
		}
		for g, name := range ref {
			// infiniband-diags keeps the blanks before a comment and a CR of a CRLF
			// line in the name; they are no part of a host name.
			if want := strings.TrimRight(name, cSpace); m[g] != want {
				t.Fatalf("%q: GUID %#x is %q, infiniband-diags reads %q", src, g, m[g], want)
			}
		}
	})
}

// What infiniband-diags reads otherwise than the map's writer meant is an error
// naming the line, not a guess; the forms it reads as meant are read.
func TestReadNodeNameMapAsDiags(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"0x10 a\n1234 n1\n", `line 2: GUID "1234" has no 0x: infiniband-diags reads it as a decimal`},
		{"0002c90300a00001 leaf\n", `GUID "0002c90300a00001" has no 0x`},
		{"0x10 \"a#b\"\n", `line 1: name "a#b": infiniband-diags ends a name at '"' or '#'`},
		{"0x10 a\"b\n", `name "a\"b"`},
		{"0x10\u00a0name\n", `"0x10\u00a0name" is not a GUID`},
		{"0x -\n", `"0x" is not a GUID`},
		// ibnetdiscover's node names as some tools' maps give them (HPC_toolset's
		// ibmapviz: "H-003048c74e4a0000 x5570comp1"); infiniband-diags reads 0.
		{"# cluster X5\nH-003048c74e4a0000 x5570comp1\n", `line 2: "H-003048c74e4a0000" is ibnetdiscover's name of a node, not a GUID: write 0x003048c74e4a0000`},
		{"S-0008f10500200b50 leaf1\n", `write 0x0008f10500200b50`},
		{"\ufeff0x10 node01\n", `line 1: the file starts with a UTF-8 byte-order mark`},
	} {
		if _, err := ReadNodeNameMap(strings.NewReader(c.src)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.src, err, c.want)
		}
	}
	m, err := ReadNodeNameMap(strings.NewReader("0x1 node01\r\n0X2 \"node02\" rack 3\n\t# c\n0x3\tnode03 # c\n0x4#x\n"))
	if err == nil {
		t.Fatalf("a line without a name accepted: %v", m)
	}
	m, err = ReadNodeNameMap(strings.NewReader("0x1 node01\r\n0X2 \"node02\" rack 3\n\t# c\n0x3\tnode03 # c\n\v0x4\fnode04\n"))
	if err != nil || len(m) != 4 || m[1] != "node01" || m[2] != "node02" || m[3] != "node03" || m[4] != "node04" {
		t.Fatalf("%v, %v", m, err)
	}
}

// cSpace are the bytes C's isspace takes for white space (in the C locale).
const cSpace = " \t\n\v\f\r"

// nodeNameMapAsDiags reads a node-name-map as infiniband-diags does, written from
// its documented behaviour for the fuzz test: lines of at most 255 bytes (fgets into
// 256); blank lines and lines whose first non-blank byte is '#' skipped; the GUID
// read as strtoull(p, &e, 0) does (an optional sign; 0x for hexadecimal, a leading
// 0 for octal, decimal otherwise; the largest value on overflow), followed by a
// blank, '#' or the end, else the file is refused (ok false); the name is the first
// token of the rest, after blanks, delimited by '"' and '#' (strtok), none
// mapping nothing; a GUID mapped again keeps its first name (cl_qmap_insert). A
// nil map with ok true means the input is outside what it can be compared on.
func nodeNameMapAsDiags(src string) (map[uint64]string, bool) {
	if strings.IndexByte(src, 0) >= 0 {
		return nil, true
	}
	lines := strings.SplitAfter(src, "\n")
	for _, l := range lines {
		if len(l) > 255 {
			return nil, true
		}
	}
	isSpace := func(c byte) bool { return strings.IndexByte(cSpace, c) >= 0 }
	digit := func(c byte, base uint64) (uint64, bool) {
		var d uint64
		switch {
		case c >= '0' && c <= '9':
			d = uint64(c - '0')
		case c >= 'a' && c <= 'z':
			d = uint64(c-'a') + 10
		case c >= 'A' && c <= 'Z':
			d = uint64(c-'A') + 10
		default:
			return 0, false
		}
		return d, d < base
	}
	m := map[uint64]string{}
	for _, l := range lines {
		i := 0
		for i < len(l) && isSpace(l[i]) {
			i++
		}
		if i == len(l) || l[i] == '#' {
			continue
		}
		// strtoull(p, &e, 0)
		start, neg := i, false
		if l[i] == '+' || l[i] == '-' {
			neg = l[i] == '-'
			i++
		}
		base := uint64(10)
		if i+1 < len(l) && l[i] == '0' && (l[i+1] == 'x' || l[i+1] == 'X') {
			if i+2 < len(l) {
				if _, ok := digit(l[i+2], 16); ok {
					base, i = 16, i+2
				}
			}
			if base != 16 {
				base = 8 // "0x" without a hexadecimal digit: the 0 alone
			}
		} else if i < len(l) && l[i] == '0' {
			base = 8
		}
		var v uint64
		n, overflow := 0, false
		for ; i < len(l); i++ {
			d, ok := digit(l[i], base)
			if !ok {
				break
			}
			if v > (math.MaxUint64-d)/base {
				overflow = true
			}
			v = v*base + d
			n++
		}
		if n == 0 {
			i = start // no number: e = p
		}
		if overflow {
			v = math.MaxUint64
		} else if neg {
			v = -v
		}
		if i == start || i < len(l) && !isSpace(l[i]) && l[i] != '#' {
			return nil, false
		}
		for i < len(l) && isSpace(l[i]) {
			i++
		}
		rest := strings.TrimSuffix(l[i:], "\n")
		rest = strings.TrimLeft(rest, "\"#")
		if j := strings.IndexAny(rest, "\"#"); j >= 0 {
			rest = rest[:j]
		}
		if rest == "" {
			continue
		}
		if _, dup := m[v]; !dup {
			m[v] = rest
		}
	}
	return m, true
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
		if _, err := DetectGraphFormat([]byte(src)); !errors.As(err, &u) || !strings.Contains(err.Error(), "give --graph-format (edges, ibnetdiscover, subnet-lst, opareport)") {
			t.Errorf("%.30q: %v", src, err)
		}
	}
}
