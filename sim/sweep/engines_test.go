package sweep

import (
	"slices"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/sim"
)

func TestSweepEngines(t *testing.T) {
	const base = "traces: [t.swf]\nmachines: [mesh:16x16]\nallocators: [mc, genalg]\npatterns: [n-body]\n"
	old, err := Parse([]byte(base), "s.yaml")
	if err != nil {
		t.Fatal(err)
	}
	both, err := Parse([]byte(base+"engines: [message, flit]\n"), "s.yaml")
	if err != nil {
		t.Fatal(err)
	}
	a, b := old.Items(), both.Items()
	if len(a) != 2 || len(b) != 4 {
		t.Fatalf("%d and %d items, want 2 and 4", len(a), len(b))
	}
	// The message engine's items keep the keys they had before engines existed, so
	// that results written then still count.
	for i := range a {
		if a[i].Key != b[i].Key || b[i].Params.Engine != "" {
			t.Errorf("item %d: key %s, was %s (engine %q)", i, b[i].Key, a[i].Key, b[i].Params.Engine)
		}
	}
	for _, it := range b[2:] {
		if it.Params.Engine != sim.EngineFlit || slices.ContainsFunc(a, func(x Item) bool { return x.Key == it.Key }) {
			t.Errorf("%+v: want a flit item", it)
		}
		if args := strings.Join(it.Params.Args(""), " "); !strings.Contains(args, "--comm n-body --engine flit") {
			t.Errorf("flit item's command line %q", args)
		}
		if s := it.Params.Spec(""); s.Engine != sim.EngineFlit || s.Validate() != nil {
			t.Errorf("flit item's spec: engine %q, %v", s.Engine, s.Validate())
		}
	}
	for _, bad := range []string{"engines: [booksim]\n", "engines: [flit, flit]\n", "engines: [flit]\npatterns: [none]\n"} {
		in := base + bad
		if strings.Contains(bad, "patterns") {
			in = strings.Replace(base, "patterns: [n-body]\n", "", 1) + bad
		}
		if _, err := Parse([]byte(in), "s.yaml"); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
