package main

import (
	"encoding/json"
	"os"
	"path/filepath"
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

// TestDeadlockNamesTheFlags: a flit replay that deadlocks (a 12-node job sending
// random messages fast over a small dragonfly's one VC a port) names the ways out
// by the command's flags, not by the library's fields (sim.DeadlockError; the
// library's text is checked in package sim): sim's and compare's stderr, and a
// sweep item's results line (there by the sweep file's engines key and flags list).
func TestDeadlockNamesTheFlags(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "twelve.swf")
	if err := os.WriteFile(trace, []byte("1 0 0 1000 12 -1 -1 12 -1 -1 1 -1 -1 -1 -1 -1 -1 -1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const machine = "dragonfly:hosts_per_router=2,routers_per_group=2,intergroup_links=1,num_groups=3"
	load := []string{"--msgs-per-second", "1000", "--cycle-seconds", "0.001", "--msg-flits", "50"}
	const ways = "use the message engine (--engine message, the default), which gives a graph's or dragonfly's links distance classes and cannot deadlock, or keep the flit engine with --hop-classes and --vcs at least the longest route in router-to-router links (3 on a dragonfly)"
	check := func(what, text string) {
		t.Helper()
		if strings.Count(text, "network deadlock") != 1 || !strings.HasSuffix(strings.TrimSpace(text), ways) || strings.Contains(text, "Flit.") || strings.Contains(text, "Engine message") {
			t.Errorf("%s: %q, want the deadlock once and the ways out by flag: %q", what, text, ways)
		}
	}
	for _, cmd := range [][]string{{"sim", "--alloc", "bf:rcm"}, {"compare", "--alloc", "bf:rcm,ff:rcm"}} {
		args := append(append(cmd, "--trace", trace, "--machine", machine, "--comm", "random", "--engine", "flit"), load...)
		code, _, stderr := runCLI(t, "", args...)
		if code != 1 {
			t.Errorf("%s: exit %d, want 1", cmd[0], code)
		}
		check(cmd[0], stderr)
	}
	file := filepath.Join(dir, "dl.yaml")
	if err := os.WriteFile(file, []byte("name: dl\ntraces: [twelve.swf]\nmachines: [\""+machine+"\"]\nallocators: [bf:rcm]\npatterns: [random]\nengines: [flit]\nflags: [--msgs-per-second, \"1000\", --cycle-seconds, \"0.001\", --msg-flits, \"50\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := filepath.Join(dir, "dl.jsonl")
	if code, _, stderr := runCLI(t, "", "sweep", file, "-o", res); code != 1 {
		t.Errorf("sweep: exit %d, want 1: %s", code, stderr)
	}
	lines := readLines(t, res)
	if len(lines) != 1 {
		t.Fatalf("sweep: %d results lines, want 1", len(lines))
	}
	// A sweep item says them in the sweep file's words: its engines key, its flags list.
	const sweepWays = "use the message engine (the sweep file's engines: message, the default), which gives a graph's or dragonfly's links distance classes and cannot deadlock, or keep the flit engine with --hop-classes (in the sweep file's flags) and --vcs (in the sweep file's flags) at least the longest route in router-to-router links (3 on a dragonfly)"
	for _, l := range lines {
		if text := l.Error; strings.Count(text, "network deadlock") != 1 || !strings.HasSuffix(strings.TrimSpace(text), sweepWays) || strings.Contains(text, "Flit.") || strings.Contains(text, "--engine") {
			t.Errorf("sweep's results line: %q, want the deadlock once and the ways out in the sweep file's words: %q", text, sweepWays)
		}
	}
}
