package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/sim/sweep"
)

// TestPlotSaysWhatToNarrow: the nineteenth round's walk (wt-ux3) plotted a sweep
// of two traces, two machines and two seeds. plot named one differing parameter
// per run (seed, then trace, then machine: three tries), and --where trace=NAME
// with the file's base name "matched none of the 128 items" without saying that
// traces are matched as the sweep file wrote them. Now the first error names every
// parameter still varying with its values and a --where that plots, which works
// as printed, commas in a machine spec included; a KEY=VALUE that matches nothing
// lists the values the items have.
func TestPlotSaysWhatToNarrow(t *testing.T) {
	dir := t.TempDir()
	res := filepath.Join(dir, "r.jsonl")
	var b bytes.Buffer
	i := 0
	for _, tr := range []string{"/x/a.swf", "/x/b.swf"} {
		for _, m := range []string{"fattree:4,2:4", "mesh:4x4"} {
			for _, seed := range []uint64{1, 2} {
				for _, a := range []string{"genalg", "mc1x1:tb=3,9,3,2"} {
					p := sweep.Params{Trace: tr, Machine: m, Alloc: a, Sched: "fcfs", Contract: 1, Pattern: "none", Seed: seed}
					raw, _ := json.Marshal(sweep.Line{Sweep: "w", Item: sweep.Item{Index: i, Key: p.Key(), Params: p}, Status: "ok", Result: json.RawMessage(fmt.Sprintf(`{"mean_response":%d}`, 10+i))})
					b.Write(append(raw, '\n'))
					i++
				}
			}
		}
	}
	if err := os.WriteFile(res, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, "", "plot", res)
	want := "still vary in trace (/x/a.swf, /x/b.swf), machine (fattree:4,2:4, mesh:4x4), seed (1, 2): e.g. --where 'trace=/x/a.swf,machine=fattree:4,2:4,seed=1'"
	if code != 1 || !strings.Contains(stderr, want) {
		t.Fatalf("plot: exit %d, %q; want %q", code, stderr, want)
	}
	suggested := regexp.MustCompile(`--where '([^']*)'`).FindStringSubmatch(stderr)[1]
	code, out, stderr := runCLI(t, "", "plot", res, "--where", suggested)
	if code != 0 || !regexp.MustCompile(`1 +10.0 +11.0`).MatchString(out) {
		t.Fatalf("plot --where %s: exit %d, %q %q", suggested, code, out, stderr)
	}
	// narrowed in part: what is left varying, with the user's own --where first
	code, _, stderr = runCLI(t, "", "plot", res, "--where", "machine=mesh:4x4")
	if want := "still vary in trace (/x/a.swf, /x/b.swf), seed (1, 2): e.g. --where 'machine=mesh:4x4,trace=/x/a.swf,seed=1'"; code != 1 || !strings.Contains(stderr, want) {
		t.Errorf("partly narrowed: exit %d, %q; want %q", code, stderr, want)
	}
	// an allocator spec with commas as a --where value
	code, out, stderr = runCLI(t, "", "plot", res, "--where", "alloc=mc1x1:tb=3,9,3,2,trace=/x/b.swf,machine=mesh:4x4,seed=2")
	if code != 0 || !regexp.MustCompile(`1 +25.0`).MatchString(out) {
		t.Errorf("alloc with commas: exit %d, %q %q", code, out, stderr)
	}
	code, _, stderr = runCLI(t, "", "plot", res, "--where", "trace=a.swf,seed=1")
	if want := `matches none of the 16 items: trace=a.swf matches no item; the items' trace values: /x/a.swf, /x/b.swf`; code != 2 || !strings.Contains(stderr, want) {
		t.Errorf("base name: exit %d, %q; want %q", code, stderr, want)
	}
	code, _, stderr = runCLI(t, "", "plot", res, "--where", "trace=/x/a.swf,seed=3")
	if want := `seed=3 matches no item; the items' seed values: 1, 2`; code != 2 || !strings.Contains(stderr, want) || strings.Contains(stderr, "did you mean") {
		t.Errorf("seed: exit %d, %q; want %q and no hint (numbers are not spelt)", code, stderr, want)
	}
	// A near value is named (the twenty-ninth round's new user: pattern=nbody for
	// n-body got the list only).
	code, _, stderr = runCLI(t, "", "plot", res, "--where", "trace=/x/a.swf,machine=mesh:4x5,seed=1")
	if want := `machine=mesh:4x5 matches no item; the items' machine values: fattree:4,2:4, mesh:4x4 (did you mean mesh:4x4?)`; code != 2 || !strings.Contains(stderr, want) {
		t.Errorf("near value: exit %d, %q; want %q", code, stderr, want)
	}
	// One term is quoted once (it was said twice: "--where \"seed=3\" matches none of
	// the 16 items: seed=3 matches no item; ...").
	code, _, stderr = runCLI(t, "", "plot", res, "--where", "machine=mesh:4x5")
	if want := `--where "machine=mesh:4x5" matches none of the 16 items: the items' machine values: fattree:4,2:4, mesh:4x4 (did you mean mesh:4x4?)`; code != 2 || !strings.Contains(stderr, want) || strings.Count(stderr, "mesh:4x5") != 1 {
		t.Errorf("one term: exit %d, %q; want %q, the term once", code, stderr, want)
	}
}
