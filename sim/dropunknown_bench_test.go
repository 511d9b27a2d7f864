package sim

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/procalloc/procalloc/topo/hostlist"
)

// BenchmarkDropUnknownHosts weighs --drop-unknown-hosts' look at a history's
// hosts after the read that marked them (ReadTrace with ReadOptions.Hosts and
// MarkHosts): "walk-all" is DropUnknownHosts over every job with a map of the
// machine's names (Spec.Prepare before, and still without marks),
// "drop-marked" the drop by the read's marks (Trace.dropMarked): 131,072
// hosts, a 100,000-job sacct history of 1-64 hosts a job, 1 % of the jobs also
// on a retired host. docs/reliability.md, thirty-first round, wt-smallgaps2.
func BenchmarkDropUnknownHosts(b *testing.B) {
	const hosts, jobs = 131072, 100000
	names := make([]string, hosts)
	for i := range names {
		names[i] = fmt.Sprintf("n%06d", i)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var sb strings.Builder
	sb.WriteString("JobIDRaw|Submit|Start|End|NNodes|State|NodeList\n")
	for j := range jobs {
		k := 1 + rng.IntN(64)
		first := rng.IntN(hosts - k)
		list := fmt.Sprintf("n[%06d-%06d]", first, first+k-1)
		if k == 1 {
			list = names[first]
		}
		if rng.IntN(100) == 0 {
			list += fmt.Sprintf(",r%03d", rng.IntN(200))
			k++
		}
		t := time.Unix(1700000000+int64(j)*60, 0).UTC()
		const f = "2006-01-02T15:04:05"
		fmt.Fprintf(&sb, "%d|%s|%s|%s|%d|COMPLETED|%s\n", j+1, t.Format(f), t.Format(f), t.Add(600*time.Second).Format(f), k, list)
	}
	history := sb.String()
	read := func() *Trace {
		table := hostlist.NewTable(names...)
		tr, err := ReadTrace(strings.NewReader(history), ReadOptions{Format: FormatSacct, Location: time.UTC, MaxHosts: hosts, Hosts: table, HostsOf: "the machine", MarkHosts: true})
		if err != nil {
			b.Fatal(err)
		}
		tr.hostsRead, tr.hostsMax = table, hosts // as Spec.ReadTraceContext keeps them
		return tr
	}
	known := func() func(string) bool {
		known := make(map[string]bool, len(names))
		for _, h := range names {
			known[h] = true
		}
		return func(h string) bool { return known[h] }
	}
	b.Run("read-and-mark", func(b *testing.B) {
		for b.Loop() {
			read()
		}
	})
	tr := read()
	wantKept, want := DropUnknownHosts(tr.Jobs, known())
	if want.Jobs == 0 {
		b.Fatal("nothing dropped")
	}
	b.Run("walk-all", func(b *testing.B) {
		for b.Loop() {
			DropUnknownHosts(tr.Jobs, known())
		}
	})
	b.Run("drop-marked", func(b *testing.B) {
		for b.Loop() {
			kept, d := tr.dropMarked(tr.Jobs, known)
			if d != want || len(kept) != len(wantKept) {
				b.Fatalf("dropMarked %+v, %d kept; DropUnknownHosts %+v, %d", d, len(kept), want, len(wantKept))
			}
		}
	})
}
