package textin

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/procalloc/procalloc/internal/compresstest"
)

// sampleText is n lines of a fabric-dump-like text.
func sampleText(n int) []byte {
	var b bytes.Buffer
	for i := range n {
		fmt.Fprintf(&b, "[%d]\t\"H-%016x\"[1](%x)\t\t# \"node%05d HCA-1\" lid %d 4xNDR\n", i%36+1, i, i, i, i+1)
	}
	return b.Bytes()
}

func gzipBytes(t testing.TB, data []byte, members int) []byte {
	t.Helper()
	var b bytes.Buffer
	step := len(data)/members + 1
	for i := 0; i < len(data) || i == 0; i += step {
		zw := gzip.NewWriter(&b)
		zw.Write(data[i:min(len(data), i+step)])
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return b.Bytes()
}

// bzip2Bytes compresses data with the bzip2 command (the standard library only
// decompresses bzip2); the test skips without it.
func bzip2Bytes(t testing.TB, data []byte) []byte {
	t.Helper()
	out := compresstest.Bzip2(t, data)
	if out == nil {
		t.Skip("no bzip2 command to compress the test's input")
	}
	return out
}

// Decompress reads gzip (one member or several, as `cat a.gz b.gz` makes) and
// bzip2 as the text they hold, told by their magic bytes, and plain text as it is,
// through readers that return any number of bytes at a time.
func TestDecompressReadsWhatItHolds(t *testing.T) {
	text := sampleText(20000)
	inputs := map[string][]byte{
		"plain":           text,
		"gzip":            gzipBytes(t, text, 1),
		"gzip, 3 members": gzipBytes(t, text, 3),
		"bzip2":           bzip2Bytes(t, text),
		"plain BZh":       []byte("BZh9 is a host name\n"),
		"plain 1F":        []byte("\x1f\n"),
		"empty":           nil,
	}
	for name, in := range inputs {
		want := text
		if strings.HasPrefix(name, "plain ") || name == "empty" {
			want = in
		}
		for _, wrap := range []struct {
			name string
			r    func(io.Reader) io.Reader
		}{{"", func(r io.Reader) io.Reader { return r }}, {"one byte", iotest.OneByteReader}, {"half", iotest.HalfReader}, {"data+EOF", iotest.DataErrReader}} {
			got, err := io.ReadAll(Decompress(wrap.r(bytes.NewReader(in))))
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("%s (%s reader): %d bytes, %v; want the %d bytes of the text", name, wrap.name, len(got), err, len(want))
			}
		}
	}
	empty := gzipBytes(t, nil, 1)
	if got, err := io.ReadAll(Decompress(bytes.NewReader(empty))); err != nil || len(got) != 0 {
		t.Errorf("gzip of nothing: %q, %v", got, err)
	}
}

// A gzip or bzip2 input cut anywhere hands on whole lines only, a prefix of the
// text, then a *CompressedError that says "truncated" and counts those lines.
func TestDecompressTruncatedEndsAfterWholeLines(t *testing.T) {
	text := sampleText(3000)
	for _, c := range []struct {
		format string
		data   []byte
	}{{"gzip", gzipBytes(t, text, 1)}, {"bzip2", bzip2Bytes(t, text)}} {
		for cut := 0; cut < len(c.data); cut += max(1, len(c.data)/97) {
			got, err := io.ReadAll(Decompress(bytes.NewReader(c.data[:cut])))
			var ce *CompressedError
			if !errors.As(err, &ce) || ce.Format != c.format {
				if cut >= 2 || err == nil && cut != 0 { // a cut before the magic bytes is plain text
					t.Fatalf("%s cut at %d of %d: %v, want a *CompressedError", c.format, cut, len(c.data), err)
				}
				continue
			}
			if !bytes.HasPrefix(text, got) || len(got) > 0 && got[len(got)-1] != '\n' {
				t.Fatalf("%s cut at %d: handed on %d bytes that are not whole lines of the text", c.format, cut, len(got))
			}
			if lines := bytes.Count(got, []byte{'\n'}); ce.Lines != lines || !strings.Contains(err.Error(), "truncated") {
				t.Fatalf("%s cut at %d: %v; %d whole lines handed on", c.format, cut, err, lines)
			}
			if ce.Lines > 0 && !strings.Contains(err.Error(), fmt.Sprintf("the %s file is truncated: it ends after line %d", c.format, ce.Lines)) {
				t.Fatalf("%s cut at %d: %v", c.format, cut, err)
			}
		}
	}
}

