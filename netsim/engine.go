package netsim

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
)

// ErrDeadlock is returned by Run when messages hold channels and wait for each other
// with no event left that could free one. The routers NewRouter builds cannot
// deadlock on the engine (dimension order on meshes, dateline channels on tori,
// distance classes on graphs whose routes could wait in a cycle, hopclass.go); a
// Router of the caller's can.
var ErrDeadlock = errors.New("network deadlock")

// Params are the timing parameters of the wormhole model, in cycles: one cycle is
// the time a link takes to carry one flit (every channel carries one flit per cycle).
type Params struct {
	// MessageFlits is the length S of every message in flits (>= 1).
	MessageFlits int64
	// RouterDelay is the time r, in cycles, that a message header takes to cross one
	// router and the link after it (>= 1).
	RouterDelay int64
	// FlitBytes is the size of a flit, used only to report hop-bytes (>= 1).
	FlitBytes int64
}

// DefaultParams are 32-flit messages of 8-byte flits and a one-cycle router delay.
func DefaultParams() Params { return Params{MessageFlits: 32, RouterDelay: 1, FlitBytes: 8} }

// maxParam bounds the parameters so that times stay far from int64 overflow and
// the calendar stays small.
const maxParam = 1 << 20

// Validate reports parameters outside their ranges.
func (p Params) Validate() error {
	if p.MessageFlits < 1 || p.MessageFlits > maxParam {
		return fmt.Errorf("message size %d flits: must be 1..%d", p.MessageFlits, maxParam)
	}
	if p.RouterDelay < 1 || p.RouterDelay > maxParam {
		return fmt.Errorf("router delay %d cycles: must be 1..%d", p.RouterDelay, maxParam)
	}
	if p.FlitBytes < 1 || p.FlitBytes > maxParam {
		return fmt.Errorf("flit size %d bytes: must be 1..%d", p.FlitBytes, maxParam)
	}
	return nil
}

// Latency is the time a message alone in the network takes over hops links:
// hops*r + S cycles (the header crosses hops routers, then the S flits stream in
// behind it, one per cycle).
func (p Params) Latency(hops int) int64 { return int64(hops)*p.RouterDelay + p.MessageFlits }

// Message is one message: from endpoint Src to endpoint Dst, Tag chosen by the caller
// (the owner, for instance a job).
type Message struct {
	Src, Dst int32 // endpoints: machine nodes 0..N-1, then I/O nodes N.. where the router has them
	Tag      int32 // the caller's, handed back in the Delivery
}

// Delivery describes a message that has arrived, passed to the engine's callback.
type Delivery struct {
	Message        // the message as sent
	Hops     int   // network links crossed (the route's length)
	Queued   int64 // time it was handed to Send
	Injected int64 // time its header left the source
	Arrived  int64 // time its tail reached the destination
}

// Event kinds, in the low bit of an event.
const (
	evHop  = 0 // the header tries to take the next channel of its route
	evDone = 1 // the tail has arrived: release every channel
)

type slot struct {
	msg Message
	// The route: network channels, then the destination's ejection channel; on a
	// large 2D mesh held as runs instead (Engine.runs), route then unused.
	route    []int32
	length   int32 // channels in the route, the ejection channel included
	hop      int32 // index in the route of the channel the header wants next
	next     int32 // next waiter in the queue of the channel this one waits for
	queued   int64
	injected int64
}

// slotRuns is a route as at most five runs of evenly spaced channel ids (I/O
// link, x hops, y hops, I/O link, ejection channel): 72 bytes whatever its
// length. A route across mesh:448x448:io=left is about 400 channels, 1.6 KB, and
// with 160,000 sources sending at once the written-out routes were two thirds of
// batch's heap.
type slotRuns struct {
	runs     [5]routeRun
	nruns    int32
	ri, rpos int32 // the run and the index in it of the channel the header wants
}

// runsMinNodes is the size of 2D mesh from which the engine holds routes as runs:
// there routes average 170 hops or more (680 bytes written out). On smaller meshes
// the written-out route is cheaper to follow (BenchmarkCommReplaySDSC16x16 took 17 %
// more CPU with runs: 10.2 against 8.75 s).
var runsMinNodes = 1 << 16 // a variable for the tests

