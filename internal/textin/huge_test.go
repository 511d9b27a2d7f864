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
