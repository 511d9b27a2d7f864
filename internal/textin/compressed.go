package textin

import (
	"bufio"
	"bytes"
	"compress/bzip2"
	"compress/flate"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// Decompress returns a reader of the text r holds: r decompressed when it starts
// with the magic bytes of gzip (1F 8B: gzip, `ibnetdiscover | gzip`, several
// members one after the other as well) or of bzip2 ("BZh" and a block's or the
// end's magic number), r's bytes as they are otherwise. The format is told from
// the content, never from a file's name, so standard input ("-") is read alike.
// Nothing is read before the first Read, which looks at what one read of r brings
// (more only while that could still begin a magic number: a line typed on standard
// input is handed on at once); the input is decompressed as it is read, never
// whole, and a plain one is read at its caller's pace.
//
// A compressed input that is cut short or damaged ends with a *CompressedError
// after its last whole line: the line the cut tore is not handed on, so that a
// reader of lines reports the file as truncated, not the torn line as malformed
// ("10 fields, the header has 11"), nor takes "12" for the "1234" it was cut from.
// (A line longer than a mebibyte is handed on in parts; then the error says that
// it ends inside that line.) A read error of r itself (a cancelled context, a cap)
// is returned as it is.
//
// Every reader of procalloc's own inputs reads through it: traces and sacct
// histories, networks (--graph) and node-name-maps, points, rankings, host names,
// QAPLIB instances, sweep files and results. Files that Slurm reads (slurm.conf, a
// topology.conf or topology.yaml standing for one) are not: Slurm reads them
// uncompressed only, and package slurm refuses them compressed (CheckStart and
// Compression name the format).
func Decompress(r io.Reader) io.Reader {
	if d, ok := r.(*decompressor); ok {
		return d
	}
	return &decompressor{src: r}
}

// holdMax is the longest torn line a decompressor holds back (see Decompress).
const holdMax = 1 << 20

// decompressor is Decompress's reader.
type decompressor struct {
	src    io.Reader
	plain  io.Reader // what Read reads when the input is plain: its start, then src
	zr     io.Reader // the decompressing reader (compressed input)
	format string    // "gzip" or "bzip2"
	// buf[off:ready] are decompressed bytes to hand on, buf[ready:] the start of a
	// line whose end has not come yet (held back until it does).
	buf        []byte
	off, ready int
	lines      int  // the newlines in buf[:ready] and in the bytes handed on before
	midLine    bool // buf[:ready] ends inside a line (a held line grew past holdMax)
	err        error
	started    bool
}

// magic bytes of the compressed formats read (bzip2: "BZh", the block size '1' to
// '9', then the first block's magic, or the end's for an empty stream).
var (
	gzipMagic     = []byte{0x1f, 0x8b}
	bzip2Block    = []byte{0x31, 0x41, 0x59, 0x26, 0x53, 0x59}
	bzip2End      = []byte{0x17, 0x72, 0x45, 0x38, 0x50, 0x90}
	bzip2MagicLen = 4 + len(bzip2Block)
)

// compressedFormat names the compressed format whose magic bytes start b ("" for
// none); more is true when b is too short to tell but could begin one.
func compressedFormat(b []byte) (format string, more bool) {
	if bytes.HasPrefix(b, gzipMagic) {
		return "gzip", false
	}
	if len(b) < len(gzipMagic) && bytes.HasPrefix(gzipMagic, b) {
		return "", true
	}
	for _, m := range [][]byte{bzip2Block, bzip2End} {
		if bzip2Prefix(b, m) {
			if len(b) >= bzip2MagicLen {
				return "bzip2", false
			}
			return "", true
		}
	}
	return "", false
}

// bzip2Prefix reports whether b begins as a bzip2 stream whose first block's (or
// end's) magic is m: "BZh", '1' to '9', m.
func bzip2Prefix(b, m []byte) bool {
	for i, c := range b[:min(len(b), bzip2MagicLen)] {
		switch {
		case i < 3:
			if c != "BZh"[i] {
				return false
			}
		case i == 3:
			if c < '1' || c > '9' {
				return false
			}
		default:
			if c != m[i-4] {
				return false
			}
		}
	}
	return true
}

// start looks at the input's first bytes and sets up its reading. It reads what
// one read of src brings (hostlist and sim read standard input, which may be typed
// by hand: no more is waited for), more only while that could still be the start
// of a compressed format's magic. A plain input is then read as it comes, its
// reads left to the caller (the readers that look at a context at each read,
// textin.ContextReader, keep their pace).
func (d *decompressor) start() error {
	d.started = true
	head := make([]byte, 0, 4096)
	var err error
	for err == nil {
		var n int
		n, err = d.src.Read(head[len(head):cap(head)])
		head = head[:len(head)+n]
		if _, more := compressedFormat(head); !more && len(head) > 0 {
			break
		}
	}
	var rest io.Reader = d.src
	switch {
	case err == io.EOF:
		rest = bytes.NewReader(nil)
	case err != nil:
		rest = errorReader{err} // after the bytes that came before it
	}
	in := io.MultiReader(bytes.NewReader(head), rest)
	switch f, _ := compressedFormat(head); f {
	case "gzip":
		d.format = f
		zr, err := gzip.NewReader(bufio.NewReaderSize(in, 64<<10))
		if err != nil {
			return d.fail(err)
		}
		d.zr = zr
	case "bzip2":
		d.format = f
		d.zr = bzip2.NewReader(bufio.NewReaderSize(in, 64<<10))
	default:
		d.plain = in
	}
	return nil
}

// errorReader returns its error at every read.
type errorReader struct{ err error }

func (e errorReader) Read([]byte) (int, error) { return 0, e.err }

func (d *decompressor) Read(p []byte) (int, error) {
	if !d.started {
		if err := d.start(); err != nil {
			d.err = err
		}
	}
	if d.plain != nil {
		return d.plain.Read(p)
	}
	for d.off == d.ready {
		if d.err != nil {
			return 0, d.err
		}
		d.fill()
	}
	n := copy(p, d.buf[d.off:d.ready])
	d.off += n
	return n, nil
}

// fill decompresses the next bytes into buf and moves ready to the end of their
// last whole line (to their end at the end of the input), or sets err.
func (d *decompressor) fill() {
	if d.off > 0 {
		n := copy(d.buf, d.buf[d.off:])
		d.buf = d.buf[:n]
		d.ready -= d.off
		d.off = 0
	}
	const chunk = 64 << 10
	d.buf = slices.Grow(d.buf, chunk)
	n, err := d.zr.Read(d.buf[len(d.buf):cap(d.buf)])
	from := len(d.buf)
	d.buf = d.buf[:from+n]
	switch {
	case err == io.EOF:
		d.release(len(d.buf))
		d.err = io.EOF
	case err != nil:
		if i := bytes.LastIndexByte(d.buf[from:], '\n'); i >= 0 {
			d.release(from + i + 1)
		}
		d.buf = d.buf[:d.ready] // the torn line is dropped
		d.err = d.fail(err)
	default:
		if i := bytes.LastIndexByte(d.buf[from:], '\n'); i >= 0 {
			d.release(from + i + 1)
		}
		if len(d.buf)-d.ready > holdMax {
			d.release(len(d.buf))
		}
	}
}

// release hands on buf up to end.
func (d *decompressor) release(end int) {
	if end <= d.ready {
		return
	}
	d.lines += bytes.Count(d.buf[d.ready:end], []byte{'\n'})
	d.ready = end
	d.midLine = d.buf[end-1] != '\n'
}

// fail is the error of the compressed input for err: a *CompressedError when err
// says the data are cut or wrong, err itself when it is src's own read error.
func (d *decompressor) fail(err error) error {
	var corrupt flate.CorruptInputError
	var structural bzip2.StructuralError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF), err == io.EOF, errors.Is(err, gzip.ErrHeader),
		errors.Is(err, gzip.ErrChecksum), errors.As(err, &corrupt), errors.As(err, &structural):
	default:
		return err
	}
	return &CompressedError{Format: d.format, Lines: d.lines, InLine: d.midLine, Started: d.zr != nil, Err: err}
}

