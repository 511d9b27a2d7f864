package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/procalloc/procalloc/sim"
	"github.com/procalloc/procalloc/sim/sweep"
)

// Issue 24 row 1: two sweeps started at once on one results file. One runs, the
// other stops before running anything with a message saying why (or, started after
// the first finished, finds everything done); the file then resumes, merges, and
// holds each item once. Both run through run(), each opening the file itself.
func TestTwoSweepsOnOneResultsFile(t *testing.T) {
	dir := t.TempDir()
	spec := writeSweep(t, dir, "bf:hilbert-trunc, mc1x1, genalg")
	for trial := range 4 {
		res := filepath.Join(dir, fmt.Sprintf("c%d.jsonl", trial))
		var wg sync.WaitGroup
		codes := make([]int, 2)
		errs := make([]string, 2)
		for w := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				codes[w], _, errs[w] = runCLI(t, "", "sweep", spec, "-o", res, "-j", "1")
			}()
		}
		wg.Wait()
		for w := range 2 {
			if codes[w] != 0 && (codes[w] != 1 || !strings.Contains(errs[w], "another process is writing this results file")) {
				t.Fatalf("trial %d, sweep %d: exit %d, %s", trial, w, codes[w], errs[w])
			}
		}
		if codes[0] != 0 && codes[1] != 0 {
			t.Fatalf("trial %d: both sweeps refused: %q", trial, errs)
		}
		code, out, stderr := runCLI(t, "", "sweep", spec, "-o", res, "--json")
		if code != 0 || !strings.Contains(out, `"skipped": 12`) || !strings.Contains(out, `"ran": 0`) || stderr != "" {
			t.Fatalf("trial %d: resuming: exit %d, %s %s", trial, code, out, stderr)
		}
		if code, _, stderr := runCLI(t, "", "merge", res, "--spec", spec, "-o", filepath.Join(dir, "m.jsonl")); code != 0 {
			t.Fatalf("trial %d: merge: exit %d, %s", trial, code, stderr)
		}
		keys := map[string]int{}
		for _, raw := range strings.Split(strings.TrimSuffix(string(mustRead(t, res)), "\n"), "\n") {
			var l sweep.Line
			if err := json.Unmarshal([]byte(raw), &l); err != nil {
				t.Fatalf("trial %d: %v", trial, err)
			}
			keys[l.Key]++
		}
		if len(keys) != 12 {
			t.Fatalf("trial %d: %d items in the file, want 12", trial, len(keys))
		}
		for k, n := range keys {
			if n != 1 {
				t.Fatalf("trial %d: item %s has %d lines", trial, k, n)
			}
		}
	}
}

