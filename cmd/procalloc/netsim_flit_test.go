package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestNetsimFlitFlags: the flit engine's flags reach the engine, show in the JSON,
// and bad values are usage errors that say what is wrong.
func TestNetsimFlitFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--machine", "torus:4x4", "--vcs", "1"}, "a torus needs at least 2"},
		{[]string{"--machine", "mesh:4x4", "--vcs", "0"}, "virtual channels 0"},
		{[]string{"--machine", "mesh:4x4", "--vc-buffer", "-1"}, "vc buffer -1"},
		{[]string{"--machine", "mesh:4x4", "--vc-buffer", "0"}, "vc buffer 0"},
		{[]string{"--machine", "mesh:4x4", "--routing-delay", "-1"}, "routing delay -1"},
		{[]string{"--machine", "mesh:6x4", "--traffic", "bitrev"}, "needs a power-of-two number of nodes, not 24"},
		{[]string{"--machine", "mesh:8x4", "--traffic", "transpose"}, "needs an even power of two nodes"},
		{[]string{"--machine", "fattree:4,2:4", "--traffic", "tornado"}, "needs a mesh or torus"},
		{[]string{"--machine", "mesh:4x4", "--traffic", "hotspot:16"}, "hotspot node 16 is not one of the nodes 0..15"},
		{[]string{"--machine", "mesh:4x4", "--traffic", "hotspot"}, "hotspot needs its nodes"},
		{[]string{"--machine", "mesh:4x4", "--traffic", "hotspot:1,2:3"}, "2 hotspot nodes but 1 weights"},
		{[]string{"--machine", "mesh:4x4", "--traffic", "diagonal"}, `unknown traffic pattern "diagonal"`},
		{[]string{"--machine", "mesh:4x4", "--st-delay", "0"}, "switch traversal delay 0"},
		{[]string{"--machine", "mesh:4x4", "--engine", "packet"}, `--engine "packet": flit or message`},
		{[]string{"--machine", "mesh:4x4", "--router-delay", "2"}, "--router-delay is the message engine's"},
		{[]string{"--machine", "mesh:4x4", "--engine", "message", "--vcs", "2"}, "--vcs is the flit engine's"},
	} {
		args := append([]string{"netsim", "--rate", "0.1"}, tc.args...)
		code, _, stderr := runCLI(t, "", args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: exit %d, %q; want exit 2 and %q", strings.Join(args, " "), code, stderr, tc.want)
		}
	}
	code, out, stderr := runCLI(t, "", "netsim", "--machine", "torus:4x4", "--rate", "0.05,0.9", "--vcs", "4", "--vc-buffer", "9",
		"--link-delay", "3", "--sw-alloc-delay", "2", "--warmup", "500", "--measure", "2000", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var o netsimOutput
	if err := json.Unmarshal([]byte(out), &o); err != nil {
		t.Fatal(err)
	}
	want := netsimFlitJSON{VCs: 4, VCBuffer: 9, RoutingDelay: 1, VCAllocDelay: 1, SwitchAllocDelay: 2, SwitchDelay: 1, LinkDelay: 3}
	if o.Engine != "flit" || o.Flit == nil || *o.Flit != want || len(o.Points) != 2 {
		t.Fatalf("JSON %+v, flit %+v; want the flit engine with %+v and two points", o, o.Flit, want)
	}
	// A lone packet: 2 + H(R+VA+SA+ST+L) + (R+VA+SA+ST+1) + S-1 with mean H = 2 on
	// the 4x4 torus (all pairs, self included): 2 + 2*8 + 6 + 31.
	if zl := o.Points[0].ZeroLoadLatency; zl != 55 {
		t.Errorf("zero-load latency %v, want 55", zl)
	}
	if !o.Points[1].Saturated || o.Points[0].Saturated {
		t.Errorf("saturation at 0.05 %v, at 0.9 %v; want only the second", o.Points[0].Saturated, o.Points[1].Saturated)
	}
	// The message engine still answers, and says so.
	code, out, _ = runCLI(t, "", "netsim", "--machine", "mesh:4x4", "--rate", "0.1", "--engine", "message", "--json", "--measure", "2000")
	if code != 0 || !strings.Contains(out, `"engine": "message"`) || strings.Contains(out, `"flit"`) {
		t.Fatalf("message engine: exit %d, %s", code, out)
	}
}
