package main

import (
	encodingcsv "encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/internal/fabrictest"
)

const (
	ibSample   = "../../topo/testdata/fattree.ibnetdiscover"
	ibSampleP  = "../../topo/testdata/fattree.ibnetdiscover-p"
	ibNameMap  = "../../topo/testdata/fattree.node-name-map"
	topoConf   = "../../topo/testdata/topology.conf"
	topoYAML   = "../../topo/testdata/topology.yaml"
	sacctTrace = "../../sim/testdata/sacct-fattree.txt"
)

// From the ibnetdiscover sample to an ordering and a slurm-weight file; the ordering
// keeps each leaf switch's four hosts together, Slurm's name order does not.
func TestFabricCurveAndWeights(t *testing.T) {
	code, out, stderr := runCLI(t, "", "curve", "--graph", ibSample, "--node-name-map", ibNameMap, "--curve", "rcm", "--format", "slurm-weight")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var hosts []string
	for _, l := range strings.Split(out, "\n") {
		if h, ok := strings.CutPrefix(l, "NodeName="); ok {
			hosts = append(hosts, strings.Fields(h)[0])
		}
	}
	if len(hosts) != 16 {
		t.Fatalf("%d NodeName lines:\n%s", len(hosts), out)
	}
	leaf := func(h string) int { v, _ := fabrictest.HostNumber(h); return (v - 1) % 4 }
	for i := 0; i < 16; i += 4 {
		for _, h := range hosts[i+1 : i+4] {
			if leaf(h) != leaf(hosts[i]) {
				t.Fatalf("ranks %d..%d span leaves: %v", i, i+3, hosts)
			}
		}
	}
	// Every format is read the same: the -p form, topology.conf and topology.yaml.
	for _, args := range [][]string{{"--graph", ibSampleP, "--node-name-map", ibNameMap}, {"--graph", topoConf}, {"--graph", topoYAML}, {"--graph", ibSample, "--graph-format", "ibnetdiscover"}} {
		code, out2, stderr := runCLI(t, "", append([]string{"evaluate", "--curve", "rcm,name-order", "--weights", "list:1,0.5", "--json"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		if !strings.Contains(out2, `"objective": 56`) || !strings.Contains(out2, `"objective": 88`) {
			t.Fatalf("%v: rcm 56 and name order 88 expected:\n%s", args, out2)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"curve", "--graph", ibSample, "--graph-format", "dot", "--curve", "rcm"}, "--graph-format \"dot\""},
		{[]string{"curve", "--machine", "mesh:4x4", "--node-name-map", ibNameMap, "--curve", "rcm"}, "--node-name-map goes with --graph"},
		{[]string{"curve", "--graph", topoConf, "--node-name-map", ibNameMap, "--curve", "rcm"}, "applies to ibnetdiscover"},
	} {
		code, _, stderr := runCLI(t, "", c.args...)
		if code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want %q", c.args, code, stderr, c.want)
		}
	}
}

// An sacct trace replayed on the fabric: as-run reproduces production; procalloc's
// ordering saves hops over Slurm's name order; coordinate allocators refuse.
func TestFabricReplay(t *testing.T) {
	code, out, stderr := runCLI(t, "", "sim", "--graph", topoConf, "--trace", sacctTrace, "--alloc", "as-run", "--sched", "as-run", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var s map[string]any
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatal(err)
	}
	if s["jobs"].(float64) != 7 || !strings.Contains(stderr, "7 sacct records skipped: ") || !strings.Contains(stderr, ", 3 job steps, ") {
		t.Fatalf("jobs %v, stderr %q", s["jobs"], stderr)
	}
	if sk := s["skipped_records"].(map[string]any); sk["still running"].(float64) != 1 {
		t.Fatalf("skipped %v", sk)
	}
	dir := t.TempDir()
	csv := filepath.Join(dir, "c.csv")
	pairs := filepath.Join(dir, "rcm.pairs")
	if code, _, stderr := runCLI(t, "", "curve", "--graph", ibSample, "--curve", "rcm", "-o", pairs); code != 0 {
		t.Fatalf("curve: %s", stderr)
	}
	code, _, stderr = runCLI(t, "", "compare", "--graph", ibSample, "--node-name-map", ibNameMap, "--trace", sacctTrace, "--sched", "easy",
		"--alloc", "bf:name-order,bf:rcm,genalg,bf:"+pairs, "--csv", csv)
	if code != 0 {
		t.Fatalf("compare: exit %d: %s", code, stderr)
	}
	f, err := os.Open(csv)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := encodingcsv.NewReader(f).ReadAll()
	f.Close()
	if err != nil || len(rows) != 5 {
		t.Fatalf("csv: %v %v", rows, err)
	}
	col := slices.Index(rows[0], "mean_total_pairwise_l1")
	hops := map[string]float64{}
	for _, r := range rows[1:] {
		hops[r[0]], _ = strconv.ParseFloat(r[col], 64)
	}
	// 45.714 hops per job along Slurm's name order, 35.714 along rcm (one leaf per
	// 4-node job).
	if !(hops["bf:rcm"] < hops["bf:name-order"]) || hops["genalg"] > hops["bf:name-order"] || hops["bf:"+pairs] != hops["bf:rcm"] {
		t.Fatalf("mean total hops %v", hops)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"sim", "--graph", topoConf, "--trace", sacctTrace, "--alloc", "mc1x1"}, "needs a mesh or torus"},
		{[]string{"sim", "--graph", topoConf, "--trace", sacctTrace, "--alloc", "as-run", "--sched", "as-run", "--contract", "0.5"}, "do not apply"},
		{[]string{"sim", "--graph", topoConf, "--trace", kthTrace, "--alloc", "as-run", "--sched", "as-run"}, "only an sacct trace"},
		{[]string{"sim", "--machine", "fattree:4,4:4", "--trace", sacctTrace, "--alloc", "as-run", "--sched", "as-run"}, "is not a host"},
	} {
		code, _, stderr := runCLI(t, "", c.args...)
		if code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want %q", c.args, code, stderr, c.want)
		}
	}
	// On production's schedule every allocator sees the same free count: the waits are
	// production's, only the placements differ.
	code, out, stderr = runCLI(t, "", "compare", "--graph", topoConf, "--trace", sacctTrace, "--sched", "as-run",
		"--alloc", "as-run,bf:name-order,bf:rcm,genalg", "--json")
	if code != 0 {
		t.Fatalf("compare as-run: exit %d: %s", code, stderr)
	}
	if n := strings.Count(out, `"mean_wait": 546.4285714285714`); n != 4 {
		t.Fatalf("%d of 4 allocators with production's mean wait:\n%s", n, out)
	}
	// A synthetic fat tree with a named span curve for Gen-Alg.
	code, out, stderr = runCLI(t, "", "sim", "--machine", "fattree:4,4:4", "--trace", sacctTrace, "--alloc", "genalg", "--span-curve", "rcm", "--sched", "easy", "--json")
	if code != 0 || !strings.Contains(out, `"span_order": "rcm"`) {
		t.Fatalf("exit %d: %s %s", code, stderr, out)
	}
}

