package main

import (
	"context"
	"flag"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/sim/sweep"
)

// A sweep item's replay (sweep.Params.Replay: the library decodes its flags onto
// sim.Spec's fields, no flag set), once resolved, is the replay sim's command line
// gives for the item's arguments (Params.Args) and flags, files included (--graph,
// --hosts, --span-curve, ...): later flags change what they name, as on a command
// line.
func TestSweepItemSpecIsSimFlags(t *testing.T) {
	e := &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard}
	dir := t.TempDir()
	hostsFile := filepath.Join(dir, "hosts.txt")
	if err := os.WriteFile(hostsFile, []byte("node[001-256]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The sweep file's directory: relative file names in its flags are read from
	// there, as the arguments --list prints them (Args) read them.
	testdata, err := filepath.Abs(filepath.Dir(ibSample))
	if err != nil {
		t.Fatal(err)
	}
	rel := func(p string) string { return filepath.Base(p) }
	spec := &sweep.Spec{Name: "t", Dir: testdata}
	base := sweep.Params{Trace: "t.swf", Machine: "mesh:16x16", Alloc: "bf:hilbert", Sched: "easy", Contract: 0.5, Pattern: "none", Seed: 3}
	flagSets := [][]string{
		nil,
		{"--compat", "premas", "--msgs-per-second", "0.01", "--cycle-seconds", "10", "--from", "100", "--to", "1996-12-01", "--drop-larger"},
		{"--contract", "0.25", "--alloc", "mc1x1", "--sched", "cplant", "--no-memo", "--work", "1.5", "--replicate", "2", "--perturb", "60"},
		{"--pattern", "n-body", "--msg-flits", "16", "--router-delay", "2", "--flit-bytes", "4", "--format", "swf", "--skip-bad", "--json", "--by-size"},
		{"--baseline", "exact", "--baseline-time-limit", "2s"},
		{"--comm", "n-body", "--engine", "flit", "--vcs", "2", "--vc-buffer=16", "--routing-delay", "2", "--vc-alloc-delay", "2", "--sw-alloc-delay", "3", "--st-delay", "2", "--link-delay", "4", "--hop-classes"},
		{"-task-order", "allocator", "--metrics", "sched,route", "--tz", "UTC", "--max-jobs", "5000", "--seed", "9", "--comm-seed", "0x11", "--compat", "default", "--engine", "message"},
		{"--machine", "torus:4x4", "--trace", "u.swf", "--comm", "all-to-all", "--task-order", "returned", "--drop-larger=false", "--skip-bad=1", "--max-jobs", "2000000"},
		// The flags that read files.
		{"--hostlist", "n[001-256]", "--span-curve", "snake"},
		{"--hosts", hostsFile, "--span-curve", "gilbert"},
		{"--machine", "", "--graph", rel(ibSample), "--node-name-map", rel(ibNameMap), "--graph-format", "ibnetdiscover", "--span-curve", "rcm"},
		{"--machine=", "--graph=" + rel(topoYAML), "--topology", "racks"},
		{"--machine=", "--graph", rel(topoConf), "--hostlist", "h[01-16]"},
	}
	for _, comm := range []string{"none", "random"} {
		for _, flags := range flagSets {
			p := base
			p.Pattern, p.Flags = comm, flags
			got, err := sweepItemSpec(spec, sweep.Item{Params: p})
			if err != nil {
				t.Fatalf("%v: %v", flags, err)
			}
			if _, err := got.Resolve(); err != nil {
				t.Fatalf("%v: %v", flags, err)
			}
			fs := flag.NewFlagSet("sim", flag.ContinueOnError)
			var sf simFlags
			sf.declare(fs)
			if err := fs.Parse(p.Args(spec.Dir)); err != nil {
				t.Fatal(err)
			}
			want, err := sf.spec(context.Background(), e, sf.value("alloc"))
			if err != nil {
				t.Fatal(err)
			}
			got.Stdin = want.Stdin // the command's standard input, for files named -
			// The command reads the trace by the path Args gives; the item, by its
			// name in the sweep file from the sweep file's directory.
			if got.Path(got.Trace) != want.Trace {
				t.Errorf("%v: the item reads the trace %s, the command %s", flags, got.Path(got.Trace), want.Trace)
			}
			got.Trace, got.Dir = want.Trace, want.Dir
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s %v:\n got %+v\nwant %+v", comm, flags, got, want)
			}
		}
	}
	// A flag sim does not take, or one that writes files, fails the item.
	for _, flags := range [][]string{{"--per-job", "x.csv"}, {"--bogus"}, {"--sched", "sjf"}, {"--baseline", "optimal"}, {"stray"}} {
		p := base
		p.Flags = flags
		if _, err := sweepItemSpec(spec, sweep.Item{Params: p}); err == nil {
			t.Errorf("%v: accepted", flags)
		}
	}
}

// sim's and compare's flag sets are declared from the one table of sim's replay
// flags (sweep.Flags): every flag of it, with its help text and its default as the
// flag set prints it, and besides it only the flags that write files (the sweep
// has its own -o and --per-job) and compare's own.
func TestSimFlagsAreTheTable(t *testing.T) {
	own := map[string][]string{"sim": {"o", "per-job", "convert"}, "compare": {"o", "alloc", "csv", "svg", "metric", "parallel", "loads", "json"}}
	notCompare := []string{"alloc", "by-size", "json"}
	for cmd, extra := range own {
		fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
		commands[cmd].flags(fs)
		table := map[string]sweep.Flag{}
		for _, f := range sweep.Flags() {
			if cmd == "compare" && slices.Contains(notCompare, f.Name) {
				continue
			}
			table[f.Name] = f
		}
		fs.VisitAll(func(f *flag.Flag) {
			tf, ok := table[f.Name]
			switch {
			case slices.Contains(extra, f.Name):
			case !ok:
				t.Errorf("%s --%s: not in the table of sim's replay flags (sim/sweep/flags.go)", cmd, f.Name)
			case f.Usage != tf.Usage || f.DefValue != tf.Default:
				t.Errorf("%s --%s: usage %q default %q; the table has %q, %q", cmd, f.Name, f.Usage, f.DefValue, tf.Usage, tf.Default)
			}
			delete(table, f.Name)
		})
		for n := range table {
			t.Errorf("%s: the table's --%s is not declared", cmd, n)
		}
	}
}
