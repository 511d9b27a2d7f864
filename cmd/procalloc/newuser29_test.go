package main

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/sim"
)

// The twenty-ninth round's new user's pass (wt-newuser, 2026-12-07): the defects
// found by following README's tour and the help as a site engineer, a researcher
// and someone measuring allocator speed, each with the test that says it is gone.

// TestFlagOfAnotherCommandNamed: a flag the command lacks but another command has
// was refused without a word of where it belongs (compare --per-job: sim's; it was
// --baseline, which compare now takes);
// now the commands that have it are named, and a name no command has gets no hint.
func TestFlagOfAnotherCommandNamed(t *testing.T) {
	llnl := "../../sim/testdata/LLNL-T3D-1996-2.converted.txt.gz"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"compare", "--trace", llnl, "--machine", "mesh:16x16", "--alloc", "mm", "--per-job", "x.csv"}, "flag provided but not defined: --per-job (--per-job is a flag of procalloc sim and procalloc sweep)"},
		{[]string{"sim", "--trace", llnl, "--machine", "mesh:16x16", "--runs", "5"}, "flag provided but not defined: --runs (--runs is a flag of procalloc batch)"},
		{[]string{"hostlist", "expand", "n1", "--slurm-conf", "x"}, "(--slurm-conf is a flag of procalloc compare, procalloc curve, procalloc plan and procalloc sim)"},
		{[]string{"sim", "--trace", llnl, "--frobnicate"}, "flag provided but not defined: --frobnicate\n"},
	} {
		code, stdout, stderr := runCLI(t, "", tc.args...)
		if code != 2 || stdout != "" || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 2 and %q", tc.args, code, stdout, stderr, tc.want)
		}
	}
}

