package slurm

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A node-name-map that names no node of the fabric (empty, which infiniband-diags
// accepts, or another fabric's) is read, with a warning; one that names nodes is
// applied without one.
func TestGraphFileNameMapNamingNothingWarns(t *testing.T) {
	const fabric = "../topo/testdata/fattree.ibnetdiscover"
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		nameMap, warn string
	}{
		{write("empty.map", ""), "(it maps no GUID)"},
		{write("comments.map", "# no entries\n\n"), "(it maps no GUID)"},
		{write("foreign.map", "0x1234 \"elsewhere\"\n0x5678 other\n"), "(none of the 2 names it maps is a node of this fabric)"},
		{"../topo/testdata/fattree.node-name-map", ""},
	} {
		g, ws, err := GraphFile{Path: fabric, NodeNameMap: tc.nameMap}.Read()
		if err != nil {
			t.Fatalf("%s: %v", tc.nameMap, err)
		}
		plain, _, err := GraphFile{Path: fabric}.Read()
		if err != nil {
			t.Fatal(err)
		}
		renamed := 0
		for v := range g.Vertices() {
			if g.Name(v) != plain.Name(v) {
				renamed++
			}
		}
		if tc.warn == "" {
			if len(ws) != 0 || renamed == 0 {
				t.Errorf("%s: warnings %q, %d nodes renamed; want none and some", tc.nameMap, ws, renamed)
			}
			continue
		}
		if len(ws) != 1 || !strings.Contains(ws[0], tc.nameMap) || !strings.Contains(ws[0], tc.warn) || renamed != 0 {
			t.Errorf("%s: warnings %q, %d nodes renamed; want one naming the map and %q, none renamed", tc.nameMap, ws, renamed, tc.warn)
		}
	}
}
