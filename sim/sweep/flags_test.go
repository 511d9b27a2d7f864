package sweep

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/sim"
)

// Each replay flag sets the sim.Spec field it names, in the spellings Go's flag
// package took (one or two dashes, =value, a bare switch); a later flag wins.
func TestApplyFlagsFields(t *testing.T) {
	base := Params{Trace: "t.swf", Machine: "mesh:16x16", Alloc: "bf:hilbert", Sched: "easy", Contract: 0.5, Pattern: "n-body", Seed: 3}.Spec("/d")
	want := base
	want.Compat = alloc.CompatDefault
	want.From, want.To, want.DropLarger = "100", "1996-12-01", true
	want.MessagesPerSecond, want.CycleSeconds = 0.01, 10
	want.Scale.Contract, want.Scale.Work, want.Scale.Replicate, want.Scale.Perturb, want.Scale.Seed = 0.25, 1.5, 2, 60, 0x10
	want.Alloc, want.Sched, want.NoMemo, want.SkipBad = "mc1x1", sim.SchedCplant, true, true
	want.Engine, want.Flit = sim.EngineFlit, sim.FlitOptions{VCs: 2, VCBuffer: 16, LinkDelay: 3, HopClasses: true}
	want.TaskOrder, want.TimeZone, want.MaxJobs = sim.TaskOrderSorted, "UTC", 1000
	want.Network.MessageFlits, want.Network.FlitBytes = 16, 4
	want.Metrics, _ = sim.ParseMetrics("sched")
	want.Baseline = &sim.Baseline{TimeLimit: 2 * time.Second}
	got := base
	err := ApplyFlags(&got, []string{"--compat", "default", "-from=100", "--to", "1996-12-01", "--drop-larger",
		"--msgs-per-second", "0.01", "--cycle-seconds=10", "--contract", "0.9", "--contract", "0.25", "--work", "1.5",
		"--replicate", "2", "--perturb", "60", "--seed", "0x10", "--alloc", "mc1x1", "--sched", "cplant", "--no-memo", "--skip-bad=true",
		"--engine", "flit", "--vcs", "2", "--vc-buffer", "16", "--link-delay", "3", "--hop-classes",
		"--task-order", "sorted", "--tz", "UTC", "--max-jobs", "1000", "--msg-flits", "16", "--flit-bytes", "4",
		"--metrics", "sched", "--json", "--by-size", "--baseline", "exact", "--baseline-time-limit", "2s", "--"})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("\n got %+v\nwant %+v", got, want)
	}
	// The flags that name files set the fields Prepare reads them from.
	got = base
	if err := ApplyFlags(&got, []string{"--graph", "g.conf", "--graph-format", "slurm-topology", "--node-name-map", "m.map",
		"--topology", "racks", "--hosts", "h.txt", "--hostlist", "n[1-4]", "--span-curve", "rcm"}); err != nil {
		t.Fatal(err)
	}
	want = base
	want.GraphFile, want.GraphFormat, want.NodeNameMap, want.Topology = "g.conf", "slurm-topology", "m.map", "racks"
	want.HostsFile, want.Hostlist, want.SpanCurve = "h.txt", "n[1-4]", "rcm"
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("file flags:\n got %+v\nwant %+v", got, want)
	}
	// --max-jobs at the default is the spec's 0; --task-order returned is the zero value.
	got = base
	if err := ApplyFlags(&got, []string{"--max-jobs", strconv.Itoa(sim.DefaultMaxJobs), "--task-order", "returned", "--engine", "message"}); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, base) {
		t.Fatalf("defaults spelt out changed the spec:\n got %+v\nwant %+v", got, base)
	}
	// Every flag given its command-line default (Flags) leaves sim.DefaultSpec as
	// it is, so that a command line that maps only the flags given onto
	// DefaultSpec means what it meant when every flag was mapped.
	for _, f := range Flags() {
		if f.Name == "alloc" || f.Name == "baseline-time-limit" || slices.Contains(flitFlags, f.Name) {
			continue // the allocator is the spec's own; the others need --baseline or --engine flit
		}
		got := sim.DefaultSpec()
		if err := ApplyFlags(&got, []string{"--" + f.Name + "=" + f.Default}); err != nil {
			t.Fatalf("--%s=%s: %v", f.Name, f.Default, err)
		}
		if !reflect.DeepEqual(got, sim.DefaultSpec()) {
			t.Errorf("--%s=%s (its default) changed sim.DefaultSpec:\n got %+v", f.Name, f.Default, got)
		}
	}
}

