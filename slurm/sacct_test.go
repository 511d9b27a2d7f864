package slurm

import (
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/procalloc/procalloc/topo/hostlist"
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
		if j.Start < j.Submit || j.Runtime < 0 || j.Size < 1 || j.NodeList.Len() > 0 && j.NodeList.Len() != j.Size || j.ID == 0 {
			t.Errorf("line %d: %+v", j.Line, j)
		}
	}
	const head = "JobIDRaw|Submit|Start|End|ElapsedRaw|NNodes|State\n"
	_, err = ReadSacct(strings.NewReader(head+"7|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:00:10|99999|1|COMPLETED\n"), SacctOptions{MaxValue: 1000})
	var le *SacctLineError
	if !errors.As(err, &le) || le.Line != 2 || !errors.Is(err, ErrRange) {
		t.Fatalf("ElapsedRaw beyond MaxValue: %v", err)
	}
	// MaxValue bounds the limit (TimelimitRaw, in minutes) and a run time taken
	// from End - Start too, not only ElapsedRaw.
	for _, c := range []struct{ head, row string }{
		{"JobIDRaw|Submit|Start|End|TimelimitRaw|NNodes|State\n", "7|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:00:10|17|1|COMPLETED\n"},
		{"JobIDRaw|Submit|Start|End|NNodes|State\n", "7|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:16:41|1|COMPLETED\n"},
	} {
		_, err = ReadSacct(strings.NewReader(c.head+c.row), SacctOptions{MaxValue: 1000, Location: time.UTC})
		if !errors.As(err, &le) || le.Line != 2 || !errors.Is(err, ErrRange) {
			t.Errorf("%q beyond MaxValue 1000: %v", c.row, err)
		}
		edge := strings.Replace(strings.Replace(c.row, "|17|", "|16|", 1), "00:16:41", "00:16:40", 1)
		if sa, err := ReadSacct(strings.NewReader(c.head+edge), SacctOptions{MaxValue: 1000, Location: time.UTC}); err != nil || len(sa.Jobs) != 1 {
			t.Errorf("%q within MaxValue 1000: %v", edge, err)
		}
	}
	sa, err = ReadSacct(strings.NewReader(head+"7|2026-01-01T00:00:00|x|2026-01-01T00:00:10|10|1|COMPLETED\n"), SacctOptions{SkipBad: true})
	if err != nil || sa.Bad != 1 || len(sa.Jobs) != 0 {
		t.Fatalf("SkipBad: %v %+v", err, sa)
	}
}

// Issue 31 item 10: sacct prints local times; a job submitted a few seconds before
// the US daylight-saving switch and started after it waited 20 s, not 3620 s, and
// records whose times contradict each other, or name no Slurm state, are counted
// and skipped.
func TestReadSacctTimeZone(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Skipf("no zone data: %v", err)
	}
	const head = "JobIDRaw|Submit|Start|End|ElapsedRaw|NNodes|State\n"
	const dst = "7|2024-03-10T01:59:50|2024-03-10T03:00:10|2024-03-10T03:00:20|10|1|COMPLETED\n"
	for _, c := range []struct {
		loc  *time.Location
		wait int64
	}{{ny, 20}, {time.UTC, 3620}} {
		sa, err := ReadSacct(strings.NewReader(head+dst), SacctOptions{Location: c.loc})
		if err != nil || len(sa.Jobs) != 1 {
			t.Fatalf("%v: %v %+v", c.loc, err, sa)
		}
		if w := sa.Jobs[0].Start - sa.Jobs[0].Submit; w != c.wait {
			t.Errorf("read in %v: waits %d s, want %d", c.loc, w, c.wait)
		}
	}
	recs := head +
		"1|2024-01-01T10:00:00|2024-01-01T09:00:00|2024-01-01T11:00:00|7200|1|COMPLETED\n" + // starts before submit
		"2|2024-01-01T10:00:00|2024-01-01T10:00:00|2024-01-01T09:00:00||1|COMPLETED\n" + // ends before start
		"3|2024-01-01T10:00:00|2024-01-01T10:00:00|2024-01-01T09:00:00|60|1|COMPLETED\n" + // ends before start, ElapsedRaw given
		"4|2024-01-01T10:00:00|2024-01-01T10:00:00|2024-01-01T10:01:00|61|1|COMPLETED\n" + // ElapsedRaw > End-Start
		"5|2024-03-10T02:30:00|2024-03-10T03:30:00|2024-03-10T03:31:00|60|1|COMPLETED\n" + // 02:30 does not exist in New York that day
		"6|2024-01-01T10:00:00|2024-01-01T10:00:00|2024-01-01T10:01:00|60|1|FINISHED\n" + // no such state
		"7|2024-01-01T10:00:00|2024-01-01T10:00:00|2024-01-01T10:02:00|60|1|COMPLETED\n" // suspended 60 s: kept, runs 60 s
	sa, err := ReadSacct(strings.NewReader(recs), SacctOptions{Location: ny})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{ImpossibleStartBeforeSubmit: 1, ImpossibleEndBeforeStart: 2, ImpossibleElapsed: 1, ImpossibleTime: 1, ImpossibleState: 1}
	if !maps.Equal(sa.Impossible, want) {
		t.Errorf("impossible %v, want %v", sa.Impossible, want)
	}
	if len(sa.Jobs) != 1 || sa.Jobs[0].ID != 7 || sa.Jobs[0].Runtime != 60 {
		t.Errorf("kept %+v, want job 7 of 60 s", sa.Jobs)
	}
	// In UTC 02:30 exists: only the zone's gap makes record 5 impossible.
	if sa, _ := ReadSacct(strings.NewReader(recs), SacctOptions{Location: time.UTC}); sa.Impossible[ImpossibleTime] != 0 || len(sa.Jobs) != 2 {
		t.Errorf("UTC: %v, %d jobs, want 2", sa.Impossible, len(sa.Jobs))
	}
}

