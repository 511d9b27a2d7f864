package topo

import (
	"context"
	"strings"
	"testing"
)

// The dumps below are written by hand from the printf formats of rdma-core's
// infiniband-diags/ibnetdiscover.c (commit 691953d8d502, 2026-08-20; line numbers of
// that file unless another is named):
//
//	548-553  "#\n# Topology file: generated on %s#\n" (ctime ends in \n), with -m
//	         "# Reported max hops discovered: %u\n# Total MADs used: %u\n", then
//	         "# Initiated from node %016x port %016x\n"
//	230-248  out_ids: "\nvendid=0x%x\n", "devid=0x%x\n", "sysimgguid=0x%x", with -g
//	         "\t\t# Chassis %d" " (%s)" " slot %d", "\n"
//	255-259  out_chassis (-g): "\nChassis %u" " (guid 0x%x)" "\n"
//	575      (-g, Xsigo chassis) "Hostname: %s\n"
//	582-634  (-g) "\n# Spine Nodes", "\n# Line Nodes", "\n# Chassis Switches", "\n# Chassis CAs"
//	662      (-g) "\nNon-Chassis Nodes\n"
//	284-297  "switchguid=0x%x" "(%x)", with -g "\t# " chassis type and slot, "\n"
//	269      "Switch\t%d %s\t\t# \"%s\" %s port 0 lid %d lmc %d" (%s: "enhanced" or "base")
//	342      "%sguid=0x%x\n" (caguid=, rtguid=)
//	319      "%s\t%d %s\t\t# \"%s\"" (Ca or Rt, the NodeDescription unescaped), 346 " (scp)"
//	381-422  a switch's port: "[%d]", with -g "[ext %d]" (358), "\t%s[%d]%s" (the peer
//	         and its [ext %d]), "(%x) " (a CA or router peer's port GUID),
//	         "\t\t# \"%s\" lid %d %s%s" (width 4x, speed HDR), with -f " s=%d w=%d v=%d"
//	441-470  a CA's port: "[%d]" "(%x) " "\t%s[%d]" [ext %d] " (%x) " (a CA peer),
//	         "\t\t# lid %d lmc %d \"%s\" lid %d %s%s", with -f " s=%d w=%d v=%d"
//	204      -l, -H, -S, -R: "%s\t : 0x%016x ports %d devid 0x%x vendid 0x%x \"%s\"\n"
//
// and libibnetdisc/ibnetdisc.c 515 (dump_endnode, -s, on standard output):
// "%s -> %s %s {%016x} portnum %d lid %d-%d \"%s\"\n" after libibmad's portid2str
// ("DR path slid %u; dlid %u; %d,%d...", libibmad/portid.c 73, 113-118).

