package sim

import (
	"context"
	"errors"
	"strings"
	"testing"
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
	// A window: read as before; as-run refuses the job when it places it.
	s = spec("as-run")
	s.Sched, s.From = SchedFCFS, "0"
	if rp, err = s.Prepare(); err != nil || len(rp.Jobs) != 3 {
		t.Fatalf("as-run with a window: %v", err)
	}
	if _, err := rp.Run(context.Background()); err == nil || !strings.Contains(err.Error(), `recorded node "n17" is not a host of mesh:4x4`) {
		t.Fatalf("as-run with a window, replayed: %v", err)
	}
}
