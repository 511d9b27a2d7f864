package slurm

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// topology.conf's RingName= lines (Slurm 26.05's topology/ring, ring_record.c)
// read into the Rings a topology.yaml's ring: gives: the same names, nodes in
// the order written (hostlist_shift's), file order; what Slurm accepts (a node
// on two rings, a ring without Nodes=, keys in any case, Nodes given twice: the
// last, with a warning) is accepted.
func TestTopologyConfRings(t *testing.T) {
	conf := "# rings\nRingName=r0 Nodes=n[08,07,06,05,04,03,02,01]\nringname=r1 nodes=n[09-12],n[16,14]\nRingName=r2 Nodes=n03,n12 Nodes=n[15,13]\nRingName=empty\n"
	yml := "- topology: t\n  ring:\n    rings:\n      - ring: r0\n        nodes: n[08,07,06,05,04,03,02,01]\n      - ring: r1\n        nodes: [\"n[09-12]\", \"n[16,14]\"]\n      - ring: r2\n        nodes: n[15,13]\n      - ring: empty\n"
	c, err := ParseTopologyConf(strings.NewReader(conf))
	if err != nil {
		t.Fatal(err)
	}
	y, err := ParseTopologyYAML(strings.NewReader(yml), "")
	if err != nil {
		t.Fatal(err)
	}
	if c.Kind() != "ring" || c.Rings == nil || c.Rings.Format != "topology.conf" || y.Rings.Format != "topology.yaml" {
		t.Fatalf("kind %s, rings %+v", c.Kind(), c.Rings)
	}
	if got, want := ringsSummary(c.Rings), ringsSummary(y.Rings); got != want {
		t.Errorf("topology.conf rings %s, topology.yaml's %s", got, want)
	}
	if got, want := ringsSummary(c.Rings), "r0:n08,n07,n06,n05,n04,n03,n02,n01 r1:n09,n10,n11,n12,n16,n14 r2:n15,n13 empty:"; got != want {
		t.Errorf("rings %s, want %s", got, want)
	}
	for i, want := range []int{2, 3, 4, 5} {
		if c.Rings.Rings[i].Line != want {
			t.Errorf("ring %d on line %d, want %d", i, c.Rings.Rings[i].Line, want)
		}
	}
	if got := c.Rings.Where(1); got != "topology.conf line 3" {
		t.Errorf("Where(1) = %q", got)
	}
	if len(c.Warnings) != 1 || !strings.Contains(c.Warnings[0], "line 4: Nodes given twice") {
		t.Errorf("warnings %q, want one for the second Nodes= of line 4", c.Warnings)
	}
	if _, err := c.Graph(); err == nil || !strings.Contains(err.Error(), "topology/ring") {
		t.Errorf("Graph of rings: %v, want it refused as a selection rule", err)
	}
	if f, err := DetectGraphFormat([]byte("# x\nRingName=a Nodes=n1\n")); err != nil || f != "slurm-topology" {
		t.Errorf("a RingName= file detected as %q (%v)", f, err)
	}
	if _, err := c.TreeOf(); err == nil || !strings.Contains(err.Error(), "topology/ring configuration") {
		t.Errorf("TreeOf of rings: %v", err)
	}
	if r, err := c.RingsOf(); err != nil || r != c.Rings {
		t.Errorf("RingsOf: %v", err)
	}
}