// Damage is named as damage: a changed CRC, garbage after a gzip member, a
// flipped byte inside the deflate data; a bad header before any data.
func TestDecompressDamage(t *testing.T) {
	text := sampleText(100)
	gz := gzipBytes(t, text, 1)
	crc := bytes.Clone(gz)
	crc[len(crc)-8] ^= 0xff
	header := bytes.Clone(gz)
	header[2] = 0x99 // compression method: not deflate
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"crc", crc, "the gzip file is damaged (checksum mismatch after line 100)"},
		{"garbage after", append(bytes.Clone(gz), "garbage after the data\n"...), fmt.Sprintf("the gzip file has trailing garbage at byte offset %d (neither more compressed data nor zero padding), after its data, which end after line 100", len(gz))},
		{"a bad second header", append(bytes.Clone(gz), header...), "a bad header after line 100"},
		{"bad header", header, "not a valid gzip file (bad header)"},
		{"header cut", gz[:5], "the gzip file is truncated (it ends inside its header)"},
	} {
		_, err := io.ReadAll(Decompress(bytes.NewReader(c.data)))
		var ce *CompressedError
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	if ScanErr(&CompressedError{Format: "gzip", Lines: 3, Started: true, Err: io.ErrUnexpectedEOF}, 4, MaxLine).Error() != "the gzip file is truncated: it ends after line 3: unexpected EOF" {
		t.Error("ScanErr adds a line to a CompressedError")
	}
	l := NewLines(Decompress(bytes.NewReader(gzipBytes(t, text, 1)[:len(gz)/2])))
	n := 0
	for l.Next() {
		n++
	}
	if ce := (*CompressedError)(nil); !errors.As(l.Err(), &ce) || ce.Lines != n {
		t.Errorf("Lines of a cut gzip: %d lines, then %v", n, l.Err())
	}
}

// gzipCommand runs the gzip command with args on in; the test skips without it.
// It returns gzip's output and exit status (2: a warning, such as "trailing
// garbage ignored").
func gzipCommand(t *testing.T, in []byte, args ...string) ([]byte, int) {
	t.Helper()
	if _, err := exec.LookPath("gzip"); err != nil {
		t.Skip("no gzip command:", err)
	}
	cmd := exec.Command("gzip", args...)
	cmd.Stdin = bytes.NewReader(in)
	out, err := cmd.Output()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return out, ee.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return out, 0
}

