package slurm

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/curves"
)

// ReadConf reads lines as slurmctld's parser does (parse_config.c): spaces around
// '=', quoted values (quotes dropped, spaces kept), escapes, comments, continued
// lines, operators, Include lines.
func TestReadConfLikeSlurm(t *testing.T) {
	conf := "NodeName = n[1-4]  Weight = 5 CPUs=4 # rack 1\n" +
		"NodeName=m1 Features=\"a  b\" Gres=gpu:2\n" +
		"NodeName=m2 Features=a\\#b # a comment\n" +
		"NodeName=m3 \\\n  CPUs=8 \\\n  Weight=3\n" +
		"NodeName=m4 Reason=\"x\"y\n" +
		"SchedulerParameters+=bf_continue\n" +
		"include /etc/slurm/nodes.conf\n"
	c, err := ReadConf([]byte(conf))
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		first, last int
		pairs       []ConfPair
		comment     string
	}{
		{1, 1, []ConfPair{{"NodeName", "", "n[1-4]"}, {"Weight", "", "5"}, {"CPUs", "", "4"}}, "# rack 1"},
		{2, 2, []ConfPair{{"NodeName", "", "m1"}, {"Features", "", "a  b"}, {"Gres", "", "gpu:2"}}, ""},
		{3, 3, []ConfPair{{"NodeName", "", "m2"}, {"Features", "", "a#b"}}, "# a comment"},
		{4, 6, []ConfPair{{"NodeName", "", "m3"}, {"CPUs", "", "8"}, {"Weight", "", "3"}}, ""},
		{7, 7, []ConfPair{{"NodeName", "", "m4"}, {"Reason", "", "\"x\"y"}}, ""},
		{8, 8, []ConfPair{{"SchedulerParameters", "+", "bf_continue"}}, ""},
		{9, 9, []ConfPair{{"include", "", "/etc/slurm/nodes.conf"}}, ""},
	}
	if len(c.Lines) != len(want) {
		t.Fatalf("%d lines, want %d: %+v", len(c.Lines), len(want), c.Lines)
	}
	for i, w := range want {
		l := c.Lines[i]
		if l.First != w.first || l.Last != w.last || !slices.Equal(l.Pairs, w.pairs) || l.Comment != w.comment {
			t.Errorf("line %d: %+v, want %+v", i, l, w)
		}
	}
	if c.Includes != 1 {
		t.Errorf("Includes %d, want 1", c.Includes)
	}
	for _, bad := range []struct{ conf, want string }{
		{"NodeName=n1 CPUs\n", "line 1: \"CPUs\" is not KEY=VALUE"},
		// Not an Include line (no space after the word): a key Slurm does not know.
		{"ClusterName=a\nIncludeX=1\n", "line 2: unknown key IncludeX="},
		{"ClusterName=a\nNodeName=n1 = 5\n", "line 2: \"= 5\" is not KEY=VALUE"},
		{"NodeName=n1 Features=\"a b\n", "line 1: \"b\" is not KEY=VALUE"},
		{"NodeName=n1 Weight=\n", "line 1: Weight= has no value"},
	} {
		if _, err := ReadConf([]byte(bad.conf)); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: %v, want %q", bad.conf, err, bad.want)
		}
	}
}

