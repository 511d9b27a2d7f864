package sim

import (
	"strings"
	"testing"
)

// TestTraceDetectsSacctForms: sacct output printed with -n, --delimiter or without
// -P (the real sacct 22.05's, slurm/testdata/sacct-22.05) is neither SWF nor the
// converted format; detection says which sacct option to change instead of "cannot
// tell the trace format from a record of 11 fields"; -P and --parsable are read.
func TestTraceDetectsSacctForms(t *testing.T) {
	dir := "../slurm/testdata/sacct-22.05/"
	for _, c := range []struct{ name, want string }{
		{"P-noheader.txt", "line 1: a record where the header should be (sacct -n/--noheader)"},
		{"P-delimiter-comma.txt", "line 1: the header's fields are separated by \",\" (sacct --delimiter)"},
		{"table.txt", "line 1: this is sacct's table"},
		{"table-noheader.txt", "line 1: this is sacct's table"},
	} {
		_, err := ReadTraceFile(dir+c.name, ReadOptions{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
	for _, name := range []string{"P.txt", "parsable.txt"} {
		tr, err := ReadTraceFile(dir+name, ReadOptions{})
		if err != nil || tr.Format != "sacct" || len(tr.Jobs) != 10 {
			t.Errorf("%s: %v", name, err)
		}
	}
}