// Zero bytes after the last gzip member are padding (a tape's or block device's
// last block, dd conv=sync), read as GNU gzip reads them: no error, nothing read
// from them. Anything else after the data is an error naming its byte offset and
// the last line, which GNU gzip warns of ("trailing garbage ignored", exit 2).
// Each case is checked against the gzip command's own verdict. Before, padding
// was "the gzip file is damaged (a bad header after line 400 ...)".
func TestDecompressZeroPadding(t *testing.T) {
	text := sampleText(400)
	gz, _ := gzipCommand(t, text, "-c") // made by the real gzip
	padded := func(zeros int, tail ...byte) []byte {
		return append(append(bytes.Clone(gz), make([]byte, zeros)...), tail...)
	}
	// dd conv=sync pads the last block to its size (dd bs=4096 conv=sync of a
	// tape image), as a block device or tape holds the file.
	var ddOut []byte
	if _, err := exec.LookPath("dd"); err == nil {
		cmd := exec.Command("dd", "bs=4096", "conv=sync", "status=none")
		cmd.Stdin = bytes.NewReader(gz)
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		if len(out)%4096 != 0 || len(out) == len(gz) || !bytes.HasPrefix(out, gz) {
			t.Fatalf("dd conv=sync gave %d bytes of the %d", len(out), len(gz))
		}
		ddOut = out
	} else {
		t.Log("no dd command: its padding made by hand")
		ddOut = padded(4096 - len(gz)%4096)
	}
	member := gzipBytes(t, []byte("more\n"), 1)
	for _, c := range []struct {
		name   string
		data   []byte
		offset int64 // of the trailing garbage; -1: read whole, no error
		zeros  int64
	}{
		{"dd conv=sync", ddOut, -1, 0},
		{"one zero byte", padded(1), -1, 0},
		{"a 512-byte block", padded(512 - len(gz)%512), -1, 0},
		{"garbage", padded(0, []byte("garbage")...), int64(len(gz)), 0},
		{"zeros, then garbage", padded(100, 'x', 0, 0), int64(len(gz) + 100), 100},
		{"a lone 1F byte", padded(0, 0x1f), int64(len(gz)), 0},
		// GNU gzip ignores a member after padding ("trailing garbage ignored"):
		// read, it would be text gzip does not give; refused.
		{"zeros, then a member", padded(10, member...), int64(len(gz) + 10), 10},
	} {
		got, err := io.ReadAll(Decompress(bytes.NewReader(c.data)))
		gnuOut, gnuCode := gzipCommand(t, c.data, "-dc")
		if !bytes.Equal(gnuOut, text) {
			t.Errorf("%s: gzip -dc gave %d bytes, not the text", c.name, len(gnuOut))
		}
		if c.offset < 0 {
			if err != nil || !bytes.Equal(got, text) {
				t.Errorf("%s: %d bytes, %v; want the text", c.name, len(got), err)
			}
			if gnuCode != 0 {
				t.Errorf("%s: gzip -dc exit %d, but read without a word", c.name, gnuCode)
			}
			continue
		}
		var ce *CompressedError
		var td *TrailingDataError
		if !errors.As(err, &ce) || !errors.As(err, &td) || td.Offset != c.offset || td.Zeros != c.zeros || ce.Lines != 400 || !bytes.Equal(got, text) {
			t.Errorf("%s: %d bytes, %v; want the text, then trailing garbage at %d after %d zeros and line 400", c.name, len(got), err, c.offset, c.zeros)
			continue
		}
		if want := fmt.Sprintf("the gzip file has trailing garbage at byte offset %d", c.offset); !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "after line 400") {
			t.Errorf("%s: %q, want %q and the line", c.name, err, want)
		}
		if gnuCode == 0 {
			t.Errorf("%s: gzip -dc exit 0, but refused (gzip warns of trailing garbage with exit 2)", c.name)
		}
	}
	// Zeros without end (a file, then /dev/zero) are an error once more than
	// maxPadding of them came, not read for ever.
	_, err := io.ReadAll(Decompress(io.MultiReader(bytes.NewReader(gz), io.LimitReader(zeroReader{}, maxPadding+(1<<20)))))
	if td := (*TrailingDataError)(nil); !errors.As(err, &td) || !td.TooMuchPadding || td.Offset != int64(len(gz)) || !strings.Contains(err.Error(), "more than 64 MiB of zero bytes") {
		t.Errorf("endless zeros: %v", err)
	}
}

