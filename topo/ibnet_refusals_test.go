package topo

import (
	"strings"
	"testing"
)

// TestIBNetDiscoverBadInput: the refusals of ReadIBNetDiscover and
// ReadNodeNameMap that had no test, each naming the line and the problem.
func TestIBNetDiscoverBadInput(t *testing.T) {
	sw := "Switch 4 \"S-00000000000000a1\" # \"leaf\" lid 1\n"
	for _, c := range []struct {
		what, src string
		names     NodeNameMap
		want      string
	}{
		{"Ca with an S- GUID", "Ca 1 \"S-00000000000000c1\" # \"n1 HCA-1\"\n", nil, "line 1: Ca block with a S- GUID"},
		{"Ca with an R- GUID", "Ca 1 \"R-00000000000000c1\"\n", nil, "line 1: Ca block with a R- GUID"},
		{"Switch with an H- GUID", "Switch 4 \"H-00000000000000a1\"\n", nil, "line 1: Switch block with a H- GUID"},
		{"port line first", "[1] \"S-00000000000000a1\"[2]\n" + sw, nil, "line 1: port line before any Switch or Ca line"},
		{"17-digit GUID", "Switch 4 \"S-100000000000000a1\"\n", nil, "line 1: \"100000000000000a1\" is not a GUID"},
		{"17-digit peer", sw + "[1] \"H-100000000000000c1\"[1]\n", nil, "line 2: \"100000000000000c1\" is not a GUID"},
		{"-p: a GUID both kinds", "SW 1 1 0x00000000000000a1 4x HDR - CA 2 1 0x00000000000000c1 ( 'leaf' - 'n1 HCA-1' )\n" +
			"SW 1 2 0x00000000000000c1 4x HDR - SW 1 1 0x00000000000000a1 ( 'x' - 'leaf' )\n", nil, "line 2: GUID 00000000000000c1 is a switch here but a CA on line 1"},
		{"-p: malformed", "CA 21 1 0x0002c90300c00011 4x HDR - SW 1\n", nil, "line 1: malformed ports-report line"},
		{"-p: 17-digit GUID", "CA 21 1 0x100000000000000c1 4x HDR - SW 1 1 0x00000000000000a1 ( 'n1' - 'leaf' )\n", nil, "line 1: \"100000000000000c1\" is not a GUID"},
		{"port 256", sw + "[256] \"H-00000000000000c1\"[1]\n", nil, "line 2: port \"256\" is no port number (0 to 255)"},
		{"peer port 1000", sw + "[1] \"H-00000000000000c1\"[0001000]\n", nil, "line 2: port \"0001000\" is no port number (0 to 255)"},
		{"-p: port 300", "CA 21 300 0x00000000000000c1 4x HDR - SW 1 1 0x00000000000000a1 ( 'n1' - 'leaf' )\n", nil, "line 1: port \"300\" is no port number (0 to 255)"},
		{"not ibnetdiscover", "hello world\n", nil, "line 1: unrecognised line \"hello world\""},
		{"nothing", "# only a comment\n\n", nil, "no Switch or Ca found"},
		{"two switches one name", sw + "Switch 4 \"S-00000000000000a2\"\n", NodeNameMap{0xa1: "sw", 0xa2: "sw"}, "line 2: name \"sw\" of switch 00000000000000a2 is taken by another switch"},
		{"a host named as a switch", sw + "[1] \"H-00000000000000c1\"[1]\nCa 1 \"H-00000000000000c1\" # \"n1 HCA-1\"\n[1] \"S-00000000000000a1\"[1]\n",
			NodeNameMap{0xa1: "n1"}, "name \"n1\" of switch 00000000000000a1 is taken by another CA"},
	} {
		_, err := ReadIBNetDiscover(strings.NewReader(c.src), c.names)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.what, err, c.want)
		}
	}
	// A router (Rt, R- GUID) routes as a switch does.
	g, err := ReadIBNetDiscover(strings.NewReader("Rt 2 \"R-00000000000000e1\"\n[1] \"H-00000000000000c1\"[1]\n"+
		"Ca 1 \"H-00000000000000c1\" # \"n1 HCA-1\"\n[1] \"R-00000000000000e1\"[1]\n"), nil)
	if err != nil || g.N() != 1 || g.Vertices() != 2 || !g.IsSwitch(1) {
		t.Errorf("a router: %v, %v", err, g)
	}
	for _, c := range []struct{ src, want string }{
		{"0x01 \"node01\n", "line 1: unterminated quoted name"},
		{"# map\n0xg1 node01\n", "line 2: \"0xg1\" is not a GUID"},
		{"0x01 a\n0x0001 b\n", "line 2: GUID 0x0001 mapped again (first on line 1)"},
	} {
		if _, err := ReadNodeNameMap(strings.NewReader(c.src)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("node-name-map %q: error %v, want %q", c.src, err, c.want)
		}
	}
}

