package netsim

import (
	"fmt"
	"math"

	"github.com/procalloc/procalloc/topo"
)

// Input virtual channel states (BookSim2's VC::eVCState).
const (
	vcIdle uint8 = iota
	vcRouting
	vcVCAlloc
	vcActive
)

// Allocation results below -1 are stalls (BookSim2's STALL_*).
const (
	resNone     = -1
	resBusy     = -2 // no output virtual channel free (VA) ...
	resConflict = -3 // lost the allocation
	resFull     = -4 // no credit downstream
)

// Wheel event kinds, in the top two bits.
const (
	evFlit       = 0 // a flit reaches an input virtual channel: a = global input VC, b = flit
	evCredit     = 1 // a credit reaches an output virtual channel: a = global output VC
	evTermCredit = 2 // a credit reaches a terminal: a = terminal*V + vc
	evEject      = 3 // a flit reaches its destination terminal: a = terminal, b = flit
)

type qent struct {
	t      int64
	ivc    int32 // local input VC: port*V + vc
	res    int32
	in, vc int16 // its port and virtual channel
}

type frouter struct {
	base, np int32 // first global port, number of ports
	routeQ   []qent
	vaQ      []qent
	saQ      []qent
	saSpare  []qent // saUpdate's next saQ (scratch, its own array)
	listed   bool
	xbar     int64 // switch traversal over ST > 1 cycles: the start of the newest batch (crossbar)
}

// fivc is an input virtual channel: its buffer's head and flit count, its state,
// and, once routed, its output port (local), output VC and the VC range allowed.
type fivc struct {
	head, count int32
	outP, outV  int32
	lo, hi      int32
	router      int32 // the router it belongs to
	state       uint8
}

// fovc is an output virtual channel: the credits in use (flits sent and not yet
// freed downstream) and the local input VC holding it (-1: free).
type fovc struct {
	occ, use int32
}

// fport is what saUpdate reads of global port gp, packed from outDown, outLat, inUp
// and inLat by Reset: the downstream input port of output gp (-1-t: terminal t)
// and the cycles from a switch allocation to the flit's arrival there, and the
// upstream output port of input gp (-1-t: terminal t) and the cycles from a switch
// allocation to its credit's arrival there.
type fport struct {
	down, flitDelay int32
	up, creditDelay int32
}

type fpacket struct {
	src, dst int32
	tag      int32
	hops     int32
	ph       int8 // torus: the VC class of the current dimension
	ctime    int64
	itime    int64
}

type pendingPkt struct {
	ctime    int64
	dst, tag int32
}

type fterm struct {
	q     []pendingPkt
	qh    int
	cur   int32 // packet being injected, -1: none
	next  int32 // index of the next flit of cur
	vc    int32
	lvc   int32
	inj   int32 // global input port of its router's terminal port
	queue bool  // in the engine's list of sources with work
}