// CompressedError is a compressed input (Decompress) that is cut short or damaged.
type CompressedError struct {
	Format  string // "gzip" or "bzip2"
	Lines   int    // the whole lines read before the error
	InLine  bool   // the error came inside line Lines+1, part of which was read (a line of more than a mebibyte)
	Started bool   // the data had begun (false: the error is in gzip's header)
	Err     error  // the decompressor's error: io.ErrUnexpectedEOF, gzip.ErrChecksum, ...
}

// Error says what is wrong and after which line: "the gzip file is truncated: it
// ends after line 3873: unexpected EOF". It names its line itself: ScanErr does
// not add one.
func (e *CompressedError) Error() string {
	where := fmt.Sprintf("after line %d", e.Lines)
	if e.InLine {
		where = fmt.Sprintf("inside line %d", e.Lines+1)
	}
	var corrupt flate.CorruptInputError
	var structural bzip2.StructuralError
	switch {
	case !e.Started && e.Format == "gzip" && errors.Is(e.Err, gzip.ErrHeader):
		return fmt.Sprintf("not a valid gzip file (bad header): %v", e.Err)
	case !e.Started:
		return fmt.Sprintf("the %s file is truncated (it ends inside its header): %v", e.Format, e.Err)
	case errors.Is(e.Err, io.ErrUnexpectedEOF) || e.Err == io.EOF:
		if e.Lines == 0 && !e.InLine {
			return fmt.Sprintf("the %s file is truncated: it ends before its first line is whole: %v", e.Format, e.Err)
		}
		return fmt.Sprintf("the %s file is truncated: it ends %s: %v", e.Format, where, e.Err)
	case errors.Is(e.Err, gzip.ErrChecksum):
		return fmt.Sprintf("the %s file is damaged (checksum mismatch %s): %v", e.Format, where, e.Err)
	case errors.Is(e.Err, gzip.ErrHeader):
		return fmt.Sprintf("the %s file is damaged (a bad header %s: data that are not gzip follow): %v", e.Format, where, e.Err)
	case errors.As(e.Err, &corrupt), errors.As(e.Err, &structural):
		return fmt.Sprintf("the %s file is damaged (its data are not valid %s): %v", e.Format, where, e.Err)
	}
	return fmt.Sprintf("%s, %s: %v", e.Format, where, e.Err)
}

