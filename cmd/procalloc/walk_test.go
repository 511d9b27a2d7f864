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
