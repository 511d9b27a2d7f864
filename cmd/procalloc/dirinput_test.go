package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A directory named as an input is refused when it is opened, "open DIR: is a
// directory" (exit 1), as a missing file is: not as a read error on its line 1.
func TestDirectoryAsInputIsRefusedByName(t *testing.T) {
	dir := t.TempDir()
	adir := filepath.Join(dir, "adir")
	if err := os.Mkdir(adir, 0o755); err != nil {
		t.Fatal(err)
	}
	const fabric = "../../topo/testdata/fattree.ibnetdiscover"
	for _, args := range [][]string{
		{"sim", "--machine", "mesh:8x8", "--trace", adir},
		{"subset", "--algo", "mm", "--k", "2", "--points", adir},
		{"curve", "--graph", adir, "--curve", "bfs"},
		{"curve", "--machine", "mesh:4x4", "--curve", adir},
		{"evaluate", "--graph", fabric, "--node-name-map", adir, "--curve", "rcm"},
		{"plan", "--graph", fabric, "--slurm-conf", adir, "-o", filepath.Join(dir, "plan")},
		{"merge", adir},
	} {
		code, _, stderr := runCLI(t, "", args...)
		if want := "open " + adir + ": is a directory"; code != 1 || !strings.Contains(stderr, want) || strings.Contains(stderr, "line") {
			t.Errorf("%s: exit %d, stderr %q; want exit 1 and %q, no line", strings.Join(args, " "), code, stderr, want)
		}
	}
}
