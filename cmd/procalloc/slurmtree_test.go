package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sim reads the topology.conf of slurm:tree:FILE itself; a bad file is an error
// naming it and its line.
func TestSimSlurmTree(t *testing.T) {
	dir := t.TempDir()
	topo := filepath.Join(dir, "topology.conf")
	conf := "SwitchName=l1 Nodes=n[1-4]\nSwitchName=l2 Nodes=n[5-8]\nSwitchName=top Switches=l[1-2]\n"
	if err := os.WriteFile(topo, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	trace := filepath.Join(dir, "t.txt")
	if err := os.WriteFile(trace, []byte("0 3 100 100\n1 2 50 50\n2 4 80 80\n3 1 30 30\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, spec := range []string{"slurm:tree:" + topo, "slurm:consec", "slurm:tree:" + topo + ":rcm"} {
		code, out, stderr := runCLI(t, "", "sim", "--trace", trace, "--graph", topo, "--alloc", spec, "--json")
		if code != 0 || !strings.Contains(out, "\"alloc\"") {
			t.Errorf("%s: exit %d, stderr %q, stdout %.200q", spec, code, stderr, out)
		}
	}
	bad := filepath.Join(dir, "bad.conf")
	if err := os.WriteFile(bad, []byte("SwitchName=l1 Nodes=n[1-4]\nSwitchName=top Switches=l9\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, "", "sim", "--trace", trace, "--graph", topo, "--alloc", "slurm:tree:"+bad)
	if code == 0 || !strings.Contains(stderr, "bad.conf") || !strings.Contains(stderr, "line 2") {
		t.Errorf("bad topology: exit %d, stderr %q", code, stderr)
	}
	code, _, stderr = runCLI(t, "", "sim", "--trace", trace, "--graph", topo, "--alloc", "slurm:tree:"+filepath.Join(dir, "none.conf"))
	if code == 0 || !strings.Contains(stderr, "none.conf") {
		t.Errorf("missing topology: exit %d, stderr %q", code, stderr)
	}
}

// sim reads the topology.conf of slurm:block:FILE itself; a bad file is an error
// naming it and its line.
func TestSimSlurmBlock(t *testing.T) {
	dir := t.TempDir()
	topo := filepath.Join(dir, "blocks.conf")
	conf := "BlockName=b1 Nodes=n[1-4]\nBlockName=b2 Nodes=n[5-8]\nBlockSizes=4,8\n"
	if err := os.WriteFile(topo, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	trace := filepath.Join(dir, "t.txt")
	if err := os.WriteFile(trace, []byte("0 3 100 100\n1 2 50 50\n2 4 80 80\n3 1 30 30\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, spec := range []string{"slurm:block:" + topo, "slurm:block:" + topo + ":rcm"} {
		code, out, stderr := runCLI(t, "", "sim", "--trace", trace, "--graph", topo, "--alloc", spec, "--json")
		if code != 0 || !strings.Contains(out, "\"alloc\"") {
			t.Errorf("%s: exit %d, stderr %q, stdout %.200q", spec, code, stderr, out)
		}
	}
	bad := filepath.Join(dir, "bad.conf")
	if err := os.WriteFile(bad, []byte("BlockName=b1 Nodes=n[1-4]\nBlockSizes=4,12\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, "", "sim", "--trace", trace, "--graph", topo, "--alloc", "slurm:block:"+bad)
	if code == 0 || !strings.Contains(stderr, "bad.conf") || !strings.Contains(stderr, "line 2") {
		t.Errorf("bad topology: exit %d, stderr %q", code, stderr)
	}
}
