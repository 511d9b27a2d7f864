package sim

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A NodeList host the machine lacks, in a replay that reads every NodeList by
// name (as-run; a slurm.conf's partitions), is refused at its record, naming job
// and line, not when the replay reaches the job; --skip-bad skips it. Replays
// that do not read the names (mc1x1) and windows (a job outside is not
// replayed) read the history as before.
func TestReplayChecksNodeListHostsAtRecord(t *testing.T) {
	history := "JobIDRaw|Submit|Start|End|NNodes|State|NodeList\n" +
		"1|2024-01-01T10:00:00|2024-01-01T10:00:00|2024-01-01T10:01:00|4|COMPLETED|n[1-4]\n" +
		"2|2024-01-01T10:00:01|2024-01-01T10:00:10|2024-01-01T10:01:00|2|COMPLETED|n[16-17]\n" +
		"3|2024-01-01T10:00:10|2024-01-01T10:00:20|2024-01-01T10:01:00|2|COMPLETED|n[5-6]\n"
	spec := func(alloc string) Spec {
		s := DefaultSpec()
		s.Trace, s.TraceReader, s.MachineSpec, s.Hostlist, s.Alloc = "h.sacct", strings.NewReader(history), "mesh:4x4", "n[1-16]", alloc
		s.TimeZone = "UTC"
		if alloc == "as-run" {
			s.Sched = SchedAsRun
		}
		return s
	}
	s := spec("as-run")
	_, err := s.Prepare()
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Line != 3 || !strings.Contains(err.Error(), `job 2: recorded node "n17" is not a host of mesh:4x4`) {
		t.Fatalf("as-run: %v, want line 3 naming job 2 and n17", err)
	}
	s = spec("as-run")
	s.SkipBad = true
	rp, err := s.Prepare()
	if err != nil || len(rp.Jobs) != 2 || rp.Trace.Bad != 1 {
		t.Fatalf("as-run, SkipBad: %v", err)
	}
	if rep, err := rp.Run(context.Background()); err != nil || rep.Jobs != 2 {
		t.Fatalf("as-run, SkipBad: %v", err)
	}
	// mc1x1 does not read the names: the three jobs, as before.
	s = spec("mc1x1")
	if rp, err := s.Prepare(); err != nil || len(rp.Jobs) != 3 {
		t.Fatalf("mc1x1: %v", err)
	}
	// A window: its records are checked at their record, the others not.
	s = spec("as-run")
	s.Sched, s.From = SchedFCFS, "0"
	if _, err = s.Prepare(); !errors.As(err, &pe) || pe.Line != 3 || !strings.Contains(err.Error(), `h.sacct: line 3: job 2: recorded node "n17" is not a host of mesh:4x4`) {
		t.Fatalf("as-run with a window holding job 2: %v, want line 3 naming job 2 and n17", err)
	}
	s = spec("as-run")
	s.Sched, s.From = SchedFCFS, "5" // job 3 alone
	if rp, err = s.Prepare(); err != nil || len(rp.Jobs) != 1 || rp.Jobs[0].ID != 3 {
		t.Fatalf("as-run with a window without job 2: %v", err)
	}
	if rep, err := rp.Run(context.Background()); err != nil || rep.Jobs != 1 || rep.BadLines != 0 {
		t.Fatalf("as-run with a window without job 2, replayed: %v", err)
	}
	// A heterogeneous job (one job of its components) with a component naming
	// such a host, in the window: that component's record refused; skipped
	// whole with SkipBad.
	het := "JobID|JobIDRaw|Submit|Start|End|NNodes|State|NodeList\n" +
		"5+0|5|2024-01-01T10:00:00|2024-01-01T10:00:00|2024-01-01T10:01:00|2|COMPLETED|n[1-2]\n" +
		"5+1|6|2024-01-01T10:00:00|2024-01-01T10:00:00|2024-01-01T10:01:00|2|COMPLETED|n3,m1\n" +
		"7|7|2024-01-01T10:00:10|2024-01-01T10:00:20|2024-01-01T10:01:00|2|COMPLETED|n[5-6]\n"
	for _, skip := range []bool{false, true} {
		s = spec("as-run")
		s.TraceReader, s.Sched, s.From, s.SkipBad = strings.NewReader(het), SchedFCFS, "0", skip
		rp, err = s.Prepare()
		switch {
		case !skip && (!errors.As(err, &pe) || pe.Line != 3 || !strings.Contains(err.Error(), `recorded node "m1" is not a host of mesh:4x4`)):
			t.Fatalf("a heterogeneous job's component: %v, want line 3 naming m1", err)
		case skip && (err != nil || len(rp.Jobs) != 1 || rp.Jobs[0].ID != 7 || rp.badHosts != 1):
			t.Fatalf("a heterogeneous job's component, SkipBad: %v", err)
		}
	}
}

