package alloc

import (
	"strings"
	"testing"

	"github.com/procalloc/procalloc/topo"
)

// Allocator specs of 100,000 characters are refused with messages that quote them
// clipped (a flag value may be 128 KiB: every quote of it was whole).
func TestParseHugeSpecErrors(t *testing.T) {
	m, err := topo.ParseMachine("mesh:8x8")
	if err != nil {
		t.Fatal(err)
	}
	q := strings.Repeat("q", 100000)
	for _, spec := range []string{q, "mc1x1:" + q + "=1", "mc1x1:tb=" + q, "bf:" + q, "paging:hilbert:" + q, "genalg:" + q, "mbs:" + q, "slurm:" + q} {
		_, err := Parse(spec, m, Options{})
		if err == nil {
			t.Fatalf("%.30q... accepted", spec)
		}
		if len(err.Error()) > 600 { // two clipped quotes and the list of valid names
			t.Errorf("%.30q...: message of %d bytes: %.200s", spec, len(err.Error()), err)
		}
	}
}
