package qap

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/internal/shared"
	"github.com/procalloc/procalloc/internal/textin"
)

// A QAPLIB file saved with a UTF-8 byte-order mark and CRLF reads as without them
// (it was `number 1 (n): "\ufeff" is not a finite number`); UTF-16 and xz are
// refused as such.
func TestReadQAPLIBEncodings(t *testing.T) {
	src := "3\n0 1 2\n1 0 3\n2 3 0\n\n0 5 2 5 0 1\n2 1 0\n"
	want, err := ReadQAPLIB(strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	got, err := ReadQAPLIB(strings.NewReader(textin.BOM + strings.ReplaceAll(src, "\n", "\r\n")))
	if err != nil || got.N != want.N || !slices.Equal(got.A, want.A) || !slices.Equal(got.B, want.B) {
		t.Errorf("with a byte-order mark and CRLF: %v, %+v; want %+v", err, got, want)
	}
	for _, c := range []struct {
		data string
		want error
	}{
		{"\xff\xfe3\x00", textin.ErrUTF16},
		{"\xfd7zXZ\x00\x00\x00", textin.ErrCompressed}, // xz: gzip and bzip2 are read (TestReadQAPLIBCompressed)
	} {
		if _, err := ReadQAPLIB(strings.NewReader(c.data)); !errors.Is(err, c.want) || !strings.HasPrefix(err.Error(), "QAPLIB: the input is") {
			t.Errorf("%q: %v, want %v", c.data, err, c.want)
		}
	}
}

// A QAPLIB instance gzip-compressed (had12) reads as the plain one; cut short,
// it is said to be truncated.
func TestReadQAPLIBCompressed(t *testing.T) {
	path, err := shared.Find("qaplib/had12.dat")
	if err != nil {
		t.Skipf("QAPLIB instance had12 is needed: %v", err)
	}
	plain, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(plain)
	zw.Close()
	want, err := ReadQAPLIB(bytes.NewReader(plain))
	if err != nil {
		t.Fatal(err)
	}
	got, err := ReadQAPLIB(bytes.NewReader(gz.Bytes()))
	if err != nil || got.N != want.N || !slices.Equal(got.A, want.A) || !slices.Equal(got.B, want.B) {
		t.Fatalf("gzip: %v", err)
	}
	if _, err := ReadQAPLIB(bytes.NewReader(gz.Bytes()[:gz.Len()/2])); err == nil || !strings.Contains(err.Error(), "the gzip file is truncated") {
		t.Errorf("cut: %v", err)
	}
}
