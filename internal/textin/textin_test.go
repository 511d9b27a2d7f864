package textin

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"
)

func TestLinesSkipCommentsAndNameLines(t *testing.T) {
	in := "# header\n\n1 2 # two\n   \n#x\n3\r\nlast"
	l := NewLines(strings.NewReader(in))
	type got struct {
		line   int
		fields []string
	}
	var gs []got
	for l.Next() {
		gs = append(gs, got{l.Line(), slices.Clone(l.Fields())})
	}
	want := []got{{3, []string{"1", "2"}}, {6, []string{"3"}}, {7, []string{"last"}}}
	if len(gs) != len(want) {
		t.Fatalf("got %v, want %v", gs, want)
	}
	for i := range want {
		if gs[i].line != want[i].line || !slices.Equal(gs[i].fields, want[i].fields) {
			t.Errorf("line %d: got %v, want %v", i, gs[i], want[i])
		}
	}
	if l.Err() != nil {
		t.Error(l.Err())
	}
	if f := Fields("a b#c d"); !slices.Equal(f, []string{"a", "b"}) {
		t.Errorf("Fields: %q", f)
	}
}

func TestLinesReportReadErrorWithLine(t *testing.T) {
	l := NewLines(iotest.TimeoutReader(strings.NewReader("1\n2\n")))
	for l.Next() {
	}
	if err := l.Err(); !errors.Is(err, iotest.ErrTimeout) || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("read error: %v", err)
	}
}

// TestSize: a cap is said in the largest unit it is a whole number of (GiB, MiB,
// KiB; sweep's rule, which textin.Size now is), any other in bytes.
func TestSize(t *testing.T) {
	for _, c := range []struct {
		n    int64
		want string
	}{{0, "0 bytes"}, {10, "10 bytes"}, {1023, "1023 bytes"}, {1 << 10, "1 KiB"}, {1 << 20, "1 MiB"}, {256 << 20, "256 MiB"},
		{1<<20 + 1, "1048577 bytes"}, {1 << 19, "512 KiB"}, {1<<20 + 192<<10, "1216 KiB"}, {8 << 30, "8 GiB"}, {1<<30 + 1<<20, "1025 MiB"},
		{1 << 62, "4294967296 GiB"}} {
		if got := Size(c.n); got != c.want {
			t.Errorf("Size(%d) = %q, want %q", c.n, got, c.want)
		}
	}
	_, err := ReadAll(iotest.OneByteReader(zeros{}), 1<<20, "the file")
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "the file is longer than 1 MiB") {
		t.Errorf("1 MiB cap: %v", err)
	}
}

func TestCappedStopsEndlessInput(t *testing.T) {
	data, err := ReadAll(strings.NewReader("0123456789"), 10, "x")
	if err != nil || string(data) != "0123456789" {
		t.Fatalf("10 bytes, cap 10: %q %v", data, err)
	}
	data, err = ReadAll(strings.NewReader("0123456789!"), 10, "the file")
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "the file is longer than 10 bytes") || len(data) > 10 {
		t.Fatalf("11 bytes, cap 10: %d bytes, %v", len(data), err)
	}
	// An endless input (as /dev/zero) stops at the cap, through Lines too.
	l := NewLines(Capped(iotest.OneByteReader(zeros{}), 1<<16, "zeros"))
	for l.Next() {
	}
	if err := l.Err(); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("endless input: %v", err)
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

func TestLinesMaxNamesTheCap(t *testing.T) {
	l := NewLinesMax(zeros{}, 1000)
	for l.Next() {
	}
	if err := l.Err(); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "line 1 is longer than 1000 bytes") {
		t.Fatalf("endless line: %v", err)
	}
}

// A byte-order mark starts the input only: it is skipped there, and anywhere else
// it is text (U+FEFF, a zero-width no-break space).
func TestLinesSkipByteOrderMark(t *testing.T) {
	for in, want := range map[string][]string{
		BOM + "1 2\n3\n":    {"1", "2"},
		BOM + "# c\n1\n":    {"1"},
		"1\n" + BOM + "2\n": {"1"},
		BOM + BOM + "1\n":   {BOM + "1"},
		"x" + BOM + "1 2\n": {"x" + BOM + "1", "2"},
	} {
		l := NewLines(strings.NewReader(in))
		if !l.Next() || !slices.Equal(l.Fields(), want) {
			t.Errorf("%q: first data line %q, want %q", in, l.Fields(), want)
		}
	}
	l := NewLines(strings.NewReader("1\n" + BOM + "2\n"))
	l.Next()
	if !l.Next() || l.Fields()[0] != BOM+"2" {
		t.Errorf("a mark on line 2 is text: got %q", l.Fields())
	}
}

