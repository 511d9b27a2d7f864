package sim

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/topo/hostlist"
)

// A replay reads an sacct history's NodeLists against its machine: eight records
// of n[0-4194303] (4,194,304 names each: 35 s and 531 MB before) cost a count each
// on a machine of 16 hosts; the jobs, larger than the machine, are refused naming
// their line, or dropped with DropLarger, and the others replay as recorded.
func TestReplayCountsNodeListsAgainstMachine(t *testing.T) {
	var b strings.Builder
	b.WriteString("JobIDRaw|Submit|Start|End|NNodes|State|NodeList\n")
	b.WriteString("1|2024-01-01T10:00:00|2024-01-01T10:00:00|2024-01-01T10:01:00|4|COMPLETED|n[1-4]\n")
	for i := 2; i <= 9; i++ {
		fmt.Fprintf(&b, "%d|2024-01-01T10:00:0%d|2024-01-01T10:00:10|2024-01-01T10:01:00|%d|COMPLETED|n[0-%d]\n", i, i, hostlist.MaxHosts, hostlist.MaxHosts-1)
	}
	b.WriteString("10|2024-01-01T10:00:10|2024-01-01T10:00:20|2024-01-01T10:01:00|2|COMPLETED|n[5-6]\n")
	history := b.String()
	spec := func(alloc string, drop bool) Spec {
		s := DefaultSpec()
		s.Trace, s.TraceReader, s.MachineSpec, s.Hostlist, s.Alloc = "h.sacct", strings.NewReader(history), "mesh:4x4", "n[1-16]", alloc
		s.DropLarger, s.TimeZone = drop, "UTC"
		if alloc == "as-run" {
			s.Sched = SchedAsRun
		}
		return s
	}
	for _, alloc := range []string{"mc1x1", "as-run"} {
		s := spec(alloc, true)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		rp, err := s.Prepare()
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatalf("%s: %v", alloc, err)
		}
		if bytes := after.TotalAlloc - before.TotalAlloc; bytes > 8<<20 {
			t.Errorf("%s: prepared in %d bytes", alloc, bytes)
		}
		if rp.DroppedLarger != 8 || len(rp.Jobs) != 2 || rp.Jobs[1].NodeList.String() != "n[5-6]" {
			t.Fatalf("%s: %d dropped, jobs %+v", alloc, rp.DroppedLarger, rp.Jobs)
		}
		rep, err := rp.Run(context.Background())
		if err != nil || rep.Jobs != 2 {
			t.Fatalf("%s: %v, %+v", alloc, err, rep)
		}
		s = spec(alloc, false)
		if rp, err = s.Prepare(); err == nil {
			_, err = rp.Run(context.Background())
		}
		if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "job 2 (line 3) needs 4194304 processors") {
			t.Errorf("%s without DropLarger: %v", alloc, err)
		}
	}
}
