package qap

import (
	"errors"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/internal/textin"
)

// A huge word is refused at the word cap, naming the number, and any quoted word
// is clipped: the message stays short whatever the input.
func TestReadQAPLIBHugeWord(t *testing.T) {
	_, err := ReadQAPLIB(strings.NewReader("2\n1 " + strings.Repeat("7", 1<<20) + " 3 4\n"))
	if !errors.Is(err, textin.ErrTooLarge) || !strings.Contains(err.Error(), "number 3 (A[1][2])") {
		t.Fatalf("1 MB number: %.300v", err)
	}
	for _, in := range []string{
		"2\n1 " + strings.Repeat("x", 60000) + "\n",     // not a number, under the cap
		"1\n1\n1\n" + strings.Repeat("y", 60000) + "\n", // trailing text
		strings.Repeat("9", 60000) + "\n",               // n out of range
	} {
		_, err := ReadQAPLIB(strings.NewReader(in))
		if err == nil || len(err.Error()) > 300 {
			t.Errorf("message of %d bytes: %.200v", len(err.Error()), err)
		}
	}
}
