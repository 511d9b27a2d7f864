package main

import (
	"bytes"
	"encoding/json"
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
