package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/sim"
)

// TestSimWarnsOfANearlyIdleCommReplay: a communication replay whose jobs ran a
// sliver of their trace node-seconds (--msgs-per-second lowered alone) warns on
// stderr, and its JSON and table say the fraction (run_time_fraction); the same
// rate with longer cycles (examples/demo-sweep.yaml's pairing) and the defaults do
// not warn. A hundredth of the rate sends about a hundredth of the messages, so
// the fraction falls more than tenfold. Before, nothing warned.
func TestSimWarnsOfANearlyIdleCommReplay(t *testing.T) {
	base := []string{"sim", "--trace", "../../sim/testdata/LLNL-T3D-1996-2.converted.txt.gz", "--to", "30000", "--machine", "mesh:16x16", "--drop-larger", "--alloc", "mc1x1", "--comm", "n-body"}
	fraction := map[string]float64{}
	for _, c := range []struct {
		name  string
		extra []string
		warns bool
	}{
		{"defaults", nil, false},
		{"rate lowered", []string{"--msgs-per-second", "0.01"}, true},
		{"rate and cycle", []string{"--msgs-per-second", "0.01", "--cycle-seconds", "10"}, false},
	} {
		code, out, stderr := runCLI(t, "", append(append(base, c.extra...), "--json")...)
		var r struct{ sim.Summary }
		if code != 0 || json.Unmarshal([]byte(out), &r) != nil || r.Comm == nil {
			t.Fatalf("%s: exit %d, %q", c.name, code, stderr)
		}
		f := r.Comm.RunTimeFraction
		fraction[c.name] = f
		warned := strings.Contains(stderr, "warning: the network ran the jobs in") && strings.Contains(stderr, "--cycle-seconds")
		if warned != c.warns || f <= 0 || (f < sim.NearlyIdleFraction) != c.warns {
			t.Errorf("%s: run_time_fraction %g, warned %v (want %v): %q", c.name, f, warned, c.warns, stderr)
		}
		_, table, _ := runCLI(t, "", append(base, c.extra...)...)
		if !strings.Contains(table, "run time / trace's (node-seconds)") {
			t.Errorf("%s: the table has no run time fraction:\n%s", c.name, table)
		}
	}
	if fraction["rate lowered"]*10 > fraction["defaults"] {
		t.Errorf("a hundredth of the rate: fraction %g against %g", fraction["rate lowered"], fraction["defaults"])
	}
}
