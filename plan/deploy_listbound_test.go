package plan

import (
	"context"
	"runtime"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/slurm"
)

// plan's renaming of DownNodes=, SuspendExcNodes=, NodeSet and partition lists
// expanded each list whole (up to hostlist.MaxHosts names) whatever the nodes:
// DownNodes=x[1-1000000] on a slurm.conf of 34 nodes made, sorted and compressed
// a million names. Now a list is read one name at a time, each kept once: names
// that are not nodes are bounded by the nodes (a typo past that), repeats cost
// nothing kept.
func TestRenamedListsCountedAgainstNodes(t *testing.T) {
	base := `NodeName=DEFAULT CPUs=1
NodeName=node[01-16]
NodeName=c[01-16],login[1-2]
DownNodes=DOWN State=DOWN Reason=fans
PartitionName=all Nodes=node[01-16]
`
	deploy := func(down string) (*Deployment, error) {
		t.Helper()
		p, err := Make(context.Background(), versionedOptions(t, Version{Major: 22, Minor: 5}, 20, strings.Replace(base, "DownNodes=DOWN", "DownNodes="+down, 1)))
		if err != nil {
			return nil, err
		}
		d := p.Deployment(KindNames)
		return d, nil
	}
	// Repeats: each name once, renamed as the list without them.
	once, err := deploy("node[03-04],c05")
	if err != nil || !once.Supported {
		t.Fatalf("DownNodes=node[03-04],c05: %v %+v", err, once)
	}
	rep, err := deploy(strings.Repeat("node[03-04],c05,", 100000) + "node03")
	if err != nil || !rep.Supported {
		t.Fatalf("DownNodes of 300,001 names: %v", err)
	}
	if got, want := downNodes(t, rep.SlurmConf), downNodes(t, once.SlurmConf); got != want || !strings.Contains(want, "cn") {
		t.Errorf("DownNodes of 300,001 names, 3 distinct, renamed %s, want %s", got, want)
	}
	// 34 names that are not nodes are kept; 35 are a typo, refused at once.
	if d, err := deploy("x[1-34]"); err != nil || !d.Supported || downNodes(t, d.SlurmConf) != "x[1-34]" {
		t.Fatalf("DownNodes=x[1-34]: %v", err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	d, err := deploy("x[1-1000000]")
	runtime.ReadMemStats(&after)
	why := ""
	if err != nil {
		why = err.Error()
	} else if !d.Supported {
		why = d.Why
	}
	// The line is the site's (DownNodes is line 4), not the renamed file's.
	if !strings.Contains(why, "line 4: DownNodes=x[1-1000000]: more than 34 distinct names that are not nodes of slurm.conf") {
		t.Fatalf("DownNodes=x[1-1000000]: %q (supported %v)", why, d != nil && d.Supported)
	}
	if mb := (after.TotalAlloc - before.TotalAlloc) >> 20; mb > 32 {
		t.Errorf("DownNodes=x[1-1000000]: the plan allocated %d MiB, want at most 32 (the million names are not made)", mb)
	}
}

func downNodes(t *testing.T, conf []byte) string {
	t.Helper()
	c, err := slurm.ReadConf(conf)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range c.Lines {
		if l.Kind() == "downnodes" {
			return l.Pairs[0].Value
		}
	}
	t.Fatal("no DownNodes line")
	return ""
}
