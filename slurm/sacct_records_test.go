package slurm

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestReadSacctRecordChecks: the record checks of ReadSacct that had no test. A
// trailing '|' (sacct --parsable) reads as without it; blank lines are skipped; an
// empty State or a non-numeric ElapsedRaw is an error naming the line, or counted
// with SkipBad; an ElapsedRaw or Elapsed longer than End - Start is impossible
// (counted, skipped); no header at all is an error.
func TestReadSacctRecordChecks(t *testing.T) {
	const head = "JobIDRaw|Submit|Start|End|ElapsedRaw|NNodes|State\n"
	const ok = "7|2026-01-01T00:00:00|2026-01-01T00:00:05|2026-01-01T00:00:15|10|2|COMPLETED"
	opt := SacctOptions{Location: time.UTC}
	plain, err := ReadSacct(strings.NewReader(head+ok+"\n"), opt)
	if err != nil || len(plain.Jobs) != 1 {
		t.Fatalf("plain: %v", err)
	}
	p := plain.Jobs[0]
	if p.ID != 7 || p.Size != 2 || p.Runtime != 10 || p.Start-p.Submit != 5 {
		t.Errorf("plain %+v", p)
	}
	for _, h := range []string{head, strings.ReplaceAll(head, "\n", "|\n")} {
		trailing, err := ReadSacct(strings.NewReader(h+"\n  \n"+ok+"|\n"), opt)
		if err != nil || len(trailing.Jobs) != 1 {
			t.Fatalf("--parsable, header %q: %v", h, err)
		}
		q := trailing.Jobs[0]
		if q.ID != p.ID || q.Size != p.Size || q.Runtime != p.Runtime || q.Start != p.Start || q.Submit != p.Submit || q.Line != 4 {
			t.Errorf("plain %+v, --parsable %+v", p, q)
		}
	}
	for _, c := range []struct{ row, want string }{
		{"7|2026-01-01T00:00:00|2026-01-01T00:00:05|2026-01-01T00:00:15|10|2|", "empty State"},
		{"7|2026-01-01T00:00:00|2026-01-01T00:00:05|2026-01-01T00:00:15|ten|2|COMPLETED", "ElapsedRaw \"ten\" is not a number of seconds"},
		{"7|2026-01-01T00:00:00|2026-01-01T00:00:05|2026-01-01T00:00:15|-3|2|COMPLETED", "ElapsedRaw \"-3\" is not a number of seconds"},
		{"7|2026-01-01T00:00:00|2026-01-01T00:00:05|2026-01-01T00:00:15|10|0|COMPLETED", "job size \"0\" is not a positive number"},
		{"|2026-01-01T00:00:00|2026-01-01T00:00:05|2026-01-01T00:00:15|10|2|COMPLETED", "empty job id"},
	} {
		in := head + ok + "\n" + c.row + "\n"
		_, err := ReadSacct(strings.NewReader(in), opt)
		var le *SacctLineError
		if !errors.As(err, &le) || le.Line != 3 || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want line 3: %q", c.row, err, c.want)
		}
		sa, err := ReadSacct(strings.NewReader(in), SacctOptions{Location: time.UTC, SkipBad: true})
		if err != nil || sa.Bad != 1 || len(sa.Jobs) != 1 {
			t.Errorf("%q with SkipBad: %v, %d bad, %d jobs; want 1 and 1", c.row, err, sa.Bad, len(sa.Jobs))
		}
	}
	for _, c := range []struct{ head, row string }{
		{head, "7|2026-01-01T00:00:00|2026-01-01T00:00:05|2026-01-01T00:00:15|11|2|COMPLETED"},
		{"JobIDRaw|Submit|Start|End|Elapsed|NNodes|State\n", "7|2026-01-01T00:00:00|2026-01-01T00:00:05|2026-01-01T00:00:15|00:00:11|2|COMPLETED"},
	} {
		sa, err := ReadSacct(strings.NewReader(c.head+c.row+"\n"), opt)
		if err != nil || len(sa.Jobs) != 0 || sa.Impossible[ImpossibleElapsed] != 1 {
			t.Errorf("%q: %v, %d jobs, impossible %v", c.row, err, len(sa.Jobs), sa.Impossible)
		}
		// One second shorter is End - Start: kept, with that run time.
		edge := strings.Replace(strings.Replace(c.row, "|11|", "|10|", 1), "00:00:11", "00:00:10", 1)
		sa, err = ReadSacct(strings.NewReader(c.head+edge+"\n"), opt)
		if err != nil || len(sa.Jobs) != 1 || sa.Jobs[0].Runtime != 10 {
			t.Errorf("%q: %v, %+v", edge, err, sa)
		}
	}
	if _, err := ReadSacct(strings.NewReader("\n \n"), opt); err == nil || err.Error() != "empty sacct output" {
		t.Errorf("no header: %v", err)
	}
}

// TestLooksLikeSacct: a '|'-separated first line naming JobID or JobIDRaw, after
// blank lines; anything else is not.
func TestLooksLikeSacct(t *testing.T) {
	for in, want := range map[string]bool{
		"\n  \nJobIDRaw|Submit|State\n": true,
		"JobID|Submit\n":                true,
		"Submit|State|JobName\n":        false,
		"JobID Submit State\n":          false,
		"; Version: 2.2\nJobID|x\n":     false,
		"":                              false,
		"\n\n":                          false,
	} {
		if got := LooksLikeSacct([]byte(in)); got != want {
			t.Errorf("%q: %v, want %v", in, got, want)
		}
	}
}
