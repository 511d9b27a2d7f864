package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/internal/textin"
)

// inputName is what messages call input path: the path, and for standard input
// "-", as the user wrote it. Every message naming an input names it through
// inputName (some said "stdin", most "-").
func inputName(path string) string {
	if path == "-" {
		return "-"
	}
	return path
}

// openInput opens a named input file, or standard input for "-".
func openInput(e *env, path string) (io.ReadCloser, error) {
	if path == "" {
		return nil, usagef("no input file given")
	}
	return textin.OpenInput(path, e.stdin)
}

// stdinUntil returns standard input r read so that ctx's end ends a read that is
// waiting for data: each Read runs r's in a goroutine (into a buffer of its own)
// and returns ctx's cause as soon as ctx ends, leaving that read behind. A read of
// a pipe that sends nothing ("sleep 30 | procalloc hostlist compress", "sim
// --trace -" fed by a stalled job) blocks in the kernel until data comes; looking
// at ctx before each read (textin.ContextReader) never got there, and Ctrl-C
// waited for the watchdog's 2 s ("still running 2s after the interrupt: stopped").
// run gives every command its standard input through it, the one place commands
// get it (openInput's "-", --graph -, sweep -, evaluate's and hostlist's reads).
// A file is read as before (its reads never wait).
//
// Given a reader of its own, it returns the same input under ctx alone, sharing
// the first one's state: plan reads standard input under its time limit (a
// context derived from run's), and a test may run two commands with one env. A
// read left behind is taken over by the next Read of either reader, never a
// second one started beside it: its bytes are handed on, not lost, and standard
// input is never read twice at once. So at most one goroutine per input is ever
// left waiting; it ends when the process does, or when r is closed (tests).
func stdinUntil(ctx context.Context, r io.Reader) io.Reader {
	if r == nil {
		return nil
	}
	if a, ok := r.(*abandonableReader); ok {
		return &abandonableReader{ctx: ctx, s: a.s}
	}
	return &abandonableReader{ctx: ctx, s: &stdinState{r: r}}
}

// abandonableReader is stdinUntil's reader. Like any reader, it is read by one
// goroutine at a time (and so are the readers that share its state).
type abandonableReader struct {
	ctx context.Context
	s   *stdinState
}

// stdinState is the input of one or more abandonableReaders.
type stdinState struct {
	r       io.Reader
	buf     []byte          // the reads' buffer, reused while nothing of it waits in rest
	pending chan readResult // the read under way, left behind by a cancelled Read; nil when none
	rest    []byte          // bytes read and not handed on yet (a read longer than the Read that took it over)
	restErr error           // the error that came with them
}

// maxStdinRead bounds one read's buffer (io.ReadAll asks for ever larger ones).
const maxStdinRead = 1 << 20

type readResult struct {
	n   int
	err error
}

func (a *abandonableReader) Read(p []byte) (int, error) {
	if a.ctx.Err() != nil {
		return 0, context.Cause(a.ctx)
	}
	if len(p) == 0 {
		return 0, nil
	}
	s := a.s
	if len(s.rest) > 0 {
		n := copy(p, s.rest)
		s.rest = s.rest[n:]
		if len(s.rest) > 0 {
			return n, nil
		}
		err := s.restErr
		s.rest, s.restErr = nil, nil
		return n, err
	}
	if s.pending == nil {
		n := min(len(p), maxStdinRead)
		if cap(s.buf) < n {
			s.buf = make([]byte, n)
		}
		buf := s.buf[:n]
		done := make(chan readResult, 1)
		go func() {
			n, err := s.r.Read(buf)
			done <- readResult{n, err}
		}()
		s.pending = done
	}
	select {
	case res := <-s.pending:
		s.pending = nil
		n := copy(p, s.buf[:res.n])
		if n < res.n { // a read left behind was larger than p
			s.rest, s.restErr = s.buf[n:res.n], res.err
			s.buf = nil // rest holds on to it
			return n, nil
		}
		return n, res.err
	case <-a.ctx.Done():
		return 0, context.Cause(a.ctx) // the read stays pending, for the next Read
	}
}

// writeFileAtomic is writeOutputs for a command's one output, -o (standard output
// for an empty path).
func writeFileAtomic(e *env, path string, write func(w io.Writer) error) error {
	return writeOutputs(e, namedOutput{"-o", path, write})
}

