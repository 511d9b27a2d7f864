package sim

import (
	"strings"
	"testing"
)

// A spec whose fields hold 100,000 characters is refused with messages quoting them
// clipped.
func TestValidateHugeFields(t *testing.T) {
	q := strings.Repeat("q", 100000)
	s := &Spec{Trace: "t.swf", MachineSpec: "mesh:4x4", Alloc: q, Sched: Sched(q), Compat: Compat(q), Format: Format(q), TaskOrder: TaskOrder(q)}
	err := s.Validate()
	if err == nil {
		t.Fatal("accepted")
	}
	for _, line := range strings.Split(err.Error(), "\n") {
		if len(line) > 600 {
			t.Errorf("message line of %d bytes: %.200s", len(line), line)
		}
	}
}
