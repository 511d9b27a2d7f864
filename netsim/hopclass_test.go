package netsim

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/procalloc/procalloc/internal/ctxtest"
	"github.com/procalloc/procalloc/topo"
)

// plainRouter hides a graph router's type, so that the engine gives it no
// distance classes: one channel per link, as the engine had before them.
type plainRouter struct{ Router }

// randomGraphFile is a connected random graph as an edge list: a random tree on
// sw switches plus extra links (cycles), and hosts, each on one random switch
// (pendant) or, with hostLinks, on two (a host that forwards).
func randomGraphFile(rng *rand.Rand, hosts, sw, extra int, hostLinks bool) string {
	var b strings.Builder
	for h := range hosts {
		fmt.Fprintf(&b, "%%node h%d\n", h)
	}
	for s := range sw {
		fmt.Fprintf(&b, "%%switch s%d\n", s)
	}
	seen := map[[2]int]bool{}
	link := func(x, y int) {
		if x == y || seen[[2]int{min(x, y), max(x, y)}] {
			return
		}
		seen[[2]int{min(x, y), max(x, y)}] = true
		fmt.Fprintf(&b, "s%d s%d\n", x, y)
	}
	for s := 1; s < sw; s++ {
		link(s, rng.IntN(s))
	}
	for range extra {
		link(rng.IntN(sw), rng.IntN(sw))
	}
	for h := range hosts {
		s := rng.IntN(sw)
		fmt.Fprintf(&b, "h%d s%d\n", h, s)
		if s2 := rng.IntN(sw); hostLinks && s2 != s {
			fmt.Fprintf(&b, "h%d s%d\n", h, s2)
		}
	}
	return b.String()
}

