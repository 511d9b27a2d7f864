package sim

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/curves"
)

// TestResolveErrors: Spec.Resolve as a library caller meets it. Mistakes in the
// fields are *FieldError values whose text names the fields ({Field} written as
// the field's own name); files that cannot be used are *FileError values naming
// the field and the file; a file that is not there is the file system's error.
func TestResolveErrors(t *testing.T) {
	dir := t.TempDir()
	dup := filepath.Join(dir, "dup.txt")
	os.WriteFile(dup, []byte("n1\nn2\nn1\nn3\n"), 0o644)
	badRank := filepath.Join(dir, "bad.pairs")
	os.WriteFile(badRank, []byte("0 0\n1 0\n"), 0o644)
	field := func(f string) func(error) bool {
		return func(err error) bool { var fe *FieldError; return errors.As(err, &fe) && fe.Field == f }
	}
	file := func(f string) func(error) bool {
		return func(err error) bool { var fe *FileError; return errors.As(err, &fe) && fe.Field == f }
	}
	for _, c := range []struct {
		name string
		s    Spec
		is   func(error) bool
		want string
	}{
		{"both machines", Spec{MachineSpec: "mesh:2x2", GraphFile: "g.txt"}, field("GraphFile"), "GraphFile: give either MachineSpec or GraphFile, not both"},
		{"format without graph", Spec{MachineSpec: "mesh:2x2", GraphFormat: "edges"}, field("GraphFormat"), "GraphFormat: goes with GraphFile, not MachineSpec"},
		{"unknown format", Spec{GraphFile: "g.txt", GraphFormat: "dot"}, field("GraphFormat"), `GraphFormat "dot": want one of`},
		{"two host sources", Spec{MachineSpec: "mesh:2x2", HostsFile: dup, Hostlist: "n[1-4]"}, field("HostsFile"), "HostsFile and Hostlist both name the hosts"},
		{"hosts given twice", Spec{MachineSpec: "mesh:2x2", Hosts: []string{"a", "b", "c", "d"}, Hostlist: "n[1-4]"}, field("Hosts"), "HostsFile or Hostlist names them again"},
		{"hostlist with a blank", Spec{MachineSpec: "mesh:2x2", Hostlist: "n[1-2] n[3-4]"}, field("Hostlist"), "one hostlist expression, without spaces"},
		{"span given twice", Spec{MachineSpec: "mesh:2x2", SpanCurve: "snake", SpanOrder: curves.Order{0, 1, 2, 3}}, field("SpanCurve"), "SpanOrder is one: give one"},
		{"no machine", Spec{}, field("Machine"), "Machine: required"},
		{"bad machine", Spec{MachineSpec: "mesh:0x2"}, field("MachineSpec"), "MachineSpec: "},
		{"unknown curve", Spec{MachineSpec: "mesh:2x2", SpanCurve: "nosuch"}, field("SpanCurve"), "SpanCurve: "},
		{"hosts short", Spec{MachineSpec: "mesh:2x2", Hostlist: "n[1-3]"}, file("Hostlist"), "Hostlist n[1-3]: 3 host names for a machine of 4 nodes"},
		{"bad hostlist", Spec{MachineSpec: "mesh:2x2", Hostlist: "n[3-1]"}, file("Hostlist"), "Hostlist n[3-1]: "},
		{"a name twice", Spec{MachineSpec: "mesh:2x2", HostsFile: dup}, file("HostsFile"), "HostsFile " + dup + ": "},
		{"bad ranking", Spec{MachineSpec: "mesh:1x2", SpanCurve: badRank}, file("SpanCurve"), "SpanCurve: "},
		{"no hosts file", Spec{MachineSpec: "mesh:2x2", HostsFile: filepath.Join(dir, "none.txt")}, func(err error) bool { return errors.Is(err, fs.ErrNotExist) }, "none.txt"},
		{"no graph file", Spec{GraphFile: filepath.Join(dir, "none.conf")}, func(err error) bool { return errors.Is(err, fs.ErrNotExist) }, "none.conf"},
	} {
		s := c.s
		_, err := s.Resolve()
		if err == nil || !c.is(err) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %T %v, want %q", c.name, err, err, c.want)
		}
	}
}

// TestResolveReadsOnce: Resolve reads the files named into the fields a replay
// runs with and clears the names, so that resolving again (several load factors)
// reads nothing; "-" reads Stdin; a topology file's warnings come back naming the
// field and the file.
func TestResolveReadsOnce(t *testing.T) {
	s := Spec{MachineSpec: "mesh:2x2", HostsFile: "-", Stdin: strings.NewReader("h[1-3]\nz\n"), SpanCurve: "snake"}
	ws, err := s.Resolve()
	if err != nil || len(ws) != 0 {
		t.Fatalf("%v %v", ws, err)
	}
	if s.Machine == nil || s.Machine.N() != 4 || !slices.Equal(s.Hosts, []string{"h1", "h2", "h3", "z"}) || s.HostsFile != "" || s.MachineSpec != "" {
		t.Fatalf("resolved %+v", s)
	}
	if s.SpanName != "snake" || s.SpanCurve != "" || len(s.SpanOrder) != 4 {
		t.Fatalf("span %q %q %v", s.SpanName, s.SpanCurve, s.SpanOrder)
	}
	if _, err := s.Resolve(); err != nil || len(s.Hosts) != 4 {
		t.Fatalf("second Resolve: %v", err)
	}
	dir := t.TempDir()
	yml := filepath.Join(dir, "t.yaml")
	os.WriteFile(yml, []byte("- topology: a\n  tree:\n    switches:\n      - switch: s1\n        nodes: n[1-2]\n        children: s2\n      - switch: s2\n        nodes: n[3-4]\n      - switch: top\n        children: s[1-2]\n"), 0o644)
	g := Spec{GraphFile: yml}
	ws, err = g.Resolve()
	if err != nil || len(ws) != 1 || ws[0].Field != "GraphFile" || ws[0].File != yml || !strings.Contains(ws[0].Text, "switch s1 has nodes and children") {
		t.Fatalf("warnings %+v, %v", ws, err)
	}
	if got := ws[0].String(); got != yml+": "+ws[0].Text {
		t.Errorf("Warning.String() = %q", got)
	}
	if g.Machine == nil || g.Machine.N() != 4 || g.GraphFile != "" {
		t.Errorf("graph not resolved: %+v", g)
	}
}
