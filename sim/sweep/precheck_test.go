package sweep

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckAllocatorOnNoMachine: an allocator that applies to none of the
// sweep's machines is refused before any item runs (the nineteenth round's walk:
// bf:hilbert on mesh:10x10 and mesh:16x8 ran 32 items that all failed, and each
// rerun retried them). One that applies to some machines is a warning, one line
// per machine naming the allocators that do not apply there; a machine too large to build here, or a --graph sweep, leaves the
// allocator to its items.
func TestCheckAllocatorOnNoMachine(t *testing.T) {
	base := "traces: [t, u]\nallocators: [bf:hilbert, mc1x1]\ncontract: [1, 0.5]\n"
	for _, c := range []struct {
		name, spec string
		err        string   // in Check's error ("": none)
		warnings   []string // in Warnings, one each
	}{
		{"no machine", base + "machines: [mesh:10x10, mesh:16x8]\n",
			`allocators: entry 1 "bf:hilbert" applies to none of the machines, so every item of it would fail: on mesh:10x10: allocator "bf:hilbert": curve "hilbert" does not apply to mesh:10x10`, nil},
		{"one machine", base + "machines: [mesh:10x10, mesh:16x16]\n", "",
			[]string{`allocators: "bf:hilbert" does not apply to machines: entry 1 "mesh:10x10", so their 4 items there will fail`}},
		{"fat tree", base + "machines: [mesh:16x16, \"fattree:4,2:4\"]\n", "",
			[]string{`2 allocators (bf:hilbert, mc1x1) do not apply to machines: entry 2 "fattree:4,2:4", so their 8 items there will fail`}},
		{"all apply", base + "machines: [mesh:16x16, mesh:8x8]\n", "", nil},
		{"too large to build", base + "machines: [mesh:10x10, mesh:300x300]\n", "", []string{`"bf:hilbert" does not apply to machines: entry 1 "mesh:10x10"`}},
		{"graph", base + "machines: [mesh:10x10]\nflags: [--machine=, --graph, net.txt]\n", "", nil},
	} {
		s, err := Parse([]byte(c.spec), "s.yaml")
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		err = s.Check()
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%s: refused: %v", c.name, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: error %v, want %q", c.name, err, c.err)
		}
		w := s.Warnings()
		if len(w) != len(c.warnings) {
			t.Errorf("%s: warnings %q, want %d", c.name, w, len(c.warnings))
			continue
		}
		for i, want := range c.warnings {
			if !strings.Contains(w[i], want) {
				t.Errorf("%s: warning %q lacks %q", c.name, w[i], want)
			}
		}
	}
}

// TestCheckSeedsNoItemUses: seeds that no item uses (no replicas, no random
// pattern, no random task order, no flit engine) make each seed's items the same
// replays, and are refused like a value listed twice; any user of the seed, or a
// single seed, is accepted.
func TestCheckSeedsNoItemUses(t *testing.T) {
	base := "traces: [t]\nmachines: [mesh:16x16]\nallocators: [mc1x1]\n"
	const refused = "seeds: 2 seeds, but no item uses its seed"
	for _, c := range []struct {
		extra string
		ok    bool
	}{
		{"seeds: [1, 2]\n", false},
		{"seeds: [1, 2]\npatterns: [none, n-body]\n", false},
		{"seeds: [1, 2]\nflags: [--drop-larger, --msgs-per-second, \"0.01\"]\n", false},
		{"seeds: [1]\n", true},
		{"seeds: [1, 2]\nflags: [--replicate, \"2\"]\n", true},
		{"seeds: [1, 2]\npatterns: [none, random]\n", true},
		{"seeds: [1, 2]\npatterns: [n-body]\nengines: [flit]\n", true},
		{"seeds: [1, 2]\npatterns: [n-body]\nflags: [--task-order, random]\n", true},
		{"seeds: [1, 2]\nflags: [--pattern, random]\n", true},
	} {
		s, err := Parse([]byte(base+c.extra), "s.yaml")
		if err != nil {
			t.Fatalf("%q: %v", c.extra, err)
		}
		err = s.Check()
		if c.ok != (err == nil) || !c.ok && !strings.Contains(err.Error(), refused) {
			t.Errorf("%q: Check = %v, want ok %v", c.extra, err, c.ok)
		}
	}
}

// TestCheckRankingFiles: an allocator's ranking file is read by the items'
// reader: a good one (here a 2x2 mesh's row-major order) and one whose content is
// refused (the items' failure, each naming the file) pass Check; a name that is
// neither a curve nor a file fails on every machine and is refused.
func TestCheckRankingFiles(t *testing.T) {
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "good.pairs"), filepath.Join(dir, "bad.pairs")
	os.WriteFile(good, []byte("0 0\n1 1\n2 2\n3 3\n"), 0o644)
	os.WriteFile(bad, []byte("0 0\n1 0\n"), 0o644)
	for _, c := range []struct {
		alloc string
		ok    bool
	}{{"bf:" + good, true}, {"bf:" + bad, true}, {"bf:" + filepath.Join(dir, "absent.pairs"), false}} {
		s, err := Parse([]byte("traces: [t]\nmachines: [mesh:2x2]\nallocators: ['"+c.alloc+"']\n"), "s.yaml")
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Check(); (err == nil) != c.ok {
			t.Errorf("%s: Check = %v, want ok %v", c.alloc, err, c.ok)
		}
	}
}

// TestNotApplicableIsTheWarnedPairs: an item's NotApplicable, from its own
// parameters (what a results line records), holds exactly for the items of the
// pairs Warnings names before the run, and says why as that check does; a sweep
// whose flags replace the machine (--graph) leaves every pair to its items.
func TestNotApplicableIsTheWarnedPairs(t *testing.T) {
	for _, spec := range []string{
		"traces: [t]\nallocators: [bf:hilbert, mc1x1, bf:rcm]\nmachines: [mesh:10x10, mesh:16x16, \"fattree:4,2:4\", \"dragonfly:hosts_per_router=2,routers_per_group=2,intergroup_links=1,num_groups=3\"]\ncontract: [1, 0.5]\n",
		"traces: [t]\nallocators: [bf:hilbert, mc1x1]\nmachines: [mesh:10x10]\nflags: [--machine=, --graph, net.txt]\n",
	} {
		s, err := Parse([]byte(spec), "s.yaml")
		if err != nil {
			t.Fatal(err)
		}
		fails, _ := s.pairFailures()
		why := map[[2]string]string{}
		for _, f := range fails {
			why[[2]string{s.Allocators[f.alloc], s.Machines[f.machine]}] = f.err.Error()
		}
		n := 0
		for _, it := range s.Items() {
			err := it.Params.NotApplicable(s.Dir)
			want, warned := why[[2]string{it.Params.Alloc, it.Params.Machine}]
			switch {
			case warned && (err == nil || err.Error() != want):
				t.Errorf("item #%d (%s on %s): NotApplicable %v, want %q", it.Index, it.Params.Alloc, it.Params.Machine, err, want)
			case !warned && err != nil:
				t.Errorf("item #%d (%s on %s): NotApplicable %v, want nil (not warned)", it.Index, it.Params.Alloc, it.Params.Machine, err)
			}
			if err != nil {
				n++
			}
		}
		if strings.Contains(spec, "--graph") != (n == 0) {
			t.Errorf("%d items not applicable; want some, none with --graph", n)
		}
	}
}