// classGraphs are the graphs of the distance-class tests: rings of hosts and of
// switches, dragonflies from their specs and relabelled files, fat trees, random
// graphs.
func classGraphs(t *testing.T) []*topo.Graph {
	t.Helper()
	read := func(s string) *topo.Graph {
		g, err := topo.ReadGraph(strings.NewReader(s))
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	ring := func(k int, hosts bool) string {
		var b strings.Builder
		for i := range k {
			if hosts {
				fmt.Fprintf(&b, "n%d n%d\n", i, (i+1)%k)
			} else {
				fmt.Fprintf(&b, "%%switch s%d\ns%d s%d\nh%d s%d\n", i, i, (i+1)%k, i, i)
			}
		}
		return b.String()
	}
	gs := []*topo.Graph{read(ring(5, true)), read(ring(8, true)), read(ring(7, false))}
	rng := rand.New(rand.NewPCG(7, 11))
	// Two groups: minimal routes cannot wait in a cycle (a global link's local
	// feeders are first links, the local links after it last ones).
	more := []string{"dragonfly:hosts_per_router=2,routers_per_group=3,intergroup_links=2,num_groups=2", "fattree:4,4:4,4:8", "fattree:4,2:4,2:4"}
	for _, spec := range append(smallDragonflies, more...) {
		m, err := topo.ParseMachine(spec)
		if err != nil {
			t.Fatal(err)
		}
		g := m.(*topo.Graph)
		gs = append(gs, g)
		if strings.HasPrefix(spec, "dragonfly") {
			gs = append(gs, read(relabelledEdgeList(g, relabelling(g, rng, false))))
		}
	}
	for i := range 6 {
		gs = append(gs, read(randomGraphFile(rng, 6+rng.IntN(20), 3+rng.IntN(10), rng.IntN(8), i%2 == 1)))
	}
	return gs
}

// TestHopClassesMatchTheDefinition checks the classes against the plain
// definitions, routing every pair of hosts: the channel dependency graph of the
// routes (c1 -> c2 when a route takes c2 right after c1) is built from the routes
// and the engine has classes exactly when it has a cycle; the number of classes is
// the most router-to-router links of a route; a route's k-th router-to-router link
// is class min(k, C-1) of that link, pendant hosts' links are their own channel,
// ids stay below the engine's channel count; and the dependency graph of the
// class channels has no cycle.
func TestHopClassesMatchTheDefinition(t *testing.T) {
	withClasses, without := 0, 0
	for _, g := range classGraphs(t) {
		rt, err := NewRouter(g)
		if err != nil {
			t.Fatal(err)
		}
		dr := rt.(depRouter)
		off, head, n := dr.chanLayout()
		pendant := func(v int32) bool { return int(v) < n && off[v+1]-off[v] == 1 }
		tail := make([]int32, len(head))
		for v := range len(off) - 1 {
			for c := off[v]; c < off[v+1]; c++ {
				tail[c] = int32(v)
			}
		}
		routerLink := func(c int32) bool { return !pendant(tail[c]) && !pendant(head[c]) }
		deps := map[int32]map[int32]bool{}
		longest := 0
		var routes [][]int32
		for s := range n {
			for d := range n {
				route := rt.Route(s, d, nil)
				routes = append(routes, route)
				var rr []int32
				for _, c := range route {
					if routerLink(c) {
						rr = append(rr, c)
					}
				}
				longest = max(longest, len(rr))
				for i := 1; i < len(route); i++ {
					if routerLink(route[i-1]) && routerLink(route[i]) {
						if deps[route[i-1]] == nil {
							deps[route[i-1]] = map[int32]bool{}
						}
						deps[route[i-1]][route[i]] = true
					}
				}
			}
		}
		hc, err := newHopClasses(context.Background(), dr)
		if err != nil {
			t.Fatal(err)
		}
		if cyc := hasCycle(deps); cyc != (hc != nil) {
			t.Fatalf("%s: dependency cycle %v, classes %v", g.Spec(), cyc, hc != nil)
		}
		if hc == nil {
			without++
			continue
		}
		withClasses++
		if int(hc.classes) != longest {
			t.Fatalf("%s: %d classes, longest route %d router-to-router links", g.Spec(), hc.classes, longest)
		}
		classDeps := map[int32]map[int32]bool{}
		for _, route := range routes {
			cls := append([]int32(nil), route...)
			hc.apply(cls)
			k := int32(0)
			for i, c := range route {
				x := cls[i]
				if x < 0 || int(x) >= hc.channels() {
					t.Fatalf("%s: channel %d out of 0..%d", g.Spec(), x, hc.channels()-1)
				}
				if !routerLink(c) {
					if x != c {
						t.Fatalf("%s: a pendant host's link %d became %d", g.Spec(), c, x)
					}
					continue
				}
				want := min(k, hc.classes-1)
				found := want == 0 && x == c
				hc.classChannels(c, func(y int32) { found = found || y == x && want == (y-hc.links)/hc.nrr+1 })
				if !found {
					t.Fatalf("%s: route %v: link %d (router-to-router link %d) is channel %d, not class %d of it", g.Spec(), route, c, k, x, want)
				}
				k++
				if i > 0 && routerLink(route[i-1]) {
					if classDeps[cls[i-1]] == nil {
						classDeps[cls[i-1]] = map[int32]bool{}
					}
					classDeps[cls[i-1]][x] = true
				}
			}
		}
		if hasCycle(classDeps) {
			t.Fatalf("%s: the class channels' dependencies have a cycle", g.Spec())
		}
	}
	if withClasses < 10 || without < 2 {
		t.Errorf("classes on %d graphs and off on %d: the cases do not cover both", withClasses, without)
	}
}

// hasCycle reports whether the directed graph deps has a cycle (depth-first).
func hasCycle(deps map[int32]map[int32]bool) bool {
	state := map[int32]int{} // 1 on the stack, 2 done
	var visit func(c int32) bool
	visit = func(c int32) bool {
		state[c] = 1
		for d := range deps[c] {
			if state[d] == 1 || state[d] == 0 && visit(d) {
				return true
			}
		}
		state[c] = 2
		return false
	}
	for c := range deps {
		if state[c] == 0 && visit(c) {
			return true
		}
	}
	return false
}

// TestEveryMessageDeliveredOnGraphs is TestEveryMessageDelivered on graphs: random
// messages sent all at once on rings, dragonflies (specs and relabelled files), fat
// trees and random graphs all arrive. Without the classes (plainRouter: one channel
// a link) the same messages deadlock on some of them, so the sends do load the
// cycles the classes break. The engine's totals are those of the routes: hops, and
// the busiest link counted per link, its classes together.
func TestEveryMessageDeliveredOnGraphs(t *testing.T) {
	deadlocked := 0
	p := Params{MessageFlits: 8, RouterDelay: 1, FlitBytes: 1}
	for _, g := range classGraphs(t) {
		r, err := NewRouter(g)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(3, uint64(g.N())))
		var msgs []Message
		for range 3000 {
			msgs = append(msgs, Message{Src: int32(rng.IntN(g.N())), Dst: int32(rng.IntN(g.N()))})
		}
		arr := run(t, r, p, msgs)
		for i, a := range arr {
			if a == 0 {
				t.Fatalf("%s: message %d (%v) never arrived", g.Spec(), i, msgs[i])
			}
		}
		// The busiest link's count is per link, its classes together: the most
		// routes through one link.
		eng, err := NewEngine(r, p, nil)
		if err != nil {
			t.Fatal(err)
		}
		perLink := map[int32]int64{}
		var most, hops int64
		for _, m := range msgs {
			eng.Send(m)
			for _, c := range r.Route(int(m.Src), int(m.Dst), nil) {
				perLink[c]++
				most = max(most, perLink[c])
				hops++
			}
		}
		if err := eng.Run(1 << 40); err != nil {
			t.Fatal(err)
		}
		if st := eng.Stats(); st.MaxChannelMessages != most || st.Hops != hops || st.Delivered != int64(len(msgs)) {
			t.Fatalf("%s: stats %+v, want busiest link %d, hops %d, %d delivered", g.Spec(), st, most, hops, len(msgs))
		}
		eng, err = NewEngine(plainRouter{r}, p, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range msgs {
			eng.Send(m)
		}
		if err := eng.Run(1 << 40); errors.Is(err, ErrDeadlock) {
			deadlocked++
		} else if err != nil {
			t.Fatal(err)
		}
	}
	if deadlocked < 5 {
		t.Errorf("without classes only %d of the graphs deadlocked: the test does not load the cycles", deadlocked)
	}
}

// TestHopClassesKeepDeadlockFreeRoutes: on a fat tree, whose up/down routes cannot
// deadlock, the engine keeps one channel a link: arrival times equal those of the
// router without classes, message by message.
func TestHopClassesKeepDeadlockFreeRoutes(t *testing.T) {
	g, err := topo.ParseMachine("fattree:4,4:4,4:8")
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewRouter(g)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 5))
	var msgs []Message
	for range 2000 {
		msgs = append(msgs, Message{Src: int32(rng.IntN(g.N())), Dst: int32(rng.IntN(g.N()))})
	}
	p := DefaultParams()
	a, b := run(t, r, p, msgs), run(t, plainRouter{r}, p, msgs)
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("message %d arrived at %d, at %d without classes", i, a[i], b[i])
		}
	}
}

