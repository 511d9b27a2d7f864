package netsim

import (
	"container/heap"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/procalloc/procalloc/topo"
)

// refEngine is the Engine's specification written as plainly as possible: a heap
// of events ordered by (time, creation number), a map of channel owners and FIFO
// queues of waiting messages, one queue per source. The optimised Engine must
// deliver exactly the same messages at exactly the same times in the same order.
type refEngine struct {
	r       Router
	p       Params
	now     int64
	seq     int64
	events  refHeap
	owner   map[int32]*refMsg
	waiting map[int32][]*refMsg
	srcQ    map[int32][]*refMsg
	busy    map[int32]bool
	deliver func(*Delivery)
}

type refMsg struct {
	Delivery
	route []int32
	hop   int
}

type refEvent struct {
	t, seq int64
	done   bool
	m      *refMsg
}

type refHeap []refEvent

func (h refHeap) Len() int { return len(h) }
func (h refHeap) Less(i, j int) bool {
	if h[i].t != h[j].t {
		return h[i].t < h[j].t
	}
	return h[i].seq < h[j].seq
}
func (h refHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *refHeap) Push(x any)   { *h = append(*h, x.(refEvent)) }
func (h *refHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func newRefEngine(r Router, p Params, deliver func(*Delivery)) *refEngine {
	return &refEngine{r: r, p: p, owner: map[int32]*refMsg{}, waiting: map[int32][]*refMsg{},
		srcQ: map[int32][]*refMsg{}, busy: map[int32]bool{}, deliver: deliver}
}

func (e *refEngine) push(t int64, done bool, m *refMsg) {
	e.seq++
	heap.Push(&e.events, refEvent{t: t, seq: e.seq, done: done, m: m})
}

func (e *refEngine) Send(m Message) {
	e.srcQ[m.Src] = append(e.srcQ[m.Src], &refMsg{Delivery: Delivery{Message: m, Queued: e.now}})
	if !e.busy[m.Src] {
		e.inject(m.Src)
	}
}

func (e *refEngine) inject(s int32) {
	q := e.srcQ[s]
	if len(q) == 0 {
		return
	}
	m := q[0]
	e.srcQ[s] = q[1:]
	e.busy[s] = true
	m.Injected = e.now
	m.route = e.r.Route(int(m.Src), int(m.Dst), nil)
	m.Hops = len(m.route)
	m.route = append(m.route, int32(e.r.Channels())+m.Dst)
	e.tryHop(m)
}

func (e *refEngine) tryHop(m *refMsg) {
	c := m.route[m.hop]
	if e.owner[c] != nil {
		e.waiting[c] = append(e.waiting[c], m)
		return
	}
	e.grant(m, c)
}

func (e *refEngine) grant(m *refMsg, c int32) {
	e.owner[c] = m
	m.hop++
	if m.hop == len(m.route) {
		e.push(e.now+e.p.MessageFlits, true, m)
	} else {
		e.push(e.now+e.p.RouterDelay, false, m)
	}
}

func (e *refEngine) Run(limit int64) {
	for len(e.events) > 0 && e.events[0].t <= limit {
		ev := heap.Pop(&e.events).(refEvent)
		e.now = ev.t
		if !ev.done {
			e.tryHop(ev.m)
			continue
		}
		for _, c := range ev.m.route {
			delete(e.owner, c)
			if w := e.waiting[c]; len(w) > 0 {
				e.waiting[c] = w[1:]
				e.grant(w[0], c)
			}
		}
		ev.m.Arrived = e.now
		e.busy[ev.m.Src] = false
		d := ev.m.Delivery
		if e.deliver != nil {
			e.deliver(&d)
		}
		if !e.busy[ev.m.Src] {
			e.inject(ev.m.Src)
		}
	}
	e.now = limit
}

// TestEngineMatchesReference drives the Engine and refEngine with the same random
// traffic (bursts sent between Runs, replies sent from the delivery callback, runs
// of random lengths) on meshes, tori, a fat tree and a mesh with I/O nodes, under
// several parameter sets, and requires identical delivery sequences; the meshes
// (with and without I/O nodes) once more with their routes held as runs.
func TestEngineMatchesReference(t *testing.T) {
	t.Run("routes", testEngineMatchesReference)
	defer func(n int) { runsMinNodes = n }(runsMinNodes)
	runsMinNodes = 0
	t.Run("runs", testEngineMatchesReference)
}

func testEngineMatchesReference(t *testing.T) {
	fat, err := topo.ParseMachine("fattree:4,4:4,4:8")
	if err != nil {
		t.Fatal(err)
	}
	fatRouter, err := NewRouter(fat)
	if err != nil {
		t.Fatal(err)
	}
	ioRouter, err := NewIORouter(mustSpec(t, "mesh:8x6:io=left"))
	if err != nil {
		t.Fatal(err)
	}
	routers := []Router{
		NewGridRouter(mustSpec(t, "mesh:8x8")),
		NewGridRouter(mustSpec(t, "torus:6x5")),
		NewGridRouter(mustSpec(t, "mesh:4x3x3")),
		fatRouter,
		ioRouter,
	}
	params := []Params{DefaultParams(), {MessageFlits: 1, RouterDelay: 1, FlitBytes: 1},
		{MessageFlits: 3, RouterDelay: 7, FlitBytes: 1}, {MessageFlits: 5, RouterDelay: 5, FlitBytes: 1},
		{MessageFlits: 100, RouterDelay: 2, FlitBytes: 8}}
	for _, r := range routers {
		// A second seed, compared in one piece.
		got, want := engineAndReference(t, r, DefaultParams(), 8)
		if !slices.Equal(got, want) {
			t.Fatalf("%s, seed 8: deliveries differ from the reference", r.Spec())
		}
		for _, p := range params {
			got, want := engineAndReference(t, r, p, 7)
			if len(got) != len(want) {
				t.Fatalf("%s %+v: %d deliveries, reference %d", r.Spec(), p, len(got), len(want))
			}
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("%s %+v: delivery %d = %+v, reference %+v", r.Spec(), p, i, got[i], want[i])
				}
			}
			if len(got) < 1000 {
				t.Fatalf("%s %+v: only %d deliveries", r.Spec(), p, len(got))
			}
		}
	}
}