// ibFormsBase is a two-leaf fabric: leaf1 (base port 0, a NodeDescription with
// quotes, '#' and brackets) holds node01, node02 and a router; leaf2 (enhanced, lmc
// 2) holds node03, node04; both hang on a spine.
const ibFormsBase = "#\n# Topology file: generated on Sun Dec  6 11:00:00 2026\n#\n" +
	"# Initiated from node 0002c90300c00010 port 0002c90300c00011\n" +
	"\nvendid=0x2c9\ndevid=0xd2f0\nsysimgguid=0x2c90300a00001\nswitchguid=0x2c90300a00001(2c90300a00001)\n" +
	"Switch\t40 \"S-0002c90300a00001\"\t\t# \"MF0;leaf \"A\" #1 [r1]:MQM8700/U1\" base port 0 lid 1 lmc 0\n" +
	"[1]\t\"H-0002c90300c00010\"[1](2c90300c00011) \t\t# \"node01 mlx5_0\" lid 21 4xHDR\n" +
	"[2]\t\"H-0002c90300c00020\"[1](2c90300c00021) \t\t# \"node02 mlx5_0\" lid 22 4xHDR\n" +
	"[3]\t\"R-0002c90300d00001\"[1](2c90300d00002) \t\t# \"router1\" lid 40 4xEDR\n" +
	"[13]\t\"S-0002c90300b00001\"[1]\t\t# \"spine\" lid 10 4xHDR\n" +
	"\nvendid=0x2c9\ndevid=0xd2f0\nsysimgguid=0x2c90300a00002\nswitchguid=0x2c90300a00002(2c90300a00002)\n" +
	"Switch\t40 \"S-0002c90300a00002\"\t\t# \"leaf2\" enhanced port 0 lid 2 lmc 2\n" +
	"[1]\t\"H-0002c90300c00030\"[1](2c90300c00031) \t\t# \"node03 mlx5_0\" lid 23 4xHDR\n" +
	"[2]\t\"H-0002c90300c00040\"[1](2c90300c00041) \t\t# \"node04 mlx5_0\" lid 24 4xHDR\n" +
	"[13]\t\"S-0002c90300b00001\"[2]\t\t# \"spine\" lid 10 4xHDR\n" +
	"\nvendid=0x2c9\ndevid=0xd2f0\nsysimgguid=0x2c90300b00001\nswitchguid=0x2c90300b00001(2c90300b00001)\n" +
	"Switch\t40 \"S-0002c90300b00001\"\t\t# \"spine\" enhanced port 0 lid 10 lmc 0\n" +
	"[1]\t\"S-0002c90300a00001\"[13]\t\t# \"MF0;leaf \"A\" #1 [r1]:MQM8700/U1\" lid 1 4xHDR\n" +
	"[2]\t\"S-0002c90300a00002\"[13]\t\t# \"leaf2\" lid 2 4xHDR\n" +
	"\nvendid=0x2c9\ndevid=0x101b\nsysimgguid=0x2c90300c00010\ncaguid=0x2c90300c00010\n" +
	"Ca\t1 \"H-0002c90300c00010\"\t\t# \"node01 mlx5_0\"\n" +
	"[1](2c90300c00011) \t\"S-0002c90300a00001\"[1]\t\t# lid 21 lmc 0 \"MF0;leaf \"A\" #1 [r1]:MQM8700/U1\" lid 1 4xHDR\n" +
	"\nvendid=0x2c9\ndevid=0x101b\nsysimgguid=0x2c90300c00020\ncaguid=0x2c90300c00020\n" +
	"Ca\t1 \"H-0002c90300c00020\"\t\t# \"node02 mlx5_0\"\n" +
	"[1](2c90300c00021) \t\"S-0002c90300a00001\"[2]\t\t# lid 22 lmc 0 \"MF0;leaf \"A\" #1 [r1]:MQM8700/U1\" lid 1 4xHDR\n" +
	"\nvendid=0x2c9\ndevid=0x101b\nsysimgguid=0x2c90300c00030\ncaguid=0x2c90300c00030\n" +
	"Ca\t1 \"H-0002c90300c00030\"\t\t# \"node03 mlx5_0\"\n" +
	"[1](2c90300c00031) \t\"S-0002c90300a00002\"[1]\t\t# lid 23 lmc 0 \"leaf2\" lid 2 4xHDR\n" +
	"\nvendid=0x2c9\ndevid=0x101b\nsysimgguid=0x2c90300c00040\ncaguid=0x2c90300c00040\n" +
	"Ca\t1 \"H-0002c90300c00040\"\t\t# \"node04 mlx5_0\"\n" +
	"[1](2c90300c00041) \t\"S-0002c90300a00002\"[2]\t\t# lid 24 lmc 0 \"leaf2\" lid 2 4xHDR\n" +
	"\nvendid=0x2c9\ndevid=0x1017\ncaguid=0x2c90300d00001\n" +
	"Rt\t1 \"R-0002c90300d00001\"\t\t# \"router1\"\n" +
	"[1](2c90300d00002) \t\"S-0002c90300a00001\"[3]\t\t# lid 40 lmc 0 \"MF0;leaf \"A\" #1 [r1]:MQM8700/U1\" lid 1 4xEDR\n"

// ibFormsNetwork is ibFormsBase's network, as fabricByName prints it.
const ibFormsNetwork = "hosts [node01 node02 node03 node04]\n" +
	"switches [R-0002c90300d00001 S-0002c90300a00001 S-0002c90300a00002 S-0002c90300b00001]\n" +
	"links [R-0002c90300d00001 S-0002c90300a00001 S-0002c90300a00001 S-0002c90300b00001 " +
	"S-0002c90300a00001 node01 S-0002c90300a00001 node02 S-0002c90300a00002 S-0002c90300b00001 " +
	"S-0002c90300a00002 node03 S-0002c90300a00002 node04]"

