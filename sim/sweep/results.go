package sweep

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/procalloc/procalloc/internal/buildid"
	"github.com/procalloc/procalloc/internal/textin"
	"github.com/procalloc/procalloc/sim"
)

// Status is how an item ended.
type Status string

// The statuses of an item.
const (
	StatusOK     Status = "ok"     // it ran; Line.Result is its report
	StatusFailed Status = "failed" // it failed; Line.Error says why, a rerun retries it
)

// String returns the status's name.
func (s Status) String() string { return string(s) }

// ParseStatus reads a status's name.
func ParseStatus(s string) (Status, error) {
	switch Status(s) {
	case StatusOK, StatusFailed:
		return Status(s), nil
	}
	return "", fmt.Errorf("item status %q: want ok or failed", s)
}

// BuildName is the build that ran the line's item: Build, or buildid.Unknown
// for a line written before lines named it.
func (l *Line) BuildName() string {
	if l.Build == "" {
		return buildid.Unknown
	}
	return l.Build
}

// Line is one line of a results file.
type Line struct {
	Sweep string `json:"sweep"` // the sweep's Name
	// SweepID tells apart sweeps of one name (two sweep.yaml in different folders):
	// Spec.ID of the sweep that wrote the line; "" in files written before it.
	SweepID string `json:"sweep_id,omitempty"`
	// Build names the procalloc build that ran the item (buildid.ID: "git:REV",
	// "git:REV+dirty:EXE", a module version or "exe:EXE"); "" in files written
	// before lines named it, which merge counts as buildid.Unknown. Merge keeps it.
	Build  string          `json:"build,omitempty"`
	Item                   // index, key, params
	Status Status          `json:"status"`           // ok or failed
	Error  string          `json:"error,omitempty"`  // why the item failed; "" when ok
	Result json.RawMessage `json:"result,omitempty"` // the replay's JSON (sim --json)
	// Seconds is the item's wall-clock time; merged files leave it out, so that they
	// do not depend on the machine or the run.
	Seconds float64 `json:"seconds,omitempty"`
	// AllocTime is the allocator's own time in the item's replay (its report's
	// alloc_time, taken out of Result like seconds); merged files leave it out.
	AllocTime *sim.AllocTime `json:"alloc_time,omitempty"`
	// Warnings are what the item's files hold that is accepted but worth saying
	// (sim.Report.Warnings); not written to the results file.
	Warnings []sim.Warning `json:"-"`
}