// FlitEngine is a cycle-level model of BookSim2's input-queued virtual-channel router
// network (N. Jiang, D. U. Becker, G. Michelogeannakis, J. Balfour, B. Towles, D. E.
// Shaw, J. Kim and W. J. Dally, "A detailed and flexible cycle-accurate
// network-on-chip simulator", ISPASS 2013, doi:10.1109/ISPASS.2013.6557149; the
// router is that of W. J. Dally and B. Towles, "Principles and Practices of
// Interconnection Networks", Morgan Kaufmann 2004, §16.2-16.3, with credit-based
// flow control, §13.3). Each router has an input buffer of VCBuffer flits per virtual
// channel per port; a packet's head flit is routed (RoutingDelay cycles), wins an
// output virtual channel in a one-iteration iSLIP allocator over input and output
// virtual channels (VCAllocDelay), then each flit wins the crossbar in a
// one-iteration iSLIP switch allocator over ports (SwitchAllocDelay; among an input's
// virtual channels bidding for one output the round-robin successor of the last
// winner bids) when the downstream buffer has a credit, crosses the switch
// (SwitchDelay) and the link (LinkDelay). An output virtual channel is free again as
// soon as a tail has been sent on it (wait_for_tail_credit = 0). Credits return over
// the link when a flit leaves a buffer. Each stage's cycle and the order of the
// evaluate and update phases follow BookSim2's IQRouter (commit 28f43299) step by
// step, so that a lone head flit takes R+VA+SA+ST+L cycles per hop, the body flits
// stream behind it one per cycle.
//
// Terminals (grid nodes, graph hosts) hold an unbounded queue of packets and inject
// one flit per cycle over a 1-cycle channel into their router's terminal port,
// picking the next free virtual channel after the one they used last; ejection takes
// one cycle and returns credits at once. Routing: dimension order on meshes (x, then
// y, ...), and on tori the shorter way round (a tie at random) with the virtual
// channels split into two classes per dimension by whether the route crosses the
// wraparound link, BookSim2's dim_order_torus; on a dragonfly the minimal
// (local-global-local) routes of DragonflyRouter, the routes the message engine and
// the static route metrics take, and shortest paths of GraphRouter on other graphs
// (all virtual channels usable, so a cyclic graph may deadlock: the watchdog reports
// it; HopClasses avoids it).
//
// Deterministic: the same inputs and seed give the same cycles. A watchdog returns
// ErrDeadlock, naming a cycle of waiting virtual channels, when no flit has moved for
// a while although some are in the network.
type FlitEngine struct {
	cfg        FlitConfig
	m          topo.Machine
	spec       string
	vcs, vcBuf int32 // cfg.VCs and cfg.VCBuffer, read in the inner loops
	nterm      int
	routers    []frouter

	// grid routing
	grid   *topo.Grid
	dims   []int32
	wrap   []bool
	stride []int32
	coord  []int32 // coord[node*nd + j]
	// I/O nodes (meshes with topo.Grid.IO): ncomp compute nodes, I/O node j is
	// terminal and router ncomp+j, linked to router ioAttach[j]; ioPort[v] is the
	// I/O node attached to compute node v, or -1. nil without I/O nodes.
	ncomp    int32
	ioAttach []int32
	ioPort   []int32
	// graph routing
	graph nextHopper
	nbr   [][]int32 // graph: neighbours of each vertex, ascending (port order)

	portRouter []int32 // global port -> router
	outDown    []int32 // global output port -> downstream global input port; -1-t: terminal t; -1<<30: none
	inUp       []int32 // global input port -> upstream global output port; -1-t: terminal t
	outLat     []int32 // global output port -> flit latency of its channel
	inLat      []int32 // global input port -> credit latency back to its upstream
	termPort   []int32 // terminal -> global port of its router's terminal port
	ports      []fport // the four above per global port, packed (built by Reset)

	// input virtual channels, global index gp*vcs + vc
	buf    []int32 // buffers, vcBuf flits each
	iv     []fivc
	swRR   []int32 // per global input port
	saAptr []int32 // per global input port
	saGptr []int32 // per global output port
	vaAptr []int32 // per global input VC
	vaGptr []int32 // per global output VC
	// output virtual channels, global index gp*vcs + vc
	ov []fovc

	terms   []fterm
	termOcc []int32
	termUse []int32
	active  []int32 // terminals with work

	pkts     []fpacket
	freePkts []int32

	wheel [][]uint64
	wmask int64

	list, next []int32 // routers to step this cycle / next cycle

	now      int64
	rng      *Rand
	deliver  func(*Delivery)
	gen      func(t int64)
	eject    func(t int64, f int32)
	dv       Delivery
	stop     bool
	inNet    int64 // flits injected and not yet ejected
	lastMove int64
	watchdog int64

	// scratch for the allocators
	reqIn, reqOut, reqLab []int32
	grant, accept         []int32
	touched               []int32

	flitHops, delivered, hops, injected int64
	portFlits                           []int64 // flits sent on each global output port (router-to-router ones counted)
	lastSend                            []int64 // ST > 1: the last cycle a flit left each global output port (crossbar)
	lone0                               float64 // zeroLoad's simulated self-packet latency (small buffers), 0: not yet
	// headHop, when set (tests), is told of every router-to-router link a head
	// flit takes: its packet and the global output port.
	headHop func(pkt, gop int32)
	events  int64 // events in the wheel
}

