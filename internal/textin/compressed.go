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
// whole, and a plain one is read at its caller's pace. An input that starts as
// xz or zstd, which it does not undo, is a *CompressedStartError at the first
// Read, nothing handed on (CheckStart's error, naming the pipe that reads it).
//
// An input compressed more than once (x.gz.gz) is decompressed again, up to
// maxLayers times: compressed data start with magic bytes no text starts with.
// Zero bytes after gzip or bzip2 data, to the end of the input, are padding (a
// tape's or a block device's last block), read as GNU gzip and bunzip2 read them;
// other bytes there are a *TrailingDataError naming their offset.
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
	format string    // "gzip" or "bzip2": the outermost compression
	layers []string  // the compressions, outermost first (x.gz.gz: gzip, gzip)
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
//
// What a compressed input holds is looked at the same way: a file compressed
// twice (x.gz.gz, a pipeline that gzips a .gz) holds compressed data, never text
// (a text file does not start with 1F 8B or "BZh91AY&SY"), and is decompressed
// again, up to maxLayers times.
func (d *decompressor) start() error {
	d.started = true
	in := d.src
	for {
		head, rest := sniff(in)
		f, _ := compressedFormat(head)
		if f == "" {
			if d.layers == nil {
				// xz or zstd, which no reader here undoes: said as such, not
				// handed on as text for a reader to call its bytes malformed
				// (a ranking named in bf:FILE was read as a broken hostlist).
				if err := checkCompressedStart(string(head[:min(len(head), StartLen)])); err != nil {
					return err
				}
				d.plain = rest
			} else {
				d.zr = rest
			}
			return nil
		}
		if len(d.layers) == maxLayers {
			return d.fail(errTooManyLayers)
		}
		if d.layers == nil {
			d.format = f
		}
		d.layers = append(d.layers, f)
		var err error
		if in, err = openLayer(f, rest); err != nil {
			return d.fail(err)
		}
	}
}

// maxLayers is how many compressions, one inside the other, Decompress undoes.
const maxLayers = 4

// errTooManyLayers is the error of an input compressed more than maxLayers times.
var errTooManyLayers = fmt.Errorf("compressed more than %d times, one inside the other", maxLayers)

// sniff reads the first bytes of r, what one read brings and more only while they
// could still begin a compressed format's magic bytes, and returns them with a
// reader of all of r (those bytes, then the rest, or the read error that came).
func sniff(r io.Reader) (head []byte, all io.Reader) {
	head = make([]byte, 0, 4096)
	var err error
	for err == nil {
		var n int
		n, err = r.Read(head[len(head):cap(head)])
		head = head[:len(head)+n]
		if _, more := compressedFormat(head); !more && len(head) > 0 {
			break
		}
	}
	var rest io.Reader = r
	switch {
	case err == io.EOF:
		rest = bytes.NewReader(nil)
	case err != nil:
		rest = errorReader{err} // after the bytes that came before it
	}
	return head, io.MultiReader(bytes.NewReader(head), rest)
}

// openLayer returns a reader of what in, compressed in format, holds.
func openLayer(format string, in io.Reader) (io.Reader, error) {
	if format == "bzip2" {
		return newBzip2Streams(in), nil
	}
	return newGzipMembers(in)
}

// gzipMembers reads a gzip input's members one after the other, as gzip -d does
// (`cat a.gz b.gz > ab.gz` holds two), and takes zero bytes after the last member
// as padding: a tape's or block device's last block, or dd conv=sync, fills up
// with zeros, and GNU gzip decompresses such a file without a word (with -v:
// "decompression OK, trailing zero bytes ignored"). compress/gzip's own
// multistream reader took the zeros for a damaged member header. Any other bytes
// after a member that do not start one (after padding too: GNU gzip then ignores
// them, "trailing garbage ignored") are a *TrailingDataError naming their offset.
type gzipMembers struct {
	cnt *countingReader
	br  *bufio.Reader
	zr  *gzip.Reader
	err error
}

// maxPadding is the most zero bytes taken as padding after gzip data: a tape
// block is at most a few mebibytes; an endless run (a file followed by /dev/zero)
// ends as an error rather than being read for ever.
const maxPadding = 64 << 20

func newGzipMembers(in io.Reader) (*gzipMembers, error) {
	g := &gzipMembers{cnt: &countingReader{r: in}}
	g.br = bufio.NewReaderSize(g.cnt, 64<<10)
	zr, err := gzip.NewReader(g.br) // a bufio.Reader is read byte by byte: nothing past a member is taken
	if err != nil {
		return nil, err
	}
	zr.Multistream(false)
	g.zr = zr
	return g, nil
}