// Zero bytes after a bzip2 stream are padding too (bunzip2 reads such a file, exit
// 0, warning "trailing garbage after EOF ignored"); other bytes there are an error
// naming their offset. Before, both were "the bzip2 file is damaged (its data are
// not valid after line 400): bzip2 data invalid: bad magic value in
// continuation file". A single byte after the stream stays "truncated":
// compress/bzip2 says io.ErrUnexpectedEOF for it, as for a stream cut short.
func TestDecompressBzip2Padding(t *testing.T) {
	text := sampleText(400)
	bz := bzip2Bytes(t, text)
	padded := func(zeros int, tail ...byte) []byte {
		return append(append(bytes.Clone(bz), make([]byte, zeros)...), tail...)
	}
	for _, c := range []struct {
		name   string
		data   []byte
		offset int64 // of the trailing garbage; -1: read whole, no error
		zeros  int64
	}{
		{"2 zero bytes", padded(2), -1, 0},
		{"a 4096-byte block", padded(4096 - len(bz)%4096), -1, 0},
		{"garbage", padded(0, []byte("garbage")...), int64(len(bz)), 0},
		{"a zero, then garbage", padded(1, 'x', 'y'), int64(len(bz) + 1), 1},
		{"zeros, then garbage", padded(300, 'x'), int64(len(bz) + 300), 300},
		{"another stream", append(bytes.Clone(bz), bz...), -2, 0},
	} {
		got, err := io.ReadAll(Decompress(bytes.NewReader(c.data)))
		want := text
		if c.offset == -2 {
			want = append(bytes.Clone(text), text...)
		}
		if c.offset < 0 {
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("%s: %d bytes, %v; want the text", c.name, len(got), err)
			}
			continue
		}
		var td *TrailingDataError
		if !errors.As(err, &td) || td.Offset != c.offset || td.Zeros != c.zeros || !bytes.Equal(got, text) ||
			!strings.Contains(err.Error(), fmt.Sprintf("the bzip2 file has trailing garbage at byte offset %d", c.offset)) || !strings.Contains(err.Error(), "after line 400") {
			t.Errorf("%s: %d bytes, %v; want the text, then trailing garbage at %d after %d zeros and line 400", c.name, len(got), err, c.offset, c.zeros)
		}
	}
}

// zeroReader reads zero bytes for ever.
type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// A file compressed twice (x.gz.gz, or bzip2 inside gzip) holds compressed data,
// which no text starts with: it is decompressed again, and a cut one is named as
// truncated with what it holds ("the gzip file (gzip inside gzip) is
// truncated"). Before, the inner gzip's bytes were handed on as text and refused
// as garbage by the reader of the format ("line 1 is not a results line").
func TestDecompressTwice(t *testing.T) {
	text := sampleText(3000)
	gz := func(b []byte) []byte { return gzipBytes(t, b, 1) }
	gzgz := gz(gz(text))
	inputs := []struct {
		name    string
		data    []byte
		layers  string
		cutSays string // what the error of the input cut at 2/3 says
	}{
		{"gzip inside gzip", gzgz, "gzip inside gzip", "the gzip file (gzip inside gzip) is truncated: it ends after line "},
		{"bzip2 inside gzip", gz(bzip2Bytes(t, text)), "bzip2 inside gzip", "the gzip file (bzip2 inside gzip) is truncated: it ends before its first line is whole"},
		// bzip2 hands on nothing of a block cut short: what it holds is not known
		{"gzip inside bzip2", bzip2Bytes(t, gz(text)), "gzip inside bzip2", "the bzip2 file is truncated: it ends before its first line is whole"},
		{"4 times", gz(gz(gz(gz(text)))), "gzip inside gzip inside gzip inside gzip", "the gzip file (gzip inside gzip inside gzip inside gzip) is truncated: it ends after line "},
	}
	for _, c := range inputs {
		got, err := io.ReadAll(Decompress(iotest.HalfReader(bytes.NewReader(c.data))))
		if err != nil || !bytes.Equal(got, text) {
			t.Errorf("%s: %d bytes, %v; want the %d bytes of the text", c.name, len(got), err, len(text))
		}
		got, err = io.ReadAll(Decompress(bytes.NewReader(c.data[:len(c.data)*2/3])))
		var ce *CompressedError
		if !errors.As(err, &ce) || !bytes.HasPrefix(text, got) || ce.Lines != bytes.Count(got, []byte{'\n'}) ||
			!strings.Contains(err.Error(), c.cutSays) {
			t.Errorf("%s cut: %d bytes, %v; want whole lines, then %q", c.name, len(got), err, c.cutSays)
		}
	}
	_, err := io.ReadAll(Decompress(bytes.NewReader(gz(gz(gz(gz(gz(text))))))))
	if ce := (*CompressedError)(nil); !errors.As(err, &ce) || !errors.Is(err, errTooManyLayers) || !strings.Contains(err.Error(), "compressed more than 4 times") {
		t.Errorf("5 times: %v", err)
	}
	// Inner data that only start like gzip are not text either: a bad header.
	_, err = io.ReadAll(Decompress(bytes.NewReader(gz([]byte("\x1f\x8b\x99 not gzip\n")))))
	if !strings.Contains(fmt.Sprint(err), "the gzip file (gzip inside gzip) is damaged (a bad gzip header inside)") {
		t.Errorf("gzip of a bad gzip header: %v", err)
	}
}