// Now is the last cycle simulated.
func (e *FlitEngine) Now() int64 { return e.now }

// Config returns the engine's configuration.
func (e *FlitEngine) Config() FlitConfig { return e.cfg }

// Stop makes Run return after the current cycle.
func (e *FlitEngine) Stop() { e.stop = true }

// Send queues message m at its source at the current cycle; it can start leaving in
// the next cycle. Packets leave a source in the order they were queued.
func (e *FlitEngine) Send(m Message) error {
	if m.Src < 0 || int(m.Src) >= e.nterm || m.Dst < 0 || int(m.Dst) >= e.nterm {
		return fmt.Errorf("flit engine: message %d -> %d: endpoints of %s are 0..%d", m.Src, m.Dst, e.spec, e.nterm-1)
	}
	e.enqueue(m.Src, m.Dst, m.Tag, e.now)
	return nil
}

func (e *FlitEngine) enqueue(src, dst, tag int32, t int64) {
	tm := &e.terms[src]
	if tm.qh > 0 && tm.qh == len(tm.q) {
		tm.q, tm.qh = tm.q[:0], 0
	}
	tm.q = append(tm.q, pendingPkt{ctime: t, dst: dst, tag: tag})
	if !tm.queue {
		tm.queue = true
		e.active = append(e.active, src)
	}
}

// Idle reports whether no packet is queued or in the network.
func (e *FlitEngine) Idle() bool { return e.inNet == 0 && len(e.active) == 0 }

func (e *FlitEngine) push(t int64, kind uint64, a, b int32) {
	w := &e.wheel[t&e.wmask]
	*w = append(*w, kind<<62|uint64(uint32(a))<<32|uint64(uint32(b)))
	e.events++
}

// Run simulates cycles up to and including limit. It returns ErrDeadlock (wrapped,
// naming the waiting virtual channels) when flits are in the network but none has
// moved for a long time.
//
// A network with nothing queued, in flight or pending (and no traffic generator)
// has nothing to do until the next Send: Run then moves Now to limit at once, so
// that a replay's idle stretches between jobs cost nothing.
func (e *FlitEngine) Run(limit int64) error {
	e.stop = false
	for e.now < limit {
		if e.inNet == 0 && len(e.active) == 0 && e.events == 0 && len(e.list) == 0 && e.gen == nil {
			e.now, e.lastMove = limit, limit
			return nil
		}
		t := e.now + 1
		e.now = t
		e.cycle(t)
		if e.inNet > 0 && t-e.lastMove > e.watchdog {
			return e.deadlock(t)
		}
		if e.inNet == 0 {
			e.lastMove = t
		}
		if e.stop {
			return nil
		}
	}
	return nil
}

func (e *FlitEngine) cycle(t int64) {
	// Arrivals of this cycle: flits into input buffers, credits (BookSim2's
	// ReadInputs and _InputQueuing, and the terminals' reads).
	// Nothing below pushes events (deliver may only Send and Stop).
	b := &e.wheel[t&e.wmask]
	V, B := e.vcs, e.vcBuf
	for _, ev := range *b {
		a, x := int32(uint32(ev>>32)&(1<<30-1)), int32(uint32(ev))
		switch ev >> 62 {
		case evFlit:
			// Flit x enters the buffer of global input VC a (BookSim2's
			// _InputQueuing).
			iv := &e.iv[a]
			c := iv.count
			i := iv.head + c
			if i >= B {
				i -= B
			}
			e.buf[a*B+i] = x
			iv.count = c + 1
			r := iv.router
			rt := &e.routers[r]
			switch iv.state {
			case vcIdle:
				e.toRouting(rt, mkq(a-rt.base*V, V))
			case vcActive:
				if c == 0 {
					rt.saQ = append(rt.saQ, mkq(a-rt.base*V, V))
				}
			}
			if !rt.listed {
				rt.listed = true
				e.list = append(e.list, r)
			}
		case evCredit:
			e.ov[a].occ--
		case evTermCredit:
			e.termOcc[a]--
		case evEject:
			e.ejected(a, x, t)
		}
	}
	e.events -= int64(len(*b))
	*b = (*b)[:0]
	if e.gen != nil {
		e.gen(t)
	}
	if len(e.active) > 0 {
		e.injectAll(t)
	}
	list := e.list
	e.next = e.next[:0]
	for _, r := range list {
		if e.step(r, t) {
			e.next = append(e.next, r)
		} else {
			e.routers[r].listed = false
		}
	}
	e.list, e.next = e.next, list
}

