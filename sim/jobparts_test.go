package sim

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/procalloc/procalloc/slurm"
)

// partsOn reads conf's partitions on node01..node16 (machine nodes 0..15).
func partsOn(t *testing.T, conf string) (*slurm.MachinePartitions, map[string]int) {
	t.Helper()
	c, err := slurm.ReadConf([]byte(conf))
	if err != nil {
		t.Fatal(err)
	}
	nodes, err := c.Nodes()
	if err != nil {
		t.Fatal(err)
	}
	cps, err := c.Partitions(nodes)
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, 16)
	index := map[string]int{}
	for v := range names {
		names[v] = fmt.Sprintf("node%02d", v+1)
		index[names[v]] = v
	}
	return slurm.PartitionsOn(cps, names, index), index
}

// historyOf reads jobs given as partition|nodes|count as an sacct trace, one
// every 30 minutes.
func historyOf(t *testing.T, jobs [][3]string) []Job {
	t.Helper()
	var b strings.Builder
	b.WriteString("JobIDRaw|Submit|Start|End|ElapsedRaw|TimelimitRaw|NNodes|NCPUS|State|Partition|NodeList\n")
	const layout = "2006-01-02T15:04:05"
	for i, j := range jobs {
		s := time.Date(2026, 11, 2, 8, 0, 0, 0, time.UTC).Add(time.Duration(i) * 30 * time.Minute)
		fmt.Fprintf(&b, "%d|%s|%s|%s|600|30|%s|%s|COMPLETED|%s|%s\n", 100+i, s.Format(layout), s.Format(layout), s.Add(10*time.Minute).Format(layout), j[2], j[2], j[0], j[1])
	}
	tr, err := ReadTrace(strings.NewReader(b.String()), ReadOptions{Format: "sacct", Location: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	return tr.Jobs
}

// TestAssignPartitions: each kind of job gets the partition plan gave it and
// sim now gives it (a heterogeneous "a,b" job on nodes of both: their union; on
// b's alone: b; "b,a" on a's: a; a removed partition and none: the default, c;
// without a Default=YES partition: every partition's nodes), every job's
// recorded nodes lie in its key's nodes, and the key's nodes are the union of
// the named partitions' (brute force over the 16 nodes). The errors name the
// job's line; a job larger than its partition is ErrLargerThanPartition.
func TestAssignPartitions(t *testing.T) {
	const head = "NodeName=DEFAULT CPUs=1\nNodeName=node[01-16]\nPartitionName=a Nodes=node[01-04]\nPartitionName=b Nodes=node[09-12]\n"
	mp, index := partsOn(t, head+"PartitionName=c Nodes=node[13-16] Default=YES\n")
	jobs := historyOf(t, [][3]string{
		{"a,b", "node[03-04,09-10]", "4"}, {"a,b", "node[10-11]", "2"}, {"b,a", "node02", "1"},
		{"old", "node[14-15]", "2"}, {"", "node13", "1"}, {"a", "node[01-02]", "2"}, {"old,c", "node16", "1"},
	})
	want := []string{"a,b", "b", "a", "c", "c", "a", "c"}
	jp, err := AssignPartitions(jobs, mp, index, "slurm.conf")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(jp.Keys, want) {
		t.Errorf("keys %q, want %q", jp.Keys, want)
	}
	if jp.Unions != 1 || jp.Unnamed != 1 || jp.NoDefault || jp.Default != "c" ||
		!strings.HasPrefix(jp.UnknownWarning, "2 jobs of the history ran in partitions slurm.conf does not have (old (line 5))") {
		t.Errorf("unions %d, unnamed %d, no default %v, default %q, warning %q", jp.Unions, jp.Unnamed, jp.NoDefault, jp.Default, jp.UnknownWarning)
	}
	for i, j := range jobs {
		key := jp.Keys[i]
		var union []int
		for v := range 16 {
			for _, name := range strings.Split(key, ",") {
				if slices.Contains(mp.Nodes[mp.Index(name)], v) {
					union = append(union, v)
					break
				}
			}
		}
		if !slices.Equal(jp.Nodes[key], union) {
			t.Errorf("%s: nodes %v, want %v", key, jp.Nodes[key], union)
		}
		for _, name := range j.NodeList.Names() {
			if !slices.Contains(jp.Nodes[key], index[name]) {
				t.Errorf("job %d (line %d) in %s: its node %s is not in it", j.ID, j.Line, key, name)
			}
		}
	}
	if len(jp.Nodes) != 4 {
		t.Errorf("nodes of %d keys, want 4 (a, b, c, a,b)", len(jp.Nodes))
	}

	// Without a Default=YES partition: every partition's nodes.
	mp2, _ := partsOn(t, head)
	jp2, err := AssignPartitions(historyOf(t, [][3]string{{"", "node[04,09]", "2"}, {"gone", "node12", "1"}}), mp2, index, "slurm.conf")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(jp2.Keys, []string{slurm.EveryPartition, slurm.EveryPartition}) || !jp2.NoDefault || jp2.Unnamed != 1 || len(jp2.Nodes[slurm.EveryPartition]) != 8 {
		t.Errorf("without a default: %+v", jp2)
	}

	for _, c := range []struct {
		job  [3]string
		want string
	}{
		{[3]string{"a", "node05", "1"}, "line 2: job 100 ran on node05, which is not in its partition a (slurm.conf line 3)"},
		{[3]string{"a,b", "node[04-05]", "2"}, "line 2: job 100 ran on node05, which is not in its partition a (slurm.conf line 3)"},
		{[3]string{"old", "node01", "1"}, "line 2: job 100 ran in partition old, which slurm.conf lacks, and its node node01 is not in the default partition c"},
		{[3]string{"", "node99", "1"}, "line 2: job 100 names no partition, and its node node99 is not in the default partition c"},
		{[3]string{"a", "", "5"}, "line 2: job 100 needs 5 nodes, its partition a has 4 compute hosts"},
		{[3]string{"", "", "5"}, "line 2: job 100 needs 5 nodes, the default partition c has 4 compute hosts"},
	} {
		_, err := AssignPartitions(historyOf(t, [][3]string{c.job}), mp, index, "slurm.conf")
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.job, err, c.want)
			continue
		}
		if larger := strings.Contains(c.want, "needs"); errors.Is(err, ErrLargerThanPartition) != larger || errors.Is(err, ErrTooLarge) != larger {
			t.Errorf("%q: %v: ErrLargerThanPartition %v, want %v", c.job, err, errors.Is(err, ErrLargerThanPartition), larger)
		}
	}
}
