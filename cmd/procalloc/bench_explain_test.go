package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/internal/ctxtest"
)

// TestBenchInterruptedRowsSayWhatIsMissing: the nineteenth round's walk (wt-ux3)
// pressed Ctrl-C during one of bench's allocators. The row under way showed heap
// 0.0 MB and 0 B/decision, figures that were never measured, and the allocators
// after it were simply absent. Now the row shows "-" there, the table names the
// allocators not measured (JSON: not_run), and --json says at which percentiles
// percentiles_us are taken. The table explains the floor and its units.
func TestBenchInterruptedRowsSayWhatIsMissing(t *testing.T) {
	args := []string{"bench", "--machine", "mesh:16x16", "--alloc", "bf:hilbert,mc1x1,mm", "--jobs", "20000"}
	var out, errb bytes.Buffer
	// the context is polled once per step (40,000 per row) and elsewhere: inside
	// the first allocator's row, after the floor's
	code := run(ctxtest.StopAfter(40000+40000+20000), &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb}, args)
	if code != exitInterrupted {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	table := out.String()
	if !regexp.MustCompile(`(?m)^ +bf:hilbert .* - +- +partial$`).MatchString(table) {
		t.Errorf("the interrupted row's memory is not '-':\n%s", table)
	}
	if !regexp.MustCompile(`(?m)^ +read free set .* \d+\.\d +\d+ *$`).MatchString(table) {
		t.Errorf("a finished row lost its memory figures:\n%s", table)
	}
	for _, want := range []string{"not measured: mc1x1, mm", "read free set is the floor", "µs: wall clock inside one Allocate"} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
	out.Reset()
	code = run(ctxtest.StopAfter(40000+40000+20000), &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb}, append(args, "--json"))
	var rep struct {
		Percentiles []float64 `json:"percentiles"`
		NotRun      []string  `json:"not_run"`
		Allocs      []struct {
			Percentiles []float64 `json:"percentiles_us"`
		}
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil || code != exitInterrupted {
		t.Fatalf("exit %d, %v: %s", code, err, out.String())
	}
	if !slices.Equal(rep.Percentiles, []float64{10, 25, 50, 75, 90, 99, 100}) || len(rep.Allocs) == 0 || len(rep.Allocs[0].Percentiles) != len(rep.Percentiles) {
		t.Errorf("percentiles %v for percentiles_us %v", rep.Percentiles, rep.Allocs[0].Percentiles)
	}
	if !slices.Equal(rep.NotRun, []string{"mc1x1", "mm"}) {
		t.Errorf("not_run %q, want [mc1x1 mm]", rep.NotRun)
	}
}

// TestBenchDropLarger: a trace with a job larger than the machine was refused
// with "job larger than the machine" and nothing to do about it (sim says what
// to do, and has --drop-larger); bench now says the same and takes the flag.
func TestBenchDropLarger(t *testing.T) {
	trace := filepath.Join(t.TempDir(), "t.txt")
	os.WriteFile(trace, []byte("0 4 100 -1\n10 20 100 -1\n20 8 50 -1\n30 2 10 -1\n"), 0o644)
	base := []string{"bench", "--machine", "mesh:4x4", "--trace", trace, "--alloc", "bf:hilbert"}
	code, _, stderr := runCLI(t, "", base...)
	if code != 1 || !strings.Contains(stderr, "needs 20 nodes, the machine mesh:4x4 has 16: job larger than the machine: give a --machine of at least that many nodes, or --drop-larger") {
		t.Errorf("refused: exit %d, %q", code, stderr)
	}
	code, out, stderr := runCLI(t, "", append(base, "--drop-larger")...)
	if code != 0 || !strings.Contains(out, "first 3 jobs (1 job larger than the machine dropped)") {
		t.Errorf("--drop-larger: exit %d, %q %q", code, out, stderr)
	}
	if code, _, stderr := runCLI(t, "", "bench", "--machine", "mesh:4x4", "--alloc", "bf:hilbert", "--drop-larger"); code != 2 || !strings.Contains(stderr, "--drop-larger goes with --trace") {
		t.Errorf("without --trace: exit %d, %q", code, stderr)
	}
}
