package netsim

import (
	"fmt"
	"slices"

	"github.com/procalloc/procalloc/topo"
)

// NewFlitEngine returns an idle flit-level engine at cycle 0 on machine m (a mesh or
// torus, or a graph whose hosts are the terminals). deliver, if not nil, is called
// when a packet's tail reaches its destination; it may call Send and Stop.
func NewFlitEngine(m topo.Machine, cfg FlitConfig, deliver func(*Delivery)) (*FlitEngine, error) {
	if err := cfg.CheckMachine(m); err != nil {
		return nil, err
	}
	n, err := NewFlitNetwork(m)
	if err != nil {
		return nil, err
	}
	return NewFlitEngineOn(n, cfg, deliver)
}

// FlitNetwork is what flit engines read of a machine and never change: on a graph
// its routing (the DragonflyRouter, or the GraphRouter's next-hop table) and its
// ports (each vertex's neighbours in port order, the links between ports), which
// take the larger part of an engine's building on a large graph. Built once, it is
// shared by the engines on the machine (NewFlitEngineOn, NewFlitWorkloadOn), also
// concurrently: they only read it. A grid's engine builds its own ports, a matter
// of arithmetic.
type FlitNetwork struct {
	m     topo.Machine
	graph nextHopper // the graph's routing; nil on a grid
	nbr   [][]int32  // neighbours of each vertex, ascending (port order)
	// base and np are each vertex's first global port and number of ports;
	// portRouter, outDown, inUp and termPort are the engine's (FlitEngine).
	base, np                            []int32
	portRouter, outDown, inUp, termPort []int32
}

// NewFlitNetwork builds the flit engine's tables of machine m: the routing and
// ports of a graph; nothing more than m on a grid.
func NewFlitNetwork(m topo.Machine) (*FlitNetwork, error) {
	switch g := m.(type) {
	case *topo.Grid:
		return &FlitNetwork{m: m}, nil
	case *topo.Graph:
		var r nextHopper
		if df := NewDragonflyRouter(g); df != nil {
			r = df
		} else {
			gr, err := NewGraphRouter(g)
			if err != nil {
				return nil, fmt.Errorf("%w (no dragonfly either, whose minimal routing needs no table: %s)", err, g.DragonflyReason())
			}
			r = gr
		}
		return newFlitGraph(g, r), nil
	}
	return nil, fmt.Errorf("flit engine: no model for machine %s", m.Spec())
}

// Machine is the network's machine.
func (n *FlitNetwork) Machine() topo.Machine { return n.m }

// NewFlitEngineOn is NewFlitEngine on the tables of n (NewFlitNetwork), which it
// shares with the other engines on them.
func NewFlitEngineOn(n *FlitNetwork, cfg FlitConfig, deliver func(*Delivery)) (*FlitEngine, error) {
	if n == nil || n.m == nil {
		return nil, fmt.Errorf("flit engine: no network (nil)")
	}
	m := n.m
	if err := cfg.CheckMachine(m); err != nil {
		return nil, err
	}
	e := &FlitEngine{cfg: cfg, m: m, spec: m.Spec(), vcs: int32(cfg.VCs), vcBuf: int32(cfg.VCBuffer), deliver: deliver}
	if g, ok := m.(*topo.Grid); ok {
		e.buildGrid(g)
	} else {
		e.useGraph(n)
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
	if cfg.SwitchDelay > 1 {
		e.lastSend = make([]int64, np)
	}
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
	// The longest a flit waits from its switch grant to its arrival: the switch's
	// batching and the output's one flit per cycle (crossbar) hold it up to 3 ST
	// cycles.
	span := int64(3*cfg.SwitchDelay+cfg.LinkDelay+4) + 2
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

// newFlitGraph gives vertex v one port per neighbour (ascending) and, for a host, a
// terminal port last.
func newFlitGraph(g *topo.Graph, r nextHopper) *FlitNetwork {
	nv, n := g.Vertices(), g.N()
	f := &FlitNetwork{m: g, graph: r, nbr: make([][]int32, nv), base: make([]int32, nv), np: make([]int32, nv), termPort: make([]int32, n)}
	var nb []int
	for v := range nv {
		nb = g.Neighbors(v, nb[:0])
		slices.Sort(nb)
		nb = slices.Compact(nb)
		for _, w := range nb {
			f.nbr[v] = append(f.nbr[v], int32(w))
		}
		base := int32(len(f.portRouter))
		np := int32(len(nb))
		if v < n {
			np++
		}
		f.base[v], f.np[v] = base, np
		for range np {
			f.portRouter = append(f.portRouter, int32(v))
			f.outDown = append(f.outDown, -1<<30)
			f.inUp = append(f.inUp, -1<<30)
		}
		if v < n {
			t := base + np - 1
			f.termPort[v] = t
			f.outDown[t] = -1 - int32(v)
			f.inUp[t] = -1 - int32(v)
		}
	}
	for v := range nv {
		for i, w := range f.nbr[v] {
			j, _ := slices.BinarySearch(f.nbr[w], int32(v))
			out := f.base[v] + int32(i)
			in := f.base[w] + int32(j)
			f.outDown[out] = in
			f.inUp[in] = out
		}
	}
	return f
}

// useGraph makes the engine's routers on the shared tables of a graph: its own
// routers' queues, its channels' latencies (LinkDelay between routers, 1 cycle
// to and from a terminal).
func (e *FlitEngine) useGraph(n *FlitNetwork) {
	e.graph, e.nbr = n.graph, n.nbr
	e.portRouter, e.outDown, e.inUp, e.termPort = n.portRouter, n.outDown, n.inUp, n.termPort
	e.nterm = len(n.termPort)
	e.routers = make([]frouter, len(n.base))
	for v := range e.routers {
		e.routers[v] = frouter{base: n.base[v], np: n.np[v]}
	}
	e.outLat = make([]int32, len(n.portRouter))
	e.inLat = make([]int32, len(n.portRouter))
	for p := range e.outLat {
		e.outLat[p], e.inLat[p] = int32(e.cfg.LinkDelay), int32(e.cfg.LinkDelay)
	}
	for _, t := range n.termPort {
		e.outLat[t], e.inLat[t] = 1, 1
	}
}

// Reset returns the engine to cycle 0, empty, with zero totals, keeping its memory.
func (e *FlitEngine) Reset() {
	e.now, e.stop, e.inNet, e.lastMove = 0, false, 0, 0
	e.rng = NewRand(e.cfg.Seed, 7)
	clear(e.iv)
	for g := range e.iv {
		e.iv[g].router = e.portRouter[g/int(e.vcs)]
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
		r.xbar = -1 << 40
	}
	for i := range e.wheel {
		e.wheel[i] = e.wheel[i][:0]
	}
	e.pkts = e.pkts[:0]
	e.freePkts = e.freePkts[:0]
	e.list, e.next = e.list[:0], e.next[:0]
	e.flitHops, e.delivered, e.hops, e.injected = 0, 0, 0, 0
	clear(e.portFlits)
	for i := range e.lastSend {
		e.lastSend[i] = -1 << 40
	}
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