// A read error of the input itself (a cancelled read, a cap) comes back as it is,
// not as a damaged file.
func TestDecompressPassesReadErrors(t *testing.T) {
	boom := errors.New("boom")
	gz := gzipBytes(t, sampleText(5000), 1)
	r := io.MultiReader(bytes.NewReader(gz[:len(gz)/2]), iotest.ErrReader(boom))
	_, err := io.ReadAll(Decompress(r))
	if ce := (*CompressedError)(nil); !errors.Is(err, boom) || errors.As(err, &ce) {
		t.Errorf("gzip then a read error: %v", err)
	}
	_, err = io.ReadAll(Decompress(iotest.ErrReader(boom)))
	if !errors.Is(err, boom) {
		t.Errorf("a read error first: %v", err)
	}
}

// The start is told from what one read brings: a line typed on standard input is
// handed on before the next one comes (hostlist reads a terminal).
func TestDecompressDoesNotWaitForMore(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	go pw.Write([]byte("n1\n"))
	done := make(chan string, 1)
	go func() {
		b := make([]byte, 100)
		n, _ := Decompress(pr).Read(b)
		done <- string(b[:n])
	}()
	select {
	case got := <-done:
		if got != "n1\n" {
			t.Errorf("read %q", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the first read waits for more than the bytes typed")
	}
}

// A line longer than holdMax is handed on in parts; cut inside it, the error says
// so.
func TestDecompressLongLineCut(t *testing.T) {
	text := append([]byte("first\n"), bytes.Repeat([]byte("x"), 3*holdMax)...)
	gz := gzipBytes(t, text, 1)
	_, err := io.ReadAll(Decompress(bytes.NewReader(gz[:len(gz)-20])))
	if ce := (*CompressedError)(nil); !errors.As(err, &ce) || !strings.Contains(err.Error(), "ends inside line 2") {
		t.Errorf("cut inside a long line: %v", err)
	}
}

// CheckStart names the compressed formats: gzip and bzip2 (where plain text is
// read), xz and zstd (never read); text that merely starts "BZh" is text.
func TestCheckStartCompressed(t *testing.T) {
	for _, c := range []struct{ start, want string }{
		{"\x1f\x8b\x08", "gzip-compressed (it starts with 1F 8B): gunzip it first"},
		{"BZh91AY&SY", "bzip2-compressed (it starts with 42 5A 68): bunzip2 it first"},
		{"\xfd7zXZ\x00\x00", "xz-compressed (it starts with FD 37 7A 58 5A 00), which procalloc does not read: decompress it into procalloc's standard input ('-'), xz -dc FILE | procalloc ... -, or unxz it first"},
		{"\x28\xb5\x2f\xfd\x00", "zstd-compressed (it starts with 28 B5 2F FD), which procalloc does not read: decompress it into procalloc's standard input ('-'), zstd -dc FILE | procalloc ... -, or unzstd it first"},
		{"BZh9 node1", ""},
	} {
		err := CheckStart(c.start)
		if c.want == "" {
			if err != nil {
				t.Errorf("%q: %v", c.start, err)
			}
			continue
		}
		if !errors.Is(err, ErrCompressed) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.start, err, c.want)
		}
	}
}

