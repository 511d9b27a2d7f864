package slurm

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

func TestParseTree(t *testing.T) {
	// An unbalanced tree, root first: "top" is over a leaf and a level-1 switch, so
	// its level is 2 (one more than its highest child), and "mid" is listed by two
	// switches (the last line wins its parent field).
	conf := `# comment
SwitchName=top Switches=mid,l3 LinkSpeed=10
switchname=l1 nodes=n[1-2]   # keys in any case
SwitchName=l2 Nodes=n3,n[5-4]
SwitchName=mid Switches=l[1-2]
SwitchName=l3 Nodes=n6
SwitchName=alt Switches=mid
`
	_, err := ParseTree(strings.NewReader(conf))
	if err == nil || !strings.Contains(err.Error(), "line 4") {
		t.Fatalf("reversed range n[5-4]: got %v, want an error naming line 4", err)
	}
	conf = strings.Replace(conf, "n[5-4]", "n[4-5]", 1)
	tr, err := ParseTree(strings.NewReader(conf))
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		name   string
		level  int
		parent string
	}{{"top", 2, "top"}, {"l1", 0, "mid"}, {"l2", 0, "mid"}, {"mid", 1, "alt"}, {"l3", 0, "top"}, {"alt", 2, "top"}}
	if len(tr.Switches) != len(want) {
		t.Fatalf("%d switches, want %d", len(tr.Switches), len(want))
	}
	for i, w := range want {
		s := tr.Switches[i]
		if s.Name != w.name || s.Level != w.level || tr.Switches[s.Parent].Name != w.parent {
			t.Errorf("switch %d: %s level %d parent %s; want %s level %d parent %s", i, s.Name, s.Level, tr.Switches[s.Parent].Name, w.name, w.level, w.parent)
		}
	}
	if got := tr.Switches[2].Nodes; !slices.Equal(got, []string{"n3", "n4", "n5"}) {
		t.Errorf("l2 nodes %v", got)
	}
	// Hops along Switches= links: l1 - mid - top - l3 is 3; alt - mid - l2 is 2.
	d := tr.Distances(1, nil)
	if d[4] != 3 || d[1] != 0 || d[3] != 1 || d[5] != 2 {
		t.Errorf("distances from l1: %v", d)
	}
	if i, ok := tr.Index("l3"); !ok || i != 4 {
		t.Errorf("Index(l3) = %d, %v", i, ok)
	}
	// A separate tree is not reachable.
	tr2, err := ParseTree(strings.NewReader("SwitchName=a Nodes=x1\nSwitchName=b Nodes=x2\n"))
	if err != nil {
		t.Fatal(err)
	}
	if d := tr2.Distances(0, nil); !slices.Equal(d, []int{0, -1}) {
		t.Errorf("two roots: distances %v, want [0 -1]", d)
	}
}

func TestParseTreeErrors(t *testing.T) {
	for _, c := range []struct{ conf, want string }{
		{"", "no SwitchName=, BlockName= or RingName= lines"},
		{"SwitchName=a Nodes=n1\nSwitchName=a Nodes=n2\n", "already defined on line 1"},
		{"SwitchName=a Nodes=n1 Switches=b\nSwitchName=b Nodes=n2\n", "both Nodes= and Switches="},
		{"SwitchName=a LinkSpeed=3\n", "neither"},
		{"SwitchName=a Switches=b\nSwitchName=c Nodes=n1\n", `invalid child switch "b"`},
		{"SwitchName=a Switches=a\nSwitchName=c Nodes=n1\n", `invalid child switch "a"`},
		{"SwitchName=a Switches=b\nSwitchName=b Switches=a\nSwitchName=c Nodes=n1\n", "cycle"},
		{"SwitchName=a Nodes=n1 Color=red\n", `unknown key "Color"`},
		{"BlockName=b1 Nodes=n[1-4]\n", "a topology/block configuration, not topology/tree"},
		{"SwitchName=a Nodes=n1 BlockSizes=4\n", "line 1: BlockSizes= is topology/block"},
		{"SwitchName=a Nodes=n1 LinkSpeed=fast\n", "line 1: LinkSpeed=fast: want an unsigned integer"},
		{"SwitchName=a Switches=b\nSwitchName=b Switches=a\n", "no switch has nodes"},
		{"SwitchName=a Nodes=n1 SwitchName=b\n", "line 1: two SwitchName= on one line"},
		{"Nodes=n1\n", "line 1: a line starts with SwitchName="},
		{"SwitchName=a Nodes\n", "not KEY=VALUE"},
		{"SwitchName=a Nodes=n[1-2\n", "line 1: Nodes="},
	} {
		_, err := ParseTree(strings.NewReader(c.conf))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want an error containing %q", c.conf, err, c.want)
		}
	}
}

func FuzzParseTree(f *testing.F) {
	f.Add("SwitchName=s1 Nodes=n[1-4]\nSwitchName=s2 Switches=s1\n")
	f.Add("SwitchName=a Switches=b\nSwitchName=b Switches=a\n")
	f.Fuzz(func(t *testing.T, conf string) {
		tr, err := ParseTree(strings.NewReader(conf))
		if err != nil {
			return
		}
		for i, s := range tr.Switches {
			if s.Level < 0 || s.Parent < 0 || s.Parent >= len(tr.Switches) {
				t.Fatalf("switch %d: level %d parent %d", i, s.Level, s.Parent)
			}
			for _, c := range s.Children {
				if tr.Switches[c].Level >= s.Level {
					t.Fatalf("child %d of %d at level %d >= %d", c, i, tr.Switches[c].Level, s.Level)
				}
			}
		}
		tr.Distances(0, nil)
		// What was read is written back (WriteConf) as a file that reads as the same
		// tree: names, leaves' nodes in order, children, levels and parents.
		var buf bytes.Buffer
		if err := tr.WriteConf(&buf); err != nil {
			t.Fatalf("%q parsed but not written: %v", conf, err)
		}
		written := buf.String()
		back, err := ParseTree(&buf)
		if err != nil {
			t.Fatalf("%q written as %q, which does not read back: %v", conf, written, err)
		}
		if len(back.Switches) != len(tr.Switches) {
			t.Fatalf("%q written as %q: %d switches, want %d", conf, written, len(back.Switches), len(tr.Switches))
		}
		for i, s := range tr.Switches {
			b := back.Switches[i]
			if b.Name != s.Name || !slices.Equal(b.Nodes, s.Nodes) || !slices.Equal(b.Children, s.Children) ||
				b.Level != s.Level || b.Parent != s.Parent || b.IsRoot != s.IsRoot {
				t.Fatalf("%q written as %q: switch %d reads back as %+v, want %+v", conf, written, i, b, s)
			}
		}
	})
}