// TestIBNetDiscoverForms: every line form ibnetdiscover prints in its default form,
// with -g (chassis headers, [ext N] ports, Hostname:), -s (progress lines on standard
// output), -f (s= w= v=) and -m (max hops), reads as the same network: the hosts
// named by the first word of their NodeDescription, switches S-<guid>, the router
// R-<guid>, and every cable of the dump. Each file is detected as ibnetdiscover.
func TestIBNetDiscoverForms(t *testing.T) {
	replace := func(pairs ...string) string { return strings.NewReplacer(pairs...).Replace(ibFormsBase) }
	for _, c := range []struct{ what, src string }{
		{"default", ibFormsBase},
		{"-m", replace("# Initiated", "# Reported max hops discovered: 2\n# Total MADs used: 40\n# Initiated")},
		{"-f", replace(" 4xHDR\n", " 4xHDR s=64 w=2 v=4\n")},
		{"-s", "DR path slid 0; dlid 0; 0 -> new Channel Adapter {0002c90300c00010} portnum 1 lid 21-21 \"node01 mlx5_0\"\n" +
			"DR path slid 0; dlid 0; 0,1 -> new Switch {0002c90300a00001} portnum 0 lid 1-1 \"leaf\"\n" +
			"DR path slid 0; dlid 0; 0,1,13 -> known Switch {0002c90300b00001} portnum 0 lid 10-10 \"spine\"\n" + ibFormsBase},
		{"-g", "#\n# Topology file: generated on Sun Dec  6 11:00:00 2026\n#\n" +
			"\nChassis 1 (guid 0x2c90300a00001)\nHostname: xsigo1\n\n# Spine Nodes\n# Line Nodes" +
			"\nvendid=0x2c9\ndevid=0xd2f0\nsysimgguid=0x2c90300a00001\t\t# Chassis 1 (spine chassis)\n" +
			"switchguid=0x2c90300a00001(2c90300a00001)\t# ISR9288 Line 1\n" +
			"\n# Chassis Switches\n# Chassis CAs\nNon-Chassis Nodes\n" +
			strings.NewReplacer("[13]\t\"S-0002c90300b00001\"[1]", "[13][ext 13]\t\"S-0002c90300b00001\"[1][ext 1]",
				"[1]\t\"S-0002c90300a00001\"[13]", "[1][ext 1]\t\"S-0002c90300a00001\"[13][ext 13]",
				"\"S-0002c90300a00002\"[1]\t", "\"S-0002c90300a00002\"[1][ext 1]\t",
				"# \"router1\"\n", "# \"router1\" (scp)\n").Replace(ibFormsBase)},
	} {
		if f, err := DetectGraphFormat([]byte(c.src)); f != "ibnetdiscover" || err != nil {
			t.Errorf("%s: detected %q, %v", c.what, f, err)
		}
		g, err := ReadIBNetDiscover(strings.NewReader(c.src), nil)
		if err != nil {
			t.Errorf("%s: %v", c.what, err)
			continue
		}
		if got := fabricByName(g); got != ibFormsNetwork {
			t.Errorf("%s: read\n%s\nwant\n%s", c.what, got, ibFormsNetwork)
		}
	}
}

