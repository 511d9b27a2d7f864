package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An empty node-name-map is a valid one for infiniband-diags and is accepted; that
// it names no node is said on stderr.
func TestEmptyNodeNameMapWarns(t *testing.T) {
	empty := filepath.Join(t.TempDir(), "empty.map")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runCLI(t, "", "evaluate", "--graph", "../../topo/testdata/fattree.ibnetdiscover", "--node-name-map", empty, "--curve", "rcm", "--weights", "list:1")
	if want := "warning: --graph ../../topo/testdata/fattree.ibnetdiscover: the node-name-map " + empty + " names no node (it maps no GUID)"; code != 0 || out == "" || !strings.Contains(stderr, want) {
		t.Fatalf("exit %d, stderr %q; want exit 0 and %q", code, stderr, want)
	}
}