// TestDecompressRefusesUnread: an input that starts as xz or zstd, which
// Decompress does not undo, is its *CompressedStartError at the first read, with
// nothing handed on, so a reader that does not look at the start itself (a
// ranking named in bf:FILE, read as a hostlist) does not call its bytes
// malformed; inside gzip it is handed on as gzip's content (the reader's own
// CheckStart sees it there).
func TestDecompressRefusesUnread(t *testing.T) {
	for _, c := range []struct{ data, format string }{
		{"\xfd7zXZ\x00\x00\x04\xe6\xd6\xb4\x46", "xz"},
		{"\x28\xb5\x2f\xfd\x24\x05\x29\x00\x00", "zstd"},
	} {
		got, err := io.ReadAll(Decompress(strings.NewReader(c.data)))
		var cs *CompressedStartError
		if !errors.As(err, &cs) || cs.Format != c.format || len(got) != 0 || !errors.Is(err, ErrCompressed) {
			t.Errorf("%s: read %q, %v; want nothing and a CompressedStartError", c.format, got, err)
		}
		inner, err := io.ReadAll(Decompress(bytes.NewReader(gzipBytes(t, []byte(c.data), 1))))
		if err != nil || string(inner) != c.data {
			t.Errorf("%s inside gzip: %q, %v", c.format, inner, err)
		}
	}
	// Text that only looks like a start (bzip2's "BZh" with no block magic) is text.
	if got, err := io.ReadAll(Decompress(strings.NewReader("BZh9 node1\n"))); err != nil || string(got) != "BZh9 node1\n" {
		t.Errorf("BZh text: %q, %v", got, err)
	}
}

// FuzzDecompress: any text, gzip-compressed and cut anywhere, reads back as its
// whole lines up to the cut and a *CompressedError, or whole; any input read
// plain is handed on unchanged.
func FuzzDecompress(f *testing.F) {
	f.Add([]byte("a b\nc d\n"), 5)
	f.Add([]byte("BZh91AY&SY"), 0)
	f.Add([]byte("\x1f\x8b"), 1)
	f.Add([]byte("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03K\xe4\x02\x00\x07\xa1\xea\xdd\x02\x00\x00\x00\x00\x00\x00\x00"), 40) // gzip -n of "a\n", zero-padded
	f.Fuzz(func(t *testing.T, text []byte, cut int) {
		want, wantErr := io.ReadAll(Decompress(bytes.NewReader(text)))
		var unread *CompressedStartError
		if f, _ := compressedFormat(text); f == "" && checkCompressedStart(string(text[:min(len(text), StartLen)])) != nil {
			if !errors.As(wantErr, &unread) || len(want) != 0 {
				t.Fatalf("xz or zstd %q read as %q, %v", text, want, wantErr)
			}
		} else if f == "" && (wantErr != nil || !bytes.Equal(want, text)) {
			t.Fatalf("plain %q read as %q, %v", text, want, wantErr)
		}
		gz := gzipBytes(t, text, 1)
		cut = max(0, min(cut, len(gz)))
		if cut < 2 {
			cut = len(gz) // shorter than the magic bytes: plain, as above
		}
		// text as it reads (decompressed again when it is itself compressed)
		got, err := io.ReadAll(Decompress(bytes.NewReader(gz[:cut])))
		if err == nil {
			if !bytes.Equal(got, want) || wantErr != nil {
				t.Fatalf("cut at %d of %d: read %q without error, want %q, %v", cut, len(gz), got, want, wantErr)
			}
			return
		}
		var ce *CompressedError
		if !errors.As(err, &ce) {
			t.Fatalf("cut at %d: %v", cut, err)
		}
		if !bytes.HasPrefix(want, got) || ce.Lines != bytes.Count(got, []byte{'\n'}) {
			t.Fatalf("cut at %d: read %q then %v", cut, got, err)
		}
	})
}
