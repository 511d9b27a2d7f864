package sim

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/topo"
)

// TestFilesErrorsTellFileFromSpec checks that a file an allocator spec names and
// that is read and refused (bad content, the wrong size) or cannot be opened is an
// *alloc.FileError, a failure of the run, while a name that is neither a curve nor
// a file stays the spec's mistake (*curves.UnknownCurveError); and that a replay's
// spec refuses the one as a failure and the other as a FieldError. A bad ranking
// file was a usage error (exit 2) in sim and a failure (exit 1) in curve.
func TestFilesErrorsTellFileFromSpec(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{"garbage.txt": "garbage\n", "empty.pairs": "", "short.pairs": "0 1\n1 0\n",
		"blocks.conf": "BlockName=b1 Nodes=n[1-4]\nBlockSizes=0\n"}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m, err := topo.ParseMachine("mesh:4x4")
	if err != nil {
		t.Fatal(err)
	}
	f := &Files{}
	for _, name := range []string{"garbage.txt", "empty.pairs", "short.pairs"} {
		if _, err := f.Ranking(filepath.Join(dir, name), m); !errors.As(err, new(*alloc.FileError)) {
			t.Errorf("ranking %s: %v, want an *alloc.FileError", name, err)
		}
	}
	if _, err := f.Ranking(filepath.Join(dir, "nosuch"), m); !errors.As(err, new(*curves.UnknownCurveError)) || errors.As(err, new(*alloc.FileError)) {
		t.Errorf("no such ranking file: %v, want an *UnknownCurveError alone", err)
	}
	blocks := filepath.Join(dir, "blocks.conf")
	for _, path := range []string{blocks, filepath.Join(dir, "nosuch.conf")} {
		if _, err := f.SlurmBlocks(path); !errors.As(err, new(*alloc.FileError)) {
			t.Errorf("topology %s: %v, want an *alloc.FileError", filepath.Base(path), err)
		}
	}
	for spec, isSpecMistake := range map[string]bool{"bf:" + filepath.Join(dir, "garbage.txt"): false, "bf:nosuch": true, "slurm:block:" + blocks: false} {
		rp := &Replay{Spec: Spec{Alloc: spec}, Machine: m}
		_, err := rp.Config()
		if fe := (*FieldError)(nil); err == nil || errors.As(err, &fe) != isSpecMistake {
			t.Errorf("%s: %v (%T), want a FieldError: %v", spec, err, err, isSpecMistake)
		}
	}
}

// A slurm:block replay reports slurmctld's warning about the machine's nodes that no
// block lists ("Blocks lack access to N nodes"), once however many allocators the
// replay builds.
func TestReplayWarnsNodesInNoBlock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "blocks.conf")
	if err := os.WriteFile(path, []byte("BlockName=b1 Nodes=n[01-04]\nBlockName=b2 Nodes=n[05-08]\nBlockSizes=4,8\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := topo.ParseMachine("mesh:4x4")
	if err != nil {
		t.Fatal(err)
	}
	hosts := make([]string, 16)
	for i := range hosts {
		hosts[i] = fmt.Sprintf("n%02d", i+1)
	}
	rp := &Replay{Spec: Spec{Alloc: "slurm:block:" + path, Hosts: hosts, Pattern: "all-to-all"}, Machine: m}
	for range 2 {
		if _, err := rp.Config(); err != nil {
			t.Fatal(err)
		}
	}
	ws := rp.Warnings()
	if len(ws) != 1 || ws[0].File != "slurm:block:"+path || !strings.Contains(ws[0].Text, "8 of the machine's 16 nodes are in no block (n[09-16])") {
		t.Errorf("warnings %v", ws)
	}
}