// Finding a dragonfly's distance classes looks at its context every
// hopClassEvery channels (it took seconds, deaf to Ctrl-C, on 2 x 10^5 hosts), and
// the engine stops with its cause at every point: NewEngineContext returns
// context.Canceled, and a whole build finds the same classes as one never stopped.
func TestHopClassesStopOnContext(t *testing.T) {
	m, err := topo.ParseMachine("dragonfly:hosts_per_router=1,routers_per_group=32,intergroup_links=1,num_groups=33")
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewRouter(m)
	if err != nil {
		t.Fatal(err)
	}
	d := r.(depRouter)
	count := ctxtest.NewCounting()
	hc, err := newHopClasses(count, d)
	if err != nil || hc == nil {
		t.Fatalf("classes %v, %v; want classes on a dragonfly", hc, err)
	}
	if min := int64(len(hc.rr)) / hopClassEvery; count.Looks() < min {
		t.Errorf("%d looks at the context over %d channels, want at least %d", count.Looks(), len(hc.rr), min)
	}
	deps := ctxtest.NewCounting()
	if _, err := d.chanDeps(deps, func(c1, c2 int32) {}); err != nil || deps.Looks() < 33 {
		t.Errorf("the dependencies of 33 groups' routes: %d looks at the context (%v), want one a group at least", deps.Looks(), err)
	}
	for k, ctx := range ctxtest.Stops(count.Looks(), 8) {
		if _, err := NewEngineContext(ctx, r, DefaultParams(), nil); !errors.Is(err, context.Canceled) {
			t.Fatalf("stopped after %d looks: %v, want context.Canceled", k, err)
		}
	}
	full, err := newHopClasses(context.Background(), d)
	if err != nil || full.classes != hc.classes || full.nrr != hc.nrr {
		t.Errorf("%+v, %v; want the counted build's classes", full, err)
	}
	// The stopped builds kept nothing in the router's memo: an engine built
	// after them has the classes.
	if eng, err := NewEngine(r, DefaultParams(), nil); err != nil || eng.hc == nil || eng.hc.classes != hc.classes {
		t.Errorf("engine after stopped builds: %v; want one with %d classes", err, hc.classes)
	}
}