// The Slurm topology writers from the command line, read back by --graph.
func TestFabricTopologyWriters(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "topology.conf")
	code, _, stderr := runCLI(t, "", "curve", "--graph", ibSample, "--node-name-map", ibNameMap, "--curve", "rcm", "--format", "slurm-topology", "-o", conf)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// Read back, its own name order is the rcm order: the same objective.
	code, out, stderr := runCLI(t, "", "evaluate", "--graph", conf, "--curve", "rowmajor", "--weights", "list:1,0.5", "--json")
	if code != 0 || !strings.Contains(out, `"objective": 56`) {
		t.Fatalf("exit %d: %s %s", code, stderr, out)
	}
	hosts := filepath.Join(dir, "hosts")
	var names []string
	for i := range 16 {
		names = append(names, "nid"+strconv.Itoa(100+i))
	}
	os.WriteFile(hosts, []byte(strings.Join(names, "\n")+"\n"), 0o644)
	yml := filepath.Join(dir, "topology.yaml")
	code, _, stderr = runCLI(t, "", "curve", "--machine", "torus:4x2x2", "--curve", "rowmajor", "--format", "slurm-torus3d", "--hosts", hosts, "-o", yml)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	code, out, _ = runCLI(t, "", "evaluate", "--graph", yml, "--curve", "rowmajor", "--weights", "list:1", "--json")
	code2, out2, _ := runCLI(t, "", "evaluate", "--machine", "torus:4x2x2", "--curve", "rowmajor", "--weights", "list:1", "--json")
	obj := func(s string) string {
		i := strings.Index(s, `"objective"`)
		return s[i : i+strings.IndexByte(s[i:], ',')]
	}
	if code != 0 || code2 != 0 || obj(out) != obj(out2) {
		t.Fatalf("torus3d read back: %s vs %s", obj(out), obj(out2))
	}
	// A --machine network's hosts (h0, h1, ...) take the names of --hostlist, as in
	// every other format (before: refused as if read with --graph).
	code, out, stderr = runCLI(t, "", "curve", "--machine", "fattree:4,4:4", "--curve", "rcm", "--format", "slurm-topology", "--hostlist", "n[01-16]")
	if code != 0 || !strings.Contains(out, "Nodes=n") || strings.Contains(out, "Nodes=h") {
		t.Errorf("slurm-topology of fattree:4,4:4 with --hostlist: exit %d, %q\n%s", code, stderr, out)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		// A mesh gets a virtual tree (issue 34); hosts of a --graph network are its own.
		{[]string{"curve", "--graph", topoConf, "--curve", "rcm", "--format", "slurm-topology", "--hostlist", "n[1-16]"}, "names its own hosts"},
		{[]string{"curve", "--machine", "torus:4x4", "--curve", "rowmajor", "--format", "slurm-torus3d"}, "needs --hosts"},
		{[]string{"curve", "--graph", topoConf, "--curve", "rcm", "--format", "slurm-torus3d"}, "needs a torus"},
	} {
		code, _, stderr := runCLI(t, "", c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want %q", c.args, code, stderr, c.want)
		}
	}
}

