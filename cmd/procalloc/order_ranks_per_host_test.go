package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOrderRanksPerHost: order -o writes the launchers' files through curve's
// writer, so it takes curve's --ranks-per-host K (one declaration for both): each
// host of the ordering K times in a row (hosts), or K ranks a host (rankfile), the
// same bytes as curve --ranks-per-host K writes from order's own ranking. The flag
// beside another format, without -o, with --qap or below 1 is a usage error.
func TestOrderRanksPerHost(t *testing.T) {
	dir := t.TempDir()
	base := []string{"order", "--graph", "../../topo/testdata/fattree.ibnetdiscover", "--node-name-map", "../../topo/testdata/fattree.node-name-map", "--weights", "list:1,0.5"}
	pairs := filepath.Join(dir, "o.pairs")
	if code, _, stderr := runCLI(t, "", append(base, "-o", pairs)...); code != 0 {
		t.Fatalf("order -o o.pairs: exit %d, %s", code, stderr)
	}
	for _, f := range []string{"hosts", "rankfile"} {
		out := filepath.Join(dir, "o."+f)
		code, _, stderr := runCLI(t, "", append(base, "-o", out, "--format", f, "--ranks-per-host", "3")...)
		got, _ := os.ReadFile(out)
		if code != 0 {
			t.Fatalf("order --format %s --ranks-per-host 3: exit %d, %s", f, code, stderr)
		}
		_, want, stderr := runCLI(t, "", "curve", "--graph", "../../topo/testdata/fattree.ibnetdiscover", "--node-name-map", "../../topo/testdata/fattree.node-name-map",
			"--curve", pairs, "--format", f, "--ranks-per-host", "3")
		if string(got) != want || strings.Count(want, "\n") != 3*16 {
			t.Errorf("--format %s: order wrote %q, curve from its ranking %q (%s)", f, got, want, stderr)
		}
	}
	for _, bad := range [][]string{
		{"-o", filepath.Join(dir, "x.pairs"), "--ranks-per-host", "2"},
		{"-o", filepath.Join(dir, "x"), "--format", "ranks", "--ranks-per-host", "2"},
		{"-o", filepath.Join(dir, "x.hosts"), "--ranks-per-host", "0"},
		{"--ranks-per-host", "2"},
	} {
		if code, _, stderr := runCLI(t, "", append(base, bad...)...); code != 2 || !strings.Contains(stderr, "--ranks-per-host") {
			t.Errorf("%q: exit %d, stderr %q", bad, code, stderr)
		}
	}
	if code, _, stderr := runCLI(t, "", "order", "--qap", "x.dat", "-o", filepath.Join(dir, "q.hosts"), "--ranks-per-host", "2"); code != 2 || !strings.Contains(stderr, "not --qap") {
		t.Errorf("--qap --ranks-per-host: exit %d, stderr %q", code, stderr)
	}
}