// countingRouter counts the channel dependency scans (chanDeps) made of the
// router it wraps; it shares that router's memo of its classes.
type countingRouter struct {
	depRouter
	scans *atomic.Int32
}

func (c countingRouter) chanDeps(ctx context.Context, dep func(c1, c2 int32)) (int, error) {
	c.scans.Add(1)
	return c.depRouter.chanDeps(ctx, dep)
}

// TestEnginesShareTheirRoutersClasses: engines on one router, four at once in
// goroutines, scan its channel dependencies once between them (the cycle check is
// the router's, ~0.4 s at 102,400 dragonfly hosts: compare and sweeps run one engine
// per allocator or item), and deliver every message when a fresh router's engine
// delivers it.
func TestEnginesShareTheirRoutersClasses(t *testing.T) {
	p := Params{MessageFlits: 8, RouterDelay: 1, FlitBytes: 1}
	for _, g := range classGraphs(t) {
		r, err := NewRouter(g)
		if err != nil {
			t.Fatal(err)
		}
		shared := countingRouter{r.(depRouter), &atomic.Int32{}}
		rng := rand.New(rand.NewPCG(9, uint64(g.N())))
		var msgs []Message
		for range 500 {
			msgs = append(msgs, Message{Src: int32(rng.IntN(g.N())), Dst: int32(rng.IntN(g.N()))})
		}
		fresh, err := NewRouter(g)
		if err != nil {
			t.Fatal(err)
		}
		want := run(t, fresh, p, msgs)
		const engines = 4
		got := make([][]int64, engines)
		errs := make([]error, engines)
		var wg sync.WaitGroup
		for i := range engines {
			wg.Go(func() {
				arr := make([]int64, len(msgs))
				eng, err := NewEngine(shared, p, func(d *Delivery) { arr[d.Tag] = d.Arrived })
				if err != nil {
					errs[i] = err
					return
				}
				for j, m := range msgs {
					m.Tag = int32(j)
					eng.Send(m)
				}
				errs[i], got[i] = eng.Run(1<<40), arr
			})
		}
		wg.Wait()
		if n := shared.scans.Load(); n != 1 {
			t.Errorf("%s: %d engines scanned the router's channel dependencies %d times, want once", g.Spec(), engines, n)
		}
		for i := range engines {
			if errs[i] != nil {
				t.Fatalf("%s: engine %d: %v", g.Spec(), i, errs[i])
			}
			if !slices.Equal(got[i], want) {
				t.Fatalf("%s: engine %d on the shared router delivered at other times than one on a fresh router", g.Spec(), i)
			}
		}
	}
}