// routeRun is a run of a route's channels: first, first+step, ... (count > 0).
type routeRun struct{ first, step, count int32 }

// runsNext moves slot id's cursor to its next channel (the header's hop was just
// incremented and is below length) and returns it; for engines that hold routes
// as runs.
func (e *Engine) runsNext(id int32) int32 {
	rs := &e.runs[id]
	rs.rpos++
	if rs.rpos == rs.runs[rs.ri].count {
		rs.ri, rs.rpos = rs.ri+1, 0
	}
	r := &rs.runs[rs.ri]
	return r.first + rs.rpos*r.step
}

// chanState is a channel's state: the slot holding it (or -1), the FIFO of slots
// waiting for it (through slot.next), and how many messages it has carried modulo
// 2^32 (Engine.carriedHigh counts the wraps): 16 bytes, four channels a cache line.
type chanState struct {
	owner, qhead, qtail int32
	carried             uint32
}

type pending struct {
	msg    Message
	queued int64
}

// Engine is a discrete-event model of wormhole switching (Dally & Towles 2004
// §13.2): a message's header takes the channels of its route one after the other,
// RouterDelay cycles apart; at a busy channel it waits, keeping the channels it
// already holds, in first-come first-served order; when the header has reached the
// destination the message holds its whole path while its S flits stream in, and the
// tail's arrival frees every channel of the path at once. Each endpoint sends one
// message at a time (the next leaves when the previous one's tail has arrived) and
// receives one at a time (its ejection channel is the last channel of every route to
// it). On a GraphRouter or DragonflyRouter whose routes could wait in a cycle the
// engine gives each router-to-router link distance classes (hopclass.go), channels
// of their own. docs/comm.md compares this with ProcSimity's flit-level model.
//
// Time is an integer number of cycles. Events at equal times are handled in the
// order they were created; a message that a delivery lets its source send leaves at
// once, before later events of the same cycle. So runs are deterministic.
type Engine struct {
	r      Router
	mesh2D *GridRouter // r, when it is a 2D mesh
	io     *IORouter   // r, when it is a mesh with I/O nodes
	hc     *hopClasses // distance classes on a graph whose routes can wait in a cycle, else nil
	runs   []slotRuns  // per slot, the routes as runs on a large 2D mesh (nil: written out)
	p      Params
	cur    int64 // every event at time <= cur has been handled

	buckets [][]uint64 // calendar: events (channel<<32 | slot<<1 | kind) of time t in buckets[t&mask]
	mask    int64
	events  int // events in the calendar
	active  int // messages injected and not yet arrived

	ch          []chanState // per channel; one struct so that a hop touches one cache line
	carriedHigh map[int32]int64
	eject       int32 // id of endpoint 0's ejection channel

	slots []slot
	free  []int32

	srcQ    [][]pending // per endpoint, messages waiting to leave
	srcHead []int32
	srcBusy []bool

	deliver func(*Delivery)
	dv      Delivery // passed to deliver (reused: no allocation per message)
	stop    bool

	hops, delivered int64
}

// NewEngine returns an idle engine at time 0 on router r. deliver, if not nil, is
// called for every message when its tail arrives; it may call Send and Stop.
func NewEngine(r Router, p Params, deliver func(*Delivery)) (*Engine, error) {
	return NewEngineContext(context.Background(), r, p, deliver)
}

