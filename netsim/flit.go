package netsim

import (
	"fmt"
	"slices"
	"strings"

	"github.com/procalloc/procalloc/topo"
)

// FlitConfig are the parameters of the flit-level engine. Every field must be set
// (DefaultFlitConfig gives BookSim2's defaults); zero or negative values are errors.
type FlitConfig struct {
	// VCs is the number of virtual channels per port. A torus needs an even number
	// of at least 2: half for the packets whose route in the current dimension
	// crosses the wraparound link and half for the others (BookSim2's dim_order
	// routing on a torus; one class would deadlock).
	VCs int
	// VCBuffer is the depth, in flits, of each virtual channel's input buffer. It
	// must cover the credit round trip (see MinVCBuffer), or a lone packet could
	// not stream one flit per cycle.
	VCBuffer int
	// PacketFlits is the length of every packet (message) in flits.
	PacketFlits int
	// RoutingDelay, VCAllocDelay, SwitchAllocDelay and SwitchDelay are the cycles of
	// the router's four pipeline stages (BookSim2's routing_delay, vc_alloc_delay,
	// sw_alloc_delay and st_final_delay; 1 each by default).
	RoutingDelay, VCAllocDelay, SwitchAllocDelay, SwitchDelay int
	// LinkDelay is the latency of a router-to-router channel in cycles (flits and
	// credits alike). BookSim2's k-ary n-cube gives its channels 1 cycle on a mesh
	// and 2 on a torus (use_noc_latency = 1, "torus channel is longer due to wrap
	// around"); BookSimLinkDelay returns that. Injection and ejection channels
	// always take 1 cycle.
	LinkDelay int
	// Seed drives the engine's own random choices: the direction of a torus route
	// when both ways round are equally long (BookSim2 draws it at random too).
	Seed uint64
	// HopClasses, on graphs, gives the packet on its h-th link (h from 0) only
	// virtual channel min(h, VCs-1) instead of any: with at least as many VCs as the
	// longest route has links, every packet climbs to a higher VC at each hop, so
	// shortest-path routing cannot deadlock on any graph (a dragonfly, a ring),
	// the distance-class scheme of Dally and Towles 2004 §14.1.2 (Günther 1981).
	// Without it (BookSim2's behaviour) every VC is usable at every hop. Ignored on
	// grids, whose routing is deadlock-free already.
	HopClasses bool
}

// BookSimLinkDelay is BookSim2's channel latency for machine m: 2 cycles on a grid
// with a wrapped dimension, 1 otherwise.
func BookSimLinkDelay(m topo.Machine) int {
	if g, ok := m.(*topo.Grid); ok && g.Wraps() {
		return 2
	}
	return 1
}

// DefaultFlitConfig is BookSim2's default input-queued router on machine m, with
// the configuration of docs/comm.md: one virtual channel on a mesh or graph and two
// (one per dateline class) on a torus, 8-flit buffers, 32-flit packets, one cycle
// per pipeline stage, BookSim2's link latency.
func DefaultFlitConfig(m topo.Machine) FlitConfig {
	vcs := 1
	if g, ok := m.(*topo.Grid); ok && g.Wraps() {
		vcs = 2
	}
	return FlitConfig{VCs: vcs, VCBuffer: 8, PacketFlits: 32, RoutingDelay: 1, VCAllocDelay: 1,
		SwitchAllocDelay: 1, SwitchDelay: 1, LinkDelay: BookSimLinkDelay(m)}
}

// MinVCBuffer is the smallest buffer that lets a virtual channel stream: a credit
// comes back ST + 2L + 2SA cycles after the switch allocation that used it (switch
// traversal, link, the downstream switch allocation that frees the slot, the credit's
// link back, and the allocation that uses it again), and a virtual channel wins at
// most one allocation every SA cycles, so it needs ceil((ST + 2L + 2SA) / SA)
// credits in flight (5 with BookSim2's defaults on a mesh, 7 with its 2-cycle torus
// links).
func (c FlitConfig) MinVCBuffer() int {
	rt := c.SwitchDelay + 2*c.LinkDelay + 2*c.SwitchAllocDelay
	return (rt + c.SwitchAllocDelay - 1) / c.SwitchAllocDelay
}

const maxFlitParam = 1 << 12