// Issue 24 rows 2, 18 and 24: devices and endless inputs, and - for standard input.
func TestSweepMergePlotOnDevicesAndStdin(t *testing.T) {
	dir := t.TempDir()
	spec := writeSweep(t, dir, "bf:hilbert-trunc, mc1x1")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"sweep", spec, "-o", os.DevNull, "-j", "2"}, 0, "8 run, 0 failed"},
		{[]string{"sweep", spec, "-o", "/dev/full", "-j", "1"}, 1, "writing results: write /dev/full: no space left on device"},
		{[]string{"merge", "/dev/full"}, 1, "/dev/full: line 1 is longer than 16 MiB"},
		{[]string{"plot", "/dev/zero"}, 1, "/dev/zero: neither sweep results nor compare --json output"},
		{[]string{"sweep", "/dev/zero", "--list"}, 1, "/dev/zero: larger than 4 MiB, the most a sweep file may be"},
		{[]string{"merge", "--spec", "/dev/zero", spec}, 1, "larger than 4 MiB"},
	} {
		if _, err := os.Stat(tc.args[len(tc.args)-1]); err != nil && strings.HasPrefix(tc.args[len(tc.args)-1], "/dev/") {
			continue
		}
		code, out, stderr := runCLI(t, "", tc.args...)
		if code != tc.code || !strings.Contains(out+stderr, tc.want) {
			t.Errorf("%s: exit %d, %s%s; want exit %d and %q", strings.Join(tc.args, " "), code, out, stderr, tc.code, tc.want)
		}
	}
	// - is standard input: the sweep file (relative traces from the current
	// directory, so this one names its trace absolutely), and results for merge and plot
	body := strings.Replace(string(mustRead(t, spec)), "[jobs.txt]", "["+filepath.Join(dir, "jobs.txt")+"]", 1)
	code, out, stderr := runCLI(t, body, "sweep", "-", "--list")
	if code != 0 || strings.Count(out, "\n") != 8 || !strings.Contains(out, filepath.Join(dir, "jobs.txt")) {
		t.Fatalf("sweep - --list: exit %d, %s %s", code, out, stderr)
	}
	res := filepath.Join(dir, "r.jsonl")
	if code, out, stderr := runCLI(t, body, "sweep", "-", "-o", res); code != 0 || !strings.Contains(out, "8 run, 0 failed") {
		t.Fatalf("sweep - -o: exit %d, %s %s", code, out, stderr)
	}
	if code, out, _ := runCLI(t, body, "sweep", "-", "-o", res); code != 0 || !strings.Contains(out, "8 already done") {
		t.Fatalf("sweep - resumed: exit %d, %s", code, out)
	}
	code, merged, stderr := runCLI(t, string(mustRead(t, res)), "merge", "-")
	if code != 0 || strings.Count(merged, "\n") != 8 {
		t.Fatalf("merge -: exit %d, %s", code, stderr)
	}
	if code, out, stderr := runCLI(t, merged, "plot", "-", "--where", "pattern=none"); code != 0 || !strings.Contains(out, "mc1x1") {
		t.Fatalf("plot -: exit %d, %s %s", code, out, stderr)
	}
	for _, args := range [][]string{{"merge", "-", "-"}, {"merge", "-", "--spec", "-"}, {"plot", "-", "-"}, {"sweep", "-", "--sbatch"}} {
		if code, _, stderr := runCLI(t, body, args...); code != 2 {
			t.Errorf("%v: exit %d, %s", args, code, stderr)
		}
	}
	// a damaged line (as unlocked writers left them) is a warning; the item is redone
	data := mustRead(t, res)
	first := bytes.IndexByte(data, '\n')
	damaged := append(append(bytes.Clone(data[:first/2]), '\n'), data[first+1:]...)
	os.WriteFile(res, damaged, 0o644)
	code, out, stderr = runCLI(t, body, "sweep", "-", "-o", res)
	if code != 0 || !strings.Contains(stderr, "warning: "+res+": 1 damaged line skipped (line 1): its item is redone") || !strings.Contains(out, "7 already done, 1 run") {
		t.Fatalf("resuming a damaged file: exit %d, %s %s", code, out, stderr)
	}
	if code, _, stderr := runCLI(t, "", "merge", res, "-o", os.DevNull); code != 1 || !strings.Contains(stderr, "1 damaged results line skipped") || !strings.Contains(stderr, "may be incomplete") {
		t.Fatalf("merge of a damaged file without --spec: exit %d, %s", code, stderr)
	}
	if code, _, stderr := runCLI(t, body, "merge", res, "--spec", "-", "-o", os.DevNull); code != 0 || !strings.Contains(stderr, "1 damaged results line skipped") {
		t.Fatalf("merge of a damaged file with --spec: exit %d, %s", code, stderr)
	}
}

