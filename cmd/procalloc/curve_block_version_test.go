package main

import (
	"strings"
	"testing"

	"github.com/procalloc/procalloc/slurm"
)

// TestCurveBlockSlurmVersion: --format slurm-block writes the key the given Slurm
// reads (23.11 BlockLevels=, 24.05 on and by default BlockSizes=; each refuses the
// other's), the files hold the same blocks and levels, and --slurm-version is refused
// below 23.11, unparsed, or with another format (exit 2, naming the flag).
func TestCurveBlockSlurmVersion(t *testing.T) {
	base := []string{"curve", "--machine", "mesh:8x8", "--hostlist", "n[01-64]", "--curve", "hilbert", "--format", "slurm-block", "--block-size", "4"}
	read := func(extra ...string) (*slurm.Blocks, string) {
		t.Helper()
		code, out, stderr := runCLI(t, "", append(append([]string{}, base...), extra...)...)
		if code != 0 {
			t.Fatalf("%q: exit %d: %s", extra, code, stderr)
		}
		b, err := slurm.ParseBlocks(strings.NewReader(out))
		if err != nil {
			t.Fatalf("%q: the file does not read back: %v\n%s", extra, err, out)
		}
		return b, out
	}
	old, oldText := read("--slurm-version", "23.11")
	cur, curText := read("--slurm-version", "24.05")
	_, defText := read()
	if !strings.Contains(oldText, "\nBlockLevels=") || strings.Contains(oldText, "BlockSizes=") {
		t.Errorf("23.11: want BlockLevels= and no BlockSizes=:\n%s", oldText)
	}
	if strings.Contains(curText, "BlockLevels=") || !strings.Contains(curText, "\nBlockSizes=") || defText != curText {
		t.Errorf("24.05 and the default: want BlockSizes= only, alike:\n%s\n%s", curText, defText)
	}
	if old.Base != cur.Base || old.Levels != cur.Levels || len(old.Blocks) != len(cur.Blocks) {
		t.Errorf("23.11 (base %d, levels %b, %d blocks) and 24.05 (base %d, levels %b, %d blocks) differ", old.Base, old.Levels, len(old.Blocks), cur.Base, cur.Levels, len(cur.Blocks))
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{append(append([]string{}, base...), "--slurm-version", "22.05"), "--slurm-version 22.05: topology/block needs Slurm 23.11 or later"},
		{append(append([]string{}, base...), "--slurm-version", "x"), "--slurm-version: "},
		{[]string{"curve", "--machine", "mesh:8x8", "--curve", "hilbert", "--slurm-version", "23.11"}, "--slurm-version goes with --format slurm-block"},
	} {
		code, out, stderr := runCLI(t, "", c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) || out != "" {
			t.Errorf("%q: exit %d, %q; want 2 and %q", c.args[1:], code, stderr, c.want)
		}
	}
}