// TestIBNetDiscoverHostWithTwoHCAs: two HCAs whose descriptions name one host make
// one host (the default form and -p alike), which keeps the cable of its first rail
// only: the HCA whose NodeDescription sorts first ("n1 HCA-0", listed second), not the
// first met; HCAs of one host cabled to each other add no link; a CA without a
// description is named H-GUID; and the names come from the map before the
// descriptions.
func TestIBNetDiscoverHostWithTwoHCAs(t *testing.T) {
	def := "Switch 4 \"S-00000000000000a1\" # \"leafA\" lid 1\n[1] \"H-00000000000000c1\"[1]\n[2] \"H-00000000000000d1\"[1]\n" +
		"Switch 4 \"S-00000000000000a2\" # \"leafB\" lid 2\n[1] \"H-00000000000000c2\"[1]\n" +
		"Ca 1 \"H-00000000000000c1\" # \"n1 HCA-1\"\n[1] \"S-00000000000000a1\"[1]\n[2] \"H-00000000000000c3\"[2]\n" +
		"Ca 1 \"H-00000000000000c2\" # \"n1 HCA-0\"\n[1] \"S-00000000000000a2\"[1]\n" +
		"Ca 1 \"H-00000000000000c3\" # \"n1 HCA-3\"\n[2] \"H-00000000000000c1\"[2]\n" +
		"Ca 1 \"H-00000000000000d1\"\n[1] \"S-00000000000000a1\"[2]\n"
	ports := "CA 1 1 0x00000000000000c1 4x HDR - SW 1 1 0x00000000000000a1 ( 'n1 HCA-1' - 'leafA' )\n" +
		"CA 1 1 0x00000000000000c2 4x HDR - SW 2 1 0x00000000000000a2 ( 'n1 HCA-0' - 'leafB' )\n" +
		"CA 1 2 0x00000000000000c1 4x HDR - CA 1 2 0x00000000000000c3 ( 'n1 HCA-1' - 'n1 HCA-3' )\n" +
		"CA 3 1 0x00000000000000d1 4x HDR - SW 1 2 0x00000000000000a1 ( '' - 'leafA' )\n" +
		"SW 1 3 0x00000000000000a1 4x HDR\n" // an unconnected port
	for _, f := range []struct{ name, src string }{{"default", def}, {"-p", ports}} {
		g, err := ReadIBNetDiscover(strings.NewReader(f.src), NodeNameMap{0xa2: "leafB"})
		if err != nil {
			t.Fatalf("%s: %v", f.name, err)
		}
		if g.N() != 2 || g.Vertices() != 4 || g.Edges() != 2 {
			t.Fatalf("%s: %d hosts, %d vertices, %d edges; want 2, 4, 2 (%s)", f.name, g.N(), g.Vertices(), g.Edges(), g.Spec())
		}
		n1, ok1 := g.Lookup("n1")
		h, ok2 := g.Lookup("H-00000000000000d1")
		leafB, ok3 := g.Lookup("leafB")
		leafA, ok4 := g.Lookup("S-00000000000000a1")
		if !ok1 || !ok2 || !ok3 || !ok4 {
			t.Fatalf("%s: names %v %v %v %v", f.name, ok1, ok2, ok3, ok4)
		}
		if nb := g.Neighbors(n1, nil); len(nb) != 1 || nb[0] != leafB {
			t.Errorf("%s: n1's neighbours %v, want its first rail's leaf %d only", f.name, nb, leafB)
		}
		if nb := g.Neighbors(h, nil); len(nb) != 1 || nb[0] != leafA {
			t.Errorf("%s: H-..d1's neighbours %v, want leaf %d", f.name, nb, leafA)
		}
	}
}
