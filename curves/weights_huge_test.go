package curves

import (
	"strings"
	"testing"
)

// Weight specs of 100,000 characters are refused with messages quoting them clipped.
func TestParseWeightsHugeErrors(t *testing.T) {
	q, nines := strings.Repeat("q", 100000), strings.Repeat("9", 100000)
	for _, spec := range []string{q, "list:1," + q, "list:1," + nines, "exp:2:" + nines, "exp:" + q + ":3", q + ":1"} {
		_, err := ParseWeights(spec)
		if err == nil {
			t.Fatalf("%.30q... accepted", spec)
		}
		if len(err.Error()) > 400 {
			t.Errorf("%.30q...: message of %d bytes: %.200s", spec, len(err.Error()), err)
		}
	}
}