// Nodes inherit NodeName=DEFAULT values as read_config.c does (only DEFAULT lines
// before them; a later DEFAULT line adds to the earlier), NodeHostname defaults to
// the name and NodeAddr to the host name, per-node lists are split, and a list of
// another length than 1 or the name count is an error as in node_conf.c.
func TestConfNodes(t *testing.T) {
	conf := "NodeName=a1 CPUs=2\n" +
		"NodeName=DEFAULT Weight=100 CPUs=4\n" +
		"NodeName=b[1-3] NodeAddr=10.0.0.[1-3] Port=17001-17003\n" +
		"NodeName=DEFAULT Port=6818\n" +
		"NodeName=c[1-2] NodeHostname=h[1-2] Weight=7\n" +
		"NodeName=d1 NodeHostname=x NodeAddr=10.1.1.1\n"
	c, err := ReadConf([]byte(conf))
	if err != nil {
		t.Fatal(err)
	}
	ns, err := c.Nodes()
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		name, host, addr, port string
		w                      uint32
		from                   string
		cpus                   int
	}
	want := []row{
		{"a1", "a1", "a1", "", 1, "slurm", 2},
		{"b1", "b1", "10.0.0.1", "17001", 100, "default", 4},
		{"b2", "b2", "10.0.0.2", "17002", 100, "default", 4},
		{"b3", "b3", "10.0.0.3", "17003", 100, "default", 4},
		{"c1", "h1", "h1", "6818", 7, "line", 4},
		{"c2", "h2", "h2", "6818", 7, "line", 4},
		{"d1", "x", "10.1.1.1", "6818", 100, "default", 4},
	}
	if len(ns) != len(want) {
		t.Fatalf("%d nodes, want %d", len(ns), len(want))
	}
	for i, w := range want {
		n := ns[i]
		got := row{n.Name, n.Hostname, n.Addr, n.Port, n.Weight, n.WeightFrom, n.CPUs}
		if got != w {
			t.Errorf("node %d: %+v, want %+v", i, got, w)
		}
	}
	for _, bad := range []struct{ conf, want string }{
		{"NodeName=n[1-4] NodeAddr=10.0.0.[1-5]\n", "line 1: NodeAddr=10.0.0.[1-5] gives 5 values for 4 node names (more)"},
		{"NodeName=n[1-4] NodeHostname=h[1-2]\n", "line 1: NodeHostname=h[1-2] gives 2 values for 4 node names (fewer)"},
		{"NodeName=n[1-2] Port=[1-3]\n", "line 1: port list [1-3] (Port=) has 3 ports for 2 node names"},
		{"NodeName=DEFAULT NodeAddr=1.2.3.4\n", "line 1: NodeAddr not allowed with NodeName=DEFAULT"},
		{"NodeName=ALL\n", "line 1: NodeName=ALL"},
		{"NodeName=n1\nNodeName=n[0-1]\n", "line 2: node n1 is defined again (first on line 1)"},
		{"NodeName=n1 Weight=-1\n", "line 1: node weight -1 (Weight=) is not a number"},
		{"NodeName=DEFAULT Weight=x\nNodeName=n1\n", "line 1: node weight x (Weight=)"},
	} {
		c, err := ReadConf([]byte(bad.conf))
		if err == nil {
			_, err = c.Nodes()
		}
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: %v, want %q", bad.conf, err, bad.want)
		}
	}
}

// Issue 31 item 7: the slurm.conf lines the merge used to break, each merged as
// Slurm reads them.
func TestMergeWeightsSlurmSyntax(t *testing.T) {
	hosts := []string{"n1", "n2", "n3", "n4"}
	o := curves.Order{3, 2, 1, 0} // n4 first
	for _, c := range []struct{ conf, want string }{
		{"NodeName=n[1-4] Weight = 5 CPUs=4\n",
			"NodeName=n1 Weight=4 CPUs=4\nNodeName=n2 Weight=3 CPUs=4\nNodeName=n3 Weight=2 CPUs=4\nNodeName=n4 Weight=1 CPUs=4\n"},
		{"NodeName = n[1-4] NodeAddr = 10.0.0.[1-4]\n",
			"NodeName=n1 NodeAddr=10.0.0.1 Weight=4\nNodeName=n2 NodeAddr=10.0.0.2 Weight=3\nNodeName=n3 NodeAddr=10.0.0.3 Weight=2\nNodeName=n4 NodeAddr=10.0.0.4 Weight=1\n"},
		{"NodeName=n[1-4] NodeAddr=10.0.0.9 Port=17001-17004 Features=\"a  b\"\n",
			"NodeName=n1 NodeAddr=10.0.0.9 Port=17001 Features=\"a  b\" Weight=4\nNodeName=n2 NodeAddr=10.0.0.9 Port=17002 Features=\"a  b\" Weight=3\n" +
				"NodeName=n3 NodeAddr=10.0.0.9 Port=17003 Features=\"a  b\" Weight=2\nNodeName=n4 NodeAddr=10.0.0.9 Port=17004 Features=\"a  b\" Weight=1\n"},
		{"NodeName=n[1-4] Features=a\\#b # rack\n",
			"NodeName=n1 Features=a\\#b Weight=4 # rack\nNodeName=n2 Features=a\\#b Weight=3 # rack\nNodeName=n3 Features=a\\#b Weight=2 # rack\nNodeName=n4 Features=a\\#b Weight=1 # rack\n"},
		{"NodeName=n[1-4] \\\n  CPUs=2\nPartitionName=p Nodes=ALL\n",
			"NodeName=n1 CPUs=2 Weight=4\nNodeName=n2 CPUs=2 Weight=3\nNodeName=n3 CPUs=2 Weight=2\nNodeName=n4 CPUs=2 Weight=1\nPartitionName=p Nodes=ALL\n"},
	} {
		out, warnings, err := MergeWeights(context.Background(), []byte(c.conf), o, hosts)
		if err != nil || len(warnings) > 0 || string(out) != c.want {
			t.Errorf("%q:\n got %q %v %v\nwant %q", c.conf, out, warnings, err, c.want)
			continue
		}
		// What Slurm reads from the merged file: every node its address and weight.
		rc, err := ReadConf(out)
		if err != nil {
			t.Fatal(err)
		}
		before, _ := mustConf(t, c.conf).Nodes()
		after, err := rc.Nodes()
		if err != nil {
			t.Fatal(err)
		}
		for i := range after {
			b, a := before[i], after[i]
			if a.Addr != b.Addr || a.Port != b.Port || a.Hostname != b.Hostname || a.Weight != uint32(o.Ranks()[i]+1) {
				t.Errorf("%q: node %s before %+v after %+v", c.conf, a.Name, b, a)
			}
		}
	}
	_, _, err := MergeWeights(context.Background(), []byte("NodeName=n[1-4] NodeAddr=10.0.0.[1-5]\n"), o, hosts)
	if err == nil || !strings.Contains(err.Error(), "line 1: NodeAddr=10.0.0.[1-5] gives 5 values for 4 node names") {
		t.Errorf("more addresses than names: %v", err)
	}
}

