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
