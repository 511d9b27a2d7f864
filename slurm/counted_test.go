package slurm

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/procalloc/procalloc/internal/textin"
	"github.com/procalloc/procalloc/topo/hostlist"
)

// sacctOf is an sacct -P history of one COMPLETED job a line, numbered from 1,
// with the given NNodes (or NCPUS, by header) and NodeList of each.
func sacctOf(sizeCol string, rows ...[2]string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "JobIDRaw|Submit|Start|End|%s|State|NodeList\n", sizeCol)
	for i, r := range rows {
		fmt.Fprintf(&b, "%d|2024-01-01T10:00:00|2024-01-01T10:00:00|2024-01-01T10:01:00|%s|COMPLETED|%s\n", i+1, r[0], r[1])
	}
	return b.String()
}

// allocated is the bytes f allocates (runtime.MemStats.TotalAlloc), and the
// allocations per run testing.AllocsPerRun counts.
func allocated(f func()) (bytes uint64, allocs float64) {
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc, testing.AllocsPerRun(1, f)
}

// A NodeList is counted before a name of it is made, so that a record costs what
// the machine allows, not what its names say: eight lines of n[0-4194303] (700
// bytes) took 35 s and 531 MB. With the machine's size (MaxHosts) such jobs are
// larger than the machine and kept without their lists, for the replay to refuse or
// drop by size; a list longer than the machine for a job that is not (NCPUS) is
// malformed, naming its line and job; without a machine, a list of more than
// MaxHistoryHosts names is.
func TestReadSacctNodeListCountedFirst(t *testing.T) {
	huge := fmt.Sprintf("n[0-%d]", hostlist.MaxHosts-1)
	var rows [][2]string
	rows = append(rows, [2]string{"4", "n[1-4]"})
	for range 8 {
		rows = append(rows, [2]string{fmt.Sprint(hostlist.MaxHosts), huge})
	}
	text := sacctOf("NNodes", rows...)
	var sa *Sacct
	var err error
	bytes, allocs := allocated(func() {
		sa, err = ReadSacct(strings.NewReader(text), SacctOptions{Location: time.UTC, MaxHosts: 16})
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(sa.Jobs) != 9 || sa.Jobs[0].NodeList.Len() != 4 || sa.Hosts.Len() != 4 {
		t.Fatalf("%d jobs, first list %d, %d hosts: want 9, 4, 4", len(sa.Jobs), sa.Jobs[0].NodeList.Len(), sa.Hosts.Len())
	}
	for _, j := range sa.Jobs[1:] {
		if j.NodeList.Len() != 0 || j.Size != hostlist.MaxHosts {
			t.Fatalf("line %d: list of %d, size %d: want none, %d", j.Line, j.NodeList.Len(), j.Size, hostlist.MaxHosts)
		}
	}
	// Reading them made 4 names, not 4 million (before: 4,194,304 and more each).
	t.Logf("8 lines of %s on a machine of 16: %d bytes, %.0f allocations", huge, bytes, allocs)
	if bytes > 1<<20 || allocs > 2000 {
		t.Errorf("8 lines of %s on a machine of 16: %d bytes, %.0f allocations", huge, bytes, allocs)
	}

	// A list of more hosts than the machine for a job that fits it (NCPUS): a
	// malformed record, named; skipped with SkipBad.
	text = sacctOf("NCPUS", [2]string{"4", "n[1-4]"}, [2]string{"8", "n[0-99999]"})
	_, err = ReadSacct(strings.NewReader(text), SacctOptions{Location: time.UTC, MaxHosts: 16})
	var le *SacctLineError
	if !errors.As(err, &le) || le.Line != 3 || !strings.Contains(err.Error(), "job 2: NodeList names 100000 hosts, more than the machine's 16, for a job of 8") {
		t.Errorf("NCPUS 8, list of 100000 on 16 hosts: %v", err)
	}
	if sa, err := ReadSacct(strings.NewReader(text), SacctOptions{Location: time.UTC, MaxHosts: 16, SkipBad: true}); err != nil || sa.Bad != 1 || len(sa.Jobs) != 1 {
		t.Errorf("with SkipBad: %v", err)
	}

	// No machine: the generous cap, counted first.
	over := fmt.Sprintf("n[0-%d]", MaxHistoryHosts)
	text = sacctOf("NNodes", [2]string{fmt.Sprint(MaxHistoryHosts + 1), over})
	bytes, allocs = allocated(func() { _, err = ReadSacct(strings.NewReader(text), SacctOptions{Location: time.UTC}) })
	if !errors.As(err, &le) || le.Line != 2 || !strings.Contains(err.Error(), fmt.Sprintf("job 1: NodeList names %d hosts, more than %d", MaxHistoryHosts+1, MaxHistoryHosts)) {
		t.Errorf("no machine, %s: %v", over, err)
	}
	t.Logf("no machine, %s: %d bytes, %.0f allocations", over, bytes, allocs)
	if bytes > 1<<20 || allocs > 2000 {
		t.Errorf("no machine, %s: %d bytes, %.0f allocations", over, bytes, allocs)
	}
	// At the cap, read.
	at := sacctOf("NCPUS", [2]string{"16", "n[0-15]"})
	if sa, err := ReadSacct(strings.NewReader(at), SacctOptions{Location: time.UTC, MaxHosts: 16}); err != nil || sa.Jobs[0].NodeList.Len() != 16 {
		t.Errorf("16 hosts on 16: %v", err)
	}
}

// The distinct names of a history's lists are bounded too: lists each within the
// machine but naming new hosts every line grew the table without end.
func TestReadSacctHistoryHostsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("makes a million names")
	}
	const per = 1 << 17
	var rows [][2]string
	for i := range MaxHistoryHosts/per + 2 {
		rows = append(rows, [2]string{fmt.Sprint(per), fmt.Sprintf("p%d_[0-%d]", i, per-1)})
	}
	text := sacctOf("NNodes", rows...)
	_, err := ReadSacct(strings.NewReader(text), SacctOptions{Location: time.UTC, MaxHosts: per})
	want := fmt.Sprintf("line %d: job %d: NodeList of %d hosts, with the %d distinct hosts of the records before: more than %d", MaxHistoryHosts/per+2, MaxHistoryHosts/per+1, per, MaxHistoryHosts, MaxHistoryHosts)
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("%d lines of %d new names: %v, want %q", len(rows), per, err, want)
	}
	// Skipped with SkipBad, the table within the bound; a list of names met
	// before, once the table is full, is counted as new and skipped too (the
	// bound is checked before the names are looked up).
	text += sacctOf("NNodes", [2]string{fmt.Sprint(per), "p0_[0-131071]"})[len("JobIDRaw|Submit|Start|End|NNodes|State|NodeList\n"):]
	sa, err := ReadSacct(strings.NewReader(text), SacctOptions{Location: time.UTC, MaxHosts: per, SkipBad: true})
	if err != nil || sa.Hosts.Len() != MaxHistoryHosts || sa.Bad != 3 || len(sa.Jobs) != len(rows)-2 {
		t.Errorf("with SkipBad: %v, %d hosts, %d bad, %d jobs", err, sa.Hosts.Len(), sa.Bad, len(sa.Jobs))
	}
}

