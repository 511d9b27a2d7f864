package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/sim/sweep"
)

// readLines reads a results file's lines by key.
func readLines(t *testing.T, path string) map[string]sweep.Line {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]sweep.Line{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var l sweep.Line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out[l.Key] = l
	}
	return out
}

// sweepBothWays runs the sweep file path by "procalloc sweep -o res -j 2" and by the
// library alone (sweep.ReadFile, Spec.Run), and returns both results lines by key.
func sweepBothWays(t *testing.T, path, res string) (cli, lib map[string]sweep.Line) {
	t.Helper()
	if code, _, stderr := runCLI(t, "", "sweep", path, "-o", res, "-j", "2"); code != 0 {
		t.Fatalf("%s: sweep: exit %d: %s", path, code, stderr)
	}
	cli = readLines(t, res)
	spec, err := sweep.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lib = map[string]sweep.Line{}
	if err := spec.Run(context.Background(), spec.Items(), sweep.Runner{Workers: 2, Done: func(l sweep.Line) error {
		lib[l.Key] = l
		return nil
	}}); err != nil {
		t.Fatal(err)
	}
	return cli, lib
}

// The library alone (sweep.ReadFile, Spec.Run; no flag set) gives, item for item,
// the lines "procalloc sweep" writes for a sweep file with flags: same keys, same
// status, same results.
func TestSweepLibraryMatchesCommand(t *testing.T) {
	dir := t.TempDir()
	trace, _ := filepath.Abs("../../sim/testdata/LLNL-T3D-1996-2.converted.txt.gz")
	path := filepath.Join(dir, "lib.yaml")
	body := "name: lib\ntraces: [" + trace + "]\nmachines: [mesh:16x16]\nallocators: [bf:hilbert, mc1x1]\ncontract: [0.5]\n" +
		"patterns: [none, n-body]\nflags: [--to, \"2000000\", --msgs-per-second, \"0.01\", --cycle-seconds=10, --drop-larger, --task-order, sorted]\n"
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	cli, lib := sweepBothWays(t, path, filepath.Join(dir, "cli.jsonl"))
	if len(cli) != 4 || len(lib) != 4 {
		t.Fatalf("%d command lines, %d library lines, want 4", len(cli), len(lib))
	}
	for k, want := range cli {
		got, ok := lib[k]
		if !ok {
			t.Fatalf("item %s of the command has no library line", k)
		}
		if got.Status != sweep.StatusOK || want.Status != sweep.StatusOK || got.SweepID != want.SweepID || !bytes.Equal(got.Result, want.Result) {
			t.Fatalf("item %d: library %s %q, command %s %q; results equal: %v", want.Index, got.Status, got.Error, want.Status, want.Error, bytes.Equal(got.Result, want.Result))
		}
	}

	// An unknown or malformed flag would fail every item: the command refuses the
	// sweep before any item runs (it ran and failed them one by one; sweep.Check).
	// The library, which runs items without Check, fails each, its line naming
	// the flag, and merge lists each item that failed.
	// A value outside a closed set (--compat sjf) and one the replay's spec refuses
	// for every item (--perturb -5) are refused up front too, and so is a file a
	// flag names that is not there (--hosts: sweep.Spec.CheckFiles, when the run
	// starts, as for a trace).
	for _, c := range []struct {
		flags, msg string
		upfront    bool
	}{
		{"[--bogus]", "--bogus: not one of sim's replay flags", true},
		{"[--cycle-seconds, ten]", `--cycle-seconds: "ten": not a number`, true},
		{"[--vcs, \"2\"]", "--vcs: configures the flit engine: add --engine flit", true},
		{"[--drop-larger, stray]", `unexpected arguments ["stray"]`, true},
		{"[--compat, sjf, --from, \"1\"]", `--compat: "sjf": want premas, sst or empty`, true},
		{"[--perturb, \"-5\", --from, \"1\"]", "-5: must not be negative", true}, // the library names the field, Scale.Perturb
		{"[--hosts, no-such-hosts.txt]", "no-such-hosts.txt", true},
	} {
		flags, msg := c.flags, c.msg
		bad := filepath.Join(dir, "bad.yaml")
		os.WriteFile(bad, []byte(strings.Replace(body, body[strings.Index(body, "flags:"):], "flags: "+flags+"\n", 1)), 0o644)
		out := filepath.Join(dir, "bad.jsonl")
		os.Remove(out)
		code, _, stderr := runCLI(t, "", "sweep", bad, "-o", out)
		refused := strings.Contains(stderr, "every item would fail: flags: ") || strings.Contains(stderr, `sweep file: flags: --hosts "no-such-hosts.txt": stat `)
		if code != 1 || c.upfront != refused || c.upfront && !strings.Contains(stderr, msg) {
			t.Fatalf("flags %s: exit %d, %s; want 1 and, refused up front %v, %q", flags, code, stderr, c.upfront, msg)
		}
		if c.upfront {
			if _, err := os.Stat(out); err == nil {
				t.Fatalf("flags %s: the refused sweep wrote %s", flags, out)
			}
			spec, err := sweep.ReadFile(bad)
			if err != nil {
				t.Fatal(err)
			}
			res, err := sweep.OpenResults(out, spec.Name)
			if err != nil {
				t.Fatal(err)
			}
			if err := spec.Run(context.Background(), spec.Items(), sweep.Runner{Workers: 2, Done: res.Append}); err != nil {
				t.Fatal(err)
			}
			res.Close()
		}
		lines := readLines(t, out)
		if len(lines) != 4 {
			t.Fatalf("flags %s: %d lines", flags, len(lines))
		}
		for _, l := range lines {
			if l.Status != sweep.StatusFailed || !strings.Contains(l.Error, msg) {
				t.Fatalf("flags %s: item %d: %s %q, want an error containing %q", flags, l.Index, l.Status, l.Error, msg)
			}
		}
		code, _, stderr = runCLI(t, "", "merge", out, "--spec", bad)
		if code != 1 || !strings.Contains(stderr, "failed #0 ") || !strings.Contains(stderr, "failed #3 ") || !strings.Contains(stderr, msg) {
			t.Fatalf("merge of flags %s: exit %d\n%s", flags, code, stderr)
		}
	}
}