// A flag that cannot be applied is an error naming it.
func TestApplyFlagsErrors(t *testing.T) {
	for _, c := range []struct {
		flags []string
		want  string
	}{
		{[]string{"--bogus"}, "--bogus: not one of sim's replay flags"},
		{[]string{"--per-job", "x.csv"}, "--per-job: not one of sim's replay flags"},
		{[]string{"--convert", "x"}, "--convert: not one of"},
		{[]string{"--from"}, "--from: needs a value"},
		{[]string{"--contract", "half"}, `--contract: "half": not a number`},
		{[]string{"--seed", "-1"}, `--seed: "-1": not a number`},
		{[]string{"--replicate", "99999999999999999999"}, "--replicate: \"99999999999999999999\": value out of range"},
		{[]string{"--drop-larger=maybe"}, `--drop-larger: "maybe": not true or false`},
		{[]string{"--metrics", "fast"}, `--metrics: "fast"`},
		{[]string{"--max-jobs", "0"}, "--max-jobs: 0: must be at least 1"},
		{[]string{"--vcs", "2"}, "--vcs: configures the flit engine: add --engine flit"},
		{[]string{"--engine", "flit", "--vc-buffer", "0"}, "--vc-buffer: 0: must be at least 1"},
		{[]string{"--engine", "flit", "--router-delay", "2"}, "--router-delay: is the message engine's"},
		{[]string{"--baseline", "optimal"}, `--baseline: "optimal": want exact`},
		{[]string{"--baseline-time-limit", "1s"}, "--baseline-time-limit: needs --baseline exact"},
		{[]string{"--baseline", "exact", "--baseline-time-limit", "soon"}, "--baseline-time-limit: \"soon\": not a duration"},
		{[]string{"stray"}, `flags: unexpected arguments ["stray"]`},
		{[]string{"--drop-larger", "--", "x"}, `unexpected arguments ["x"]`},
		{[]string{"---from", "1"}, "---from: bad flag syntax"},
		// Closed sets are parsed as the flag is applied (enumFlag).
		{[]string{"--sched", "sjf"}, `--sched: "sjf": want fcfs, easy, cplant or as-run`},
		{[]string{"--compat", "sjf"}, `--compat: "sjf": want premas, sst or empty`},
		{[]string{"--format", "csv"}, `--format: "csv": want swf, converted or sacct`},
	} {
		s := sim.DefaultSpec()
		err := ApplyFlags(&s, c.flags)
		var fe *FlagError
		if !errors.As(err, &fe) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want a FlagError containing %q", c.flags, err, c.want)
		}
	}
	// A value sim refuses that no flag set (a scheduler of the item's own that sim
	// does not have) is Validate's field error.
	p := Params{Trace: "t.swf", Machine: "mesh:4x4", Alloc: "mc1x1", Sched: "sjf", Contract: 1, Pattern: "none", Seed: 1}
	var fe *sim.FieldError
	if _, err := p.Replay(""); !errors.As(err, &fe) || fe.Field != "Sched" {
		t.Errorf("schedulers: sjf: got %v, want a FieldError of Sched", err)
	}
}

