package slurm

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A topology.conf's Include lines are followed as slurm.conf's are (Slurm's
// topology plugins read topology.conf with s_p_parse_file): relative in the
// topology.conf's directory, absolute as they are, nested, any case; the
// switches are those of the files put together, each naming its file and line.
func TestParseTopologyConfIncluding(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"leaves.conf": "SwitchName=s1 Nodes=n[1-2] # leaf one\nINCLUDE " + filepath.Join(dir, "s2.conf") + "\n",
		"s2.conf":     "SwitchName=s2 Nodes=n[3-4]\n",
		"dup.conf":    "SwitchName=s1 Nodes=n5\n",
		"bad.conf":    "SwitchName=s3 Nodes=n[5-6] Swithces=s1\n",
		"cl.conf":     "Include part-%c.conf\n",
		"sub/x.conf":  "SwitchName=s9 Nodes=n9\n",
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, "topology.conf")
	text := "include leaves.conf\nSwitchName=top Switches=s[1-2]\n"
	whole := "SwitchName=s1 Nodes=n[1-2] # leaf one\nSwitchName=s2 Nodes=n[3-4]\nSwitchName=top Switches=s[1-2]\n"
	got, err := ParseTopologyConfIncluding(context.Background(), strings.NewReader(text), path, path, os.ReadFile)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := ParseTopologyConf(strings.NewReader(whole))
	if err != nil {
		t.Fatal(err)
	}
	if g, w := topoSummary(got.Tree), topoSummary(ref.Tree); g != w || g != "s1:0:n1,n2: s2:0:n3,n4: top:1::s1,s2" {
		t.Errorf("switches %s, the files put together %s", g, w)
	}
	if s := got.Tree.Switches[1]; s.File != filepath.Join(dir, "s2.conf") || s.Line != 1 || got.Tree.Switches[2].File != "" || got.Tree.Switches[2].Line != 2 {
		t.Errorf("s2 on %s line %d, top on %q line %d", s.File, s.Line, got.Tree.Switches[2].File, got.Tree.Switches[2].Line)
	}
	for _, c := range []struct{ text, path, conf, want string }{
		// An error of an included line names its file, and the line it refers to.
		{"Include leaves.conf\nInclude dup.conf\n", path, "", filepath.Join(dir, "dup.conf") + " line 1: switch s1 already defined on " + filepath.Join(dir, "leaves.conf") + " line 1"},
		{"Include bad.conf\n", path, "", filepath.Join(dir, "bad.conf") + " line 1: unknown key \"Swithces\""},
		{"SwitchName=s0 Nodes=n0\nInclude nope.conf\n", path, "", "line 2: Include nope.conf: open " + filepath.Join(dir, "nope.conf") + ": no such file"},
		// %c: topology.conf has no ClusterName (Slurm: the Include fails).
		{"Include cl.conf\n", path, "", filepath.Join(dir, "cl.conf") + " line 1: Include part-%c.conf: %c is the ClusterName, which a topology.conf does not set"},
		// Standard input has no directory for a relative name.
		{"Include leaves.conf\n", "-", "", "line 1: Include leaves.conf: a relative name, read from standard input"},
		// topology.conf away from slurm.conf: 22.05 and 23.02+ read different files.
		{"Include x.conf\n", filepath.Join(dir, "sub", "topology.conf"), path, "line 1: Include x.conf: a relative name in a topology.conf that is not in slurm.conf's directory"},
	} {
		_, err := ParseTopologyConfIncluding(context.Background(), strings.NewReader(c.text), c.path, c.conf, os.ReadFile)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q (%s): %v, want %q", c.text, c.path, err, c.want)
		}
	}
	// From standard input an absolute name is read; the same file given apart
	// from slurm.conf reads its relative names in its own directory when
	// slurm.conf is not given.
	if top, err := ParseTopologyConfIncluding(context.Background(), strings.NewReader("Include "+filepath.Join(dir, "leaves.conf")+"\nSwitchName=top Switches=s[1-2]\n"), "-", "", os.ReadFile); err != nil || topoSummary(top.Tree) != topoSummary(ref.Tree) {
		t.Errorf("absolute from standard input: %v", err)
	}
	if top, err := ParseTopologyConfIncluding(context.Background(), strings.NewReader("Include x.conf\n"), filepath.Join(dir, "sub", "topology.conf"), "", os.ReadFile); err != nil || topoSummary(top.Tree) != "s9:0:n9:" {
		t.Errorf("sub/topology.conf alone: %v", err)
	}
	// Without a way to open files (ParseTopologyConf) an Include is refused.
	if _, err := ParseTopologyConf(strings.NewReader(text)); err == nil || !strings.Contains(err.Error(), "line 1: Include: not followed here") {
		t.Errorf("ParseTopologyConf: %v", err)
	}
	// The --graph and slurm:tree:FILE readers follow them.
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	// (A first line "include FILE" was detected as an edge list: hosts include,
	// leaves.conf, SwitchName=top and Switches=s[1-2].)
	g, _, err := GraphFile{Path: path}.Read()
	if err != nil || g.N() != 4 || g.Vertices() != 7 || g.Name(0) != "n1" {
		t.Errorf("GraphFile: %v %v", g, err)
	}
	top, err := ReadTopologyFile(context.Background(), path)
	if err != nil || topoSummary(top.Tree) != topoSummary(ref.Tree) {
		t.Errorf("ReadTopologyFile: %v", err)
	}
	var ge *GraphFileError
	_, _, err = GraphFile{Path: "-", Stdin: strings.NewReader(text)}.Read()
	if !errors.As(err, &ge) || !strings.Contains(err.Error(), "-: line 1: Include leaves.conf: a relative name, read from standard input") {
		t.Errorf("GraphFile from standard input: %v", err)
	}
}

