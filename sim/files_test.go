package sim

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/slurm"
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
		if _, err := f.SlurmBlocks(context.Background(), path, ""); !errors.As(err, new(*alloc.FileError)) {
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

// TestSlurmSpecTopologyYAMLName: slurm:tree:FILE.yaml:NAME[:ORDER] and
// slurm:block:FILE.yaml:NAME place jobs as slurm:tree and slurm:block of the
// equivalent topology.conf (the yaml's topology written as one); no NAME is the
// cluster_default topology; a NAME the file lacks, or of the other kind, is an
// error naming the file and the topologies; MapSpecFiles maps the file and
// keeps the name.
func TestSlurmSpecTopologyYAMLName(t *testing.T) {
	dir := t.TempDir()
	yml := filepath.Join(dir, "topology.yaml")
	data, err := os.ReadFile("../topo/testdata/topology.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(yml, data, 0o644); err != nil {
		t.Fatal(err)
	}
	fabric, err := slurm.ParseTopologyYAML(strings.NewReader(string(data)), "fabric")
	if err != nil {
		t.Fatal(err)
	}
	var tree strings.Builder
	if err := fabric.Tree.WriteConf(&tree); err != nil {
		t.Fatal(err)
	}
	treeConf, blockConf := filepath.Join(dir, "tree.conf"), filepath.Join(dir, "racks.conf")
	if err := os.WriteFile(treeConf, []byte(tree.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(blockConf, []byte("BlockName=rack1 Nodes=node[01-04]\nBlockName=rack2 Nodes=node[05-08]\nBlockName=rack3 Nodes=node[09-12]\nBlockName=rack4 Nodes=node[13-16]\nBlockSizes=4,16\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := topo.ParseMachine("mesh:4x4")
	if err != nil {
		t.Fatal(err)
	}
	hosts := make([]string, 16)
	for i := range hosts {
		hosts[i] = fmt.Sprintf("node%02d", i+1)
	}
	opt := (&Files{}).Options(alloc.Options{Names: hosts})
	for spec, ref := range map[string]string{
		"slurm:tree:" + yml + ":fabric:hilbert": "slurm:tree:" + treeConf + ":hilbert",
		"slurm:tree:" + yml:                     "slurm:tree:" + treeConf,
		"slurm:tree:" + yml + "::snake":         "slurm:tree:" + treeConf + ":snake",
		"slurm:block:" + yml + ":racks":         "slurm:block:" + blockConf,
	} {
		a, err := alloc.Parse(spec, m, opt)
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		b, err := alloc.Parse(ref, m, opt)
		if err != nil {
			t.Fatal(err)
		}
		lockstep(t, spec, a, ref, b, rand.New(rand.NewPCG(1, 2)))
	}
	for spec, want := range map[string][]string{
		"slurm:tree:" + yml + ":nosuch":  {yml, `no topology "nosuch"`, "fabric, racks, torus"},
		"slurm:tree:" + yml + ":racks":   {"slurm:tree:" + yml + ":racks", "topology/block"},
		"slurm:block:" + yml + ":fabric": {"slurm:block:" + yml + ":fabric", "topology/tree"},
	} {
		if _, err := alloc.Parse(spec, m, opt); err == nil {
			t.Errorf("%s accepted", spec)
		} else {
			for _, w := range want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%s: %v does not name %q", spec, err, w)
				}
			}
		}
	}
	upper := func(s string) string { return strings.ToUpper(s) }
	if got, want := alloc.MapSpecFiles("slurm:tree:t.yaml:fabric:x.pairs", upper), "slurm:tree:T.YAML:fabric:X.PAIRS"; got != want {
		t.Errorf("MapSpecFiles: %s, want %s", got, want)
	}
	if got, want := alloc.MapSpecFiles("slurm:tree:t.conf:x.pairs", upper), "slurm:tree:T.CONF:X.PAIRS"; got != want {
		t.Errorf("MapSpecFiles: %s, want %s", got, want)
	}
}

// TestSlurmSpecRing: slurm:ring:FILE.yaml[:NAME[:ORDER]] reads the topology.yaml's
// ring topology (by name, or the cluster_default one) and places as alloc.NewSlurm
// with those rings does (200 random steps); a ring spec on a tree topology, a tree
// spec on the rings and a topology.conf are refused naming what they are;
// MapSpecFiles maps the file and the ORDER.
func TestSlurmSpecRing(t *testing.T) {
	dir := t.TempDir()
	yml := filepath.Join(dir, "topology.yaml")
	src := "- topology: fabric\n  tree:\n    switches:\n      - switch: s1\n        nodes: node[01-16]\n- topology: rings\n  cluster_default: true\n  ring:\n    rings:\n      - ring: a\n        nodes: node[01-08]\n      - ring: b\n        nodes: node[16,14,12,10,09,11,13,15]\n"
	if err := os.WriteFile(yml, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(dir, "topology.conf")
	if err := os.WriteFile(conf, []byte("SwitchName=s1 Nodes=node[01-16]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	top, err := slurm.ParseTopologyYAML(strings.NewReader(src), "rings")
	if err != nil {
		t.Fatal(err)
	}
	m, err := topo.ParseMachine("mesh:4x4")
	if err != nil {
		t.Fatal(err)
	}
	hosts := make([]string, 16)
	for i := range hosts {
		hosts[i] = fmt.Sprintf("node%02d", i+1)
	}
	opt := (&Files{}).Options(alloc.Options{Names: hosts})
	for _, spec := range []string{"slurm:ring:" + yml, "slurm:ring:" + yml + ":rings"} {
		a, err := alloc.Parse(spec, m, opt)
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		b, err := alloc.NewSlurm(m, alloc.SlurmConfig{Names: hosts, Rings: top.Rings})
		if err != nil {
			t.Fatal(err)
		}
		lockstep(t, spec, a, "NewSlurm", b, rand.New(rand.NewPCG(3, 4)))
	}
	if _, err := alloc.Parse("slurm:ring:"+yml+":rings:snake", m, opt); err != nil {
		t.Errorf("with an ORDER: %v", err)
	}
	for spec, want := range map[string]string{
		"slurm:ring:" + yml + ":fabric": "topology/tree",
		"slurm:tree:" + yml:             "topology/ring",
		"slurm:ring:" + conf:            "not topology/ring",
		"slurm:ring":                    "slurm:ring needs a topology.conf or topology.yaml",
	} {
		if _, err := alloc.Parse(spec, m, opt); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", spec, err, want)
		}
	}
	if got, want := alloc.MapSpecFiles("slurm:ring:t.yaml:rings:x.pairs", strings.ToUpper), "slurm:ring:T.YAML:rings:X.PAIRS"; got != want {
		t.Errorf("MapSpecFiles: %s, want %s", got, want)
	}
}

// lockstep plays 200 random starts (1-6 nodes) and ends on a and b (named
// spec and ref in messages) and fails at the first decision in which they
// differ, or when fewer than 20 jobs were placed.
func lockstep(t *testing.T, spec string, a alloc.Allocator, ref string, b alloc.Allocator, rng *rand.Rand) {
	t.Helper()
	var running [][]int
	placed := 0
	for range 200 {
		if len(running) > 0 && rng.IntN(3) == 0 {
			i := rng.IntN(len(running))
			if err := errors.Join(a.Release(running[i]), b.Release(running[i])); err != nil {
				t.Fatal(err)
			}
			running = slices.Delete(running, i, i+1)
			continue
		}
		k := 1 + rng.IntN(6)
		if k > a.NumFree() {
			continue
		}
		na, ea := a.Allocate(k)
		nb, eb := b.Allocate(k)
		if (ea == nil) != (eb == nil) || !slices.Equal(na, nb) {
			t.Fatalf("%s: %d nodes: %v %v; %s: %v %v", spec, k, na, ea, ref, nb, eb)
		}
		if ea == nil {
			running = append(running, na)
			placed++
		}
	}
	if placed < 20 {
		t.Errorf("%s: %d placed", spec, placed)
	}
}