// offset is how many bytes of the input are behind.
func (g *gzipMembers) offset() int64 { return g.cnt.n - int64(g.br.Buffered()) }

func (g *gzipMembers) Read(p []byte) (int, error) {
	for g.err == nil {
		n, err := g.zr.Read(p)
		if err == io.EOF {
			err = g.next()
		}
		g.err = err
		if n > 0 || len(p) == 0 {
			return n, nil
		}
	}
	return 0, g.err
}

// next starts reading the member after the one that ended, or returns io.EOF at
// the end of the input (zero padding read to its end), or why the input does not
// end there.
func (g *gzipMembers) next() error {
	start := g.offset()
	b, err := g.br.Peek(len(gzipMagic))
	switch {
	case len(b) == 0 && err == io.EOF:
		return io.EOF
	case bytes.Equal(b, gzipMagic):
		if err := g.zr.Reset(g.br); err != nil {
			return err
		}
		g.zr.Multistream(false)
		return nil
	case len(b) == 0:
		return err
	}
	return skipPadding(g.br, start, 0)
}

// skipPadding reads zero bytes from br to the end of the input and returns io.EOF
// there (padding), or a *TrailingDataError at the first other byte, or once more
// than maxPadding of them came. start is the input offset of the padding's first
// byte, of which zeros were read already.
func skipPadding(br *bufio.Reader, start, zeros int64) error {
	for {
		if _, err := br.Peek(1); err != nil {
			if err == io.EOF {
				return io.EOF // zeros only, to the end: padding
			}
			return err
		}
		b, _ := br.Peek(br.Buffered())
		i := bytes.IndexFunc(b, func(r rune) bool { return r != 0 })
		if i < 0 {
			i = len(b)
		}
		zeros += int64(i)
		br.Discard(i)
		if zeros > maxPadding {
			return &TrailingDataError{Offset: start, Zeros: zeros, TooMuchPadding: true}
		}
		if i < len(b) {
			return &TrailingDataError{Offset: start + zeros, Zeros: zeros}
		}
	}
}

// bzip2Streams reads a bzip2 input as compress/bzip2 does (streams one after the
// other, `cat a.bz2 b.bz2`), and takes zero bytes after the last stream as padding,
// as bunzip2 does ("trailing garbage after EOF ignored", exit 0); other bytes there
// are a *TrailingDataError. compress/bzip2 reads the two bytes after a stream's
// end, which must start another ("BZ"), and says "bad magic value in continuation
// file" when they do not: those two are known here (byteRecorder), the rest is
// looked at as after gzip data.
type bzip2Streams struct {
	rec *byteRecorder
	zr  io.Reader
	err error
}

func newBzip2Streams(in io.Reader) *bzip2Streams {
	rec := &byteRecorder{br: bufio.NewReaderSize(in, 64<<10)}
	return &bzip2Streams{rec: rec, zr: bzip2.NewReader(rec)}
}

func (b *bzip2Streams) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	n, err := b.zr.Read(p)
	if se, ok := err.(bzip2.StructuralError); ok && se == "bad magic value in continuation file" {
		start := b.rec.n - 2
		if b.rec.last != [2]byte{} {
			if b.rec.last[0] != 0 {
				err = &TrailingDataError{Offset: start}
			} else {
				err = &TrailingDataError{Offset: start + 1, Zeros: 1}
			}
		} else {
			err = skipPadding(b.rec.br, start, 2)
		}
	}
	if err != nil {
		b.err = err
	}
	return n, err
}

// byteRecorder is a bufio.Reader read byte by byte (compress/bzip2 reads its input
// so when it can) that counts the bytes read and keeps the last two.
type byteRecorder struct {
	br   *bufio.Reader
	n    int64
	last [2]byte
}

func (r *byteRecorder) ReadByte() (byte, error) {
	c, err := r.br.ReadByte()
	if err == nil {
		r.n++
		r.last = [2]byte{r.last[1], c}
	}
	return c, err
}

func (r *byteRecorder) Read(p []byte) (int, error) {
	n, err := r.br.Read(p)
	for _, c := range p[:n] {
		r.last = [2]byte{r.last[1], c}
	}
	r.n += int64(n)
	return n, err
}