// Issue 24 rows 7 and 8: the sbatch script quotes every value; the script is valid
// bash, and run (with a stand-in procalloc that records its arguments) it passes the
// paths and -o through literally and runs nothing injected.
func TestSweepSbatchScriptQuotesEverything(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	root := t.TempDir()
	dir := filepath.Join(root, "my sweeps, Bob's $(touch PWNED1) `touch PWNED2`")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	specBody := "name: \"x'; touch PWNED3; echo '%j $HOME\"\ntraces: [t]\nmachines: [mesh:4x4]\nallocators: [mc1x1]\n"
	specPath := filepath.Join(dir, "s.yaml")
	os.WriteFile(specPath, []byte(specBody), 0o644)
	fake := filepath.Join(root, "fake bin", "procalloc")
	os.MkdirAll(filepath.Dir(fake), 0o755)
	os.WriteFile(fake, []byte("#!/bin/bash\nprintf '%s\\0' \"$@\" > \"$ARGS_FILE\"\n"), 0o755)
	spec, err := sweep.ReadFile(specPath)
	if err != nil {
		t.Fatal(err)
	}
	out := "out$(touch PWNED4)'s `touch PWNED5`.jsonl"
	var script bytes.Buffer
	if err := sbatchScript(&script, fake, specPath, spec, 3, 2, out); err != nil {
		t.Fatal(err)
	}
	scriptPath := filepath.Join(root, "job.sbatch")
	os.WriteFile(scriptPath, script.Bytes(), 0o644)
	if b, err := exec.Command("bash", "-n", scriptPath).CombinedOutput(); err != nil {
		t.Fatalf("bash -n: %v %s\n%s", err, b, script.String())
	}
	var sbatchLines []string
	for _, l := range strings.Split(script.String(), "\n") {
		if strings.HasPrefix(l, "#SBATCH") {
			sbatchLines = append(sbatchLines, l)
			if strings.ContainsAny(l[len("#SBATCH "):], " '\"$%`;") && !strings.Contains(l, "%A_%a") {
				t.Errorf("#SBATCH line with characters sbatch would split or expand: %q", l)
			}
		}
	}
	if len(sbatchLines) != 4 {
		t.Fatalf("%d #SBATCH lines, want 4:\n%s", len(sbatchLines), script.String())
	}
	argsFile := filepath.Join(root, "args")
	cmd := exec.Command("bash", scriptPath)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "SLURM_ARRAY_TASK_ID=2", "ARGS_FILE="+argsFile)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("running the script: %v %s", err, b)
	}
	got := strings.Split(strings.TrimSuffix(string(mustRead(t, argsFile)), "\x00"), "\x00")
	want := []string{"sweep", specPath, "--shard", "2/3", "-j", "2", "-o", "out$(touch PWNED4)'s `touch PWNED5`.shard-2.jsonl"}
	if !slices.Equal(got, want) {
		t.Fatalf("the script ran procalloc with\n%q\nwant\n%q\nscript:\n%s", got, want, script.String())
	}
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if strings.HasPrefix(d.Name(), "PWNED") {
			t.Errorf("an injected command ran: %s exists", p)
		}
		return nil
	})
	// the merge line of the script's comment is valid shell too
	for _, l := range strings.Split(script.String(), "\n") {
		if strings.HasPrefix(l, "#   ") {
			if b, err := exec.Command("bash", "-n", "-c", strings.TrimPrefix(l, "#   ")).CombinedOutput(); err != nil {
				t.Errorf("merge line %q: %v %s", l, err, b)
			}
		}
	}
	// control characters: refused, naming the field
	evil := filepath.Join(root, "evil.yaml")
	os.WriteFile(evil, []byte("name: \"evil\\ntouch /tmp/PWNED\"\ntraces: [t]\nmachines: [mesh:4x4]\nallocators: [mc1x1]\n"), 0o644)
	if code, _, stderr := runCLI(t, "", "sweep", evil, "--sbatch"); code != 1 || !strings.Contains(stderr, `name "evil\ntouch /tmp/PWNED": control character U+000A`) {
		t.Fatalf("newline in the name: exit %d, %s", code, stderr)
	}
	if code, _, stderr := runCLI(t, "", "sweep", specPath, "--sbatch", "-o", "a\nb"); code != 2 || !strings.Contains(stderr, "control character U+000A") {
		t.Fatalf("newline in -o: exit %d, %s", code, stderr)
	}
	for _, n := range []string{"0", "4000002", "9223372036854775807"} {
		if code, _, stderr := runCLI(t, "", "sweep", specPath, "--sbatch", "--shards", n); code != 2 || !strings.Contains(stderr, "4000001") {
			t.Errorf("--shards %s: exit %d, %s", n, code, stderr)
		}
	}
	if code, out, _ := runCLI(t, "", "sweep", specPath, "--sbatch", "--shards", "4000001"); code != 0 || !strings.Contains(out, "--array=0-4000000\n") {
		t.Errorf("--shards 4000001: exit %d", code)
	}
}

