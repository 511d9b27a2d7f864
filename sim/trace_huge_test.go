package sim

import (
	"errors"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/internal/textin"
)

// A trace line past the reader's cap names its line and the cap (it was bufio's
// "token too long"), for SWF, converted and sacct input alike.
func TestReadTraceHugeLine(t *testing.T) {
	big := strings.Repeat("7", 2<<20)
	for name, in := range map[string]string{
		"first line": big + "\n",
		"swf":        "; MaxProcs: 4\n" + big + "\n",
		"converted":  "0 1 10 10\n" + big + "\n",
		"sacct":      "JobID|Submit|Start|End|NNodes|NodeList|State\n" + big + "\n",
	} {
		_, err := ReadTrace(strings.NewReader(in), ReadOptions{})
		if !errors.Is(err, textin.ErrTooLarge) || !strings.Contains(err.Error(), " is longer than ") || len(err.Error()) > 300 {
			t.Errorf("%s: %.200v", name, err)
		}
	}
}

// A trace in UTF-16 is refused as such on line 1.
func TestReadTraceUTF16(t *testing.T) {
	_, err := ReadTrace(strings.NewReader("\xff\xfe0\x00 \x001\x00 \x001\x000\x00 \x001\x000\x00\n\x00"), ReadOptions{})
	if !errors.Is(err, textin.ErrUTF16) || !strings.HasPrefix(err.Error(), "line 1: ") {
		t.Errorf("ReadTrace(UTF-16) = %v", err)
	}
}