// Clip keeps short texts, and cuts long ones to at most 120 bytes at a rune's
// start: the result is valid UTF-8 and a prefix of the text, for every cut point
// of 1- to 4-byte runes.
func TestClip(t *testing.T) {
	if got := Clip("short"); got != "short" {
		t.Fatalf("Clip(short) = %q", got)
	}
	if s := strings.Repeat("x", 120); Clip(s) != s {
		t.Fatalf("Clip of 120 bytes changed it")
	}
	for _, r := range []string{"x", "é", "€", "𝄞"} {
		for pad := range 4 {
			s := strings.Repeat("y", pad) + strings.Repeat(r, 200)
			got := Clip(s)
			body, ok := strings.CutSuffix(got, "...")
			if !ok || len(body) > 120 || len(body) < 117 || !utf8.ValidString(got) || !strings.HasPrefix(s, body) {
				t.Errorf("Clip(%d x %q after %d) = %q", 200, r, pad, got)
			}
		}
	}
}

// FirstFew shows the first k items and counts exactly the rest.
func TestFirstFew(t *testing.T) {
	for _, c := range []struct {
		items []string
		k     int
		sep   string
		want  string
	}{
		{nil, 3, ", ", ""},
		{[]string{"a"}, 1, ", ", "a"},
		{[]string{"a", "b"}, 2, "; ", "a; b"},
		{[]string{"a", "b", "c", "d", "e"}, 2, ", ", "a, b, ... 3 more"},
		{[]string{"a", "b"}, 1, "; ", "a; ... 1 more"},
		{[]string{"a", "b"}, 0, ", ", ", ... 2 more"},
	} {
		if got := FirstFew(c.items, c.k, c.sep); got != c.want {
			t.Errorf("FirstFew(%q, %d, %q) = %q, want %q", c.items, c.k, c.sep, got, c.want)
		}
	}
}

// ShellWord leaves a path of literal characters as it is and quotes anything
// else so that bash reads back the same word (checked with bash's printf when
// bash is installed); ShellQuote always quotes.
func TestShellWord(t *testing.T) {
	for _, c := range [][2]string{
		{"/etc/slurm", "/etc/slurm"},
		{"/opt/slurm-26.05/etc", "/opt/slurm-26.05/etc"},
		{"/srv/my slurm", "'/srv/my slurm'"},
		{"it's", `'it'\''s'`},
		{"$HOME", "'$HOME'"},
		{"", "''"},
		{"a*b", "'a*b'"},
	} {
		if got := ShellWord(c[0]); got != c[1] {
			t.Errorf("ShellWord(%q) = %s, want %s", c[0], got, c[1])
		}
		if _, err := exec.LookPath("bash"); err != nil {
			continue
		}
		for _, w := range []string{ShellWord(c[0]), ShellQuote(c[0])} {
			out, err := exec.Command("bash", "-c", "printf %s "+w).Output()
			if err != nil || string(out) != c[0] {
				t.Errorf("bash reads %s as %q (%v), want %q", w, out, err, c[0])
			}
		}
	}
}
func TestEditDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		d    int
	}{
		{"", "", 0}, {"abc", "", 3}, {"", "ab", 2}, {"weight", "wieght", 1},
		{"selecttyp", "selecttype", 1}, {"kitten", "sitting", 3}, {"ca", "abc", 3},
	} {
		if got := EditDistance(c.a, c.b); got != c.d {
			t.Errorf("EditDistance(%q, %q) = %d, want %d", c.a, c.b, got, c.d)
		}
		if got := EditDistance(c.b, c.a); got != c.d {
			t.Errorf("EditDistance(%q, %q) = %d, want %d", c.b, c.a, got, c.d)
		}
	}
}