func mustConf(t *testing.T, s string) *Conf {
	t.Helper()
	c, err := ReadConf([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Issue 29 item 8: nodes outside the ordering inherit NodeName=DEFAULT's Weight, and
// the warning says so (no "default Weight=1" when they inherit 100).
func TestMergeWeightsDefaultWeight(t *testing.T) {
	hosts := []string{"n1", "n2"}
	o := curves.Order{1, 0}
	_, warnings, err := MergeWeights(context.Background(), []byte("NodeName=DEFAULT Weight=100\nNodeName=n[1-4]\n"), o, hosts)
	if err != nil || len(warnings) != 1 {
		t.Fatal(warnings, err)
	}
	w := warnings[0]
	if strings.Contains(w, "default Weight=1") || !strings.Contains(w, "n[3-4] keep Weight=100 of NodeName=DEFAULT (line 1): after the ordered nodes") {
		t.Errorf("warning %q", w)
	}
	_, warnings, _ = MergeWeights(context.Background(), []byte("NodeName=n[1-4]\nNodeName=DEFAULT Weight=100\n"), o, hosts)
	if len(warnings) != 1 || !strings.Contains(warnings[0], "n[3-4] keep Slurm's default Weight=1: before or among the ordered nodes") {
		t.Errorf("a DEFAULT line after the nodes does not apply: %q", warnings)
	}
	_, warnings, _ = MergeWeights(context.Background(), []byte("NodeName=n[1-3]\nNodeName=n4 Weight=2\n"), o, hosts)
	if len(warnings) != 1 || !strings.Contains(warnings[0], "n3 keep Slurm's default Weight=1") || !strings.Contains(warnings[0], "n4 keep Weight=2 of their line: before or among") {
		t.Errorf("%q", warnings)
	}
}

// FormatPairs writes what ReadConf reads back, for values with spaces, '#',
// backslashes, quotes and '='.
func TestFormatPairsRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	alphabet := []byte("ab #\\=\"x\t,[]")
	nodeKeys := []string{"Features", "Reason", "Gres", "State"}
	for range 2000 {
		var ps []ConfPair
		for i := range 1 + rng.IntN(4) {
			b := make([]byte, 1+rng.IntN(6))
			for j := range b {
				b[j] = alphabet[rng.IntN(len(alphabet))]
			}
			key := "NodeName" // a line of several pairs: one of confLineKeys
			if i > 0 {
				key = nodeKeys[i-1] // keys its handler knows
			}
			ps = append(ps, ConfPair{Key: key, Value: string(b)})
		}
		s, err := FormatPairs(ps)
		if err != nil {
			continue // a value with both spaces and a quote: refused
		}
		c, err := ReadConf([]byte(s + "\n"))
		if err != nil || len(c.Lines) != 1 || !slices.Equal(c.Lines[0].Pairs, ps) {
			var got []ConfPair
			if err == nil && len(c.Lines) == 1 {
				got = c.Lines[0].Pairs
			}
			t.Fatalf("%+v -> %q -> %+v %v", ps, s, got, err)
		}
	}
}

func FuzzReadConf(f *testing.F) {
	f.Add("NodeName = n[1-4] Weight = 5 Features=\"a  b\" # c\n")
	f.Add("NodeName=n1 \\\nCPUs=2\nNodeName=DEFAULT Weight=3\n")
	f.Add("ClusterName=a\\#b\\\\\nSlurmctldHost=\"e\"f\n")
	f.Add("NodeName=a\\#b Reason=\\\\ Features=\"e\"f\n")
	f.Add("TopologyPlugins=x\nNodeName=n1 Wieght=2\n")
	f.Add("TopologyPlugin=x TopologyParam=y\nInclude a b\n")
	// Partitions as slurmctld reads them (real sites: AWS ParallelCluster's
	// Nodes=NODESET, nodes declared State=FUTURE, n[09-11] for n[9-11]).
	f.Add("NodeName=a[1-2] Feature=gpu,ib State=CLOUD\nNodeName=DEFAULT State=FUTURE\nNodeName=b[1-2]\nNodeSet=gpus Feature=gpu\nNodeSet=bs Nodes=b[1-2]\nNodeSet=all Nodes=ALL\nPartitionName=p Nodes=gpus,bs,all,a1\n")
	f.Add("NodeName=n[9-11]\nPartitionName=DEFAULT Nodes=n[09-11]\nPartitionName=p\nPartitionName=q Nodes=ALL,n9\n")
	f.Add("NodeName=a[1-2] Features=gpu\nPartitionName=p Nodes=feature{gpu},a1\nPartitionName=q Nodes=switch{s1},feature{x\n")
	// Partition tiers, states and limits (ConfPartition.PriorityTier, ...).
	f.Add("NodeName=n[1-2]\nPartitionName=DEFAULT Priority=4 MaxTime=1-2:03\nPartitionName=p Nodes=ALL PriorityTier=0x10 State=drain MaxNodes=2k MinNodes=INFINITE\nPartitionName=q Nodes=n1 MaxTime=5:30 State=INACTIVE\n")
	f.Fuzz(func(t *testing.T, conf string) {
		c, err := ReadConf([]byte(conf))
		lines := strings.Count(conf, "\n")
		if !strings.HasSuffix(conf, "\n") {
			lines++
		}
		if err != nil {
			// A refusal names a line of the input.
			var ce *ConfError
			if !errors.As(err, &ce) || ce.Line < 1 || ce.Line > lines {
				t.Fatalf("%q (%d lines): error without a line of it: %v", conf, lines, err)
			}
			return
		}
		// Lines are in file order, each within the input, none overlapping.
		last := 0
		for _, l := range c.Lines {
			if l.First <= last || l.Last < l.First || l.Last > lines {
				t.Fatalf("%q (%d lines): line %d-%d after %d", conf, lines, l.First, l.Last, last)
			}
			last = l.Last
		}
		// Every line written back with FormatPairs reads back the same.
		for _, l := range c.Lines {
			if l.Kind() == "include" || len(l.Pairs) == 0 {
				continue
			}
			s, err := FormatPairs(l.Pairs)
			if err != nil {
				continue
			}
			c2, err := ReadConf([]byte(s))
			if err != nil || len(c2.Lines) != 1 || !slices.Equal(c2.Lines[0].Pairs, l.Pairs) {
				t.Fatalf("%q: line %+v written %q read %v", conf, l.Pairs, s, err)
			}
		}
		// The nodes and partitions read, or an error naming a line.
		ns, err := c.Nodes()
		if err == nil {
			_, err = c.Partitions(ns)
		}
		var ce *ConfError
		if err != nil && (!errors.As(err, &ce) || ce.Line < 1 || ce.Line > lines) {
			t.Fatalf("%q (%d lines): error without a line of it: %v", conf, lines, err)
		}
	})
}

// The nodes a slurm.conf defines are bounded in all (MaxConfNodes), over every
// NodeName line, and so is each partition's list of names (partitions overlap),
// the line that crosses the bound named: NodeName=[1-3000000] took
// 47 s and 2.7 GB (FuzzMergeWeights), and lines of hostlist.MaxHosts names each
// had no bound.
func TestConfNodesBounded(t *testing.T) {
	// Partitions overlap: six that each list all of a 200,000-node machine are
	// 1.2 million names, and a site may write them so.
	var six strings.Builder
	six.WriteString("NodeName=n[1-200000] CPUs=1\n")
	for i := range 6 {
		fmt.Fprintf(&six, "PartitionName=p%d Nodes=n[1-200000]\n", i)
	}
	big, err := ReadConf([]byte(six.String()))
	if err != nil {
		t.Fatal(err)
	}
	if ps, err := big.Partitions(nil); err != nil || len(ps) != 6 || len(ps[5].Hosts) != 200000 {
		t.Fatalf("six partitions of 200,000 nodes: %d partitions, %v", len(ps), err)
	}
	half := MaxConfNodes / 2
	for _, c := range []struct {
		conf string
		line int
		want string
	}{
		{"NodeName=[1-3000000] CPUs=1\n", 1, "NodeName=[1-3000000]: 3000000 names: more than 1048576"},
		{fmt.Sprintf("NodeName=a[1-%d]\n# x\nNodeName=b[0-%d]\n", half, half), 3, fmt.Sprintf("%d names, %d with the lines before: more than %d", half+1, 2*half+1, MaxConfNodes)},
		{"NodeName=n[1-4194304]\nNodeName=m[1-4194304]\n", 1, "more than 1048576"},
		// the distinct names one partition lists, when an Include line may
		// define nodes not read (without one each name is checked as it comes:
		// TestPartitionNodesCountedAgainstNodes)
		{fmt.Sprintf("Include x.conf\nNodeName=a[1-9]\nPartitionName=p0 Nodes=a[1-9]\nPartitionName=p1 Nodes=a[0-%d]\n", MaxConfNodes), 4, fmt.Sprintf("PartitionName=p1 Nodes=a[0-%d]: more than %d distinct names", MaxConfNodes, MaxConfNodes)},
	} {
		conf, err := ReadConf([]byte(c.conf))
		if err != nil {
			t.Fatalf("%q: %v", c.conf, err)
		}
		if strings.Contains(c.conf, "PartitionName") {
			_, err = conf.Partitions(nil)
		} else {
			_, err = conf.Nodes()
		}
		var ce *ConfError
		if !errors.As(err, &ce) || ce.Line != c.line || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%.40q: %v, want line %d and %q", c.conf, err, c.line, c.want)
		}
	}
}

// quoteConfValue runs once per value of every line MergeWeights writes (131,072
// lines for a 131,072-node slurm.conf whose NodeName line is split by weight): it
// built its escaper per call, half of MergeWeights' time. A plain value costs at
// most the read-back check's allocations.
func TestQuoteConfValueAllocs(t *testing.T) {
	if a := testing.AllocsPerRun(100, func() {
		if _, err := quoteConfValue("n[000001-000002]"); err != nil {
			t.Fatal(err)
		}
	}); a > 3 {
		t.Errorf("%v allocations per value, want at most 3", a)
	}
}

// Edit takes the nodes the caller has (Conf.Nodes') instead of expanding the
// hostlists again: its allocations do not grow with the nodes. (It expanded them
// on every call: plan called it three times on a 131,072-node slurm.conf.)
func TestEditDoesNotExpand(t *testing.T) {
	for _, n := range []int{10, 10000} {
		c := mustConf(t, fmt.Sprintf("NodeName=n[1-%d] CPUs=1\nPartitionName=p Nodes=ALL\n", n))
		nodes, err := c.Nodes()
		if err != nil {
			t.Fatal(err)
		}
		calls := 0
		if a := testing.AllocsPerRun(10, func() {
			calls = 0
			if _, err := c.Edit(nodes, func(l *ConfLine, ns []ConfNode) ([]string, error) {
				if len(ns) != n {
					t.Fatalf("%d nodes on the line, want %d", len(ns), n)
				}
				calls++
				return nil, nil
			}); err != nil {
				t.Fatal(err)
			}
		}); a > 20 {
			t.Errorf("%d nodes: Edit made %v allocations, want at most 20", n, a)
		}
		if calls != 1 {
			t.Errorf("%d nodes: edit called %d times, want 1", n, calls)
		}
	}
	// Nodes on lines the file does not have (another file's) are refused, not left
	// unedited.
	c := mustConf(t, "NodeName=a[1-2] CPUs=1\nNodeName=b[1-2] CPUs=1\n")
	other := mustConf(t, "PartitionName=p Nodes=ALL\nPartitionName=q Nodes=ALL\nNodeName=x CPUs=1\n")
	nodes, err := other.Nodes()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Edit(nodes, func(*ConfLine, []ConfNode) ([]string, error) { return nil, nil }); err == nil || !strings.Contains(err.Error(), "not this file's") {
		t.Errorf("Edit with another file's nodes: err = %v", err)
	}
}