// A history whose jobs all fit the machine reads the same with the machine's size
// as without it, and with a machine one host smaller only its largest jobs lose
// their lists (and nothing else changes).
func TestReadSacctMaxHostsKeepsNormalHistories(t *testing.T) {
	for _, name := range []string{"../sim/testdata/sacct-fattree.txt", "generated"} {
		var text string
		if name == "generated" {
			var rows [][2]string
			for i := range 300 {
				lo := (i * 37) % 500
				n := 1 + (i*13)%64
				rows = append(rows, [2]string{fmt.Sprint(n), fmt.Sprintf("c[%03d-%03d]", lo, lo+n-1)})
			}
			text = sacctOf("NNodes", rows...)
		} else {
			r, err := textin.Open(name)
			if err != nil {
				t.Fatal(err)
			}
			b, err := textin.ReadAll(r, 1<<30, name)
			r.Close()
			if err != nil {
				t.Fatal(err)
			}
			text = string(b)
		}
		free, err := ReadSacct(strings.NewReader(text), SacctOptions{Location: time.UTC})
		if err != nil {
			t.Fatal(err)
		}
		largest := 0
		for _, j := range free.Jobs {
			largest = max(largest, j.NodeList.Len())
		}
		if largest < 2 {
			t.Fatalf("%s: largest list %d", name, largest)
		}
		for _, m := range []int{largest, largest - 1} {
			got, err := ReadSacct(strings.NewReader(text), SacctOptions{Location: time.UTC, MaxHosts: m})
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Jobs) != len(free.Jobs) || got.Bad != free.Bad {
				t.Fatalf("%s, MaxHosts %d: %d jobs, %d bad; want %d, %d", name, m, len(got.Jobs), got.Bad, len(free.Jobs), free.Bad)
			}
			cut := 0
			for i, j := range got.Jobs {
				f := free.Jobs[i]
				want := f.NodeList.Names()
				if len(want) > m {
					want, cut = nil, cut+1
				}
				if !slices.Equal(j.NodeList.Names(), want) {
					t.Fatalf("%s, MaxHosts %d, line %d: list %v, want %v", name, m, j.Line, j.NodeList.Names(), want)
				}
				j.NodeList, f.NodeList = hostlist.List{}, hostlist.List{}
				if j != f {
					t.Fatalf("%s, MaxHosts %d, line %d: %+v, want %+v", name, m, j.Line, j, f)
				}
			}
			if (m == largest) != (cut == 0) {
				t.Errorf("%s, MaxHosts %d: %d lists not read", name, m, cut)
			}
		}
	}
}