// ResultJSON is the result of a results line for a replay's report: the report's
// JSON ("procalloc sim --json") without its wall-clock seconds, so that the result
// depends only on the item (and merged files only on the sweep), and with its
// top-level keys sorted, as results files have always had them.
func ResultJSON(rep *sim.Report) (json.RawMessage, error) {
	b, err := json.Marshal(rep)
	if err != nil {
		return nil, err
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(b, &keys); err != nil {
		return nil, err
	}
	delete(keys, "seconds")
	delete(keys, "alloc_time")
	return json.Marshal(keys) // encoding/json writes a map's keys sorted
}

// NewLine is the results line of item it of sweep name: ok with its report's
// result, or failed with err. Seconds is the item's wall-clock time.
func NewLine(name string, it Item, rep *sim.Report, err error, seconds float64) Line {
	l := Line{Sweep: name, Item: it, Seconds: seconds}
	if err == nil {
		l.Result, err = ResultJSON(rep)
		l.AllocTime, l.Warnings = rep.AllocTime, rep.Warnings
	}
	if err != nil {
		l.Status, l.Error, l.Result = StatusFailed, err.Error(), nil
		return l
	}
	l.Status = StatusOK
	return l
}

// Results is a results file open for appending.
//
// A regular file is locked (flock) while it is open, so that two sweeps never
// write one file at the same time: the second is refused with ErrLocked. Lines are
// appended (O_APPEND) whole, each in one write, and synced to disk one by one.
// A path that is not a regular file (/dev/null, a FIFO, a terminal) is written
// through: nothing is read back (there is no resuming), nothing locked or synced.
type Results struct {
	f *os.File
	// Done are the finished items by key (ok ones; failed ones are redone), their
	// Result left out (a resumed run needs only to know them).
	Done map[string]Line
	// Damaged are the line numbers of lines skipped as damaged (cut short or
	// spliced, as a crash or writers without the lock leave them): their items
	// are redone unless another line has them.
	Damaged []int
	// Cut is the number of the first line of the torn or damaged block cut off the
	// end (0 when none): a write cut short by a kill or a full disk; CutLines is how
	// many lines that block had. Their items are redone.
	Cut, CutLines int
	// NoLock is why the file could not be locked (a file system without flock,
	// such as Lustre mounted without -o flock), nil when it is locked: concurrent
	// runs on this file are then not detected.
	NoLock error
	// Stream is set when the path is not a regular file and is written through.
	Stream bool

	path    string
	size    int64 // the file's length after the last whole line
	err     error // the first failed write: later appends fail with it
	created bool  // OpenResults created the file
}

// ErrOtherSweep is wrapped when a results file holds lines of another sweep.
var ErrOtherSweep = errors.New("results of another sweep")

// ErrLocked is wrapped when another process holds the lock of a results file.
var ErrLocked = errors.New("another process is writing this results file (a procalloc sweep holds its lock)")

// OpenResults opens (or creates) a results file for sweep name and locks it: it
// reads the lines already there, cuts off a torn last line (a write that was
// interrupted) so that its item is redone, skips damaged lines (their items are
// redone too), and refuses a file of another sweep, a file in which no line is a
// results line (not one this command wrote), and a file another sweep holds
// (ErrLocked). Lines are at most MaxLineBytes long, files at most MaxResultsBytes.
func OpenResults(path, name string) (*Results, error) {
	_, statErr := os.Lstat(path)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o666)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	r := &Results{f: f, Done: map[string]Line{}, path: path, created: errors.Is(statErr, fs.ErrNotExist)}
	if !fi.Mode().IsRegular() {
		r.Stream = true
		return r, nil
	}
	if err := flock(f); err != nil {
		switch {
		case errors.Is(err, syscall.EWOULDBLOCK):
			f.Close()
			return nil, fmt.Errorf("%s: %w", path, ErrLocked)
		case errors.Is(err, syscall.ENOSYS), errors.Is(err, syscall.EOPNOTSUPP), errors.Is(err, syscall.ENOLCK):
			r.NoLock = err
		default:
			f.Close()
			return nil, fmt.Errorf("%s: lock: %w", path, err)
		}
	}
	lr := newLineReader(f, path)
	var badStart int64 = -1 // where the damaged or unterminated lines at the end begin
	badLine, good, firstJunk := 0, 0, 0
	var blankTail int64 = -1 // where an unterminated blank last line begins
	for {
		start := lr.off
		raw, terminated, err := lr.next()
		if err == io.EOF {
			break
		}
		var cs *textin.CompressedStartError
		if errors.As(err, &cs) {
			f.Close()
			_, plain := textin.CompressedName(path)
			if plain == path { // old.jsonl: old.plain.jsonl
				ext := filepath.Ext(path)
				plain = strings.TrimSuffix(path, ext) + ".plain" + ext
			}
			return nil, fmt.Errorf("%s is %s-%w (it starts with % X): a sweep appends plain lines to its results file and reads them back to resume, and does not write into a compressed one: decompress it (%s %s > %s) and give -o %s, or give -o a new file and merge the two (merge reads compressed results files)",
				path, cs.Format, textin.ErrCompressed, cs.Magic, cs.Pipe, textin.ShellWord(path), textin.ShellWord(plain), textin.ShellWord(plain))
		}
		if err != nil {
			f.Close()
			return nil, err
		}
		l, kind := parseLine(raw)
		if kind == lineJunk && firstJunk == 0 {
			firstJunk = lr.n
		}
		switch {
		case kind == lineBlank && !terminated:
			// White space without a newline at the end ("\v", found by
			// FuzzSweepResultsFile): cut off without a word, or the next line
			// would be appended to it, "\v{...}", which is not JSON.
			blankTail = start
			continue
		case kind == lineBlank:
			continue
		case kind == lineDamaged || kind == lineJunk || !terminated:
			if badStart < 0 {
				badStart, badLine = start, lr.n
			}
			r.Damaged = append(r.Damaged, lr.n)
			continue
		}
		if l.Sweep != name {
			f.Close()
			return nil, fmt.Errorf("%s holds results of sweep %q, not %q: %w", path, l.Sweep, name, ErrOtherSweep)
		}
		badStart = -1
		good++
		if l.Status == StatusOK {
			l.Result = nil
			r.Done[l.Key] = l
		}
	}
	if good == 0 && firstJunk > 0 {
		f.Close()
		return nil, fmt.Errorf("%s: line %d is not a results line, and no line is: not a results file of procalloc sweep, not appending to it (is -o the right file?)", path, firstJunk)
	}
	r.size = lr.off
	if badStart < 0 && blankTail >= 0 {
		if err := f.Truncate(blankTail); err != nil {
			f.Close()
			return nil, fmt.Errorf("%s: cutting off the unterminated blank last line: %w", path, err)
		}
		r.size = blankTail
	}
	if badStart >= 0 {
		// Damaged lines at the end are what a crash leaves: cut them off, so that
		// the next line starts a line of its own.
		if err := f.Truncate(badStart); err != nil {
			f.Close()
			return nil, fmt.Errorf("%s: cutting off the torn line %d: %w", path, badLine, err)
		}
		r.size = badStart
		r.Cut = badLine
		for len(r.Damaged) > 0 && r.Damaged[len(r.Damaged)-1] >= badLine {
			r.Damaged = r.Damaged[:len(r.Damaged)-1]
			r.CutLines++
		}
	}
	return r, nil
}