// A sweep file whose flags name files (--graph, --graph-format, --node-name-map,
// --topology, --hosts, --hostlist, --span-curve) gives the same results line by
// "procalloc sweep" and by the library alone.
func TestSweepLibraryMatchesCommandFileFlags(t *testing.T) {
	dir := t.TempDir()
	abs := func(p string) string { a, _ := filepath.Abs(p); return a }
	trace, conf, yaml, ib, names := abs(sacctTrace), abs(topoConf), abs(topoYAML), abs(ibSample), abs(ibNameMap)
	hosts := filepath.Join(dir, "hosts.txt")
	if err := os.WriteFile(hosts, []byte("node[01-16]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for key, c := range map[string]struct{ machine, allocs, flags string }{
		"graph":         {"mesh:1x1", "bf:rcm, as-run", "[--machine=, --graph, " + conf + "]"},
		"graph-format":  {"mesh:1x1", "bf:rcm", "[--machine=, --graph, " + conf + ", --graph-format, slurm-topology]"},
		"node-name-map": {"mesh:1x1", "as-run, genalg", "[--machine=, --graph, " + ib + ", --node-name-map, " + names + "]"},
		"topology":      {"mesh:1x1", "'slurm:tree:" + yaml + "'", "[--machine=, --graph, " + yaml + ", --topology, racks]"},
		"hosts":         {"mesh:4x4", "'slurm:tree:" + conf + ":hilbert', as-run", "[--hosts, " + hosts + "]"},
		"hostlist":      {"mesh:4x4", "'slurm:tree:" + conf + ":hilbert'", "['--hostlist', 'node[01-16]']"},
		"span-curve":    {"mesh:4x4", "genalg, bf:snake", "['--hostlist', 'node[01-16]', --span-curve, hilbert]"},
	} {
		path := filepath.Join(dir, key+".yaml")
		body := "name: " + key + "\ntraces: [" + trace + "]\nmachines: [" + c.machine + "]\nallocators: [" + c.allocs + "]\nschedulers: [as-run]\nflags: " + c.flags + "\n"
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		cli, lib := sweepBothWays(t, path, filepath.Join(dir, key+".jsonl"))
		if len(cli) == 0 || len(cli) != len(lib) {
			t.Fatalf("--%s: %d command lines, %d library lines", key, len(cli), len(lib))
		}
		for k, want := range cli {
			got := lib[k]
			if got.Status != sweep.StatusOK || want.Status != sweep.StatusOK || !bytes.Equal(got.Result, want.Result) {
				t.Errorf("--%s item %d: library %s %q, command %s %q; results equal: %v", key, want.Index, got.Status, got.Error, want.Status, want.Error, bytes.Equal(got.Result, want.Result))
			}
		}
	}
}
