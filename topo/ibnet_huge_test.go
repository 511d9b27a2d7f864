package topo

import (
	"errors"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/internal/textin"
)

// Huge tokens of ibnetdiscover output and node-name-maps are quoted clipped, and a
// line past the reader's cap names its line and the cap.
func TestIBNetHugeTokens(t *testing.T) {
	big := strings.Repeat("a", 1<<20)
	for _, in := range []string{
		"Switch\t36 \"S-" + big + "\"\n",
		"Switch\t36 \"S-0000000000000001\"\n" + big + "\n",
		"Switch\t36 \"S-0000000000000001\"\n[1] " + big + "\n",
	} {
		_, err := ReadIBNetDiscover(strings.NewReader(in), nil)
		if err == nil || len(err.Error()) > 300 || !strings.HasPrefix(err.Error(), "line ") {
			t.Errorf("message of %d bytes: %.200v", len(err.Error()), err)
		}
	}
	_, err := ReadNodeNameMap(strings.NewReader("0x1 n1\n0x2 " + big + "\n"))
	if !errors.Is(err, textin.ErrTooLarge) || !strings.HasPrefix(err.Error(), "line 2 is longer than") {
		t.Errorf("node-name-map line of 1 MB: %.200v", err)
	}
	for _, in := range []string{
		strings.Repeat("g", 60000) + " n1\n",
		"0x1 \"" + strings.Repeat("q", 60000) + "\n",
		"0x1 " + strings.Repeat("q", 30000) + "\" \n",
	} {
		_, err := ReadNodeNameMap(strings.NewReader(in))
		if err == nil || len(err.Error()) > 300 {
			t.Errorf("node-name-map: message of %d bytes: %.200v", len(err.Error()), err)
		}
	}
}

// A graph file in UTF-16 is refused as such, not as a format it cannot tell.
func TestDetectGraphFormatUTF16(t *testing.T) {
	if _, err := DetectGraphFormat([]byte("\xff\xfe0\x00 \x001\x00\n\x00")); !errors.Is(err, textin.ErrUTF16) {
		t.Errorf("DetectGraphFormat(UTF-16) = %v", err)
	}
}