// flock takes the file's exclusive lock without waiting.
func flock(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err != syscall.EINTR {
			return err
		}
	}
}

// Append writes one line whole (one write call) and, for a regular file, flushes
// it to disk. A failed write (a full disk) is cut back off the file and returned,
// and every later Append returns it too.
func (r *Results) Append(l Line) error {
	if r.err != nil {
		return r.err
	}
	b, err := json.Marshal(l)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	n, err := r.f.Write(b)
	if err == nil && !r.Stream {
		if err = r.f.Sync(); err != nil {
			err = fmt.Errorf("sync %s: %w", r.path, errors.Unwrap(err))
		}
	}
	if err != nil {
		if n > 0 && n < len(b) && !r.Stream {
			r.f.Truncate(r.size) // best effort: else the next open cuts it off
		}
		r.err = err
		return err
	}
	r.size += int64(n)
	if l.Status == StatusOK {
		l.Result = nil
		r.Done[l.Key] = l
	}
	return nil
}

// Close closes the file, releasing its lock. A file OpenResults created and no line
// could be written to (a full disk) is removed first, as a failed -o leaves nothing.
func (r *Results) Close() error {
	if r.created && r.err != nil && r.size == 0 && !r.Stream {
		os.Remove(r.path)
	}
	return r.f.Close()
}

// Input is a results file to read: a name for messages and its contents.
type Input struct {
	Name string    // names the file in messages
	R    io.Reader // the file's contents
}

// The kinds of lines of a results file.
const (
	lineOK      = iota
	lineBlank   // empty or spaces: skipped
	lineDamaged // the start of a results line, cut short or spliced with another; or an index no sweep has
	// lineJunk is not recognisably part of a results line: the tail of a line
	// another write cut into, or a line of a file that is not a results file. A
	// file with results lines is damaged there; a file without any is refused.
	lineJunk
)

// linePrefix is how every line Append writes begins (Line's first field).
var linePrefix = []byte(`{"sweep"`)

// parseLine reads one line of a results file.
func parseLine(raw []byte) (Line, int) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return Line{}, lineBlank
	}
	var l Line
	if err := json.Unmarshal(raw, &l); err == nil && l.Key != "" {
		// An index no sweep has (without a spec, merge lists the indices below the
		// highest that have no line, which must not be endless), or a status
		// Append does not write, is damage: the head of a line cut off where
		// another begins can be valid JSON ({"sweep":..., "params":{"sweep":...}).
		if l.Index < 0 || l.Index >= MaxItems || !(l.Status == StatusOK && len(l.Result) > 0 || l.Status == StatusFailed) {
			return Line{}, lineDamaged
		}
		return l, lineOK
	}
	// A line cut short begins as Append writes lines, or is a prefix of that; a
	// crash can also leave a run of zero bytes where a write did not reach the disk.
	if bytes.HasPrefix(raw, linePrefix) || bytes.HasPrefix(linePrefix, raw) || len(bytes.Trim(raw, "\x00")) == 0 {
		return Line{}, lineDamaged
	}
	return Line{}, lineJunk
}

// lineReader reads the lines of a results file, each at most maxLine bytes, at most
// maxTotal bytes in all, so that /dev/zero or a wrong file is an error naming the
// cap rather than the memory running out.
type lineReader struct {
	br       *bufio.Reader
	name     string
	maxLine  int
	maxTotal int64
	n        int   // lines read
	off      int64 // offset of the next line
	buf      []byte
}

func newLineReader(r io.Reader, name string) *lineReader {
	return &lineReader{br: bufio.NewReaderSize(r, 64<<10), name: name, maxLine: MaxLineBytes, maxTotal: MaxResultsBytes}
}

