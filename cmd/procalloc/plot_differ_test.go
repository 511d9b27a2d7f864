package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/sim/sweep"
)

// TestDifferingParam names the first parameter in which two items differ, in the
// order of whereKeys, and the same item twice as such.
func TestDifferingParam(t *testing.T) {
	base := sweep.Params{Trace: "t", Machine: "mesh:4x4", Alloc: "mc1x1", Sched: "fcfs", Contract: 1, Pattern: "none", Seed: 1, Flags: []string{"--drop-larger"}}
	for _, c := range []struct {
		change func(*sweep.Params)
		want   string
	}{
		{func(p *sweep.Params) { p.Trace = "u" }, "trace"},
		{func(p *sweep.Params) { p.Machine = "mesh:5x5"; p.Seed = 2 }, "machine"},
		{func(p *sweep.Params) { p.Sched = "easy" }, "sched"},
		{func(p *sweep.Params) { p.Pattern = "n-body" }, "pattern"},
		{func(p *sweep.Params) { p.Contract = 0.5 }, "contract"},
		{func(p *sweep.Params) { p.Seed = 2 }, "seed"},
		{func(p *sweep.Params) { p.Engine = "flit" }, "engine"},
		{func(p *sweep.Params) { p.Flags = []string{"--vcs", "2"} }, `flags (["--drop-larger"] and ["--vcs","2"])`},
		{func(p *sweep.Params) {}, "nothing: the same item is given twice"},
	} {
		b := base
		b.Flags = append([]string(nil), base.Flags...)
		c.change(&b)
		if got := differingParam(base, b); !strings.HasPrefix(got, c.want) {
			t.Errorf("%+v vs %+v: %q, want %q", base, b, got, c.want)
		}
	}
}

// TestPlotAmbiguousCompareOutputs: plot of two compare --json outputs whose runs
// collide (one allocator at one load factor) is an error naming what differs:
// the machine, or nothing (the same output twice): exit 1; --where that matches
// no item is a usage error (exit 2); narrowed with --where, it plots.
func TestPlotAmbiguousCompareOutputs(t *testing.T) {
	trace := trace200(t)
	dir := t.TempDir()
	out := func(machine string) string {
		p := filepath.Join(dir, strings.ReplaceAll(machine, ":", "_")+".json")
		if code, _, stderr := runCLI(t, "", "compare", "--trace", trace, "--machine", machine, "--alloc", "mc1x1", "--json", "-o", p); code != 0 {
			t.Fatalf("compare on %s: exit %d: %s", machine, code, stderr)
		}
		return p
	}
	a, b := out("mesh:4x4"), out("mesh:5x5")
	twice := filepath.Join(dir, "again.json")
	os.WriteFile(twice, mustRead(t, a), 0o644)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{a, b}, 1, "two items for mc1x1 at contract = 1 differ in machine: narrow them with --where"},
		{[]string{a, twice}, 1, "differ in nothing: the same item is given twice"},
		{[]string{a, "--where", "machine=mesh:9x9"}, 2, `--where "machine=mesh:9x9" matches none of the 1 items`},
	} {
		code, _, stderr := runCLI(t, "", append([]string{"plot", "--y", "mean_response"}, c.args...)...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("plot %q: exit %d, %q; want %d and %q", c.args, code, stderr, c.code, c.want)
		}
	}
	if code, out, stderr := runCLI(t, "", "plot", "--y", "mean_response", a, b, "--where", "machine=mesh:5x5"); code != 0 || !strings.Contains(out, "mc1x1") {
		t.Errorf("narrowed: exit %d, %q %q", code, out, stderr)
	}
}
