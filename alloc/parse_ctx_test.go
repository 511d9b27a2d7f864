package alloc

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/internal/ctxtest"
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
	for k := int64(0); k < looks; k += max(1, looks/40) {
		if a, err := Parse("bf:rcm", big, Options{Context: ctxtest.StopAfter(k)}); !errors.Is(err, context.Canceled) || a != nil {
			t.Fatalf("bf:rcm ended after %d of %d looks: allocator %v, error %v; want none and context.Canceled", k, looks, a != nil, err)
		}
	}
}