// next returns the next line without its newline and whether a newline ended it,
// or io.EOF after the last line.
func (lr *lineReader) next() (line []byte, terminated bool, err error) {
	if lr.n == 0 && lr.off == 0 {
		// A compressed file procalloc does not read here (xz, zstd; gzip and bzip2
		// for a file to append to) or UTF-16 is said as such, not as "line 1 is not
		// a results line".
		head, _ := lr.br.Peek(textin.StartLen)
		if err := textin.CheckStart(string(head)); err != nil {
			return nil, false, fmt.Errorf("%s: %w", lr.name, err)
		}
	}
	lr.buf = lr.buf[:0]
	for {
		chunk, err := lr.br.ReadSlice('\n')
		lr.buf = append(lr.buf, chunk...)
		if n := len(lr.buf); n > lr.maxLine && !(n == lr.maxLine+1 && err == nil) {
			return nil, false, fmt.Errorf("%s: line %d is longer than %s, the most a results line may be (is it a results file?)", lr.name, lr.n+1, textin.Size(int64(lr.maxLine)))
		}
		if lr.off+int64(len(lr.buf)) > lr.maxTotal {
			return nil, false, fmt.Errorf("%s: longer than %s, the most a results file may be", lr.name, textin.Size(lr.maxTotal))
		}
		switch err {
		case bufio.ErrBufferFull:
			continue
		case nil:
			lr.n++
			lr.off += int64(len(lr.buf))
			return lr.skipBOM(lr.buf[:len(lr.buf)-1]), true, nil
		case io.EOF:
			if len(lr.buf) == 0 {
				return nil, false, io.EOF
			}
			lr.n++
			lr.off += int64(len(lr.buf))
			return lr.skipBOM(lr.buf), false, nil
		default:
			return nil, false, fmt.Errorf("%s: %w", lr.name, err)
		}
	}
}

// skipBOM returns line without the UTF-8 byte-order mark an editor put at the
// start of the file (Windows Notepad's "UTF-8 with BOM"): the first line was
// damaged for it, and its item missing. The offsets count the mark.
func (lr *lineReader) skipBOM(line []byte) []byte {
	if lr.n == 1 {
		return bytes.TrimPrefix(line, []byte(textin.BOM))
	}
	return line
}

// MergeReport says what a merge found.
type MergeReport struct {
	Lines []Line // one per item, by index
	// Missing are the items of the spec with no line; without a spec, the indices
	// below the highest one present that have no line (Key and Params then empty:
	// items after the highest cannot be known without the spec).
	Missing []Item
	Failed  []Line // items whose only lines are failures
	Extra   int    // lines of items the spec no longer has (left out)
	// Damaged name the lines skipped as damaged ("FILE: line N"): cut short by a
	// crash, spliced by writers without the lock, or with an item index of at
	// least MaxItems. Their items are missing unless
	// another line has them (without a spec, that cannot be told for items after
	// the highest index present).
	Damaged []string
	// Builds are the builds that wrote the lines read (Line.Build, buildid.Unknown
	// for lines without one), sorted by name, each with the files holding its
	// lines: more than one means the shards were run by different builds of
	// procalloc, whose replays may differ.
	Builds []BuildSource
}

// BuildSource is a build that wrote lines of a merge, and where they are.
type BuildSource struct {
	Build string   `json:"build"` // Line.Build, buildid.Unknown when the lines have none
	Files []string `json:"files"` // the inputs holding its lines (Input.Name), in input order
	Lines int      `json:"lines"` // how many lines it wrote (damaged ones not counted)
}

// Merge reads results files and keeps one line per item (an ok line over failed ones),
// sorted by index, without timings. With spec, it also lists the spec's items that
// have no line. All files must be of one sweep: one name and, without spec, one
// sweep id (Line.SweepID), else the error wraps ErrOtherSweep.
func Merge(paths []string, spec *Spec) (*MergeReport, error) {
	var ins []Input
	for _, p := range paths {
		f, err := textin.Open(p)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		ins = append(ins, Input{Name: p, R: f})
	}
	return MergeInputs(ins, spec)
}

