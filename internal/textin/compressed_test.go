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
	if _, err := exec.LookPath("bzip2"); err != nil {
		t.Skip("no bzip2 command to compress the test's input:", err)
	}
	cmd := exec.Command("bzip2", "-c")
	cmd.Stdin = bytes.NewReader(data)
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
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
		{"garbage after", append(bytes.Clone(gz), "garbage after the data\n"...), "a bad header after line 100"},
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
		{"\xfd7zXZ\x00\x00", "xz-compressed (it starts with FD 37 7A 58 5A 00), which procalloc does not read: unxz it"},
		{"\x28\xb5\x2f\xfd\x00", "zstd-compressed"},
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

// FuzzDecompress: any text, gzip-compressed and cut anywhere, reads back as its
// whole lines up to the cut and a *CompressedError, or whole; any input read
// plain is handed on unchanged.
func FuzzDecompress(f *testing.F) {
	f.Add([]byte("a b\nc d\n"), 5)
	f.Add([]byte("BZh91AY&SY"), 0)
	f.Add([]byte("\x1f\x8b"), 1)
	f.Fuzz(func(t *testing.T, text []byte, cut int) {
		if got, err := io.ReadAll(Decompress(bytes.NewReader(text))); err == nil {
			if f, _ := compressedFormat(text); f == "" && !bytes.Equal(got, text) {
				t.Fatalf("plain %q read as %q", text, got)
			}
		}
		gz := gzipBytes(t, text, 1)
		cut = max(0, min(cut, len(gz)))
		if cut < 2 {
			cut = len(gz) // shorter than the magic bytes: plain, as above
		}
		got, err := io.ReadAll(Decompress(bytes.NewReader(gz[:cut])))
		if err == nil {
			if !bytes.Equal(got, text) {
				t.Fatalf("cut at %d of %d: read %q without error, want %q", cut, len(gz), got, text)
			}
			return
		}
		var ce *CompressedError
		if !errors.As(err, &ce) {
			t.Fatalf("cut at %d: %v", cut, err)
		}
		if !bytes.HasPrefix(text, got) || ce.Lines != bytes.Count(got, []byte{'\n'}) {
			t.Fatalf("cut at %d: read %q then %v", cut, got, err)
		}
	})
}
