package topo

import (
	"errors"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
)

func TestGridIndexCoordRoundTrip(t *testing.T) {
	g := Mesh(4, 3, 5)
	var c []int
	for i := 0; i < g.N(); i++ {
		c = g.Coord(i, c)
		if c[0]+c[1]*4+c[2]*12 != i || g.Index(c) != i {
			t.Fatalf("node %d: coord %v", i, c)
		}
	}
}

// Grid distances must equal BFS distances on the grid's own links.
func TestGridDistMatchesBFS(t *testing.T) {
	for _, spec := range []string{"mesh:5x4", "torus:5x4", "mesh:4x3x3:wrap=yz", "torus:2x3", "mesh:7", "torus:6"} {
		g, err := ParseSpec(spec)
		if err != nil {
			t.Fatal(err)
		}
		gg := GraphOf(g)
		for a := 0; a < g.N(); a++ {
			for b := 0; b < g.N(); b++ {
				if g.Dist(a, b) != gg.Dist(a, b) {
					t.Fatalf("%s: Dist(%d,%d) = %d, BFS %d", spec, a, b, g.Dist(a, b), gg.Dist(a, b))
				}
			}
		}
		if g.Spec() != spec {
			t.Errorf("Spec() = %q, want %q", g.Spec(), spec)
		}
	}
}

func TestParseSpec(t *testing.T) {
	g, err := ParseSpec("mesh[16,16,1]")
	if err != nil || g.Spec() != "mesh:16x16" {
		t.Fatalf("mesh[16,16,1] -> %v, %v", g, err)
	}
	for _, bad := range []string{"", "mesh", "mesh:", "mesh:0x4", "mesh:4xa", "cube:4x4", "mesh:4x4:wrap=z", "mesh:4x4:foo=x", "mesh[4,4", "mesh:-1x3", "mesh:100000x100000x100000"} {
		if _, err := ParseSpec(bad); err == nil {
			t.Errorf("ParseSpec(%q) accepted", bad)
		}
	}
}

// A spec of the wrong kind is refused for its kind, with the kinds the parser
// takes: ParseSpec (grids only) said "size \"4,4\" is not a positive integer" of
// fattree:4,4:8, and ParseMachine offered "mesh or torus" though it builds fat trees
// and dragonflies too.
func TestSpecKindMessages(t *testing.T) {
	for _, tc := range []struct {
		parse func(string) error
		spec  string
		want  string
	}{
		{func(s string) error { _, err := ParseSpec(s); return err }, "fattree:4,4:8", "a fattree is a switched network without node coordinates; this needs a grid (mesh or torus)"},
		{func(s string) error { _, err := ParseSpec(s); return err }, "dragonfly:hosts_per_router=1", "a dragonfly is a switched network"},
		{func(s string) error { _, err := ParseSpec(s); return err }, "cube:4x4", `unknown kind "cube" (want mesh or torus)`},
		{func(s string) error { _, err := ParseMachine(s); return err }, "hypercube:4", `unknown kind "hypercube" (want mesh, torus, fattree or dragonfly)`},
		{func(s string) error { _, err := ParseMachine(s); return err }, "MESH:4x4", `unknown kind "MESH" (want mesh, torus, fattree or dragonfly)`},
		{func(s string) error { _, err := ParseMachine(s); return err }, "mesh:0x4", `size "0" is not a positive integer`},
		{func(s string) error { _, err := ParseMachine(s); return err }, "mesh", "want KIND:SIZES"},
	} {
		err := tc.parse(tc.spec)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v; want it to contain %q", tc.spec, err, tc.want)
		}
	}
	for _, ok := range []string{"mesh:4x4", "torus:2x3x4", "mesh[4,4]", " mesh:2x2 "} {
		if _, err := ParseMachine(ok); err != nil {
			t.Errorf("ParseMachine(%q): %v", ok, err)
		}
	}
}

