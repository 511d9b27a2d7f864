package topo

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// The fat tree of testdata/fattree.ibnetdiscover (4 leaves of 4 hosts, 2 spines)
// as OpenSM writes it to opensm-subnet.lst (testdata/fattree.subnet-lst, after
// opensm/osm_dump.c 398-498: node GUID order, every cabled port a line, the peer's
// VenID %08X and its DevID byte-swapped by cl_ntoh32, node01 the SM's CA: CA-SM)
// and as opareport -o topology writes it (testdata/fattree.opareport.xml, after
// opareport.c 13441-13446 <Report>, 5144-5238 <Nodes>, 5855-5985 <LinkSummary>,
// 1045-1085 and 873-930 each <Link> and <Port>, 95-97 and 130-166 the values;
// FIs described "nodeNN hfi1_0"), and as the text of opareport -o links
// (testdata/fattree.opareport-links.txt, after opareport.c 5890-5905, 464,
// 879-886, 319) is the same network: the same hosts, switches and links, with or
// without the node-name-map.
func TestFabricFormatsMatchIBNetDiscover(t *testing.T) {
	for _, names := range []NodeNameMap{nil, nameMap(t)} {
		ib, err := ReadIBNetDiscover(strings.NewReader(readFile(t, "testdata/fattree.ibnetdiscover")), names)
		if err != nil {
			t.Fatal(err)
		}
		want := fabricByName(ib)
		for _, c := range []struct{ file, format string }{
			{"testdata/fattree.ibnetdiscover-p", "ibnetdiscover"},
			{"testdata/fattree.subnet-lst", "subnet-lst"},
			{"testdata/fattree.opareport.xml", "opareport"},
			{"testdata/fattree.opareport-links.txt", "opareport"},
		} {
			for _, format := range []string{"", c.format} { // detected, and named
				g, err := ReadGraphFormat(strings.NewReader(readFile(t, c.file)), GraphReadOptions{Format: format, NodeNameMap: names})
				if err != nil {
					t.Fatalf("%s: %v", c.file, err)
				}
				if got := fabricByName(g); got != want {
					t.Errorf("%s (map %v): read\n%s\nibnetdiscover\n%s", c.file, names != nil, got, want)
				}
				// Numbered alike too, switches included (the fixture's switch blocks
				// are not in GUID order): every dump is numbered by name (ibFabric).
				if got, want := graphByIndex(g), graphByIndex(ib); got != want {
					t.Fatalf("%s (map %v) numbered\n%s\nibnetdiscover\n%s", c.file, names != nil, got, want)
				}
				checkFabricInvariants(t, g)
			}
		}
	}
}

// graphSamples are a network file of every topo format and of package slurm's.
var graphSamples = map[string]string{ // file -> its format ("" for slurm's)
	"testdata/fattree.ibnetdiscover":       "ibnetdiscover",
	"testdata/fattree.ibnetdiscover-p":     "ibnetdiscover",
	"testdata/fattree.subnet-lst":          "subnet-lst",
	"testdata/fattree.opareport.xml":       "opareport",
	"testdata/fattree.opareport-links.txt": "opareport",
	"testdata/topology.conf":               "",
	"testdata/topology.yaml":               "",
}

// Every sample is detected as its own format, and read as any other format it is
// refused: no file of one format passes for another (slurm's DetectGraphFormat
// test pairs its formats with these).
func TestGraphFormatsPairwise(t *testing.T) {
	samples := map[string]string{"edges sample": "%switch s\na s\nb s\n"}
	formats := map[string]string{"edges sample": "edges"}
	for file, f := range graphSamples {
		samples[file], formats[file] = readFile(t, file), f
	}
	for name, src := range samples {
		got, err := DetectGraphFormat([]byte(src))
		if want := formats[name]; got != want || (want != "" && err != nil) {
			t.Errorf("%s: detected %q (%v), want %q", name, got, err, want)
		}
		for _, f := range GraphFormats() {
			_, err := ReadGraphFormat(strings.NewReader(src), GraphReadOptions{Format: f})
			if own := f == formats[name]; own != (err == nil) {
				t.Errorf("%s read as %s: %v", name, f, err)
			}
		}
	}
}

