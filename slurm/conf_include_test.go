package slurm

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// includeSite writes a site's configuration split over files in a new directory:
// slurm.conf (Include nodes.conf, relative; INCLUDE of an absolute name with %c;
// the partitions), nodes.conf (a NodeName=DEFAULT weight, nodes, a NodeSet, a
// nested Include of racks.conf by absolute name) and racks.conf, each with its
// own line numbers. It returns the directory, slurm.conf's text and the text
// the files make when the Include lines are replaced by the files (what
// slurmctld reads).
func includeSite(t *testing.T) (dir, conf, whole string) {
	t.Helper()
	dir = t.TempDir()
	racks := "NodeName=c[1-2] Weight=9 NodeAddr=127.0.0.1 # rack c\nTopologyPlugin=topology/tree\n"
	nodes := "# the nodes\nNodeName=DEFAULT CPUs=1 Weight=5\nNodeName=a[1-4] NodeAddr=127.0.0.1\nNodeName=b[1-2] Weight=3 NodeAddr=127.0.0.1\n" +
		"include " + filepath.Join(dir, "racks.conf") + "\nNodeSet=bs Nodes=b[1-2]\n"
	part := "PartitionName=all Nodes=a[1-4],bs,c[1-2] Default=YES\nPartitionName=b Nodes=bs\n"
	for name, data := range map[string]string{"nodes.conf": nodes, "racks.conf": racks, "part-sample.conf": part} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	conf = "ClusterName=Sample\nSelectType=select/cons_tres\nInclude nodes.conf\nTopologyParam=SwitchAsNodeRank\nINCLUDE " + filepath.Join(dir, "part-%c.conf") + "\n"
	whole = "ClusterName=Sample\nSelectType=select/cons_tres\n" + strings.Replace(nodes, "include "+filepath.Join(dir, "racks.conf")+"\n", racks, 1) + "TopologyParam=SwitchAsNodeRank\n" + part
	return dir, conf, whole
}

