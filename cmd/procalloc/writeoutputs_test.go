package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// TestWriteOutputsAllOrNone: a command's outputs are moved into place only when every
// one was written; a failure in a later one (here its writer fails, as on a full disk)
// leaves the earlier files as they were and no temporary file behind.
func TestWriteOutputsAllOrNone(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.csv"), filepath.Join(dir, "b.svg")
	if err := os.WriteFile(a, []byte("old a\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	var stdout bytes.Buffer
	e := &env{stdout: &stdout, stderr: io.Discard}
	boom := errors.New("no space left on device")
	write := func(s string) func(io.Writer) error {
		return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
	}
	err := writeOutputs(e,
		namedOutput{"--csv", a, write("new a\n")},
		namedOutput{"--svg", b, func(w io.Writer) error { io.WriteString(w, "<svg"); return boom }},
		namedOutput{"-o", "", write("table\n")})
	if !errors.Is(err, boom) {
		t.Fatalf("error %v, want the failed write's", err)
	}
	if got, _ := os.ReadFile(a); string(got) != "old a\n" {
		t.Errorf("a.csv = %q after a failed group, want the old content", got)
	}
	if _, err := os.Stat(b); !os.IsNotExist(err) {
		t.Errorf("b.svg exists after a failed group (%v)", err)
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout %q after a failed group, want nothing", stdout.String())
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		var names []string
		for _, en := range ents {
			names = append(names, en.Name())
		}
		t.Errorf("directory holds %s, want a.csv only", strings.Join(names, ", "))
	}

	// All written: every file in place (a's mode kept), stdout after the files were staged.
	if err := writeOutputs(e,
		namedOutput{"--csv", a, write("new a\n")},
		namedOutput{"--svg", b, write("<svg/>\n")},
		namedOutput{"--json", "", write("skipped: empty path of a flag other than -o\n")},
		namedOutput{"-o", "-", write("table\n")}); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{a: "new a\n", b: "<svg/>\n"} {
		if got, _ := os.ReadFile(path); string(got) != want {
			t.Errorf("%s = %q, want %q", filepath.Base(path), got, want)
		}
	}
	if fi, err := os.Stat(a); err != nil || fi.Mode().Perm() != 0o640 {
		t.Errorf("a.csv mode %v (%v), want 0640 kept", fi.Mode().Perm(), err)
	}
	if stdout.String() != "table\n" {
		t.Errorf("stdout %q, want the table", stdout.String())
	}
}

// Every command that writes more than one output writes them all or none: with -o
// on /dev/full (a device: checked by nothing beforehand, written through, its write
// fails at the end as on a full disk) each other output keeps its old content, and
// no temporary file is left; with -o a file, every output is written. Before
// writeOutputs each chart (and sim's --per-job rows) was moved into place before
// the -o write failed; curve's drawing was in place before its slurm.conf merge
// failed.
func TestCommandsWriteOutputsAllOrNone(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full:", err)
	}
	in := t.TempDir()
	points := filepath.Join(in, "pts.txt")
	hosts := filepath.Join(in, "hosts")
	conf := filepath.Join(in, "slurm.conf")
	shortConf := filepath.Join(in, "short.conf")
	for name, body := range map[string]string{
		points:    "0 0\n1 0\n0 1\n5 5\n6 5\n5 6\n",
		hosts:     "node[01-16]\n",
		conf:      "NodeName=node[01-16] CPUs=1\n",
		shortConf: "NodeName=node[01-15] CPUs=1\n",
	} {
		if err := os.WriteFile(name, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	results := filepath.Join(in, "results.jsonl")
	if code, _, stderr := runCLI(t, "", "sweep", writeSweep(t, in, "bf:hilbert-trunc, mc1x1"), "-o", results); code != 0 {
		t.Fatalf("sweep: exit %d: %s", code, stderr)
	}
	for _, c := range []struct {
		name  string
		args  []string
		files []string // the flags of the outputs beside -o
	}{
		{"batch", []string{"batch", "--machine", "mesh:8x8:io=left", "--alloc", "bt,mbs", "--comm-per-io", "0", "--runs", "2"}, []string{"--svg", "--svg-relative"}},
		{"bench", []string{"bench", "--machine", "mesh:16x16", "--alloc", "bf:hilbert", "--jobs", "40"}, []string{"--svg"}},
		{"cluster", []string{"cluster", "--k", "5"}, []string{"--svg"}},
		{"curve", []string{"curve", "--machine", "mesh:4x4", "--curve", "hilbert"}, []string{"--svg"}},
		{"curve --slurm-conf", []string{"curve", "--machine", "mesh:4x4", "--curve", "hilbert", "--format", "slurm-weight", "--hosts", hosts, "--slurm-conf", conf}, []string{"--svg"}},
		{"voronoi", []string{"voronoi", "--k", "3", "--points", points}, []string{"--svg"}},
		{"plot", []string{"plot", results, "--where", "pattern=all-to-all", "--y", "mean_response"}, []string{"--svg"}},
		{"sim", []string{"sim", "--trace", filepath.Join(in, "jobs.txt"), "--machine", "mesh:6x6", "--alloc", "mc1x1"}, []string{"--per-job"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			args := slices.Clone(c.args)
			var paths []string
			for i, f := range c.files {
				p := filepath.Join(dir, fmt.Sprintf("out%d", i))
				paths = append(paths, p)
				args = append(args, f, p)
			}
			out := filepath.Join(dir, "table")
			if code, _, stderr := runCLI(t, "", append(args, "-o", out)...); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			for _, p := range append(paths, out) {
				if fi, err := os.Stat(p); err != nil || fi.Size() == 0 {
					t.Fatalf("%s not written (%v)", filepath.Base(p), err)
				}
			}
			os.Remove(out)
			for _, p := range paths {
				if err := os.WriteFile(p, []byte("old\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			code, _, stderr := runCLI(t, "", append(args, "-o", "/dev/full")...)
			if code != 1 || !strings.Contains(stderr, "/dev/full") {
				t.Fatalf("-o /dev/full: exit %d, %q", code, stderr)
			}
			for i, p := range paths {
				if got, _ := os.ReadFile(p); string(got) != "old\n" {
					t.Errorf("%s was replaced (%d bytes) though -o failed", c.files[i], len(got))
				}
			}
			if ents, _ := os.ReadDir(dir); len(ents) != len(paths) {
				t.Errorf("%d entries in the directory, want the %d outputs", len(ents), len(paths))
			}
		})
	}

	// curve: a slurm.conf that lacks a host of the ordering fails the merge; the
	// drawing was in place before.
	dir := t.TempDir()
	svg := filepath.Join(dir, "curve.svg")
	code, _, stderr := runCLI(t, "", "curve", "--machine", "mesh:4x4", "--curve", "hilbert", "--format", "slurm-weight",
		"--hosts", hosts, "--slurm-conf", shortConf, "--svg", svg, "-o", filepath.Join(dir, "merged.conf"))
	if code != 1 || !strings.Contains(stderr, "not defined") {
		t.Fatalf("a host the conf lacks: exit %d, %q", code, stderr)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("left after a failed merge: %v", ents)
	}
}

// brokenPipe is standard output whose reader went away ("| head").
type brokenPipe struct{}

func (brokenPipe) Write([]byte) (int, error) {
	return 0, &fs.PathError{Op: "write", Path: "/dev/stdout", Err: syscall.EPIPE}
}

// A command whose standard output's reader went away ends as SIGPIPE would end it,
// silently with status 141, and its other outputs are left as they were, with no
// temporary file: "curve --svg x.svg | head" was killed between writing standard
// output and moving x.svg into place, its temporary file left behind (in process,
// the write failed: exit 1 with "broken pipe", and the chart was in place).
func TestBrokenPipeLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	var stderr bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: brokenPipe{}, stderr: &stderr}
	code := run(context.Background(), e, []string{"cluster", "--k", "5", "--svg", filepath.Join(dir, "x.svg")})
	if code != exitBrokenPipe || stderr.Len() != 0 {
		t.Errorf("exit %d, stderr %q; want 141 and nothing said", code, stderr.String())
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("left in the directory: %v", ents)
	}

	// The signal itself (the process's default end): the staged files are removed.
	o, err := createOutputFlag(e, "--svg", filepath.Join(dir, "y.svg"))
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(o, "<svg/>")
	o.Flush()
	sigs := make(chan os.Signal, 1)
	sigs <- syscall.SIGPIPE
	exited := -1
	watchBrokenPipe(sigs, func(c int) { exited = c })
	if exited != exitBrokenPipe {
		t.Errorf("exit %d, want 141", exited)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("left in the directory after SIGPIPE: %v", ents)
	}
}