// Validate reports parameters outside their ranges, naming the field.
func (c FlitConfig) Validate() error {
	for _, f := range []struct {
		name string
		v    int
		max  int
	}{
		{"virtual channels", c.VCs, 64},
		{"vc buffer", c.VCBuffer, 1 << 16},
		{"packet size (flits)", c.PacketFlits, 1 << 20},
		{"routing delay", c.RoutingDelay, maxFlitParam},
		{"vc allocation delay", c.VCAllocDelay, maxFlitParam},
		{"switch allocation delay", c.SwitchAllocDelay, maxFlitParam},
		{"switch traversal delay", c.SwitchDelay, maxFlitParam},
		{"link delay", c.LinkDelay, maxFlitParam},
	} {
		if f.v < 1 || f.v > f.max {
			return fmt.Errorf("%s %d: must be 1..%d", f.name, f.v, f.max)
		}
	}
	if m := c.MinVCBuffer(); c.VCBuffer < m {
		return fmt.Errorf("vc buffer of %d flits is too small: a virtual channel needs at least %d to stream one flit per cycle, "+
			"since a credit returns %d cycles after the switch allocation that used it (switch traversal %d + link %d + downstream switch allocation %d + credit link %d + switch allocation %d)",
			c.VCBuffer, m, c.SwitchDelay+2*c.LinkDelay+2*c.SwitchAllocDelay, c.SwitchDelay, c.LinkDelay, c.SwitchAllocDelay, c.LinkDelay, c.SwitchAllocDelay)
	}
	return nil
}

// CheckMachine is Validate, and whether the engine can run on machine m: a mesh
// (with or without I/O nodes), a torus with an even number of virtual channels (at
// least 2, one per dateline class), or a graph.
func (c FlitConfig) CheckMachine(m topo.Machine) error {
	if err := c.Validate(); err != nil {
		return err
	}
	switch g := m.(type) {
	case *topo.Grid:
		if g.IO() != nil && g.Wraps() {
			return fmt.Errorf("flit engine: %s has I/O nodes on a torus; I/O nodes need a mesh", m.Spec())
		}
		if g.Wraps() && (c.VCs < 2 || c.VCs%2 != 0) {
			return fmt.Errorf("flit engine on torus %s: %d virtual channels; a torus needs an even number, at least 2, "+
				"for the two dateline classes (one class of virtual channels around a ring deadlocks)", m.Spec(), c.VCs)
		}
	case *topo.Graph:
	default:
		return fmt.Errorf("flit engine: no model for machine %s", m.Spec())
	}
	return nil
}

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
	cfg     FlitConfig
	m       topo.Machine
	spec    string
	V, B    int32
	nterm   int
	routers []frouter

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

	// input virtual channels, global index gp*V + vc
	buf    []int32 // buffers, B flits each
	iv     []fivc
	swRR   []int32 // per global input port
	saAptr []int32 // per global input port
	saGptr []int32 // per global output port
	vaAptr []int32 // per global input VC
	vaGptr []int32 // per global output VC
	// output virtual channels, global index gp*V + vc
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
	events                              int64   // events in the wheel
}

// NewFlitEngine returns an idle flit-level engine at cycle 0 on machine m (a mesh or
// torus, or a graph whose hosts are the terminals). deliver, if not nil, is called
// when a packet's tail reaches its destination; it may call Send and Stop.
func NewFlitEngine(m topo.Machine, cfg FlitConfig, deliver func(*Delivery)) (*FlitEngine, error) {
	if err := cfg.CheckMachine(m); err != nil {
		return nil, err
	}
	e := &FlitEngine{cfg: cfg, m: m, spec: m.Spec(), V: int32(cfg.VCs), B: int32(cfg.VCBuffer), deliver: deliver}
	switch g := m.(type) {
	case *topo.Grid:
		e.buildGrid(g)
	case *topo.Graph:
		var r nextHopper
		if df := NewDragonflyRouter(g); df != nil {
			r = df
		} else {
			gr, err := NewGraphRouter(g)
			if err != nil {
				return nil, err
			}
			r = gr
		}
		e.buildGraph(g, r)
	default:
		return nil, fmt.Errorf("flit engine: no model for machine %s", m.Spec())
	}
	if e.nterm < 1 {
		return nil, fmt.Errorf("flit engine: %s has no nodes", m.Spec())
	}
	np := len(e.portRouter)
	nv := np * cfg.VCs
	if int64(nv)*int64(cfg.VCBuffer) > 1<<28 || nv > 1<<28 {
		return nil, fmt.Errorf("flit engine: %s with %d virtual channels of %d flits is too large: %d buffered flits, at most 2^28 (1 GB)", m.Spec(), cfg.VCs, cfg.VCBuffer, int64(nv)*int64(cfg.VCBuffer))
	}
	e.buf = make([]int32, nv*cfg.VCBuffer)
	e.portFlits = make([]int64, np)
	e.iv = make([]fivc, nv)
	e.vaAptr = make([]int32, nv)
	e.vaGptr = make([]int32, nv)
	e.ov = make([]fovc, nv)
	e.swRR = make([]int32, np)
	e.saAptr = make([]int32, np)
	e.saGptr = make([]int32, np)
	e.termOcc = make([]int32, e.nterm*cfg.VCs)
	e.termUse = make([]int32, e.nterm*cfg.VCs)
	e.terms = make([]fterm, e.nterm)
	maxP := 0
	for _, r := range e.routers {
		maxP = max(maxP, int(r.np))
	}
	if maxP > 1<<15-1 {
		return nil, fmt.Errorf("flit engine: %s has a switch of %d ports; the flit engine handles at most %d", m.Spec(), maxP, 1<<15-1)
	}
	e.grant = make([]int32, maxP*cfg.VCs)
	e.accept = make([]int32, maxP*cfg.VCs)
	span := int64(cfg.SwitchDelay+cfg.LinkDelay+4) + 2
	size := int64(1)
	for size < span {
		size <<= 1
	}
	e.wheel = make([][]uint64, size)
	e.wmask = size - 1
	e.watchdog = 1000 + 20*int64(cfg.RoutingDelay+cfg.VCAllocDelay+cfg.SwitchAllocDelay+cfg.SwitchDelay+cfg.LinkDelay+cfg.VCBuffer)
	e.Reset()
	return e, nil
}

