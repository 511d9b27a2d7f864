package alloc

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/topo"
	"github.com/procalloc/procalloc/topo/hostlist"
)

// familySpec returns a spec that builds family f on a grid: the curve families along
// the Morton order (it applies to every grid), the others by their bare name.
func familySpec(f string) string {
	if slices.Contains([]string{"freelist", "ff", "bf", "sos"}, f) {
		return f + ":morton"
	}
	if f == "paging" {
		return "paging:morton:0" // pages of one node keep the exact free count
	}
	return f + familyArg[f]
}

// refuses lists the families that reject some machines by design, with the words
// their error must contain.
var refuses = map[string]map[string]string{
	"mc":     {"torus:4x4": "mesh without wraparound"},
	"paging": {"mesh:5x3x2": "2D grid"},
	"plas":   {"mesh:5x3x2": "2D mesh"},
}

func init() {
	// The binary-tree family (bintree.go) needs 2^m x 2^n meshes.
	for _, f := range []string{"bt", "sbt", "dbt", "ind-bt", "ind-sbt", "ind-dbt", "d-bt", "d-sbt", "d-dbt", "scbt"} {
		refuses[f] = map[string]string{"mesh:5x3x2": "2^m x 2^n", "torus:4x4": "2^m x 2^n"}
	}
}

// familyArg gives the families that need an argument one; fragmenting reports the
// families that may refuse a request for external fragmentation (ErrFragmented),
// which the contract replay below does not allow; bintree_test.go checks them.
var familyArg = map[string]string{"sbt": ":16", "dbt": ":1/4", "ind-sbt": ":16", "ind-dbt": ":1/4", "d-sbt": ":16", "d-dbt": ":1/4", "slurm": ":consec:morton"}
var fragmenting = map[string]bool{"bt": true, "sbt": true, "dbt": true}

// TestAllFamiliesContract replays random allocate/release sequences on every
// registered allocator family (the center-based ones included) and checks the
// Allocator contract: k distinct free nodes per allocation, no double allocation, the
// free count kept, errors for k < 1 and k > free (wrapping ErrNotEnoughFree) that
// change nothing, and a rejected double release.
func TestAllFamiliesContract(t *testing.T) {
	for _, spec := range []string{"mesh:8x8", "mesh:5x3x2", "torus:4x4"} {
		m, err := topo.ParseSpec(spec)
		if err != nil {
			t.Fatal(err)
		}
		for i, f := range Names() {
			if f == "as-run" {
				continue // places recorded node lists, never k nodes: TestAsRunContract
			}
			a, err := Parse(familySpec(f), m, Options{})
			if want, ok := refuses[f][spec]; ok {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("%s on %s: err = %v, want one saying %q", f, spec, err, want)
				}
				continue
			}
			if err != nil {
				t.Errorf("%s on %s: %v", f, spec, err)
				continue
			}
			if fragmenting[f] {
				continue
			}
			rng := rand.New(rand.NewPCG(uint64(i), uint64(m.N())))
			replay(t, rng, a, 150, nil, nil)
			t.Logf("%s on %s: ok, %d free", a.Name(), spec, a.NumFree())
			if a.Name() == "" || a.Machine() != topo.Machine(m) {
				t.Errorf("%s: Name %q, Machine %v", f, a.Name(), a.Machine())
			}
		}
	}
}

// TestCurveRingSpecs checks the spec forms of the span variants.
func TestCurveRingSpecs(t *testing.T) {
	m := topo.Mesh(4, 4)
	for _, spec := range []string{"bf:hilbert", "bf:hilbert:ring", "bf:hilbert:linear", "sos:hilbert:ring", "ff:hilbert:ring"} {
		a, err := Parse(spec, m, Options{})
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		ca := a.(*CurveAllocator)
		if want := spec[len(spec)-5:] == ":ring"; ca.ring != want {
			t.Errorf("%s: ring = %v", spec, ca.ring)
		}
	}
}