// TestMergeJSONReportWherePipesReadIt: merge -o FILE --json wrote its report on
// stderr, so "merge ... -o m.jsonl --json | python3 -m json.tool" read nothing; with
// the merged lines in a file the report is on stdout, and where stdout has the
// lines (no -o) or the CSV (--csv -) it stays on stderr.
func TestMergeJSONReportWherePipesReadIt(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(spec, []byte("name: s\ntraces: ["+absPath(t, "../../sim/testdata/LLNL-T3D-1996-2.converted.txt.gz")+"]\nmachines: [mesh:16x16]\nallocators: [bf:hilbert, ff:hilbert]\nschedulers: [fcfs]\nflags: [--to, \"200000\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := filepath.Join(dir, "r.jsonl")
	if code, _, stderr := runCLI(t, "", "sweep", spec, "-o", res); code != 0 {
		t.Fatalf("sweep: exit %d: %s", code, stderr)
	}
	report := func(what, text string) {
		t.Helper()
		var r struct {
			Items   *int  `json:"items"`
			Missing []any `json:"missing"`
		}
		if err := json.Unmarshal([]byte(text), &r); err != nil || r.Items == nil || *r.Items != 2 || r.Missing == nil {
			t.Errorf("%s: not the report of 2 items: %v: %q", what, err, text)
		}
	}
	code, stdout, stderr := runCLI(t, "", "merge", res, "--spec", spec, "-o", filepath.Join(dir, "m.jsonl"), "--json")
	if code != 0 || strings.TrimSpace(stderr) != "" {
		t.Fatalf("merge -o F --json: exit %d, stderr %q", code, stderr)
	}
	report("merge -o F --json, stdout", stdout)
	code, stdout, stderr = runCLI(t, "", "merge", res, "--spec", spec, "--json")
	if code != 0 || strings.Count(stdout, "\n") != 2 || !strings.HasPrefix(stdout, `{"sweep":"s"`) {
		t.Fatalf("merge --json without -o: exit %d, stdout %q", code, stdout)
	}
	report("merge --json without -o, stderr", stderr)
	code, stdout, stderr = runCLI(t, "", "merge", res, "--spec", spec, "-o", filepath.Join(dir, "m2.jsonl"), "--csv", "-", "--json")
	if code != 0 || !strings.HasPrefix(stdout, "index,") {
		t.Fatalf("merge --csv - --json: exit %d, stdout %q", code, stdout)
	}
	report("merge --csv - --json, stderr", stderr)
}

func absPath(t *testing.T, name string) string {
	t.Helper()
	abs, err := filepath.Abs(name)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// TestSweepNameRelativeToTheFileSaysHow: a sweep file in another directory naming
// a trace as on sim's command line (relative to the current directory) failed with
// "stat DIR/sim/testdata/...: no such file or directory" and no word of why; the
// error now says names are taken from the sweep file's directory and how to write
// this one. A name missing from both places gets no such hint.
func TestSweepNameRelativeToTheFileSaysHow(t *testing.T) {
	work := t.TempDir()
	if err := os.MkdirAll(filepath.Join(work, "traces"), 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile("../../sim/testdata/LLNL-T3D-1996-2.converted.txt.gz")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "traces", "llnl.txt.gz"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(work, "sweeps"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ trace, want string }{
		{"traces/llnl.txt.gz", `(names in a sweep file are relative to its directory ` + filepath.Join(work, "sweeps") + `; "traces/llnl.txt.gz" is there from the current directory: write "../traces/llnl.txt.gz" or an absolute name)`},
		{"traces/nosuch.txt.gz", "no such file or directory\n"},
	} {
		spec := filepath.Join(work, "sweeps", "s.yaml")
		if err := os.WriteFile(spec, []byte("name: s\ntraces: ["+tc.trace+"]\nmachines: [mesh:16x16]\nallocators: [bf:hilbert]\nschedulers: [fcfs]\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Chdir(work)
		code, _, stderr := runCLI(t, "", "sweep", "sweeps/s.yaml", "-o", filepath.Join(work, "r.jsonl"))
		if code != 1 || !strings.Contains(stderr, tc.want) {
			t.Errorf("trace %s: exit %d, %q; want exit 1 and %q", tc.trace, code, stderr, tc.want)
		}
	}
}

// TestDropLargerDropsJobsLargerThanTheirPartition: with --slurm-conf, a job larger
// than its partition stopped the replay even with --drop-larger, which dropped only
// jobs larger than the machine, and the error did not say how to go on. Now
// --drop-larger drops them too: the count reported is the count of the trace's
// jobs larger than their partition (here the default one, of 128 of the 256
// nodes), and the replay holds the others; without it the error names the way out.
func TestDropLargerDropsJobsLargerThanTheirPartition(t *testing.T) {
	llnl := "../../sim/testdata/LLNL-T3D-1996-2.converted.txt.gz"
	conf := "NodeName=node[001-256] CPUs=1\nPartitionName=batch Nodes=node[001-128] Default=YES\nPartitionName=debug Nodes=node[129-256]\n"
	args := []string{"sim", "--trace", llnl, "--machine", "mesh:16x16", "--hostlist", "node[001-256]", "--slurm-conf", "-", "--alloc", "mc1x1", "--to", "2000000"}
	code, _, stderr := runCLI(t, conf, args...)
	if code != 1 || !strings.Contains(stderr, "the default partition batch has 128 compute hosts: --drop-larger replays the trace without such jobs") {
		t.Fatalf("without --drop-larger: exit %d, %q", code, stderr)
	}
	code, stdout, stderr := runCLI(t, conf, append(args, "--drop-larger", "--json")...)
	if code != 0 {
		t.Fatalf("--drop-larger: exit %d: %s", code, stderr)
	}
	var out struct {
		Jobs          int `json:"jobs"`
		DroppedLarger int `json:"dropped_larger"`
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatal(err)
	}
	// The plain definition: the window's jobs, those of more than 128 nodes.
	f, err := os.Open(llnl)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr, err := sim.ReadTrace(f, sim.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	in, larger := 0, 0
	for _, j := range tr.Jobs {
		if j.Arrival-tr.Jobs[0].Arrival >= 2000000 {
			continue
		}
		in++
		if j.Procs > 128 {
			larger++
		}
	}
	if larger == 0 || out.DroppedLarger != larger || out.Jobs != in-larger {
		t.Errorf("--drop-larger: %d jobs replayed, %d dropped; the window has %d jobs, %d of more than 128 nodes", out.Jobs, out.DroppedLarger, in, larger)
	}
}

// TestNotesNameTheCommand: the notes and warnings of a replay's inputs began
// "procalloc:" (sim, compare), plan's and sweep's "warning:" with no program at
// all, where the command's other lines say "procalloc CMD:".
func TestNotesNameTheCommand(t *testing.T) {
	sacct := "../../sim/testdata/sacct-fattree.txt"
	graph := "../../topo/testdata/topology.conf"
	for _, args := range [][]string{
		{"sim", "--graph", graph, "--trace", sacct, "--alloc", "as-run", "--sched", "as-run"},
		{"compare", "--graph", graph, "--trace", sacct, "--alloc", "as-run,bf:rcm", "--sched", "as-run"},
	} {
		code, _, stderr := runCLI(t, "", args...)
		if code != 0 || !strings.Contains(stderr, "procalloc "+args[0]+": "+sacct+": 7 sacct records skipped: ") || !strings.Contains(stderr, ", 3 job steps, ") {
			t.Errorf("%s: exit %d, %q", args[0], code, stderr)
		}
		for _, l := range strings.Split(strings.TrimSpace(stderr), "\n") {
			if !strings.HasPrefix(l, "procalloc "+args[0]+": ") {
				t.Errorf("%s: line %q does not name the command", args[0], l)
			}
		}
	}
}

// TestHostFormatErrorSaysTheFormatGiven: curve --format hostfile without host names
// said "--format hosts names hosts", a format the user did not give.
func TestHostFormatErrorSaysTheFormatGiven(t *testing.T) {
	code, _, stderr := runCLI(t, "", "curve", "--machine", "mesh:4x4", "--curve", "hilbert", "--format", "hostfile")
	if code != 2 || !strings.Contains(stderr, "--format hostfile names hosts: it needs --hosts FILE or --hostlist EXPR") {
		t.Errorf("exit %d, %q", code, stderr)
	}
}

// TestMissingInputNamesItsFlag: a file that does not exist was named without the
// flag that gave it ("open nosuch: no such file or directory") by every command
// but plan's --trace and sim's --slurm-conf, where a command reads several files
// (sim: --trace, --graph, --hosts); the flag is named now. A positional file
// (sweep FILE) stays as it was.
func TestMissingInputNamesItsFlag(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nosuch")
	llnl := "../../sim/testdata/LLNL-T3D-1996-2.converted.txt.gz"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"sim", "--trace", missing, "--machine", "mesh:4x4"}, "procalloc sim: --trace: open " + missing + ": no such file or directory\n"},
		{[]string{"sim", "--trace", llnl, "--graph", missing}, "procalloc sim: --graph: open " + missing + ": "},
		{[]string{"compare", "--trace", missing, "--machine", "mesh:4x4", "--alloc", "mm"}, "procalloc compare: --trace: open " + missing + ": "},
		{[]string{"bench", "--trace", missing, "--machine", "mesh:4x4", "--alloc", "mm"}, "procalloc bench: --trace: open " + missing + ": "},
		{[]string{"evaluate", "--machine", "mesh:4x4", "--ranking", missing}, "procalloc evaluate: --ranking: open " + missing + ": "},
		{[]string{"order", "--qap", missing}, "procalloc order: --qap: open " + missing + ": "},
		{[]string{"plan", "--graph", missing, "--slurm-conf", "x", "-o", t.TempDir()}, "procalloc plan: --graph: open " + missing + ": "},
		{[]string{"sweep", missing, "-o", filepath.Join(t.TempDir(), "r.jsonl")}, "procalloc sweep: open " + missing + ": "},
	} {
		code, _, stderr := runCLI(t, "", tc.args...)
		if code != 1 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: exit %d, %q; want exit 1 and %q", tc.args, code, stderr, tc.want)
		}
	}
}

// TestOneLeafSaidInTheSingular: curve --format slurm-topology on a machine whose
// virtual tree has one leaf warned "1 leaves (procalloc-leaf1) list their nodes".
func TestOneLeafSaidInTheSingular(t *testing.T) {
	code, _, stderr := runCLI(t, "", "curve", "--machine", "mesh:4x4", "--curve", "hilbert", "--format", "slurm-topology", "--hostlist", "n[01-16]")
	if code != 0 || !strings.Contains(stderr, "; 1 leaf (procalloc-leaf1) lists its nodes in another order") {
		t.Errorf("exit %d, %q", code, stderr)
	}
	code, _, stderr = runCLI(t, "", "curve", "--graph", "../../topo/testdata/topology.conf", "--curve", "rcm", "--format", "slurm-topology")
	if code != 0 || !strings.Contains(stderr, "; 4 leaves (leaf04, leaf03, leaf01, leaf02) list their nodes in another order") {
		t.Errorf("four leaves: exit %d, %q", code, stderr)
	}
}

// TestPlanHistoryOfAnotherMachineSaysWhy: plan with a history whose jobs are
// larger than the site's compute hosts listed them and stopped, with no word of
// what to do (sim names --drop-larger; plan replays the site's own history).
func TestPlanHistoryOfAnotherMachineSaysWhy(t *testing.T) {
	code, _, stderr := runCLI(t, "", "plan", "--graph", "../../topo/testdata/fattree.ibnetdiscover", "--node-name-map", "../../topo/testdata/fattree.node-name-map",
		"--slurm-conf", "../../plan/testdata/slurm.conf", "--trace", "../../sim/testdata/LLNL-T3D-1996-2.converted.txt.gz", "-o", filepath.Join(t.TempDir(), "p"))
	if code != 1 || !strings.Contains(stderr, "jobs need more nodes than the 16 compute hosts: job 1 (line 1, 128 nodes)") || !strings.Contains(stderr, "plan replays the site's own history") {
		t.Errorf("exit %d, %q", code, stderr)
	}
}

// TestKRequiredSaysSo: cluster, subset and voronoi without --k said "--k 0: must be
// in 1..200000" (or "between 1 and the number of points"), a value the user never
// gave; they say it is required, and an explicit --k 0 keeps the range message.
func TestKRequiredSaysSo(t *testing.T) {
	pts := filepath.Join(t.TempDir(), "pts.txt")
	if err := os.WriteFile(pts, []byte("0 0\n1 1\n2 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"cluster"}, "--k is required: the number of points (1..200000), e.g. --k 21"},
		{[]string{"cluster", "--k", "0"}, "--k 0: must be in 1..200000"},
		{[]string{"subset", "--algo", "mm", "--points", pts}, "--k is required: the number of points to choose"},
		{[]string{"subset", "--algo", "mm", "--points", pts, "--k", "0"}, "--k 0: must be between 1 and the number of points (3)"},
		{[]string{"voronoi", "--points", pts}, "--k is required: the size of the nearest sets"},
	} {
		code, _, stderr := runCLI(t, "", tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: exit %d, %q; want exit 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}

// TestTopologyNameNearOne: --topology with a typo listed the topology.yaml's names
// without the one meant.
func TestTopologyNameNearOne(t *testing.T) {
	code, _, stderr := runCLI(t, "", "curve", "--graph", "../../topo/testdata/topology.yaml", "--topology", "fabrik", "--curve", "rcm", "--format", "order")
	if code != 1 || !strings.Contains(stderr, `no topology "fabrik" (the file has fabric, racks, torus) (did you mean fabric?)`) {
		t.Errorf("exit %d, %q", code, stderr)
	}
}

// TestHelpSlurmFilesAreTheCommandsOwn: the help's compressed-input paragraph named
// the same Slurm files for every command (--slurm-conf, --topology-conf, slurm:tree:FILE),
// bench's and plan's included, which lack some of them: every flag it names is
// now a flag of the command, and slurm:tree:FILE is named only where --alloc is.
func TestHelpSlurmFilesAreTheCommandsOwn(t *testing.T) {
	said := 0
	for _, name := range commandNames() {
		_, out, _ := runCLI(t, "", "help", name)
		text := strings.Join(strings.Fields(out), " ")
		i := strings.Index(text, "Slurm's files (")
		if i < 0 {
			continue
		}
		said++
		list, _, _ := strings.Cut(text[i+len("Slurm's files ("):], ")")
		fs := flag.NewFlagSet(name, flag.ContinueOnError)
		commands[name].flags(fs)
		for _, w := range strings.FieldsFunc(list, func(r rune) bool { return r == ',' || r == ' ' }) {
			if strings.HasPrefix(w, "--") && fs.Lookup(strings.TrimPrefix(w, "--")) == nil {
				t.Errorf("help %s names %s among its Slurm files; it has no such flag", name, w)
			}
		}
		if strings.Contains(list, "slurm:tree:FILE") != (fs.Lookup("alloc") != nil) {
			t.Errorf("help %s: slurm:tree:FILE said %v, --alloc %v", name, strings.Contains(list, "slurm:tree:FILE"), fs.Lookup("alloc") != nil)
		}
	}
	if said < 5 {
		t.Errorf("%d helps say which Slurm files are read uncompressed: the reading is broken", said)
	}
}
