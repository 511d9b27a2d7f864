package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
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
