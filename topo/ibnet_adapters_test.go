package topo

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// ibCa writes a Ca block of ibnetdiscover's default form: one adapter (node GUID
// guid, port GUID guid) described desc, cabled by its port 1 to port swPort of
// switch sw.
func ibCa(guid uint64, desc string, sw uint64, swPort int) string {
	return fmt.Sprintf("\nvendid=0x2c9\ndevid=0x1021\nsysimgguid=0x%016x\ncaguid=0x%016x\nCa\t1 \"H-%016x\"\t\t# \"%s\"\n[1](%x) \t\"S-%016x\"[%d]\t\t# lid 9 lmc 0 \"sw\" lid 1 4xNDR\n", guid, guid, guid, desc, guid, sw, swPort)
}

// ibSwitch writes a Switch block whose ports 1.. are cabled to peers (a "H-" or
// "S-" GUID and the peer's port each).
func ibSwitch(guid uint64, peers ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\nvendid=0x2c9\ndevid=0xd2f0\nsysimgguid=0x%016x\nswitchguid=0x%016x(%x)\nSwitch\t64 \"S-%016x\"\t\t# \"MF0;sw%x:MQM9700/U1\" enhanced port 0 lid 1 lmc 0\n", guid, guid, guid, guid, guid)
	for i, p := range peers {
		fmt.Fprintf(&b, "[%d]\t%s\t\t# \"x\" lid 2 4xNDR\n", i+1, p)
	}
	return b.String()
}

// TestIBNetDiscoverMultiRailHosts: DGX hosts of eight compute adapters,
// "dgxNN mlx5_0" ... "dgxNN mlx5_7", each on its rail's leaf (rail-optimised, as
// NVIDIA's SuperPOD cables them; topograph's example.out holds such hosts with 2 to
// 4 adapters) are one host each, on mlx5_0's leaf, 2 hops apart (their rail-0
// leaf), with one warning counting them. Every rail gives the same hops between
// two such hosts; only a host on fewer rails (a management node) would be nearer
// by another adapter. (This passes before the change too: it is what (b) keeps.)
func TestIBNetDiscoverMultiRailHosts(t *testing.T) {
	const spine, leaf0, host0 = 0xf000, 0xa000, 0xc000
	var src strings.Builder
	var spinePeers []string
	for rail := range 8 {
		spinePeers = append(spinePeers, fmt.Sprintf("\"S-%016x\"[64]", leaf0+rail))
	}
	src.WriteString(ibSwitch(spine, spinePeers...))
	for rail := range 8 {
		var peers []string
		for h := range 4 {
			peers = append(peers, fmt.Sprintf("\"H-%016x\"[1](%x) ", host0+16*h+rail, host0+16*h+rail))
		}
		src.WriteString(ibSwitch(uint64(leaf0 + rail)))
		for i, p := range peers {
			fmt.Fprintf(&src, "[%d]\t%s\t\t# \"x\" lid 2 4xNDR\n", i+1, p)
		}
		fmt.Fprintf(&src, "[64]\t\"S-%016x\"[%d]\t\t# \"spine\" lid 2 4xNDR\n", spine, rail+1)
	}
	for h := range 4 {
		for rail := range 8 {
			src.WriteString(ibCa(uint64(host0+16*h+rail), fmt.Sprintf("dgx%02d mlx5_%d", h+1, rail), uint64(leaf0+rail), h+1))
		}
	}
	var warned []string
	g, err := readIBNetDiscover(context.Background(), strings.NewReader(src.String()), nil, func(w string) { warned = append(warned, w) })
	if err != nil {
		t.Fatal(err)
	}
	if g.N() != 4 || g.Vertices() != 4+9 {
		t.Fatalf("%d hosts, %d vertices; want 4 DGX hosts and 9 switches", g.N(), g.Vertices())
	}
	leaf, _ := g.Lookup(fmt.Sprintf("S-%016x", leaf0))
	for h := range 4 {
		v, ok := g.Lookup(fmt.Sprintf("dgx%02d", h+1))
		if nb := g.Neighbors(v, nil); !ok || len(nb) != 1 || nb[0] != leaf {
			t.Fatalf("dgx%02d: neighbours %v, want mlx5_0's leaf %d only", h+1, nb, leaf)
		}
		for w := range 4 {
			if w != v && g.Dist(v, w) != 2 {
				t.Fatalf("dgx%02d to %s: %d hops, want 2", h+1, g.Name(w), g.Dist(v, w))
			}
		}
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "4 hosts have more than one cable") {
		t.Errorf("warnings %q, want one counting the 4 DGX hosts", warned)
	}
}

