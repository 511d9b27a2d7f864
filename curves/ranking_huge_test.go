package curves

import (
	"errors"
	"testing"

	"github.com/procalloc/procalloc/internal/textin"
)

// A ranking file in UTF-16 is refused as such, not as an empty ranking file.
func TestDetectFormatUTF16(t *testing.T) {
	if _, err := DetectFormat([]byte("\xff\xfe0\x00 \x001\x00\n\x00")); !errors.Is(err, textin.ErrUTF16) {
		t.Errorf("DetectFormat(UTF-16) = %v", err)
	}
}
