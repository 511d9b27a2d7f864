package sim

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestReadTraceRefusals: the trace reader's refusals that had no test, each
// naming the line and what is wrong with it.
func TestReadTraceRefusals(t *testing.T) {
	swf := func(f ...string) string {
		rec := strings.Fields("1 10 5 100 4 -1 -1 4 200 -1 1 1 1 -1 -1 -1 -1 -1")
		for i := 0; i+1 < len(f); i += 2 {
			var k int
			fmt.Sscan(f[i], &k)
			rec[k-1] = f[i+1]
		}
		return "; Version: 2.2\n" + strings.Join(rec, " ") + "\n"
	}
	for _, c := range []struct {
		in, format, want string
	}{
		{"0 4 10 -1\n-5 4 10 -1\n", "", "line 2"},
		{"0 4 10 -1\n-5 4 10 -1\n", "", "arrival -5: value out of range"},
		{"0 4 10 -1\n-1 4 10 -1\n", "", "line 2: negative arrival -1: \"-1 4 10 -1\""},
		{"0 4 -1 -1\n", "", "line 1: negative runtime -1: \"0 4 -1 -1\""},
		{"0 4 10 -1 7 7\n", "", "cannot tell the trace format from a record of 6 fields"},
		{"; Version: 2.2\n1 10 5 100 4 -1 -1 4 200 -1 1 1 1 -1 -1 -1 -1\n", "", "line 2"},
		{"; Version: 2.2\n1 10 5 100 4 -1 -1 4 200 -1 1 1 1 -1 -1 -1 -1\n", "", "17 fields, want 18 (SWF 2.2)"},
		{swf("5", "3000000000"), "", "allocated processors 3000000000"},
		{swf("2", "1e300"), "", "field 2 1e300"},
		{swf("4", "0x10"), "", "field 4 \"0x10\" is not a number"},
		{"0 4 10 -1\n", "pbs", "unknown trace format \"pbs\" (want swf, converted or sacct)"},
		{"0 4 10 -1\n", "swf", "line 1"}, // a converted record read as SWF
		// '#' lines are comments in neither format: named, with what to do, at
		// the start (was "cannot tell the trace format"), inside, and in SWF.
		{"# converted from LLNL-T3D\n0 4 10 -1\n", "", "line 1: a '#' line is not a comment in a trace: comment lines start with ';'"},
		{"#\n0 4 10 -1\n", "", "comment lines start with ';'"},
		{"0 4 10 -1\n  # a b c\n", "converted", "line 2: a '#' line"},
		{swf() + "# a note\n", "", "line 3: a '#' line"},
	} {
		_, err := ReadTrace(strings.NewReader(c.in), ReadOptions{Format: Format(c.format)})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q (format %q): %v, want %q", c.in, c.format, err, c.want)
		}
	}
	// With SkipBad, a '#' line is counted with the bad lines, as any line that is
	// no record.
	if tr, err := ReadTrace(strings.NewReader("# a b c d e\n0 4 10 -1\n"), ReadOptions{SkipBad: true}); err != nil || tr.Bad != 1 || len(tr.Jobs) != 1 || tr.Format != "converted" {
		t.Errorf("SkipBad over a '#' line: %+v, %v; want 1 bad line and 1 converted job", tr, err)
	}
	// SWF: a requested time below -1 (unknown) reads as -1, a negative submit time
	// or a run time still unknown drops the record (counted).
	tr, err := ReadTrace(strings.NewReader(swf("9", "-7")+"2 -3 5 100 4 -1 -1 4 200 -1 1 1 1 -1 -1 -1 -1 -1\n3 5 5 -1 4 -1 -1 4 200 -1 1 1 1 -1 -1 -1 -1 -1\n"), ReadOptions{})
	if err != nil || len(tr.Jobs) != 1 || tr.Jobs[0].Estimate != -1 || tr.Filtered != 2 {
		t.Errorf("SWF conversion: %+v, %v; want one job of estimate -1 and 2 filtered", tr, err)
	}
}

