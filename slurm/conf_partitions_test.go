package slurm

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/topo/hostlist"

	"github.com/procalloc/procalloc/internal/slurmtest"
)

// confPartitions is conf's partitions (ReadConf, Conf.Partitions); t fails on an error.
func confPartitions(t *testing.T, conf string) []ConfPartition {
	t.Helper()
	c, err := ReadConf([]byte(conf))
	if err != nil {
		t.Fatal(err)
	}
	ps, err := c.Partitions(nil)
	if err != nil {
		t.Fatal(err)
	}
	return ps
}

// TestConfPartitionsDefault: PartitionName=DEFAULT sets what the partitions after
// it (not before) leave out, a partition's own value wins, Shared= is the old name
// of OverSubscribe=, and Nodes= expands (ALL is kept as a word). Slurm's order
// (read_config.c, _parse_partitionname) is OverSubscribe= of the line, of the
// DEFAULT, then Shared= of the line, of the DEFAULT: a DEFAULT OverSubscribe=
// wins over a line's Shared=.
func TestConfPartitionsDefault(t *testing.T) {
	conf := "NodeName=n[1-8]\n" +
		"PartitionName=early Nodes=n[1-2] Shared=FORCE:2\n" +
		"PartitionName=DEFAULT OverSubscribe=exclusive Nodes=n[1-4]\n" +
		"PartitionName=a\n" +
		"PartitionName=b Nodes=n[5-8] OverSubscribe=NO\n" +
		"PartitionName=DEFAULT OverSubscribe=no\n" +
		"PartitionName=c Shared=EXCLUSIVE\n" +
		"PartitionName=d Nodes=ALL\n"
	ps := confPartitions(t, conf)
	type row struct {
		name, nodes, over string
		hosts             []string
		line              int
	}
	want := []row{
		{"early", "n[1-2]", "FORCE:2", []string{"n1", "n2"}, 2},
		{"a", "n[1-4]", "EXCLUSIVE", []string{"n1", "n2", "n3", "n4"}, 4},
		{"b", "n[5-8]", "NO", []string{"n5", "n6", "n7", "n8"}, 5},
		{"c", "n[1-4]", "NO", []string{"n1", "n2", "n3", "n4"}, 7},
		{"d", "ALL", "NO", nil, 8},
	}
	if len(ps) != len(want) {
		t.Fatalf("%d partitions, want %d: %+v", len(ps), len(want), ps)
	}
	for i, w := range want {
		p := ps[i]
		if p.Name != w.name || p.Nodes != w.nodes || p.OverSubscribe != w.over || !slices.Equal(p.Hosts, w.hosts) || p.Line != w.line {
			t.Errorf("partition %d: %+v, want %+v", i, p, w)
		}
	}
	c, err := ReadConf([]byte("PartitionName=p Nodes=n[3-1]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Partitions(nil); err == nil || !strings.Contains(err.Error(), "line 1: PartitionName=p Nodes=n[3-1]") {
		t.Errorf("bad Nodes=: %v", err)
	}
}

// TestConfNodesBadValues: CPUs/Procs and Port values Slurm refuses, each an error
// naming the line that holds the value (the DEFAULT line for an inherited one).
func TestConfNodesBadValues(t *testing.T) {
	for _, c := range []struct{ conf, want string }{
		{"NodeName=n1 CPUs=0\n", "line 1: CPUs=0 is not a positive number"},
		{"NodeName=n1 Procs=four\n", "line 1: Procs=four is not a positive number"},
		{"NodeName=DEFAULT CPUs=-2\nNodeName=n1\n", "line 2: CPUs=-2 is not a positive number"},
		{"NodeName=n1 Port=70000\n", "line 1: port list 70000 (Port=): \"70000\" is not a port (1-65535)"},
		{"NodeName=n[1-2] Port=0,1\n", "line 1: port list [0,1] (Port=): \"0\" is not a port"},
		{"NodeName=n1 Port=[5-3]\n", "line 1: port list [5-3] (Port=)"},
		{"NodeName=DEFAULT Port=17001-17003\nNodeName=n[1-2]\n", "line 1: port list [17001-17003] (Port=) has 3 ports for 2 node names"},
		{"NodeName=n1 NodeAddr=10.0.0.[3-1]\n", "line 1: NodeAddr=10.0.0.[3-1]"},
	} {
		conf, err := ReadConf([]byte(c.conf))
		if err == nil {
			_, err = conf.Nodes()
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.conf, err, c.want)
		}
	}
	// Procs= is the old name of CPUs=; CPUs= wins when both are given, and a
	// DEFAULT Port range gives one port per node.
	conf, err := ReadConf([]byte("NodeName=a Procs=3\nNodeName=DEFAULT Port=17001-17002\nNodeName=b[1-2] CPUs=2 Procs=8\n"))
	if err != nil {
		t.Fatal(err)
	}
	ns, err := conf.Nodes()
	if err != nil {
		t.Fatal(err)
	}
	if len(ns) != 3 || ns[0].CPUs != 3 || ns[1].CPUs != 2 || ns[2].CPUs != 2 {
		t.Fatalf("cpus: %+v", ns)
	}
	if ns[0].Port != "" || ns[1].Port != "17001" || ns[2].Port != "17002" {
		t.Fatalf("ports %q %q, want 17001 17002", ns[1].Port, ns[2].Port)
	}
}