// ReadConfIncluding follows Include lines as slurmctld does: relative names in
// slurm.conf's directory, absolute ones as they are, nested, "include" in any
// case, %c the lower-cased ClusterName. The nodes, NodeSets, partitions and
// settings are those of the files put together; each line names its file and
// line.
func TestReadConfIncluding(t *testing.T) {
	dir, conf, whole := includeSite(t)
	c, err := ReadConfIncluding([]byte(conf), filepath.Join(dir, "slurm.conf"), os.ReadFile)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := ReadConf([]byte(whole))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(dir, "nodes.conf"), filepath.Join(dir, "racks.conf"), filepath.Join(dir, "part-sample.conf")}
	if !slices.Equal(c.Included, want) || c.Includes != 0 {
		t.Errorf("Included %q Includes %d, want %q and 0", c.Included, c.Includes, want)
	}
	nodes, err := c.Nodes()
	if err != nil {
		t.Fatal(err)
	}
	refNodes, err := ref.Nodes()
	if err != nil {
		t.Fatal(err)
	}
	if len(nodes) != len(refNodes) || len(nodes) != 8 {
		t.Fatalf("%d nodes, the files put together define %d (want 8)", len(nodes), len(refNodes))
	}
	for i, n := range nodes {
		r := refNodes[i]
		if n.Name != r.Name || n.Weight != r.Weight || n.WeightFrom != r.WeightFrom || n.CPUs != r.CPUs || n.Addr != r.Addr {
			t.Errorf("node %d: %+v, the files put together %+v", i, n, r)
		}
	}
	// Where each comes from: a2 on nodes.conf line 3 (weight of its line 2),
	// c1 on racks.conf line 1.
	if n := nodes[1]; n.File != want[0] || n.Line != 3 || n.WeightFile != want[0] || n.WeightLine != 2 {
		t.Errorf("a2: %s line %d, weight from %s line %d; want nodes.conf lines 3 and 2", n.File, n.Line, n.WeightFile, n.WeightLine)
	}
	if n := nodes[6]; n.Name != "c1" || n.File != want[1] || n.Line != 1 {
		t.Errorf("c1: %s line %d, want racks.conf line 1", n.File, n.Line)
	}
	parts, err := c.Partitions(nil)
	if err != nil {
		t.Fatal(err)
	}
	refParts, err := ref.Partitions(nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, w := partitionSummary(parts), partitionSummary(refParts); got != w || got != "all=a[1-4],b[1-2],c[1-2] b=b[1-2]" {
		t.Errorf("partitions %s, the files put together %s", got, w)
	}
	if g := c.Global("TopologyPlugin"); g != "topology/tree" {
		t.Errorf("TopologyPlugin=%q, want racks.conf's topology/tree", g)
	}
	// A second node of the same name, in another file: named with both files.
	if err := os.WriteFile(filepath.Join(dir, "dup.conf"), []byte("NodeName=a1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err = ReadConfIncluding([]byte(conf+"Include dup.conf\n"), filepath.Join(dir, "slurm.conf"), os.ReadFile)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Nodes()
	if w := filepath.Join(dir, "dup.conf") + " line 1: node a1 is defined again (first on " + want[0] + " line 3)"; err == nil || !strings.HasPrefix(err.Error(), w) {
		t.Errorf("a1 twice: %v, want %q", err, w)
	}
}

// Include lines that slurmctld cannot follow are errors naming the Include line
// (its file and line); an error of an included file's line names that file.
func TestReadConfIncludingErrors(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"bad.conf":     "NodeName=x1\nNodeNme=x2\n",
		"self.conf":    "Include self.conf\n",
		"sub/rel.conf": "Include other.conf\n",
		"empty.conf":   "",
		"dir.conf":     "NodeName=d1\n",
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, "slurm.conf")
	for _, c := range []struct{ conf, want string }{
		{"NodeName=n1\nInclude nodes.conf\n", "line 2: Include nodes.conf: open " + filepath.Join(dir, "nodes.conf") + ": no such file or directory"},
		{"Include /nonexistent/slurm/nodes.conf\n", "line 1: Include /nonexistent/slurm/nodes.conf: open /nonexistent/slurm/nodes.conf: no such file"},
		{"Include bad.conf\n", filepath.Join(dir, "bad.conf") + " line 2: unknown key NodeNme="},
		{"Include self.conf\n", "self.conf line 1: Include self.conf: Include lines nested more than 16 deep"},
		{"Include sub/rel.conf\n", filepath.Join(dir, "sub/rel.conf") + " line 1: Include other.conf: a relative name in an included file of another directory"},
		{"Include part-%c.conf\n", "line 1: Include part-%c.conf: %c is the ClusterName, and no ClusterName line comes before"},
		{"Include *.conf\n", "line 1: Include *.conf: a '*' in the name"},
		{"Include  \n", "line 1: Include without a file name"},
	} {
		_, err := ReadConfIncluding([]byte(c.conf), path, os.ReadFile)
		var ce *ConfError
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.As(err, &ce) {
			t.Errorf("%q: %v, want a *ConfError with %q", c.conf, err, c.want)
		}
	}
	// An empty included file holds nothing (Slurm: "file is empty", read).
	c, err := ReadConfIncluding([]byte("Include empty.conf\nInclude dir.conf\n"), path, os.ReadFile)
	if err != nil {
		t.Fatal(err)
	}
	if ns, err := c.Nodes(); err != nil || len(ns) != 1 || ns[0].Name != "d1" {
		t.Errorf("empty.conf then dir.conf: %+v %v", ns, err)
	}
	// ReadConf alone still does not follow them, and counts them.
	c, err = ReadConf([]byte("Include nodes.conf\ninclude x.conf\n"))
	if err != nil || c.Includes != 2 || c.Included != nil {
		t.Errorf("ReadConf: Includes %d Included %q %v, want 2, none", c.Includes, c.Included, err)
	}
}

// An edit of a Conf read with its included files writes one file: each Include
// line a comment, its file's lines (edited) in its place. Read back, it is the
// files put together with the same edit, and has no Include line.
func TestEditLinesIncluded(t *testing.T) {
	dir, conf, whole := includeSite(t)
	c, err := ReadConfIncluding([]byte(conf), filepath.Join(dir, "slurm.conf"), os.ReadFile)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := ReadConf([]byte(whole))
	if err != nil {
		t.Fatal(err)
	}
	weigh := func(c *Conf) string {
		t.Helper()
		nodes, err := c.Nodes()
		if err != nil {
			t.Fatal(err)
		}
		out, err := c.Edit(nodes, func(l *ConfLine, ns []ConfNode) ([]string, error) {
			s, err := SplitNodeLine(l, ns, [2]int{0, len(ns)}, []ConfPair{{Key: "Weight", Value: "42"}})
			return []string{s}, err
		})
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}
	got, want := weigh(c), weigh(ref)
	var kept []string
	for _, l := range strings.SplitAfter(got, "\n") {
		if !strings.HasPrefix(l, "# ") || l == "# the nodes\n" {
			kept = append(kept, l)
		}
	}
	if strings.Join(kept, "") != want {
		t.Errorf("written:\n%s\nwithout procalloc's comments it is not the files put together, edited:\n%s", got, want)
	}
	for _, w := range []string{"# Include nodes.conf: written below, the lines of " + filepath.Join(dir, "nodes.conf"), "# end of the lines of " + filepath.Join(dir, "racks.conf")} {
		if !strings.Contains(got, w) {
			t.Errorf("written: no %q:\n%s", w, got)
		}
	}
	back, err := ReadConf([]byte(got))
	if err != nil || back.Includes != 0 {
		t.Fatalf("read back: %v, %d Include lines", err, back.Includes)
	}
	if ns, err := back.Nodes(); err != nil || len(ns) != 8 || ns[7].Weight != 42 {
		t.Errorf("read back: %d nodes %v", len(ns), err)
	}
}

// slurmctld reads the site's files (slurm.conf and its included files, as
// ReadConfIncluding does) and the one file an edit writes: the same partitions.
// Not -short; needs root and slurmctld (Debian's 22.05 on PATH).
func TestReadConfIncludingOnSlurmctld(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts slurmctld")
	}
	if os.Getuid() != 0 {
		t.Skip("slurmctld runs as root here (SlurmUser=root)")
	}
	ctld, err1 := exec.LookPath("slurmctld")
	scontrol, err2 := exec.LookPath("scontrol")
	if err1 != nil || err2 != nil {
		t.Skip("no slurmctld (Debian: apt-get install slurm-wlm): Include lines are checked against Slurm's reader when it is installed")
	}
	dir, conf, _ := includeSite(t)
	// runSlurmctldConf appends ClusterName=t: the Include of part-%c.conf is read
	// before it, with Sample. TopologyPlugin=topology/tree needs a topology.conf:
	// racks.conf says topology/none (22.05; later releases call it topology/flat) here.
	if err := os.WriteFile(filepath.Join(dir, "racks.conf"), []byte("NodeName=c[1-2] Weight=9 NodeAddr=127.0.0.1 # rack c\nTopologyPlugin=topology/none\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := ReadConfIncluding([]byte(conf), filepath.Join(dir, "slurm.conf"), os.ReadFile)
	if err != nil {
		t.Fatal(err)
	}
	parts, err := c.Partitions(nil)
	if err != nil {
		t.Fatal(err)
	}
	want := partitionSummary(parts)
	got, fatal := runSlurmctldConf(t, ctld, scontrol, dir, conf)
	if fatal != "" || got != want {
		t.Errorf("slurmctld on slurm.conf and its included files: %s%s, ReadConfIncluding %s", got, fatal, want)
	}
	flat, err := c.EditLines(func(int, *ConfLine) ([]string, error) { return nil, nil }, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, fatal = runSlurmctldConf(t, ctld, scontrol, t.TempDir(), strings.ReplaceAll(string(flat), " NodeAddr=127.0.0.1", "")) // it adds NodeAddr
	if fatal != "" || got != want {
		t.Errorf("slurmctld on the one file written: %s%s, want %s", got, fatal, want)
	}
	t.Logf("slurmctld: %s", got)
}
