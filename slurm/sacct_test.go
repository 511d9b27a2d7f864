package slurm

import (
	"errors"
	"os"
	"strings"
	"testing"
)

// The sample sacct output of the fat tree (sim/testdata): what is skipped and why,
// and every job kept is consistent (started after it was submitted, its node list as
// long as its size). Package sim's tests replay it.
func TestReadSacct(t *testing.T) {
	f, err := os.Open("../sim/testdata/sacct-fattree.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sa, err := ReadSacct(f, SacctOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"cancelled before start": 1, "earlier runs of requeued jobs": 1, "job steps": 3, "pending (never started)": 1, "still running": 1}
	for k, v := range want {
		if sa.Skipped[k] != v {
			t.Errorf("skipped %q: %d, want %d (%v)", k, sa.Skipped[k], v, sa.Skipped)
		}
	}
	if len(sa.Jobs) == 0 || sa.Bad != 0 {
		t.Fatalf("%d jobs, %d bad", len(sa.Jobs), sa.Bad)
	}
	for _, j := range sa.Jobs {
		if j.Start < j.Submit || j.Runtime < 0 || j.Size < 1 || j.NodeList != nil && len(j.NodeList) != j.Size || j.ID == 0 {
			t.Errorf("line %d: %+v", j.Line, j)
		}
	}
	const head = "JobIDRaw|Submit|Start|End|ElapsedRaw|NNodes|State\n"
	_, err = ReadSacct(strings.NewReader(head+"7|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:00:10|99999|1|COMPLETED\n"), SacctOptions{MaxValue: 1000})
	var le *SacctLineError
	if !errors.As(err, &le) || le.Line != 2 || !errors.Is(err, ErrRange) {
		t.Fatalf("ElapsedRaw beyond MaxValue: %v", err)
	}
	sa, err = ReadSacct(strings.NewReader(head+"7|2026-01-01T00:00:00|x|2026-01-01T00:00:10|10|1|COMPLETED\n"), SacctOptions{SkipBad: true})
	if err != nil || sa.Bad != 1 || len(sa.Jobs) != 0 {
		t.Fatalf("SkipBad: %v %+v", err, sa)
	}
}
