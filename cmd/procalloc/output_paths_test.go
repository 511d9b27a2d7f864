package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutputPathErrorsViaCLI: -o paths that cannot be written are exit 1 with an
// error naming the user's path and the reason, and leave no file: a symlink loop,
// a path through a regular file, a missing directory. -o /dev/stderr writes to the
// process's standard error (as "-" does to standard output), replacing nothing.
func TestOutputPathErrorsViaCLI(t *testing.T) {
	dir := t.TempDir()
	os.Symlink(filepath.Join(dir, "b"), filepath.Join(dir, "a"))
	os.Symlink(filepath.Join(dir, "a"), filepath.Join(dir, "b"))
	file := filepath.Join(dir, "f")
	os.WriteFile(file, []byte("keep"), 0o644)
	for _, c := range []struct{ path, want string }{
		{filepath.Join(dir, "a"), "too many levels of symbolic links"},
		{filepath.Join(file, "x.txt"), "-o " + filepath.Join(file, "x.txt") + ": not a directory"},
		{filepath.Join(dir, "none", "x.txt"), "-o " + filepath.Join(dir, "none", "x.txt") + ": no such file or directory"},
		{dir, "-o " + dir + ": is a directory"},
	} {
		code, out, stderr := runCLI(t, "", "hostlist", "expand", "n[1-3]", "-o", c.path)
		if code != 1 || !strings.Contains(stderr, c.want) || out != "" {
			t.Errorf("-o %s: exit %d, stdout %q, stderr %q; want 1 and %q", c.path, code, out, stderr, c.want)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 3 || string(mustRead(t, file)) != "keep" {
		t.Errorf("files left: %v", entries)
	}
	for _, p := range []string{"/dev/stderr", "/dev/fd/2", "/proc/self/fd/2"} {
		code, out, stderr := runCLI(t, "", "hostlist", "expand", "n[1-3]", "-o", p)
		if code != 0 || out != "" || stderr != "n1\nn2\nn3\n" {
			t.Errorf("-o %s: exit %d, stdout %q, stderr %q", p, code, out, stderr)
		}
	}
}
