package alloc

import (
	"bytes"
	"context"
	"errors"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/internal/ctxtest"
	"github.com/procalloc/procalloc/slurm"
	"github.com/procalloc/procalloc/topo"
)

// sim's allocator was built by Parse with no look at a context: bf:rcm's curve on
// the 131,072-host fat tree took a tenth of a second or more, in which Ctrl-C
// waited. With Options.Context cancelled, Parse of a curve allocator returns an
// error naming the spec that wraps context.Canceled, and no allocator; with a live
// one it builds the allocator Parse builds without (the same order of the nodes).
// Not in -short: on the 131,072-host fat tree (the curves look at ctx from 65,536
// nodes), ended at each of about 40 of the looks a whole build of bf:rcm makes,
// Parse returns context.Canceled.
func TestParseStopsBuildingTheCurve(t *testing.T) {
	m, err := topo.ParseMachine("mesh:32x32")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, spec := range []string{"bf:rcm", "ff:hilbert", "sos:snake:ring", "freelist:rcm"} {
		if a, err := Parse(spec, m, Options{Context: ctx}); !errors.Is(err, context.Canceled) || a != nil || !strings.HasPrefix(err.Error(), "allocator \""+spec+"\": ") {
			t.Fatalf("%s with a cancelled context: allocator %v, error %v; want none and context.Canceled after the spec", spec, a != nil, err)
		}
		want, err := Parse(spec, m, Options{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := Parse(spec, m, Options{Context: context.Background()})
		if err != nil || !slices.Equal(got.(*CurveAllocator).order, want.(*CurveAllocator).order) {
			t.Fatalf("%s with a live context: %v, or another order", spec, err)
		}
	}
	if testing.Short() {
		return
	}
	big, err := topo.ParseMachine("fattree:16,16:16,16:16,16:32")
	if err != nil {
		t.Fatal(err)
	}
	want, err := Parse("bf:rcm", big, Options{})
	if err != nil {
		t.Fatal(err)
	}
	count := ctxtest.NewCounting()
	got, err := Parse("bf:rcm", big, Options{Context: count})
	if err != nil || !slices.Equal(got.(*CurveAllocator).order, want.(*CurveAllocator).order) {
		t.Fatalf("bf:rcm on %s with a live context: %v, or another order", big.Spec(), err)
	}
	looks := count.Looks()
	if looks < 3 {
		t.Fatalf("bf:rcm on %s: %d looks at the context; want the curve's searches to look", big.Spec(), looks)
	}
	for k, stop := range ctxtest.Stops(looks, 40) {
		if a, err := Parse("bf:rcm", big, Options{Context: stop}); !errors.Is(err, context.Canceled) || a != nil {
			t.Fatalf("bf:rcm ended after %d of %d looks: allocator %v, error %v; want none and context.Canceled", k, looks, a != nil, err)
		}
	}
}

// Slurm's topology/tree emulator was built with no look at a context (NewSlurm:
// a second on the 131,072-host fat tree, most of it checking that no switch is
// reached twice below an upper one). Parse of slurm:tree:FILE with
// Options.Context cancelled, or ended at any of the looks a whole build makes,
// returns an error naming the spec that wraps context.Canceled, and no allocator;
// live, the emulator NewSlurm builds (the same placements). The looks come at
// least once per treeLookEvery of the nodes listed and switches walked. A fat tree
// of 4,096 hosts in -short, 32,768 otherwise.
func TestParseStopsBuildingSlurmsTree(t *testing.T) {
	spec := "fattree:16,16:16,16:128"
	if testing.Short() {
		spec = "fattree:8,8:8,8:64"
	}
	m, err := topo.ParseMachine(spec)
	if err != nil {
		t.Fatal(err)
	}
	o := curves.Order(make([]int, m.N()))
	for i := range o {
		o[i] = i
	}
	var buf bytes.Buffer
	if _, err := slurm.WriteTopology(&buf, m, o, nil); err != nil {
		t.Fatal(err)
	}
	tree, err := slurm.ParseTree(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	opt := func(ctx context.Context) Options {
		return Options{Context: ctx, SlurmTree: func(string, string) (*slurm.Tree, error) { return tree, nil }}
	}
	const name = "slurm:tree:topology.conf"
	want, err := NewSlurm(m, SlurmConfig{Names: curves.NodeNames(m), Tree: tree})
	if err != nil {
		t.Fatal(err)
	}
	count := ctxtest.NewCounting()
	got, err := Parse(name, m, opt(count))
	if err != nil {
		t.Fatal(err)
	}
	placesAsNewSlurm(t, got, want, m.N())
	looks := count.Looks()
	// Each upper switch's walk visits the switches below it: far more than the
	// hosts on a fat tree.
	if min := int64(4 * m.N() / treeLookEvery); looks < min {
		t.Fatalf("%d looks on %s, want at least %d", looks, spec, min)
	}
	for k, stop := range ctxtest.Stops(looks, 40) {
		if a, err := Parse(name, m, opt(stop)); !errors.Is(err, context.Canceled) || a != nil || !strings.HasPrefix(err.Error(), "allocator \""+name+"\": ") {
			t.Fatalf("ended after %d of %d looks: allocator %v, error %v; want none and context.Canceled after the spec", k, looks, a != nil, err)
		}
	}
}

// The node names' sort (Slurm's node table order) looked at the context only
// before and after: 0.3 s for 131,072 names in no order (a ranked tree's, renamed
// nodes), 0.7 s under load, seconds at 2^20. It looks every 4,096 names now:
// ended at any look, newSlurm returns the cause; live, the emulator places jobs
// as NewSlurm's does.
func TestNewSlurmStopsSortingNames(t *testing.T) {
	spec := "mesh:256x128"
	if testing.Short() {
		spec = "mesh:128x64"
	}
	m, err := topo.ParseMachine(spec)
	if err != nil {
		t.Fatal(err)
	}
	names := curves.NodeNames(m)
	rng := rand.New(rand.NewSource(1))
	rng.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
	cfg := SlurmConfig{Names: names}
	want, err := NewSlurm(m, cfg)
	if err != nil {
		t.Fatal(err)
	}
	count := ctxtest.NewCounting()
	got, err := newSlurm(count, m, cfg)
	if err != nil {
		t.Fatal(err)
	}
	placesAsNewSlurm(t, got, want, m.N())
	looks := count.Looks()
	if min := int64(2 * m.N() / 4096); looks < min { // the runs sorted, then merged
		t.Fatalf("%d looks for %d names, want at least %d", looks, m.N(), min)
	}
	for k, stop := range ctxtest.Stops(looks, 20) {
		if a, err := newSlurm(stop, m, cfg); !errors.Is(err, context.Canceled) || a != nil {
			t.Fatalf("ended after %d of %d looks: allocator %v, error %v; want none and context.Canceled", k, looks, a != nil, err)
		}
	}
}

// placesAsNewSlurm fails t unless got places jobs of 1, 7, n/3 and 2 nodes, one
// after another, as want (NewSlurm's emulator of the same machine) does.
func placesAsNewSlurm(t *testing.T, got, want Allocator, n int) {
	t.Helper()
	for _, k := range []int{1, 7, n / 3, 2} {
		a, errA := got.Allocate(k)
		b, errB := want.Allocate(k)
		if !slices.Equal(a, b) || (errA == nil) != (errB == nil) {
			t.Fatalf("a job of %d: %v, %v; NewSlurm's %v, %v", k, a, errA, b, errB)
		}
	}
}
