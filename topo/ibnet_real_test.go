package topo

import (
	"strings"
	"testing"
)

// The cases below reproduce what real ibnetdiscover dumps in public repositories
// hold (docs/reliability.md, "Real fabric dumps"): adapters whose NodeDescription is
// still their firmware's default, and ibnetdiscover's standard error saved with its
// output. The dumps are ibFormsBase edited, not the public files.

// readIBNetWarnings reads src as ReadGraphFormat does with the format detected,
// returning the graph and the warnings.
func readIBNetWarnings(t *testing.T, src string, names NodeNameMap) (*Graph, []string, error) {
	t.Helper()
	var warns []string
	g, err := ReadGraphFormat(strings.NewReader(src), GraphReadOptions{NodeNameMap: names, Warn: func(s string) { warns = append(warns, s) }})
	return g, warns, err
}

// TestIBNetDiscoverFirmwareDescriptions: a CA whose NodeDescription is its
// firmware's default ("MT4129 ConnectX7   Mellanox Technologies": rdma-ndd not run
// on its host; 69 of the 542 CAs of a public NDR fabric's dump, 89 of 89 of an
// older QDR one's) names no host. Before, one such CA became a host called
// "MT4129" without a word, and two refused the whole file; now each is a host
// named by its GUID, as the dump names it, with one warning saying how to name
// them, and a node-name-map naming some leaves the others so. A description
// naming the host "localhost" names none either.
func TestIBNetDiscoverFirmwareDescriptions(t *testing.T) {
	const fw = "MT4129 ConnectX7   Mellanox Technologies"
	one := strings.ReplaceAll(ibFormsBase, "node01 mlx5_0", fw)
	g, warns, err := readIBNetWarnings(t, one, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.ReplaceAll(ibFormsNetwork, "node01", "H-0002c90300c00010")
	if got := fabricByName(g); got != sortedFabric(t, want) {
		t.Errorf("one firmware description:\n%s\nwant\n%s", got, sortedFabric(t, want))
	}
	if _, ok := g.Lookup("MT4129"); ok {
		t.Error("a host is named MT4129, the adapter's chip")
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "1 CAs have no host name in their NodeDescription") || !strings.Contains(warns[0], "line 37") || !strings.Contains(warns[0], "--node-name-map") {
		t.Errorf("warnings %q, want one naming the CA's line and --node-name-map", warns)
	}

	// Two CAs (other hosts) with the one default description: two hosts.
	two := strings.ReplaceAll(one, "node02 mlx5_0", fw)
	g, warns, err = readIBNetWarnings(t, two, nil)
	if err != nil {
		t.Fatalf("two firmware descriptions: %v", err)
	}
	want2 := strings.ReplaceAll(want, "node02", "H-0002c90300c00020")
	if got := fabricByName(g); got != sortedFabric(t, want2) {
		t.Errorf("two firmware descriptions:\n%s\nwant\n%s", got, sortedFabric(t, want2))
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "2 CAs have no host name") {
		t.Errorf("warnings %q", warns)
	}

	// "localhost" (rdma-ndd ran before the hosts had their names; 3 CAs of the
	// NDR dump): the CAs of two machines would join as one host's two rails.
	local := strings.ReplaceAll(strings.ReplaceAll(ibFormsBase, "node01 mlx5_0", "localhost mlx5_0"), "node02 mlx5_0", "localhost mlx5_1")
	g, warns, err = readIBNetWarnings(t, local, nil)
	if err != nil || len(warns) != 1 || !strings.Contains(warns[0], "2 CAs have no host name") {
		t.Errorf("localhost: %v, warnings %q", err, warns)
	} else if got := fabricByName(g); got != sortedFabric(t, want2) {
		t.Errorf("localhost:\n%s\nwant\n%s", got, sortedFabric(t, want2))
	}

	// A map naming one: the other stays named by GUID, and is the one counted.
	g, warns, err = readIBNetWarnings(t, two, NodeNameMap{0x2c90300c00020: "node02"})
	if err != nil {
		t.Fatal(err)
	}
	if got := fabricByName(g); got != sortedFabric(t, want) {
		t.Errorf("map naming one:\n%s\nwant\n%s", got, sortedFabric(t, want))
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "1 CAs have no host name") {
		t.Errorf("warnings %q", warns)
	}

	// The older forms of the default, and the -p report: the same rule.
	for _, desc := range []string{"MT25408 ConnectX Mellanox Technologies", "MT23108 InfiniHost Mellanox Technologies", "MT4123", "localhost.localdomain HCA-1", " "} {
		g, warns, err := readIBNetWarnings(t, strings.ReplaceAll(ibFormsBase, "node01 mlx5_0", desc), nil)
		if err != nil || len(warns) != 1 || fabricByName(g) != sortedFabric(t, want) {
			t.Errorf("%q: %v, warnings %q", desc, err, warns)
		}
	}
	p := "CA    21  1 0x0002c90300c00011 4x HDR - SW     1  1 0x0002c90300a00001 ( '" + fw + "' - 'leaf' )\n" +
		"CA    22  1 0x0002c90300c00021 4x HDR - SW     1  2 0x0002c90300a00001 ( 'node02 mlx5_0' - 'leaf' )\n"
	g, warns, err = readIBNetWarnings(t, p, nil)
	if err != nil || len(warns) != 1 || !strings.Contains(warns[0], "two cabled ports of one such adapter are one host only where their lines show it") || fabricByName(g) != "hosts [H-0002c90300c00011 node02]\nswitches [S-0002c90300a00001]\nlinks [H-0002c90300c00011 S-0002c90300a00001 S-0002c90300a00001 node02]" {
		t.Errorf("-p: %v, warnings %q, fabric\n%v", err, warns, g)
	}

	// A host name that merely ends like a vendor's is still a host name only
	// when it is the first word of a description that is no firmware default.
	g, warns, err = readIBNetWarnings(t, strings.ReplaceAll(ibFormsBase, "node01 mlx5_0", "node01 HCA-1"), nil)
	if err != nil || len(warns) != 0 || fabricByName(g) != ibFormsNetwork {
		t.Errorf("node01 HCA-1: %v, warnings %q", err, warns)
	}
}

// sortedFabric returns want (fabricByName's form) with its lists sorted, as
// fabricByName sorts them.
func sortedFabric(t *testing.T, want string) string {
	t.Helper()
	g, err := ibFormsGraph(want)
	if err != nil {
		t.Fatal(err)
	}
	return fabricByName(g)
}

// ibFormsGraph builds the fabric fabricByName's text describes.
func ibFormsGraph(text string) (*Graph, error) {
	f := NewFabric()
	for l := range strings.SplitSeq(text, "\n") {
		key, list, _ := strings.Cut(l, " ")
		words := strings.Fields(strings.Trim(list, "[]"))
		switch key {
		case "hosts":
			for _, w := range words {
				if err := f.AddHost(w); err != nil {
					return nil, err
				}
			}
		case "switches":
			for _, w := range words {
				if err := f.AddSwitch(w); err != nil {
					return nil, err
				}
			}
		case "links":
			for i := 0; i+1 < len(words); i += 2 {
				if err := f.Link(words[i], words[i+1]); err != nil {
					return nil, err
				}
			}
		}
	}
	return f.Graph()
}

// TestIBNetDiscoverStandardError: a dump saved with 2>&1 (or copied from a
// terminal) holds what ibnetdiscover and its libraries printed on standard error,
// as a public dump's first line "src/query_smp.c:195; umad (DR path slid 0; dlid 0;
// 0,1,1,31 Attr 0x11:0) bad status 110; Connection timed out". Before, its format
// could not be told and, given, its first line was refused; now those lines are
// skipped with a warning quoting the first (the discovery met errors), and a file
// of such lines only is refused as a failed discovery.
func TestIBNetDiscoverStandardError(t *testing.T) {
	const timeout = "src/query_smp.c:195; umad (DR path slid 0; dlid 0; 0,1,1,31 Attr 0x11:0) bad status 110; Connection timed out\n"
	const ibwarn = "ibwarn: [565044] sim_connect: attached as client 1 at node \"Switch1\"\n"
	const iberror = "ibnetdiscover: iberror: [pid 1234] main: failed: discover failed\n"
	at := strings.Index(ibFormsBase, "\nvendid=0x2c9\ndevid=0xd2f0\nsysimgguid=0x2c90300a00002")
	for _, src := range []string{
		timeout + ibFormsBase,
		ibwarn + timeout + ibFormsBase,
		ibFormsBase[:at] + "\n" + ibwarn + ibFormsBase[at:],
		ibFormsBase + iberror,
	} {
		if f, err := DetectGraphFormat([]byte(src)); f != "ibnetdiscover" {
			t.Errorf("detected %q, %v, want ibnetdiscover:\n%.200s", f, err, src)
		}
		g, warns, err := readIBNetWarnings(t, src, nil)
		if err != nil {
			t.Errorf("%v:\n%.200s", err, src)
			continue
		}
		if fabricByName(g) != ibFormsNetwork {
			t.Errorf("fabric\n%s\nwant\n%s", fabricByName(g), ibFormsNetwork)
		}
		if len(warns) != 1 || !strings.Contains(warns[0], "standard error") || !strings.Contains(warns[0], "rerun ibnetdiscover") {
			t.Errorf("warnings %q", warns)
		}
	}
	_, _, err := readIBNetWarnings(t, "#\n"+timeout+iberror, nil)
	if err == nil || !strings.Contains(err.Error(), "only ibnetdiscover's error messages (line 2:") {
		t.Errorf("error messages only: %v", err)
	}
	// Lines that only look alike are still refused.
	_, err = ReadIBNetDiscover(strings.NewReader(ibFormsBase+"query_smp.c: 195 umad\n"), nil)
	if err == nil || !strings.Contains(err.Error(), "unrecognised line") {
		t.Errorf("a stray line: %v", err)
	}
}

// TestIBNetDiscoverPortsReportUnconnectedOnly: a ports report whose ports are all
// unconnected (a public exporter's fixture: "SW   479 22 0x0002c9020040f161 4x QDR
// ... 'Infiniscale-IV Mellanox Technologies'") was "not ibnetdiscover output?";
// it is, with no link.
func TestIBNetDiscoverPortsReportUnconnectedOnly(t *testing.T) {
	src := "SW   479 22 0x0002c9020040f161 4x QDR                                   'Infiniscale-IV Mellanox Technologies'\n"
	if f, _ := DetectGraphFormat([]byte(src)); f != "ibnetdiscover" {
		t.Errorf("detected %q", f)
	}
	_, err := ReadIBNetDiscover(strings.NewReader(src), nil)
	if err == nil || !strings.Contains(err.Error(), "no connected port in this ports report (ibnetdiscover -p)") {
		t.Errorf("%v", err)
	}
}

// TestIBNetDiscoverByteOrderMark: a dump saved by an editor that writes a UTF-8
// byte-order mark was detected as ibnetdiscover (DetectGraphFormat skips the mark)
// and then refused, "line 1: unrecognised line "\ufeff#""; it reads as without
// the mark, as subnet.lst and opareport files do.
func TestIBNetDiscoverByteOrderMark(t *testing.T) {
	for _, src := range []string{ibFormsBase, ibFormsBase[strings.Index(ibFormsBase, "\nvendid="):]} {
		g, err := ReadIBNetDiscover(strings.NewReader("\ufeff"+src), nil)
		if err != nil || fabricByName(g) != ibFormsNetwork {
			t.Errorf("%v", err)
		}
	}
}
