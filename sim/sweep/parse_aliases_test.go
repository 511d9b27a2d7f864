package sweep

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// TestParseAliasesReadAsExpanded: YAML aliases read as what their anchors name: a
// whole list given as an alias, and entries of seeds and engines (which are
// checked entry by entry) given as aliases, make the same items, keys and
// parameters as the file written out; an alias to a seed that is not an integer
// is refused as the seed itself is.
func TestParseAliasesReadAsExpanded(t *testing.T) {
	plain := "name: message\ntraces: [t.swf]\nmachines: [mesh:4x4, mesh:8x8]\nallocators: [mc1x1, mm]\n" +
		"seeds: [1, 2]\ncontract: [1, 2]\npatterns: [all-to-all, n-body]\nengines: [message, flit]\n"
	aliased := "name: &msg message\ntraces: [t.swf]\nmachines: [mesh:4x4, mesh:8x8]\nallocators: [mc1x1, &two mm]\n" +
		"seeds: &s [&one 1, 2]\ncontract: *s\npatterns: [all-to-all, n-body]\nengines: [*msg, flit]\n"
	a, err := Parse([]byte(plain), "a.yaml")
	if err != nil {
		t.Fatal(err)
	}
	b, err := Parse([]byte(aliased), "a.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Items()) != 64 || !reflect.DeepEqual(b.Items(), a.Items()) {
		t.Errorf("aliased file: %d items, differ from the %d written out", len(b.Items()), len(a.Items()))
	}
	c := "name: a\ntraces: [t.swf]\nmachines: [mesh:4x4]\nallocators: [&al mc1x1]\nseeds: [3, *al]\n"
	if _, err := Parse([]byte(c), "a.yaml"); err == nil || !strings.Contains(err.Error(), `line 4: seeds: "mc1x1" is not a seed`) {
		t.Errorf("a seed aliasing an allocator: %v", err)
	}
	d := "name: a\ntraces: [t.swf]\nmachines: [mesh:4x4]\nallocators: [&al mc1x1]\nengines: [message, *al]\n"
	if _, err := Parse([]byte(d), "a.yaml"); err == nil || !strings.Contains(err.Error(), `engines: entry 2 "mc1x1": want message or flit`) {
		t.Errorf("an engine aliasing an allocator: %v", err)
	}
}

// TestReadFileAndRefusals: ReadFile takes relative traces from the file's
// directory and names a sweep after the file; malformed files are errors naming
// the file and the problem.
func TestReadFileAndRefusals(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "grid.yaml")
	os.WriteFile(p, []byte("traces: [t.swf]\nmachines: [mesh:4x4]\nallocators: [mc1x1]\n"), 0o644)
	s, err := ReadFile(p)
	if err != nil || s.Dir != dir || s.Name != "grid" {
		t.Fatalf("ReadFile: %+v, %v", s, err)
	}
	if _, err := ReadFile(filepath.Join(dir, "none.yaml")); err == nil || !strings.Contains(err.Error(), "none.yaml") {
		t.Errorf("missing file: %v", err)
	}
	for _, c := range []struct{ src, want string }{
		{"traces: [t.swf\n", "x.yaml: sweep file: yaml: "},
		{"traces: [t.swf, '  ']\nmachines: [mesh:4x4]\nallocators: [mc1x1]\n", "x.yaml: sweep file: traces: entry 2 is empty"},
		{"traces: [t.swf]\nmachines: [mesh:4x4]\nallocators: [mc1x1]\nname: [a]\n", "x.yaml: sweep file: "},
	} {
		if _, err := Read(strings.NewReader(c.src), "x.yaml"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.src, err, c.want)
		}
	}
	// More than MaxItems: the message counts every list, engines too.
	var seeds, loads []string
	for i := range 1001 {
		seeds = append(seeds, strconv.Itoa(i))
		loads = append(loads, "0."+strconv.Itoa(1000+i))
	}
	big := "traces: [t.swf]\nmachines: [mesh:4x4]\nallocators: [mc1x1]\npatterns: [n-body]\nengines: [message, flit]\nseeds: [" + strings.Join(seeds, ", ") + "]\ncontract: [" + strings.Join(loads, ", ") + "]\n"
	if _, err := Read(strings.NewReader(big), "x.yaml"); err == nil || !strings.Contains(err.Error(), "1 traces x 1 machines x 1 schedulers x 1001 load factors x 1 patterns x 1001 seeds x 1 allocators x 2 engines is more than 1000000 items") {
		t.Errorf("too many items: %v", err)
	}
}