func engineAndReference(t *testing.T, r Router, p Params, seed uint64) (got, want []Delivery) {
	t.Helper()
	n := r.Endpoints()
	// reply makes every message with an odd tag below 1<<20 answer its source, so
	// that the callback sends while the engine runs.
	var eng *Engine
	eng, err := NewEngine(r, p, func(d *Delivery) {
		got = append(got, *d)
		if d.Tag&1 == 1 && d.Tag < 1<<20 {
			eng.Send(Message{Src: d.Dst, Dst: d.Src, Tag: d.Tag<<1 | 1<<20})
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	var ref *refEngine
	ref = newRefEngine(r, p, func(d *Delivery) {
		want = append(want, *d)
		if d.Tag&1 == 1 && d.Tag < 1<<20 {
			ref.Send(Message{Src: d.Dst, Dst: d.Src, Tag: d.Tag<<1 | 1<<20})
		}
	})
	rng := rand.New(rand.NewPCG(seed, uint64(n)))
	tag := int32(0)
	for round := range 60 {
		burst := rng.IntN(3 * n)
		if round%10 == 9 {
			burst = 0 // let the network drain now and then
		}
		for range burst {
			m := Message{Src: int32(rng.IntN(n)), Dst: int32(rng.IntN(n)), Tag: tag}
			tag++
			eng.Send(m)
			ref.Send(m)
		}
		limit := eng.Now() + 1 + int64(rng.IntN(int(4*(p.MessageFlits+8*p.RouterDelay))))
		if round%10 == 9 {
			limit += 1 << 16
		}
		if err := eng.Run(limit); err != nil {
			t.Fatal(err)
		}
		ref.Run(limit)
		if eng.Now() != ref.now {
			t.Fatalf("%s: engine at %d after Run(%d)", r.Spec(), eng.Now(), limit)
		}
	}
	if err := eng.Run(eng.Now() + 1<<30); err != nil {
		t.Fatal(err)
	}
	ref.Run(ref.now + 1<<30)
	if !eng.Idle() {
		t.Fatalf("%s: engine not idle at the end", r.Spec())
	}
	return got, want
}