func (e *FlitEngine) addPort(r int32) int32 {
	e.portRouter = append(e.portRouter, r)
	e.outDown = append(e.outDown, -1<<30)
	e.inUp = append(e.inUp, -1<<30)
	e.outLat = append(e.outLat, int32(e.cfg.LinkDelay))
	e.inLat = append(e.inLat, int32(e.cfg.LinkDelay))
	return int32(len(e.portRouter) - 1)
}

// buildGrid numbers the ports of every router as BookSim2's k-ary n-cube does:
// output 2j goes to the + neighbour along dimension j, output 2j+1 to the -
// neighbour; input 2j comes from the + neighbour, input 2j+1 from the - neighbour;
// port 2n is the terminal's. A mesh with I/O nodes (topo.Grid.IO) gets, as
// IORouter, terminals N..N+K-1 for them: I/O node j is the terminal of a router of
// its own, router N+j, whose port 0 is linked to port 2n+1, a port the attachment
// node's router gains for it. That link is a router-to-router channel like the
// mesh's, with the same latency (LinkDelay) and buffers.
func (e *FlitEngine) buildGrid(g *topo.Grid) {
	e.grid = g
	nd := g.Dim()
	n := g.N()
	e.nterm = n
	s := int32(1)
	for j, d := range g.Dims() {
		e.dims = append(e.dims, int32(d))
		e.wrap = append(e.wrap, g.Wrap()[j])
		e.stride = append(e.stride, s)
		s *= int32(d)
	}
	e.coord = make([]int32, n*nd)
	for v := range n {
		for j := range nd {
			e.coord[v*nd+j] = (int32(v) / e.stride[j]) % e.dims[j]
		}
	}
	np := int32(2*nd + 1)
	io := g.IO()
	k := 0
	if io != nil {
		k = io.Count
		e.ncomp = int32(n)
		e.ioAttach = make([]int32, k)
		e.ioPort = make([]int32, n)
		for v := range n {
			e.ioPort[v] = -1
		}
		for j := range k {
			e.ioAttach[j] = int32(io.Attach(j))
			e.ioPort[io.Attach(j)] = int32(j)
		}
	}
	e.nterm = n + k
	e.routers = make([]frouter, n+k)
	e.termPort = make([]int32, n+k)
	for v := range n {
		rp := np
		if io != nil && e.ioPort[v] >= 0 {
			rp++ // port 2n+1: the link to the I/O node
		}
		base := int32(len(e.portRouter))
		e.routers[v] = frouter{base: base, np: rp}
		for range rp {
			e.addPort(int32(v))
		}
		e.termPort[v] = base + np - 1
	}
	// I/O node j's router n+j: port 0 is the link to its attachment, port 1 the
	// terminal's.
	for j := range k {
		r := int32(n + j)
		base := int32(len(e.portRouter))
		e.routers[r] = frouter{base: base, np: 2}
		e.addPort(r)
		e.addPort(r)
		e.termPort[r] = base + 1
		a := e.ioAttach[j]
		up := e.routers[a].base + np // the attachment's port 2n+1
		e.outDown[up], e.inUp[base] = base, up
		e.outDown[base], e.inUp[up] = up, base
	}
	for v := range n {
		for j := range nd {
			for dir := range 2 {
				c := e.coord[v*nd+j]
				nc := c + 1
				if dir == 1 {
					nc = c - 1
				}
				if nc < 0 || nc >= e.dims[j] {
					if !e.wrap[j] {
						continue
					}
					nc = (nc + e.dims[j]) % e.dims[j]
				}
				if nc == c {
					continue // a ring of one node
				}
				w := int32(v) + (nc-c)*e.stride[j]
				out := e.routers[v].base + int32(2*j+dir)
				// Moving +, the flit enters w from its - neighbour: input 2j+1.
				in := e.routers[w].base + int32(2*j+1-dir)
				e.outDown[out] = in
				e.inUp[in] = out
			}
		}
	}
	for v := range n + k {
		t := e.termPort[v]
		e.outDown[t] = -1 - int32(v)
		e.inUp[t] = -1 - int32(v)
		e.outLat[t], e.inLat[t] = 1, 1
	}
}

