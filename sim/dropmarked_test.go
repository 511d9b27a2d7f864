package sim

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/procalloc/procalloc/topo/hostlist"
)

// TestDropMarkedIsDropUnknownHosts: the drop by the read's marks
// (Trace.dropMarked) keeps the jobs, and says the HostsDropped, that
// DropUnknownHosts over every job with the machine's names does, on random
// histories and windows of them: jobs on 1-6 of the hosts h1..h20, some also
// on retired ones (r1..r9), some larger than the machine (their NodeLists not
// read).
func TestDropMarkedIsDropUnknownHosts(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	names := make([]string, 20)
	for i := range names {
		names[i] = fmt.Sprintf("h%d", i+1)
	}
	known := func() func(string) bool {
		set := map[string]bool{}
		for _, n := range names {
			set[n] = true
		}
		return func(h string) bool { return set[h] }
	}
	dropped := 0
	for round := range 300 {
		var b strings.Builder
		// Sized by NCPUS (no NNodes column): a job may name fewer hosts
		// than its size, and one of a size over the machine's is not
		// checked by the read.
		b.WriteString("JobIDRaw|Submit|Start|End|NCPUS|State|NodeList\n")
		t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
		for j := range 1 + rng.IntN(15) {
			var list []string
			for range 1 + rng.IntN(6) {
				h := fmt.Sprintf("h%d", 1+rng.IntN(20))
				if rng.IntN(6) == 0 {
					h = fmt.Sprintf("r%d", 1+rng.IntN(9))
				}
				list = append(list, h)
			}
			n := len(list)
			if rng.IntN(8) == 0 {
				n = 21 + rng.IntN(5) // larger than the machine: not checked
			}
			s := t0.Add(time.Duration(j) * time.Minute).Format("2006-01-02T15:04:05")
			fmt.Fprintf(&b, "%d|%s|%s|%s|%d|COMPLETED|%s\n", j+1, s, s, s, n, strings.Join(list, ","))
		}
		table := hostlist.NewTable(names...)
		tr, err := ReadTrace(strings.NewReader(b.String()), ReadOptions{Format: FormatSacct, Location: time.UTC, MaxHosts: len(names), Hosts: table, HostsOf: "m", MarkHosts: true})
		if err != nil {
			continue // a list naming a host twice, say
		}
		tr.hostsRead, tr.hostsMax = table, len(names)
		lo := rng.IntN(len(tr.Jobs))
		jobs := tr.Jobs[lo : lo+rng.IntN(len(tr.Jobs)-lo+1)]
		wantKept, want := DropUnknownHosts(jobs, known())
		gotKept, got := tr.dropMarked(jobs, known)
		if got != want || !reflect.DeepEqual(ids(gotKept), ids(wantKept)) {
			t.Fatalf("round %d: dropMarked %+v keeps %v; DropUnknownHosts %+v keeps %v\n%s", round, got, ids(gotKept), want, ids(wantKept), b.String())
		}
		dropped += want.Jobs
		tr.hostsRead = nil // a trace read without the table: every job walked
		if gotKept, got := tr.dropMarked(jobs, known); got != want || !reflect.DeepEqual(ids(gotKept), ids(wantKept)) {
			t.Fatalf("round %d without the read's table: %+v", round, got)
		}
	}
	if dropped == 0 {
		t.Fatal("no job dropped in any round")
	}
}

func ids(jobs []Job) []int {
	out := []int{}
	for _, j := range jobs {
		out = append(out, j.ID)
	}
	return out
}