// partitionNodeCases are partitions' Nodes= as slurmctld reads them
// (read_config.c nodespec_to_hostlist, build_part_bitmap): want is each
// partition's nodes, "name=hostlist" (sorted, compressed) joined by spaces, or the
// words of the error. Found on real sites' files: a partition naming a NodeSet
// (Nodes=gpus) was read as a node called "gpus".
var partitionNodeCases = []struct {
	conf, want, err string
	since2311       bool // Slurm 22.05 refuses it (NodeSet Nodes=ALL from 23.11, hostlist functions from 24.11), 26.05 reads it
	// unsupported: procalloc refuses what 26.05 reads (switch{S}: nodes from the
	// topology plugin, here none, so an empty partition).
	unsupported bool
}{
	{conf: "NodeName=a[1-2] Feature=gpu,ib\nNodeName=b[1-2] Feature=ib\nNodeSet=gpus Feature=gpu\nPartitionName=p Nodes=gpus\n",
		want: "p=a[1-2]"},
	{conf: "NodeName=DEFAULT Features=big\nNodeName=a[1-2]\nNodeName=b[1-2] Feature=small\nNodeSet=bs Feature=big\nNodeSet=rest Nodes=b[1-2]\nPartitionName=q Nodes=bs,b1\nPartitionName=r Nodes=rest,a2\n",
		want: "q=a[1-2],b1 r=a2,b[1-2]"},
	{conf: "NodeName=a[1-2]\nNodeSet=every Nodes=ALL\nPartitionName=p Nodes=every\n", want: "p=a[1-2]", since2311: true},
	{conf: "NodeName=a[1-3]\nPartitionName=p Nodes=a[1-2],a2,a[1-3]\n", want: "p=a[1-3]"},
	{conf: "NodeName=n[9-11]\nPartitionName=p Nodes=n[09-11]\n", err: "n09 is neither a node"},
	{conf: "NodeName=a[1-3]\nPartitionName=p Nodes=a[1-4]\n", err: "a4 is neither a node"},
	{conf: "NodeName=a[1-3]\nPartitionName=p Nodes=ALL,a1\n", err: "ALL means every node only as the whole value"},
	{conf: "NodeName=a[1-3]\nPartitionName=p Nodes=all\n", want: "p=ALL"},
	{conf: "NodeName=a1\nNodeSet=gpus Feature=GPU\nNodeName=a2 Feature=gpu\nPartitionName=p Nodes=gpus,a1\n", want: "p=a1"},
	{conf: "PartitionName=p Nodes=late,a1\nNodeSet=late Nodes=b[1-2]\nNodeName=a1\nNodeName=b[1-2]\n", want: "p=a1,b[1-2]"},
	{conf: "NodeName=a[1-2] Feature=gpu\nNodeName=b1\nPartitionName=p Nodes=feature{gpu},b1\n", want: "p=a[1-2],b1", since2311: true},
	{conf: "NodeName=a[1-2]\nPartitionName=p Nodes=switch{s1}\n", err: "whose nodes come from the topology plugin", since2311: true, unsupported: true},
}

