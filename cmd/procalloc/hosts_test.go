package main

import (
	"context"
	encodingcsv "encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/internal/slurmtest"
)

// perJobNodeNames runs args with --per-job and returns each job's nodes as sorted
// host names (names[i] is node i's).
func perJobNodeNames(t *testing.T, names []string, args ...string) map[string][]string {
	t.Helper()
	csv := filepath.Join(t.TempDir(), "jobs.csv")
	code, _, stderr := runCLI(t, "", append(args, "--per-job", csv)...)
	if code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, stderr)
	}
	f, err := os.Open(csv)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := encodingcsv.NewReader(f).ReadAll()
	if err != nil || len(rows) < 2 {
		t.Fatalf("%s: %v rows, %v", csv, len(rows), err)
	}
	col := slices.Index(rows[0], "nodes")
	out := map[string][]string{}
	for _, r := range rows[1:] {
		var hs []string
		for _, f := range strings.Fields(r[col]) {
			v, err := strconv.Atoi(f)
			if err != nil || v < 0 || v >= len(names) {
				t.Fatalf("job %s: node %q", r[0], f)
			}
			hs = append(hs, names[v])
		}
		slices.Sort(hs)
		out[r[0]] = hs
	}
	return out
}

// sim --hosts/--hostlist names a mesh's nodes: the topology.conf of real hosts and
// the sacct trace's node lists then apply to it (issue 29). Slurm's emulation
// places jobs by name, so a mesh whose nodes carry the topology's host names, in
// index order or reversed, places every job on the same named nodes as the
// topology.conf read as a graph.
func TestSimHostsNameTheMachine(t *testing.T) {
	g, err := loadMachine(context.Background(), &env{}, "", &graphFlags{file: topoConf})
	if err != nil {
		t.Fatal(err)
	}
	graphNames := curves.NodeNames(g)
	base := []string{"sim", "--trace", sacctTrace, "--sched", "as-run"}
	tree := "slurm:tree:" + topoConf
	want := perJobNodeNames(t, graphNames, append(base, "--graph", topoConf, "--alloc", tree)...)

	inOrder := slurmtest.NodeNames(16)
	got := perJobNodeNames(t, inOrder, append(base, "--machine", "mesh:4x4", "--hostlist", "node[01-16]", "--alloc", tree)...)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("slurm:tree on mesh:4x4 --hostlist node[01-16]:\n%v\non the topology.conf graph:\n%v", got, want)
	}
	reversed := slices.Clone(inOrder)
	slices.Reverse(reversed)
	hostsFile := filepath.Join(t.TempDir(), "nodes.txt")
	if err := os.WriteFile(hostsFile, []byte(strings.Join(reversed, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got = perJobNodeNames(t, reversed, append(base, "--machine", "mesh:4x4", "--hosts", hostsFile, "--alloc", tree)...)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("slurm:tree on mesh:4x4 --hosts (reversed names):\n%v\non the topology.conf graph:\n%v", got, want)
	}
	// as-run places each job on its recorded nodes: node[01-04] are the mesh's
	// nodes 0-3 with the names in index order, 12-15 with them reversed.
	asRun := perJobNodeNames(t, reversed, append(base, "--machine", "mesh:4x4", "--hosts", hostsFile, "--alloc", "as-run")...)
	if w := []string{"node01", "node02", "node03", "node04"}; !slices.Equal(asRun["1001"], w) {
		t.Fatalf("as-run job 1001 on %v, recorded %v", asRun["1001"], w)
	}

	// compare and a sweep item take the flags too: the same replay, the same figures.
	code, simOut, stderr := runCLI(t, "", append(base, "--machine", "mesh:4x4", "--hostlist", "node[01-16]", "--alloc", tree+":hilbert", "--json")...)
	if code != 0 {
		t.Fatalf("sim: exit %d: %s", code, stderr)
	}
	var simRep map[string]any
	if err := json.Unmarshal([]byte(simOut), &simRep); err != nil {
		t.Fatalf("%v\n%s", err, simOut)
	}
	hops := simRep["mean_total_pairwise_l1"]
	if hops == nil {
		t.Fatalf("sim --json: no mean_total_pairwise_l1 in %s", simOut)
	}
	base[0] = "compare"
	code, _, stderr = runCLI(t, "", append(base, "--machine", "mesh:4x4", "--hosts", filepath.Join(t.TempDir(), "none.txt"), "--alloc", "as-run,"+tree)...)
	if code != 1 || !strings.Contains(stderr, "none.txt") {
		t.Fatalf("compare with a missing --hosts file: exit %d: %s", code, stderr)
	}
	code, cmpOut, stderr := runCLI(t, "", append(base, "--machine", "mesh:4x4", "--hostlist", "node[01-16]", "--alloc", "as-run,"+tree+":hilbert", "--json")...)
	if code != 0 {
		t.Fatalf("compare: exit %d: %s", code, stderr)
	}
	if want := fmt.Sprintf(`"mean_total_pairwise_l1": %v`, hops); !strings.Contains(cmpOut, want) {
		t.Fatalf("compare --json has no %s (sim's):\n%s", want, cmpOut)
	}
	dir := t.TempDir()
	trace, _ := filepath.Abs(sacctTrace)
	conf, _ := filepath.Abs(topoConf)
	spec := filepath.Join(dir, "hosts.yaml")
	sweepFile := fmt.Sprintf("traces: [%s]\nmachines: [mesh:4x4]\nallocators: [slurm:tree:%s:hilbert]\nschedulers: [as-run]\nflags: [--hostlist, 'node[01-16]']\n", trace, conf)
	if err := os.WriteFile(spec, []byte(sweepFile), 0o644); err != nil {
		t.Fatal(err)
	}
	res := filepath.Join(dir, "r.jsonl")
	if code, _, stderr := runCLI(t, "", "sweep", spec, "-o", res); code != 0 {
		t.Fatalf("sweep: exit %d: %s", code, stderr)
	}
	line, _ := os.ReadFile(res)
	if want := fmt.Sprintf(`"mean_total_pairwise_l1":%v`, hops); !strings.Contains(string(line), want) {
		t.Fatalf("sweep item with --hostlist: no %s (sim's) in\n%s", want, line)
	}
	// A count that does not fit the machine fails the item, naming the flags.
	if err := os.WriteFile(spec, []byte(strings.Replace(sweepFile, "node[01-16]", "node[01-15]", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	runCLI(t, "", "sweep", spec, "-o", res)
	if line, _ := os.ReadFile(res); !strings.Contains(string(line), "--hostlist node[01-15]: 15 host names for a machine of 16 nodes") {
		t.Fatalf("sweep item with 15 names for 16 nodes:\n%s", line)
	}
}

// Bad --hosts/--hostlist input on sim: errors naming the flag, nothing replayed.
func TestSimHostsErrors(t *testing.T) {
	dir := t.TempDir()
	dup := filepath.Join(dir, "dup.txt")
	os.WriteFile(dup, []byte("node[01-15]\nnode01\n"), 0o644)
	base := []string{"sim", "--trace", sacctTrace, "--sched", "as-run", "--alloc", "as-run", "--machine", "mesh:4x4"}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--hostlist", "node[01-15]"}, 2, "--hostlist node[01-15]: 15 host names for a machine of 16 nodes"},
		{[]string{"--hostlist", "node[01-16]", "--hosts", dup}, 2, "--hosts and --hostlist both name the hosts"},
		{[]string{"--hosts", dup}, 1, "node01"},
		{[]string{"--hostlist", "node[01-16"}, 2, `--hostlist: "node[01-16": unmatched '['`}, // the value quoted once, by the hostlist error
		{[]string{"--hostlist", "x[01-16]"}, 1, `recorded node "node01" is not a host of mesh:4x4`},
	} {
		code, _, stderr := runCLI(t, "", append(base, c.args...)...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want exit %d with %q", c.args, code, stderr, c.code, c.want)
		}
	}
}

// --hostlist and --hosts are read under the command's context: Ctrl-C while 10^5
// names are expanded (60-70 ms, curve and plan waited for it) ends the reading with
// the interrupt after the flag, not a usage error blaming the expression (exit 2's
// "run 'procalloc help'"); a live context reads the names as before.
func TestHostSourceStopsWhenInterrupted(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "hosts")
	if err := os.WriteFile(file, []byte("# all of them\nn[000001-131072]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errInterrupted)
	for _, h := range []hostSource{{expr: "n[000001-131072]"}, {file: file}} {
		names, err := h.read(ctx, &env{}, 131072)
		var ue usageError
		if !errors.Is(err, context.Canceled) || errors.As(err, &ue) || names != nil || !strings.HasPrefix(err.Error(), h.String()+": ") {
			t.Fatalf("%s with a cancelled context: %d names, error %v; want none and the interrupt after the flag", h, len(names), err)
		}
		names, err = h.read(context.Background(), &env{}, 131072)
		if err != nil || names[0] != "n000001" || names[131071] != "n131072" {
			t.Fatalf("%s: %v", h, err)
		}
	}
}
