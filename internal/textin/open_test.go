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
