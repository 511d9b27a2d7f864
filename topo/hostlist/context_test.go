package hostlist

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/internal/ctxtest"
)

// Expanding --hostlist 'n[000001-131072]' or a slurm.conf's NodeName list of 10^5
// names looked at no context (60-70 ms unloaded, more under load, on every command
// that names hosts). ExpandContext with a cancelled context, or one that ends at any
// of the looks a whole expansion makes, returns context.Canceled itself (unwrapped,
// no names); the looks come at least once every lookEvery names or items; a live
// context expands what Expand does. Sizes of 16,384 names in -short.
func TestExpandContextStopsWhenCancelled(t *testing.T) {
	n := 131072
	if testing.Short() {
		n = 16384
	}
	items := make([]string, n/4)
	for i := range items {
		items[i] = fmt.Sprintf("c%d", i)
	}
	for _, c := range []struct {
		name, expr string
		names      int
	}{
		{"one range", fmt.Sprintf("n[%06d-%06d]", 1, n), n},
		{"three brackets", fmt.Sprintf("a[1-%d]b[1-16]c[01-16]", n/256), n},
		{"a list of single names", strings.Join(items, ","), n / 4},
		{"ranges and names", fmt.Sprintf("x[1-%d,%d],y,z[001-%03d]", n/2, n, n/4), n/2 + 1 + 1 + n/4},
	} {
		want, err := Expand(c.expr)
		if err != nil || len(want) != c.names {
			t.Fatalf("%s: Expand: %d names, %v; want %d", c.name, len(want), err, c.names)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if got, err := ExpandContext(ctx, c.expr); err != context.Canceled || got != nil {
			t.Fatalf("%s: a cancelled context: %d names, error %v; want none and context.Canceled itself", c.name, len(got), err)
		}
		count := ctxtest.NewCounting()
		got, err := ExpandContext(count, c.expr)
		if err != nil || !slices.Equal(got, want) {
			t.Fatalf("%s: with a live context: %d names, %v; want Expand's %d", c.name, len(got), err, len(want))
		}
		looks := count.Looks()
		if min := int64(c.names / lookEvery); looks < min {
			t.Fatalf("%s: %d looks for %d names: want at least one per %d (%d)", c.name, looks, c.names, lookEvery, min)
		}
		step := max(1, looks/40) // every look in -short
		if testing.Short() {
			step = 1
		}
		for k := int64(0); k < looks; k += step {
			if got, err := ExpandContext(ctxtest.StopAfter(k), c.expr); !errors.Is(err, context.Canceled) || got != nil {
				t.Fatalf("%s: ended after %d of %d looks: %d names, error %v; want none and context.Canceled", c.name, k, looks, len(got), err)
			}
		}
	}
	// Syntax errors are Expand's, context or not.
	for _, bad := range []string{"n[3-1]", "n[1-2", "n[1-5000000]"} {
		_, want := Expand(bad)
		if _, err := ExpandContext(context.Background(), bad); err == nil || err.Error() != want.Error() || !errors.Is(err, ErrSyntax) {
			t.Fatalf("ExpandContext(%q): %v; want Expand's %v", bad, err, want)
		}
	}
}

// procalloc hostlist expand with several expressions expanded them without a
// context (ExpandAll): ExpandContext takes every expression, MaxHosts over all of
// them, and stops at any of its looks with context.Canceled; live, the names of
// each expression in turn.
func TestExpandContextOfSeveralExpressions(t *testing.T) {
	n := 65536
	if testing.Short() {
		n = 8192
	}
	exprs := []string{fmt.Sprintf("a[1-%d]", n), "b,c", fmt.Sprintf("d[%05d-%05d]", 1, n)}
	var want []string
	for _, e := range exprs {
		names, err := Expand(e)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, names...)
	}
	count := ctxtest.NewCounting()
	got, err := ExpandContext(count, exprs...)
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("live: %d names, %v; want %d", len(got), err, len(want))
	}
	looks := count.Looks()
	if min := int64(2 * n / lookEvery); looks < min {
		t.Fatalf("%d looks for %d names: want at least %d", looks, len(want), min)
	}
	for k, stop := range ctxtest.Stops(looks, 40) {
		if got, err := ExpandContext(stop, exprs...); err != context.Canceled || got != nil {
			t.Fatalf("ended after %d of %d looks: %d names, %v; want none and context.Canceled", k, looks, len(got), err)
		}
	}
}

// hostlist compress of 2^20 names in no order took 1.3-3.6 s under load in
// Compress, which looked at no context: Ctrl-C waited up to 0.7 s and more.
// CompressContext looks at least once per lookEvery names cut and once per
// lookEvery runs written (a shuffled list is a run per name, all of one prefix in
// one bracket); ended at any look, or cancelled before, it returns
// context.Canceled itself and no expression; live, Compress's. 16,384 names in
// -short.
func TestCompressContextStopsWhenCancelled(t *testing.T) {
	n := 131072
	if testing.Short() {
		n = 16384
	}
	inOrder := make([]string, n)
	for i := range inOrder {
		inOrder[i] = fmt.Sprintf("n%06d", i)
	}
	shuffled := slices.Clone(inOrder)
	for i := len(shuffled) - 1; i > 0; i-- { // a fixed permutation (an LCG), no seed to keep
		j := int((uint64(i)*6364136223846793005 + 1442695040888963407) >> 33 % uint64(i+1))
		shuffled[i], shuffled[j] = shuffled[j], shuffled[i]
	}
	mixed := make([]string, 0, n)
	for i := range n / 2 {
		mixed = append(mixed, fmt.Sprintf("r%d", i%7), shuffled[i]) // plain-prefixed names and numbered ones
	}
	for _, c := range []struct {
		name  string
		names []string
		looks int // at least
	}{
		{"in order (one run)", inOrder, n / lookEvery},
		{"shuffled (a run per name)", shuffled, 2 * n / lookEvery},
		{"mixed", mixed, 2 * n / lookEvery},
	} {
		want, err := Compress(c.names)
		if err != nil {
			t.Fatal(err)
		}
		count := ctxtest.NewCounting()
		got, err := CompressContext(count, c.names)
		if err != nil || got != want {
			t.Fatalf("%s: live: %d bytes, %v; want Compress's %d", c.name, len(got), err, len(want))
		}
		looks := count.Looks()
		if looks < int64(c.looks) {
			t.Fatalf("%s: %d looks for %d names, want at least %d", c.name, looks, len(c.names), c.looks)
		}
		for k, stop := range ctxtest.Stops(looks, 40) {
			if got, err := CompressContext(stop, c.names); err != context.Canceled || got != "" {
				t.Fatalf("%s: ended after %d of %d looks: %d bytes, %v; want none and context.Canceled", c.name, k, looks, len(got), err)
			}
		}
	}
	// Errors are Compress's, context or not.
	for _, bad := range [][]string{{"a", "n[1"}, {""}} {
		_, want := Compress(bad)
		if _, err := CompressContext(context.Background(), bad); (err == nil) != (want == nil) || err != nil && err.Error() != want.Error() {
			t.Fatalf("CompressContext(%q): %v; want Compress's %v", bad, err, want)
		}
	}
}