// TestWindowChecksNodeListHostsAtRecord: with a window (From, To), the records
// of the jobs in it naming a host the machine lacks are refused at their
// record (the first in the file, a *ParseError naming its line, job and host),
// or skipped and counted with SkipBad; the records outside it are not looked
// at. Seeded random histories (submit times out of order, so that the window
// counts from the earliest Submit, not the first record's), random windows in
// seconds and as dates, cross-checked with the plain definition: a job is in
// the window when its Submit less the earliest is in [From, To).
func TestWindowChecksNodeListHostsAtRecord(t *testing.T) {
	base := time.Date(2024, 1, 1, 10, 0, 0, 0, time.UTC)
	checked := 0
	for seed := range 300 {
		rng := rand.New(rand.NewPCG(uint64(seed), 29))
		n := 2 + rng.IntN(8)
		type rec struct {
			submit  int64
			badHost string // "" when every host is on the machine
		}
		recs := make([]rec, n)
		var b strings.Builder
		b.WriteString("JobIDRaw|Submit|Start|End|NNodes|State|NodeList\n")
		t0 := int64(1 << 40)
		for i := range recs {
			r := &recs[i]
			r.submit = int64(rng.IntN(100))
			t0 = min(t0, r.submit)
			lo := 1 + rng.IntN(9)
			list := fmt.Sprintf("n[%d-%d]", lo, lo+7)
			if rng.IntN(3) == 0 {
				r.badHost = fmt.Sprintf("m%d", 1+rng.IntN(3))
				list = "n1," + r.badHost
			}
			sub := base.Add(time.Duration(r.submit) * time.Second)
			nodes := 8
			if r.badHost != "" {
				nodes = 2
			}
			fmt.Fprintf(&b, "%d|%s|%s|%s|%d|COMPLETED|%s\n", i+1, sub.Format("2006-01-02T15:04:05"), sub.Add(time.Second).Format("2006-01-02T15:04:05"),
				sub.Add(time.Minute).Format("2006-01-02T15:04:05"), nodes, list)
		}
		from := int64(rng.IntN(100))
		to := from + 1 + int64(rng.IntN(60))
		for _, skip := range []bool{false, true} {
			for _, dates := range []bool{false, true} {
				s := DefaultSpec()
				s.Trace, s.TraceReader, s.MachineSpec, s.Hostlist, s.Alloc = "h.sacct", strings.NewReader(b.String()), "mesh:4x4", "n[1-16]", "as-run"
				s.TimeZone, s.Sched, s.SkipBad = "UTC", SchedFCFS, skip
				s.From, s.To = strconv.FormatInt(from, 10), strconv.FormatInt(to, 10)
				if dates {
					s.From = base.Add(time.Duration(t0+from) * time.Second).Format("2006-01-02T15:04:05")
					s.To = base.Add(time.Duration(t0+to) * time.Second).Format("2006-01-02T15:04:05")
				}
				what := fmt.Sprintf("seed %d, window [%s, %s), skip %v", seed, s.From, s.To, skip)
				var wantIDs []int
				firstBad := 0 // line of the first bad record in the window (0: none)
				for i, r := range recs {
					if a := r.submit - t0; a < from || a >= to {
						continue
					}
					if r.badHost == "" {
						wantIDs = append(wantIDs, i+1)
					} else if firstBad == 0 {
						firstBad = i + 2
					}
				}
				rp, err := s.Prepare()
				var pe *ParseError
				switch {
				case len(wantIDs) == 0 && firstBad == 0:
					if !errors.Is(err, ErrEmptyWindow) {
						t.Fatalf("%s: %v, want an empty window", what, err)
					}
				case firstBad != 0 && !skip:
					bad := recs[firstBad-2]
					if !errors.As(err, &pe) || pe.Line != firstBad ||
						!strings.Contains(err.Error(), fmt.Sprintf("h.sacct: line %d: job %d: recorded node %q is not a host of mesh:4x4", firstBad, firstBad-1, bad.badHost)) {
						t.Fatalf("%s: %v, want line %d naming job %d and %s", what, err, firstBad, firstBad-1, bad.badHost)
					}
				case len(wantIDs) == 0:
					if err == nil {
						t.Fatalf("%s: every job of the window skipped, no error", what)
					}
				default:
					if err != nil {
						t.Fatalf("%s: %v", what, err)
					}
					var got []int
					for _, j := range rp.Jobs {
						got = append(got, j.ID)
					}
					slices.Sort(got)
					if !slices.Equal(got, wantIDs) || rp.badHosts != len(recs)-len(wantIDs)-outside(recs, t0, from, to, func(r rec) int64 { return r.submit }) {
						t.Fatalf("%s: jobs %v (%d skipped), want %v", what, got, rp.badHosts, wantIDs)
					}
				}
				checked++
			}
		}
	}
	t.Logf("%d replays checked", checked)
}

// outside counts the records whose submit less t0 is outside [from, to).
func outside[R any](recs []R, t0, from, to int64, submit func(R) int64) int {
	k := 0
	for _, r := range recs {
		if a := submit(r) - t0; a < from || a >= to {
			k++
		}
	}
	return k
}