// lstLine writes one subnet.lst line as osm_dump.c 398-498 prints it: the two
// ends (type with -SM or not, ports, node GUID, description, LID, port number),
// the local VenID %06X and DevID %04X, the peer's %08X and byte-swapped.
func lstLine(aTyp string, aGUID uint64, aDesc string, aPort int, bTyp string, bGUID uint64, bDesc string, bPort int) string {
	return fmt.Sprintf("{ %s Ports:%02X SystemGUID:%016x NodeGUID:%016x PortGUID:%016x VenID:%06X DevID:%04X Rev:%08X {%s} LID:%04X PN:%02X } ", aTyp, 36, aGUID, aGUID, aGUID, 0x2c9, 0xd2f0, 0xa0, aDesc, 1, aPort) +
		fmt.Sprintf("{ %s Ports:%02X SystemGUID:%016x NodeGUID:%016x PortGUID:%016x VenID:%08X DevID:%04X Rev:%08X {%s} LID:%04X PN:%02X } ", bTyp, 1, bGUID, bGUID, bGUID+1, 0x2c9, 0xf0d20000, 0, bDesc, 2, bPort) +
		"PHY=4x LOG=ACT SPD=25\n"
}

// The forms of subnet.lst: a router routes (R-<guid>), a description may hold
// braces, states ARM and INI are cables, and a node-name-map names by node GUID.
func TestSubnetLstForms(t *testing.T) {
	src := lstLine("SW", 0xa1, "leaf {1}", 1, "CA-SM", 0xc1, "n1 {mlx5_0}", 1) +
		lstLine("SW", 0xa1, "leaf {1}", 2, "CA", 0xc2, "n2 mlx5_0", 1) +
		strings.Replace(lstLine("Rt", 0xe1, "router", 1, "SW", 0xa1, "leaf {1}", 3), "LOG=ACT", "LOG=INI", 1)
	g, err := ReadSubnetLst(strings.NewReader(src), NodeNameMap{0xa1: "leaf01"})
	if err != nil {
		t.Fatal(err)
	}
	want := "hosts [n1 n2]\nswitches [R-00000000000000e1 leaf01]\nlinks [R-00000000000000e1 leaf01 leaf01 n1 leaf01 n2]"
	if got := fabricByName(g); got != want {
		t.Errorf("read\n%s\nwant\n%s", got, want)
	}
}

func TestSubnetLstRefusals(t *testing.T) {
	ok := lstLine("SW", 0xa1, "leaf", 1, "CA", 0xc1, "n1 HCA-1", 1)
	for _, c := range []struct{ what, src, want string }{
		{"unknown type", ok + lstLine("**", 0xa2, "x", 1, "CA", 0xc1, "n1 HCA-1", 1), "line 2: node 00000000000000a2 of unknown type"},
		{"type changes", ok + lstLine("CA", 0xa1, "leaf", 1, "SW", 0xb1, "s", 1), "line 2: node 00000000000000a1 is a CA here but not on line 1"},
		{"description changes", ok + lstLine("SW", 0xa1, "leaf2", 2, "CA", 0xc2, "n2 HCA-1", 1), "line 2: node 00000000000000a1 is described \"leaf2\" here but \"leaf\" on line 1"},
		{"a description ending like a record", lstLine("SW", 0xa1, "x} LID:0001 PN:01 } { CA Ports:01 SystemGUID:00 NodeGUID:00 PortGUID:00 VenID:0 DevID:0 Rev:0 {y", 1, "CA", 0xc1, "n1", 1), "line 1: a description holds a record's own syntax"},
		{"malformed", ok + "{ SW Ports:24 SystemGUID:0 NodeGUID:0\n", "line 2: malformed subnet.lst line"},
		{"not a .lst", "hello world\n", "line 1: unrecognised line \"hello world\""},
		{"port past FF", strings.Replace(ok, "PN:01 } {", "PN:100 } {", 1), "line 1: port number PN:100"},
		{"empty", "\n\n", "no link found"},
		{"one host name twice", ok + lstLine("SW", 0xa1, "leaf", 2, "CA", 0xc2, "n1 HCA-1", 1), "the NodeDescription \"n1 HCA-1\" of the CA on line 1"},
	} {
		_, err := ReadSubnetLst(strings.NewReader(c.src), nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.what, err, c.want)
		}
	}
}