// More jobs than the cap is an error, not memory without bound.
func TestReadSacctMaxJobs(t *testing.T) {
	var b strings.Builder
	b.WriteString("JobIDRaw|Submit|Start|End|NNodes|State\n")
	for i := 1; i <= 11; i++ {
		fmt.Fprintf(&b, "%d|2024-01-01T10:00:00|2024-01-01T10:00:00|2024-01-01T10:01:00|1|COMPLETED\n", i)
	}
	if _, err := ReadSacct(strings.NewReader(b.String()), SacctOptions{MaxJobs: 10, Location: time.UTC}); !errors.Is(err, ErrTooManyJobs) || !strings.Contains(err.Error(), "line 12") {
		t.Fatalf("11 jobs, cap 10: %v", err)
	}
	if sa, err := ReadSacct(strings.NewReader(b.String()), SacctOptions{MaxJobs: 11, Location: time.UTC}); err != nil || len(sa.Jobs) != 11 {
		t.Fatalf("11 jobs, cap 11: %v", err)
	}
}

// The node lists ReadSacct keeps (one shared host table, runs of ids) give back
// exactly the names hostlist.Expand gives for each record's NodeList field, in its
// order: on the repository's sample and on a generated history of 2,000 jobs whose
// lists overlap, repeat ranges, mix zero padding and come in any order.
func TestReadSacctNodeLists(t *testing.T) {
	data, err := os.ReadFile("../sim/testdata/sacct-fattree.txt")
	if err != nil {
		t.Fatal(err)
	}
	var gen strings.Builder
	gen.WriteString("JobIDRaw|Submit|Start|End|NNodes|State|NodeList\n")
	rng := rand.New(rand.NewPCG(29, 1))
	for i := 1; i <= 2000; i++ {
		var items []string
		for range 1 + rng.IntN(4) {
			lo := rng.IntN(5000)
			switch rng.IntN(4) {
			case 0:
				items = append(items, fmt.Sprintf("c%d", lo))
			case 1:
				items = append(items, fmt.Sprintf("c[%d-%d]", lo, lo+rng.IntN(300)))
			case 2:
				items = append(items, fmt.Sprintf("gpu[%03d-%03d,%d]", lo%500, lo%500+rng.IntN(20), 600+rng.IntN(50)))
			default:
				items = append(items, fmt.Sprintf("r%d_b[%d-%d]", rng.IntN(3), lo%40, lo%40+rng.IntN(8)))
			}
		}
		expr := strings.Join(items, ",")
		names, err := hostlist.Expand(expr)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&gen, "%d|2024-01-01T10:00:00|2024-01-01T10:00:00|2024-01-01T10:01:00|%d|COMPLETED|%s\n", i, len(names), expr)
	}
	for name, text := range map[string]string{"sacct-fattree.txt": string(data), "generated": gen.String()} {
		sa, err := ReadSacct(strings.NewReader(text), SacctOptions{Location: time.UTC})
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(text, "\n")
		col := slices.Index(strings.Split(lines[0], "|"), "NodeList")
		checked := 0
		for _, j := range sa.Jobs {
			want, err := hostlist.Expand(strings.Split(lines[j.Line-1], "|")[col])
			if err != nil {
				t.Fatal(err)
			}
			if got := j.NodeList.Names(); !slices.Equal(got, want) || j.NodeList.Len() != j.Size || j.NodeList.Table() != sa.Hosts {
				t.Fatalf("%s line %d: node list %v (%d), want %v", name, j.Line, got, j.NodeList.Len(), want)
			}
			checked++
		}
		if checked == 0 {
			t.Fatalf("%s: no jobs", name)
		}
		t.Logf("%s: %d node lists as Expand gives them, %d hosts in the table", name, checked, sa.Hosts.Len())
	}
}