// TrailingDataError is bytes after a gzip input's last member (a bzip2 input's
// last stream) that are neither another one nor zero padding to the end of the
// input.
type TrailingDataError struct {
	Offset         int64 // the byte offset of the first such byte (of the padding, when TooMuchPadding)
	Zeros          int64 // the zero bytes between the data and Offset
	TooMuchPadding bool  // more than maxPadding zero bytes follow the data, from Offset
}

// Error says what follows the data and from which byte offset.
func (e *TrailingDataError) Error() string {
	switch {
	case e.TooMuchPadding:
		return fmt.Sprintf("more than %s of zero bytes from byte offset %d (not padding)", Size(maxPadding), e.Offset)
	case e.Zeros > 0:
		return fmt.Sprintf("trailing garbage at byte offset %d, after %d zero bytes of padding", e.Offset, e.Zeros)
	}
	return fmt.Sprintf("trailing garbage at byte offset %d (neither more compressed data nor zero padding)", e.Offset)
}

// countingReader counts the bytes read from r.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
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
	var trailing *TrailingDataError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF), err == io.EOF, errors.Is(err, gzip.ErrHeader),
		errors.Is(err, gzip.ErrChecksum), errors.As(err, &corrupt), errors.As(err, &structural),
		errors.As(err, &trailing), err == errTooManyLayers:
	default:
		return err
	}
	var layers []string
	if len(d.layers) > 1 {
		layers = d.layers
	}
	return &CompressedError{Format: d.format, Layers: layers, Lines: d.lines, InLine: d.midLine, Started: d.zr != nil, Err: err}
}

// CompressedError is a compressed input (Decompress) that is cut short or damaged.
type CompressedError struct {
	Format string // "gzip" or "bzip2": the outermost compression
	// Layers are the compressions one inside the other, outermost first, of an
	// input compressed more than once (x.gz.gz: gzip, gzip); nil for once.
	Layers  []string
	Lines   int   // the whole lines read before the error
	InLine  bool  // the error came inside line Lines+1, part of which was read (a line of more than a mebibyte)
	Started bool  // the data had begun (false: the error is in a gzip header)
	Err     error // the decompressor's error: io.ErrUnexpectedEOF, gzip.ErrChecksum, *TrailingDataError, ...
}

// Error says what is wrong and after which line: "the gzip file is truncated: it
// ends after line 3873: unexpected EOF". It names its line itself: ScanErr does
// not add one.
func (e *CompressedError) Error() string {
	where := fmt.Sprintf("after line %d", e.Lines)
	if e.InLine {
		where = fmt.Sprintf("inside line %d", e.Lines+1)
	}
	file := e.Format + " file"
	if len(e.Layers) > 1 {
		inside := slices.Clone(e.Layers)
		slices.Reverse(inside)
		file += " (" + strings.Join(inside, " inside ") + ")"
	}
	var corrupt flate.CorruptInputError
	var structural bzip2.StructuralError
	var trailing *TrailingDataError
	switch {
	case e.Err == errTooManyLayers:
		return fmt.Sprintf("the %s is %v (%s ...): not read", file, e.Err, strings.Join(e.Layers, " inside "))
	case !e.Started && e.Format == "gzip" && len(e.Layers) <= 1 && errors.Is(e.Err, gzip.ErrHeader):
		return fmt.Sprintf("not a valid gzip file (bad header): %v", e.Err)
	case !e.Started && errors.Is(e.Err, gzip.ErrHeader):
		return fmt.Sprintf("the %s is damaged (a bad gzip header inside): %v", file, e.Err)
	case !e.Started:
		return fmt.Sprintf("the %s is truncated (it ends inside its header): %v", file, e.Err)
	case errors.As(e.Err, &trailing):
		// The data were read whole (their checksum matched): what follows is not.
		return fmt.Sprintf("the %s has %v, after its data, which end %s", file, e.Err, where)
	case errors.Is(e.Err, io.ErrUnexpectedEOF) || e.Err == io.EOF:
		if e.Lines == 0 && !e.InLine {
			return fmt.Sprintf("the %s is truncated: it ends before its first line is whole: %v", file, e.Err)
		}
		return fmt.Sprintf("the %s is truncated: it ends %s: %v", file, where, e.Err)
	case errors.Is(e.Err, gzip.ErrChecksum):
		return fmt.Sprintf("the %s is damaged (checksum mismatch %s): %v", file, where, e.Err)
	case errors.Is(e.Err, gzip.ErrHeader):
		return fmt.Sprintf("the %s is damaged (a bad header %s: data that are not gzip follow): %v", file, where, e.Err)
	case errors.As(e.Err, &corrupt), errors.As(e.Err, &structural):
		return fmt.Sprintf("the %s is damaged (its data are not valid %s %s): %v", file, e.Format, where, e.Err)
	}
	return fmt.Sprintf("%s, %s: %v", file, where, e.Err)
}

