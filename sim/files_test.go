package sim

import (
	"context"
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
		if _, err := f.Ranking(context.Background(), filepath.Join(dir, name), m); !errors.As(err, new(*alloc.FileError)) {
			t.Errorf("ranking %s: %v, want an *alloc.FileError", name, err)
		}
	}
	if _, err := f.Ranking(context.Background(), filepath.Join(dir, "nosuch"), m); !errors.As(err, new(*curves.UnknownCurveError)) || errors.As(err, new(*alloc.FileError)) {
		t.Errorf("no such ranking file: %v, want an *UnknownCurveError alone", err)
	}
	blocks := filepath.Join(dir, "blocks.conf")
	for _, path := range []string{blocks, filepath.Join(dir, "nosuch.conf")} {
		if _, err := f.SlurmBlocks(context.Background(), path); !errors.As(err, new(*alloc.FileError)) {
			t.Errorf("topology %s: %v, want an *alloc.FileError", filepath.Base(path), err)
		}
	}
	for spec, isSpecMistake := range map[string]bool{"bf:" + filepath.Join(dir, "garbage.txt"): false, "bf:nosuch": true, "slurm:block:" + blocks: false} {
		rp := &Replay{Spec: Spec{Alloc: spec}, Machine: m}
		_, err := rp.Config(context.Background())
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
		if _, err := rp.Config(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	ws := rp.Warnings()
	if len(ws) != 1 || ws[0].File != "slurm:block:"+path || !strings.Contains(ws[0].Text, "8 of the machine's 16 nodes are in no block (n[09-16])") {
		t.Errorf("warnings %v", ws)
	}
}

// A machine too large for the static route metrics' next-hop table (an edge list of
// 16,512 hosts: 2^28 entries and more) is refused with the way out: the metrics are
// optional, and the replay runs without them (2 x 10^5 hosts: "simulate a smaller
// machine" was all the error said).
func TestRouteTableTooLargeNamesMetrics(t *testing.T) {
	var b strings.Builder
	const x, y = 129, 128
	for j := range y {
		for i := range x {
			v := j*x + i
			if i+1 < x {
				fmt.Fprintf(&b, "%d %d\n", v, v+1)
			}
			if j+1 < y {
				fmt.Fprintf(&b, "%d %d\n", v, v+x)
			}
		}
	}
	g, err := topo.ReadGraph(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	jobs := []Job{{ID: 1, Arrival: 0, Procs: 4, Runtime: 10, Estimate: 10}}
	for _, metrics := range []MetricSet{0, MetricsSched | MetricsDist} {
		a, err := alloc.Parse("freelist:rowmajor", g, alloc.Options{})
		if err != nil {
			t.Fatal(err)
		}
		_, err = Run(context.Background(), jobs, Config{Machine: g, Alloc: a, Metrics: metrics})
		if metrics == 0 && (err == nil || !strings.Contains(err.Error(), "--metrics sched,dist")) {
			t.Errorf("all metrics: %v, want the way out", err)
		}
		if metrics != 0 && err != nil {
			t.Errorf("without route metrics: %v", err)
		}
	}
}