// toRouting queues the head flit at the front of input VC q for routing, or, with a
// routing delay of 0 (BookSim2's lookahead routing, the route computed upstream),
// routes it at once and queues it for VC allocation in this cycle.
func (e *FlitEngine) toRouting(rt *frouter, q qent) {
	g := rt.base*e.vcs + q.ivc
	if e.cfg.RoutingDelay == 0 {
		e.route(rt, q.ivc)
		rt.vaQ = append(rt.vaQ, q)
		return
	}
	e.iv[g].state = vcRouting
	rt.routeQ = append(rt.routeQ, q)
}

func mkq(l, V int32) qent {
	return qent{t: -1, ivc: l, res: resNone, in: int16(l / V), vc: int16(l % V)}
}

// injectAll lets every terminal with work inject one flit (TrafficManager::_Step).
func (e *FlitEngine) injectAll(t int64) {
	V, B := e.vcs, e.vcBuf
	keep := e.active[:0]
	for _, s := range e.active {
		tm := &e.terms[s]
		if tm.cur < 0 {
			if tm.qh == len(tm.q) {
				tm.queue = false
				continue
			}
			p := tm.q[tm.qh]
			if p.ctime > t {
				keep = append(keep, s)
				continue
			}
			tm.qh++
			tm.cur = e.newPacket(s, p)
			tm.next, tm.vc = 0, -1
		}
		keep = append(keep, s)
		if tm.vc < 0 { // head: the first free virtual channel after the last used
			for i := int32(1); i <= V; i++ {
				vc := int32(0)
				if tm.lvc >= 0 {
					vc = (tm.lvc + i) % V
				}
				if e.termUse[s*V+vc] < 0 && e.termOcc[s*V+vc] < B {
					tm.vc = vc
					break
				}
			}
			if tm.vc < 0 {
				continue
			}
		}
		tv := s*V + tm.vc
		if e.termOcc[tv] >= B {
			continue
		}
		S := int32(e.cfg.PacketFlits)
		f := tm.cur << 2
		if tm.next == 0 {
			f |= 2
			e.termUse[tv] = 1
			tm.lvc = tm.vc
			e.pkts[tm.cur].itime = t
		}
		e.termOcc[tv]++
		tm.next++
		if tm.next == S {
			f |= 1
			e.termUse[tv] = -1
			tm.cur = -1
		}
		e.inNet++
		e.injected++
		e.lastMove = t
		e.push(t+2, evFlit, tm.inj*V+tv%V, f)
	}
	e.active = keep
}

func (e *FlitEngine) newPacket(src int32, p pendingPkt) int32 {
	var id int32
	if n := len(e.freePkts); n > 0 {
		id = e.freePkts[n-1]
		e.freePkts = e.freePkts[:n-1]
	} else {
		e.pkts = append(e.pkts, fpacket{})
		id = int32(len(e.pkts) - 1)
	}
	e.pkts[id] = fpacket{src: src, dst: p.dst, tag: p.tag, ctime: p.ctime}
	return id
}

