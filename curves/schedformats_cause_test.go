package curves

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// TestRankfileErrorKeepsCause: a rankfile line cut short is an error naming the line
// that still wraps the scanner's io.ErrUnexpectedEOF.
func TestRankfileErrorKeepsCause(t *testing.T) {
	_, err := ReadRanking(strings.NewReader("rank 0=n0 slot=0\nrank 1\n"), FormatRankfile, 2, []string{"n0", "n1"})
	if err == nil || !strings.Contains(err.Error(), "line 2") || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("error %v, want one naming line 2 and wrapping io.ErrUnexpectedEOF", err)
	}
}