// A NodeName line's per-node lists (NodeAddr=, NodeHostname=, BcastAddr=, Port=)
// are counted against the line's names before they are made: NodeAddr=a[0-4194303]
// on a line of one node made 4,194,304 names to refuse them.
func TestPerNodeListsCountedFirst(t *testing.T) {
	huge := fmt.Sprintf("a[0-%d]", hostlist.MaxHosts-1)
	for _, c := range []struct{ line, want string }{
		{"NodeName=n1 NodeAddr=" + huge, fmt.Sprintf("gives %d values for 1 node names (more)", hostlist.MaxHosts)},
		{"NodeName=n[1-2] NodeHostname=" + huge, fmt.Sprintf("gives %d values for 2 node names (more)", hostlist.MaxHosts)},
		{"NodeName=n[1-2] Port=1-4194303", "has 4194303 ports for 2 node names"},
	} {
		conf, err := ReadConf([]byte(c.line + "\n"))
		if err != nil {
			t.Fatal(err)
		}
		allocs := testing.AllocsPerRun(1, func() { _, err = conf.Nodes() })
		if err == nil || !strings.Contains(err.Error(), c.want) || allocs > 1000 {
			t.Errorf("%.40s...: %v (%.0f allocations), want %q", c.line, err, allocs, c.want)
		}
	}
	// One value, or one per node, as before.
	conf, err := ReadConf([]byte("NodeName=n[1-3] NodeAddr=a[1-3] Port=7001-7003\nNodeName=m[1-2] NodeAddr=b\n"))
	if err != nil {
		t.Fatal(err)
	}
	nodes, err := conf.Nodes()
	if err != nil || len(nodes) != 5 {
		t.Fatalf("%v, %d nodes", err, len(nodes))
	}
}