func partitionSummary(ps []ConfPartition) string {
	var out []string
	for _, p := range ps {
		hs := slices.Clone(p.Hosts)
		slices.SortFunc(hs, hostlist.NaturalCompare)
		h, _ := hostlist.Compress(hs)
		if strings.EqualFold(p.Nodes, "ALL") {
			h = "ALL"
		}
		out = append(out, p.Name+"="+h)
	}
	return strings.Join(out, " ")
}

func TestConfPartitionsNodes(t *testing.T) {
	for _, c := range partitionNodeCases {
		conf, err := ReadConf([]byte(c.conf))
		if err != nil {
			t.Fatalf("%q: %v", c.conf, err)
		}
		ps, err := conf.Partitions(nil)
		switch {
		case c.err != "":
			var ce *ConfError
			if !errors.As(err, &ce) || !strings.Contains(err.Error(), c.err) || !strings.Contains(c.conf, "PartitionName=p") {
				t.Errorf("%q: %v, want a line's error with %q", c.conf, err, c.err)
			}
		case err != nil:
			t.Errorf("%q: %v", c.conf, err)
		default:
			if got := partitionSummary(ps); got != c.want {
				t.Errorf("%q: %s, want %s", c.conf, got, c.want)
			}
		}
	}
	// With an Include line a name may be a node of the included file: read.
	conf, err := ReadConf([]byte("Include nodes.conf\nNodeName=a1\nPartitionName=p Nodes=a[1-2]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if ps, err := conf.Partitions(nil); err != nil || partitionSummary(ps) != "p=a[1-2]" {
		t.Errorf("with Include: %v %v", partitionSummary(ps), err)
	}
}

// The same files loaded by slurmctld (22.05 on PATH; 26.05 in
// $PROCALLOC_SLURM_NEW, default /opt/slurm-new, when built): each partition's nodes
// as `scontrol show partition` lists them, or slurmctld's fatal. Not -short; needs
// root and slurmctld.
func TestConfPartitionsOnSlurmctld(t *testing.T) {
	slurms := slurmtest.NeedCtlds(t, "partitions")
	for _, s := range slurms {
		for i, c := range partitionNodeCases {
			parts, fatal := slurmtest.SlurmctldPartitions(t, s.Slurmctld, s.Scontrol, t.TempDir(), c.conf)
			refuses := c.err != "" && !(c.unsupported && s.V2311) || c.since2311 && !s.V2311
			switch {
			case refuses && fatal == "":
				t.Errorf("%s case %d %q: want slurmctld to refuse it, it reads %s", s.Name, i, c.conf, parts)
			case !refuses && fatal != "":
				t.Errorf("%s case %d %q: slurmctld: %s", s.Name, i, c.conf, fatal)
			case c.unsupported:
				// Read by Slurm, refused here: asserted as a known difference.
			case !refuses:
				want := c.want
				if strings.HasSuffix(want, "=ALL") {
					want = strings.TrimSuffix(want, "ALL") + "a[1-3]"
				}
				if parts != want {
					t.Errorf("%s case %d %q: slurmctld reads %s, want %s", s.Name, i, c.conf, parts, want)
				}
			}
			t.Logf("%s case %d: %s%s", s.Name, i, parts, fatal)
		}
	}
}

// A node's State= is its line's, else the last NodeName=DEFAULT's before it.
func TestConfNodesState(t *testing.T) {
	conf, err := ReadConf([]byte("NodeName=a1\nNodeName=DEFAULT State=FUTURE\nNodeName=a2\nNodeName=a3 State=CLOUD\nNodeName=DEFAULT State=UNKNOWN\nNodeName=a4\n"))
	if err != nil {
		t.Fatal(err)
	}
	ns, err := conf.Nodes()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, n := range ns {
		got = append(got, n.Name+":"+n.State)
	}
	if want := "a1: a2:FUTURE a3:CLOUD a4:UNKNOWN"; strings.Join(got, " ") != want {
		t.Errorf("states %s, want %s", strings.Join(got, " "), want)
	}
}

// TestPartitionsOn: random slurm.conf partitions (node lists, Nodes=ALL, no
// Nodes=, Default=YES on none, one or several) on random machines (some of the
// conf's nodes, in a shuffled order, and names slurm.conf lacks), against a
// brute force of each partition's nodes, the default (the last Default=YES)
// and where a job naming no partition goes (without one: every partition's
// nodes under EveryPartition).
func TestPartitionsOn(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 11))
	for trial := range 300 {
		var b strings.Builder
		b.WriteString("NodeName=n[1-12]\n")
		lists := map[string]map[string]bool{} // partition -> its nodes; nil: ALL
		nparts := 1 + rng.IntN(4)
		lastDefault := -1
		for i := range nparts {
			name := fmt.Sprintf("p%d", i)
			fmt.Fprintf(&b, "PartitionName=%s", name)
			switch r := rng.IntN(6); {
			case r == 0:
				b.WriteString(" Nodes=ALL")
				lists[name] = nil
			case r == 1: // no Nodes=: no node
				lists[name] = map[string]bool{}
			default:
				set := map[string]bool{}
				var hs []string
				for range 1 + rng.IntN(6) {
					h := fmt.Sprintf("n%d", 1+rng.IntN(12))
					set[h] = true
					hs = append(hs, h)
				}
				fmt.Fprintf(&b, " Nodes=%s", strings.Join(hs, ","))
				lists[name] = set
			}
			if rng.IntN(3) == 0 {
				b.WriteString(" Default=YES")
				lastDefault = i
			}
			b.WriteString("\n")
		}
		var names []string
		for v := range 12 {
			if rng.IntN(4) > 0 {
				names = append(names, fmt.Sprintf("n%d", v+1))
			}
		}
		names = append(names, "x1", "x2")
		rng.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
		ps := confPartitions(t, b.String())
		mp := PartitionsOn(ps, names, nil)
		if mp.Default != lastDefault {
			t.Fatalf("trial %d %q: default %d, want %d", trial, b.String(), mp.Default, lastDefault)
		}
		var union []int
		for v, h := range names {
			for i := range ps {
				set := lists[ps[i].Name]
				if set == nil || set[h] {
					union = append(union, v)
					break
				}
			}
		}
		for i := range ps {
			set := lists[ps[i].Name]
			var want []int
			for v, h := range names {
				if set == nil || set[h] {
					want = append(want, v)
				}
			}
			if !slices.Equal(mp.Nodes[i], want) {
				t.Fatalf("trial %d %q on %v: %s on %v, want %v", trial, b.String(), names, ps[i].Name, mp.Nodes[i], want)
			}
			if mp.Index(ps[i].Name) != i {
				t.Fatalf("Index(%s) = %d, want %d", ps[i].Name, mp.Index(ps[i].Name), i)
			}
		}
		name, nodes, isUnion := mp.DefaultNodes()
		wantName, wantNodes := EveryPartition, union
		if lastDefault >= 0 {
			wantName, wantNodes = ps[lastDefault].Name, mp.Nodes[lastDefault]
		}
		if name != wantName || !slices.Equal(nodes, wantNodes) || isUnion != (lastDefault < 0) {
			t.Fatalf("trial %d %q on %v: jobs naming no partition go to %s %v (union %v), want %s %v", trial, b.String(), names, name, nodes, isUnion, wantName, wantNodes)
		}
	}
}