func writeJSON(w io.Writer, v any) error {
	beginOutput()
	defer endOutput()
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if len(b) <= maxIndentedJSON {
		var ib bytes.Buffer
		if err := json.Indent(&ib, b, "", "  "); err != nil {
			return err
		}
		b = ib.Bytes()
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// maxIndentedJSON is the largest JSON document written indented for people; a
// larger one (the ordering of a 4-million-node mesh) is for programs and is
// written compact: indenting it, one array element per line, took 3 s, longer
// than an interrupt may take to print the result.
const maxIndentedJSON = 4 << 20

// intList is a list of integers that encodes itself as a compact JSON array
// quickly (encoding/json's reflection took most of a second for 4 million).
type intList []int

func (l intList) MarshalJSON() ([]byte, error) {
	if l == nil {
		return []byte("null"), nil
	}
	b := make([]byte, 0, 2+8*len(l))
	b = append(b, '[')
	for i, v := range l {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(v), 10)
	}
	return append(b, ']'), nil
}

// table writes aligned columns, right-aligned, every line without trailing
// blanks. A row may leave its last cells empty (plan's unsupported
// deployments): tabwriter still pads them to the column width, and cutting
// the cells off the row instead would end the column block and misalign the
// rows after it, so the padding is dropped on the way out (trimBlanks).
type table struct{ tw *tabwriter.Writer }

func newTable(w io.Writer, header ...string) *table {
	t := &table{tw: tabwriter.NewWriter(&trimBlanks{w: w}, 2, 8, 2, ' ', tabwriter.AlignRight)}
	t.row(header...)
	return t
}

func (t *table) row(cells ...string) { fmt.Fprintln(t.tw, strings.Join(cells, "\t")+"\t") }
func (t *table) flush() error        { return t.tw.Flush() }

// trimBlanks passes text on without the spaces that end its lines: it holds a
// run of spaces back until the next byte shows whether the line goes on.
type trimBlanks struct {
	w      io.Writer
	spaces int // held back
	buf    []byte
}

func (t *trimBlanks) Write(p []byte) (int, error) {
	t.buf = t.buf[:0]
	for _, c := range p {
		switch c {
		case ' ':
			t.spaces++
			continue
		case '\n':
			t.spaces = 0
		}
		for ; t.spaces > 0; t.spaces-- {
			t.buf = append(t.buf, ' ')
		}
		t.buf = append(t.buf, c)
	}
	if _, err := t.w.Write(t.buf); err != nil {
		return 0, err
	}
	return len(p), nil
}

// isTerminal says whether f is a terminal. A character device is not enough:
// 2>/dev/null is one, and the progress bar was drawn into it.
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		return false
	}
	return isTTY(f)
}

// progress draws a one-line bar on stderr when it is a terminal, and only once the
// work has taken more than a second; otherwise it prints nothing.
type progress struct {
	w       io.Writer
	on      bool
	label   string
	total   int64
	start   time.Time
	last    time.Time
	visible bool
}

func newProgress(e *env, label string, total int64) *progress {
	return &progress{w: e.stderr, on: e.stderrIsTTY, label: label, total: total, start: time.Now()}
}

// Update reports done units of total, with an optional status text.
func (p *progress) Update(done int64, status string) {
	if !p.on {
		return
	}
	now := time.Now()
	if now.Sub(p.start) < time.Second || now.Sub(p.last) < 100*time.Millisecond {
		return
	}
	p.last = now
	p.visible = true
	const width = 30
	bar := ""
	if p.total > 0 {
		filled := int(int64(width) * min(done, p.total) / p.total)
		bar = fmt.Sprintf("[%s%s] %3d%% ", strings.Repeat("=", filled), strings.Repeat(" ", width-filled), 100*min(done, p.total)/p.total)
	}
	elapsed := now.Sub(p.start)
	eta := ""
	if p.total > 0 && done > 0 && done < p.total {
		left := time.Duration(float64(elapsed) * float64(p.total-done) / float64(done))
		eta = ", ETA " + left.Round(time.Second).String()
	}
	fmt.Fprintf(p.w, "\r\033[K%s %s%s %.0fs%s", p.label, bar, status, elapsed.Seconds(), eta)
}

// ticking redraws the bar with status every 200 ms until stop, for work that
// reports no progress of its own (an exact search, a curve): the elapsed time
// shows the command is alive. stop waits for the last redraw and clears the bar.
func (p *progress) ticking(status string) (stop func()) {
	return p.tickingAt(0, status)
}

// tickingAt is ticking for one step of counted work (done of the total finished):
// evaluate's scoring of a curve, seconds on a large edge list, showed no bar.
func (p *progress) tickingAt(done int64, status string) (stop func()) {
	return p.live(func() (int64, string) { return done, status })
}

// live redraws the bar every 200 ms from state, the units done and the status
// text, until stop, which waits for the last redraw and clears the bar. Work that
// reports its own progress calls state's source cheaply and often (a replay after
// every job) and the bar still moves while one step takes long: a replay whose
// first decision took minutes showed nothing when the bar was drawn only from
// the replay's own calls.
func (p *progress) live(state func() (int64, string)) (stop func()) {
	if !p.on {
		return func() {}
	}
	quit, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
				done, status := state()
				p.Update(done, status)
			}
		}
	}()
	return func() {
		close(quit)
		<-finished
		p.Done()
	}
}

