package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/internal/ctxtest"
)

// The phases that ignored Ctrl-C at 10^5 nodes (hostlist expand; a --hosts file's
// hostlist line; curve --slurm-conf's merge; the files slurm:tree:FILE,
// slurm:block:FILE and a ranking file name in sim and compare; compare's check of
// every allocator): each command, interrupted at each of about fifteen of the
// looks at its context a whole run makes, exits 130 and leaves no -o file, the
// whole run's file (interrupted after writing it), or (sim, compare, which write
// what was replayed before the interrupt) a whole JSON document.
// hostlist expand looked at nothing: it wrote its names and exited 0.
func TestInterruptedCommandsLeaveNoHalfFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	hosts := write("hosts", "n[00001-16384]\n")
	conf := write("slurm.conf", "ClusterName=c\nNodeName=n[00001-16384] CPUs=8\nPartitionName=p Nodes=ALL\n")
	var stderr bytes.Buffer
	machine := "fattree:8,8:8,8:64" // 4,096 hosts
	tree, block, ranking := filepath.Join(dir, "tree.conf"), filepath.Join(dir, "block.conf"), filepath.Join(dir, "r.hosts")
	for _, args := range [][]string{
		{"curve", "--machine", machine, "--curve", "rcm", "--format", "slurm-topology", "-o", tree},
		{"curve", "--machine", machine, "--curve", "rcm", "--format", "slurm-block", "-o", block},
		{"curve", "--machine", machine, "--curve", "bfs", "--format", "hosts", "-o", ranking},
	} {
		if code := run(ctxtest.NewCounting(), &env{stdin: strings.NewReader(""), stdout: &bytes.Buffer{}, stderr: &stderr}, args); code != 0 {
			t.Fatalf("%s: exit %d: %s", strings.Join(args, " "), code, stderr.String())
		}
	}
	trace := "../../sim/testdata/LLNL-T3D-1996-2.converted.txt.gz"
	out := filepath.Join(dir, "out")
	for _, c := range []struct {
		args []string
		// names is how many names the command expands (its looks: at least
		// one per 4,096), 0 when not counted.
		names int
	}{
		{[]string{"hostlist", "expand", "n[00001-65536]", "-o", out}, 65536},
		{[]string{"curve", "--machine", "mesh:128x128", "--hosts", hosts, "--curve", "snake", "--format", "hosts", "-o", out}, 16384},
		{[]string{"curve", "--machine", "mesh:128x128", "--hostlist", "n[00001-16384]", "--curve", "snake", "--format", "slurm-weight", "--slurm-conf", conf, "-o", out}, 2 * 16384},
		{[]string{"sim", "--trace", trace, "--machine", machine, "--alloc", "slurm:tree:" + tree, "--metrics", "sched", "--to", "200000", "--json", "-o", out}, 0},
		{[]string{"sim", "--trace", trace, "--machine", machine, "--alloc", "bf:" + ranking, "--metrics", "sched", "--to", "200000", "--json", "-o", out}, 0},
		{[]string{"compare", "--trace", trace, "--machine", machine, "--alloc", "slurm:block:" + block + ",slurm:tree:" + tree, "--to", "200000", "--json", "-o", out}, 0},
	} {
		args := c.args
		name := strings.Join(args[:min(len(args), 6)], " ")
		count := ctxtest.NewCounting()
		stderr.Reset()
		if code := run(count, &env{stdin: strings.NewReader(""), stdout: &bytes.Buffer{}, stderr: &stderr}, args); code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, stderr.String())
		}
		whole, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		looks := count.Looks()
		if looks < 2 || looks < int64(c.names/4096) {
			t.Fatalf("%s: %d looks at the context in a whole run, want at least one per 4,096 of its %d names", name, looks, c.names)
		}
		for k := int64(0); k < looks; k += max(1, looks/15) {
			os.Remove(out)
			stderr.Reset()
			code := run(ctxtest.StopAfter(k), &env{stdin: strings.NewReader(""), stdout: &bytes.Buffer{}, stderr: &stderr}, args)
			if code != exitInterrupted {
				t.Fatalf("%s: interrupted after %d of %d looks: exit %d, want %d: %s", name, k, looks, code, exitInterrupted, stderr.String())
			}
			data, err := os.ReadFile(out)
			if os.IsNotExist(err) {
				continue
			}
			if err == nil && bytes.Equal(data, whole) {
				continue // interrupted after the output was written
			}
			var doc map[string]any
			if err != nil || (args[0] != "sim" && args[0] != "compare") || json.Unmarshal(data, &doc) != nil {
				t.Fatalf("%s: interrupted after %d of %d looks: left %s (%d bytes, %v): %s", name, k, looks, out, len(data), err, stderr.String())
			}
		}
	}
}
