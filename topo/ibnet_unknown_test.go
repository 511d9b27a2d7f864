package topo

import (
	"context"
	"os"
	"strings"
	"testing"
)

// TestIBNetDiscoverUnknownNodeType: ibnetdiscover prints a node whose NodeInfo
// NodeType is none of CA, switch, router (a reserved value; 4, an iWARP RNIC) as ??
// in -p (ports_nt_str_compat, ibnetdiscover.c 147-159) and as a peer "?-GUID" in
// the default form (node_name 161-182; it has no block there: add_to_type_list
// lists no such node). Both were refused as unrecognised or malformed lines. Such a
// node cabled to one node only lies on no path between others: left out with a
// warning, the rest of the fabric read as without it. Cabled to two nodes it may
// forward their traffic or not, which cannot be told: refused, naming it.
func TestIBNetDiscoverUnknownNodeType(t *testing.T) {
	read := func(src string) (string, []string, error) {
		var warned []string
		g, err := readIBNetDiscover(context.Background(), strings.NewReader(src), nil, func(w string) { warned = append(warned, w) })
		if err != nil {
			return "", warned, err
		}
		return fabricByName(g), warned, nil
	}
	for _, c := range []struct {
		file, leaf, second string
	}{
		{"testdata/fattree.ibnetdiscover",
			// A port of leaf switch a00001 cabled to the unknown node, in a00001's block.
			"[40]\t\"?-0002c903000f0001\"[1]\t\t# \"odd device\" lid 99 4xHDR\n",
			"[40]\t\"?-0002c903000f0001\"[2]\t\t# \"odd device\" lid 99 4xHDR\n"},
		{"testdata/fattree.ibnetdiscover-p",
			"SW     1 40 0x0002c90300a00001 4x HDR - ??    99  1 0x0002c903000f0001 ( 'MF0;switch-a00001:MQM8700/U1' - 'odd device' )\n" +
				"??    99  1 0x0002c903000f0001 4x HDR - SW     1 40 0x0002c90300a00001 ( 'odd device' - 'MF0;switch-a00001:MQM8700/U1' )\n",
			"??    99  2 0x0002c903000f0001 4x HDR - SW     2 40 0x0002c90300a00002 ( 'odd device' - 'MF0;switch-a00002:MQM8700/U1' )\n"},
	} {
		data, err := os.ReadFile(c.file)
		if err != nil {
			t.Fatal(err)
		}
		src := string(data)
		want, _, err := read(src)
		if err != nil {
			t.Fatal(err)
		}
		with := src
		if strings.HasSuffix(c.file, "-p") {
			with += c.leaf
		} else {
			// After the block line of switch a00001.
			i := strings.Index(src, "Switch\t40 \"S-0002c90300a00001\"")
			i += strings.IndexByte(src[i:], '\n') + 1
			with = src[:i] + c.leaf + src[i:]
		}
		got, warned, err := read(with)
		if err != nil {
			t.Fatalf("%s with a leaf of unknown type: %v", c.file, err)
		}
		if got != want || len(warned) != 1 || !strings.Contains(warned[0], "1 nodes of unknown type") || !strings.Contains(warned[0], "0002c903000f0001") {
			t.Errorf("%s with a leaf of unknown type: warnings %q, same fabric %v", c.file, warned, got == want)
		}
		// Cabled to a second switch (a00002): refused, naming the node.
		second := c.second
		if !strings.HasSuffix(c.file, "-p") {
			i := strings.Index(with, "Switch\t40 \"S-0002c90300a00002\"")
			i += strings.IndexByte(with[i:], '\n') + 1
			with = with[:i] + second + with[i:]
		} else {
			with += second
		}
		if _, _, err := read(with); err == nil || !strings.Contains(err.Error(), "node 0002c903000f0001 is of unknown type") || !strings.Contains(err.Error(), "cabled to 2 nodes") {
			t.Errorf("%s, the node cabled to two switches: %v", c.file, err)
		}
	}
}