// TestCurveOnGraph runs the curve allocators on an irregular machine along a graph
// ordering; MBS refuses it.
func TestCurveOnGraph(t *testing.T) {
	edges := [][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}, {5, 0}, {0, 3}, {6, 2}, {7, 6}}
	g, err := topo.NewGraphFromEdges(8, edges)
	if err != nil {
		t.Fatal(err)
	}
	for _, spec := range []string{"freelist:bfs", "ff:bfs", "bf:rcm:ring", "sos:rowmajor", "genalg"} {
		a, err := Parse(spec, g, Options{})
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		replay(t, rand.New(rand.NewPCG(5, 5)), a, 200, nil, nil)
	}
	if _, err := Parse("mbs", g, Options{}); err == nil {
		t.Error("mbs on a graph accepted")
	}
}

// TestAsRunContract: as-run takes exactly the named hosts, refuses unknown, repeated
// and busy ones without changing anything, and cannot choose nodes itself.
func TestAsRunContract(t *testing.T) {
	g, err := topo.ReadGraph(strings.NewReader("%switch s\na s\nb s\nc s\nd s\n"))
	if err != nil {
		t.Fatal(err)
	}
	a, err := Parse("as-run", g, Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := a.(Placer)
	if _, err := a.Allocate(1); !errors.Is(err, ErrNoPlacement) {
		t.Fatalf("Allocate: %v", err)
	}
	nodes, err := p.Place(hostlist.NewTable().List([]string{"c", "a"}))
	if err != nil || !slices.Equal(nodes, []int{0, 2}) || a.NumFree() != 2 {
		t.Fatalf("Place(c, a) = %v, %v, %d free", nodes, err, a.NumFree())
	}
	for _, bad := range [][]string{{"a"}, {"e"}, {"b", "b"}, nil} {
		if _, err := p.Place(hostlist.NewTable().List(bad)); err == nil || a.NumFree() != 2 {
			t.Fatalf("Place(%v) accepted or changed the state (%d free)", bad, a.NumFree())
		}
	}
	if err := a.Release(nodes); err != nil || a.NumFree() != 4 {
		t.Fatalf("release: %v", err)
	}
	// Lists of tables that number the hosts differently, one after the other, and
	// a table that grows between two lists: each gets its own hosts.
	t1, t2 := hostlist.NewTable("d", "c", "b", "a"), hostlist.NewTable("a")
	for i, c := range []struct {
		list hostlist.List
		want []int
	}{
		{t1.List([]string{"d", "c"}), []int{2, 3}},
		{t2.List([]string{"a"}), []int{0}},
		{t2.List([]string{"b", "c"}), []int{1, 2}},
		{t1.List([]string{"a", "b"}), []int{0, 1}},
		{t2.List([]string{"d", "a"}), []int{0, 3}},
	} {
		nodes, err := p.Place(c.list)
		if err != nil || !slices.Equal(nodes, c.want) {
			t.Fatalf("list %d (%v): %v, %v; want %v", i, c.list.Names(), nodes, err, c.want)
		}
		if err := a.Release(nodes); err != nil {
			t.Fatal(err)
		}
	}
}

// TestCheckFamilyIsParsesCheck: CheckFamily passes every family's spec and refuses
// an unknown one with the error Parse gives it, which lists every family.
func TestCheckFamilyIsParsesCheck(t *testing.T) {
	m := topo.Mesh(4, 4)
	for _, f := range Names() {
		if err := CheckFamily(familySpec(f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	for _, spec := range []string{"nosuch", "nosuch:hilbert", "", ":bf", "BF:hilbert"} {
		err := CheckFamily(spec)
		_, perr := Parse(spec, m, Options{})
		if err == nil || perr == nil || err.Error() != perr.Error() {
			t.Errorf("%q: CheckFamily %v, Parse %v", spec, err, perr)
			continue
		}
		for _, f := range Names() {
			if !strings.Contains(err.Error(), f) {
				t.Errorf("%q: %v does not list %s", spec, err, f)
			}
		}
	}
}
