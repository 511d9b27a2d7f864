package textin

import (
	"bufio"
	"errors"
	"strings"
	"testing"
)

// A line beyond a scanner's buffer is said with its line number and the limit,
// wrapping ErrTooLarge, not as bufio's "token too long".
func TestScanErrNamesLineAndLimit(t *testing.T) {
	sc := bufio.NewScanner(strings.NewReader("ok\n" + strings.Repeat("x", 5000) + "\n"))
	sc.Buffer(make([]byte, 16), 1000)
	line := 0
	for sc.Scan() {
		line++
	}
	err := ScanErr(sc.Err(), line+1, 1000)
	if !errors.Is(err, ErrTooLarge) || err.Error() != "line 2 is longer than 1000 bytes, the most this format's lines may be: input too large" {
		t.Fatalf("ScanErr = %v", err)
	}
	if ScanErr(nil, 3, 1000) != nil {
		t.Fatal("ScanErr(nil) is not nil")
	}
	other := errors.New("disk on fire")
	if err := ScanErr(other, 3, 1000); !errors.Is(err, other) || err.Error() != "line 3: disk on fire" {
		t.Fatalf("ScanErr(other) = %v", err)
	}
}

// A UTF-16 input (either byte order) is refused on line 1 as such, not read as
// bytes; UTF-8 with or without its BOM reads as before.
func TestLinesRefusesUTF16(t *testing.T) {
	for _, in := range []string{"\xff\xfe0\x00 \x001\x00\n\x00", "\xfe\xff\x000\x00 \x001\n"} {
		l := NewLines(strings.NewReader(in))
		if l.Next() {
			t.Fatalf("%q: read line %q", in, l.Text())
		}
		if err := l.Err(); !errors.Is(err, ErrUTF16) || !strings.HasPrefix(err.Error(), "line 1: the input is UTF-16 text") {
			t.Fatalf("%q: Err = %v", in, err)
		}
	}
	for _, in := range []string{BOM + "0 1\n", "0 1"} {
		l := NewLines(strings.NewReader(in))
		if !l.Next() || l.Text() != "0 1" || l.Err() != nil {
			t.Fatalf("%q: %q, %v", in, l.Text(), l.Err())
		}
	}
}
