package textin

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"unicode/utf8"
)

// MaxLine is the longest line a Lines reads (a node list may put every node on one
// line); the buffer grows to it only when a line needs it.
const MaxLine = 1 << 30

// LineError is a malformed line or record of a text input: its 1-based line, its
// text (clipped by Clip) and what is wrong. Traces (sim.ParseError) and sacct
// output (slurm.SacctLineError) report with it.
type LineError struct {
	Line int    // 1-based
	Text string // the line's text, clipped (Clip)
	Err  error  // what is wrong with it
}

// Error returns `line N: ERR: "TEXT"`.
func (e *LineError) Error() string {
	return fmt.Sprintf("line %d: %v: %q", e.Line, e.Err, e.Text)
}

// Unwrap returns Err.
func (e *LineError) Unwrap() error { return e.Err }

// FirstFew joins the first k items with sep and counts the rest: "a, b, ... 3
// more". The one way messages shorten a long list.
func FirstFew(items []string, k int, sep string) string {
	if len(items) <= k {
		return strings.Join(items, sep)
	}
	return fmt.Sprintf("%s%s... %d more", strings.Join(items[:k], sep), sep, len(items)-k)
}

// CountNoun is a count and its noun, singular for 1: "1 job", "2 jobs" (a noun
// whose plural adds s). The one way messages count things.
func CountNoun(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// ShellQuote writes s as one shell word: in single quotes, a single quote inside
// written as close quote, backslash and quote, open quote.
func ShellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// ShellWord is s as one shell word, quoted (ShellQuote) only when it holds a
// character the shell does not take literally: "/etc/slurm" as it is, "/srv/my
// conf" quoted.
func ShellWord(s string) string {
	if s != "" && !strings.ContainsFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+,:@%=", r))
	}) {
		return s
	}
	return ShellQuote(s)
}

// Clip is a line's text (or a token of it) as an error quotes it: at most 120
// bytes, cut at a rune's start so that the message stays valid UTF-8, then "...".
func Clip(s string) string {
	if len(s) <= 120 {
		return s
	}
	cut := 120
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}

// StripComment returns s without its comment ('#' to the end).
func StripComment(s string) string {
	if i := strings.IndexByte(s, '#'); i >= 0 {
		return s[:i]
	}
	return s
}

// Fields returns the whitespace-separated fields of a line without its comment.
func Fields(s string) []string { return strings.Fields(StripComment(s)) }

// Lines reads the data lines of r: Next skips blank and comment-only lines.
type Lines struct {
	sc      *bufio.Scanner
	maxLine int
	line    int
	text    string
	fields  []string
	err     error // ends Next before the scanner does (a UTF-16 input)
}

// NewLines returns a reader of the data lines of r.
func NewLines(r io.Reader) *Lines { return NewLinesMax(r, MaxLine) }

// NewLinesMax is NewLines for a format whose lines are at most maxLine bytes: a
// longer line is an error (bufio.ErrTooLong) before its buffer grows further.
func NewLinesMax(r io.Reader, maxLine int) *Lines {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, min(64*1024, maxLine)), maxLine)
	return &Lines{sc: sc, maxLine: maxLine}
}

// BOM is the UTF-8 byte-order mark some editors (Windows Notepad) put at the start
// of a text file: an encoding mark, no part of the text.
const BOM = "\uFEFF"

// Next advances to the next line with data and reports whether there is one. A BOM
// at the start of the input is skipped: it would otherwise be part of the first
// name or number (a host name "\uFEFFn01", "\uFEFF0" not a number). A line with a
// NUL byte ends the lines with an error naming it (Err): no text holds one, and an
// edge list's names, a host file's names were read with it.
func (l *Lines) Next() bool {
	if l.err != nil {
		return false
	}
	for l.sc.Scan() {
		l.line++
		text := l.sc.Text()
		if l.line == 1 {
			if err := CheckStart(text); err != nil {
				l.err = fmt.Errorf("line 1: %w", err)
				return false
			}
			text = strings.TrimPrefix(text, BOM)
		}
		if i := strings.IndexByte(text, 0); i >= 0 {
			// No text holds a NUL: a binary file (a core dump, an executable,
			// an archive) whose bytes were read as names or numbers.
			// A line the scanner cut at a read error (a cap reached: /dev/zero)
			// is reported by that error (Err).
			if l.sc.Err() == nil {
				l.err = fmt.Errorf("line %d: a NUL byte (byte %d of the line): not text (a binary file?)", l.line, i+1)
			}
			return false
		}
		l.text = StripComment(text)
		if l.fields = strings.Fields(l.text); len(l.fields) > 0 {
			return true
		}
	}
	return false
}

