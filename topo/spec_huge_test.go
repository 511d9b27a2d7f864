package topo

import (
	"strings"
	"testing"
)

// Machine specs of 100,000 characters are refused with messages that quote them
// clipped: the spec, the size, the shape, the kind, the option and the grid's
// dimension list.
func TestMachineSpecHugeErrors(t *testing.T) {
	big := strings.Repeat("9", 100000)
	for _, spec := range []string{
		"mesh:" + big + "x2",
		"mesh:" + strings.Repeat("2x", 10000) + "2",
		"mesh:4x4:wrap=" + strings.Repeat("q", 100000),
		"mesh:4x4:" + strings.Repeat("q", 100000),
		strings.Repeat("z", 100000) + ":4x4",
		"fattree:" + big,
		"dragonfly:" + strings.Repeat("q", 100000) + "=1",
	} {
		_, err := ParseMachine(spec)
		if err == nil {
			t.Fatalf("%.30q... accepted", spec)
		}
		if len(err.Error()) > 500 { // up to three clipped quotes
			t.Errorf("%.30q...: message of %d bytes: %.200s", spec, len(err.Error()), err)
		}
	}
}
