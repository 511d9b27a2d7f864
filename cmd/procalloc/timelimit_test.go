package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A command stopped by its --time-limit says which limit in the library's own error
// (the context's cause, timelimit.Reached), with nothing in cmd rewording it: no
// "context deadline exceeded", and the exit status of a failure.
func TestTimeLimitSaidByTheLibrary(t *testing.T) {
	var b strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&b, "%d %d\n", i%61, i/61)
	}
	pts := filepath.Join(t.TempDir(), "pts.txt")
	if err := os.WriteFile(pts, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, algo := range []string{"mm", "mminc"} {
		code, _, stderr := runCLI(t, "", "subset", "--algo", algo, "--k", "50", "--points", pts, "--time-limit", "1ns")
		want := "procalloc subset: " + algo + ": --time-limit 1ns reached\n"
		if code != 1 || stderr != want {
			t.Errorf("%s: exit %d, stderr %q; want exit 1, %q", algo, code, stderr, want)
		}
		if strings.Contains(stderr, context.DeadlineExceeded.Error()) {
			t.Errorf("%s: %q", algo, stderr)
		}
	}
}