// Nearest names a near miss of a list's name (the typos a user makes of a command,
// flag, allocator or curve) and nothing for a name far from all of them; the
// first of equally near names wins.
func TestNearest(t *testing.T) {
	cmds := []string{"batch", "bench", "cluster", "compare", "curve", "sim", "sweep"}
	allocs := []string{"mc", "mc1x1", "mc1x1-greedy", "mm", "mminc", "genalg"}
	for _, c := range []struct {
		name  string
		names []string
		want  string
	}{
		{"simm", cmds, "sim"},
		{"bnech", cmds, "bench"},      // a swap
		{"comapre", cmds, "compare"},  // a swap in a long name
		{"clustre", cmds, "cluster"},  // two edits allowed past 5 letters
		{"CURVE", cmds, "curve"},      // case ignored
		{"mc1x2", allocs, "mc1x1"},    // a changed letter
		{"genalgg", allocs, "genalg"}, // an added one
		{"bat", cmds, ""},             // two edits of a short name
		{"plan", cmds, ""},            // nothing near
		{"", cmds, ""},                // empty
		{"mn", allocs, "mc"},          // the first of mc and mm
		{"x", nil, ""},
		{"b", []string{"a", "c"}, ""}, // one letter is near every other
	} {
		if got := Nearest(c.name, c.names); got != c.want {
			t.Errorf("Nearest(%q) = %q, want %q", c.name, got, c.want)
		}
		want := ""
		if c.want != "" {
			want = " (did you mean " + c.want + "?)"
		}
		if got := DidYouMean(c.name, c.names); got != want {
			t.Errorf("DidYouMean(%q) = %q, want %q", c.name, got, want)
		}
	}
	// say writes the name found (a flag with its dashes) or leaves it out (a near
	// miss reported elsewhere): the CLI's flag typos and curve's --format.
	flagName := func(n string) string {
		if len(n) == 1 {
			return "-" + n
		}
		return "--" + n
	}
	network := func(n string) string {
		if strings.HasPrefix(n, "slurm-") {
			return n
		}
		return ""
	}
	formats := []string{"pairs", "ranks", "slurm-weight", "slurm-topology", "slurm-block"}
	for _, c := range []struct {
		name, want string
		names      []string
		say        func(string) string
	}{
		{"trce", " (did you mean --trace?)", []string{"trace", "o"}, flagName},
		{"jj", " (did you mean -j?)", []string{"j", "trace"}, flagName},
		{"slurm-topolgy", " (did you mean slurm-topology?)", formats, network},
		{"paris", "", formats, network}, // pairs is near, and not a network format
		{"nothing-near", "", formats, network},
	} {
		if got := DidYouMean(c.name, c.names, c.say); got != c.want {
			t.Errorf("DidYouMean(%q, say) = %q, want %q", c.name, got, c.want)
		}
	}
}

// CheckStart refuses UTF-16 and gzip by their first bytes and nothing else; the
// lines of a gzip file are refused on line 1, not read as text.
func TestCheckStart(t *testing.T) {
	for _, c := range []struct {
		start string
		want  error
	}{
		{"\xff\xfe", ErrUTF16}, {"\xfe\xff", ErrUTF16}, {"\x1f\x8b", ErrCompressed},
		{"\x1f\x8b\x08\x00", ErrCompressed}, {"", nil}, {"\x1f", nil}, {"n1", nil}, {BOM, nil},
	} {
		if err := CheckStart(c.start); !errors.Is(err, c.want) || (c.want == nil) != (err == nil) {
			t.Errorf("CheckStart(%q) = %v, want %v", c.start, err, c.want)
		}
	}
	l := NewLines(strings.NewReader("\x1f\x8b\x08\x00\x00\x00\x00\x00\n0 1\n"))
	if l.Next() || !errors.Is(l.Err(), ErrCompressed) || !strings.HasPrefix(l.Err().Error(), "line 1: ") {
		t.Errorf("Lines on gzip: %v", l.Err())
	}
}

// A missing file whose name is a shell pattern (merge bunde.shard-*.jsonl before
// any shard ran) says that nothing matches it; other missing names do not, and both
// stay os.ErrNotExist *os.PathErrors.
func TestOpenUnmatchedPattern(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name    string
		pattern bool
	}{{"shard-*.jsonl", true}, {"r?.txt", true}, {"nodes.txt", false}} {
		_, err := Open(dir + "/" + c.name)
		var pe *os.PathError
		if !errors.Is(err, os.ErrNotExist) || !errors.As(err, &pe) {
			t.Errorf("%s: %v, want a not-exist *os.PathError", c.name, err)
		}
		if got := strings.Contains(fmt.Sprint(err), "no file matches the pattern"); got != c.pattern {
			t.Errorf("%s: %v; pattern named %v, want %v", c.name, err, got, c.pattern)
		}
	}
}

// A line with a NUL byte ends Lines with an error naming the line: an edge list's
// "a\x00 b" was the names "a\x00" and "b", a host file's "\x00" a host (a binary
// file read as text). A UTF-16 input, whose NULs are half its bytes, is still
// refused as UTF-16 on line 1.
func TestLinesNUL(t *testing.T) {
	for in, want := range map[string]string{
		"a b\nc\x00 d\n":      "line 2: a NUL byte (byte 2 of the line): not text",
		"# x\n\n\x00\n":       "line 3: a NUL byte (byte 1 of the line)",
		"a b # c\x00\n":       "line 1: a NUL byte (byte 8 of the line)",
		"\xff\xfea\x00 \x00b": "UTF-16",
	} {
		l := NewLines(strings.NewReader(in))
		for l.Next() {
		}
		if err := l.Err(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want an error %q", in, err, want)
		}
	}
}

// TestCountNoun: 1 is singular, every other count plural.
func TestCountNoun(t *testing.T) {
	for n, want := range map[int]string{0: "0 jobs", 1: "1 job", 2: "2 jobs", 11: "11 jobs", -1: "-1 jobs"} {
		if got := CountNoun(n, "job"); got != want {
			t.Errorf("CountNoun(%d, job) = %q, want %q", n, got, want)
		}
	}
}