// NewEngineContext is NewEngine stopped by ctx: finding a graph's or dragonfly's
// distance classes (seconds at 2 x 10^5 hosts) looks at it, and returns its cause
// when it ends.
func NewEngineContext(ctx context.Context, r Router, p Params, deliver func(*Delivery)) (*Engine, error) {
	if r == nil {
		return nil, errors.New("netsim: an engine needs a router (nil; NewRouter makes one)")
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	span := max(p.MessageFlits, p.RouterDelay) + 1
	size := int64(1) << bits.Len64(uint64(span))
	var hc *hopClasses
	if d, ok := r.(depRouter); ok {
		var err error
		if hc, err = d.classes().of(ctx, d); err != nil {
			return nil, err
		}
	}
	network := r.Channels()
	if hc != nil {
		network = hc.channels()
	}
	nch := network + r.Endpoints()
	e := &Engine{
		r: r, p: p, deliver: deliver, hc: hc,
		buckets: make([][]uint64, size), mask: size - 1,
		ch:      make([]chanState, nch),
		eject:   int32(network),
		srcQ:    make([][]pending, r.Endpoints()),
		srcHead: make([]int32, r.Endpoints()),
		srcBusy: make([]bool, r.Endpoints()),
	}
	switch r := r.(type) {
	case *GridRouter:
		if r.vcs == 1 && len(r.dims) == 2 {
			e.mesh2D = r
		}
	case *IORouter:
		e.io = r
	}
	if (e.mesh2D != nil || e.io != nil) && r.Endpoints() >= runsMinNodes {
		e.runs = []slotRuns{}
	}
	for i := range e.ch {
		e.ch[i] = chanState{owner: -1, qhead: -1, qtail: -1}
	}
	return e, nil
}

// Reset returns the engine to time 0 with no message anywhere and zero totals,
// keeping its memory, so that one engine can run many independent simulations
// without reallocating. A reset engine behaves exactly as a new one: slots are
// handed out again in the order a new engine creates them.
func (e *Engine) Reset() {
	e.cur, e.events, e.active, e.stop = 0, 0, 0, false
	for i := range e.buckets {
		e.buckets[i] = e.buckets[i][:0]
	}
	for i := range e.ch {
		e.ch[i] = chanState{owner: -1, qhead: -1, qtail: -1}
	}
	clear(e.carriedHigh)
	e.free = e.free[:0]
	for id := len(e.slots) - 1; id >= 0; id-- {
		e.free = append(e.free, int32(id))
	}
	for i := range e.srcQ {
		e.srcQ[i], e.srcHead[i], e.srcBusy[i] = e.srcQ[i][:0], 0, false
	}
	e.hops, e.delivered = 0, 0
}

// Now is the engine's current time: events up to it have been handled and a message
// sent now leaves at this time.
func (e *Engine) Now() int64 { return e.cur }

// Idle reports whether no message is in the network or waiting at a source.
func (e *Engine) Idle() bool { return e.active == 0 && e.queuedTotal() == 0 }

func (e *Engine) queuedTotal() int {
	n := 0
	for i, q := range e.srcQ {
		n += len(q) - int(e.srcHead[i])
	}
	return n
}

// Stop makes Run return once it has handled every event of the current cycle.
func (e *Engine) Stop() { e.stop = true }

// Send queues m at its source at the current time; the source sends its messages in
// the order they were queued, one at a time. An endpoint outside the network is an
// error (as FlitEngine.Send), and nothing is queued.
func (e *Engine) Send(m Message) error {
	if n := int32(len(e.srcQ)); m.Src < 0 || m.Src >= n || m.Dst < 0 || m.Dst >= n {
		return fmt.Errorf("message engine: message %d -> %d: endpoints of %s are 0..%d", m.Src, m.Dst, e.r.Spec(), n-1)
	}
	s := m.Src
	e.srcQ[s] = append(e.srcQ[s], pending{m, e.cur})
	if !e.srcBusy[s] {
		e.inject(s)
	}
	return nil
}

// inject starts the next queued message of source s at the current time.
func (e *Engine) inject(s int32) {
	q := e.srcQ[s]
	h := e.srcHead[s]
	if int(h) == len(q) {
		return
	}
	pm := q[h]
	h++
	if int(h) == len(q) {
		e.srcQ[s], h = q[:0], 0
	}
	e.srcHead[s] = h
	e.srcBusy[s] = true

	var id int32
	if n := len(e.free); n > 0 {
		id = e.free[n-1]
		e.free = e.free[:n-1]
	} else {
		e.slots = append(e.slots, slot{})
		id = int32(len(e.slots) - 1)
		if e.runs != nil {
			e.runs = append(e.runs, slotRuns{})
		}
	}
	sl := &e.slots[id]
	sl.msg, sl.queued, sl.injected, sl.hop, sl.next = pm.msg, pm.queued, e.cur, 0, -1
	var first int32
	switch src, dst := int(pm.msg.Src), int(pm.msg.Dst); {
	case e.runs != nil:
		rs := &e.runs[id]
		var runs []routeRun
		if e.mesh2D != nil {
			runs = e.mesh2D.runs2DMesh(src, dst, rs.runs[:0])
		} else {
			runs = e.io.routeRuns(src, dst, rs.runs[:0])
		}
		runs = append(runs, routeRun{e.eject + pm.msg.Dst, 0, 1})
		rs.nruns, rs.ri, rs.rpos = int32(len(runs)), 0, 0
		sl.length = 0
		for _, r := range runs {
			sl.length += r.count
		}
		first = runs[0].first
	default:
		switch {
		case e.mesh2D != nil: // the common case without an interface call
			sl.route = e.mesh2D.route2DMesh(src, dst, sl.route[:0])
		case e.io != nil:
			sl.route = e.io.Route(src, dst, sl.route[:0])
		default:
			sl.route = e.r.Route(src, dst, sl.route[:0])
			if e.hc != nil {
				e.hc.apply(sl.route)
			}
		}
		sl.route = append(sl.route, e.eject+pm.msg.Dst)
		sl.length = int32(len(sl.route))
		first = sl.route[0]
	}
	e.active++
	e.tryHop(id, first, e.cur)
}

func (e *Engine) push(t int64, ev uint64) {
	b := &e.buckets[t&e.mask]
	*b = append(*b, ev)
	e.events++
}

// tryHop lets the header of slot id take channel c, the next channel of its route,
// at time t, or queues it at that channel. (A hop event carries c so that the
// channel's state is read without going through the slot and its route.)
func (e *Engine) tryHop(id, c int32, t int64) {
	cs := &e.ch[c]
	if cs.owner >= 0 {
		e.wait(cs, id)
		return
	}
	e.granted(id, c, t)
}

// wait queues slot id at the busy channel cs.
func (e *Engine) wait(cs *chanState, id int32) {
	e.slots[id].next = -1
	if cs.qtail < 0 {
		cs.qhead = id
	} else {
		e.slots[cs.qtail].next = id
	}
	cs.qtail = id
}

// granted gives channel c to slot id at time t and schedules its next step.
func (e *Engine) granted(id, c int32, t int64) {
	e.ch[c].owner = id
	sl := &e.slots[id]
	sl.hop++
	if sl.hop == sl.length {
		e.push(t+e.p.MessageFlits, uint64(id)<<1|evDone)
		return
	}
	var c2 int32
	if e.runs == nil {
		c2 = sl.route[sl.hop]
	} else {
		c2 = e.runsNext(id)
	}
	e.push(t+e.p.RouterDelay, uint64(c2)<<32|uint64(id)<<1|evHop)
}

// arrive handles the tail of slot id arriving at time t.
func (e *Engine) arrive(id int32, t int64) {
	if e.runs != nil {
		rs := &e.runs[id] // granting a channel appends to neither e.runs nor e.slots
		for _, r := range rs.runs[:rs.nruns] {
			for c, i := r.first, int32(0); i < r.count; c, i = c+r.step, i+1 {
				e.release(c, t)
			}
		}
	} else {
		for _, c := range e.slots[id].route {
			e.release(c, t)
		}
	}
	sl := &e.slots[id]
	hops := int(sl.length) - 1
	src := sl.msg.Src
	if e.deliver != nil {
		e.dv = Delivery{Message: sl.msg, Hops: hops, Queued: sl.queued, Injected: sl.injected, Arrived: t}
	}
	e.free = append(e.free, id)
	e.active--
	e.hops += int64(hops)
	e.delivered++
	e.srcBusy[src] = false
	if e.deliver != nil {
		e.deliver(&e.dv)
	}
	if !e.srcBusy[src] {
		e.inject(src)
	}
}

// release frees channel c, held by an arriving tail, at time t: it counts the
// message and grants the channel to its first waiter.
func (e *Engine) release(c int32, t int64) {
	cs := &e.ch[c]
	cs.carried++
	if cs.carried == 0 {
		e.carriedWrapped(c)
	}
	w := cs.qhead
	if w < 0 {
		cs.owner = -1
		return
	}
	cs.qhead = e.slots[w].next
	if cs.qhead < 0 {
		cs.qtail = -1
	}
	e.granted(w, c, t)
}

func (e *Engine) carriedWrapped(c int32) {
	if e.carriedHigh == nil {
		e.carriedHigh = map[int32]int64{}
	}
	e.carriedHigh[c]++
}

// Run handles events in time order up to and including time limit, and then sets
// the current time to limit. If the delivery callback calls Stop, Run returns after
// the cycle in which it did, with Now at that cycle. It returns ErrDeadlock when
// messages wait for channels and no event is left to free one.
func (e *Engine) Run(limit int64) error {
	e.stop = false
	for e.cur < limit {
		if e.events == 0 {
			if e.active > 0 {
				return e.deadlock()
			}
			e.cur = limit
			return nil
		}
		t := e.cur + 1
		e.cur = t // messages that deliveries let leave now leave at t
		b := &e.buckets[t&e.mask]
		for i := 0; i < len(*b); i++ {
			ev := (*b)[i]
			e.events--
			id := int32(uint32(ev) >> 1)
			if ev&1 != evHop {
				e.arrive(id, t)
				continue
			}
			// tryHop and granted, written out: this is the hottest path.
			c := int32(ev >> 32)
			cs := &e.ch[c]
			if cs.owner >= 0 {
				e.wait(cs, id)
				continue
			}
			cs.owner = id
			sl := &e.slots[id]
			sl.hop++
			if sl.hop == sl.length {
				e.push(t+e.p.MessageFlits, uint64(id)<<1|evDone)
				continue
			}
			if e.runs == nil {
				c = sl.route[sl.hop]
			} else {
				c = e.runsNext(id)
			}
			e.push(t+e.p.RouterDelay, uint64(c)<<32|uint64(id)<<1|evHop)
		}
		*b = (*b)[:0]
		if e.stop {
			return nil
		}
	}
	return nil
}

func (e *Engine) deadlock() error {
	blocked := 0
	for _, cs := range e.ch {
		if cs.qhead >= 0 && cs.owner >= 0 {
			blocked++
		}
	}
	return fmt.Errorf("%s at cycle %d: %d messages in the network, %d channels with waiters: %w", e.r.Spec(), e.cur, e.active, blocked, ErrDeadlock)
}

// DistanceClasses is the number of distance classes each router-to-router link
// has (hopclass.go), 0 when the routes cannot wait in a cycle and links have one
// channel (or a torus's two dateline channels).
func (e *Engine) DistanceClasses() int {
	if e.hc == nil {
		return 0
	}
	return int(e.hc.classes)
}

// Stats are totals since the engine was made.
type Stats struct {
	Delivered int64 // messages arrived
	Hops      int64 // links crossed by arrived messages
	// MaxChannelMessages is the largest number of messages any one network channel
	// (ejection channels excluded) has carried; with distance classes on a graph,
	// any one link (its classes' messages together). A torus's two dateline
	// channels count apart.
	MaxChannelMessages int64
}

// Stats returns the totals so far.
func (e *Engine) Stats() Stats {
	s := Stats{Delivered: e.delivered, Hops: e.hops}
	carried := func(c int32) int64 { return e.carriedHigh[c]<<32 | int64(e.ch[c].carried) }
	if e.hc != nil {
		for c := range e.hc.links {
			n := carried(c)
			e.hc.classChannels(c, func(k int32) { n += carried(k) })
			s.MaxChannelMessages = max(s.MaxChannelMessages, n)
		}
		return s
	}
	for c := range e.eject {
		s.MaxChannelMessages = max(s.MaxChannelMessages, carried(c))
	}
	return s
}
