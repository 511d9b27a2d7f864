package sweep

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/sim"
	"github.com/procalloc/procalloc/slurm"
	"github.com/procalloc/procalloc/topo"
)

// copyFile copies src to dst.
func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// runLines runs every item of sw, one at a time, and returns their results lines.
func runLines(t *testing.T, sw *Spec) []Line {
	t.Helper()
	var lines []Line
	if err := sw.Run(context.Background(), sw.Items(), Runner{Workers: 1, Done: func(l Line) error {
		lines = append(lines, l)
		return nil
	}}); err != nil {
		t.Fatal(err)
	}
	return lines
}

// Every relative file name a sweep file gives (its traces, a --hosts or --graph
// file, an allocator's ranking file or topology.conf) is read from the sweep
// file's directory, not from wherever the sweep is started: before, the traces
// were, the others were read from the working directory, where a file of the
// same name (another machine's hosts.txt) was read without a word.
func TestSweepReadsFilesFromItsDirectory(t *testing.T) {
	abs := func(p string) string {
		a, err := filepath.Abs(p)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	sacct, conf := abs("../testdata/sacct-fattree.txt"), abs("../../topo/testdata/topology.conf")
	ib, names := abs("../../topo/testdata/fattree.ibnetdiscover"), abs("../../topo/testdata/fattree.node-name-map")
	dir, cwd := t.TempDir(), t.TempDir()
	copyFile(t, sacct, filepath.Join(dir, "trace.txt"))
	copyFile(t, conf, filepath.Join(dir, "topology.conf"))
	copyFile(t, ib, filepath.Join(dir, "fabric.txt"))
	copyFile(t, names, filepath.Join(dir, "names.map"))
	hosts := make([]string, 16)
	for i := range hosts {
		hosts[i] = "node" + string(rune('0'+(i+1)/10)) + string(rune('0'+(i+1)%10))
	}
	if err := os.WriteFile(filepath.Join(dir, "hosts.txt"), []byte(strings.Join(hosts, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := topo.ParseMachine("mesh:4x4")
	if err != nil {
		t.Fatal(err)
	}
	o, err := curves.Generate("snake", m)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, "rank.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if err := curves.WriteRanking(f, curves.FormatHosts, o, curves.RankingMeta{}, hosts); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	// The working directory holds files of the same names that every replay
	// would refuse: read from there, an item fails.
	for _, name := range []string{"trace.txt", "topology.conf", "fabric.txt", "names.map", "hosts.txt", "rank.txt"} {
		if err := os.WriteFile(filepath.Join(cwd, name), []byte("not this one\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(cwd)
	for _, c := range []struct {
		key, machine, alloc string
		flags               []string
	}{
		{"hosts", "mesh:4x4", "slurm:tree:topology.conf:rank.txt", []string{"--hosts", "hosts.txt"}},
		{"hosts=", "mesh:4x4", "bf:rank.txt:ring", []string{"--hosts=hosts.txt", "--span-curve", "rank.txt"}},
		{"graph", "mesh:1x1", "as-run", []string{"--machine=", "--graph", "fabric.txt", "--node-name-map", "names.map"}},
		{"graph conf", "mesh:1x1", "slurm:tree:topology.conf", []string{"--machine=", "--graph", "topology.conf", "--span-curve", "rank.txt"}},
	} {
		sw, err := Parse([]byte("name: dir\ntraces: [trace.txt]\nmachines: [\""+c.machine+"\"]\nallocators: [\""+c.alloc+"\"]\nschedulers: [as-run]\n"+
			"flags: [\""+strings.Join(c.flags, "\", \"")+"\"]\n"), "dir.yaml")
		if err != nil {
			t.Fatal(err)
		}
		sw.Dir = dir
		if err := sw.CheckFiles(sw.Items()); err != nil {
			t.Errorf("%s: CheckFiles: %v", c.key, err)
		}
		if lines := runLines(t, sw); len(lines) != 1 || lines[0].Status != StatusOK {
			t.Errorf("%s: %+v", c.key, lines)
		}
		// The command --list prints reads the same files from the working directory.
		args := sw.Items()[0].Params.Args(dir)
		for i, a := range args {
			if i > 0 && (args[i-1] == "--trace" || args[i-1] == "--hosts" || args[i-1] == "--graph" || args[i-1] == "--node-name-map") && !filepath.IsAbs(a) {
				t.Errorf("%s: Args(%q): %s %s not taken from the sweep file's directory", c.key, dir, args[i-1], a)
			}
		}
		if strings.Contains(strings.Join(args, " "), "="+"hosts.txt") || slices.Contains(args, "rank.txt") {
			t.Errorf("%s: Args(%q) = %q: a relative file name left", c.key, dir, args)
		}
	}

	// A file a flag names that is not there is named before any item runs.
	sw, err := Parse([]byte("name: dir\ntraces: [trace.txt]\nmachines: [mesh:4x4]\nallocators: [\"bf:gone.txt\", bf:hilbert]\nflags: [--hosts, missing.txt]\n"), "dir.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sw.Dir = dir
	err = sw.CheckFiles(sw.Items())
	for _, want := range []string{`flags: --hosts "missing.txt"`, `allocators: entry 1 "bf:gone.txt": file "gone.txt"`, filepath.Join(dir, "missing.txt")} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("CheckFiles: %v, want %q in it", err, want)
		}
	}
}

// MapSpecFiles finds exactly the file names an allocator spec makes
// alloc.Parse read through Options (ranking files, topology files), and only
// those: it splits a spec as the constructors do.
func TestMapSpecFilesIsWhatParseReads(t *testing.T) {
	dir := t.TempDir()
	copyFile(t, "../../topo/testdata/topology.conf", filepath.Join(dir, "t.conf"))
	hosts := make([]string, 16)
	for i := range hosts {
		hosts[i] = "node" + string(rune('0'+(i+1)/10)) + string(rune('0'+(i+1)%10))
	}
	m, err := topo.ParseMachine("mesh:4x4")
	if err != nil {
		t.Fatal(err)
	}
	o, err := curves.Generate("hilbert", m)
	if err != nil {
		t.Fatal(err)
	}
	var block strings.Builder
	if err := slurm.WriteBlock(&block, o, hosts, 4); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "b.conf"), []byte(block.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, spec := range []string{"bf:r1", "bf:r1:ring", "ff:r1:linear", "sos:r1", "freelist:r1", "bf:hilbert", "bf:hilbert:ring",
		"paging:r1:1", "paging:hilbert:1", "slurm:consec", "slurm:consec:r1", "slurm:consec:snake", "slurm:tree:t.conf",
		"slurm:tree:t.conf:r1", "slurm:block:b.conf:r1", "slurm:block:b.conf", "slurm:tree:t.conf:hilbert", "mc1x1", "genalg", "mc1x1:tb=3,9,3,2"} {
		files := &sim.Files{Hosts: hosts, Dir: dir}
		var read []string
		opt := files.Options(alloc.Options{Names: hosts})
		tree, blocks := opt.SlurmTree, opt.SlurmBlocks
		opt.Ranking = func(name string, m topo.Machine) (curves.Order, error) {
			read = append(read, name)
			o := make(curves.Order, m.N()) // any ordering will do
			for i := range o {
				o[i] = i
			}
			return o, nil
		}
		opt.SlurmTree = func(path, name string) (*slurm.Tree, error) { read = append(read, path); return tree(path, name) }
		opt.SlurmBlocks = func(path, name string) (*slurm.Blocks, error) { read = append(read, path); return blocks(path, name) }
		if _, err := alloc.Parse(spec, m, opt); err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		var mapped []string
		alloc.MapSpecFiles(spec, func(name string) string { mapped = append(mapped, name); return name })
		if !slices.Equal(read, mapped) {
			t.Errorf("%s: Parse reads %q, MapSpecFiles maps %q", spec, read, mapped)
		}
		if got := alloc.MapSpecFiles(spec, func(s string) string { return s }); got != spec {
			t.Errorf("MapSpecFiles(%q, identity) = %q", spec, got)
		}
	}
}