// opaDoc writes an opareport XML document holding links (each "guid port type
// desc" twice), as opareport.c writes it (see TestFabricFormatsMatchIBNetDiscover).
func opaDoc(summary string, links ...[2]string) string {
	var b strings.Builder
	b.WriteString("<?xml version=\"1.0\" encoding=\"utf-8\" ?>\n<Report date=\"x\" unixtime=\"0\" options=\"-o topology\" >\n")
	fmt.Fprintf(&b, "<%s>\n    <LinkCount>%d</LinkCount>\n", summary, len(links))
	for _, l := range links {
		b.WriteString("    <Link id=\"0x1:1\">\n        <Rate>100g</Rate>\n        <Rate_Int>16</Rate_Int>\n        <Internal>0</Internal>\n")
		for _, p := range l {
			b.WriteString(p)
		}
		b.WriteString("    </Link>\n")
	}
	fmt.Fprintf(&b, "</%s>\n</Report>\n", summary)
	return b.String()
}

func opaPortXML(guid uint64, port int, typ, desc string) string {
	s := fmt.Sprintf("        <Port id=\"0x%016x:%d\">\n            <NodeGUID>0x%016x</NodeGUID>\n            <PortNum>%d</PortNum>\n", guid, port, guid, port)
	if typ != "" {
		s += fmt.Sprintf("            <NodeType>%s</NodeType>\n", typ)
	}
	if desc != "-" {
		s += fmt.Sprintf("            <NodeDesc>%s</NodeDesc>\n", desc)
	}
	return s + "        </Port>\n"
}

// The forms of opareport's XML: <Topology> for <Report>, NodeType_Int without
// NodeType, an escaped NodeDesc, and none at all (opareport -N: the FI is named by
// GUID).
func TestOPAReportForms(t *testing.T) {
	link := func(p, q string) [2]string { return [2]string{p, q} }
	doc := opaDoc("LinkSummary",
		link(opaPortXML(0xa1, 1, "SW", "edge&amp;1"), opaPortXML(0xc1, 1, "FI", "n&lt;1&gt; hfi1_0")),
		link(opaPortXML(0xa1, 2, "SW", "edge&amp;1"), strings.Replace(opaPortXML(0xc2, 1, "", "-"), "</Port>", "    <NodeType_Int>1</NodeType_Int>\n        </Port>", 1)),
		link(opaPortXML(0xa1, 3, "SW", "edge&amp;1"), opaPortXML(0xc3, 1, "FI", "n3 hfi1_0")))
	doc = strings.ReplaceAll(doc, "Report", "Topology")
	_, err := ReadOPAReport(strings.NewReader(doc), nil)
	if err == nil || !strings.Contains(err.Error(), `starts with "n<1>", which holds "<"`) {
		t.Fatalf("an escaped description is read unescaped: %v", err)
	}
	doc = strings.Replace(doc, "n&lt;1&gt; hfi1_0", "n1 hfi1_0", 1)
	g, err := ReadOPAReport(strings.NewReader(doc), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "hosts [H-00000000000000c2 n1 n3]\nswitches [S-00000000000000a1]\nlinks [H-00000000000000c2 S-00000000000000a1 S-00000000000000a1 n1 S-00000000000000a1 n3]"
	if got := fabricByName(g); got != want {
		t.Errorf("read\n%s\nwant\n%s", got, want)
	}
}

func TestOPAReportRefusals(t *testing.T) {
	sw, fi := opaPortXML(0xa1, 1, "SW", "edge1"), opaPortXML(0xc1, 1, "FI", "n1 hfi1_0")
	good := opaDoc("LinkSummary", [2]string{sw, fi})
	for _, c := range []struct{ what, src, want string }{
		{"extlinks", opaDoc("ExtLinkSummary", [2]string{sw, fi}), "line 3: <ExtLinkSummary> (opareport -o extlinks) lists only some links"},
		{"islinks", opaDoc("ISLinkSummary", [2]string{sw, fi}), "(opareport -o islinks)"},
		{"no NodeGUID", strings.Replace(good, "<NodeGUID>0x00000000000000c1</NodeGUID>", "", 1), "line 15: a <Port> without <NodeGUID>"},
		{"empty NodeGUID", strings.Replace(good, "<NodeGUID>0x00000000000000c1</NodeGUID>", "<NodeGUID></NodeGUID>", 1), "line 15: a <Port> without <NodeGUID>"},
		{"type ??", strings.Replace(good, "<NodeType>FI</NodeType>", "<NodeType>??</NodeType>", 1), "line 15: node 00000000000000c1 of type \"??\""},
		{"one port", opaDoc("LinkSummary", [2]string{sw, ""}), "line 5: a <Link> with 1 <Port>s, not 2"},
		{"-d 0", strings.Replace(good, good[strings.Index(good, "    <Link "):strings.Index(good, "</LinkSummary>")], "", 1), "counts 1 links but lists none"},
		{"no summary", "<Report>\n<Nodes></Nodes>\n</Report>\n", "no <LinkSummary>"},
		{"other XML", "<?xml version=\"1.0\"?>\n<graph/>\n", "line 2: document element <graph>"},
		{"malformed", strings.Replace(good, "</Port>", "</Prot>", 1), "line 14: malformed XML: element <Port> closed by </Prot>"},
		{"GUID without 0x", strings.Replace(good, "<NodeGUID>0x00000000000000c1", "<NodeGUID>00000000000000c1", 1), "line 15: <NodeGUID>00000000000000c1</NodeGUID> is not 0x"},
		{"port 256", strings.Replace(good, "<PortNum>1</PortNum>", "<PortNum>256</PortNum>", 1), "line 9: <PortNum>256</PortNum> is not a port number"},
		{"type changes", opaDoc("LinkSummary", [2]string{sw, fi}, [2]string{opaPortXML(0xa1, 2, "FI", "edge1"), opaPortXML(0xc2, 1, "FI", "n2 hfi1_0")}), "line 26: node 00000000000000a1 is a CA here but a switch on line 9"},
	} {
		_, err := ReadOPAReport(strings.NewReader(c.src), nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.what, err, c.want)
		}
	}
}

