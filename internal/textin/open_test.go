package textin

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// A directory is refused when it is opened, with os.Open's kind of error (not
// later as a read error of line 1); files open as before.
func TestOpenRefusesADirectory(t *testing.T) {
	dir := t.TempDir()
	if f, err := Open(dir); f != nil || !errors.Is(err, syscall.EISDIR) || err.Error() != "open "+dir+": is a directory" {
		t.Fatalf("Open(directory) = %v, %v; want open %s: is a directory", f, err, dir)
	}
	if _, err := Open(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Open(missing) = %v", err)
	}
	path := filepath.Join(dir, "f.txt")
	if err := os.WriteFile(path, []byte("1 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if b, err := io.ReadAll(f); err != nil || string(b) != "1 2\n" {
		t.Fatalf("read %q, %v", b, err)
	}
}

// OpenInput: "-" reads the given standard input and its Close leaves it open; with
// no standard input "-" is a file's name, as it was for sim.Spec and
// slurm.GraphFile without Stdin; other names open as Open opens them (a directory
// and a missing file refused alike).
func TestOpenInputDashIsStandardInput(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile("-", []byte("the file named -\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("f", []byte("a file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stdin, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	go func() { w.WriteString("standard input\n"); w.Close() }()
	read := func(path string, in io.Reader) string {
		t.Helper()
		r, err := OpenInput(path, in)
		if err != nil {
			t.Fatalf("OpenInput(%q): %v", path, err)
		}
		b, err := io.ReadAll(r)
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if got := read("-", stdin); got != "standard input\n" {
		t.Fatalf(`OpenInput("-", stdin) read %q`, got)
	}
	if _, err := stdin.Stat(); err != nil {
		t.Fatalf("closing OpenInput's standard input closed it: %v", err)
	}
	if got := read("-", nil); got != "the file named -\n" {
		t.Fatalf(`OpenInput("-", nil) read %q, want the file named -`, got)
	}
	if got := read("f", stdin); got != "a file\n" {
		t.Fatalf(`OpenInput("f", stdin) read %q`, got)
	}
	if _, err := OpenInput(dir, stdin); !errors.Is(err, syscall.EISDIR) {
		t.Fatalf("OpenInput(directory) = %v, want EISDIR", err)
	}
	if r, err := OpenInput("missing", stdin); r != nil || !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("OpenInput(missing) = %v, %v; want a nil reader and ErrNotExist", r, err)
	}
}
