package sweep

import (
	"strings"
	"testing"
)

// A sweep file with 100,000 wrong entries lists MaxTypeErrors of them and counts
// the rest; a value of a megabyte is quoted clipped.
func TestParseHugeSweepErrors(t *testing.T) {
	head := "name: b\ntraces: [t.swf]\nmachines: [mesh:4x4]\nallocators: [mc1x1]\n"
	_, err := Parse([]byte(head+"flags:\n"+strings.Repeat("- [1]\n", 100000)), "s.yaml")
	if err == nil {
		t.Fatal("accepted")
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != MaxTypeErrors+2 || !strings.Contains(lines[len(lines)-1], "99990 more errors not listed") {
		t.Errorf("%d lines, the last %q", len(lines), lines[len(lines)-1])
	}
	big := strings.Repeat("q", 1<<20)
	for _, in := range []string{
		head + "seeds: [" + big + "]\n",
		head + "engines: [" + big + "]\n",
		"\"" + big + "\": 1\n" + head,
		"name: b\ntraces: [t.swf, t.swf]\nmachines: [mesh:4x4]\nallocators: [" + big + "]\n",
	} {
		_, err := Parse([]byte(in), "s.yaml")
		if err == nil {
			t.Fatalf("%.40q... accepted", in)
		}
		if len(err.Error()) > 1000 { // the list of valid allocator names is long
			t.Errorf("message of %d bytes: %.200s", len(err.Error()), err)
		}
	}
}
