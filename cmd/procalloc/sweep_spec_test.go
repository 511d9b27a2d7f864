package main

import (
	"flag"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/sim"
	"github.com/procalloc/procalloc/sim/sweep"
)

// A sweep item's replay (sweep.Params.Replay: the library decodes its flags onto
// sim.Spec's fields, no flag set) is the replay sim's command line gives for the item's arguments (Params.Args) and flags: later flags
// change what they name, as on a command line.
func TestSweepItemSpecIsSimFlags(t *testing.T) {
	e := &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard}
	spec := &sweep.Spec{Name: "t", Dir: "/sweeps"}
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
	}
	for _, comm := range []string{"none", "random"} {
		for _, flags := range flagSets {
			p := base
			p.Pattern, p.Flags = comm, flags
			got, err := sweepItemSpec(e, spec, sweep.Item{Params: p})
			if err != nil {
				t.Fatalf("%v: %v", flags, err)
			}
			fs := flag.NewFlagSet("sim", flag.ContinueOnError)
			var sf simFlags
			sf.declare(fs)
			allocSpec := fs.String("alloc", "", "")
			baseline := fs.String("baseline", "", "")
			limit := fs.Duration("baseline-time-limit", 0, "")
			fs.Bool("json", false, "")
			fs.Bool("by-size", false, "")
			if err := fs.Parse(p.Args(spec.Dir)); err != nil {
				t.Fatal(err)
			}
			want, err := sf.spec(e, *allocSpec, true)
			if err != nil {
				t.Fatal(err)
			}
			if *baseline == "exact" {
				if want.Baseline == nil {
					want.Baseline = &sim.Baseline{}
				}
				want.Baseline.TimeLimit = *limit
			}
			if (got.Ranking == nil) != (want.Ranking == nil) {
				t.Fatalf("%v: allocator rankings differ", flags)
			}
			got.Ranking, want.Ranking = nil, nil
			if (got.SlurmTree == nil) != (want.SlurmTree == nil) {
				t.Fatalf("%v: allocator topology readers differ", flags)
			}
			got.SlurmTree, want.SlurmTree = nil, nil
			if (got.SlurmBlocks == nil) != (want.SlurmBlocks == nil) {
				t.Fatalf("%v: allocator block topology readers differ", flags)
			}
			got.SlurmBlocks, want.SlurmBlocks = nil, nil
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s %v:\n got %+v\nwant %+v", comm, flags, got, want)
			}
		}
	}
	// A flag sim does not take, or one that writes files, fails the item.
	for _, flags := range [][]string{{"--per-job", "x.csv"}, {"--bogus"}, {"--sched", "sjf"}, {"--baseline", "optimal"}, {"stray"}} {
		p := base
		p.Flags = flags
		if _, err := sweepItemSpec(e, spec, sweep.Item{Params: p}); err == nil {
			t.Errorf("%v: accepted", flags)
		}
	}
}

// Every flag of sim is one a sweep item's flags may give, mapped by the library
// (sweep.FlagNames) or by the command (sweep.CommandFlags), but for the flags that
// write files (the sweep has its own -o and --per-job): a flag added to sim without
// its sweep mapping fails here.
func TestSweepFlagsCoverSim(t *testing.T) {
	fs := flag.NewFlagSet("sim", flag.ContinueOnError)
	commands["sim"].flags(fs)
	known := map[string]bool{"o": true, "per-job": true, "convert": true}
	for _, n := range append(sweep.FlagNames(), sweep.CommandFlags...) {
		if known[n] {
			t.Errorf("--%s mapped twice, or a file-writing flag mapped", n)
		}
		known[n] = true
	}
	fs.VisitAll(func(f *flag.Flag) {
		if !known[f.Name] {
			t.Errorf("sim --%s: not mapped for sweep items (sim/sweep/flags.go)", f.Name)
		}
		delete(known, f.Name)
	})
	for n := range known {
		t.Errorf("--%s: mapped for sweep items but not a sim flag", n)
	}
}
