package sweep

import (
	"strings"
	"testing"
)

// Check names every machine spec ParseMachine would refuse and every allocator of
// no known family, with their entries, and accepts a sweep of good ones (whose
// allocator arguments are the items' to check, on their machines).
func TestSpecCheck(t *testing.T) {
	s, err := Parse([]byte("traces: [t]\nmachines: [mesh:0x4, mesh:4x4, hypercube:3, \"fattree:4,2:4\"]\nallocators: [mc1x1, MC1x1, \"bf:snake\", \"mc1x1:tbb\"]\n"), "s.yaml")
	if err != nil {
		t.Fatal(err)
	}
	err = s.Check()
	if err == nil {
		t.Fatal("accepted")
	}
	msg := err.Error()
	for _, want := range []string{
		`machines: entry 1: machine spec "mesh:0x4": size "0" is not a positive integer`,
		`machines: entry 3: machine spec "hypercube:3": unknown kind "hypercube"`,
		`allocators: entry 2 "MC1x1": unknown allocator "MC1x1"; valid: `,
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
	for _, notWant := range []string{"entry 2: machine", "entry 4", `"bf:snake"`} {
		if strings.Contains(msg, notWant) {
			t.Errorf("error %q names a good entry (%q)", msg, notWant)
		}
	}
	good, err := Parse([]byte("traces: [t]\nmachines: [mesh:4x4, \"fattree:4,2:4\", torus:4x4x4]\nallocators: [mc1x1, \"bf:snake\", \"mc1x1:tb=3,9,3,2\"]\n"), "g.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := good.Check(); err != nil {
		t.Errorf("good sweep: %v", err)
	}
}
