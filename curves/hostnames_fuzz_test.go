package curves

import (
	"bytes"
	"context"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// FuzzReadHostNames fuzzes the reader of a --hosts FILE (sim, compare, curve, plan:
// one host name or hostlist expression per line). Names read are unique, non-empty,
// free of blanks, control characters and '#', and written back one per line they read back the same;
// a refusal that names a line names one of the input's.
func FuzzReadHostNames(f *testing.F) {
	f.Add([]byte("# hosts\nalpha\n\nbeta # second\n"))
	f.Add([]byte("n[1-3]\nm0\nm[001-002],x\n"))
	f.Add([]byte("a\nb\na\n"))
	f.Add([]byte("rack[1-2]_node[01-04]\r\n"))
	f.Add([]byte("a b\n"))
	f.Add([]byte("n[3-1]\n"))
	lineRef := regexp.MustCompile(`^line (\d+): `)
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<14 {
			return
		}
		names, err := ReadHostNames(context.Background(), bytes.NewReader(data), 0)
		if err != nil {
			if m := lineRef.FindStringSubmatch(err.Error()); m != nil {
				n, _ := strconv.Atoi(m[1])
				if lines := bytes.Count(data, []byte("\n")) + 1; n < 1 || n > lines {
					t.Fatalf("%v: the input has %d lines", err, lines)
				}
			}
			if len(names) != 0 {
				t.Fatalf("refused (%v) with %d names", err, len(names))
			}
			return
		}
		if len(names) == 0 {
			t.Fatal("no names and no error")
		}
		seen := map[string]bool{}
		for _, h := range names {
			if h == "" || strings.ContainsAny(h, " \t\r\n\v\f#") || strings.ContainsFunc(h, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
				t.Fatalf("name %q", h)
			}
			if seen[h] {
				t.Fatalf("%q named twice", h)
			}
			seen[h] = true
		}
		back, err := ReadHostNames(context.Background(), strings.NewReader(strings.Join(names, "\n")+"\n"), 0)
		if err != nil || !slices.Equal(back, names) {
			t.Fatalf("written back and read: %q, %v; want %q", back, err, names)
		}
	})
}

// A host name with a control character is refused naming its line: a NUL, an
// escape sequence or a DEL were read as names (a binary file, a terminal's
// colours pasted with the names).
func TestReadHostNamesControlCharacters(t *testing.T) {
	for in, want := range map[string]string{
		"# c\n\x00\n":            `line 2: a NUL byte (byte 1 of the line): not text`,
		"h1\nn[1-2]\x1b[0m\n":    `line 2: host name "n[1-2]\x1b[0m" holds the control character U+001B`,
		"h1\nh2\nh\x7f\n":        `line 3: host name "h\x7f" holds the control character U+007F`,
		"h1\r\nh2\r\n\r\n\x01\n": `line 4: host name "\x01" holds the control character U+0001`,
	} {
		if names, err := ReadHostNames(context.Background(), strings.NewReader(in), 0); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %q, %v; want an error %q", in, names, err, want)
		}
	}
}
