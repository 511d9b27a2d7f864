package slurm

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/internal/slurmtest"
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
		{"Include self.conf\n", "self.conf line 1: Include self.conf: the file includes itself (" + filepath.Join(dir, "self.conf") + " includes " + filepath.Join(dir, "self.conf")},
		{"\nInclude slurm.conf\n", "line 2: Include slurm.conf: the file includes itself (" + path + " includes " + path},
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
	// No directory (standard input, or no name): a relative name is refused,
	// never read in the working directory.
	for p, w := range map[string]string{"-": "line 1: Include nodes.conf: a relative name, read from standard input", "": "line 1: Include nodes.conf: a relative name, in a file given without its name"} {
		if _, err := ReadConfIncluding([]byte("Include nodes.conf\n"), p, os.ReadFile); err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("path %q: %v, want %q", p, err, w)
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

// put writes the files of an edited configuration as plan's apply.txt installs
// them: slurm.conf in dir, each changed included file at the place Slurm reads
// it (a relative name in dir, an absolute one at its name); unchanged files are
// not written. It returns the text Slurm reads: the files put together, each
// Include line replaced by its file.
func put(t *testing.T, f *ConfFiles, dir string) string {
	t.Helper()
	for _, x := range f.Included {
		if !x.Changed {
			continue
		}
		to := x.Name
		if !filepath.IsAbs(to) {
			to = filepath.Join(dir, to)
		}
		if err := os.WriteFile(to, x.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "slurm.conf"), f.SlurmConf, 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := ReadConfIncluding(f.SlurmConf, filepath.Join(dir, "slurm.conf"), os.ReadFile)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	var walk func(fi int)
	walk = func(fi int) {
		incAt := map[int]int{} // physical line -> included file
		for _, l := range c.Lines {
			if l.file == fi && l.inc > 0 {
				incAt[l.First-1] = l.inc
			}
		}
		for i, raw := range c.files[fi].raw {
			if k, ok := incAt[i]; ok {
				walk(k)
				continue
			}
			b.WriteString(raw)
		}
	}
	walk(0)
	return b.String()
}

// An edit of a Conf read with its included files writes each file as its own:
// slurm.conf with its Include lines as they were, each included file with its
// own lines (edited), Changed only where the edit changed it; added lines end
// slurm.conf. Put where Slurm reads them, the files are the files put together
// with the same edit, and read back (ConfFiles.Read) give the edited nodes.
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
	weigh := func(c *Conf) *ConfFiles {
		t.Helper()
		nodes, err := c.Nodes()
		if err != nil {
			t.Fatal(err)
		}
		out, err := c.Edit(nodes, func(l *ConfLine, ns []ConfNode) ([]string, error) {
			if ns[0].Name == "b1" {
				return nil, nil // nodes.conf line 4 kept
			}
			s, err := SplitNodeLine(l, ns, [2]int{0, len(ns)}, []ConfPair{{Key: "Weight", Value: "42"}})
			return []string{s}, err
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	got, want := weigh(c), weigh(ref)
	if string(got.SlurmConf) != conf {
		t.Errorf("slurm.conf written:\n%s\nwant it unchanged (its Include lines kept):\n%s", got.SlurmConf, conf)
	}
	var names []string
	for _, f := range got.Included {
		names = append(names, fmt.Sprintf("%s %s changed=%v", f.Path, f.Name, f.Changed))
	}
	wantNames := []string{
		filepath.Join(dir, "nodes.conf") + " nodes.conf changed=true",
		filepath.Join(dir, "racks.conf") + " " + filepath.Join(dir, "racks.conf") + " changed=true",
		filepath.Join(dir, "part-sample.conf") + " " + filepath.Join(dir, "part-sample.conf") + " changed=false",
	}
	if !slices.Equal(names, wantNames) {
		t.Errorf("included files written:\n%s\nwant\n%s", strings.Join(names, "\n"), strings.Join(wantNames, "\n"))
	}
	if w := "NodeName=b[1-2] Weight=3 NodeAddr=127.0.0.1\n"; !strings.Contains(string(got.Included[0].Data), w) {
		t.Errorf("nodes.conf written:\n%s\nline 4 not kept byte for byte", got.Included[0].Data)
	}
	back, err := got.Read()
	if err != nil {
		t.Fatal(err)
	}
	if ns, err := back.Nodes(); err != nil || len(ns) != 8 || ns[0].Weight != 42 || ns[4].Weight != 3 || ns[7].Weight != 42 || ns[7].File != filepath.Join(dir, "racks.conf") {
		t.Errorf("read back: %+v %v", ns, err)
	}
	out := t.TempDir()
	if all := put(t, got, out); all != string(want.SlurmConf) {
		t.Errorf("the files written, put together:\n%s\nthe files put together, edited:\n%s", all, want.SlurmConf)
	}
	// Added lines end slurm.conf; the included files are unchanged.
	added, err := c.EditLines(func(int, *ConfLine) ([]string, error) { return nil, nil }, []string{"TopologyPlugin=topology/flat"})
	if err != nil {
		t.Fatal(err)
	}
	if string(added.SlurmConf) != conf+"TopologyPlugin=topology/flat\n" || slices.ContainsFunc(added.Included, func(f IncludedFile) bool { return f.Changed }) {
		t.Errorf("added: slurm.conf\n%s\nincluded %+v", added.SlurmConf, added.Included)
	}
	// A file included twice whose readings an edit changes differently.
	twice, err := ReadConfIncluding([]byte("Include racks.conf\nInclude racks.conf\n"), filepath.Join(dir, "slurm.conf"), func(string) ([]byte, error) { return []byte("SwitchType=switch/none\n"), nil })
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	_, err = twice.EditLines(func(int, *ConfLine) ([]string, error) {
		n++
		if n == 1 {
			return []string{"SwitchType=switch/x"}, nil
		}
		return nil, nil
	}, nil)
	if err == nil || !strings.Contains(err.Error(), "included twice") {
		t.Errorf("a file included twice, edited differently: %v", err)
	}
}

// slurmctld reads the site's files (slurm.conf and its included files, as
// ReadConfIncluding does) and the files an edit writes, each put where Slurm
// reads it: the partitions ReadConfIncluding reads. The edit changes the
// partitions of the included part-%c.conf (absolute name) and the weights of
// nodes.conf (relative), so slurmctld reading one file, or the site's files
// unchanged, would list other partitions. Not -short; needs root and slurmctld
// (Debian's 22.05 on PATH; 26.05 in $PROCALLOC_SLURM_NEW, default
// /opt/slurm-new, when built).
func TestReadConfIncludingOnSlurmctld(t *testing.T) {
	slurms := slurmtest.NeedCtlds(t, "Include lines")
	for _, s := range slurms {
		dir, conf, _ := includeSite(t)
		// runSlurmctldConf appends ClusterName=t: the Include of part-%c.conf is read
		// before it, with Sample. TopologyPlugin=topology/tree needs a topology.conf:
		// racks.conf says topology/none (22.05; 26.05 reads it as topology/flat) here.
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
		got, fatal := slurmtest.SlurmctldPartitions(t, s.Slurmctld, s.Scontrol, dir, conf)
		if fatal != "" || got != want {
			t.Errorf("%s: slurmctld on slurm.conf and its included files: %s%s, ReadConfIncluding %s", s.Name, got, fatal, want)
		}
		nodes, err := c.Nodes()
		if err != nil {
			t.Fatal(err)
		}
		files, err := c.Edit(nodes, func(l *ConfLine, ns []ConfNode) ([]string, error) {
			s, err := SplitNodeLine(l, ns, [2]int{0, len(ns)}, []ConfPair{{Key: "Weight", Value: "7"}})
			return []string{s}, err
		})
		if err != nil {
			t.Fatal(err)
		}
		c2, err := files.Read()
		if err != nil {
			t.Fatal(err)
		}
		files, err = c2.EditLines(func(_ int, l *ConfLine) ([]string, error) {
			if l.Kind() == "partitionname" && l.Pairs[0].Value == "b" {
				return []string{"PartitionName=b Nodes=b1,c2"}, nil
			}
			return nil, nil
		}, nil)
		if err != nil {
			t.Fatal(err)
		}
		var changed []string
		for _, f := range files.Included {
			if f.Changed {
				changed = append(changed, filepath.Base(f.Path))
			}
		}
		if strings.Join(changed, " ") != "nodes.conf racks.conf part-sample.conf" || string(files.SlurmConf) != conf {
			t.Fatalf("%s: changed %q; slurm.conf\n%s", s.Name, changed, files.SlurmConf)
		}
		out := t.TempDir()
		put(t, files, out)
		written, err := ReadConfIncluding(files.SlurmConf, filepath.Join(out, "slurm.conf"), os.ReadFile)
		if err != nil {
			t.Fatal(err)
		}
		wparts, err := written.Partitions(nil)
		if err != nil {
			t.Fatal(err)
		}
		want = partitionSummary(wparts)
		got, fatal = slurmtest.SlurmctldPartitions(t, s.Slurmctld, s.Scontrol, out, string(files.SlurmConf))
		if fatal != "" || got != want || want != "all=a[1-4],b[1-2],c[1-2] b=b1,c2" {
			t.Errorf("%s: slurmctld on the files written: %s%s, ReadConfIncluding %s, want all=a[1-4],b[1-2],c[1-2] b=b1,c2", s.Name, got, fatal, want)
		}
		t.Logf("slurmctld %s: site %s; written %s", s.Name, partitionSummary(parts), got)
	}
}

// Include lines are followed within bounds: sixteen small files, each including
// the next four times, were 4^15 readings (opens without end, memory growing;
// found by the twenty-seventh round's search for inputs that explode); they stop
// at MaxIncludes readings with an error naming the Include line. A chain of
// distinct files deeper than MaxIncludeDepth is refused as deep, and files of
// more than MaxIncludedBytes in all as too large, each after a bounded number of
// readings.
func TestReadConfIncludingBounded(t *testing.T) {
	chain := func(depth, times int, last string) map[string][]byte {
		files := map[string][]byte{}
		for d := range depth {
			files[fmt.Sprintf("/x/a%d.conf", d)] = []byte(strings.Repeat(fmt.Sprintf("Include a%d.conf\n", d+1), times))
		}
		files[fmt.Sprintf("/x/a%d.conf", depth)] = []byte(last)
		return files
	}
	read := func(files map[string][]byte) (int, error) {
		opens := 0
		_, err := ReadConfIncluding(files["/x/a0.conf"], "/x/slurm.conf", func(name string) ([]byte, error) {
			if opens++; opens > 3*MaxIncludes {
				return nil, fmt.Errorf("opened %d files, no end in sight", opens)
			}
			b, ok := files[name]
			if !ok {
				return nil, fmt.Errorf("%s: no such file", name)
			}
			return b, nil
		})
		return opens, err
	}
	for _, c := range []struct {
		what  string
		files map[string][]byte
		want  string
		opens int
	}{
		{"4 times 16 deep", chain(16, 4, "NodeName=n1\n"), fmt.Sprintf("more than %d Include lines followed in all", MaxIncludes), MaxIncludes},
		{"2 times 16 deep", chain(16, 2, "NodeName=n1\n"), fmt.Sprintf("more than %d Include lines followed in all", MaxIncludes), MaxIncludes},
		{"17 deep", chain(17, 1, "NodeName=n1\n"), "Include lines nested more than 16 deep", 16},
		{"large", chain(2, 5, strings.Repeat("#", 3<<20)), "the included files hold more than 64 MiB in all", 5 + 25},
	} {
		opens, err := read(c.files)
		var ce *ConfError
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.As(err, &ce) || ce.Line < 1 {
			t.Errorf("%s: %v, want a *ConfError naming a line with %q", c.what, err, c.want)
		}
		if opens > c.opens+1 {
			t.Errorf("%s: %d files opened, want at most %d", c.what, opens, c.opens+1)
		}
	}
	// Within the bounds, a file included several times is read each time.
	files := chain(3, 4, "NodeName=n1\n")
	c, err := ReadConfIncluding(files["/x/a0.conf"], "/x/slurm.conf", func(name string) ([]byte, error) { return files[name], nil })
	if err != nil || len(c.Included) != 4+16+64 {
		t.Fatalf("4 times 3 deep: %v, %d files read, want 84", err, len(c.Included))
	}
}