// Unwrap returns Err.
func (e *CompressedError) Unwrap() error { return e.Err }

// ErrCompressed is wrapped by CheckStart's error for a compressed input: gzip or
// bzip2 where plain text only is read (a file Slurm reads), xz or zstd anywhere.
var ErrCompressed = errors.New("compressed")

// compressedStarts are the compressed formats CheckStart recognises, by their
// magic bytes, with the command that undoes them and the one that decompresses
// them to standard output; read tells those that Decompress reads.
var compressedStarts = []struct {
	magic, name, tool, pipe, ext string
	read                         bool
}{
	{"\x1f\x8b", "gzip", "gunzip", "gzip -dc", ".gz", true},
	{"BZh", "bzip2", "bunzip2", "bzip2 -dc", ".bz2", true},
	{"\xfd7zXZ\x00", "xz", "unxz", "xz -dc", ".xz", false},
	{"\x28\xb5\x2f\xfd", "zstd", "unzstd", "zstd -dc", ".zst", false},
}

// CompressedName is the compressed format a file's name says (its extension:
// .gz, .bz2, .xz, .zst), "" for none, and the name without that extension. Inputs
// are told by their content (Decompress); the name is all an output to be
// written has.
func CompressedName(path string) (format, plain string) {
	for _, c := range compressedStarts {
		if p, ok := strings.CutSuffix(path, c.ext); ok && p != "" && !strings.HasSuffix(p, "/") {
			return c.name, p
		}
	}
	return "", path
}

// Compression names the compressed format whose magic bytes start, an input's
// first StartLen bytes, begins with ("" for none: text), the command that undoes
// it, and whether Decompress reads it (gzip, bzip2; not xz, zstd).
func Compression(start string) (format, undo string, read bool) {
	if c := compressedStart(start); c >= 0 {
		return compressedStarts[c].name, compressedStarts[c].tool, compressedStarts[c].read
	}
	return "", "", false
}

// compressedStart is the index in compressedStarts of the format start begins
// with, -1 for none.
func compressedStart(start string) int {
	for i, c := range compressedStarts {
		if !strings.HasPrefix(start, c.magic) {
			continue
		}
		if c.name == "bzip2" {
			if f, _ := compressedFormat([]byte(start)); f != "bzip2" {
				continue // text that starts with BZh
			}
		}
		return i
	}
	return -1
}

// CompressedStartError is CheckStart's error for a compressed input: gzip or
// bzip2 where plain text only is read (a file Slurm reads), xz or zstd anywhere.
// It wraps ErrCompressed.
type CompressedStartError struct {
	Format string // "gzip", "bzip2", "xz" or "zstd"
	Magic  string // its magic bytes
	Undo   string // the command that decompresses a file: "unxz"
	// Pipe is the command that decompresses it to standard output, "xz -dc",
	// for procalloc to read there ('-'): xz -dc fabric.xz | procalloc curve --graph -.
	Pipe string
	Read bool // Decompress reads the format (gzip, bzip2)
}

// Error names the compression and, for xz and zstd, the pipe that reads the input.
func (e *CompressedStartError) Error() string {
	if !e.Read {
		// Go's standard library has no xz or zstd reader, and procalloc depends on
		// nothing outside it for its inputs.
		return fmt.Sprintf("the input is %s-compressed (it starts with % X), which procalloc does not read: decompress it into procalloc's standard input ('-'), %s FILE | procalloc ... -, or %s it first", e.Format, e.Magic, e.Pipe, e.Undo)
	}
	return fmt.Sprintf("the input is %s-compressed (it starts with % X): %s it first", e.Format, e.Magic, e.Undo)
}

// Unwrap returns ErrCompressed.
func (e *CompressedStartError) Unwrap() error { return ErrCompressed }

// checkCompressedStart is CheckStart's look at compressed formats.
func checkCompressedStart(start string) error {
	i := compressedStart(start)
	if i < 0 {
		return nil
	}
	c := compressedStarts[i]
	return &CompressedStartError{Format: c.name, Magic: c.magic, Undo: c.tool, Pipe: c.pipe, Read: c.read}
}
