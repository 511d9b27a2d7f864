package slurm

import "testing"

// ConfLine.Where and ConfError name a line as LineRef does, in the forms they
// always had: "line N" in the file read, "FILE line N" in an included file.
func TestConfLinesNamedByLineRef(t *testing.T) {
	for _, c := range []struct {
		file  string
		line  int
		where string
	}{{"", 1, "line 1"}, {"", 12, "line 12"}, {"inc.conf", 3, "inc.conf line 3"}, {"dir/ü b.conf", 40, "dir/ü b.conf line 40"}} {
		l := ConfLine{File: c.file, First: c.line}
		if got := l.Where(); got != c.where || got != LineRef(c.file, c.line) {
			t.Errorf("ConfLine{%q, %d}.Where() = %q, want %q", c.file, c.line, got, c.where)
		}
		e := &ConfError{File: c.file, Line: c.line, Msg: "unknown key X="}
		if got, want := e.Error(), c.where+": unknown key X="; got != want {
			t.Errorf("ConfError{%q, %d} = %q, want %q", c.file, c.line, got, want)
		}
	}
}