// TestIBNetDiscoverRefusedForms: what ibnetdiscover prints that is no network, or
// that names hosts ambiguously, is refused naming the line and what to give instead.
func TestIBNetDiscoverRefusedForms(t *testing.T) {
	for _, c := range []struct{ what, src, want string }{
		{"-l node list", "Ca\t : 0x0002c90300c00010 ports 1 devid 0x101b vendid 0x2c9 \"node01 mlx5_0\"\n" +
			"Switch\t : 0x0002c90300a00001 ports 40 devid 0xd2f0 vendid 0x2c9 \"leaf\"\n",
			"line 1: a node list (ibnetdiscover -l, -H, -S or -R) names nodes but no links"},
		{"--diff", "< Switch\t40 \"S-0002c90300a00001\"\t\t# \"leaf\" enhanced port 0 lid 1 lmc 0\n> [1]\t\"H-0002c90300c00010\"[1](2c90300c00011) \t\t# \"node01 mlx5_0\" lid 21 4xHDR\n",
			"line 1: a difference of two fabrics (ibnetdiscover --diff"},
		{"-S switch list", "Switch\t : 0x0002c90300a00001 ports 40 devid 0xd2f0 vendid 0x2c9 \"leaf\"\n", "line 1: a node list"},
		// One description copied onto two adapters (a cloned image's): two
		// hosts, whose names cannot be told (the firmware's own default is
		// named by GUID instead: TestIBNetDiscoverFirmwareDescriptions).
		{"one description, two CAs", strings.ReplaceAll(ibFormsBase, "node02 mlx5_0", "node01 mlx5_0"),
			"CA 0002c90300c00020 has the NodeDescription \"node01 mlx5_0\" of the CA on line 37: 2 CAs carry it, 0002c90300c00010 (line 37), 0002c90300c00020 (line 44); two adapters of one host differ in it"},
		{"a quote in the host name", strings.Replace(ibFormsBase, "# \"node01 mlx5_0\"\n", "# \"\"node01\" #1 mlx5_0\"\n", 1),
			"line 37: CA 0002c90300c00010: the NodeDescription \"\\\"node01\\\" #1 mlx5_0\" starts with \"\\\"node01\\\"\", which holds \"\\\"\""},
	} {
		_, err := ReadIBNetDiscover(strings.NewReader(c.src), nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.what, err, c.want)
		}
		if f, _ := DetectGraphFormat([]byte(c.src)); f != "ibnetdiscover" {
			t.Errorf("%s: detected %q, want ibnetdiscover (so that its error is the reader's)", c.what, f)
		}
	}
	// A node-name-map naming the adapters resolves the one description.
	same := strings.ReplaceAll(strings.ReplaceAll(ibFormsBase, "node01 mlx5_0", "MT4123 ConnectX6"), "node02 mlx5_0", "MT4123 ConnectX6")
	g, err := ReadIBNetDiscover(strings.NewReader(same), NodeNameMap{0x2c90300c00010: "node01", 0x2c90300c00020: "node02"})
	if err != nil || fabricByName(g) != ibFormsNetwork {
		t.Errorf("the map naming both: %v", err)
	}
}

// TestIBNetDiscoverDualRailIsNoShortcut: a host with an adapter on each of two rails
// (one subnet, leaves in different pods under different spines) is one host on its
// first rail (mlx5_0's). Kept on both, it would join the two pods: hosts of pod 1
// and pod 2 would be 4 hops apart through it instead of 6 through the core, though
// an adapter forwards no traffic.
func TestIBNetDiscoverDualRailIsNoShortcut(t *testing.T) {
	src := "Switch 4 \"S-00000000000000f1\" # \"core\" enhanced port 0 lid 1 lmc 0\n" +
		"[1] \"S-00000000000000e1\"[4]\n[2] \"S-00000000000000e2\"[4]\n" +
		"Switch 4 \"S-00000000000000e1\" # \"spine1\" enhanced port 0 lid 2 lmc 0\n[1] \"S-00000000000000a1\"[4]\n[4] \"S-00000000000000f1\"[1]\n" +
		"Switch 4 \"S-00000000000000e2\" # \"spine2\" enhanced port 0 lid 3 lmc 0\n[1] \"S-00000000000000a2\"[4]\n[4] \"S-00000000000000f1\"[2]\n" +
		"Switch 4 \"S-00000000000000a1\" # \"leaf1\" enhanced port 0 lid 4 lmc 0\n" +
		"[1] \"H-00000000000000c1\"[1](c2) # \"x mlx5_0\" lid 9 4xHDR\n[2] \"H-00000000000000b1\"[1](b2) # \"dual mlx5_1\" lid 8 4xHDR\n[4] \"S-00000000000000e1\"[1]\n" +
		"Switch 4 \"S-00000000000000a2\" # \"leaf2\" enhanced port 0 lid 5 lmc 0\n" +
		"[1] \"H-00000000000000c3\"[1](c4) # \"y mlx5_0\" lid 10 4xHDR\n[2] \"H-00000000000000b3\"[1](b4) # \"dual mlx5_0\" lid 7 4xHDR\n[4] \"S-00000000000000e2\"[1]\n" +
		"Ca 1 \"H-00000000000000c1\" # \"x mlx5_0\"\n[1](c2) \"S-00000000000000a1\"[1]\n" +
		"Ca 1 \"H-00000000000000b1\" # \"dual mlx5_1\"\n[1](b2) \"S-00000000000000a1\"[2]\n" +
		"Ca 1 \"H-00000000000000c3\" # \"y mlx5_0\"\n[1](c4) \"S-00000000000000a2\"[1]\n" +
		"Ca 1 \"H-00000000000000b3\" # \"dual mlx5_0\"\n[1](b4) \"S-00000000000000a2\"[2]\n"
	var warned []string
	g, err := readIBNetDiscover(context.Background(), strings.NewReader(src), nil, func(w string) { warned = append(warned, w) })
	if err != nil {
		t.Fatal(err)
	}
	x, _ := g.Lookup("x")
	y, _ := g.Lookup("y")
	dual, _ := g.Lookup("dual")
	leaf2, _ := g.Lookup("S-00000000000000a2")
	if d := g.Dist(x, y); d != 6 {
		t.Errorf("x to y: %d hops, want 6 (leaf1, spine1, core, spine2, leaf2)", d)
	}
	if nb := g.Neighbors(dual, nil); len(nb) != 1 || nb[0] != leaf2 {
		t.Errorf("dual's neighbours %v, want mlx5_0's leaf2 (%d) only", nb, leaf2)
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "1 hosts have more than one cable") || !strings.Contains(warned[0], "dual (line") {
		t.Errorf("warnings %q, want one naming dual", warned)
	}
}

