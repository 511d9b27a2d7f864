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
