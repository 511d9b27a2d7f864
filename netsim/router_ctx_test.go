package netsim

import (
	"context"
	"errors"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/procalloc/procalloc/internal/ctxtest"
	"github.com/procalloc/procalloc/topo"
)

// TestRouterBuildStopsOnContext: building a dragonfly's router looks at the
// context at least once a group (its routers, its links' sort, its pairs of
// groups) and every routerBuildEvery vertices, a graph's once a host's search;
// NewRouterContext stopped at every point returns context.Canceled, and a build
// it does not stop equals NewRouter's.
func TestRouterBuildStopsOnContext(t *testing.T) {
	for _, c := range []struct {
		spec  string
		looks int64 // at least
	}{
		// 33 groups of 32 routers, 2,112 vertices.
		{"dragonfly:hosts_per_router=1,routers_per_group=32,intergroup_links=1,num_groups=33", 3 * 33},
		// 9 groups, 8,280 vertices: two looks over the vertices.
		{"dragonfly:hosts_per_router=112,routers_per_group=8,intergroup_links=1,num_groups=9", 3*9 + 2},
		// no dragonfly: a search a host (0: the machine's hosts).
		{"fattree:4,4:8", 0},
	} {
		m, err := topo.ParseMachine(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		want, err := NewRouter(m)
		if err != nil {
			t.Fatal(err)
		}
		count := ctxtest.NewCounting()
		got, err := NewRouterContext(count, m)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: the counted build differs from NewRouter's (%v)", c.spec, err)
		}
		if c.looks == 0 {
			c.looks = int64(m.N())
		}
		if count.Looks() < c.looks {
			t.Errorf("%s: %d looks at the context, want at least %d", c.spec, count.Looks(), c.looks)
		}
		for k, ctx := range ctxtest.Stops(count.Looks(), 16) {
			if r, err := NewRouterContext(ctx, m); !errors.Is(err, context.Canceled) || r != nil {
				t.Fatalf("%s: stopped after %d looks: %v, %v; want no router and context.Canceled", c.spec, k, r, err)
			}
		}
	}
}

// A graph that is no dragonfly has no dragonfly router, and no error, whatever
// the context: NewRouterContext then builds the graph router.
func TestDragonflyRouterContextNoDragonfly(t *testing.T) {
	m, err := topo.ParseMachine("fattree:4,4:8")
	if err != nil {
		t.Fatal(err)
	}
	if r, err := NewDragonflyRouterContext(context.Background(), m.(*topo.Graph)); r != nil || err != nil {
		t.Errorf("a fat tree: %v, %v; want no router and no error", r, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if r, err := NewDragonflyRouterContext(ctx, m.(*topo.Graph)); r != nil || err != nil {
		t.Errorf("a fat tree, cancelled: %v, %v; want no router and no error (no dragonfly to build)", r, err)
	}
}

// The global links from A to B are listed in ascending order of their end in A,
// then in B (the rule of DragonflyRouter's doc, which picks the route's link by
// position), each once, on the small dragonflies from their specs and numbered
// at random in files: the build sorts them group by group.
func TestDragonflyLinksInOrder(t *testing.T) {
	for _, g := range smallDragonflyGraphs(t, rand.New(rand.NewPCG(7, 41))) {
		r := NewDragonflyRouter(g)
		seen := map[int32]bool{}
		for A := range r.G {
			for B := range r.G {
				lo, hi := int(r.lOff[A*r.G+B]), int(r.lOff[A*r.G+B+1])
				for i := lo; i < hi; i++ {
					x, y := r.lx[i], r.ly[i]
					if r.group(int(x)) != A || r.group(int(y)) != B || seen[r.lc[i]] {
						t.Fatalf("%s: link %d of groups %d to %d: %d-%d (channel %d, seen %v)", g.Spec(), i, A, B, x, y, r.lc[i], seen[r.lc[i]])
					}
					seen[r.lc[i]] = true
					if i > lo && (x < r.lx[i-1] || x == r.lx[i-1] && y <= r.ly[i-1]) {
						t.Fatalf("%s: groups %d to %d: link %d-%d after %d-%d", g.Spec(), A, B, x, y, r.lx[i-1], r.ly[i-1])
					}
				}
			}
		}
	}
}