// TestIBNetDiscoverAggregationNodes: the SHARP aggregation node of each Quantum
// switch is listed as a Ca "Mellanox Technologies Aggregation Node" cabled to the
// switch; it is no host. Read as one (all of them one host "Mellanox", from the first
// word), it joined every leaf with a host no job should get.
func TestIBNetDiscoverAggregationNodes(t *testing.T) {
	src := ibFormsBase +
		"\nvendid=0x2c9\ndevid=0xcf09\ncaguid=0x2c90300e00001\nCa\t1 \"H-0002c90300e00001\"\t\t# \"Mellanox Technologies Aggregation Node\"\n" +
		"[1](2c90300e00001) \t\"S-0002c90300a00001\"[41]\t\t# lid 50 lmc 0 \"leaf\" lid 1 4xHDR\n" +
		"\nvendid=0x2c9\ndevid=0xcf09\ncaguid=0x2c90300e00002\nCa\t1 \"H-0002c90300e00002\"\t\t# \"Mellanox Technologies Aggregation Node\"\n" +
		"[1](2c90300e00002) \t\"S-0002c90300a00002\"[41]\t\t# lid 51 lmc 0 \"leaf2\" lid 2 4xHDR\n"
	var warned []string
	g, err := readIBNetDiscover(context.Background(), strings.NewReader(src), nil, func(w string) { warned = append(warned, w) })
	if err != nil {
		t.Fatal(err)
	}
	if got := fabricByName(g); got != ibFormsNetwork {
		t.Errorf("read\n%s\nwant\n%s", got, ibFormsNetwork)
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "2 CAs described as \"Aggregation Node\"") {
		t.Errorf("warnings %q", warned)
	}
	// A node-name-map listing every GUID of the fabric (as a fabric manager writes
	// it) names them too; they are still no hosts.
	g, err = ReadIBNetDiscover(strings.NewReader(src), NodeNameMap{0x2c90300e00001: "leaf1-sharp", 0x2c90300e00002: "leaf2-sharp"})
	if err != nil {
		t.Fatalf("named by the map: %v", err)
	}
	if got := fabricByName(g); got != ibFormsNetwork {
		t.Errorf("named by the map: read\n%s", got)
	}
}

// TestIBNetDiscoverPortsReportDescriptions: in the -p report (ibnetdiscover.c
// 717-741) an unconnected port is "%36s'%s'" after its own fields, and its
// description may hold " - "; a connected port's descriptions may too.
func TestIBNetDiscoverPortsReportDescriptions(t *testing.T) {
	src := "SW     1  2 0x00000000000000a1 4x HDR - CA     9  1 0x00000000000000c1 ( 'leaf - row 1' - 'n1 mlx5_0' )\n" +
		"CA     9  1 0x00000000000000c1 4x HDR - SW     1  2 0x00000000000000a1 ( 'n1 mlx5_0' - 'leaf - row 1' )\n" +
		"SW     1  3 0x00000000000000a1 ?? ???                                    'leaf - row 1'\n" +
		"CA    10  1 0x00000000000000c2 4x HDR - SW     1  4 0x00000000000000a1 ( 'n2 - mlx5_0' - 'leaf - row 1' )\n"
	g, err := ReadIBNetDiscover(strings.NewReader(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "hosts [n1 n2]\nswitches [S-00000000000000a1]\nlinks [S-00000000000000a1 n1 S-00000000000000a1 n2]"
	if got := fabricByName(g); got != want {
		t.Errorf("read\n%s\nwant\n%s", got, want)
	}
}
