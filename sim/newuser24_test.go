package sim

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/internal/textin"
)

// An sacct history saved with a UTF-8 byte-order mark reads as without it, detected
// or with Format "sacct" (before: "cannot tell the trace format from a record of 1
// fields" and "sacct header lacks JobIDRaw or JobID").
func TestReadSacctByteOrderMark(t *testing.T) {
	src, err := os.ReadFile("testdata/sacct-fattree.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []Format{FormatDetect, "sacct"} {
		want, err := ReadTrace(bytes.NewReader(src), ReadOptions{Format: f})
		if err != nil {
			t.Fatal(err)
		}
		got, err := ReadTrace(strings.NewReader(textin.BOM+string(src)), ReadOptions{Format: f})
		if err != nil || fmt.Sprint(got.Jobs) != fmt.Sprint(want.Jobs) || got.Format != "sacct" {
			t.Errorf("format %q with a byte-order mark: %v, %+v; want %+v", f, err, got, want)
		}
	}
}

// A truncated gzip of an sacct history is reported as truncated, not as the torn
// line's fields ("line 7: 10 fields, the header has 11").
func TestSacctGzipDamageIsReportedAsSuch(t *testing.T) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	fmt.Fprintln(zw, "JobIDRaw|Submit|Start|End|ElapsedRaw|TimelimitRaw|NNodes|NCPUS|State|Partition|NodeList")
	for i := range 5000 {
		fmt.Fprintf(zw, "%d|2026-11-02T08:00:00|2026-11-02T08:00:00|2026-11-02T09:00:00|3600|120|1|64|COMPLETED|batch|n%d\n", 1000+i, i+1)
	}
	zw.Close()
	full := buf.Bytes()
	if tr, err := ReadTrace(bytes.NewReader(full), ReadOptions{}); err != nil || len(tr.Jobs) != 5000 || tr.Format != "sacct" {
		t.Fatalf("whole file: %v", err)
	}
	for _, n := range []int{len(full) / 2, len(full) - 4} {
		for _, skip := range []bool{false, true} {
			_, err := ReadTrace(bytes.NewReader(full[:n]), ReadOptions{SkipBad: skip})
			if err == nil || !strings.Contains(err.Error(), "the gzip file is truncated") {
				t.Errorf("%d of %d bytes (skip-bad %v): err = %v, want truncated", n, len(full), skip, err)
			}
		}
	}
}
