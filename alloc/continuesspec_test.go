package alloc

import "testing"

func TestContinuesSpec(t *testing.T) {
	for piece, want := range map[string]bool{
		"9": true, "3": true, "-1": true, "+2": true, ".5": true, "4:4,4:16": true,
		"mc1x1": false, "bf:hilbert": false, "mesh:8x8": false, "fattree:4,4": false, "": false, " 9": false,
	} {
		if got := ContinuesSpec(piece); got != want {
			t.Errorf("ContinuesSpec(%q) = %v, want %v", piece, got, want)
		}
	}
	// Every registered allocator name starts a spec of its own.
	for _, n := range Names() {
		if ContinuesSpec(n) {
			t.Errorf("allocator %q would be read as the continuation of the spec before it", n)
		}
	}
}