// MergeInputs is Merge reading open files. Lines are at most MaxLineBytes long and
// files at most MaxResultsBytes; damaged lines are skipped and named in the report,
// a line that is not a results line at all is an error.
func MergeInputs(inputs []Input, spec *Spec) (*MergeReport, error) {
	best := map[string]Line{}
	sweepName := ""
	if spec != nil {
		sweepName = spec.Name
	}
	rep := &MergeReport{}
	var id, idFrom, specID string
	if spec != nil {
		specID = spec.ID()
	}
	builds := map[string]*BuildSource{}
	for _, in := range inputs {
		lr := newLineReader(textin.Decompress(in.R), in.Name)
		good, firstJunk := 0, 0
		var damaged []string
		for {
			raw, terminated, err := lr.next()
			if err == io.EOF {
				break
			}
			if err != nil {
				return nil, err
			}
			l, kind := parseLine(raw)
			if kind == lineOK && !terminated {
				// A last line without its newline is torn, as OpenResults reads it (a
				// write cut short, or a shard still writing): skipped and named, even
				// when what arrived parses. Taking it let merge refuse, as of another
				// sweep, a file the sweep resumes (FuzzSweepResultsFile).
				kind = lineDamaged
			}
			switch kind {
			case lineBlank:
				continue
			case lineDamaged, lineJunk:
				if kind == lineJunk && firstJunk == 0 {
					firstJunk = lr.n
				}
				damaged = append(damaged, fmt.Sprintf("%s: line %d", in.Name, lr.n))
				continue
			}
			good++
			if sweepName == "" {
				sweepName = l.Sweep
			}
			if l.Sweep != sweepName {
				return nil, fmt.Errorf("%s: line %d is of sweep %q, not %q: %w", in.Name, lr.n, l.Sweep, sweepName, ErrOtherSweep)
			}
			// Without the spec, the lines must come from one grid: two sweep files
			// of one name (in different folders) have different IDs. With it, the
			// keys decide (an edited sweep file changes the ID but keeps the items
			// it still has).
			if spec == nil && l.SweepID != "" {
				if idFrom == "" {
					id, idFrom = l.SweepID, fmt.Sprintf("%s line %d", in.Name, lr.n)
				} else if l.SweepID != id {
					return nil, fmt.Errorf("%s: line %d is of another sweep named %q than %s (sweep id %s, not %s: two sweep files of one name, or one edited between runs): use the shards of one sweep, or keep the items of the sweep as it is now with procalloc merge --spec SWEEP_FILE: %w",
						in.Name, lr.n, l.Sweep, idFrom, l.SweepID, id, ErrOtherSweep)
				}
			}
			if spec != nil {
				l.SweepID = specID
			}
			build := l.BuildName()
			b := builds[build]
			if b == nil {
				b = &BuildSource{Build: build}
				builds[build] = b
			}
			if b.Lines++; len(b.Files) == 0 || b.Files[len(b.Files)-1] != in.Name {
				b.Files = append(b.Files, in.Name)
			}
			l.Seconds, l.AllocTime = 0, nil
			if old, ok := best[l.Key]; !ok || (old.Status != StatusOK && l.Status == StatusOK) {
				best[l.Key] = l
			}
		}
		if good == 0 && firstJunk > 0 {
			return nil, fmt.Errorf("%s: line %d is not a results line, and no line is: not a results file of procalloc sweep", in.Name, firstJunk)
		}
		rep.Damaged = append(rep.Damaged, damaged...)
	}
	for _, b := range builds {
		rep.Builds = append(rep.Builds, *b)
	}
	slices.SortFunc(rep.Builds, func(a, b BuildSource) int { return strings.Compare(a.Build, b.Build) })
	var items []Item
	if spec != nil {
		items = spec.Items()
	}
	if spec != nil {
		// Number the lines as the spec does now (an edited sweep file may have moved
		// items) and leave out those of items it no longer has.
		index := map[string]int{}
		for _, it := range items {
			index[it.Key] = it.Index
		}
		for k, l := range best {
			j, ok := index[k]
			if !ok {
				rep.Extra++
				delete(best, k)
				continue
			}
			l.Index = j
			best[k] = l
		}
	}
	for _, l := range best {
		rep.Lines = append(rep.Lines, l)
		if l.Status != StatusOK {
			rep.Failed = append(rep.Failed, l)
		}
	}
	slices.SortFunc(rep.Lines, func(a, b Line) int { return a.Index - b.Index })
	slices.SortFunc(rep.Failed, func(a, b Line) int { return a.Index - b.Index })
	if spec != nil {
		for _, it := range items {
			if _, ok := best[it.Key]; !ok {
				rep.Missing = append(rep.Missing, it)
			}
		}
	} else if len(rep.Lines) > 0 {
		// The shards of one sweep together hold every index from 0 up: a gap is a
		// missing item (a shard not merged, or not finished).
		next := 0
		for _, l := range rep.Lines {
			for ; next < l.Index; next++ {
				rep.Missing = append(rep.Missing, Item{Index: next})
			}
			next = max(next, l.Index+1)
		}
	}
	return rep, nil
}