// errLine is how a reader's error names the line; the few without one say why.
var errLine = regexp.MustCompile(`^line \d+: |^no link found|^no host in the |^no <LinkSummary>|^no <Link>|^the <LinkSummary> counts|^line \d+ is longer|^no "Link Summary"|^no link in|^the Link Summary counts`)

// checkReaderError: an error names its line (or is one of the whole-file ones) and
// quotes no more of the input than textin.Clip lets through.
func checkReaderError(t *testing.T, src string, err error) {
	t.Helper()
	if !errLine.MatchString(err.Error()) {
		t.Fatalf("%.200q: error without a line: %v", src, err)
	}
	if len(err.Error()) > 2000 {
		t.Fatalf("%.200q: an error of %d bytes: input not clipped", src, len(err.Error()))
	}
}

func FuzzReadSubnetLst(f *testing.F) {
	f.Add(readFile(f, "testdata/fattree.subnet-lst"))
	f.Add(lstLine("SW", 0xa1, "leaf {1}", 1, "CA-SM", 0xc1, "n1 {mlx5_0}", 1))
	f.Add(lstLine("Rt", 0xa1, "} LID:0001 PN:01 }", 1, "CA", 0xc1, "n1", 1))
	f.Fuzz(func(t *testing.T, src string) {
		// As the reader before wt-fabricmem read it (fabricref_test.go).
		if _, diff := CompareFabricReaders("subnet-lst", []byte(src), nil); diff != nil {
			t.Fatalf("%.300q: %v", src, diff)
		}
		g, err := ReadSubnetLst(strings.NewReader(src), nil)
		if err != nil {
			checkReaderError(t, src, err)
			return
		}
		checkFabricInvariants(t, g)
	})
}

func FuzzReadOPAReport(f *testing.F) {
	f.Add(readFile(f, "testdata/fattree.opareport.xml"))
	f.Add(opaDoc("LinkSummary", [2]string{opaPortXML(0xa1, 1, "SW", "edge1"), opaPortXML(0xc1, 1, "FI", "n1 hfi1_0")}))
	f.Add(opaDoc("LinkSummary", [2]string{opaPortXML(0xa1, 1, "SW", "-"), opaPortXML(0xc1, 1, "", "-")}))
	f.Add(readFile(f, "testdata/fattree.opareport-links.txt"))
	f.Add("Link Summary\n1 Links in Fabric:\n 25g 0x00000000000000a1   1 SW   edge1\n<->  0x00000000000000c1   1 FI   n1 hfi1_0\n")
	f.Fuzz(func(t *testing.T, src string) {
		// As the reader before wt-fabricmem read it (fabricref_test.go).
		if _, diff := CompareFabricReaders("opareport", []byte(src), nil); diff != nil {
			t.Fatalf("%.300q: %v", src, diff)
		}
		g, err := ReadOPAReport(strings.NewReader(src), nil)
		if err != nil {
			checkReaderError(t, src, err)
			return
		}
		checkFabricInvariants(t, g)
	})
}