// TestIBNetDiscoverSharedDescriptionNamesAdapters: one whole NodeDescription on
// several CAs (a storage appliance's static "stor1 HCA-1" on three controllers'
// adapters, a cloned image's "nodeA mlx5_0") is refused, as before, but naming
// every CA that carries it (GUID and line) and counting the other descriptions
// shared so, with the node-name-map line to write: before, the error named the
// second CA and the first's line only, so a file of many such CAs took one run per
// CA to map.
func TestIBNetDiscoverSharedDescriptionNamesAdapters(t *testing.T) {
	const sw = 0xa1
	var peers []string
	for i := range 6 {
		peers = append(peers, fmt.Sprintf("\"H-%016x\"[1](%x) ", 0xc1+i, 0xc1+i))
	}
	src := ibSwitch(sw, peers...) +
		ibCa(0xc1, "stor1 HCA-1", sw, 1) + ibCa(0xc2, "stor1 HCA-1", sw, 2) + ibCa(0xc3, "stor1 HCA-1", sw, 3) +
		ibCa(0xc4, "nodeA mlx5_0", sw, 4) + ibCa(0xc5, "nodeA mlx5_0", sw, 5) + ibCa(0xc6, "nodeB mlx5_0", sw, 6)
	_, err := ReadIBNetDiscover(strings.NewReader(src), nil)
	for _, want := range []string{
		"line 25: CA 00000000000000c2 has the NodeDescription \"stor1 HCA-1\" of the CA on line 18: 3 CAs carry it, 00000000000000c1 (line 18), 00000000000000c2 (line 25), 00000000000000c3 (line 32); 1 other NodeDescriptions are shared so",
		"which of them is stor1 cannot be told",
		"--node-name-map FILE (a line \"0x00000000000000c2 name\" each)",
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v\nwant %q", err, want)
		}
	}
	// Named by the map, they read: five hosts on the switch.
	g, err := ReadIBNetDiscover(strings.NewReader(src), NodeNameMap{0xc1: "stor1a", 0xc2: "stor1b", 0xc3: "stor1c", 0xc4: "nodeA", 0xc5: "nodeA2"})
	if err != nil || g.N() != 6 {
		t.Fatalf("named by the map: %v", err)
	}
}

// pLine is one connected port's line of ibnetdiscover -p (ibnetdiscover.c
// dump_ports_report: "%2s %5d %2d 0x%016x %s %s" and " - %2s %5d %2d 0x%016x ( '%s' -
// '%s' )").
func pLine(typ string, lid, port int, guid uint64, desc, peerTyp string, peerLid, peerPort int, peer uint64, peerDesc string) string {
	return fmt.Sprintf("%2s %5d %2d 0x%016x 4x FDR - %2s %5d %2d 0x%016x ( '%s' - '%s' )\n", typ, lid, port, guid, peerTyp, peerLid, peerPort, peer, desc, peerDesc)
}