// Line returns the 1-based number of the current line.
func (l *Lines) Line() int { return l.line }

// Text returns the current line without its comment.
func (l *Lines) Text() string { return l.text }

// Fields returns the whitespace-separated fields of the current line.
func (l *Lines) Fields() []string { return l.fields }

// Err returns the read error that ended Next, naming the line it happened on, or nil
// at the end of the input.
func (l *Lines) Err() error {
	if l.err != nil {
		return l.err
	}
	return ScanErr(l.sc.Err(), l.line+1, l.maxLine)
}

// ErrUTF16 is wrapped by the error of a text input in UTF-16.
var ErrUTF16 = errors.New("UTF-16 text")

// StartLen is how much of an input's start CheckStart looks at.
const StartLen = 10

// CheckStart is an error when start, the start of a text input (its first StartLen
// bytes, or all of a shorter input), is not UTF-8 text as far as they tell, nil
// otherwise: wrapping ErrUTF16 when it begins with a UTF-16 byte-order mark (FF FE
// or FE FF: Windows programs' "Unicode" export), ErrCompressed with the magic bytes
// of gzip, bzip2, xz or zstd. procalloc reads UTF-8; read as bytes, such a file's
// first name or number was "\xff\xfe0\x00", or 100 bytes of compressed data, a
// message no user recognises. Readers of procalloc's own inputs read gzip and
// bzip2 through Decompress first (which leaves them no compressed start to see);
// readers of Slurm's files add why they do not (Slurm reads them uncompressed).
func CheckStart(start string) error {
	if strings.HasPrefix(start, "\xff\xfe") || strings.HasPrefix(start, "\xfe\xff") {
		return fmt.Errorf("the input is %w (it starts with the byte-order mark % X); save it as UTF-8", ErrUTF16, start[:2])
	}
	return checkCompressedStart(start)
}

// ScanErr is the error of a bufio.Scanner that stopped with err on the 1-based line
// (nil when err is nil). A line beyond the scanner's buffer of maxLine bytes is said
// as such, wrapping ErrTooLarge, not as bufio's "token too long", which names neither
// the line nor the limit. Readers that scan lines themselves (traces, sacct output,
// ibnetdiscover, node-name-maps, hostlists on stdin) report with it.
// A *CompressedError names its line itself and is returned as it is.
func ScanErr(err error, line, maxLine int) error {
	if err == nil {
		return nil
	}
	if ce := (*CompressedError)(nil); errors.As(err, &ce) {
		return err
	}
	if errors.Is(err, bufio.ErrTooLong) {
		return fmt.Errorf("line %d is longer than %s, the most this format's lines may be: %w", line, Size(int64(maxLine)), ErrTooLarge)
	}
	return fmt.Errorf("line %d: %w", line, err)
}

// Open opens the input file path, refusing a directory: os.Open opens one on Unix
// and only its first read fails, which a reader then reported as a read error on
// line 1 ("adir: line 1: read adir: is a directory"). The refusal is a
// *os.PathError wrapping syscall.EISDIR, like os.Open's own errors: "open adir: is
// a directory", as a missing file is "open adir: no such file or directory". A
// missing name with * or ? says that no file matches it, as a pattern (wrapping the
// *os.PathError).
func Open(path string) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) && strings.ContainsAny(path, "*?") {
			// merge bunde.shard-*.jsonl before any shard was written: the shell
			// passes a pattern that matches nothing as it is.
			return nil, fmt.Errorf("%w (no file matches the pattern, which the shell passed as it was)", err)
		}
		return nil, err
	}
	if st, err := f.Stat(); err == nil && st.IsDir() {
		f.Close()
		return nil, &os.PathError{Op: "open", Path: path, Err: syscall.EISDIR}
	}
	return f, nil
}

// OpenInput opens the input path as Open does, except that "-" is stdin when stdin
// is not nil (its Close does nothing: standard input stays open); with stdin nil,
// "-" is a file's name. It is the one place where procalloc's readers (a command's
// input, a replay's files, a --graph file) turn "-" into standard input.
func OpenInput(path string, stdin io.Reader) (io.ReadCloser, error) {
	if path == "-" && stdin != nil {
		return io.NopCloser(stdin), nil
	}
	f, err := Open(path)
	if err != nil {
		return nil, err // not a nil *os.File in an interface
	}
	return f, nil
}

// ErrTooLarge is wrapped by the error of an input longer than its cap.
var ErrTooLarge = errors.New("input too large")

// Capped returns a reader of r that fails with an error wrapping ErrTooLarge once r
// has more than max bytes: a reader of a bounded format (a ranking of n nodes) then
// stops on /dev/zero or an endless pipe instead of exhausting memory, and never
// takes a cut input as whole.
func Capped(r io.Reader, max int64, what string) io.Reader {
	return &capped{r: r, left: max, max: max, what: what}
}

