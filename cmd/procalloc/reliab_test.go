package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/procalloc/procalloc/sim/sweep"
)

// An output naming an input file is refused before anything runs, through a
// symlink and a hard link too (evaluate -o replaced the ranking it read by its
// table); merge and curve's --slurm-conf may update their input in place.
func TestOutputOverInputIsRefused(t *testing.T) {
	dir := t.TempDir()
	rank := filepath.Join(dir, "rank.txt")
	if code, _, stderr := runCLI(t, "", "curve", "--machine", "mesh:4x4", "--curve", "hilbert", "-o", rank); code != 0 {
		t.Fatalf("curve: exit %d, %s", code, stderr)
	}
	before, _ := os.ReadFile(rank)
	link, hard := filepath.Join(dir, "link.txt"), filepath.Join(dir, "hard.txt")
	if err := os.Symlink("rank.txt", link); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(rank, hard); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{rank, link, hard} {
		code, _, stderr := runCLI(t, "", "evaluate", "--machine", "mesh:4x4", "--ranking", rank, "--weights", "list:1", "-o", out)
		if code != 2 || !strings.Contains(stderr, "-o "+out+" is also the input --ranking "+rank) {
			t.Errorf("evaluate -o %s: exit %d, %q", out, code, stderr)
		}
	}
	// --curve takes a ranking file as well as a curve name.
	code, _, stderr := runCLI(t, "", "curve", "--machine", "mesh:4x4", "--curve", rank, "--svg", link)
	if code != 2 || !strings.Contains(stderr, "--svg "+link+" is also the input --curve "+rank) {
		t.Errorf("curve --curve FILE --svg FILE: exit %d, %q", code, stderr)
	}
	if got, _ := os.ReadFile(rank); string(got) != string(before) {
		t.Errorf("the ranking changed")
	}
	// merge may write over one of its inputs: the result holds its lines.
	res := filepath.Join(dir, "r.jsonl")
	line := `{"sweep":"s","sweep_id":"a87e9f4725e4cee4","index":0,"key":"39af54dfa5b0964b","params":{"trace":"t","machine":"mesh:4x4","alloc":"mc1x1","sched":"fcfs","contract":1,"pattern":"none","seed":1},"status":"failed","error":"x","seconds":0.1}` + "\n"
	if err := os.WriteFile(res, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, "", "merge", res, "-o", res); strings.Contains(stderr, "is also the input") {
		t.Errorf("merge -o its input: exit %d, %q", code, stderr)
	}
	// But only -o, which holds the input updated: merge's --csv replaced the
	// results by their table, curve's --svg the slurm.conf by a picture (wt-newuser,
	// 2026-12-07).
	kept, _ := os.ReadFile(res)
	if code, _, stderr := runCLI(t, "", "merge", res, "--csv", res); code != 2 || !strings.Contains(stderr, "--csv "+res+" is also the input argument "+res) {
		t.Errorf("merge --csv its input: exit %d, %q", code, stderr)
	}
	if got, _ := os.ReadFile(res); string(got) != string(kept) {
		t.Errorf("merge --csv its input changed it")
	}
	conf := filepath.Join(dir, "slurm.conf")
	if err := os.WriteFile(conf, []byte("NodeName=n[1-16] CPUs=1\nPartitionName=p Nodes=ALL\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, "", "curve", "--machine", "mesh:4x4", "--curve", "hilbert", "--format", "slurm-weight", "--slurm-conf", conf, "--hostlist", "n[1-16]", "--svg", conf); code != 2 || !strings.Contains(stderr, "--svg "+conf+" is also the input --slurm-conf "+conf) {
		t.Errorf("curve --svg its --slurm-conf: exit %d, %q", code, stderr)
	}
	if code, _, stderr := runCLI(t, "", "curve", "--machine", "mesh:4x4", "--curve", "hilbert", "--format", "slurm-weight", "--slurm-conf", conf, "--hostlist", "n[1-16]", "-o", conf); code != 0 {
		t.Errorf("curve -o its --slurm-conf: exit %d, %q", code, stderr)
	}
	if got, _ := os.ReadFile(conf); !strings.Contains(string(got), "Weight=") {
		t.Errorf("curve -o its --slurm-conf: %q, want the weights merged in", got)
	}
}

// sweep --list --json is a JSON array of the items (it printed tab-separated lines).
func TestSweepListJSON(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(spec, []byte("traces: [t]\nmachines: [mesh:4x4]\nallocators: [mc1x1, bf:snake]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runCLI(t, "", "sweep", spec, "--list", "--json")
	var items []struct {
		Index  int          `json:"index"`
		Key    string       `json:"key"`
		Params sweep.Params `json:"params"`
		Args   []string     `json:"args"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &items) != nil || len(items) != 2 {
		t.Fatalf("exit %d, %q, %q", code, out, stderr)
	}
	_, tsv, _ := runCLI(t, "", "sweep", spec, "--list")
	for i, it := range items {
		if it.Index != i || it.Params.Key() != it.Key || it.Params.Alloc != []string{"mc1x1", "bf:snake"}[i] {
			t.Errorf("item %d: %+v", i, it)
		}
		want := fmt.Sprintf("%d\t%s\t%s", it.Index, it.Key, strings.Join(it.Args, " "))
		if line := strings.Split(tsv, "\n")[i]; line != want {
			t.Errorf("item %d: JSON says %q, the list %q", i, want, line)
		}
	}
}

// curve --list --json is JSON, with whether each curve applies to a machine.
func TestCurveListJSON(t *testing.T) {
	code, out, stderr := runCLI(t, "", "curve", "--list", "--json", "--machine", "fattree:4,2:4")
	var l struct {
		Machine string `json:"machine"`
		Curves  []struct {
			Name    string `json:"name"`
			Summary string `json:"summary"`
			Applies *bool  `json:"applies"`
			WhyNot  string `json:"why_not"`
		} `json:"curves"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &l) != nil || l.Machine != "fattree:4,2:4" || len(l.Curves) == 0 {
		t.Fatalf("exit %d, %q, %q", code, out, stderr)
	}
	for _, c := range l.Curves {
		if c.Applies == nil || c.Summary == "" || *c.Applies != (c.WhyNot == "") {
			t.Errorf("%+v", c)
		}
		if c.Name == "snake" && *c.Applies || c.Name == "rcm" && !*c.Applies {
			t.Errorf("%s on a fat tree: applies %v", c.Name, *c.Applies)
		}
	}
}

// An unwritable output is found before any work, in every command: order solved
// for its whole --time-limit, and subset, evaluate, plot and merge computed, before
// finding -o's directory missing.
func TestOutputCheckedBeforeWork(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "missing", "out.txt")
	pts := filepath.Join(dir, "pts.txt")
	if err := os.WriteFile(pts, []byte("0 0\n1 0\n0 1\n5 5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"order", "--machine", "mesh:5x5", "--weights", "list:1,0.5,0.25", "--time-limit", "60s", "-o", bad},
		{"subset", "--algo", "exact", "--k", "3", "--points", pts, "-o", bad},
		{"evaluate", "--machine", "mesh:4x4", "--curve", "snake", "--weights", "list:1", "-o", bad},
		{"hostlist", "expand", "n[1-3]", "-o", bad},
		{"plot", pts, "--svg", bad},
	} {
		start := time.Now()
		code, _, stderr := runCLI(t, "", args...)
		if code != 1 || !strings.Contains(stderr, bad+": no such file or directory") || time.Since(start) > 30*time.Second {
			t.Errorf("%s: exit %d after %v, %q", strings.Join(args, " "), code, time.Since(start), stderr)
		}
	}
}

// TestNewUserMistakes collects the inputs of a new user's reliability pass that
// were accepted silently or answered with a misleading message: each must now exit
// with the given status and a message containing the given words (and not the
// misleading one, where there was one).
func TestNewUserMistakes(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	pts := write("pts.txt", "0 0\n1 0\n0 1\n")
	free := write("free.txt", "0\n1\n2\n")
	llnl := "../../sim/testdata/LLNL-T3D-1996-2.converted.txt.gz"
	empty := write("empty.jsonl", "")
	failed := write("failed.jsonl", `{"sweep":"s1","sweep_id":"c8d68a9fa1f60202","index":0,"key":"f67a2190d47dd01b","params":{"trace":"t","machine":"mesh:0x4","alloc":"mc1x1","sched":"fcfs","contract":1,"pattern":"none","seed":1},"status":"failed","error":"bad machine","seconds":0.1}`+"\n")
	spec := write("s.yaml", "traces: [t]\nmachines: [mesh:4x4]\nallocators: [mc1x1]\n")
	qap := write("q3.dat", "3\n0 1 2\n1 0 1\n2 1 0\n0 5 2\n5 0 3\n2 3 0\n")
	conf := write("slurm.conf", "NodeName=n[1-16] CPUs=4\nPartitionName=p Nodes=ALL\n")
	for _, tc := range []struct {
		name    string
		args    []string
		code    int
		want    string
		notWant string
	}{
		// voronoi has no --machine/--free, yet its message offered them.
		{"voronoi without --points", []string{"voronoi", "--k", "1"}, 2, "--points FILE is required", "--machine"},
		// An absent --algo was "unknown --algo \"\"".
		{"subset without --algo", []string{"subset", "--k", "2", "--points", pts}, 2, "--algo is required: one of", `unknown --algo ""`},
		// An absent --alloc was "allocator 1 of the list is empty (two commas?)".
		{"compare without --alloc", []string{"compare", "--trace", "t", "--machine", "mesh:4x4"}, 2, "--alloc needs at least one allocator spec", "two commas"},
		// plan named three flags for one bad value.
		{"plan --jobs 0", []string{"plan", "--machine", "mesh:4x4", "--hostlist", "n[1-16]", "--slurm-conf", conf, "-o", filepath.Join(dir, "p"), "--jobs", "0"}, 2, "--jobs 0: must be at least 1", "--time-limit"},
		{"plan --block-size -1", []string{"plan", "--machine", "mesh:4x4", "--hostlist", "n[1-16]", "--slurm-conf", conf, "-o", filepath.Join(dir, "p"), "--block-size", "-1"}, 2, "--block-size -1: must not be negative", "--jobs"},
		{"plan --time-limit -1s", []string{"plan", "--machine", "mesh:4x4", "--hostlist", "n[1-16]", "--slurm-conf", conf, "-o", filepath.Join(dir, "p"), "--time-limit", "-1s"}, 2, "--time-limit -1s: must not be negative (0: no limit)", "--jobs"},
		// A fat tree where a grid is needed was "unknown kind \"fattree\" (want mesh or torus)",
		// or, with two levels, a complaint about its sizes.
		{"subset on a fat tree", []string{"subset", "--algo", "mm", "--k", "2", "--machine", "fattree:4,4:8", "--free", free}, 2, "a fattree is a switched network without node coordinates", "is not a positive integer"},
		// The communication replay's rates without --comm were ignored silently;
		// now with a warning (a sweep item's command line must still replay).
		{"sim --msgs-per-second without --comm", []string{"sim", "--trace", llnl, "--machine", "mesh:16x16", "--msgs-per-second", "5", "--metrics", "sched"}, 0, "warning: --msgs-per-second is ignored: it goes with --comm PATTERN", ""},
		{"compare --cycle-seconds without --comm", []string{"compare", "--trace", llnl, "--machine", "mesh:16x16", "--alloc", "ff:snake,bf:snake", "--cycle-seconds", "1e-6", "--metrics", "sched"}, 0, "warning: --cycle-seconds is ignored: it goes with --comm PATTERN", ""},
		// --pattern beside a different --comm, and --router-delay without --comm,
		// were dropped without a word.
		{"sim --pattern with another --comm", []string{"sim", "--trace", llnl, "--machine", "mesh:16x16", "--comm", "all-to-all", "--pattern", "n-body", "--to", "100000"}, 0, "warning: --pattern n-body is ignored: with --comm the route metrics are those of the messages sent, in --comm's pattern (all-to-all)", ""},
		{"sim --router-delay without --comm", []string{"sim", "--trace", llnl, "--machine", "mesh:16x16", "--router-delay", "3", "--metrics", "sched"}, 0, "warning: --router-delay is ignored: it goes with --comm PATTERN", ""},
		{"sim --msgs-per-second with --comm", []string{"sim", "--trace", llnl, "--machine", "mesh:16x16", "--msgs-per-second", "5", "--comm", "n-body", "--to", "100000"}, 0, "", "warning"},
		// An empty results file merged to nothing with exit 0; plot blamed a
		// --where that was not given.
		{"merge of an empty file", []string{"merge", empty}, 1, "no results lines in " + empty + ": nothing to merge", ""},
		{"merge --json of an empty file", []string{"merge", "--json", empty, "-o", filepath.Join(dir, "merged.jsonl")}, 1, "nothing to merge", ""},
		{"plot of an empty file", []string{"plot", empty}, 1, "no results lines in " + empty + ": nothing to plot", "--where"},
		{"plot of failed items only", []string{"plot", failed}, 1, "none of the 1 items in " + failed + " succeeded", "--where"},
		// A fat tree of a million hosts was built (326 MB, a second) before netsim
		// refused it; now refused from its spec, with its count.
		{"netsim on a large fat tree", []string{"netsim", "--machine", "fattree:2,7:524288", "--rate", "0.1"}, 2, "synthetic traffic needs 2 to 65536 nodes; it has 1048576", ""},
		{"netsim on one node", []string{"netsim", "--machine", "mesh:1", "--rate", "0.1"}, 2, "needs 2 to 65536 nodes; it has 1", ""},
		// sweep -o - wrote a file named "-" (elsewhere -o - is standard output).
		{"sweep -o -", []string{"sweep", spec, "-o", "-"}, 2, "-o -: a sweep appends its results to a file", ""},
		// Standard input named twice: the second input read nothing.
		{"sim --trace - --hosts -", []string{"sim", "--trace", "-", "--machine", "mesh:16x16", "--hosts", "-"}, 2, "standard input (-) given to --hosts and --trace: it can be read once", ""},
		{"evaluate --graph - --ranking -", []string{"evaluate", "--graph", "-", "--ranking", "-", "--weights", "list:1"}, 2, "standard input (-) given to --graph and --ranking", ""},
		{"sweep - --per-job -", []string{"sweep", "-", "-o", filepath.Join(dir, "r.jsonl"), "--per-job", "-"}, 1, "sweep file: empty", "standard input (-) given"}, // --per-job is an output: not a second reader
		// A --hostlist of the wrong length (or malformed) is its value's fault, a
		// usage error as any bad flag value; it exited 1 (--hosts FILE still does:
		// the file's fault).
		{"sim --hostlist of 15 names for 16 nodes", []string{"sim", "--trace", llnl, "--machine", "mesh:4x4", "--hostlist", "n[1-15]"}, 2, "--hostlist n[1-15]: 15 host names for a machine of 16 nodes", ""},
		{"compare --hostlist of 17 names for 16 nodes", []string{"compare", "--trace", llnl, "--machine", "mesh:4x4", "--alloc", "mm", "--hostlist", "n[1-17]"}, 2, "--hostlist n[1-17]: 17 host names for a machine of 16 nodes", ""},
		{"curve --hostlist of 15 names for 16 nodes", []string{"curve", "--machine", "mesh:4x4", "--curve", "snake", "--format", "hosts", "--hostlist", "n[1-15]"}, 2, "--hostlist n[1-15]: 15 host names for a machine of 16 nodes", ""},
		{"plan --hostlist of 15 names for 16 nodes", []string{"plan", "--machine", "mesh:4x4", "--hostlist", "n[1-15]", "--slurm-conf", conf, "-o", filepath.Join(dir, "p")}, 2, "--hostlist n[1-15]: 15 host names for a machine of 16 nodes", ""},
		{"curve --hosts file of 3 names for 16 nodes", []string{"curve", "--machine", "mesh:4x4", "--curve", "snake", "--format", "hosts", "--hosts", write("h3.txt", "a\nb\nc\n")}, 1, "3 host names for a machine of 16 nodes", "for usage"},
		// order named every flag of a rule for the one given.
		{"order --qap --weights", []string{"order", "--qap", qap, "--weights", "list:1"}, 2, "--qap takes no --weights:", ""},
		{"order --threads -1", []string{"order", "--machine", "mesh:3x3", "--weights", "list:1", "--threads", "-1"}, 2, "--threads -1: must not be negative", "--time-limit"},
		{"netsim --measure 0", []string{"netsim", "--machine", "mesh:4x4", "--rate", "0.1", "--measure", "0"}, 2, "--measure 0: must be 1..1e8 cycles", "--warmup"},
		{"curve --machine --topology", []string{"curve", "--machine", "mesh:4x4", "--curve", "snake", "--topology", "t"}, 2, "--topology goes with --graph, not --machine", "--node-name-map"},
		// sweep --list ignored -o, and --json (it printed tab-separated lines).
		{"sweep --list -o", []string{"sweep", spec, "--list", "-o", filepath.Join(dir, "r.jsonl")}, 2, "--list prints the items and exits: it takes no --sbatch, -o or --per-job", ""},
		{"sweep --sbatch --json", []string{"sweep", spec, "--sbatch", "--shards", "2", "--json"}, 2, "--json does not go with --sbatch", ""},
		// curve --list ignored --curve (and --json: it printed the table).
		{"curve --list --curve", []string{"curve", "--list", "--curve", "snake"}, 2, "--list lists the curves and exits: it takes no --curve", ""},
		{"sim with two allocators", []string{"sim", "--trace", llnl, "--machine", "mesh:16x16", "--alloc", "mc1x1,mm"}, 2, `--alloc "mc1x1,mm" names 2 allocators; sim replays one (compare`, "unknown allocator"},
		// A typo in a sweep's machines or allocators failed every item of them,
		// one at a time, after running the others.
		{"sweep with a bad machine", []string{"sweep", write("bad.yaml", "traces: [t]\nmachines: [mesh:0x4]\nallocators: [mc1x1]\n"), "-o", filepath.Join(dir, "r.jsonl")}, 1, `bad.yaml: sweep file: machines: entry 1: machine spec "mesh:0x4"`, ""},
		{"compare with an allocator twice", []string{"compare", "--trace", llnl, "--machine", "mesh:16x16", "--alloc", "mm,mc1x1:tb=3,9,3,2,mm"}, 2, "mm is listed twice (allocators 1 and 3)", ""},
		// bench and batch printed two rows of one allocator, as if they differed.
		{"bench with an allocator twice", []string{"bench", "--machine", "mesh:16x16", "--alloc", "mc1x1,mc1x1", "--jobs", "5"}, 2, "mc1x1 is listed twice (allocators 1 and 2)", ""},
		{"batch with an allocator twice", []string{"batch", "--machine", "mesh:16x16:io=left", "--alloc", "dbt:1/4,bt,dbt:1/4"}, 2, "dbt:1/4 is listed twice (allocators 1 and 3)", ""},
		// The other list flags took a repeat silently (evaluate --curve snake,snake
		// scored one curve twice); refuseRepeats refuses them all alike.
		{"evaluate with a curve twice", []string{"evaluate", "--machine", "mesh:4x4", "--curve", "snake, hilbert,snake", "--weights", "list:1"}, 2, `--curve "snake, hilbert,snake": snake is listed twice (curves 1 and 3)`, ""},
		{"evaluate --curve all", []string{"evaluate", "--machine", "mesh:4x4", "--curve", "all", "--weights", "list:1"}, 0, "", "twice"},
		{"compare with a load twice", []string{"compare", "--trace", llnl, "--machine", "mesh:16x16", "--alloc", "mm", "--loads", "0.5,1,0.50"}, 2, `--loads "0.5,1,0.50": 0.5 is listed twice (loads 1 and 3)`, ""},
		{"batch with a --comm-per-io value twice", []string{"batch", "--machine", "mesh:16x16:io=left", "--alloc", "bt", "--comm-per-io", "0,4,0"}, 2, `--comm-per-io "0,4,0": 0 is listed twice (values 1 and 3)`, ""},
		{"netsim with a rate twice", []string{"netsim", "--machine", "mesh:4x4", "--rate", "0.1,0.2,0.10"}, 2, `--rate "0.1,0.2,0.10": 0.1 is listed twice (rates 1 and 3)`, ""},
		{"order with a start twice", []string{"order", "--machine", "mesh:3x3", "--weights", "list:1", "--start", "snake,snake", "--no-mip"}, 2, `--start "snake,snake": snake is listed twice (starts 1 and 2)`, ""},
		// batch and subset did not name the flag of a bad machine spec.
		{"batch --machine mesh:0x4", []string{"batch", "--machine", "mesh:0x4:io=left", "--alloc", "bt"}, 2, `--machine: machine spec "mesh:0x4:io=left": size "0"`, ""},
		{"subset --machine mesh:0x4", []string{"subset", "--algo", "mm", "--k", "1", "--machine", "mesh:0x4", "--free", free}, 2, `--machine: machine spec "mesh:0x4"`, ""},
		// A disconnected network was ordered without a word.
		{"curve on a disconnected graph", []string{"curve", "--graph", write("two.txt", "a b\nc d\n"), "--curve", "bfs"}, 0, `warning: --graph ` + filepath.Join(dir, "two.txt") + `: graph is disconnected: node "c" cannot be reached from node "a"`, ""},
		{"curve on a connected graph", []string{"curve", "--graph", write("one.txt", "a b\nb c\n"), "--curve", "bfs"}, 0, "", "warning"},
		// The flag package spelt flags with one dash; --version and help help were
		// unknown commands.
		{"cluster --k=abc", []string{"cluster", "--k=abc"}, 2, `invalid value "abc" for flag --k: want an integer`, ""},
		// The flag package's "parse error" did not say what a value should be:
		// --time-limit 60 (seconds meant) was refused without a word of the unit.
		{"order --time-limit 60", []string{"order", "--machine", "mesh:3x3", "--weights", "list:1", "--time-limit", "60"}, 2, `invalid value "60" for flag --time-limit: want a duration with a unit, e.g. 30s, 5m or 1h30m`, "parse error"},
		{"sim --seed 1.5", []string{"sim", "--trace", llnl, "--machine", "mesh:16x16", "--seed", "1.5"}, 2, `invalid value "1.5" for flag --seed: want an integer of at least 0`, "parse error"},
		{"subset --eps x", []string{"subset", "--algo", "ptas", "--k", "2", "--points", pts, "--eps", "x"}, 2, `invalid value "x" for flag --eps: want a number`, "parse error"},
		{"curve --json=maybe", []string{"curve", "--machine", "mesh:2x2", "--curve", "snake", "--json=maybe"}, 2, `invalid value "maybe" for flag --json: want true or false`, "parse error"},
		{"sim --nope", []string{"sim", "--nope"}, 2, "flag provided but not defined: --nope", ""},
		{"cluster --k", []string{"cluster", "--k"}, 2, "flag needs an argument: --k", ""},
		{"hostlist -o", []string{"hostlist", "expand", "n1", "-o"}, 2, "flag needs an argument: -o", ""},
		{"--version", []string{"--version"}, 0, "", "unknown command"},
		{"help help", []string{"help", "help"}, 0, "", "unknown command"},
		{"help sim curve", []string{"help", "sim", "curve"}, 2, `procalloc help: one command at a time, got ["sim" "curve"]`, ""},
		{"unknown kind", []string{"curve", "--machine", "hypercube:4", "--curve", "bfs"}, 2, "want mesh, torus, fattree or dragonfly", ""},
		// order wrote node indices as host names (--format hosts, or -o FILE.hosts, on
		// a mesh), where curve refuses them and order refused the scheduler formats.
		{"order --format hosts on a mesh", []string{"order", "--machine", "mesh:3x3", "--weights", "list:1", "--format", "hosts", "-o", filepath.Join(dir, "merged.jsonl")}, 2, "--format hosts names hosts, and mesh:3x3 has none", ""},
		{"order -o FILE.hosts on a mesh", []string{"order", "--machine", "mesh:3x3", "--weights", "list:1", "-o", filepath.Join(dir, "o.hosts")}, 2, "--format hosts names hosts, and mesh:3x3 has none", ""},
		{"order -o FILE.hosts on a graph", []string{"order", "--graph", write("path.txt", "a b\nb c\n"), "--weights", "list:1", "-o", filepath.Join(dir, "o.hosts")}, 0, "", "names hosts"},
		// subset took --eps and --circumference with any algorithm and ignored them.
		{"subset mm --eps", []string{"subset", "--algo", "mm", "--k", "2", "--points", pts, "--eps", "0.1"}, 2, "--eps goes with --algo ptas", ""},
		{"subset ptas --eps", []string{"subset", "--algo", "ptas", "--k", "2", "--points", pts, "--eps", "0.25"}, 0, "", "goes with"},
		{"subset line --circumference", []string{"subset", "--algo", "line", "--k", "2", "--points", write("line.txt", "1\n5\n9\n"), "--circumference", "8"}, 2, "--circumference goes with --algo ring", ""},
	} {
		os.Remove(filepath.Join(dir, "merged.jsonl"))
		code, _, stderr := runCLI(t, "", tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) || (tc.notWant != "" && strings.Contains(stderr, tc.notWant)) {
			t.Errorf("%s: %s: exit %d, stderr %q; want exit %d and %q without %q", tc.name, strings.Join(tc.args, " "), code, stderr, tc.code, tc.want, tc.notWant)
		}
		if _, err := os.Stat(filepath.Join(dir, "merged.jsonl")); code != 0 && err == nil {
			t.Errorf("%s: failed, yet wrote its -o file", tc.name)
		}
	}
}

// A panic in a command is reported as an internal error with exit status 1, not
// Go's 2 (which says "usage error" here).
func TestPanicIsFailureNotUsage(t *testing.T) {
	register(&command{name: "test-panic", summary: "panics", usage: "test-panic", example: "procalloc test-panic",
		flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
			fs.Bool("json", false, "print JSON")
			return func(context.Context, *env, []string) error { panic("boom") }
		}})
	defer delete(commands, "test-panic")
	code, _, stderr := runCLI(t, "", "test-panic")
	if code != 1 || !strings.Contains(stderr, "internal error (a bug: please report it with the command line): boom") || !strings.Contains(stderr, "goroutine") {
		t.Fatalf("exit %d, %q", code, stderr)
	}
}

// /dev/null is a character device but no terminal: no progress bar goes there.
func TestDevNullIsNoTerminal(t *testing.T) {
	f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	if isTerminal(f) {
		t.Fatal("/dev/null taken for a terminal")
	}
	if tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
		defer tty.Close()
		if !isTerminal(tty) {
			t.Error("/dev/tty not taken for a terminal")
		}
	}
}

// ticking draws the elapsed time of work without progress of its own (cluster,
// voronoi, a curve) on a terminal, clears it when stopped, and draws nothing
// when stderr is no terminal.
func TestProgressTicking(t *testing.T) {
	for _, tty := range []bool{true, false} {
		var buf lockedBuffer
		p := newProgress(&env{stderr: &buf, stderrIsTTY: tty}, "cluster k=60", 0)
		p.start = time.Now().Add(-2 * time.Second) // past the first second's silence
		stop := p.ticking("searching")
		deadline := time.Now().Add(5 * time.Second)
		for tty && time.Now().Before(deadline) && !strings.Contains(buf.String(), "searching") {
			time.Sleep(20 * time.Millisecond)
		}
		stop()
		got := buf.String()
		if tty && (!strings.Contains(got, "cluster k=60 searching 2s") || !strings.HasSuffix(got, "\r\033[K")) {
			t.Errorf("terminal: %q", got)
		}
		if !tty && got != "" {
			t.Errorf("no terminal: %q", got)
		}
	}
}

// lockedBuffer is a bytes.Buffer written by one goroutine and read by another.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Every flag that names a file a command writes is one of outputFlagNames, so that
// run checks it before any work and never takes it for an input.
func TestOutputFlagsAreKnown(t *testing.T) {
	for name, c := range commands {
		fs := flag.NewFlagSet(name, flag.ContinueOnError)
		c.flags(fs)
		fs.VisitAll(func(f *flag.Flag) {
			u := strings.ToLower(f.Usage)
			writes := (strings.HasPrefix(u, "write") || strings.HasPrefix(u, "also write") || strings.HasPrefix(u, "also draw")) &&
				(strings.Contains(f.Usage, "`FILE`") || strings.Contains(f.Usage, "`DIR`"))
			known := slices.Contains(outputFlagNames, f.Name)
			if writes && !known {
				t.Errorf("%s --%s writes a file (%q) but is not in outputFlagNames", name, f.Name, f.Usage)
			}
			if known && !writes && !slices.Contains(c.dirOutputs, f.Name) && f.Name != "o" {
				t.Errorf("%s --%s is in outputFlagNames but its help does not say it writes a FILE: %q", name, f.Name, f.Usage)
			}
		})
	}
}

// Every flag is shown in an example of its command's help, or its description
// gives one ("e.g."); compare's replay flags, sim's, may be shown by sim's.
func TestEveryFlagHasAnExample(t *testing.T) {
	for name, c := range commands {
		if name == "test-panic" {
			continue
		}
		fs := flag.NewFlagSet(name, flag.ContinueOnError)
		c.flags(fs)
		fs.VisitAll(func(f *flag.Flag) {
			if strings.Contains(f.Usage, "e.g.") {
				return
			}
			examples := c.example
			if _, replay := sweep.Lookup(f.Name); replay && name == "compare" {
				examples += "\n" + commands["sim"].example // sim's replay flags, shown by sim
			}
			for _, line := range strings.Split(examples, "\n") {
				for _, w := range strings.Fields(line) {
					if w == "-"+f.Name || w == "--"+f.Name || strings.HasPrefix(w, "--"+f.Name+"=") {
						return
					}
				}
			}
			t.Errorf("%s --%s: no example shows it and its description gives none", name, f.Name)
		})
	}
}

// readNodeList's memory is that of the nodes listed, not of the machine (it made
// a flag per node: 2 GB for three nodes of mesh:46000x46000), and a repeat names
// both lines.
func TestReadNodeListMemory(t *testing.T) {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	before := m.TotalAlloc
	nodes, err := readNodeList(strings.NewReader("0\n2115999999 7\n"), 46000*46000)
	runtime.ReadMemStats(&m)
	if err != nil || len(nodes) != 3 || nodes[1] != 2115999999 {
		t.Fatalf("%v, %v", nodes, err)
	}
	if got := m.TotalAlloc - before; got > 1<<20 {
		t.Errorf("%d bytes allocated for three nodes", got)
	}
	if _, err := readNodeList(strings.NewReader("3\n1\n3\n"), 16); err == nil || err.Error() != "line 3: node 3 listed twice (first on line 1)" {
		t.Errorf("repeat: %v", err)
	}
}