// buildGraph gives vertex v one port per neighbour (ascending) and, for a host, a
// terminal port last.
// nextHopper is a graph's routing as the flit engine asks for it, one hop at a time:
// the vertex after v on the route to host dst (v != dst).
type nextHopper interface {
	next(dst, v int) int
}

func (e *FlitEngine) buildGraph(g *topo.Graph, r nextHopper) {
	e.graph = r
	nv, n := g.Vertices(), g.N()
	e.nterm = n
	e.nbr = make([][]int32, nv)
	e.routers = make([]frouter, nv)
	e.termPort = make([]int32, n)
	var nb []int
	for v := range nv {
		nb = g.Neighbors(v, nb[:0])
		slices.Sort(nb)
		nb = slices.Compact(nb)
		for _, w := range nb {
			e.nbr[v] = append(e.nbr[v], int32(w))
		}
		base := int32(len(e.portRouter))
		np := int32(len(nb))
		if v < n {
			np++
		}
		e.routers[v] = frouter{base: base, np: np}
		for range np {
			e.addPort(int32(v))
		}
		if v < n {
			t := base + np - 1
			e.termPort[v] = t
			e.outDown[t] = -1 - int32(v)
			e.inUp[t] = -1 - int32(v)
			e.outLat[t], e.inLat[t] = 1, 1
		}
	}
	for v := range nv {
		for i, w := range e.nbr[v] {
			j, _ := slices.BinarySearch(e.nbr[w], int32(v))
			out := e.routers[v].base + int32(i)
			in := e.routers[w].base + int32(j)
			e.outDown[out] = in
			e.inUp[in] = out
		}
	}
}

