package netsim

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
	V := e.vcs
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
	V := e.vcs
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
	V, B := e.vcs, e.vcBuf
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
	V, B := e.vcs, e.vcBuf
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
	V, B := e.vcs, e.vcBuf
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
	V, B := e.vcs, e.vcBuf
	ST := int64(e.cfg.SwitchDelay)
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
		at := t + int64(po.flitDelay)
		if ST > 1 {
			at = e.crossbar(rt, gop, t) + int64(po.flitDelay) - ST
		}
		if d := po.down; d >= 0 {
			e.push(at, evFlit, d*V+ov, f)
			e.flitHops++
			e.portFlits[gop]++
			if f&2 != 0 {
				e.pkts[f>>2].hops++
				if e.headHop != nil {
					e.headHop(f>>2, gop)
				}
			}
		} else {
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
			e.toRouting(rt, qent{t: -1, ivc: q.ivc, res: resNone, in: q.in, vc: q.vc})
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

// crossbar returns the cycle in which a flit granted the switch in cycle u leaves
// router rt on output port gop, when switch traversal takes ST > 1 cycles. It
// follows BookSim2's IQRouter, whose flits cross the switch in batches: the flits
// granted since the last batch start their traversal together, in the first cycle
// after their grant in which no earlier batch is still in the switch, and complete
// it ST-1 cycles later; each output then sends one flit per cycle, in grant order.
// So a stream of flits through the switch falls one cycle behind its head (ST-1
// cycles with a longer traversal) at each router, where the head's routing and VC
// allocation at the next router absorb the gap, and a lone packet's tail arrives
// ST-1 cycles later than with a routing stage as long (BookSim2 measured: mesh 8x8,
// 2 hops, 32-flit packets, 48 cycles with one-cycle stages, 51 with a 2-cycle
// routing stage, 52 with a 2-cycle switch traversal, 56 with 3;
// TestFlitLonePacketMatchesBookSim). With ST = 1 every flit leaves in the cycle after
// its grant, which saUpdate computes without this.
func (e *FlitEngine) crossbar(rt *frouter, gop int32, u int64) int64 {
	X := int64(e.cfg.SwitchDelay)
	ev := rt.xbar // the start of the newest batch
	if u+1 > ev {
		ev = max(u+1, ev+X)
		rt.xbar = ev
	}
	send := max(ev+X-1, e.lastSend[gop]+1)
	e.lastSend[gop] = send
	return send
}