// Topology.EditLines rewrites a topology.conf as the site laid it out: the
// Include lines kept, each included file under its own path with only the lines
// the edit changes (nested files too), every other line (comments, blank lines,
// the switches left alone) byte for byte; the files read back
// (ConfFiles.ReadTopology) give the edited switches, each naming its file, and
// Changed says which files differ from the site's. A Topology not read from a
// topology.conf has no lines to edit, and the files of a topology.conf are not a
// slurm.conf (ConfFiles.Read refuses them).
func TestTopologyEditLines(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"leaves.conf": "# leaves of rack 1\nSwitchName=s1 Nodes=n[1-2] # leaf one\r\n\nINCLUDE " + filepath.Join(dir, "s2.conf") + "\n",
		"s2.conf":     "SwitchName=s2 Nodes=n[3-4]\n",
		"spare.conf":  "SwitchName=s3 Nodes=m[1-2]\n",
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, "topology.conf")
	text := "# site topology\ninclude leaves.conf\nInclude spare.conf\nSwitchName=top Switches=s[1-3] LinkSpeed=100\n"
	top, err := ParseTopologyConfIncluding(context.Background(), strings.NewReader(text), path, path, os.ReadFile)
	if err != nil {
		t.Fatal(err)
	}
	var seen []string
	out, err := top.EditLines(func(li int, l *ConfLine) ([]string, error) {
		seen = append(seen, l.Where())
		nodes, ok := l.Get("Nodes")
		if !ok || !strings.HasPrefix(nodes, "n") {
			return nil, nil
		}
		return []string{"SwitchName=" + l.Pairs[0].Value + " Nodes=c" + nodes[1:] + " " + l.Comment}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	inc := func(n string) string { return filepath.Join(dir, n) }
	if w := []string{inc("leaves.conf") + " line 2", inc("s2.conf") + " line 1", inc("spare.conf") + " line 1", "line 4"}; strings.Join(seen, ";") != strings.Join(w, ";") {
		t.Errorf("edit saw %q, want %q (every line but the Include lines)", seen, w)
	}
	if string(out.SlurmConf) != text {
		t.Errorf("topology.conf written\n%q\nwant the site's byte for byte\n%q", out.SlurmConf, text)
	}
	want := map[string]struct {
		data    string
		changed bool
	}{
		inc("leaves.conf"): {"# leaves of rack 1\nSwitchName=s1 Nodes=c[1-2] # leaf one\r\n\nINCLUDE " + inc("s2.conf") + "\n", true},
		inc("s2.conf"):     {"SwitchName=s2 Nodes=c[3-4] \n", true},
		inc("spare.conf"):  {files["spare.conf"], false},
	}
	if len(out.Included) != 3 {
		t.Fatalf("included files %+v, want 3", out.Included)
	}
	for _, f := range out.Included {
		w, ok := want[f.Path]
		if !ok || string(f.Data) != w.data || f.Changed != w.changed {
			t.Errorf("%s (Include %s): %q changed %v, want %q changed %v", f.Path, f.Name, f.Data, f.Changed, w.data, w.changed)
		}
	}
	back, err := out.ReadTopology(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if g := topoSummary(back.Tree); g != "s1:0:c1,c2: s2:0:c3,c4: s3:0:m1,m2: top:1::s1,s2,s3" {
		t.Errorf("read back: %s", g)
	}
	if s := back.Tree.Switches[1]; s.File != inc("s2.conf") || s.Line != 1 {
		t.Errorf("s2 read back on %s line %d", s.File, s.Line)
	}
	// Edited again, read back: Changed is against the site's files.
	again, err := back.EditLines(func(int, *ConfLine) ([]string, error) { return nil, nil })
	if err != nil || !again.Included[0].Changed || again.Included[2].Changed {
		t.Errorf("edited again: %v %+v", err, again)
	}
	if _, err := out.Read(); err == nil || !strings.Contains(err.Error(), "ReadTopology") {
		t.Errorf("Read of a topology.conf's files: %v", err)
	}
	// Without Include lines followed (ParseTopologyConf): one file.
	one, err := ParseTopologyConf(strings.NewReader("SwitchName=s1 Nodes=n[1-2]\n"))
	if err != nil {
		t.Fatal(err)
	}
	o, err := one.EditLines(func(int, *ConfLine) ([]string, error) { return []string{"SwitchName=s1 Nodes=c[1-2]"}, nil })
	if err != nil || string(o.SlurmConf) != "SwitchName=s1 Nodes=c[1-2]\n" || o.Included != nil {
		t.Errorf("one file: %v %+v", err, o)
	}
	if b, err := o.ReadTopology(context.Background()); err != nil || topoSummary(b.Tree) != "s1:0:c1,c2:" {
		t.Errorf("one file read back: %v", err)
	}
	yml, err := ReadTopologyFile(context.Background(), "../topo/testdata/topology.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := yml.EditLines(func(int, *ConfLine) ([]string, error) { return nil, nil }); err == nil || !strings.Contains(err.Error(), "not read from a topology.conf") {
		t.Errorf("EditLines of a topology.yaml: %v", err)
	}
	c, err := ReadConf([]byte("NodeName=n1\n"))
	if err != nil {
		t.Fatal(err)
	}
	cf, err := c.EditLines(func(int, *ConfLine) ([]string, error) { return nil, nil }, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cf.ReadTopology(context.Background()); err == nil {
		t.Errorf("ReadTopology of a slurm.conf's files: no error")
	}
}
