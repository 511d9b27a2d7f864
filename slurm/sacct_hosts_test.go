package slurm

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/procalloc/procalloc/topo/hostlist"
)

// A NodeList host the machine lacks was found only after the whole history was
// read (as-run's Place, AssignPartitions, plan). Given the machine's names
// (SacctOptions.Hosts), the reader refuses the record at its line, naming the job
// and the host; SkipBad skips it; without Hosts nothing changes. Checked against
// the plain definition on random histories: lists of n1..n20 on a machine of
// n1..n16 (and m1), the hosts of each list expanded one by one.
func TestReadSacctHostsCheckedAtLine(t *testing.T) {
	machine := hostlist.NewTable(append(mustExpand(t, "n[1-16]"), "m1")...)
	onMachine := func(h string) bool { _, ok := machine.ID(h); return ok }
	rng := rand.New(rand.NewPCG(7, 28))
	for trial := range 300 {
		var rows [][2]string
		for range 1 + rng.IntN(8) {
			lo := 1 + rng.IntN(20)
			hi := min(20, lo+rng.IntN(4))
			list := fmt.Sprintf("n[%d-%d]", lo, hi)
			if rng.IntN(3) == 0 {
				list = "m1," + list
			}
			rows = append(rows, [2]string{"", list})
		}
		// The plain definition: NNodes is the list's length; a job of more
		// than 16 hosts... cannot arise (at most 5 + 1).
		var wantJobs []int
		firstBad, badHost := 0, ""
		for i := range rows {
			names := mustExpand(t, rows[i][1])
			rows[i][0] = fmt.Sprint(len(names))
			ok := true
			for _, h := range names {
				if !onMachine(h) {
					if firstBad == 0 {
						firstBad, badHost = i+1, h
					}
					ok = false
					break
				}
			}
			if ok {
				wantJobs = append(wantJobs, i+1)
			}
		}
		text := sacctOf("NNodes", rows...)
		opt := SacctOptions{Location: time.UTC, MaxHosts: 17, Hosts: machine, HostsOf: "mesh:17x1"}
		_, err := ReadSacct(strings.NewReader(text), opt)
		var le *SacctLineError
		switch {
		case firstBad == 0 && err != nil:
			t.Fatalf("trial %d: %v\n%s", trial, err, text)
		case firstBad > 0 && (!errors.As(err, &le) || le.Line != firstBad+1 ||
			!strings.Contains(err.Error(), fmt.Sprintf("job %d: recorded node %q is not a host of mesh:17x1", firstBad, badHost))):
			t.Fatalf("trial %d: %v; want line %d, job %d, host %s\n%s", trial, err, firstBad+1, firstBad, badHost, text)
		}
		opt.SkipBad = true
		sa, err := ReadSacct(strings.NewReader(text), opt)
		if err != nil {
			t.Fatalf("trial %d, SkipBad: %v", trial, err)
		}
		var got []int
		for _, j := range sa.Jobs {
			got = append(got, j.ID)
		}
		if !slices.Equal(got, wantJobs) || sa.Bad != len(rows)-len(wantJobs) {
			t.Fatalf("trial %d, SkipBad: jobs %v, %d bad; want %v\n%s", trial, got, sa.Bad, wantJobs, text)
		}
		// Without Hosts: every job, as before.
		if sa, err := ReadSacct(strings.NewReader(text), SacctOptions{Location: time.UTC, MaxHosts: 17}); err != nil || len(sa.Jobs) != len(rows) {
			t.Fatalf("trial %d without Hosts: %v", trial, err)
		}
	}
	// A job larger than the machine is not looked at by name: the replay
	// refuses (or drops) it by its size.
	text := sacctOf("NCPUS", [2]string{"64", "x[1-2]"})
	if sa, err := ReadSacct(strings.NewReader(text), SacctOptions{Location: time.UTC, MaxHosts: 17, Hosts: machine}); err != nil || len(sa.Jobs) != 1 {
		t.Fatalf("a job of 64 on 17 naming x[1-2]: %v", err)
	}
	// The first host the machine lacks in the list's order, not in the table's:
	// n17 entered the table with a job larger than the machine (not looked at).
	text = sacctOf("NCPUS", [2]string{"64", "n[15-17]"}, [2]string{"2", "n18,n17"})
	if _, err := ReadSacct(strings.NewReader(text), SacctOptions{Location: time.UTC, MaxHosts: 17, Hosts: machine}); err == nil || !strings.Contains(err.Error(), `job 2: recorded node "n18" is not`) {
		t.Fatalf("n18,n17: %v", err)
	}
	// The message's machine is "the machine" when HostsOf is not given.
	text = sacctOf("NNodes", [2]string{"1", "x1"})
	if _, err := ReadSacct(strings.NewReader(text), SacctOptions{Location: time.UTC, Hosts: machine}); err == nil || !strings.Contains(err.Error(), `job 1: recorded node "x1" is not a host of the machine`) {
		t.Fatalf("x1: %v", err)
	}
}

func mustExpand(t *testing.T, expr string) []string {
	t.Helper()
	names, err := hostlist.Expand(expr)
	if err != nil {
		t.Fatal(err)
	}
	return names
}