// Done clears the bar.
func (p *progress) Done() {
	if p.visible {
		fmt.Fprint(p.w, "\r\033[K")
	}
}

// decompressHint is the command line that reads an input procalloc does not
// decompress itself (xz, zstd: textin.CompressedStartError) through standard
// input, for err, the error of the command line args (the command's name first):
// "xz -dc f.ibnet.xz | procalloc curve --graph - --curve rcm". The input is the
// argument (or --flag=VALUE's value) err names whose file starts with the
// format's magic bytes; given as "-", the decompressor goes into the pipe. When
// another argument reads standard input already, the file is decompressed to a
// file first; so is a file named inside an argument (bf:FILE, paging:FILE:0). ""
// when err is another error, or names no argument.
func decompressHint(err error, args []string) string {
	return decompressHintTo(err, args, false)
}

// decompressHintTo is decompressHint, giving with toFile the command that
// decompresses the input to a file first, where no standard input reaches the
// command (a sweep's item: sweepItemError).
func decompressHintTo(err error, args []string, toFile bool) string {
	var cs *textin.CompressedStartError
	if !errors.As(err, &cs) || cs.Read || len(args) == 0 {
		return ""
	}
	msg := err.Error()
	// value is the input argument a names: FILE of "--flag=FILE", or a itself.
	value := func(a string) (prefix, v string) {
		if strings.HasPrefix(a, "-") && strings.Contains(a, "=") {
			i := strings.IndexByte(a, '=')
			return a[:i+1], a[i+1:]
		}
		return "", a
	}
	// isInput reports whether the file named path starts as cs's format does.
	isInput := func(path string) bool {
		f, err := os.Open(path)
		if err != nil {
			return false
		}
		head := make([]byte, textin.StartLen)
		n, _ := io.ReadFull(f, head)
		f.Close()
		format, _, _ := textin.Compression(string(head[:n]))
		return format == cs.Format
	}
	stdinUsed, at, inSpec := false, -1, ""
	for i, a := range args[1:] {
		_, v := value(a)
		if v == "-" {
			stdinUsed = true
			if strings.Contains(msg, "-: ") {
				at = i + 1
			}
			continue
		}
		if at >= 0 || v == "" {
			continue
		}
		if strings.Contains(msg, v) && isInput(v) {
			at = i + 1
			continue
		}
		// A file named inside an argument, after a colon: bf:FILE, paging:FILE:0.
		for j := range len(v) {
			if v[j] != ':' {
				continue
			}
			file, _, _ := strings.Cut(v[j+1:], ":")
			if file != "" && strings.Contains(msg, file) && isInput(file) {
				at, inSpec = i+1, file
				break
			}
		}
	}
	if at < 0 {
		return ""
	}
	words := func(args []string) string {
		w := make([]string, len(args))
		for i, a := range args {
			w[i] = textin.ShellWord(a)
		}
		return "procalloc " + strings.Join(w, " ")
	}
	prefix, file := value(args[at])
	if inSpec != "" {
		// No standard input inside an argument: the file is decompressed first.
		_, plain := textin.CompressedName(inSpec)
		if plain == inSpec {
			plain += ".txt"
		}
		again := slices.Clone(args)
		again[at] = prefix + strings.Replace(file, inSpec, plain, 1)
		return fmt.Sprintf("decompress it to a file first: %s %s > %s && %s", cs.Pipe, textin.ShellWord(inSpec), textin.ShellWord(plain), words(again))
	}
	if file == "-" {
		return fmt.Sprintf("put %s into the pipe: ... | %s | %s", cs.Pipe, cs.Pipe, words(args))
	}
	again := slices.Clone(args)
	if !stdinUsed && !toFile {
		again[at] = prefix + "-"
		// A ranking file's format may come from its name (r.ranks.xz: ranks), which
		// standard input has not: say it.
		flagName := strings.TrimSuffix(prefix, "=")
		if flagName == "" && at > 1 {
			flagName = args[at-1]
		}
		if f, ok := curves.ReadFormatFromPath(file); ok && f != curves.FormatJSONOrJGF && slices.Contains([]string{"--curve", "-curve", "--ranking", "-ranking"}, flagName) &&
			!slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(strings.TrimLeft(a, "-"), "ranking-format") }) {
			again = append(again, "--ranking-format", string(f))
		}
		return fmt.Sprintf("read it through standard input: %s %s | %s", cs.Pipe, textin.ShellWord(file), words(again))
	}
	_, plain := textin.CompressedName(file)
	if plain == file {
		plain += ".txt"
	}
	again[at] = prefix + plain
	why := "standard input is taken: "
	if toFile {
		why = ""
	}
	return fmt.Sprintf("%sdecompress it to a file first: %s %s > %s && %s", why, cs.Pipe, textin.ShellWord(file), textin.ShellWord(plain), words(again))
}
