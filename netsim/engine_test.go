package netsim

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/topo"
)

func mustSpec(t testing.TB, spec string) *topo.Grid {
	t.Helper()
	g, err := topo.ParseSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// decodeGridRoute follows a route channel by channel and returns the node it ends
// at, failing if a channel does not leave the node the previous one reached.
func decodeGridRoute(t *testing.T, r *GridRouter, src int, route []int32) int {
	t.Helper()
	cur := src
	D := len(r.dims)
	for _, c := range route {
		ci := int(c) / r.vcs
		dir := ci % 2
		j := (ci / 2) % D
		node := ci / 2 / D
		if node != cur {
			t.Fatalf("route %v from %d: channel %d leaves node %d, the message is at %d", route, src, c, node, cur)
		}
		x := (cur / r.stride[j]) % r.dims[j]
		nx := x + 1 - 2*dir
		if r.wrap[j] {
			nx = (nx + r.dims[j]) % r.dims[j]
		} else if nx < 0 || nx >= r.dims[j] {
			t.Fatalf("route %v leaves the mesh", route)
		}
		cur += (nx - x) * r.stride[j]
	}
	return cur
}

func TestGridRoutesAreShortestAndDimensionOrdered(t *testing.T) {
	for _, spec := range []string{"mesh:8x8", "mesh:5x7", "torus:6x6", "torus:5x4", "mesh:4x3x5", "mesh:6x6x4:wrap=z"} {
		g := mustSpec(t, spec)
		r := NewGridRouter(g)
		var buf []int32
		for s := range g.N() {
			for d := range g.N() {
				buf = r.Route(s, d, buf[:0])
				if len(buf) != g.Dist(s, d) {
					t.Fatalf("%s: route %d->%d has %d hops, distance %d", spec, s, d, len(buf), g.Dist(s, d))
				}
				if end := decodeGridRoute(t, r, s, buf); end != d {
					t.Fatalf("%s: route %d->%d ends at %d", spec, s, d, end)
				}
				// dimension order: the dimension of successive channels never decreases
				last := -1
				for _, c := range buf {
					j := (int(c) / r.vcs / 2) % len(r.dims)
					if j < last {
						t.Fatalf("%s: route %d->%d is not dimension ordered: %v", spec, s, d, buf)
					}
					last = j
				}
			}
		}
	}
}

func TestTorusTieGoesPositive(t *testing.T) {
	g := mustSpec(t, "torus:4x1")
	r := NewGridRouter(g)
	route := r.Route(0, 2, nil) // both ways are 2 hops
	if len(route) != 2 || r.Channel(0, 0, 0, 0) != route[0] {
		t.Fatalf("route 0->2 on a 4-ring = %v, want the positive direction first", route)
	}
	route = r.Route(3, 1, nil)
	if route[0] != r.Channel(3, 0, 0, 0) || route[1] != r.Channel(0, 0, 0, 1) {
		t.Fatalf("route 3->1 = %v, want + through the dateline onto virtual channel 1", route)
	}
}

func TestGraphRoutesAreShortest(t *testing.T) {
	g, err := topo.ReadGraph(strings.NewReader("a b\nb c\nc d\nd a\na c\nd e\n"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewGraphRouter(g)
	if err != nil {
		t.Fatal(err)
	}
	for s := range g.N() {
		for d := range g.N() {
			if got := len(r.Route(s, d, nil)); got != g.Dist(s, d) {
				t.Fatalf("route %d->%d: %d hops, distance %d", s, d, got, g.Dist(s, d))
			}
		}
	}
	disc, err := topo.ReadGraph(strings.NewReader("a b\nc d\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewGraphRouter(disc); !errors.Is(err, ErrNoRoute) {
		t.Fatalf("disconnected graph: err = %v, want ErrNoRoute", err)
	}
}

// run sends msgs at time 0 and returns each one's arrival time by index (Tag).
func run(t *testing.T, r Router, p Params, msgs []Message) []int64 {
	t.Helper()
	arr := make([]int64, len(msgs))
	eng, err := NewEngine(r, p, func(d *Delivery) { arr[d.Tag] = d.Arrived })
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range msgs {
		m.Tag = int32(i)
		eng.Send(m)
	}
	if err := eng.Run(1 << 40); err != nil {
		t.Fatal(err)
	}
	if !eng.Idle() {
		t.Fatal("engine not idle after the run")
	}
	return arr
}

func TestLoneMessageLatency(t *testing.T) {
	for _, spec := range []string{"mesh:8x8", "torus:6x6", "mesh:3x4x5"} {
		g := mustSpec(t, spec)
		r := NewGridRouter(g)
		for _, p := range []Params{DefaultParams(), {MessageFlits: 1, RouterDelay: 1, FlitBytes: 1}, {MessageFlits: 100, RouterDelay: 7, FlitBytes: 4}} {
			for s := 0; s < g.N(); s += 3 {
				for d := 0; d < g.N(); d += 5 {
					got := run(t, r, p, []Message{{Src: int32(s), Dst: int32(d)}})[0]
					if want := p.Latency(g.Dist(s, d)); got != want {
						t.Fatalf("%s %+v: %d->%d arrived at %d, want %d hops x %d + %d = %d", spec, p, s, d, got, g.Dist(s, d), p.RouterDelay, p.MessageFlits, want)
					}
				}
			}
		}
	}
}

func TestSharedLinkSerializesDisjointDoNot(t *testing.T) {
	r := NewGridRouter(mustSpec(t, "mesh:4x1"))
	p := Params{MessageFlits: 10, RouterDelay: 2, FlitBytes: 1}
	S, R := p.MessageFlits, p.RouterDelay
	// 0->2 and 1->3 share the link 1->2. 1->3 takes it at cycle 0; 0->2 reaches it at
	// cycle R and waits (holding 0->1) until 1->3's tail arrives at 2R+S.
	got := run(t, r, p, []Message{{Src: 0, Dst: 2}, {Src: 1, Dst: 3}})
	if want := []int64{2*R + S + R + S, 2*R + S}; got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("sharing messages arrived at %v, want %v", got, want)
	}
	// 0->1 and 2->3 share nothing: both take the lone latency.
	got = run(t, r, p, []Message{{Src: 0, Dst: 1}, {Src: 2, Dst: 3}})
	if got[0] != R+S || got[1] != R+S {
		t.Fatalf("disjoint messages arrived at %v, want %d each", got, R+S)
	}
	// Opposite directions use different channels.
	got = run(t, r, p, []Message{{Src: 0, Dst: 3}, {Src: 3, Dst: 0}})
	if got[0] != 3*R+S || got[1] != 3*R+S {
		t.Fatalf("opposite messages arrived at %v, want %d each", got, 3*R+S)
	}
	// Two messages to one destination share its ejection channel.
	got = run(t, r, p, []Message{{Src: 0, Dst: 1}, {Src: 2, Dst: 1}})
	if got[0] != R+S || got[1] != R+2*S {
		t.Fatalf("messages to one node arrived at %v, want %d and %d", got, R+S, R+2*S)
	}
	// One source sends one message at a time.
	got = run(t, r, p, []Message{{Src: 0, Dst: 1}, {Src: 0, Dst: 3}})
	if got[0] != R+S || got[1] != R+S+3*R+S {
		t.Fatalf("messages from one node arrived at %v, want %d and %d", got, R+S, R+S+3*R+S)
	}
}

func TestEveryMessageDelivered(t *testing.T) {
	for _, spec := range []string{"mesh:8x8", "torus:8x8", "mesh:4x4x4", "torus:4x4x4", "mesh:16x3"} {
		g := mustSpec(t, spec)
		r := NewGridRouter(g)
		rng := rand.New(rand.NewPCG(1, uint64(g.N())))
		var msgs []Message
		for range 5000 {
			msgs = append(msgs, Message{Src: int32(rng.IntN(g.N())), Dst: int32(rng.IntN(g.N()))})
		}
		arr := run(t, r, Params{MessageFlits: 8, RouterDelay: 1, FlitBytes: 1}, msgs)
		for i, a := range arr {
			if a == 0 {
				t.Fatalf("%s: message %d (%v) never arrived", spec, i, msgs[i])
			}
		}
	}
}

func TestUniformTrafficSaturatesBelowBisectionBound(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: saturation experiment")
	}
	for _, k := range []int{8, 16} {
		g := mustSpec(t, fmt.Sprintf("mesh:%dx%d", k, k))
		r := NewGridRouter(g)
		bound := BisectionBound(g.Dims(), g.Wrap())
		if want := 4.0 / float64(k); bound != want {
			t.Fatalf("bisection bound of %dx%d = %v, want 4/k = %v", k, k, bound, want)
		}
		cfg := TrafficConfig{Warmup: 2000, Measure: 10000, Seed: 1}
		// The model saturates at 35-45 % of the bound (docs/comm.md: wormhole
		// switching without virtual channels); below 30 % it must not, and past
		// saturation it must still carry at least 30 % of the bound.
		cfg.Rate = 0.3 * bound
		low, err := UniformTraffic(context.Background(), r, DefaultParams(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if low.Saturated() || low.MeanLatency < low.ZeroLoadLatency {
			t.Fatalf("%dx%d at %.3f: %+v, want unsaturated with latency >= zero-load", k, k, cfg.Rate, low)
		}
		cfg.Rate = 2 * bound
		high, err := UniformTraffic(context.Background(), r, DefaultParams(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if !high.Saturated() || high.Accepted > bound*1.02 || high.Accepted < 0.3*bound {
			t.Fatalf("%dx%d at %.3f: accepted %.4f, bound %.4f: %+v", k, k, cfg.Rate, high.Accepted, bound, high)
		}
	}
}

func TestDeadlockReported(t *testing.T) {
	// On a 5-ring, i -> i+2 has a unique shortest route through i+1. Sent together
	// over one channel a link (plainRouter: the engine gives an unknown router no
	// distance classes), each message takes its first link and waits for the next
	// message's first link: a cycle of channel dependencies that shortest-path
	// wormhole routing without virtual channels cannot escape. The engine must say
	// so, not hang. With the distance classes the engine gives a graph router
	// (hopclass.go) the second link is class 1 and all five arrive.
	g, err := topo.ReadGraph(strings.NewReader("n0 n1\nn1 n2\nn2 n3\nn3 n4\nn4 n0\n"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewGraphRouter(g)
	if err != nil {
		t.Fatal(err)
	}
	p := Params{MessageFlits: 50, RouterDelay: 1, FlitBytes: 1}
	eng, err := NewEngine(plainRouter{r}, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	for s := range 5 {
		eng.Send(Message{Src: int32(s), Dst: int32((s + 2) % 5)})
	}
	if err := eng.Run(1 << 20); !errors.Is(err, ErrDeadlock) {
		t.Fatalf("err = %v, want ErrDeadlock", err)
	}
	// With classes, sent together, they all arrive: each holds class 0 of its
	// first link and class 1 of its second, no waiting at all (52 cycles).
	var all []Message
	for s := range 5 {
		all = append(all, Message{Src: int32(s), Dst: int32((s + 2) % 5)})
	}
	for i, a := range run(t, r, p, all) {
		if a != 52 {
			t.Fatalf("message %d with classes arrived at %d, want 52", i, a)
		}
	}
	// One at a time they all arrive, with or without classes.
	for s := range 5 {
		for _, rt := range []Router{r, plainRouter{r}} {
			got := run(t, rt, p, []Message{{Src: int32(s), Dst: int32((s + 2) % 5)}})
			if got[0] != 52 {
				t.Fatalf("lone message %d arrived at %d, want 52", s, got[0])
			}
		}
	}
}

func TestParamsValidate(t *testing.T) {
	for _, p := range []Params{{0, 1, 1}, {1, 0, 1}, {1, 1, 0}, {-5, 1, 1}, {1 << 40, 1, 1}} {
		if err := p.Validate(); err == nil {
			t.Errorf("%+v accepted", p)
		}
	}
	if _, err := UniformTraffic(context.Background(), NewGridRouter(mustSpec(t, "mesh:2x2")), DefaultParams(), TrafficConfig{Rate: 0}); err == nil {
		t.Error("rate 0 accepted")
	}
	if _, err := ParsePattern("gossip"); err == nil || !strings.Contains(err.Error(), "all-to-all") {
		t.Errorf("unknown pattern: %v", err)
	}
}

func BenchmarkEngineUniform16x16(b *testing.B) {
	g := mustSpec(b, "mesh:16x16")
	r := NewGridRouter(g)
	rng := rand.New(rand.NewPCG(1, 2))
	const msgs = 200000
	src := make([]Message, msgs)
	for i := range src {
		s, d := rng.IntN(g.N()), rng.IntN(g.N())
		src[i] = Message{Src: int32(s), Dst: int32(d)}
	}
	var hops int64
	b.ResetTimer()
	for range b.N {
		eng, _ := NewEngine(r, DefaultParams(), nil)
		for _, m := range src {
			eng.Send(m)
		}
		if err := eng.Run(1 << 50); err != nil {
			b.Fatal(err)
		}
		hops += eng.Stats().Hops
	}
	b.ReportMetric(float64(hops)/b.Elapsed().Seconds()/1e6, "Mhops/s")
}

// BenchmarkWorkloadAllToAll16x16 is the engine's share of a Bunde et al. 2004 replay
// without the rest of the simulator: waves of all-to-all jobs that tile a 16x16 mesh
// (runs of consecutive nodes), each sending 3000 messages.
func BenchmarkWorkloadAllToAll16x16(b *testing.B) {
	g := mustSpec(b, "mesh:16x16")
	r := NewGridRouter(g)
	pat, _ := ParsePattern("all-to-all")
	sizes := []int{128, 64, 32, 16, 8, 4, 2, 1, 1}
	var msgs int64
	for range b.N {
		w, err := NewWorkload(r, DefaultParams(), pat, 1, func(int, JobStats) {})
		if err != nil {
			b.Fatal(err)
		}
		eng := w.Engine()
		id := 0
		for wave := range 8 {
			start := 0
			for k := range sizes {
				p := sizes[(k+wave)%len(sizes)]
				nodes := make([]int, p)
				for i := range nodes {
					nodes[i] = (start + i*(wave+1)) % g.N() // spread more every wave
				}
				start += p
				if _, err := w.Start(id, nodes, 3000); err != nil {
					b.Fatal(err)
				}
				id++
			}
			for !eng.Idle() {
				if err := eng.Run(eng.Now() + 1<<40); err != nil {
					b.Fatal(err)
				}
			}
		}
		msgs += eng.Stats().Delivered
	}
	b.ReportMetric(float64(msgs)/b.Elapsed().Seconds()/1e6, "Mmsgs/s")
}

func TestRoute2DMeshMatchesGeneralRoute(t *testing.T) {
	for _, spec := range []string{"mesh:5x7", "mesh:16x16", "mesh:1x6", "mesh:6x1", "mesh:16x22"} {
		r := NewGridRouter(mustSpec(t, spec))
		for s := range r.Endpoints() {
			for d := range r.Endpoints() {
				fast := r.Route(s, d, []int32{-7})
				general := r.routeAnyGrid(s, d, []int32{-7})
				if !slices.Equal(fast, general) {
					t.Fatalf("%s %d->%d: route %v, general routing gives %v", spec, s, d, fast, general)
				}
			}
		}
	}
}

// The channel counters are 32 bits wide with the wraps counted apart: a channel
// that has carried 2^32 - 1 messages and carries one more reports 2^32.
func TestChannelCountPast32Bits(t *testing.T) {
	r := NewGridRouter(mustSpec(t, "mesh:4x4"))
	eng, err := NewEngine(r, DefaultParams(), nil)
	if err != nil {
		t.Fatal(err)
	}
	c := r.Route(0, 1, nil)[0]
	eng.ch[c].carried = math.MaxUint32
	for range 2 {
		eng.Send(Message{Src: 0, Dst: 1})
	}
	if err := eng.Run(1000); err != nil {
		t.Fatal(err)
	}
	if got := eng.Stats().MaxChannelMessages; got != 1<<32+1 {
		t.Fatalf("max channel messages = %d, want 2^32 + 1", got)
	}
	eng.Reset()
	if got := eng.Stats().MaxChannelMessages; got != 0 {
		t.Fatalf("after Reset: max channel messages = %d, want 0", got)
	}
}