// Unwrap returns Err.
func (e *CompressedError) Unwrap() error { return e.Err }

// ErrCompressed is wrapped by CheckStart's error for a compressed input: gzip or
// bzip2 where plain text only is read (a file Slurm reads), xz or zstd anywhere.
var ErrCompressed = errors.New("compressed")

// compressedStarts are the compressed formats CheckStart recognises, by their
// magic bytes, with the command that undoes them; read tells those that
// Decompress reads.
var compressedStarts = []struct {
	magic, name, tool string
	read              bool
}{
	{"\x1f\x8b", "gzip", "gunzip", true},
	{"BZh", "bzip2", "bunzip2", true},
	{"\xfd7zXZ\x00", "xz", "unxz", false},
	{"\x28\xb5\x2f\xfd", "zstd", "unzstd", false},
}

// Compression names the compressed format whose magic bytes start, an input's
// first StartLen bytes, begins with ("" for none: text), the command that undoes
// it, and whether Decompress reads it (gzip, bzip2; not xz, zstd).
func Compression(start string) (format, undo string, read bool) {
	for _, c := range compressedStarts {
		if !strings.HasPrefix(start, c.magic) {
			continue
		}
		if c.name == "bzip2" {
			if f, _ := compressedFormat([]byte(start)); f != "bzip2" {
				continue // text that starts with BZh
			}
		}
		return c.name, c.tool, c.read
	}
	return "", "", false
}

// checkCompressedStart is CheckStart's look at compressed formats.
func checkCompressedStart(start string) error {
	format, undo, read := Compression(start)
	if format == "" {
		return nil
	}
	magic := ""
	for _, c := range compressedStarts {
		if c.name == format {
			magic = c.magic
		}
	}
	if !read {
		return fmt.Errorf("the input is %s-%w (it starts with % X), which procalloc does not read: %s it, or compress it with gzip or bzip2", format, ErrCompressed, magic, undo)
	}
	return fmt.Errorf("the input is %s-%w (it starts with % X): %s it first", format, ErrCompressed, magic, undo)
}