func TestReadGraph(t *testing.T) {
	src := "# ring of names\na b\nb c\nc d\n%node e\nd e # tail\n%group s1: a b\n%group s2: c d e\n"
	g, err := ReadGraph(strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	if g.N() != 5 || g.Edges() != 4 || len(g.Groups()) != 2 {
		t.Fatalf("N=%d edges=%d groups=%d", g.N(), g.Edges(), len(g.Groups()))
	}
	a, _ := g.Lookup("a")
	e, _ := g.Lookup("e")
	if g.Dist(a, e) != 4 || g.Dist(e, a) != 4 || g.Dist(a, a) != 0 {
		t.Fatalf("Dist(a,e) = %d", g.Dist(a, e))
	}
	bad := map[string]string{
		"self loop":     "a a\n",
		"duplicate":     "a b\nb a\n",
		"three fields":  "a b c\n",
		"empty":         "# nothing\n",
		"unknown dir":   "%foo a\n",
		"group unknown": "a b\n%group s: a z\n",
		"group twice":   "a b\n%group s: a\n%group t: a\n",
	}
	for name, src := range bad {
		if _, err := ReadGraph(strings.NewReader(src)); err == nil {
			t.Errorf("%s: accepted %q", name, src)
		}
	}
	g, err = ReadGraph(strings.NewReader("0 1\n3 2\n"))
	if err != nil || g.N() != 4 || g.Connected() {
		t.Fatalf("numeric graph: N=%d connected=%v err=%v", g.N(), g.Connected(), err)
	}
	if g.CheckConnected() == nil {
		t.Fatal("disconnected graph passed CheckConnected")
	}
}

func FuzzReadGraph(f *testing.F) {
	f.Add("a b\nb c\n%group s: a b\n")
	f.Add("0 1\n1 2\n2 0\n")
	f.Add("%node x\n# c\n")
	f.Fuzz(func(t *testing.T, src string) {
		g, err := ReadGraph(strings.NewReader(src))
		if err != nil {
			return
		}
		if g.N() == 0 {
			t.Fatal("accepted a graph with no nodes")
		}
		// Dist (the hop index: twins, classes, tiers) must equal a plain
		// breadth-first search (DistRow) between every two vertices, switches included.
		if n := g.Vertices(); n <= 64 {
			for a := 0; a < n; a++ {
				row := g.DistRow(a)
				for b := 0; b < n; b++ {
					if d := g.Dist(a, b); d != int(row[b]) {
						t.Fatalf("Dist(%s, %s) = %d, breadth-first search gives %d", g.Name(a), g.Name(b), d, row[b])
					}
				}
			}
		}
	})
}

func TestGridNeighborsSymmetric(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 50; trial++ {
		dims := []int{1 + r.IntN(5), 1 + r.IntN(5), 1 + r.IntN(3)}
		wrap := []bool{r.IntN(2) == 0, r.IntN(2) == 0, r.IntN(2) == 0}
		g, _ := NewGrid(dims, wrap)
		var nb []int
		for a := 0; a < g.N(); a++ {
			nb = g.Neighbors(a, nb[:0])
			for _, b := range nb {
				if g.Dist(a, b) != 1 {
					t.Fatalf("%s: neighbour %d of %d at distance %d", g.Spec(), b, a, g.Dist(a, b))
				}
			}
		}
	}
}

// ParseMachineMax refuses a machine larger than its caller takes before building
// it, naming the count (with "more than" where the count overflowed the synthetic
// limits), and builds one within the limit as ParseMachine does.
func TestParseMachineMax(t *testing.T) {
	for _, tc := range []struct {
		spec  string
		max   int
		nodes uint64
	}{
		{"fattree:2,7:524288", 1 << 16, 1 << 20},
		{"fattree:1000,1000:1000", 1 << 16, 1000000},
		{"dragonfly:hosts_per_router=100,routers_per_group=100,intergroup_links=1,num_groups=100", 1 << 16, 1000000},
		{"mesh:46000x46000", 1 << 26, 2116000000},
		{"torus:4x4", 15, 16},
	} {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		before := m.TotalAlloc
		_, err := ParseMachineMax(tc.spec, tc.max)
		runtime.ReadMemStats(&m)
		var tl *TooLargeError
		if !errors.As(err, &tl) || tl.Nodes != tc.nodes || tl.Max != tc.max || tl.Spec != tc.spec {
			t.Errorf("%s (max %d): %#v; want %d nodes", tc.spec, tc.max, err, tc.nodes)
		}
		if got := m.TotalAlloc - before; got > 1<<20 {
			t.Errorf("%s: %d bytes allocated before refusing", tc.spec, got)
		}
	}
	for _, spec := range []string{"fattree:4,2:4", "torus:4x4", "dragonfly:hosts_per_router=2,routers_per_group=4,intergroup_links=1,num_groups=5"} {
		a, err := ParseMachineMax(spec, 40)
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		b, err := ParseMachine(spec)
		if err != nil || a.N() != b.N() || a.Spec() != b.Spec() {
			t.Errorf("%s: ParseMachineMax gives %d nodes %q, ParseMachine %d %q (%v)", spec, a.N(), a.Spec(), b.N(), b.Spec(), err)
		}
	}
	for _, spec := range []string{"fattree:0", "fattree:1000000,1:1000000"} { // a syntax error; beyond the synthetic limits
		if _, err := ParseMachineMax(spec, 10); err == nil || errors.As(err, new(*TooLargeError)) {
			t.Errorf("%s: %v; want its own error", spec, err)
		}
	}
}

// CheckMachineSpec accepts what ParseMachine builds and refuses what it refuses,
// without building anything.
func TestCheckMachineSpec(t *testing.T) {
	for _, spec := range []string{"mesh:16x16", "torus:8x8x8", "mesh:8x8x5:wrap=yz", "mesh[4,4,1]", "fattree:4,2:4", "mesh:16x16:io=left",
		"dragonfly:hosts_per_router=2,routers_per_group=4,intergroup_links=1,num_groups=5",
		"mesh:0x4", "mesh:4x4:wrap=q", "hypercube:4", "fattree:0", "fattree:1,7:1048576", "torus:100000x100000", "dragonfly:x=1", "mesh"} {
		_, parseErr := ParseMachine(spec)
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		before := m.TotalAlloc
		err := CheckMachineSpec(spec)
		runtime.ReadMemStats(&m)
		if (err == nil) != (parseErr == nil) {
			t.Errorf("%s: CheckMachineSpec %v, ParseMachine %v", spec, err, parseErr)
		}
		if got := m.TotalAlloc - before; got > 64<<10 {
			t.Errorf("%s: %d bytes allocated to check", spec, got)
		}
	}
}
