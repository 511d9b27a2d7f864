package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// runCLI runs one command line in-process and returns its exit status and output.
func runCLI(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	e := &env{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errb}
	code = run(context.Background(), e, args)
	return code, out.String(), errb.String()
}

func TestUnknownCommandIsUsageError(t *testing.T) {
	if code, _, stderr := runCLI(t, "", "frobnicate"); code != 2 || !strings.Contains(stderr, "unknown command") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if code, _, _ := runCLI(t, ""); code != 2 {
		t.Fatalf("no arguments: exit %d, want 2", code)
	}
}

// Every command documents every flag and gives an example.
func TestHelpForEveryCommand(t *testing.T) {
	for name, c := range commands {
		code, out, _ := runCLI(t, "", "help", name)
		if code != 0 || !strings.Contains(out, "usage: procalloc "+name) {
			t.Errorf("help %s: exit %d, output %q", name, code, out)
		}
		if c.example == "" || !strings.Contains(out, "\nexamples (") {
			t.Errorf("help %s: no example", name)
		}
		if strings.Contains(out, "\n        \n") {
			t.Errorf("help %s: a flag has no description", name)
		}
		// The flags list spells a flag as the usage line does (sweep's -j N was
		// listed as --j).
		fs := flag.NewFlagSet(name, flag.ContinueOnError)
		c.flags(fs)
		fs.VisitAll(func(f *flag.Flag) {
			if strings.Contains(" "+c.usage+" ", " -"+f.Name+" ") || strings.Contains(c.usage, "[-"+f.Name+" ") {
				if !strings.Contains(out, "\n  -"+f.Name+" ") && !strings.Contains(out, "\n  -"+f.Name+"\n") {
					t.Errorf("help %s: the usage line has -%s, the flags list another spelling", name, f.Name)
				}
			}
		})
	}
}

func TestUnknownFlagIsUsageError(t *testing.T) {
	if code, _, _ := runCLI(t, "", "version", "--nope"); code != 2 {
		t.Fatalf("exit %d, want 2", code)
	}
}

func TestSubsetInputErrors(t *testing.T) {
	dir := t.TempDir()
	pts := filepath.Join(dir, "pts.txt")
	if err := os.WriteFile(pts, []byte("0 0\n1 0\n0 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	free := filepath.Join(dir, "free.txt")
	if err := os.WriteFile(free, []byte("0 1 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"subset", "--algo", "nope", "--k", "2", "--points", pts}, 2, "unknown --algo"},
		{[]string{"subset", "--k", "2"}, 2, "--algo is required"},
		{[]string{"subset", "--algo", firstSubsetAlgo(), "--k", "4", "--points", pts}, 2, "--k 4"},
		{[]string{"subset", "--algo", firstSubsetAlgo(), "--k", "0", "--points", pts}, 2, "--k 0"},
		{[]string{"subset", "--algo", firstSubsetAlgo(), "--k", "1", "--points", "-"}, 1, "no points"},
		{[]string{"subset", "--algo", firstSubsetAlgo(), "--k", "1", "--machine", "mesh:2x2", "--free", free}, 1, "listed twice"},
		{[]string{"subset", "--algo", firstSubsetAlgo(), "--k", "1", "--machine", "mesh:2x", "--free", free}, 2, "machine spec"},
		{[]string{"subset", "--algo", firstSubsetAlgo(), "--k", "1", "--points", pts, "--machine", "mesh:2x2"}, 2, "not both"},
	}
	if len(subsetAlgos) == 0 {
		t.Fatal("no subset algorithms registered")
	}
	for _, c := range cases {
		code, _, stderr := runCLI(t, "", c.args...)
		if code != c.code || !strings.Contains(stderr, c.msg) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d with %q", c.args, code, stderr, c.code, c.msg)
		}
	}
}

func firstSubsetAlgo() string {
	names := subsetAlgoNames()
	if len(names) == 0 {
		return ""
	}
	return names[0]
}

func TestReadNodeList(t *testing.T) {
	nodes, err := readNodeList(strings.NewReader("3 1 # c\n\n0\n"), 4)
	if err != nil || len(nodes) != 3 || nodes[0] != 3 {
		t.Fatalf("got %v, %v", nodes, err)
	}
	for _, bad := range []string{"", "4", "-1", "1 1", "x", "1.5", "01"} {
		if _, err := readNodeList(strings.NewReader(bad), 4); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}

func TestOutputIsAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.txt")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	e := &env{stdout: &bytes.Buffer{}}
	failed := writeFileAtomic(e, path, func(w io.Writer) error {
		io.WriteString(w, "partial")
		return errors.New("boom")
	})
	if failed == nil {
		t.Fatal("error not passed on")
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Fatalf("failed write changed the file to %q", b)
	}
	if err := writeFileAtomic(e, path, func(w io.Writer) error { _, err := io.WriteString(w, "new"); return err }); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "new" {
		t.Fatalf("file is %q", b)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("temporary files left behind: %v", entries)
	}
}

// An interrupted replay's error says "interrupted", in the library's error (the
// context's cause, as main sets it), not rewritten by the command.
func TestContextErrorsInPlainWords(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errInterrupted)
	var out, errb bytes.Buffer
	code := run(ctx, &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb},
		[]string{"sim", "--trace", "../../sim/testdata/LLNL-T3D-1996-2.converted.txt.gz", "--machine", "mesh:16x16", "--alloc", "mc1x1"})
	if code != exitInterrupted || strings.Contains(errb.String(), "context canceled") || !strings.Contains(errb.String(), "interrupted") {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
}

// Every command takes --json (the README says so).
func TestEveryCommandHasJSON(t *testing.T) {
	for name, c := range commands {
		fs := flag.NewFlagSet(name, flag.ContinueOnError)
		c.flags(fs)
		if fs.Lookup("json") == nil {
			t.Errorf("%s has no --json", name)
		}
	}
}

// README: "Every command's --json output is described in its procalloc help
// COMMAND". For the commands whose help gives the JSON as a list of keys, every key
// of a run's JSON (and of voronoi's sets) is named there (subset's and voronoi's
// were not).
func TestHelpNamesJSONKeys(t *testing.T) {
	dir := t.TempDir()
	pts := filepath.Join(dir, "pts.txt")
	if err := os.WriteFile(pts, []byte("0 0\n3 1\n1 4\n5 5\n2 2\n7 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"subset", "--algo", "mm", "--k", "3", "--points", pts},
		{"subset", "--algo", "exact", "--k", "3", "--points", pts},
		{"voronoi", "--k", "2", "--points", pts},
		{"cluster", "--k", "5"},
	} {
		code, out, stderr := runCLI(t, "", append(args, "--json")...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		var v map[string]any
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		keys := slices.Collect(maps.Keys(v))
		if sets, ok := v["sets"].([]any); ok && len(sets) > 0 {
			keys = append(keys, slices.Collect(maps.Keys(sets[0].(map[string]any)))...)
		}
		_, help, _ := runCLI(t, "", "help", args[0])
		words := strings.FieldsFunc(help, func(r rune) bool { return !unicode.IsLetter(r) && r != '_' })
		for _, k := range keys {
			if !slices.Contains(words, k) {
				t.Errorf("help %s does not name the JSON key %q of %v", args[0], k, args)
			}
		}
	}
}
