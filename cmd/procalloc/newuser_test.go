package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNewUserBadInputExits collects the bad inputs a new user's tour of every
// command found mishandled (wt-rel, 2026-12-05): each must exit with the given
// status, say the given words on stderr in one line (two with the usage hint),
// print nothing on stdout and leave no file behind.
func TestNewUserBadInputExits(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.txt")
	for _, tc := range []struct {
		stdin string
		args  []string
		code  int
		want  string
	}{
		// bench exited 1 for a spec sim and compare refuse with 2.
		{"", []string{"bench", "--machine", "mesh:16x16", "--alloc", "bf:hilbert,nosuch"}, 2, `unknown allocator "nosuch"`},
		{"", []string{"bench", "--machine", "mesh:16x16", "--alloc", "mc1x1:tb=-1,2,3,4"}, 2, `scan radius "-1"`},
		{"", []string{"bench", "--machine", "torus:8x8", "--alloc", "mc", "-o", out}, 2, "mc needs a mesh without wraparound"},
		// bench ran its default 2000 jobs on an explicit --jobs 0 (-1 was refused).
		{"", []string{"bench", "--machine", "mesh:16x16", "--alloc", "mm", "--jobs", "0"}, 2, "--jobs 0: must be at least 1"},
	} {
		code, stdout, stderr := runCLI(t, tc.stdin, tc.args...)
		lines := strings.Count(stderr, "\n")
		if code != tc.code || !strings.Contains(stderr, tc.want) || stdout != "" || lines < 1 || lines > 2 || strings.Contains(stderr, "goroutine") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit %d, %q in one line", tc.args, code, stdout, stderr, tc.code, tc.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%q: %s written", tc.args, out)
		}
	}
}
