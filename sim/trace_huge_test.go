package sim

import (
	"errors"
	"fmt"
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

// A trace saved with a UTF-8 byte-order mark reads as without it, as sacct
// histories, edge lists and fabric dumps do (before: SWF "line 1: field 1
// "\ufeff1" is not a number", a converted file likewise, an SWF header taken
// for a record).
func TestReadTraceByteOrderMark(t *testing.T) {
	for _, src := range []string{swfSample, "0 4 100 200\n5 2 10 20\n", "1 0 10 3600 4 -1 -1 4 7200 -1 1 1 1 1 1 -1 -1 -1\n"} {
		want, err := ReadTrace(strings.NewReader(src), ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := ReadTrace(strings.NewReader(textin.BOM+src), ReadOptions{})
		if err != nil || fmt.Sprint(got.Jobs) != fmt.Sprint(want.Jobs) || got.Format != want.Format || got.MaxProcs != want.MaxProcs {
			t.Errorf("%.30q with a byte-order mark: %v, %+v; want %+v", src, err, got, want)
		}
	}
}