// Reset returns the engine to cycle 0, empty, with zero totals, keeping its memory.
func (e *FlitEngine) Reset() {
	e.now, e.stop, e.inNet, e.lastMove = 0, false, 0, 0
	e.rng = NewRand(e.cfg.Seed, 7)
	clear(e.iv)
	for g := range e.iv {
		e.iv[g].router = e.portRouter[g/int(e.V)]
	}
	clear(e.termOcc)
	clear(e.swRR)
	clear(e.saAptr)
	clear(e.saGptr)
	clear(e.vaAptr)
	clear(e.vaGptr)
	for i := range e.ov {
		e.ov[i] = fovc{use: -1}
	}
	for i := range e.termUse {
		e.termUse[i] = -1
	}
	for i := range e.grant {
		e.grant[i], e.accept[i] = -1, -1
	}
	for i := range e.terms {
		e.terms[i] = fterm{q: e.terms[i].q[:0], cur: -1, lvc: -1, inj: e.termPort[i]}
	}
	e.active = e.active[:0]
	for i := range e.routers {
		r := &e.routers[i]
		r.routeQ, r.vaQ, r.saQ, r.listed = r.routeQ[:0], r.vaQ[:0], r.saQ[:0], false
	}
	for i := range e.wheel {
		e.wheel[i] = e.wheel[i][:0]
	}
	e.pkts = e.pkts[:0]
	e.freePkts = e.freePkts[:0]
	e.list, e.next = e.list[:0], e.next[:0]
	e.flitHops, e.delivered, e.hops, e.injected = 0, 0, 0, 0
	clear(e.portFlits)
	e.events = 0
	e.ports = e.ports[:0]
	ST := int32(e.cfg.SwitchDelay)
	for gp, d := range e.outDown {
		p := fport{down: d, flitDelay: ST + e.outLat[gp] + 1, up: e.inUp[gp], creditDelay: e.inLat[gp] + 1}
		if d < 0 {
			p.flitDelay = ST + 2 // 1-cycle ejection channel
		}
		if p.up < 0 {
			p.creditDelay = 2
		}
		e.ports = append(e.ports, p)
	}
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
	V, B := e.V, e.B
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
				iv.state = vcRouting
				rt.routeQ = append(rt.routeQ, mkq(a-rt.base*V, V))
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

func mkq(l, V int32) qent {
	return qent{t: -1, ivc: l, res: resNone, in: int16(l / V), vc: int16(l % V)}
}

// injectAll lets every terminal with work inject one flit (TrafficManager::_Step).
func (e *FlitEngine) injectAll(t int64) {
	V, B := e.V, e.B
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

// route computes the output port and virtual channel range of the head flit at the
// front of local input VC l (BookSim2's dim_order_mesh / dim_order_torus).
func (e *FlitEngine) route(rt *frouter, l int32) {
	V := e.V
	g := rt.base*V + l
	f := e.buf[g*e.B+e.iv[g].head]
	p := &e.pkts[f>>2]
	cur := e.portRouter[rt.base]
	inPort := l / V
	e.iv[g].state = vcVCAlloc
	lo, hi := int32(0), V-1
	var out int32
	switch {
	case e.graph != nil:
		if cur == p.dst {
			out = rt.np - 1
			break
		}
		nx := int32(e.graph.next(int(p.dst), int(cur)))
		j, _ := slices.BinarySearch(e.nbr[cur], nx)
		out = int32(j)
		if e.cfg.HopClasses {
			lo = min(p.hops, V-1)
			hi = lo
		}
	default:
		nd := int32(len(e.dims))
		out = 2 * nd // eject
		dst := p.dst
		if e.ioAttach != nil && (cur >= e.ncomp || dst >= e.ncomp) {
			// IORouter's routes: an I/O node's router sends everything over its
			// link (port 0) and ejects its own packets (port 1); towards an I/O
			// node, DOR to its attachment and then the link (port 2n+1).
			if cur >= e.ncomp {
				out = 0
				if cur == dst {
					out = 1
				}
				break
			}
			dst = e.ioAttach[dst-e.ncomp]
			if cur == dst {
				out = 2*nd + 1
				break
			}
		}
		for j := range nd {
			c, d := e.coord[cur*nd+j], e.coord[dst*nd+j]
			if c == d {
				continue
			}
			if !e.wrap[j] {
				out = 2 * j
				if c > d {
					out++
				}
				break
			}
			if inPort/2 == j { // already travelling along j: keep direction and class
				out = inPort ^ 1
			} else {
				k := e.dims[j]
				dist2 := k - 2*((d-c+k)%k)
				dir := int32(1)
				if dist2 > 0 || (dist2 == 0 && e.rng.Uint64()&1 == 0) {
					dir = 0
				}
				out = 2*j + dir
				// BookSim2's fixed dateline between k-1 and 0: class 1 when moving +
				// past it, or when moving - without crossing it (the classes of the -
				// direction are swapped; either way one class per ring never wraps and
				// the other always does, so neither can close a cycle).
				if (dir == 0 && c > d) || (dir == 1 && d < c) {
					p.ph = 1
				} else {
					p.ph = 0
				}
			}
			half := V / 2
			if p.ph == 0 {
				hi -= half
			} else {
				lo += half
			}
			break
		}
	}
	e.iv[g].outP, e.iv[g].lo, e.iv[g].hi = out, lo, hi
}

// islip runs one iteration of iSLIP (N. McKeown, "The iSLIP scheduling algorithm
// for input-queued switches", IEEE/ACM Trans. Networking 7(2), 1999,
// doi:10.1109/90.769767; BookSim2's iSLIP_Sparse with alloc_iters = 1) on the
// requests (reqIn[i], reqOut[i]) over n inputs and outputs: every requested output
// grants the first requesting input at or after its pointer gptr, every input
// accepts the first granting output at or after its pointer aptr, and the pointers
// of accepted pairs move one past each other. accept[in] is the matched output or -1
// (scratch: the caller resets the entries it reads).
func (e *FlitEngine) islip(n int32, gptr, aptr []int32) {
	grant, accept := e.grant, e.accept
	if len(e.reqIn) == 1 { // one request: granted and accepted
		in, out := e.reqIn[0], e.reqOut[0]
		accept[in] = out
		gptr[out] = cyc(in+1-n, n)
		aptr[in] = cyc(out+1-n, n)
		return
	}
	e.touched = e.touched[:0]
	for i, in := range e.reqIn {
		out := e.reqOut[i]
		g := grant[out]
		if g < 0 {
			grant[out] = in
			e.touched = append(e.touched, out)
			continue
		}
		p := gptr[out]
		if cyc(in-p, n) < cyc(g-p, n) {
			grant[out] = in
		}
	}
	for i, in := range e.reqIn {
		out := e.reqOut[i]
		if grant[out] != in {
			continue
		}
		a := accept[in]
		if a < 0 {
			accept[in] = out
			continue
		}
		p := aptr[in]
		if cyc(out-p, n) < cyc(a-p, n) {
			accept[in] = out
		}
	}
	for _, out := range e.touched {
		in := grant[out]
		if accept[in] == out {
			gptr[out] = cyc(in+1-n, n)
			aptr[in] = cyc(out+1-n, n)
		}
		grant[out] = -1
	}
}

// cyc is d mod n for d in [-n, n).
func cyc(d, n int32) int32 {
	if d < 0 {
		d += n
	}
	return d
}

func (e *FlitEngine) vaEvaluate(rt *frouter, t int64) {
	V := e.V
	base := rt.base * V
	e.reqIn, e.reqOut = e.reqIn[:0], e.reqOut[:0]
	first := len(rt.vaQ)
	for first > 0 && rt.vaQ[first-1].t < 0 {
		first--
	}
	for i := first; i < len(rt.vaQ); i++ {
		q := &rt.vaQ[i]
		g := base + q.ivc
		op := e.iv[g].outP
		ob := (rt.base + op) * V
		elig := false
		for ov := e.iv[g].lo; ov <= e.iv[g].hi; ov++ {
			if e.ov[ob+ov].use < 0 {
				elig = true
				e.reqIn = append(e.reqIn, q.ivc)
				e.reqOut = append(e.reqOut, op*V+ov)
			}
		}
		if !elig {
			q.res = resBusy
		}
	}
	if len(e.reqIn) > 0 {
		e.islip(rt.np*V, e.vaGptr[base:base+rt.np*V], e.vaAptr[base:base+rt.np*V])
	}
	VA := int64(e.cfg.VCAllocDelay)
	for i := first; i < len(rt.vaQ); i++ {
		q := &rt.vaQ[i]
		q.t = t + VA - 1
		if q.res < resNone {
			continue
		}
		if a := e.accept[q.ivc]; a >= 0 {
			q.res = a
		} else {
			q.res = resConflict
		}
	}
	for _, in := range e.reqIn {
		e.accept[in] = -1
	}
	if VA > 1 { // a grant made VA-1 cycles ago is lost if its VC was taken since
		for i := 0; i < first; i++ {
			q := &rt.vaQ[i]
			if q.t > t {
				break
			}
			if q.res >= 0 && e.ov[(rt.base+q.res/V)*V+q.res%V].use >= 0 {
				q.res = resBusy
			}
		}
	}
}

func (e *FlitEngine) vaUpdate(rt *frouter, t, VA int64) {
	V := e.V
	k := 0
	n := len(rt.vaQ)
	for ; k < n; k++ {
		q := rt.vaQ[k]
		if q.t < 0 || q.t > t {
			break
		}
		if q.res >= 0 {
			g := rt.base*V + q.ivc
			op, ov := q.res/V, q.res%V
			e.ov[(rt.base+op)*V+ov].use = q.ivc
			e.iv[g].outV = ov
			e.iv[g].state = vcActive
			rt.saQ = append(rt.saQ, qent{t: -1, ivc: q.ivc, res: resNone, in: q.in, vc: q.vc})
		} else {
			rt.vaQ = append(rt.vaQ, qent{t: -1, ivc: q.ivc, res: resNone, in: q.in, vc: q.vc})
		}
	}
	rt.vaQ = rt.vaQ[:copy(rt.vaQ, rt.vaQ[k:])]
}

func (e *FlitEngine) saEvaluate(rt *frouter, t int64) {
	V, B := e.V, e.B
	base := rt.base * V
	SA := int64(e.cfg.SwitchAllocDelay)
	first := len(rt.saQ)
	for first > 0 && rt.saQ[first-1].t < 0 {
		first--
	}
	distinct := false
	if first == len(rt.saQ)-1 { // a lone request
		q := &rt.saQ[first]
		iv := &e.iv[base+q.ivc]
		if e.ov[(rt.base+iv.outP)*V+iv.outV].occ >= B {
			q.res = resFull
		}
		distinct = true
	} else if rt.np <= 64 {
		distinct = e.saDistinct(rt, first)
	}
	if distinct {
		// Every request comes from its own input and goes to its own output (the
		// usual case at light load): iSLIP grants and accepts each one, and the
		// pointers move exactly as islip would move them.
		n := rt.np
		gptr, aptr, swRR := e.saGptr[rt.base:rt.base+n], e.saAptr[rt.base:rt.base+n], e.swRR[rt.base:rt.base+n]
		for i := first; i < len(rt.saQ); i++ {
			q := &rt.saQ[i]
			q.t = t + SA - 1
			if q.res < resNone {
				continue
			}
			in, op := int32(q.in), e.iv[base+q.ivc].outP
			q.res = op
			gptr[op] = cyc(in+1-n, n)
			aptr[in] = cyc(op+1-n, n)
			swRR[in] = cyc(int32(q.vc)+1-V, V)
		}
	} else {
		e.saArbitrate(rt, t, first)
	}
	if SA > 1 { // a grant made SA-1 cycles ago is lost if the buffer filled since
		for i := 0; i < first; i++ {
			q := &rt.saQ[i]
			if q.t > t {
				break
			}
			if q.res >= 0 {
				g := base + q.ivc
				if e.ov[(rt.base+e.iv[g].outP)*V+e.iv[g].outV].occ >= B {
					q.res = resFull
				}
			}
		}
	}
}

// saDistinct marks the new switch-allocation requests of router rt (its saQ from
// first on) whose downstream buffer is full as resFull, and reports whether the
// others all come from distinct inputs and go to distinct outputs (rt.np <= 64).
func (e *FlitEngine) saDistinct(rt *frouter, first int) bool {
	V, B := e.V, e.B
	base := rt.base * V
	var inM, outM uint64
	for i := first; i < len(rt.saQ); i++ {
		q := &rt.saQ[i]
		iv := &e.iv[base+q.ivc]
		op := iv.outP
		if e.ov[(rt.base+op)*V+iv.outV].occ >= B {
			q.res = resFull
			continue
		}
		ib, ob := uint64(1)<<uint(q.in), uint64(1)<<uint(op)
		if inM&ib != 0 || outM&ob != 0 {
			return false
		}
		inM |= ib
		outM |= ob
	}
	return true
}

// saArbitrate is switch allocation in general: one request per input and output
// pair, one-iteration iSLIP over them.
func (e *FlitEngine) saArbitrate(rt *frouter, t int64, first int) {
	V, B := e.V, e.B
	base := rt.base * V
	e.reqIn, e.reqOut, e.reqLab = e.reqIn[:0], e.reqOut[:0], e.reqLab[:0]
	for i := first; i < len(rt.saQ); i++ {
		q := &rt.saQ[i]
		g := base + q.ivc
		op, ov := e.iv[g].outP, e.iv[g].outV
		if e.ov[(rt.base+op)*V+ov].occ >= B {
			q.res = resFull
			continue
		}
		in, vc := int32(q.in), int32(q.vc)
		// One request per input and output: the round-robin successor of the input's
		// last winner among its virtual channels (RoundRobinArbiter::Supersedes).
		dup := false
		for j, rin := range e.reqIn {
			if rin == in && e.reqOut[j] == op {
				dup = true
				rr := e.swRR[rt.base+in]
				if cyc(vc-rr, V) < cyc(e.reqLab[j]-rr, V) {
					e.reqLab[j] = vc
				}
				break
			}
		}
		if !dup {
			e.reqIn = append(e.reqIn, in)
			e.reqOut = append(e.reqOut, op)
			e.reqLab = append(e.reqLab, vc)
		}
	}
	if len(e.reqIn) > 0 {
		e.islip(rt.np, e.saGptr[rt.base:rt.base+rt.np], e.saAptr[rt.base:rt.base+rt.np])
	}
	SA := int64(e.cfg.SwitchAllocDelay)
	for i := first; i < len(rt.saQ); i++ {
		q := &rt.saQ[i]
		q.t = t + SA - 1
		if q.res < resNone {
			continue
		}
		in, vc := int32(q.in), int32(q.vc)
		q.res = resConflict
		a := e.accept[in]
		if a < 0 {
			continue
		}
		for j, rin := range e.reqIn {
			if rin == in && e.reqOut[j] == a {
				if e.reqLab[j] == vc {
					q.res = a
					e.swRR[rt.base+in] = cyc(vc+1-V, V)
				}
				break
			}
		}
	}
	for _, in := range e.reqIn {
		e.accept[in] = -1
	}
}

func (e *FlitEngine) saUpdate(rt *frouter, t, SA int64) {
	V, B := e.V, e.B
	// The entries due now leave the queue; the others, then the due ones that go
	// round again, in order, make the next queue. When all are due (always with
	// SA = 1) that is written over the old one, each entry at or before the one
	// being read; otherwise it is built in the spare array, so nothing is shifted.
	saQ := rt.saQ
	k := 0
	for k < len(saQ) && saQ[k].t >= 0 && saQ[k].t <= t {
		k++
	}
	inPlace := k == len(saQ)
	nq := saQ[:0]
	if !inPlace {
		nq = append(rt.saSpare[:0], saQ[k:]...)
	}
	moved := false
	for _, q := range saQ[:k] {
		if q.res < 0 {
			nq = append(nq, qent{t: -1, ivc: q.ivc, res: resNone, in: q.in, vc: q.vc})
			continue
		}
		g := rt.base*V + q.ivc
		iv := &e.iv[g]
		op, ov := iv.outP, iv.outV
		h := iv.head
		f := e.buf[g*B+h]
		if h++; h == B {
			h = 0
		}
		iv.head = h
		iv.count--
		gop := rt.base + op
		govc := gop*V + ov
		o := &e.ov[govc]
		o.occ++
		if f&1 != 0 {
			o.use = -1
		}
		moved = true
		po := &e.ports[gop]
		if d := po.down; d >= 0 {
			e.push(t+int64(po.flitDelay), evFlit, d*V+ov, f)
			e.flitHops++
			e.portFlits[gop]++
			if f&2 != 0 {
				e.pkts[f>>2].hops++
			}
		} else {
			at := t + int64(po.flitDelay)
			e.push(at, evEject, -1-d, f)
			e.push(at+2, evCredit, govc, 0)
		}
		// The credit for the slot just freed goes back upstream.
		pi := &e.ports[rt.base+int32(q.in)]
		if u := pi.up; u >= 0 {
			e.push(t+int64(pi.creditDelay), evCredit, u*V+int32(q.vc), 0)
		} else {
			e.push(t+int64(pi.creditDelay), evTermCredit, (-1-u)*V+int32(q.vc), 0)
		}
		switch {
		case iv.count == 0:
			if f&1 != 0 {
				iv.state = vcIdle
			}
		case f&1 != 0:
			iv.state = vcRouting
			rt.routeQ = append(rt.routeQ, qent{t: -1, ivc: q.ivc, res: resNone, in: q.in, vc: q.vc})
		default:
			nq = append(nq, qent{t: -1, ivc: q.ivc, res: resNone, in: q.in, vc: q.vc})
		}
	}
	if moved {
		e.lastMove = t
	}
	if !inPlace {
		rt.saSpare = saQ[:0]
	}
	rt.saQ = nq
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
// of the last router, and the tail arrives S-1 cycles after it.
func (e *FlitEngine) ZeroLoadLatency() float64 {
	c := e.cfg
	stages := float64(c.RoutingDelay + c.VCAllocDelay + c.SwitchAllocDelay + c.SwitchDelay)
	return 2 + e.meanHops()*(stages+float64(c.LinkDelay)) + stages + 1 + float64(c.PacketFlits-1)
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
// names a cycle of it.
func (e *FlitEngine) deadlock(t int64) error {
	V := e.V
	nv := int32(len(e.iv))
	waits := func(g int32, out []int32) []int32 {
		if e.iv[g].count == 0 {
			return out
		}
		gp := g / V
		rt := &e.routers[e.portRouter[gp]]
		switch e.iv[g].state {
		case vcActive:
			gop := rt.base + e.iv[g].outP
			if d := e.outDown[gop]; d >= 0 && e.ov[gop*V+e.iv[g].outV].occ >= e.B {
				out = append(out, d*V+e.iv[g].outV)
			}
		case vcVCAlloc:
			gop := rt.base + e.iv[g].outP
			for ov := e.iv[g].lo; ov <= e.iv[g].hi; ov++ {
				if h := e.ov[gop*V+ov].use; h >= 0 {
					out = append(out, rt.base*V+h)
				}
			}
		}
		return out
	}
	// Iterative DFS with colours: 0 new, 1 on stack, 2 done.
	color := make([]uint8, nv)
	parent := make([]int32, nv)
	var cyc []int32
	var nb []int32
	type frame struct {
		g    int32
		next []int32
	}
	for s := int32(0); s < nv && cyc == nil; s++ {
		if color[s] != 0 || e.iv[s].count == 0 {
			continue
		}
		stack := []frame{{s, waits(s, nil)}}
		color[s] = 1
		parent[s] = -1
		for len(stack) > 0 && cyc == nil {
			top := &stack[len(stack)-1]
			if len(top.next) == 0 {
				color[top.g] = 2
				stack = stack[:len(stack)-1]
				continue
			}
			w := top.next[0]
			top.next = top.next[1:]
			switch color[w] {
			case 0:
				color[w] = 1
				parent[w] = top.g
				nb = waits(w, nil)
				stack = append(stack, frame{w, nb})
			case 1:
				for x := top.g; ; x = parent[x] {
					cyc = append(cyc, x)
					if x == w {
						break
					}
				}
				slices.Reverse(cyc)
			}
		}
	}
	msg := fmt.Sprintf("%s: flit engine deadlock at cycle %d: no flit moved for %d cycles with %d flits in the network", e.spec, t, t-e.lastMove, e.inNet)
	if cyc == nil {
		return fmt.Errorf("%s (no cycle of waiting virtual channels found): %w", msg, ErrDeadlock)
	}
	var parts []string
	for i, g := range cyc {
		if i == 8 && len(cyc) > 10 {
			parts = append(parts, fmt.Sprintf("... (%d more)", len(cyc)-9))
			g = cyc[len(cyc)-1]
			parts = append(parts, e.vcName(g))
			break
		}
		parts = append(parts, e.vcName(g))
	}
	return fmt.Errorf("%s; a cycle of %d input virtual channels, each waiting for the next: %s -> (back to the first): %w",
		msg, len(cyc), strings.Join(parts, " -> "), ErrDeadlock)
}

// vcName names global input virtual channel g: its router, port and VC.
func (e *FlitEngine) vcName(g int32) string {
	V := e.V
	gp := g / V
	r := e.portRouter[gp]
	rt := &e.routers[r]
	p := gp - rt.base
	var rn, pn string
	switch {
	case e.grid != nil && e.ioAttach != nil && r >= e.ncomp:
		rn = fmt.Sprintf("I/O node %d", r-e.ncomp)
		pn = "terminal input"
		if p == 0 {
			pn = "input from its attachment"
		}
	case e.grid != nil:
		nd := int32(len(e.dims))
		c := make([]string, nd)
		for j := range nd {
			c[j] = fmt.Sprint(e.coord[r*nd+j])
		}
		rn = "(" + strings.Join(c, ",") + ")"
		switch {
		case p == 2*nd:
			pn = "terminal input"
		case p == 2*nd+1:
			pn = fmt.Sprintf("input from I/O node %d", e.ioPort[r])
		default:
			axis := "xyzw"[min(p/2, 3)]
			sign := "+" // input 2j comes from the + neighbour
			if p%2 == 1 {
				sign = "-"
			}
			pn = fmt.Sprintf("input from %s%c", sign, axis)
		}
	default:
		g := e.m.(*topo.Graph)
		rn = g.Name(int(r))
		if e.inUp[gp] < 0 {
			pn = "terminal input"
		} else {
			pn = "input from " + g.Name(int(e.nbr[r][p]))
		}
	}
	return fmt.Sprintf("router %s %s vc %d", rn, pn, g%V)
}