// The library runs a sweep file with flags by itself: each item's line holds the
// report of the sim.Spec built field by field (no flags) for its parameters, and
// lines do not depend on the number of workers.
func TestRunLibrary(t *testing.T) {
	s, err := Parse([]byte(`name: lib
traces: [../testdata/LLNL-T3D-1996-2.converted.txt.gz]
machines: [mesh:16x16]
allocators: [bf:hilbert, mc1x1]
contract: [0.5]
patterns: [none, n-body]
flags: [--to, "2000000", --msgs-per-second, "0.01", --cycle-seconds, "10", --drop-larger]
`), "lib.yaml")
	if err != nil {
		t.Fatal(err)
	}
	items := s.Items()
	run := func(items []Item, workers int) map[string]Line {
		out := map[string]Line{}
		err := s.Run(context.Background(), items, Runner{Workers: workers, Done: func(l Line) error {
			out[l.Key] = l
			return nil
		}})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	one, two := run(items, 1), run(items, 2)
	if len(one) != len(items) {
		t.Fatalf("%d lines for %d items", len(one), len(items))
	}
	for _, it := range items {
		l := one[it.Key]
		if l.Status != StatusOK || l.SweepID != s.ID() || l.Index != it.Index {
			t.Fatalf("item %d: %+v", it.Index, l)
		}
		if !bytes.Equal(l.Result, two[it.Key].Result) {
			t.Fatalf("item %d: results differ between 1 and 2 workers", it.Index)
		}
		sp := sim.DefaultSpec()
		sp.Trace, sp.MachineSpec, sp.Alloc, sp.Sched = "../testdata/LLNL-T3D-1996-2.converted.txt.gz", "mesh:16x16", it.Params.Alloc, sim.SchedFCFS
		sp.Scale.Contract, sp.To, sp.DropLarger = 0.5, "2000000", true
		sp.MessagesPerSecond, sp.CycleSeconds = 0.01, 10
		if it.Params.Pattern != "none" {
			sp.Comm = it.Params.Pattern
		}
		rep, err := sp.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		want, err := ResultJSON(rep)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(l.Result, want) {
			t.Fatalf("item %d (%s %s): library sweep result differs from the replay built field by field", it.Index, it.Params.Alloc, it.Params.Pattern)
		}
		var r map[string]any
		if json.Unmarshal(l.Result, &r) != nil || r["jobs"] == nil {
			t.Fatalf("item %d: result %s", it.Index, l.Result)
		}
	}
	// A malformed flag fails every item, its line naming the flag.
	s.Flags = []string{"--cycle-seconds", "ten"}
	failed := run(s.Items(), 2)
	if len(failed) != len(items) {
		t.Fatalf("%d lines for %d items", len(failed), len(items))
	}
	for _, l := range failed {
		if l.Status != StatusFailed || !strings.Contains(l.Error, `--cycle-seconds: "ten": not a number`) {
			t.Fatalf("item %d: %s %q", l.Index, l.Status, l.Error)
		}
	}
}

// Each flag that names a file (--graph, --graph-format, --node-name-map,
// --topology, --hosts, --hostlist, --span-curve) runs in the library alone: a
// sweep file giving it runs (Spec.Run, no flag set) to the report of the sim.Spec
// built field by field.
func TestRunLibraryFileFlags(t *testing.T) {
	const (
		sacct = "../testdata/sacct-fattree.txt"
		conf  = "../../topo/testdata/topology.conf"
		yaml  = "../../topo/testdata/topology.yaml"
		ib    = "../../topo/testdata/fattree.ibnetdiscover"
		names = "../../topo/testdata/fattree.node-name-map"
	)
	hosts := filepath.Join(t.TempDir(), "hosts.txt")
	if err := os.WriteFile(hosts, []byte("node[01-16]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		key, machine, alloc string
		flags               []string
		set                 func(s *sim.Spec)
	}{
		{"graph", "", "bf:rcm", []string{"--machine=", "--graph", conf},
			func(s *sim.Spec) { s.GraphFile = conf }},
		{"graph-format", "", "bf:rcm", []string{"--machine=", "--graph", conf, "--graph-format", "slurm-topology"},
			func(s *sim.Spec) { s.GraphFile, s.GraphFormat = conf, "slurm-topology" }},
		{"node-name-map", "", "as-run", []string{"--machine=", "--graph", ib, "--node-name-map", names},
			func(s *sim.Spec) { s.GraphFile, s.NodeNameMap = ib, names }},
		{"topology", "", "slurm:tree:" + yaml, []string{"--machine=", "--graph", yaml, "--topology", "racks"},
			func(s *sim.Spec) { s.GraphFile, s.Topology = yaml, "racks" }},
		{"hosts", "mesh:4x4", "slurm:tree:" + conf + ":hilbert", []string{"--hosts", hosts},
			func(s *sim.Spec) { s.MachineSpec, s.HostsFile = "mesh:4x4", hosts }},
		{"hostlist", "mesh:4x4", "slurm:tree:" + conf + ":hilbert", []string{"--hostlist", "node[01-16]"},
			func(s *sim.Spec) { s.MachineSpec, s.Hostlist = "mesh:4x4", "node[01-16]" }},
		{"span-curve", "mesh:4x4", "genalg", []string{"--hostlist", "node[01-16]", "--span-curve", "hilbert"},
			func(s *sim.Spec) { s.MachineSpec, s.Hostlist, s.SpanCurve = "mesh:4x4", "node[01-16]", "hilbert" }},
	} {
		machine := c.machine
		if machine == "" {
			machine = "mesh:1x1" // cleared by the item's --machine=
		}
		flags, _ := json.Marshal(c.flags)
		sw, err := Parse([]byte(fmt.Sprintf("name: files\ntraces: [%s]\nmachines: [%q]\nallocators: [%q]\nschedulers: [as-run]\nflags: %s\n",
			filepath.Base(sacct), machine, c.alloc, flags)), "files.yaml")
		if err != nil {
			t.Fatal(err)
		}
		sw.Dir = filepath.Dir(sacct)
		lines := runLines(t, sw)
		if len(lines) != 1 || lines[0].Status != StatusOK {
			t.Fatalf("--%s: %+v", c.key, lines)
		}
		sp := sim.DefaultSpec()
		sp.Trace, sp.Alloc, sp.Sched, sp.Scale.Seed, sp.CommSeed = sacct, c.alloc, sim.SchedAsRun, 1, 1
		c.set(&sp)
		rep, err := sp.Run(context.Background())
		if err != nil {
			t.Fatalf("--%s: %v", c.key, err)
		}
		rep.Trace = filepath.Base(sacct) // a result names the trace as the sweep file does
		want, err := ResultJSON(rep)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(lines[0].Result, want) {
			t.Errorf("--%s: the library sweep's result differs from the replay built field by field:\n%s\n%s", c.key, lines[0].Result, want)
		}
	}
}

// Each flag of the table names a field sim.Spec has (the name sim.FieldError
// uses, which the command turns back into the flag).
func TestFlagFieldsAreSpecFields(t *testing.T) {
	for _, f := range Flags() {
		if f.Field == "" {
			if f.Name != "json" && f.Name != "by-size" {
				t.Errorf("--%s sets no field", f.Name)
			}
			continue
		}
		typ := reflect.TypeOf(sim.Spec{})
		for _, part := range strings.Split(f.Field, ".") {
			sf, ok := typ.FieldByName(part)
			if !ok {
				t.Errorf("--%s: sim.Spec has no field %s", f.Name, f.Field)
				break
			}
			if typ = sf.Type; typ.Kind() == reflect.Pointer {
				typ = typ.Elem()
			}
		}
	}
}

// A result does not depend on how the sweep file's path was written: run from its
// directory as a relative path or as the absolute one (what --sbatch's script
// runs), an item's result names its trace as the sweep file does, byte for byte.
func TestRunResultIndependentOfSweepPath(t *testing.T) {
	const trace = "../testdata/LLNL-T3D-1996-2.converted.txt.gz"
	s, err := Parse([]byte(`name: paths
traces: [`+trace+`]
machines: [mesh:16x16]
allocators: [bf:hilbert]
flags: [--to, "1000000"]
`), "paths.yaml")
	if err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	var results [][]byte
	for _, dir := range []string{".", abs, filepath.Join(abs, "..", "sweep")} {
		s.Dir = dir
		err := s.Run(context.Background(), s.Items(), Runner{Workers: 1, Done: func(l Line) error {
			if l.Status != StatusOK {
				return fmt.Errorf("dir %s: %s", dir, l.Error)
			}
			results = append(results, l.Result)
			return nil
		}})
		if err != nil {
			t.Fatal(err)
		}
	}
	var r struct {
		Trace string `json:"trace"`
	}
	if err := json.Unmarshal(results[0], &r); err != nil || r.Trace != trace {
		t.Fatalf("result's trace %q (%v), want %q as the sweep file names it", r.Trace, err, trace)
	}
	for i := 1; i < len(results); i++ {
		if !bytes.Equal(results[i], results[0]) {
			t.Fatalf("the result with the sweep file's directory written another way differs:\n%s\n%s", results[i], results[0])
		}
	}
}
