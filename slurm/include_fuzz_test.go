package slurm

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"slices"
	"strings"
	"testing"
)

// fuzzFiles are the files the Include fuzz targets' open reads: two files of the
// input, a third that is the two put together, all in /x beside the file read
// first (/x/slurm.conf or /x/topology.conf). It counts the files opened.
type fuzzFiles struct {
	files map[string]string
	opens int
}

func newFuzzFiles(a, b string) *fuzzFiles {
	return &fuzzFiles{files: map[string]string{"/x/a.conf": a, "/x/b.conf": b, "/x/c.conf": a + b}}
}

func (f *fuzzFiles) open(name string) ([]byte, error) {
	f.opens++
	s, ok := f.files[name]
	if !ok {
		return nil, fs.ErrNotExist
	}
	return []byte(s), nil
}

// physLines is how many lines a file of s holds (a last line without its end
// counts).
func physLines(s string) int {
	n := strings.Count(s, "\n")
	if s != "" && !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

// checkNamesLine fails unless err is a *ConfError naming a line of the file it
// names (first, the file read first, for File "").
func (f *fuzzFiles) checkNamesLine(t *testing.T, first string, err error) {
	t.Helper()
	var ce *ConfError
	if !errors.As(err, &ce) || ce.Line < 1 {
		t.Fatalf("an error that names no line: %v", err)
	}
	src := first
	if ce.File != "" {
		var ok bool
		if src, ok = f.files[ce.File]; !ok {
			t.Fatalf("an error naming a file not read: %v", err)
		}
	}
	if ce.Line > max(physLines(src), 1) {
		t.Fatalf("an error naming line %d of a file of %d lines: %v", ce.Line, physLines(src), err)
	}
}

// FuzzReadConfIncluding fuzzes the Include lines ReadConfIncluding follows: a
// slurm.conf and two files it may include (a.conf, b.conf, and c.conf, the two
// together), each of which may include the others or itself, nested. An error is
// a *ConfError naming a line of the file it names; at most MaxIncludes files are
// opened; the slurm.conf's own lines are those ReadConf reads (which does not
// follow Include lines); the files an edit of no line writes (EditLines) are the
// files read, unchanged, and read back (ConfFiles.Read) to the same lines; the
// nodes and partitions read or an error naming a line.
func FuzzReadConfIncluding(f *testing.F) {
	f.Add("NodeName=n[1-2]\nInclude a.conf\n", "Include b.conf\nNodeName=a1\n", "PartitionName=p Nodes=ALL\n")
	f.Add("ClusterName=C\ninclude /x/%c.conf\n", "NodeName=x\n", "")
	f.Add("Include a.conf\nInclude a.conf\n", "Include b.conf\nInclude b.conf\n", "NodeName=b1\n")
	f.Add("Include a.conf\n", "Include a.conf\n", "")
	f.Add("Include c.conf\n", "NodeName=n1 \\\n", "\\\nCPUs=2 # c\n")
	f.Add("Include b.conf\n", "", "Include slurm.conf\n")
	f.Add("NodeName=DEFAULT CPUs=4\nInclude a.conf\nPartitionName=p Nodes=n[1-3] Default=YES\n", "NodeName=n[1-3]\n", "")
	f.Fuzz(func(t *testing.T, conf, a, b string) {
		files := newFuzzFiles(a, b)
		c, err := ReadConfIncluding([]byte(conf), "/x/slurm.conf", files.open)
		if files.opens > MaxIncludes+1 {
			t.Fatalf("%d files opened, more than MaxIncludes", files.opens)
		}
		if err != nil {
			files.checkNamesLine(t, conf, err)
			return
		}
		// The slurm.conf's own lines, Include lines too, are ReadConf's.
		plain, err := ReadConf([]byte(conf))
		if err != nil {
			t.Fatalf("read with its Include lines followed, refused by ReadConf: %v", err)
		}
		var own []ConfLine
		for _, l := range c.Lines {
			if l.File == "" {
				own = append(own, l)
			}
		}
		if !sameConfLines(own, plain.Lines) {
			t.Fatalf("the slurm.conf's lines differ from ReadConf's:\n%+v\n%+v", own, plain.Lines)
		}
		if plain.Includes != len(c.Included) && len(c.Included) > 0 && plain.Includes == 0 {
			t.Fatalf("%d files included, ReadConf counts no Include line", len(c.Included))
		}
		// An edit of no line writes the files read, and they read back the same.
		cf, err := c.EditLines(func(int, *ConfLine) ([]string, error) { return nil, nil }, nil)
		if err != nil {
			t.Fatalf("an edit of no line: %v", err)
		}
		if string(cf.SlurmConf) != conf {
			t.Fatalf("an edit of no line changed the slurm.conf: %q", cf.SlurmConf)
		}
		for _, x := range cf.Included {
			if x.Changed || string(x.Data) != files.files[x.Path] {
				t.Fatalf("an edit of no line changed %s (changed %v): %q", x.Path, x.Changed, x.Data)
			}
		}
		back, err := cf.Read()
		if err != nil || !sameConfLines(back.Lines, c.Lines) || !slices.Equal(back.Included, c.Included) {
			t.Fatalf("the files written read back otherwise: %v", err)
		}
		ns, err := c.Nodes()
		if err == nil {
			_, err = c.Partitions(ns)
		}
		if err != nil {
			files.checkNamesLine(t, conf, err)
		}
	})
}

// sameConfLines says two readings hold the same lines: files, places, pairs,
// comments.
func sameConfLines(a, b []ConfLine) bool {
	return slices.EqualFunc(a, b, func(x, y ConfLine) bool {
		return x.File == y.File && x.First == y.First && x.Last == y.Last && x.Comment == y.Comment && slices.Equal(x.Pairs, y.Pairs)
	})
}

// FuzzReadTopologyIncluding fuzzes what ReadTopologyFile reads (the slurm:tree
// and slurm:block emulators' files): a topology.conf or topology.yaml told apart
// by content, a topology.conf's Include lines followed (a.conf, b.conf, c.conf as
// FuzzReadConfIncluding's). An error of a topology.conf's lines is a *ConfError
// naming a line of its file; at most MaxIncludes files are opened; a file read
// with its Include lines followed is the file with each Include line replaced by
// the file it names, read by ParseTopologyConf (when no file ends in a '\', which
// continues a line across a file's end only in the text put together), the same
// switches, blocks or rings.
func FuzzReadTopologyIncluding(f *testing.F) {
	f.Add("SwitchName=top Switches=s[1-2]\nInclude a.conf\n", "SwitchName=s1 Nodes=n[1-2]\nInclude b.conf\n", "SwitchName=s2 Nodes=n[3-4]\n")
	f.Add("Include c.conf\nBlockSizes=2,4\n", "BlockName=b1 Nodes=n[1-2]\n", "BlockName=b2 Nodes=n[3-4]\n")
	f.Add("Include a.conf\n", "Include a.conf\n", "")
	f.Add("include /x/b.conf\n", "", "SwitchName=s Nodes=n1 # c\n")
	f.Add("RingName=r0 Nodes=n[1-4]\nInclude a.conf\n", "RingName=r1 Nodes=n[8,6,4]\nInclude b.conf\n", "RingName=r2 Nodes=n[2-3]\n")
	f.Add("- topology: t\n  cluster_default: true\n  tree:\n    switches:\n      - switch: s1\n        children: n[1-2]\n", "", "")
	f.Fuzz(func(t *testing.T, top, a, b string) {
		files := newFuzzFiles(a, b)
		got, err := readTopology(context.Background(), strings.NewReader(top), "", topologyIncluder("/x/topology.conf", "", files.open))
		if files.opens > MaxIncludes+1 {
			t.Fatalf("%d files opened, more than MaxIncludes", files.opens)
		}
		if err != nil {
			var ce *ConfError
			if errors.As(err, &ce) {
				files.checkNamesLine(t, top, err)
			} else if err.Error() == "" {
				t.Fatal("an empty error")
			}
			return
		}
		if got.conf == nil || len(got.conf.Included) == 0 {
			return // a topology.yaml, or no Include line
		}
		// The text put together: each followed Include line replaced by its file.
		var joined bytes.Buffer
		var put func(fi int) bool
		put = func(fi int) bool {
			file := got.conf.files[fi]
			if strings.HasSuffix(strings.TrimRight(string(file.data), "\r\n"), "\\") {
				return false
			}
			at := map[int]int{} // first physical line of an Include line -> its file
			for _, l := range got.conf.Lines {
				if l.file == fi && l.inc > 0 {
					at[l.First] = l.inc
				}
			}
			for i, raw := range file.raw {
				if inc, ok := at[i+1]; ok {
					if !put(inc) {
						return false
					}
					continue
				}
				joined.WriteString(raw)
				if !strings.HasSuffix(raw, "\n") {
					joined.WriteByte('\n')
				}
			}
			return true
		}
		if !put(0) {
			return
		}
		want, err := ParseTopologyConf(bytes.NewReader(joined.Bytes()))
		if err != nil {
			t.Fatalf("read with its Include lines followed, but the text put together is refused: %v\n%q", err, joined.Bytes())
		}
		if !sameTopology(got, want) {
			t.Fatalf("the topology read with its Include lines followed differs from the text put together's:\n%q", joined.Bytes())
		}
	})
}

// sameTopology says two topology.conf readings hold the same switches or
// blocks (names, nodes, children, block sizes).
func sameTopology(a, b *Topology) bool {
	switch {
	case a.Tree != nil && b.Tree != nil:
		return slices.EqualFunc(a.Tree.Switches, b.Tree.Switches, func(x, y Switch) bool {
			return x.Name == y.Name && slices.Equal(x.Nodes, y.Nodes) && slices.Equal(x.Children, y.Children) && x.Level == y.Level
		})
	case a.Blocks != nil && b.Blocks != nil:
		return slices.Equal(a.Blocks.Sizes, b.Blocks.Sizes) && a.Blocks.Base == b.Blocks.Base && a.Blocks.Levels == b.Blocks.Levels && slices.EqualFunc(a.Blocks.Blocks, b.Blocks.Blocks, func(x, y Block) bool {
			return x.Name == y.Name && slices.Equal(x.Nodes, y.Nodes)
		})
	case a.Rings != nil && b.Rings != nil:
		return ringsSummary(a.Rings) == ringsSummary(b.Rings)
	}
	return a.Tree == nil && b.Tree == nil && a.Blocks == nil && b.Blocks == nil && a.Rings == nil && b.Rings == nil
}
