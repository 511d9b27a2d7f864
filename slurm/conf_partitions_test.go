package slurm

import (
	"slices"
	"strings"
	"testing"
)

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
	c, err := ReadConf([]byte(conf))
	if err != nil {
		t.Fatal(err)
	}
	ps, err := c.Partitions()
	if err != nil {
		t.Fatal(err)
	}
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
	c, err = ReadConf([]byte("PartitionName=p Nodes=n[3-1]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Partitions(); err == nil || !strings.Contains(err.Error(), "line 1: PartitionName=p Nodes=n[3-1]") {
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