// The rings refused as slurmctld refuses them at startup, and what is
// refused here besides, each naming the line.
func TestTopologyConfRingErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"RingName=a Nodes=n1\nRingName=a Nodes=n2\n", "line 2: ring a defined twice (first on line 1; Slurm: \"Ring (a) has already been defined\""},
		{"RingName=a Nodes=n[1-3],n2\n", "line 1: ring a lists node n2 twice (positions 1 and 3)"},
		{"RingName=a Nodes=n1\nSwitchName=s Nodes=n1\n", "line 2: SwitchName lines mixed with RingName (line 1 is topology/ring)"},
		{"BlockName=b Nodes=n1\nRingName=a Nodes=n1\n", "line 2: RingName lines mixed with BlockName/BlockSizes (line 1 is topology/block)"},
		{"RingName=a Nodes=n1\nBlockSizes=4\n", "line 2: BlockName/BlockSizes lines mixed with RingName"},
		{"RingName=a Nodes=n1 Switches=s1\n", "line 1: Switches= is topology/tree, not topology/ring"},
		{"RingName=a Nodes=n1 BlockSizes=4\n", "line 1: BlockSizes= is topology/block, not topology/ring"},
		{"SwitchName=s Nodes=n1 RingName=a\n", "line 1: RingName= is topology/ring, not topology/tree"},
		{"BlockName=b Nodes=n1 RingName=a\n", "line 1: RingName= is topology/ring, not topology/block"},
		{"RingName=a RingName=b Nodes=n1\n", "line 1: two RingName= on one line (one line per ring)"},
		{"RingName=a Node=n1\n", "line 1: unknown key \"Node\" (a RingName line takes Nodes (did you mean Nodes?)"},
		{"RingName=a Nodes=n[3-1]\n", "line 1: Nodes=n[3-1]"},
		{"RingNam=a Nodes=n1\n", "not RingNam= (did you mean RingName?)"},
	} {
		_, err := ParseTopologyConf(strings.NewReader(c.src))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.src, err, c.want)
		}
	}
}

// A ring's line in an included file is named by that file, and the rings read
// with the Include line followed are those of the text put together.
func TestTopologyConfRingsIncluded(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "rings.inc"), []byte("RingName=b Nodes=n[5-8]\nRingName=a Nodes=n9\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "topology.conf")
	_, err := ParseTopologyConfIncluding(context.Background(), strings.NewReader("RingName=a Nodes=n[1-4]\nInclude rings.inc\n"), path, path, os.ReadFile)
	if err == nil || !strings.Contains(err.Error(), "rings.inc line 2: ring a defined twice (first on line 1;") {
		t.Fatalf("a ring defined again in an included file: %v", err)
	}
	top, err := ParseTopologyConfIncluding(context.Background(), strings.NewReader("RingName=a Nodes=n[1-4]\nInclude rings.inc\nRingName=c Nodes=n[1,3]\n"), path, path, func(name string) ([]byte, error) {
		return []byte("RingName=b Nodes=n[8,7,6,5]\n"), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := ringsSummary(top.Rings), "a:n1,n2,n3,n4 b:n8,n7,n6,n5 c:n1,n3"; got != want {
		t.Errorf("rings %s, want %s", got, want)
	}
	if got := top.Rings.Where(1); !strings.HasSuffix(got, "rings.inc line 1") {
		t.Errorf("Where of the included ring: %q", got)
	}
	if got := top.Rings.Where(2); got != "topology.conf line 3" {
		t.Errorf("Where of the ring after the Include line: %q", got)
	}
}

// ringsSummary is "NAME:NODE,NODE,... NAME:..." in file order.
func ringsSummary(rs *Rings) string {
	var b strings.Builder
	for i, r := range rs.Rings {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%s:%s", r.Name, strings.Join(r.Nodes, ","))
	}
	return b.String()
}

// plainNames matches names a topology.yaml's hostlist gives back as they are.
var plainNames = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)

// ringsAsYAML writes rs as a topology.yaml of one ring topology, each ring's
// nodes a list of names; ok is false when a name is not plain (plainNames).
func ringsAsYAML(rs *Rings) (string, bool) {
	var b strings.Builder
	b.WriteString("- topology: t\n  ring:\n    rings:\n")
	for _, r := range rs.Rings {
		if !plainNames.MatchString(r.Name) {
			return "", false
		}
		fmt.Fprintf(&b, "      - ring: %q\n", r.Name)
		if len(r.Nodes) == 0 {
			continue
		}
		b.WriteString("        nodes:\n")
		for _, n := range r.Nodes {
			if !plainNames.MatchString(n) {
				return "", false
			}
			fmt.Fprintf(&b, "          - %q\n", n)
		}
	}
	return b.String(), true
}