func (e *FlitEngine) ejected(term, f int32, t int64) {
	e.inNet--
	e.lastMove = t
	if e.eject != nil {
		e.eject(t, f)
	}
	if f&1 == 0 {
		return
	}
	id := f >> 2
	p := &e.pkts[id]
	e.delivered++
	e.hops += int64(p.hops)
	if e.deliver != nil {
		e.dv = Delivery{Message: Message{Src: p.src, Dst: p.dst, Tag: p.tag}, Hops: int(p.hops), Queued: p.ctime, Injected: p.itime, Arrived: t}
	}
	e.freePkts = append(e.freePkts, id)
	if e.deliver != nil {
		e.deliver(&e.dv)
	}
}

// step runs one cycle of router r (IQRouter::_InternalStep): the evaluate phases of
// routing, VC allocation and switch allocation, then their update phases. It
// reports whether the router has work left.
func (e *FlitEngine) step(r int32, t int64) bool {
	rt := &e.routers[r]
	R, VA, SA := int64(e.cfg.RoutingDelay), int64(e.cfg.VCAllocDelay), int64(e.cfg.SwitchAllocDelay)
	for i := len(rt.routeQ) - 1; i >= 0 && rt.routeQ[i].t < 0; i-- {
		rt.routeQ[i].t = t + R - 1
	}
	if len(rt.vaQ) > 0 {
		e.vaEvaluate(rt, t)
	}
	if len(rt.saQ) > 0 {
		e.saEvaluate(rt, t)
	}
	// Route update.
	if len(rt.routeQ) > 0 {
		k := 0
		for ; k < len(rt.routeQ); k++ {
			q := rt.routeQ[k]
			if q.t < 0 || q.t > t {
				break
			}
			e.route(rt, q.ivc)
			rt.vaQ = append(rt.vaQ, qent{t: -1, ivc: q.ivc, res: resNone, in: q.in, vc: q.vc})
		}
		rt.routeQ = rt.routeQ[:copy(rt.routeQ, rt.routeQ[k:])]
	}
	if len(rt.vaQ) > 0 {
		e.vaUpdate(rt, t, VA)
	}
	if len(rt.saQ) > 0 {
		e.saUpdate(rt, t, SA)
	}
	return len(rt.routeQ)+len(rt.vaQ)+len(rt.saQ) > 0
}

// FlitStats are totals since the engine was made or reset.
type FlitStats struct {
	Injected  int64 // flits that entered the network
	FlitHops  int64 // router-to-router links crossed by flits
	Delivered int64 // packets whose tail arrived
	Hops      int64 // links crossed by the delivered packets (per packet, not per flit)
	// MaxLinkFlits is the most flits any one router-to-router link has carried.
	MaxLinkFlits int64
}

// Stats returns the totals so far.
func (e *FlitEngine) Stats() FlitStats {
	s := FlitStats{Injected: e.injected, FlitHops: e.flitHops, Delivered: e.delivered, Hops: e.hops}
	for _, n := range e.portFlits {
		s.MaxLinkFlits = max(s.MaxLinkFlits, n)
	}
	return s
}

// ZeroLoadLatency is the mean latency of a lone packet over all ordered pairs of
// terminals, a terminal sending to itself included (BookSim2's uniform pattern; on a
// mesh with I/O nodes the compute nodes, among which FlitUniformTraffic runs): the
// head takes 2 cycles into its first router, R+VA+SA+ST+L per hop, R+VA+SA+ST+1 out
// of the last router, and the tail arrives S-1 cycles after it, ST-1 more with a
// switch traversal of ST > 1 cycles (crossbar; buffers of at least MinVCBuffer and
// R+VA >= ST-1 assumed, as in BookSim2's defaults).
func (e *FlitEngine) ZeroLoadLatency() float64 { return e.zeroLoad(e.meanHops()) }

// patternZeroLoad is ZeroLoadLatency over the packets of pattern d.
func (e *FlitEngine) patternZeroLoad(d *Destinations) float64 {
	h, ok := d.meanHops(e.routeHops)
	if !ok {
		return e.ZeroLoadLatency()
	}
	return e.zeroLoad(h)
}