// A real ibdiagnet2.lst line, as a 2014 user's note quotes it (the descriptions
// were lost in the note; put back here): ibdiagnet writes VenID with 8 digits and
// lowercase hex, DevID unswapped, an SDR link's SPD=2.5.
func TestSubnetLstIbdiagnet2Line(t *testing.T) {
	src := "{ CA Ports:02 SystemGUID:0002c90300165e63 NodeGUID:0002c90300165e60 PortGUID:0002c90300165e61 VenID:000002c9 DevID:1003 Rev:00000000 {c0104 HCA-1} LID:0005 PN:01 } " +
		"{ SW Ports:24 SystemGUID:0002c90300688830 NodeGUID:0002c90300688830 PortGUID:0002c90300688830 VenID:000002c9 DevID:c738 Rev:000000a1 {MF0;switch-688830:SX6036/U1} LID:0002 PN:14 } PHY=4x LOG=ACT SPD=2.5\n"
	g, err := ReadGraphFormat(strings.NewReader(src), GraphReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fabricByName(g), "hosts [c0104]\nswitches [S-0002c90300688830]\nlinks [S-0002c90300688830 c0104]"; got != want {
		t.Errorf("read\n%s\nwant\n%s", got, want)
	}
}

// opagentopology's sample topology (IbaTools/opaxmlgenerate/opagentopology.sh 39-43:
// <Topology>, then opaxmlgenerate's Link, Cable and Port elements, no NodeType_Int)
// of opatopology_links.txt's first two links is read: two FIs on two switches.
func TestOPAReportGeneratedTopology(t *testing.T) {
	port := func(guid, num, desc, portGUID, typ, details string) string {
		return "<Port>\n<NodeGUID>" + guid + "</NodeGUID>\n<PortNum>" + num + "</PortNum>\n<NodeDesc>" + desc + "</NodeDesc>\n<PortGUID>" + portGUID +
			"</PortGUID>\n<NodeType>" + typ + "</NodeType>\n<PortDetails>" + details + "</PortDetails>\n</Port>\n"
	}
	doc := "<?xml version=\"1.0\" encoding=\"utf-8\" ?>\n<Topology>\n<LinkSummary>\n" +
		"<Link>\n<Rate>25g</Rate>\n<MTU>2048</MTU>\n<Internal>0</Internal>\n<LinkDetails>IO Server Link</LinkDetails>\n<Cable>\n<CableLength>11m</CableLength>\n<CableLabel>S4567</CableLabel>\n<CableDetails>cable model 456</CableDetails>\n</Cable>\n" +
		port("0x001175010020e004", "1", "bender hfi1_0", "0x001175010020e004", "FI", "Some info about port") +
		port("0x0011750107000df6", "7", "Switch 1234 Leaf 4", "", "SW", "") + "</Link>\n" +
		"<Link>\n<Rate>25g</Rate>\n<MTU></MTU>\n<Internal>0</Internal>\n<LinkDetails></LinkDetails>\n<Cable>\n<CableLength></CableLength>\n<CableLabel></CableLabel>\n<CableDetails></CableDetails>\n</Cable>\n" +
		port("0x001175010025a678", "1", "mindy2 hfi1_0", "", "FI", "") +
		port("0x0011750107000e6d", "4", "Switch 2345 Leaf 5", "", "SW", "") + "</Link>\n" +
		"</LinkSummary>\n<Nodes>\n<FIs>\n</FIs>\n</Nodes>\n</Topology>\n"
	if f, err := DetectGraphFormat([]byte(doc)); f != "opareport" {
		t.Fatalf("detected %q (%v)", f, err)
	}
	g, err := ReadOPAReport(strings.NewReader(doc), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "hosts [bender mindy2]\nswitches [S-0011750107000df6 S-0011750107000e6d]\nlinks [S-0011750107000df6 bender S-0011750107000e6d mindy2]"
	if got := fabricByName(g); got != want {
		t.Errorf("read\n%s\nwant\n%s", got, want)
	}
}

// A dual-rail host in opareport's XML (two FIs "n1 hfi1_0", "n1 hfi1_1" on two
// switches) is one host keeping hfi1_0's cable, with ibnetdiscover's warning.
func TestOPAReportDualRail(t *testing.T) {
	doc := opaDoc("LinkSummary",
		[2]string{opaPortXML(0xa1, 1, "SW", "edge1"), opaPortXML(0xc2, 1, "FI", "n1 hfi1_1")},
		[2]string{opaPortXML(0xa2, 1, "SW", "edge2"), opaPortXML(0xc1, 1, "FI", "n1 hfi1_0")},
		[2]string{opaPortXML(0xa1, 2, "SW", "edge1"), opaPortXML(0xc3, 1, "FI", "n2 hfi1_0")},
		[2]string{opaPortXML(0xa2, 2, "SW", "edge2"), opaPortXML(0xc4, 1, "FI", "n3 hfi1_0")})
	var warned []string
	g, err := ReadGraphFormat(strings.NewReader(doc), GraphReadOptions{Warn: func(w string) { warned = append(warned, w) }})
	if err != nil {
		t.Fatal(err)
	}
	want := "hosts [n1 n2 n3]\nswitches [S-00000000000000a1 S-00000000000000a2]\nlinks [S-00000000000000a1 n2 S-00000000000000a2 n1 S-00000000000000a2 n3]"
	if got := fabricByName(g); got != want {
		t.Errorf("read\n%s\nwant\n%s", got, want)
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "1 hosts have more than one cable") {
		t.Errorf("warnings %q", warned)
	}
}

// The text of opareport -o links: rates of any width, a port without a
// description (named by GUID), and its refusals.
func TestOPALinksText(t *testing.T) {
	head := "Link Summary\n2 Links in Fabric:\nRate NodeGUID          Port Type Name\n"
	l1 := "12.5g 0x00000000000000a1   1 SW   edge1\n<->  0x00000000000000c1   1 FI   n1 hfi1_0\n"
	l2 := " 25g 0x00000000000000a1   2 SW   edge1\n<->  0x00000000000000c2   1 FI\n"
	sep := strings.Repeat("-", 79) + "\n"
	g, err := ReadGraphFormat(strings.NewReader(head+l1+l2+sep), GraphReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := "hosts [H-00000000000000c2 n1]\nswitches [S-00000000000000a1]\nlinks [H-00000000000000c2 S-00000000000000a1 S-00000000000000a1 n1]"
	if got := fabricByName(g); got != want {
		t.Errorf("read\n%s\nwant\n%s", got, want)
	}
	for _, c := range []struct{ what, src, want string }{
		{"-T details", head + l1 + "    PortDetails: rack 4\n" + l2, "line 6: \"PortDetails: rack 4\" is no line of opareport -o links"},
		{"cable", head + l1 + "    Cable: S4567 11m\n" + l2, "line 6: \"Cable: S4567 11m\""},
		{"no second port", head + "100g 0x00000000000000a1   1 SW   edge1\n" + l2, "line 5: a link's first port, but the link of line 4 has no second"},
		{"second port alone", head + "<->  0x00000000000000c1   1 FI   n1 hfi1_0\n", "line 4: a link's second (\"<->\") port without a first"},
		{"last link cut", head + l1 + " 25g 0x00000000000000a1   2 SW   edge1\n", "line 6: the last link has no second"},
		{"count differs", head + l1 + sep, "counts 2 links but lists 1"},
		{"-d 0", head + sep, "counts 2 links but lists none"},
		{"focus", "Link Summary\nFocused on:\n", "line 2: \"Focused on:\" is no line"},
		{"before the summary", "Node Type Brief Summary\nLink Summary\n", "line 1: \"Node Type Brief Summary\" before opareport's \"Link Summary\""},
		{"type ??", head + strings.Replace(l1, "FI   n1", "??   n1", 1) + l2, "line 5: node 00000000000000c1 of type \"??\""},
	} {
		_, err := ReadOPAReport(strings.NewReader(c.src), nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.what, err, c.want)
		}
	}
}
