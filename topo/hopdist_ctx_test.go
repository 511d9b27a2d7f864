package topo

import (
	"context"
	"errors"
	"testing"

	"github.com/procalloc/procalloc/internal/ctxtest"
)

// mustHopIndex builds g's hop index with tier forced ("" the automatic one).
func mustHopIndex(tb testing.TB, g *Graph, tier string) *hopIndex {
	tb.Helper()
	h, err := newHopIndex(context.Background(), g.adj, g.hosts, tier)
	if err != nil {
		tb.Fatal(err)
	}
	return h
}

// A hop index's build at 10^4 hosts (a fat tree's key table; a dragonfly's pruned
// labels, given up, and landmarks: a second or so at 10^5 hosts) stops when its context ends: Ctrl-C in
// procalloc plan waited for the watchdog. Ended before the build, or at any of the
// places the build looks at it, BuildHopIndex returns context.Canceled and keeps
// nothing; Dist then builds the index as before and agrees with breadth-first rows.
func TestBuildHopIndexStopsWhenCancelled(t *testing.T) {
	for _, c := range []struct{ spec, tier string }{
		{"fattree:16,16:16,16:16,16:8", "table"},                                                        // 32,768 hosts
		{"dragonfly:hosts_per_router=4,routers_per_group=32,intergroup_links=3,num_groups=160", "rows"}, // 20,480 hosts, 5,120 routers: pruned labels tried, given up
	} {
		m, err := ParseMachine(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		g := m.(*Graph)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if err := g.BuildHopIndex(ctx); !errors.Is(err, context.Canceled) {
			t.Fatalf("%s: BuildHopIndex with a cancelled context: %v, want context.Canceled", c.spec, err)
		}
		if g.hop.Load() != nil {
			t.Fatalf("%s: a cancelled build kept a hop index", c.spec)
		}
		// Every place the build looks at its context stops it.
		count := ctxtest.NewCounting()
		if _, err := newHopIndex(count, g.adj, g.hosts, ""); err != nil {
			t.Fatal(err)
		}
		looks := count.Looks()
		if looks < 3 {
			t.Fatalf("%s: the build looked at its context %d times", c.spec, looks)
		}
		step := max(1, looks/40)
		for k := int64(0); k < looks; k += step {
			if _, err := newHopIndex(ctxtest.StopAfter(k), g.adj, g.hosts, ""); !errors.Is(err, context.Canceled) {
				t.Fatalf("%s: context ended at its look %d of %d: %v, want context.Canceled", c.spec, k+1, looks, err)
			}
		}
		if err := g.BuildHopIndex(context.Background()); err != nil {
			t.Fatal(err)
		}
		if tier := g.hop.Load().tier; tier != c.tier {
			t.Errorf("%s: tier %q, want %q", c.spec, tier, c.tier)
		}
		row := g.DistRow(0)
		for v := 0; v < g.Vertices(); v += 97 {
			if d := g.Dist(0, v); d != int(row[v]) {
				t.Fatalf("%s: after a cancelled build, Dist(0, %d) = %d, breadth-first search says %d", c.spec, v, d, row[v])
			}
		}
	}
}
