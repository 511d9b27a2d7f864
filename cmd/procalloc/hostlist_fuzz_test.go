package main

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/internal/textin"
	"github.com/procalloc/procalloc/topo/hostlist"
)

// FuzzHostlistStdin: `scontrol show hostnames | procalloc hostlist compress` and
// `procalloc hostlist expand -` read standard input. For any input:
//   - the exit status is 0 or 1 (standard input is a file, not a usage error),
//     and an error names standard input ("-: ") and, when the input's text is
//     at fault, the line, which holds the expression or name quoted;
//   - compress's expression expands to the names of the input in their order
//     (split at commas and blanks, a UTF-8 byte-order mark skipped);
//   - expand's names are those of the input's expressions, one a line, and
//     compressed and expanded again they are the same.
func FuzzHostlistStdin(f *testing.F) {
	f.Add("n1,n2 n3\nn[4-6]x\n\nnode007\n")
	f.Add("n[1-3]\nn[4-\nx1\n")
	f.Add("\ufeffn[01-04],m1\n")
	f.Add("a b\tc,,d\n")
	f.Add("n[1-3000000]\nm[1-3000000]\n")
	lineRef := regexp.MustCompile(`^procalloc hostlist: -: line ([0-9]+): `)
	quotedAt := regexp.MustCompile(`^"(?:[^"\\]|\\.)*"`)
	f.Fuzz(func(t *testing.T, in string) {
		if len(in) > 1<<16 {
			return
		}
		checkErr := func(cmd string, code int, stderr string) {
			t.Helper()
			if code != 1 {
				t.Fatalf("%s: exit %d, want 1: %s", cmd, code, stderr)
			}
			if !strings.HasPrefix(stderr, "procalloc hostlist: -: ") {
				t.Fatalf("%s: error does not name standard input: %s", cmd, stderr)
			}
			m := lineRef.FindStringSubmatch(stderr)
			if m == nil {
				return
			}
			n, _ := strconv.Atoi(m[1])
			lines := strings.Split(in, "\n")
			if n < 1 || n > len(lines) {
				t.Fatalf("%s: line %d of %d: %s", cmd, n, len(lines), stderr)
			}
			// The expression or name quoted is on that line.
			rest := stderr[len(m[0]):]
			if q := quotedAt.FindString(rest); q != "" {
				u, err := strconv.Unquote(q)
				// Every part of the quote (maybe clipped: "...") is on the line.
				for _, part := range strings.Split(u, "...") {
					if err == nil && !strings.Contains(lines[n-1], part) {
						t.Fatalf("%s: line %d is %q, the error quotes %s", cmd, n, lines[n-1], q)
					}
				}
			}
		}
		if format, _, _ := textin.Compression(in[:min(len(in), textin.StartLen)]); format != "" {
			// Read decompressed (textin's own fuzz target) or refused: only the
			// exit status and the error's form are checked.
			for _, cmd := range []string{"compress", "expand"} {
				if code, _, stderr := runCLI(t, in, "hostlist", cmd, "-"); code != 0 {
					checkErr(cmd, code, stderr)
				}
			}
			return
		}
		inputLines := strings.Split(strings.TrimPrefix(in, textin.BOM), "\n")
		// compress
		code, out, stderr := runCLI(t, in, "hostlist", "compress", "-")
		if code != 0 {
			checkErr("compress", code, stderr)
		} else {
			var want []string
			for _, l := range inputLines {
				want = append(want, strings.FieldsFunc(strings.TrimSuffix(l, "\r"), func(r rune) bool { return r == ',' || r == ' ' || r == '\t' })...)
			}
			got, err := hostlist.Expand(strings.TrimSuffix(out, "\n"))
			if err != nil || !slices.Equal(got, want) {
				t.Fatalf("compress: %q expands to %q (%v), want %q", out, got, err, want)
			}
		}
		// expand
		code, out, stderr = runCLI(t, in, "hostlist", "expand", "-")
		if code != 0 {
			checkErr("expand", code, stderr)
			return
		}
		var want []string
		for _, l := range inputLines {
			if l = strings.TrimSpace(l); l != "" {
				names, err := hostlist.Expand(l)
				if err != nil {
					t.Fatalf("expand accepted line %q, Expand refuses it: %v", l, err)
				}
				want = append(want, names...)
			}
		}
		got := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if !slices.Equal(got, want) {
			t.Fatalf("expand: %d names, want %d", len(got), len(want))
		}
		if c, err := hostlist.Compress(got); err == nil {
			if back, err := hostlist.Expand(c); err != nil || !slices.Equal(back, got) {
				t.Fatalf("expand's names compressed to %q and back: %v", c, err)
			}
		}
	})
}
