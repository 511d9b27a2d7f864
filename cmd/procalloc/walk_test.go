package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A ranking of one number per line (--format ranks or order) cannot be told ranks
// from order by its content: a file says it by its extension, and standard input
// could not say it at all ("name the file .ranks or .order"), so
// "curve --format order | evaluate --ranking -" always failed, and curve could not
// convert a ranking from standard input. --ranking-format says the format.
func TestRankingFormatFlag(t *testing.T) {
	dir := t.TempDir()
	code, pairs, stderr := runCLI(t, "", "curve", "--machine", "mesh:4x4", "--curve", "hilbert")
	if code != 0 {
		t.Fatalf("curve: exit %d, %s", code, stderr)
	}
	code, order, _ := runCLI(t, "", "curve", "--machine", "mesh:4x4", "--curve", "hilbert", "--format", "order")
	if code != 0 {
		t.Fatal("curve --format order failed")
	}
	ranks := filepath.Join(dir, "hilbert.txt") // no extension that names the format
	if code, _, stderr := runCLI(t, "", "curve", "--machine", "mesh:4x4", "--curve", "hilbert", "--format", "ranks", "-o", ranks); code != 0 {
		t.Fatalf("curve --format ranks: exit %d, %s", code, stderr)
	}
	ev := []string{"evaluate", "--machine", "mesh:4x4", "--weights", "list:1,0.5", "--json"}
	with := func(more ...string) []string { return append(append([]string{}, ev...), more...) }
	_, want, _ := runCLI(t, pairs, with("--ranking", "-")...)
	want = want[strings.Index(want, `"machine"`):] // the scores, not the ranking's name
	if !strings.Contains(want, `"objective"`) {
		t.Fatalf("evaluate of the pairs: %q", want)
	}
	for _, tc := range []struct {
		stdin string
		args  []string
		code  int
		want  string
	}{
		{order, with("--ranking", "-", "--ranking-format", "order"), 0, ""},
		{"", with("--ranking", ranks, "--ranking-format", "ranks"), 0, ""},
		{order, with("--ranking", "-"), 1, "cannot tell ranks from order; give --ranking-format ranks or order"},
		{"", with("--ranking", ranks), 1, "cannot tell ranks from order; give --ranking-format ranks or order"},
		{order, with("--ranking", "-", "--ranking-format", "bogus"), 2, `--ranking-format: unknown ranking format "bogus"`},
		{"", with("--curve", "snake", "--ranking-format", "order"), 2, "--ranking-format goes with --ranking FILE"},
	} {
		code, out, stderr := runCLI(t, tc.stdin, tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) || code == 0 && !strings.HasSuffix(out, want) {
			t.Errorf("%s: exit %d, %s%s; want exit %d, %q and the pairs' evaluation with ranking -", strings.Join(tc.args, " "), code, out, stderr, tc.code, tc.want)
		}
	}

	// curve converts a ranking read from standard input.
	for _, tc := range []struct {
		stdin string
		args  []string
		code  int
		want  string
	}{
		{order, []string{"--curve", "-", "--ranking-format", "order"}, 0, ""},
		{pairs, []string{"--curve", "-"}, 0, ""},
		{"", []string{"--curve", ranks, "--ranking-format", "ranks"}, 0, ""},
		{order, []string{"--curve", "-"}, 1, "give --ranking-format ranks or order"},
		{"", []string{"--curve", "hilbert", "--ranking-format", "order"}, 2, "--ranking-format goes with a ranking file (--curve FILE or -)"},
	} {
		args := append([]string{"curve", "--machine", "mesh:4x4"}, tc.args...)
		code, out, stderr := runCLI(t, tc.stdin, args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) || code == 0 && out != pairs {
			t.Errorf("%s: exit %d, %s%s; want exit %d, %q and hilbert's pairs", strings.Join(args, " "), code, out, stderr, tc.code, tc.want)
		}
	}
	if _, err := os.Stat(ranks); err != nil {
		t.Fatal(err)
	}
}