// TestWriteConvertedRoundTrip: a trace written in the converted format reads back
// as the same jobs (IDs are the converted format's 1, 2, ...; lines 1, 2, ...).
func TestWriteConvertedRoundTrip(t *testing.T) {
	tr, err := ReadTrace(strings.NewReader(swfSample), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteConverted(&buf, tr.Jobs); err != nil {
		t.Fatal(err)
	}
	back, err := ReadTrace(&buf, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if back.Format != "converted" || len(back.Jobs) != len(tr.Jobs) {
		t.Fatalf("read back %s with %d jobs, want converted with %d", back.Format, len(back.Jobs), len(tr.Jobs))
	}
	for i, j := range tr.Jobs {
		b := back.Jobs[i]
		if b.Arrival != j.Arrival || b.Procs != j.Procs || b.Runtime != j.Runtime || b.Estimate != j.Estimate || b.ID != i+1 || b.Line != i+1 {
			t.Errorf("job %d: %+v, wrote %+v", i, b, j)
		}
	}
}

// TestGzipChecksumDamage: a gzip trace whose data were changed after compression
// (a flipped byte in the CRC-32 trailer) is reported as a damaged file, not read
// as if whole, with or without --skip-bad.
func TestGzipChecksumDamage(t *testing.T) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	for i := range 100 {
		fmt.Fprintf(zw, "%d 4 100 200\n", i*10)
	}
	zw.Close()
	data := bytes.Clone(buf.Bytes())
	data[len(data)-8] ^= 0xff // the first byte of the CRC-32
	for _, skip := range []bool{false, true} {
		_, err := ReadTrace(bytes.NewReader(data), ReadOptions{SkipBad: skip})
		if err == nil || !strings.Contains(err.Error(), "the gzip file is damaged (checksum mismatch after line 100)") || !errors.Is(err, gzip.ErrChecksum) {
			t.Errorf("skip-bad %v: %v", skip, err)
		}
	}
}

// TestWindowBadRange: a window whose end is not after its start is an error that
// gives both; no jobs at all is ErrEmptyWindow.
func TestWindowBadRange(t *testing.T) {
	jobs := []Job{{Arrival: 5}, {Arrival: 10}}
	if _, err := Window(jobs, 10, 10); err == nil || !strings.Contains(err.Error(), "window [10, 10): the end must come after the start") {
		t.Errorf("empty range: %v", err)
	}
	if _, err := Window(nil, 0, 0); !errors.Is(err, ErrEmptyWindow) || !strings.Contains(err.Error(), "of the trace's 0 jobs") {
		t.Errorf("no jobs: %v", err)
	}
	if w, err := Window(jobs, 6, 0); err != nil || len(w) != 1 || w[0].Arrival != 10 {
		t.Errorf("from 6 on: %v %v", w, err)
	}
}

// TestConvertedTraceWithSemicolonComments: the format is told from the first
// record, not from ';' comment lines before it. A converted file with a ';' note, or
// with an SWF header copied over it, was taken for SWF and refused ("4 fields, want
// 18 (SWF 2.2)"); it reads as --format converted reads it: the same jobs, the
// comments skipped, the header's values not used. SWF files with their header, and
// a header-only file, are SWF as before.
func TestConvertedTraceWithSemicolonComments(t *testing.T) {
	body := "0 4 10 -1\n5 2 7 20\n; a note between records\n9 1 3 -1\n"
	want, err := ReadTrace(strings.NewReader(body), ReadOptions{})
	if err != nil || want.Format != FormatConverted || len(want.Jobs) != 3 {
		t.Fatalf("plain converted file: %+v, %v", want, err)
	}
	for _, head := range []string{
		"; converted from LLNL-T3D\n",
		"; Version: 2.2\n; MaxProcs: 256\n; UnixStartTime: 820454400\n; TimeZoneString: US/Pacific\n;\n",
	} {
		for _, format := range []Format{FormatDetect, FormatConverted} {
			tr, err := ReadTrace(strings.NewReader(head+body), ReadOptions{Format: format})
			if err != nil {
				t.Fatalf("%q (format %q): %v", head, format, err)
			}
			if tr.Format != FormatConverted || tr.MaxProcs != 0 || tr.UnixStart != 0 || tr.TimeZone != "" || len(tr.Jobs) != len(want.Jobs) {
				t.Fatalf("%q (format %q): format %q, MaxProcs %d, UnixStart %d, zone %q, %d jobs; want converted, no header values, %d jobs",
					head, format, tr.Format, tr.MaxProcs, tr.UnixStart, tr.TimeZone, len(tr.Jobs), len(want.Jobs))
			}
			for i, j := range tr.Jobs {
				w := want.Jobs[i]
				if j.Arrival != w.Arrival || j.Procs != w.Procs || j.Runtime != w.Runtime || j.Estimate != w.Estimate || j.ID != w.ID {
					t.Errorf("%q: job %d %+v, want %+v", head, i, j, w)
				}
			}
		}
	}
	// SWF keeps its header; comments alone are an SWF header with no job.
	tr, err := ReadTrace(strings.NewReader("; MaxProcs: 256\n; UnixStartTime: 820454400\n1 10 5 100 4 -1 -1 4 200 -1 1 1 1 -1 -1 -1 -1 -1\n"), ReadOptions{})
	if err != nil || tr.Format != FormatSWF || tr.MaxProcs != 256 || tr.UnixStart != 820454400 || len(tr.Jobs) != 1 {
		t.Errorf("SWF with its header: %+v, %v", tr, err)
	}
	if tr, err := ReadTrace(strings.NewReader("; Version: 2.2\n; MaxProcs: 64\n"), ReadOptions{}); err != nil || tr.Format != FormatSWF || tr.MaxProcs != 64 || len(tr.Jobs) != 0 {
		t.Errorf("header only: %+v, %v", tr, err)
	}
}