// Issue 24 row 23: for arrays --array=MIN-MAX:STEP, every shard runs exactly once.
func TestSweepShardFromSlurmEnvRunsEveryShardOnce(t *testing.T) {
	for _, lo := range []int{0, 1, 3, 7, 100} {
		for _, step := range []int{1, 2, 3, 5} {
			for count := 1; count <= 7; count++ {
				for _, withMax := range []bool{true, false} {
					seen := make([]int, count)
					for k := range count {
						env := map[string]string{
							"SLURM_ARRAY_TASK_ID":    fmt.Sprint(lo + k*step),
							"SLURM_ARRAY_TASK_MIN":   fmt.Sprint(lo),
							"SLURM_ARRAY_TASK_STEP":  fmt.Sprint(step),
							"SLURM_ARRAY_TASK_COUNT": fmt.Sprint(count),
						}
						if withMax {
							env["SLURM_ARRAY_TASK_MAX"] = fmt.Sprint(lo + (count-1)*step)
						}
						i, n, ok, err := shardFromEnv(func(k string) string { return env[k] })
						if err != nil || !ok || n != count || i < 0 || i >= n {
							t.Fatalf("%v: shard %d/%d, %v %v", env, i, n, ok, err)
						}
						seen[i]++
					}
					for i, c := range seen {
						if c != 1 {
							t.Fatalf("min %d step %d count %d: shard %d ran %d times", lo, step, count, i, c)
						}
					}
				}
			}
		}
	}
	for _, env := range []map[string]string{
		// --array=1,3,7: not one stepped range
		{"SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "7", "SLURM_ARRAY_TASK_STEP": "1", "SLURM_ARRAY_TASK_COUNT": "3"},
		// an ID off the step
		{"SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_STEP": "2", "SLURM_ARRAY_TASK_COUNT": "3"},
		{"SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_STEP": "0", "SLURM_ARRAY_TASK_COUNT": "3"},
		{"SLURM_ARRAY_TASK_ID": "99999999999", "SLURM_ARRAY_TASK_COUNT": "3"},
	} {
		if _, _, _, err := shardFromEnv(func(k string) string { return env[k] }); err == nil {
			t.Errorf("%v: accepted", env)
		}
	}
}

// resultsWith writes a merged results file of items (alloc, contract, seed) with
// the given metric values.
func resultsWith(t *testing.T, path string, rows []struct {
	alloc    string
	contract float64
	seed     uint64
	v        float64
}) {
	t.Helper()
	var b bytes.Buffer
	for i, r := range rows {
		p := sweep.Params{Trace: "t", Machine: "mesh:4x4", Alloc: r.alloc, Sched: "fcfs", Contract: r.contract, Pattern: "none", Seed: r.seed}
		res, _ := json.Marshal(map[string]float64{"mean_response": r.v})
		l := sweep.Line{Sweep: "p", Item: sweep.Item{Index: i, Key: p.Key(), Params: p}, Status: "ok", Result: res}
		raw, _ := json.Marshal(l)
		b.Write(append(raw, '\n'))
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Issue 24 rows 15, 19 and 24: plot names the parameter that differs, filters by
// contract and seed, calls flag mistakes usage errors, and never writes a
// coordinate that is not a finite number.
func TestPlotEdges(t *testing.T) {
	dir := t.TempDir()
	res := filepath.Join(dir, "m.jsonl")
	type row = struct {
		alloc    string
		contract float64
		seed     uint64
		v        float64
	}
	var rows []row
	for _, a := range []string{"a", "b"} {
		for _, c := range []float64{1, 0.5} {
			for _, s := range []uint64{1, 2} {
				rows = append(rows, row{a, c, s, float64(len(rows) + 1)})
			}
		}
	}
	resultsWith(t, res, rows)
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--x", "seed"}, 1, "two items for a at seed = 1 differ in contract: narrow them with --where"},
		{[]string{"--x", "contract"}, 1, "differ in seed"},
		{[]string{"--x", "seed", "--where", "contract=0.50"}, 0, "1  3.00  7.00"},
		{[]string{"--x", "contract", "--where", "seed=2,alloc=b"}, 0, "0.5  8.0"},
		{[]string{"--where", "contract=abc"}, 2, `"abc" is not a load factor`},
		{[]string{"--where", "seed=-1"}, 2, `"-1" is not a seed`},
		{[]string{"--where", "colour=red"}, 2, "KEY one of trace, machine, sched, pattern, alloc, contract, seed"},
		{[]string{"--where", "contract=0.3"}, 2, `--where "contract=0.3" matches none of the 8 items`},
		{[]string{"--where", "seed=1", "--y", "mean_wait"}, 2, `--y "mean_wait": item #0 has no such metric (it has mean_response)`},
		{[]string{"--x", "alloc"}, 2, "want contract or seed"},
	} {
		code, out, stderr := runCLI(t, "", append([]string{"plot", res}, tc.args...)...)
		if code != tc.code || !strings.Contains(out+stderr, tc.want) {
			t.Errorf("plot %v: exit %d, %s%s; want exit %d and %q", tc.args, code, out, stderr, tc.code, tc.want)
		}
	}
	// extreme values: an SVG with finite coordinates only, or an error
	extremes := []float64{0, 1, -1, 1e308, -1e308, math.MaxFloat64, -math.MaxFloat64, 5e-324, -5e-324, 1e-300, 1e300, -1e300, 1e16, 9007199254740993, -1e17, 3.5}
	rng := rand.New(rand.NewPCG(1, 2))
	svg := filepath.Join(dir, "p.svg")
	drawn := 0
	for trial := range 150 {
		var rs []row
		n := 1 + rng.IntN(4)
		for i := range n {
			v := extremes[rng.IntN(len(extremes))]
			if trial == 0 {
				v = []float64{1e308, -1e308, 1e308, -1e308}[i%4]
			}
			rs = append(rs, row{"a", []float64{1, 0.5, 0.25, 2}[i], 1, v})
		}
		resultsWith(t, res, rs)
		os.Remove(svg)
		code, _, stderr := runCLI(t, "", "plot", res, "--svg", svg)
		if code == 1 && (strings.Contains(stderr, "cannot draw") || strings.Contains(stderr, "cannot be drawn")) {
			if _, err := os.Stat(svg); err == nil {
				t.Fatalf("values %v: refused, yet an SVG was written", rs)
			}
			continue
		}
		if code != 0 {
			t.Fatalf("values %v: exit %d, %s", rs, code, stderr)
		}
		drawn++
		if m := badCoordinate.Find(mustRead(t, svg)); m != nil {
			t.Fatalf("values %v: SVG with %s", rs, m)
		}
	}
	if drawn == 0 {
		t.Fatal("no chart drawn at all")
	}
}

// A sweep with engines [message, flit] gives two items per allocator and load
// factor that differ only in their engine: plot said they "differ in nothing: the
// same item is given twice" and --where refused engine=..., so such a sweep could
// not be plotted at all.
func TestPlotEngines(t *testing.T) {
	dir := t.TempDir()
	res := filepath.Join(dir, "e.jsonl")
	var b bytes.Buffer
	for i, eng := range []sim.Engine{sim.EngineMessage, sim.EngineFlit} {
		p := sweep.Params{Trace: "t", Machine: "mesh:4x4", Alloc: "a", Sched: "fcfs", Contract: 1, Pattern: "n-body", Seed: 1, Engine: eng}
		raw, _ := json.Marshal(sweep.Line{Sweep: "p", Item: sweep.Item{Index: i, Key: p.Key(), Params: p}, Status: "ok", Result: json.RawMessage(fmt.Sprintf(`{"mean_response":%d}`, 10+i))})
		b.Write(append(raw, '\n'))
	}
	if err := os.WriteFile(res, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{nil, 1, "differ in engine: narrow them with --where"},
		{[]string{"--where", "engine=flit"}, 0, "1  11.0"},
		{[]string{"--where", "engine=message"}, 0, "1  10.0"},
		{[]string{"--where", "engine=bogus"}, 2, `"bogus" is not an engine (want message or flit)`},
		{[]string{"--where", "colour=red"}, 2, "KEY one of trace, machine, sched, pattern, alloc, contract, seed, engine"},
	} {
		code, out, stderr := runCLI(t, "", append([]string{"plot", res}, tc.args...)...)
		if code != tc.code || !strings.Contains(out+stderr, tc.want) {
			t.Errorf("plot %v: exit %d, %s%s; want exit %d and %q", tc.args, code, out, stderr, tc.code, tc.want)
		}
	}
}

// merge --csv had no engine column: the rows of a sweep over engines [message,
// flit] could not be told apart. The column is there when some item runs the flit
// engine (a message-only sweep's CSV is as before).
func TestMergeCSVEngines(t *testing.T) {
	dir := t.TempDir()
	res := filepath.Join(dir, "e.jsonl")
	var b bytes.Buffer
	for i, eng := range []sim.Engine{sim.EngineMessage, sim.EngineFlit} {
		p := sweep.Params{Trace: "t", Machine: "mesh:4x4", Alloc: "a", Sched: "fcfs", Contract: 1, Pattern: "n-body", Seed: 1, Engine: eng}
		raw, _ := json.Marshal(sweep.Line{Sweep: "p", Item: sweep.Item{Index: i, Key: p.Key(), Params: p}, Status: "ok", Result: json.RawMessage(`{"mean_response":1}`)})
		b.Write(append(raw, '\n'))
	}
	if err := os.WriteFile(res, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runCLI(t, "", "merge", res, "-o", filepath.Join(dir, "m.jsonl"), "--csv", "-")
	if code != 0 {
		t.Fatalf("merge: exit %d, %s", code, stderr)
	}
	rows := strings.Split(out, "\n")
	if !strings.HasPrefix(rows[0], "index,key,trace,machine,alloc,sched,contract,pattern,seed,engine,status,build,") ||
		!strings.Contains(rows[1], ",n-body,1,message,ok,unknown,") || !strings.Contains(rows[2], ",n-body,1,flit,ok,unknown,") {
		t.Errorf("merge --csv of a sweep over engines:\n%s", out)
	}
}

// FuzzPlotInput: whatever plot reads from standard input, it does not panic, and
// results lines are read back whole.
func FuzzPlotInput(f *testing.F) {
	p := sweep.Params{Trace: "t", Machine: "m", Alloc: "a", Sched: "fcfs", Contract: 1, Pattern: "none", Seed: 1}
	raw, _ := json.Marshal(sweep.Line{Sweep: "s", Item: sweep.Item{Key: p.Key(), Params: p}, Status: "ok", Result: json.RawMessage(`{"mean_response":3}`)})
	f.Add(append(raw, '\n'))
	f.Add([]byte(`{"trace":"t","runs":[{"alloc":"a","machine":"m","load_factor":0.5,"mean_response":2}]}`))
	f.Add([]byte("\n\n  {\"sweep\":\"s\",\"index\":0,\"key\":\"k\"\n"))
	f.Add([]byte{0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		e := &env{stdin: bytes.NewReader(data), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}}
		rep, err := readPlotInput(e, []string{"-"})
		if err != nil {
			return
		}
		// appending a good line to a readable results input gives one more item
		if bytes.HasPrefix(bytes.TrimLeft(data, " \t\r\n"), []byte(`{"sweep"`)) && bytes.HasSuffix(data, []byte("\n")) && len(rep.Lines) > 0 && rep.Lines[0].Sweep == "s" {
			q := p
			q.Seed = 77
			raw, _ := json.Marshal(sweep.Line{Sweep: "s", Item: sweep.Item{Index: 1000, Key: q.Key(), Params: q}, Status: "ok", Result: json.RawMessage(`{"mean_response":1}`)})
			e.stdin = bytes.NewReader(append(bytes.Clone(data), append(raw, '\n')...))
			rep2, err := readPlotInput(e, []string{"-"})
			if err != nil || !slices.ContainsFunc(rep2.Lines, func(l sweep.Line) bool { return l.Key == q.Key() }) {
				t.Fatalf("a line appended to readable results is not read: %v", err)
			}
		}
	})
}

// TestHelpSweepNamesItsLimits: help sweep names every cap sim/sweep puts on what it
// reads, with the caps' values (the cap on listed decoding errors was in the docs
// only).
func TestHelpSweepNamesItsLimits(t *testing.T) {
	_, help, _ := runCLI(t, "", "help", "sweep")
	help = strings.Join(strings.Fields(help), " ")
	for _, want := range []string{
		fmt.Sprintf("a sweep file of at most %d MiB", sweep.MaxSpecBytes>>20),
		fmt.Sprintf("and %d,%03d,%03d items", sweep.MaxItems/1_000_000, sweep.MaxItems/1000%1000, sweep.MaxItems%1000),
		fmt.Sprintf("results lines of at most %d MiB", sweep.MaxLineBytes>>20),
		fmt.Sprintf("results files of at most %d GiB", sweep.MaxResultsBytes>>30),
		fmt.Sprintf("the first %d are listed and the rest counted", sweep.MaxTypeErrors),
	} {
		if !strings.Contains(help, want) {
			t.Errorf("help sweep does not say %q", want)
		}
	}
}

// TestMergeTellsRerunsApart: merge's closing error gives each failed item the way
// out that can mend it. On a 12-node dragonfly a 14-node job fails bf:rcm (a
// rerun retries it, and it fails the same way until what its error names is
// mended) and mc1x1 does not apply at all (warned before the sweep ran: no rerun
// mends it); on mesh:4x4 both run. With a missing item the shards are to rerun.
// merge --json marks the item that does not apply.
func TestMergeTellsRerunsApart(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "t.swf"), []byte("1 0 0 100 14 -1 -1 14 -1 -1 1 -1 -1 -1 -1 -1 -1 -1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(file, []byte("name: s\ntraces: [t.swf]\nmachines: [mesh:4x4, \"dragonfly:hosts_per_router=2,routers_per_group=2,intergroup_links=1,num_groups=3\"]\nallocators: [bf:rcm, mc1x1]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := filepath.Join(dir, "r.jsonl")
	// sweep's own closing line says it too.
	if code, _, stderr := runCLI(t, "", "sweep", file, "-o", res); code != 1 || !strings.Contains(stderr, "2 items failed") || !strings.Contains(stderr, "; 1 of them no rerun mends: their allocator does not apply to their machine") {
		t.Fatalf("sweep: exit %d, want 1 (two items fail, one no rerun mends): %s", code, stderr)
	}
	const notApplies = "1 item failed because its allocator does not apply to its machine (warned before the sweep ran), which no rerun mends"
	const retry = "rerun the shards with failed items once what their errors name is mended"
	for _, spec := range [][]string{nil, {"--spec", file}} {
		code, _, stderr := runCLI(t, "", append([]string{"merge", res, "-o", os.DevNull}, spec...)...)
		last := stderr[strings.LastIndex(strings.TrimSuffix(stderr, "\n"), "\n")+1:]
		if code != 1 || !strings.Contains(last, retry) || !strings.Contains(last, notApplies) || strings.Contains(last, "missing") {
			t.Errorf("merge %v: exit %d, closing line %q; want %q and %q", spec, code, last, retry, notApplies)
		}
	}
	// Three of the four lines: the missing item's shard is to rerun.
	data, err := os.ReadFile(res)
	if err != nil {
		t.Fatal(err)
	}
	var keep []string
	for _, l := range strings.SplitAfter(string(data), "\n") {
		if l != "" && (!strings.Contains(l, `"status":"failed"`) || strings.Contains(l, "mc1x1")) {
			keep = append(keep, l)
		}
	}
	part := filepath.Join(dir, "part.jsonl")
	if err := os.WriteFile(part, []byte(strings.Join(keep, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, "", "merge", part, "--spec", file, "-o", os.DevNull)
	last := stderr[strings.LastIndex(strings.TrimSuffix(stderr, "\n"), "\n")+1:]
	if len(keep) != 3 || code != 1 || !strings.Contains(last, "rerun the shards with missing items; "+notApplies) {
		t.Errorf("merge of %d lines: exit %d, closing line %q; want the missing items' shards and %q", len(keep), code, last, notApplies)
	}
	code, stdout, _ := runCLI(t, "", "merge", res, "--json", "-o", os.DevNull)
	var r struct {
		Failed []struct {
			Error         string `json:"error"`
			NotApplicable bool   `json:"not_applicable"`
		} `json:"failed"`
	}
	if err := json.Unmarshal([]byte(stdout), &r); err != nil || code != 1 || len(r.Failed) != 2 {
		t.Fatalf("merge --json: exit %d, %v, %q", code, err, stdout)
	}
	for _, f := range r.Failed {
		if f.NotApplicable != strings.Contains(f.Error, "mc1x1") {
			t.Errorf("merge --json: not_applicable %v for %q", f.NotApplicable, f.Error)
		}
	}
}
