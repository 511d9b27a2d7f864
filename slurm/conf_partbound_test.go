package slurm

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/topo/hostlist"
)

// A partition's Nodes= was counted and then expanded whole, at most MaxConfNodes
// names a partition whatever the nodes defined: Nodes=n[1-1000000] on a
// slurm.conf of 16 nodes made a million names to refuse n17, and a list of
// repeats longer than MaxConfNodes (legal: slurmctld drops repeats) was refused.
// Now each name is checked as it comes and kept once (hostlist.Each).
func TestPartitionNodesCountedAgainstNodes(t *testing.T) {
	read := func(text string) ([]ConfPartition, error) {
		t.Helper()
		c, err := ReadConf([]byte(text))
		if err != nil {
			t.Fatal(err)
		}
		return c.Partitions(nil)
	}
	huge := "NodeName=n[1-16]\nPartitionName=p Nodes=n[1-1000000]\n"
	if _, err := read(huge); err == nil || !strings.Contains(err.Error(), "n17 is neither a node of the NodeName lines") {
		t.Fatalf("n[1-1000000] of 16 nodes: %v, want n17 refused", err)
	}
	conf, _ := ReadConf([]byte(huge))
	if a := testing.AllocsPerRun(3, func() { conf.Partitions(nil) }); a > 1000 {
		t.Errorf("n[1-1000000] of 16 nodes: %.0f allocations, want at most 1000", a)
	}
	// The same through a NodeSet: its Nodes= is read as the partition's.
	if _, err := read("NodeName=n[1-16]\nNodeSet=s Nodes=n[1-1000000]\nPartitionName=p Nodes=s\n"); err == nil || !strings.Contains(err.Error(), "NodeSet=s") || !strings.Contains(err.Error(), "n17 is neither") {
		t.Fatalf("a NodeSet of n[1-1000000]: %v, want n17 refused naming the NodeSet", err)
	}

	// Repeats: 65,537 copies of the 16 nodes (1,048,592 names, more than
	// MaxConfNodes) and a NodeSet of them are the 16 nodes, in Expand's order,
	// each once.
	list := strings.Repeat("n[1-16],", MaxConfNodes/16+1) + "s"
	ps, err := read("NodeName=n[1-16]\nNodeSet=s Nodes=n[1-16],n[1-16]\nPartitionName=p Nodes=" + list + "\n")
	if err != nil {
		t.Fatal(err)
	}
	all, _ := hostlist.Expand("n[1-16]")
	if len(ps) != 1 || !slices.Equal(ps[0].Hosts, all) || !slices.Equal(ps[0].NodeSets, []string{"s"}) {
		t.Fatalf("1,048,592 names of 16 nodes: %v %v, want the 16 nodes and the set s", ps[0].Hosts, ps[0].NodeSets)
	}

	// With an Include line a name may be an unread file's node: the distinct
	// names are bounded (MaxConfNodes), repeats are not.
	if ps, err := read("Include more.conf\nNodeName=n[1-16]\nPartitionName=p Nodes=" + list[:len(list)-1] + "\n"); err != nil || len(ps[0].Hosts) != 16 {
		t.Fatalf("with Include, 1,048,592 names of 16 nodes: %v", err)
	}
	_, err = read(fmt.Sprintf("Include more.conf\nNodeName=n[1-16]\nPartitionName=p Nodes=m[0-%d]\n", MaxConfNodes))
	var ce *ConfError
	if !errors.As(err, &ce) || ce.Line != 3 || !strings.Contains(err.Error(), fmt.Sprintf("more than %d distinct names", MaxConfNodes)) {
		t.Fatalf("with Include, %d distinct names: %v", MaxConfNodes+1, err)
	}
}