// The Slurm writers' new flags from the command line: --slurm-conf merges (and on a
// host the conf lacks or repeats writes nothing, exit 1), slurm-torus3d has toruses
// and placements (--placements chooses them), slurm-block cuts the ordering into
// blocks (the leaf size by default on a network), slurm-topology warns on stderr;
// flags that go with another format are usage errors.
func TestSlurmWriterFlags(t *testing.T) {
	dir := t.TempDir()
	hosts := filepath.Join(dir, "hosts")
	os.WriteFile(hosts, []byte("node[01-16]\n"), 0o644)
	conf := filepath.Join(dir, "slurm.conf")
	os.WriteFile(conf, []byte("ClusterName=c\nNodeName=node[01-16] Port=[7001-7016] CPUs=1 # rack\nPartitionName=all Nodes=ALL\n"), 0o644)
	out := filepath.Join(dir, "merged.conf")
	code, _, stderr := runCLI(t, "", "curve", "--machine", "mesh:4x4", "--curve", "hilbert", "--format", "slurm-weight", "--hosts", hosts, "--slurm-conf", conf, "-o", out)
	merged, _ := os.ReadFile(out)
	if code != 0 || !strings.Contains(string(merged), "\nNodeName=node06 Port=7006 CPUs=1 Weight=3 # rack\n") || !strings.HasPrefix(string(merged), "ClusterName=c\n") {
		t.Fatalf("merge: exit %d %s\n%s", code, stderr, merged)
	}
	os.WriteFile(conf, []byte("NodeName=node[01-15] CPUs=1\n"), 0o644)
	bad := filepath.Join(dir, "bad.conf")
	code, _, stderr = runCLI(t, "", "curve", "--machine", "mesh:4x4", "--curve", "hilbert", "--format", "slurm-weight", "--hosts", hosts, "--slurm-conf", conf, "-o", bad)
	if _, err := os.Stat(bad); code != 1 || err == nil || !strings.Contains(stderr, "host node16 (rank 10 of the ordering) is not defined") {
		t.Fatalf("a host the conf lacks: exit %d, %q, file written: %v", code, stderr, err == nil)
	}
	code, yml, stderr := runCLI(t, "", "curve", "--machine", "torus:4x2x2", "--curve", "snake", "--format", "slurm-torus3d", "--hosts", hosts)
	if code != 0 || !strings.Contains(yml, "toruses:") || !strings.Contains(yml, "placements:") || strings.Count(yml, "- dims:") != 8 {
		t.Fatalf("torus3d: exit %d %s\n%s", code, stderr, yml)
	}
	code, yml, _ = runCLI(t, "", "curve", "--machine", "torus:4x2x2", "--curve", "snake", "--format", "slurm-torus3d", "--hosts", hosts, "--placements", "4,2x2x2")
	if code != 0 || strings.Count(yml, "- dims:") != 2 || !strings.Contains(yml, "- dims: {x: 2, y: 2, z: 1}") {
		t.Fatalf("--placements: exit %d\n%s", code, yml)
	}
	code, blocks, stderr := runCLI(t, "", "curve", "--graph", topoConf, "--curve", "rcm", "--format", "slurm-block")
	if code != 0 || strings.Count(blocks, "BlockName=") != 4 || !strings.Contains(blocks, "BlockSizes=4,8,16") {
		t.Fatalf("slurm-block: exit %d %s\n%s", code, stderr, blocks)
	}
	code, _, stderr = runCLI(t, "", "curve", "--graph", topoConf, "--curve", "rcm", "--format", "slurm-topology")
	if code != 0 || !strings.Contains(stderr, "warning: Slurm keeps no node order inside a leaf switch") || !strings.Contains(stderr, "23.02") {
		t.Fatalf("slurm-topology warnings: exit %d %q", code, stderr)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--machine", "mesh:4x4", "--format", "hosts", "--hosts", hosts, "--slurm-conf", conf}, "--slurm-conf goes with --format slurm-weight"},
		{[]string{"--machine", "torus:4x2x2", "--format", "slurm-torus3d", "--hosts", hosts, "--placements", "5"}, "no box of 5 nodes"},
		{[]string{"--machine", "mesh:4x4", "--format", "pairs", "--placements", "4"}, "--placements goes with --format slurm-torus3d"},
		{[]string{"--machine", "mesh:4x4", "--format", "slurm-block"}, "needs --block-size"},
		{[]string{"--machine", "mesh:4x4", "--format", "slurm-block", "--block-size", "5"}, "block size 5"},
	} {
		code, _, stderr := runCLI(t, "", append([]string{"curve", "--curve", "snake"}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want %q", c.args, code, stderr, c.want)
		}
	}
}

// The sample fat tree as OpenSM's subnet.lst and as opareport's XML and -o links
// text orders alike:
// `curve --graph F --curve rcm` prints the ibnetdiscover sample's bytes, with and
// without the node-name-map, in the index form and as host names.
func TestFabricDumpsCurveAsIBNetDiscover(t *testing.T) {
	for _, extra := range [][]string{nil, {"--node-name-map", ibNameMap}, {"--format", "hosts"}} {
		args := append([]string{"curve", "--curve", "rcm"}, extra...)
		code, want, stderr := runCLI(t, "", append(args, "--graph", ibSample)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", extra, code, stderr)
		}
		for _, f := range []string{"../../topo/testdata/fattree.subnet-lst", "../../topo/testdata/fattree.opareport.xml", "../../topo/testdata/fattree.opareport-links.txt"} {
			code, got, stderr := runCLI(t, "", append(args, "--graph", f)...)
			if code != 0 || got != want {
				t.Errorf("%s %v: exit %d (%s), output\n%s\nibnetdiscover's\n%s", f, extra, code, stderr, got, want)
			}
		}
	}
}

// One fabric dumped by ibnetdiscover (discovery order) and by OpenSM (subnet.lst,
// node GUID order) gives one ranking file: the readers number its hosts by name,
// so rcm's and bfs's ties fall alike, in every format that lists node indices;
// and one replay, node lists and all.
func TestFabricDumpsGiveOneRanking(t *testing.T) {
	dumps := []string{"../../topo/testdata/scrambled.ibnetdiscover", "../../topo/testdata/scrambled.subnet-lst"}
	// A trace of jobs of 1 to 8 nodes on the 12 hosts (SWF), arriving 30 s apart.
	var swf strings.Builder
	for j := 1; j <= 24; j++ {
		n, run := 1+j*5%8, 60+j*37%300
		fmt.Fprintf(&swf, "%d %d -1 %d %d -1 -1 %d %d -1 1 1 1 -1 1 -1 -1 -1\n", j, 30*j, run, n, n, 2*run)
	}
	trace := filepath.Join(t.TempDir(), "t.swf")
	if err := os.WriteFile(trace, []byte(swf.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, a := range []string{"ff:rcm", "bf:bfs", "slurm:consec"} {
		var first string
		for i, f := range dumps {
			perJob := filepath.Join(t.TempDir(), "jobs.csv")
			code, out, stderr := runCLI(t, "", "sim", "--graph", f, "--trace", trace, "--alloc", a, "--per-job", perJob)
			if code != 0 {
				t.Fatalf("%s: exit %d: %s", f, code, stderr)
			}
			jobs, err := os.ReadFile(perJob)
			if err != nil {
				t.Fatal(err)
			}
			if got := out + string(jobs); i == 0 {
				first = got
			} else if got != first {
				t.Errorf("sim --alloc %s: %s gives\n%s\n%s gives\n%s", a, dumps[0], first, f, got)
			}
		}
	}
	for _, c := range []string{"rcm", "bfs"} {
		for _, format := range []string{"pairs", "hosts"} {
			var first string
			for i, f := range dumps {
				code, out, stderr := runCLI(t, "", "curve", "--graph", f, "--curve", c, "--format", format)
				if code != 0 {
					t.Fatalf("%s: exit %d: %s", f, code, stderr)
				}
				if i == 0 {
					first = out
				} else if out != first {
					t.Errorf("--curve %s --format %s: %s gives\n%s\n%s gives\n%s", c, format, dumps[0], first, f, out)
				}
			}
		}
	}
}