// TestIBNetDiscoverPortsReportDualPortAdapter: -p shows port GUIDs only, no node
// GUID (dump_ports_report prints port->guid), but prints one node's ports
// together, highest first. A dual-port ConnectX-3 (port GUIDs its node GUID plus
// the port) cabled to two leaves is two consecutive lines with one description,
// ports 2 then 1, GUIDs one apart: one host, named by port 1's GUID and kept on
// port 1's leaf, as the default form makes it. Before, the firmware-described
// one was two hosts (H-...c11 and H-...c12) and the one described "node01 mlx4_0"
// was refused as a description copied onto two CAs. Lines that do not show one
// adapter (another line between them, GUIDs not apart as their ports, ports
// ascending) stay two CAs: two hosts, or the refusal.
func TestIBNetDiscoverPortsReportDualPortAdapter(t *testing.T) {
	const leaf1, leaf2, spine = 0xa1, 0xa2, 0xb1
	const fw = "MT27500 ConnectX3 Mellanox Technologies"
	dual := func(desc string, g1, g2 uint64) string {
		return pLine("CA", 12, 2, g2, desc, "SW", 2, 1, leaf2, "leaf2") + pLine("CA", 11, 1, g1, desc, "SW", 1, 1, leaf1, "leaf1")
	}
	rest := pLine("CA", 21, 1, 0xc21, "node02 mlx4_0", "SW", 1, 2, leaf1, "leaf1") +
		pLine("CA", 31, 1, 0xc31, "node03 mlx4_0", "SW", 2, 2, leaf2, "leaf2") +
		pLine("SW", 1, 3, leaf1, "leaf1", "SW", 3, 1, spine, "spine") +
		pLine("SW", 2, 3, leaf2, "leaf2", "SW", 3, 2, spine, "spine")
	switches := "switches [S-00000000000000a1 S-00000000000000a2 S-00000000000000b1]\n"
	for _, c := range []struct {
		what, src, want, warn, err string
	}{
		{"firmware description", dual(fw, 0xc11, 0xc12) + rest,
			"hosts [H-0000000000000c11 node02 node03]\n" + switches + "links [H-0000000000000c11 S-00000000000000a1 S-00000000000000a1 S-00000000000000b1 S-00000000000000a1 node02 S-00000000000000a2 S-00000000000000b1 S-00000000000000a2 node03]",
			"1 adapters of this -p report have two cabled ports, each joined as one node (e.g. line 1)", ""},
		{"rdma-ndd description", dual("node01 mlx4_0", 0xc11, 0xc12) + rest,
			"hosts [node01 node02 node03]\n" + switches + "links [S-00000000000000a1 S-00000000000000b1 S-00000000000000a1 node01 S-00000000000000a1 node02 S-00000000000000a2 S-00000000000000b1 S-00000000000000a2 node03]",
			"1 hosts have more than one cable to the fabric (dual rail or dual port), e.g. node01", ""},
		{"GUIDs not apart as the ports", dual(fw, 0xc11, 0xc19) + rest,
			"hosts [H-0000000000000c11 H-0000000000000c19 node02 node03]\n", "2 CAs have no host name", ""},
		{"a line between", pLine("CA", 12, 2, 0xc12, fw, "SW", 2, 1, leaf2, "leaf2") + rest + pLine("CA", 11, 1, 0xc11, fw, "SW", 1, 1, leaf1, "leaf1"),
			"hosts [H-0000000000000c11 H-0000000000000c12 node02 node03]\n", "2 CAs have no host name", ""},
		{"ports ascending", pLine("CA", 11, 1, 0xc11, "node01 mlx4_0", "SW", 1, 1, leaf1, "leaf1") + pLine("CA", 12, 2, 0xc12, "node01 mlx4_0", "SW", 2, 1, leaf2, "leaf2") + rest,
			"", "", "has the NodeDescription \"node01 mlx4_0\" of the CA on line 1: 2 CAs carry it"},
	} {
		g, warns, err := readIBNetWarnings(t, c.src, nil)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: error %v, want %q", c.what, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", c.what, err)
		}
		if got := fabricByName(g); !strings.HasPrefix(got, c.want) {
			t.Errorf("%s: read\n%s\nwant\n%s", c.what, got, c.want)
		}
		if !strings.Contains(strings.Join(warns, "\n"), c.warn) {
			t.Errorf("%s: warnings %q, want %q", c.what, warns, c.warn)
		}
	}
}