// A file saved by an editor that starts it with a UTF-8 byte-order mark (Windows
// Notepad does): the mark became part of the first host name of a --hosts file (and,
// through a hostlist on that line, of every name it expands to: slurm.conf lines for
// hosts that do not exist) and of the first node of an edge list; a points or
// ranking file was refused with "\ufeff0" is not a number. The user's own text
// formats (textin) now skip it.
func TestByteOrderMarkIsSkipped(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("\ufeff"+body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"curve", "--machine", "mesh:2x2", "--curve", "snake", "--format", "hosts", "--hosts", write("hosts.txt", "n[1-4]\n")}, "n1\nn2\nn4\nn3\n"},
		{[]string{"curve", "--graph", write("edges.txt", "# a path\na b\nb c\n"), "--curve", "name-order", "--format", "hosts"}, "a\nb\nc\n"},
		{[]string{"curve", "--graph", write("edges2.txt", "a b\nb c\n"), "--curve", "name-order", "--format", "hosts"}, "a\nb\nc\n"},
		{[]string{"subset", "--algo", "mm", "--k", "2", "--points", write("pts.txt", "0 0\n5 5\n1 0\n"), "--json"}, `"total": 1,`},
		{[]string{"evaluate", "--machine", "mesh:2x2", "--ranking", write("r.pairs", "0 0\n1 1\n2 3\n3 2\n"), "--weights", "list:1", "--json"}, `"objective": 3,`},
		{[]string{"subset", "--algo", "mm", "--k", "2", "--machine", "mesh:4x4", "--free", write("free.txt", "0 5 1\n"), "--json"}, `"total": 1,`},
		{[]string{"evaluate", "--machine", "mesh:2x2", "--ranking", write("r.json", `{"order":[0,1,3,2]}`), "--weights", "list:1", "--json"}, `"objective": 3,`},
		{[]string{"curve", "--machine", "mesh:2x2", "--hostlist", "n[1-4]", "--curve", write("r.hl", "n[1-2],n4,n3\n"), "--ranking-format", "hostlist", "--format", "hosts"}, "n1\nn2\nn4\nn3\n"},
	} {
		code, out, stderr := runCLI(t, "", tc.args...)
		if code != 0 || !strings.Contains(out, tc.want) || strings.Contains(out, "\ufeff") {
			t.Errorf("%s: exit %d, %q %s; want %q", strings.Join(tc.args, " "), code, out, stderr, tc.want)
		}
	}
}

// A ranking file of host names could not be converted with --hosts or --hostlist
// naming the machine's nodes: its hosts were matched against the machine's own
// names (a mesh has none: "unknown host"), and --hostlist with --format pairs was
// refused as unused.
func TestCurveReadsHostRankingWithGivenNames(t *testing.T) {
	dir := t.TempDir()
	ranking := filepath.Join(dir, "r.hosts")
	if err := os.WriteFile(ranking, []byte("n1\nn2\nn4\nn3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--curve", ranking, "--hostlist", "n[1-4]", "--format", "hosts"}, 0, "n1\nn2\nn4\nn3\n"},
		{[]string{"--curve", ranking, "--hostlist", "n[1-4]"}, 0, "0 0\n1 1\n2 3\n3 2\n"},
		{[]string{"--curve", ranking, "--hostlist", "n[1-4]", "--format", "slurm-topology"}, 0, "SwitchName="},
		{[]string{"--curve", ranking, "--hostlist", "n[2-5]"}, 1, `unknown host "n1"`},
		{[]string{"--curve", "snake", "--hostlist", "n[1-4]"}, 2, "--hostlist is only used with formats that name hosts"},
	} {
		args := append([]string{"curve", "--machine", "mesh:2x2"}, tc.args...)
		code, out, stderr := runCLI(t, "", args...)
		if code != tc.code || !strings.Contains(out+stderr, tc.want) {
			t.Errorf("%s: exit %d, %q %s; want exit %d and %q", strings.Join(args, " "), code, out, stderr, tc.code, tc.want)
		}
	}
}

// A sweep whose traces: entry names no file ran every item of it, each failing on
// the same missing file ("N items failed ... a rerun retries them"); it is now
// refused before any item runs, and no results file is started. --sbatch and --list
// do not look: a cluster script may be written where the traces are not.
func TestSweepRefusesMissingTrace(t *testing.T) {
	dir := t.TempDir()
	trace, _ := filepath.Abs("../../sim/testdata/LLNL-T3D-1996-2.converted.txt.gz")
	spec := filepath.Join(dir, "s.yaml")
	body := "traces: [" + trace + ", nosuch.swf]\nmachines: [mesh:16x16]\nallocators: [mc1x1]\n"
	if err := os.WriteFile(spec, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	res := filepath.Join(dir, "r.jsonl")
	code, _, stderr := runCLI(t, "", "sweep", spec, "-o", res)
	if code != 1 || !strings.Contains(stderr, `traces: entry 2 "nosuch.swf": stat `+filepath.Join(dir, "nosuch.swf")+": no such file or directory") {
		t.Errorf("exit %d, %s", code, stderr)
	}
	if _, err := os.Stat(res); err == nil {
		t.Error("a results file was started")
	}
	// A directory named as a trace is refused the same way (each item failed on it).
	dirSpec := filepath.Join(dir, "d.yaml")
	if err := os.WriteFile(dirSpec, []byte("traces: ["+dir+"]\nmachines: [mesh:16x16]\nallocators: [mc1x1]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, "", "sweep", dirSpec, "-o", res); code != 1 || !strings.Contains(stderr, "a directory, not a trace file") {
		t.Errorf("a directory as trace: exit %d, %s", code, stderr)
	}
	if _, err := os.Stat(res); err == nil {
		t.Error("a results file was started")
	}
	// Shard 0/2 holds only the first trace's item: it runs.
	if code, _, stderr := runCLI(t, "", "sweep", spec, "-o", res, "--shard", "0/2"); code != 0 {
		t.Errorf("shard 0/2: exit %d, %s", code, stderr)
	}
	if code, _, stderr := runCLI(t, "", "sweep", spec, "--sbatch", "--shards", "2"); code != 0 {
		t.Errorf("--sbatch: exit %d, %s", code, stderr)
	}
}