// zeroLoad is a lone packet's latency over h hops (a mean over packets: h the mean).
// With buffers below the credit round trip, or a switch traversal of more than a
// cycle (whose batches interact with the credits: BookSim2 gives 59 cycles for a
// 2-hop packet with ST = 3 and 8-flit buffers, 56 with 32), the body moves in
// bursts and the tail falls behind by a constant that no closed form here gives: the latency of a lone
// packet to its own node is then simulated (on a one-router line with the same
// configuration) and each hop adds the head's R+VA+SA+ST+L, as in BookSim2 (its
// minimum latencies with 1- to 4-flit buffers, 162, 83, 58 and 45 cycles on mesh 8x8,
// are those of TestFlitLonePacketMatchesBookSim).
func (e *FlitEngine) zeroLoad(h float64) float64 {
	c := e.cfg
	if c.VCBuffer < c.MinVCBuffer() || c.SwitchDelay > 1 {
		if e.lone0 == 0 {
			e.lone0 = loneSelfLatency(c)
		}
		stages := float64(c.RoutingDelay + c.VCAllocDelay + c.SwitchAllocDelay + c.SwitchDelay)
		return e.lone0 + h*(stages+float64(c.LinkDelay))
	}
	stages := float64(c.RoutingDelay + c.VCAllocDelay + c.SwitchAllocDelay + c.SwitchDelay)
	lag := 0.0
	if c.PacketFlits > 1 { // the body falls ST-1 cycles behind the head at the last switch (crossbar)
		lag = float64(c.SwitchDelay - 1)
	}
	return 2 + h*(stages+float64(c.LinkDelay)) + stages + 1 + float64(c.PacketFlits-1) + lag
}

// loneSelfLatency is the latency of a lone packet from a terminal to itself under
// configuration c, simulated, counted as FlitUniformTraffic counts it (from the
// cycle it may first leave).
func loneSelfLatency(c FlitConfig) float64 {
	m := topo.Mesh(1, 1)
	c.Tie = TiePositive
	var got int64 = -1
	e, err := NewFlitEngine(m, c, func(d *Delivery) { got = d.Arrived - d.Queued - 1 })
	if err != nil {
		return math.NaN()
	}
	if e.Send(Message{Src: 0, Dst: 0}) != nil || e.Run(int64(1<<20)) != nil || got < 0 {
		return math.NaN()
	}
	return float64(got)
}

// routeHops is the number of router-to-router links on the engine's route from
// terminal src to terminal dst (compute nodes on a mesh with I/O nodes).
func (e *FlitEngine) routeHops(src, dst int) int {
	if e.grid == nil {
		h := 0
		for v := src; v != dst; v = e.graph.next(dst, v) {
			h++
		}
		return h
	}
	nd := len(e.dims)
	h := int32(0)
	for j, k := range e.dims {
		d := e.coord[src*nd+j] - e.coord[dst*nd+j]
		if d < 0 {
			d = -d
		}
		if e.wrap[j] && 2*d > k {
			d = k - d
		}
		h += d
	}
	return int(h)
}

// meanHops is the mean route length over all ordered pairs, self pairs included.
func (e *FlitEngine) meanHops() float64 {
	n := e.nterm
	if e.grid != nil {
		// Per dimension the mean distance over all pairs of coordinates.
		h := 0.0
		for j, k := range e.dims {
			s := 0
			for a := range k {
				for b := range k {
					d := int32(a) - int32(b)
					if d < 0 {
						d = -d
					}
					if e.wrap[j] && 2*d > k {
						d = k - d
					}
					s += int(d)
				}
			}
			h += float64(s) / float64(k*k)
		}
		return h
	}
	// Routes are shortest paths: the mean of BFS distances from every host (from
	// 1,024 evenly spaced hosts on larger graphs: an estimate) to every host.
	g := e.m.(*topo.Graph)
	step := max(1, n/1024)
	var hops, pairs int64
	for s := 0; s < n; s += step {
		for _, d := range g.DistRow(s)[:n] {
			hops += int64(d)
		}
		pairs += int64(n)
	}
	return float64(hops) / float64(pairs)
}

// deadlock builds the wait-for graph of input virtual channels holding flits and
