package sweep

import (
	"strings"
	"testing"
)

// Check names every machine spec ParseMachine would refuse, every allocator of no
// known family and every allocator that applies to none of the machines (a
// misspelt argument), with their entries, and accepts a sweep of good ones, where
// an allocator may not apply to some machines (mc1x1 and bf:snake on the fat
// tree: Warnings says so).
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
		`allocators: entry 2 "MC1x1": unknown allocator "MC1x1" (did you mean mc1x1?); valid: `,
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
	// mc1x1:tbb applies to none of the machines built (mesh:4x4, the fat tree):
	// its argument is misspelt.
	if want := `allocators: entry 4 "mc1x1:tbb" applies to none of the machines, so every item of it would fail: on mesh:4x4: allocator "mc1x1:tbb": unknown argument "tbb"`; !strings.Contains(msg, want) {
		t.Errorf("error %q lacks %q", msg, want)
	}
	for _, notWant := range []string{"entry 2: machine", "entry 4: machine", "entry 1 \"mc1x1\"", `"bf:snake"`} {
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

// Check refuses flags that would fail every item (an unknown flag, a value that
// does not parse, a flit engine flag on a sweep of message-engine items only),
// and leaves to the items a flag that fails on some only (a flit engine flag when
// some items run the flit engine). The sweep ran and failed every item instead.
func TestSpecCheckFlags(t *testing.T) {
	base := "traces: [t]\nmachines: [mesh:4x4]\nallocators: [mc1x1]\npatterns: [n-body]\n"
	for _, c := range []struct {
		extra, want string
	}{
		{"flags: [--bogus]\n", "every item would fail: flags: --bogus: not one of sim's replay flags"},
		{"flags: [--cycle-seconds, ten]\n", `--cycle-seconds: "ten": not a number`},
		{"flags: [--vcs, \"2\"]\n", "--vcs: configures the flit engine"},
		{"flags: [--vcs, \"2\"]\nengines: [message, flit]\n", ""},
		{"flags: [--vcs, \"2\"]\nengines: [flit]\n", ""},
		{"flags: [--drop-larger]\n", ""},
		// Closed sets are parsed when the flag is applied (enumFlag), so a value
		// none of them is refused here, not by every item in turn.
		{"flags: [--compat, bogus]\n", `every item would fail: flags: --compat: "bogus": want premas, sst or empty`},
		{"flags: [--compat, default]\n", ""},
		{"flags: [--compat, premas]\n", ""},
		{"flags: [--format, swff]\n", `--format: "swff": want swf, converted or sacct`},
		{"flags: [--format, sacct]\n", ""},
		// Values only the replay's spec refuses (sim.Spec.Validate), when no item
		// would run: named by flag.
		{"flags: [--perturb, \"-5\"]\n", "every item would fail: flags: --perturb -5: must not be negative"},
		{"flags: [--perturb, \"5\"]\n", ""},
		{"flags: [--from, \"5\"]\nschedulers: [as-run]\n", "every item would fail: flags: --sched as-run: replays production's own schedule"},
		{"flags: [--from, \"5\"]\nschedulers: [as-run, fcfs]\n", ""}, // the fcfs items run
	} {
		s, err := Parse([]byte(base+c.extra), "s.yaml")
		if err != nil {
			t.Fatalf("%q: %v", c.extra, err)
		}
		if err := s.Check(); c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%q: %v, want %q", c.extra, err, c.want)
		}
	}
}

// A flag that sets what a key of the sweep sets for each item (--alloc for
// allocators, --contract for contract, ...) replaced the item's value in the replay
// while its results line, --list, merge and plot still named the key's entry: a
// sweep of allocators [mc1x1] with flags [--alloc, mm] reported MM's numbers as
// mc1x1's. Such flags are refused when the file is read; --machine is only
// allowed empty, beside --graph (a sweep over a network file).
func TestParseRefusesFlagsOfTheKeys(t *testing.T) {
	base := "traces: [t]\nmachines: [mesh:4x4]\nallocators: [mc1x1]\npatterns: [n-body]\n"
	for _, c := range []struct {
		flags, want string
	}{
		{"[--alloc, mm]", "flags: --alloc sets what allocators: sets"},
		{"[--alloc=mm]", "flags: --alloc sets what allocators: sets"},
		{"[-sched, easy]", "flags: --sched sets what schedulers: sets"},
		{"[--drop-larger, --contract, \"0.5\"]", "flags: --contract sets what contract: sets"},
		{"[--comm, all-to-all]", "flags: --comm sets what patterns: sets"},
		{"[--seed, \"3\"]", "flags: --seed sets what seeds: sets"},
		{"[--comm-seed, \"3\"]", "flags: --comm-seed sets what seeds: sets"},
		{"[--engine, flit]", "flags: --engine sets what engines: sets"},
		{"[--trace, other.swf]", "flags: --trace sets what traces: sets"},
		{"[--machine, mesh:8x8]", "flags: --machine sets what machines: sets"},
		{"[--machine=, --graph, g.conf]", ""},
		{"[--pattern, n-body, --from, \"5\", --perturb, \"-5\"]", ""},
		{"[--bogus, --alloc, mm]", ""}, // an unknown flag is Check's to report
	} {
		_, err := Parse([]byte(base+"flags: "+c.flags+"\n"), "s.yaml")
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("flags %s: %v, want %q", c.flags, err, c.want)
		}
	}
}

// A spec with commas written unquoted in a YAML flow list arrives as several
// entries; Parse names each such spec once, quoted, instead of a duplicate entry
// ("2" twice below), an unknown kind or an unknown allocator per piece.
func TestParseFlowListSplitsASpec(t *testing.T) {
	_, err := Parse([]byte("traces: [t]\nmachines: [mesh:4x4, fattree:4,4:4,4:16]\nallocators: [mc1x1:tb=3,9,3,2, bf:snake, dbt:1/4, mc1x1:tb=-1,2,3,4]\n"), "s.yaml")
	if err == nil {
		t.Fatal("accepted")
	}
	msg := err.Error()
	for _, want := range []string{
		`machines: entries 2-4 are one spec that the list split at its commas (YAML reads [a,b] as two entries): quote it, ["fattree:4,4:4,4:16"]`,
		`allocators: entries 1-4 are one spec that the list split at its commas (YAML reads [a,b] as two entries): quote it, ["mc1x1:tb=3,9,3,2"]`,
		`allocators: entries 7-10 are one spec`, `["mc1x1:tb=-1,2,3,4"]`,
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
	for _, notWant := range []string{"twice", "entry", "bf:snake", "dbt"} {
		if strings.Contains(msg, notWant) {
			t.Errorf("error %q has %q", msg, notWant)
		}
	}
	if _, err := Parse([]byte("traces: [t]\nmachines: [mesh:4x4, \"fattree:4,4:4,4:16\"]\nallocators: [\"mc1x1:tb=3,9,3,2\", bf:snake]\n"), "q.yaml"); err != nil {
		t.Errorf("quoted: %v", err)
	}
}
