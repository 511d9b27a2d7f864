package main

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

// TestSimEngineFlags: the flit engine's flags, their errors (exit 2, naming the
// flag), and a replay on it whose JSON says so.
func TestSimEngineFlags(t *testing.T) {
	llnl := "../../sim/testdata/LLNL-T3D-1996-2.converted.txt.gz"
	base := []string{"sim", "--trace", llnl, "--to", "30000", "--alloc", "mc1x1", "--comm", "n-body"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--machine", "mesh:16x16", "--engine", "flit", "--vcs", "0"}, "--vcs 0: must be at least 1"},
		{[]string{"--machine", "mesh:16x16", "--engine", "flit", "--vc-buffer", "-1"}, "--vc-buffer -1: must be at least 1"},
		{[]string{"--machine", "mesh:16x16", "--vcs", "2"}, "--vcs configures the flit engine"},
		{[]string{"--machine", "mesh:16x16", "--engine", "flit", "--router-delay", "3"}, "--router-delay is the message engine's"},
		{[]string{"--machine", "mesh:16x16", "--engine", "wormhole"}, "--engine \"wormhole\""},
		{[]string{"--machine", "torus:16x16", "--engine", "flit", "--vcs", "1"}, "--vcs: flit engine on torus"},
		{[]string{"--machine", "mesh:16x16", "--task-order", "shells"}, "--task-order"},
		{[]string{"--machine", "mesh:16x16", "--task-order", "curve:nosuch"}, "--task-order"},
	} {
		code, _, stderr := runCLI(t, "", append(append([]string{}, base...), tc.args...)...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 and %q", strings.Join(tc.args, " "), code, stderr, tc.want)
		}
	}
	code, stdout, stderr := runCLI(t, "", append(base, "--machine", "mesh:16x16", "--engine", "flit", "--vcs", "2", "--vc-buffer", "16", "--json")...)
	if code != 0 {
		t.Fatalf("flit replay: exit %d: %s", code, stderr)
	}
	var out struct {
		Comm struct {
			Engine string `json:"engine"`
			Flit   struct {
				VCs      int   `json:"vcs"`
				VCBuffer int   `json:"vc_buffer_flits"`
				FlitHops int64 `json:"flit_hops"`
			} `json:"flit"`
			Messages int64 `json:"messages"`
		} `json:"comm"`
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatal(err)
	}
	if c := out.Comm; c.Engine != "flit" || c.Flit.VCs != 2 || c.Flit.VCBuffer != 16 || c.Messages == 0 || c.Flit.FlitHops < c.Messages {
		t.Errorf("flit replay's comm summary %+v", c)
	}
	// The table shows the configuration in short rows: one long row pushed every
	// value of the table 40 columns right.
	code, stdout, stderr = runCLI(t, "", append(base, "--machine", "mesh:16x16", "--engine", "flit", "--vcs", "2", "--vc-buffer", "16")...)
	if code != 0 {
		t.Fatalf("flit replay: exit %d: %s", code, stderr)
	}
	if !regexp.MustCompile(`flit engine: VCs x buffer \(flits\) +2 x 16\n`).MatchString(stdout) {
		t.Errorf("flit replay's table without its VCs x buffer row:\n%s", stdout)
	}
	for _, line := range strings.Split(strings.TrimRight(stdout, "\n"), "\n")[1:] {
		if len(line) > 70 {
			t.Errorf("table line of %d characters: %q", len(line), line)
		}
	}
}