type capped struct {
	r         io.Reader
	left, max int64
	what      string
}

func (c *capped) Read(p []byte) (int, error) {
	if c.left < 0 {
		return 0, c.err()
	}
	if int64(len(p)) > c.left+1 {
		p = p[:c.left+1]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	if c.left < 0 {
		return n + int(c.left), c.err()
	}
	return n, err
}

func (c *capped) err() error {
	return fmt.Errorf("%s is longer than %s: %w", c.what, Size(c.max), ErrTooLarge)
}

// Size says a cap in bytes in the largest unit it is a whole number of: "8 GiB",
// "256 MiB", "1216 KiB", else "1000 bytes". Every cap of an input is said with it
// (a file's, a line's, a results file's).
func Size(n int64) string {
	for _, u := range []struct {
		shift uint
		name  string
	}{{30, "GiB"}, {20, "MiB"}, {10, "KiB"}} {
		if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			return fmt.Sprintf("%d %s", n>>u.shift, u.name)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}

// ReadAll reads r whole (see Capped): more than max bytes is an error. When r
// tells its length (a bytes.Reader, also inside ContextReader) the buffer is made
// that size once, not grown by doubling (an 8 MB topology.conf cost 25 MB of
// buffers; docs/reliability.md, wt-readmem).
func ReadAll(r io.Reader, max int64, what string) ([]byte, error) {
	n := lenHint(r)
	if n <= 0 || n >= max {
		return io.ReadAll(Capped(r, max, what))
	}
	cr := Capped(r, max, what)
	b := make([]byte, 0, n+1) // one more, so that EOF comes without growing
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		m, err := cr.Read(b[len(b):cap(b)])
		b = b[:len(b)+m]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}

// lenHint is the bytes left in r when r tells them, else 0.
func lenHint(r io.Reader) int64 {
	switch v := r.(type) {
	case contextReader:
		return lenHint(v.r)
	case interface{ Len() int }:
		return int64(v.Len())
	}
	return 0
}

// ContextReader returns r ending with ctx's cause once ctx ends (looked at before
// each Read): a job history of millions of lines (procalloc plan at 10^5 hosts,
// docs/plan.md) or a topology.conf of 10^5 hosts is read for a second or more before
// any work that looks at ctx begins, and Ctrl-C then waited for the CLI's watchdog.
func ContextReader(ctx context.Context, r io.Reader) io.Reader { return contextReader{ctx, r} }

type contextReader struct {
	ctx context.Context
	r   io.Reader
}

func (c contextReader) Read(p []byte) (int, error) {
	if c.ctx.Err() != nil {
		return 0, context.Cause(c.ctx)
	}
	return c.r.Read(p)
}

// Nearest returns the name of names nearest to name when it is a near miss, for a
// "did you mean" hint: at most one edit (a letter added, dropped, changed, or two
// neighbours swapped) for names of up to 5 letters, two for longer ones, case
// ignored; ties go to the first in names. "" when none is near, or when name has
// fewer than two letters (one letter is one edit from every other: -j is no typo
// of -o). Slurm's keys, the commands, their flags, allocators, curves and machine
// kinds use it.
func Nearest(name string, names []string) string {
	if len(name) < 2 {
		return ""
	}
	limit := 1
	if len(name) > 5 {
		limit = 2
	}
	lower := strings.ToLower(name)
	best, bestD := "", limit+1
	for _, n := range names {
		// The distance is at least the difference in length: without this test a
		// 2 MB key took 16 s of CPU against slurm.conf's 700 keys.
		if d := len(name) - len(n); d > limit || -d > limit {
			continue
		}
		if d := EditDistance(lower, strings.ToLower(n)); d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

// EditDistance is the optimal string alignment distance of a and b (insertions,
// deletions, substitutions and swaps of neighbours, each 1), by bytes.
func EditDistance(a, b string) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// DidYouMean is Nearest for a message: " (did you mean NAME?)", or "". Given
// say, the nearest name is written as say writes it, and say's "" gives no hint:
// a flag is matched by its name and written with its dashes (--trace, -o), and a
// near miss among names that is reported elsewhere is left out (curve's --format
// matches ranking and network formats alike, and hints only at network ones: a
// ranking format's near miss is in curves.ParseFormat's error).
func DidYouMean(name string, names []string, say ...func(string) string) string {
	n := Nearest(name, names)
	for _, s := range say {
		if n != "" {
			n = s(n)
		}
	}
	if n != "" {
		return " (did you mean " + n + "?)"
	}
	return ""
}
