package netsim

import (
	"context"
	"errors"
	"testing"

	"github.com/procalloc/procalloc/internal/ctxtest"
	"github.com/procalloc/procalloc/topo"
)

// mustMeasure is m.Measure for nodes of the network.
func mustMeasure(t testing.TB, m *RouteMeter, id int, nodes []int) RouteLoad {
	t.Helper()
	l, err := m.Measure(id, nodes)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// traced is enumerate without a context: every route of the cycle walked, the
// reference the counting shortcuts are checked against.
func (m *RouteMeter) traced(id int, nodes []int) RouteLoad {
	l, _ := m.enumerate(context.Background(), id, nodes)
	return l
}

// The route walk of the patterns without a counting shortcut (n-body, random,
// halo2d) asks its context every enumerateLook routes: an n-body job of 24,320 nodes
// walked 5.9 x 10^8 routes without a look, and sim's Ctrl-C waited for the 2 s
// watchdog, which removed the results. Stopped after any number of looks short of
// all, MeasureContext returns context.Canceled and no load; given them all, the
// load Measure gives; and the next measure after a stopped one is unaffected.
func TestMeasureContextStopsTheRouteWalk(t *testing.T) {
	for _, name := range []string{"n-body", "random", "halo2d"} {
		pat, err := ParsePattern(name)
		if err != nil {
			t.Fatal(err)
		}
		m, err := NewMachineRouteMeter(topo.Mesh(20, 20), pat, 3)
		if err != nil {
			t.Fatal(err)
		}
		nodes := make([]int, 0, 300)
		for v := 0; v < 400 && len(nodes) < 300; v += 1 + v%3 {
			nodes = append(nodes, v)
		}
		want := mustMeasure(t, m, 7, nodes)
		if want.Messages < 2*enumerateLook && name == "n-body" {
			t.Fatalf("%s: %d messages, too few to stop in the middle", name, want.Messages)
		}
		looks := ctxtest.NewCounting()
		if got, err := m.MeasureContext(looks, 7, nodes); err != nil || got != want {
			t.Fatalf("%s: never stopped: %+v, %v; want %+v", name, got, err, want)
		}
		if min := (want.Messages + enumerateLook - 1) / enumerateLook; looks.Looks() < min {
			t.Fatalf("%s: %d looks for %d routes, want at least %d", name, looks.Looks(), want.Messages, min)
		}
		for n := range looks.Looks() {
			got, err := m.MeasureContext(ctxtest.StopAfter(n), 7, nodes)
			if !errors.Is(err, context.Canceled) || got != (RouteLoad{}) {
				t.Fatalf("%s: stopped after %d of %d looks: %+v, %v", name, n, looks.Looks(), got, err)
			}
			if again := mustMeasure(t, m, 7, nodes); again != want {
				t.Fatalf("%s: after a stop at look %d: %+v, want %+v", name, n, again, want)
			}
		}
	}
}

// The tree model of a fat tree (0.3 s at 131,072 hosts) is built under the
// context: ended before or at any of its looks, NewMachineRouteMeterContext
// returns context.Canceled and no meter; with a live context the meter measures
// as NewMachineRouteMeter's does.
func TestNewMachineRouteMeterContextStopsTheTreeModel(t *testing.T) {
	g, err := topo.FatTree("16,16:16,16:32") // 8,192 hosts
	if err != nil {
		t.Fatal(err)
	}
	pat, err := ParsePattern("all-to-all")
	if err != nil {
		t.Fatal(err)
	}
	want, err := NewMachineRouteMeter(g, pat, 1)
	if err != nil || want.tree == nil {
		t.Fatalf("no tree model: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if m, err := NewMachineRouteMeterContext(ctx, g, pat, 1); !errors.Is(err, context.Canceled) || m != nil {
		t.Fatalf("a cancelled context: meter %v, error %v", m != nil, err)
	}
	count := ctxtest.NewCounting()
	got, err := NewMachineRouteMeterContext(count, g, pat, 1)
	if err != nil || got.tree == nil {
		t.Fatalf("a live context: %v", err)
	}
	// The switches of each level and the hosts, every treeModelEvery.
	looks := count.Looks()
	if min := int64(g.N()/treeModelEvery + (g.Vertices()-g.N())/treeModelEvery); looks < min {
		t.Fatalf("%d looks; want at least %d", looks, min)
	}
	for k := range looks {
		if m, err := NewMachineRouteMeterContext(ctxtest.StopAfter(k), g, pat, 1); !errors.Is(err, context.Canceled) || m != nil {
			t.Fatalf("ended at look %d of %d: meter %v, error %v", k+1, looks, m != nil, err)
		}
	}
	job := []int{0, 1, 17, 300, 4095, 4096, 8191}
	if a, b := mustMeasure(t, got, 1, job), mustMeasure(t, want, 1, job); a != b {
		t.Errorf("with a context %+v, without %+v", a, b)
	}
}
