package netsim

import (
	"context"
	"errors"
	"fmt"

	"github.com/procalloc/procalloc/topo"
)

// JobStats is what a job's communication did.
type JobStats struct {
	Messages int64 // messages delivered
	Hops     int64 // links crossed by them
	Latency  int64 // sum of their latencies (arrival - queued), in cycles
	End      int64 // arrival time of the last one
}

type jobState struct {
	id        int
	nodes     []int32
	quota     int64 // messages not yet queued
	phase     int
	phaseLeft int64 // messages of the current phase not yet arrived
	rng       *Rand
	stats     JobStats
	live      bool
}

// Workload runs jobs' communication patterns on one engine, the model of Bunde et
// al. 2004 §3.2: a job sends a given number of messages (its quota) following the
// pattern, cycle after cycle, the last cycle cut short; it ends when the last of them
// has arrived. A phase starts when the previous one has completely arrived. A job of
// one processor has nobody to talk to: it sends its messages to itself, one at a
// time, each taking the S cycles of its ejection channel.
type Workload struct {
	eng  *Engine     // the message engine, or nil
	flit *FlitEngine // the flit engine, or nil
	net  Network
	send func(Message)
	ends int
	spec string
	pat  Pattern
	seed uint64
	jobs []jobState
	free []int32
	done func(tag int, st JobStats)
}

// NewWorkload returns a workload on router r: pattern pat, random choices from seed;
// done is called (from within Engine.Run, or from Start for a job without messages)
// when a job's last message has arrived. It also stops the engine's Run, so that the
// caller can react at that cycle.
func NewWorkload(r Router, p Params, pat Pattern, seed uint64, done func(tag int, st JobStats)) (*Workload, error) {
	return NewWorkloadContext(context.Background(), r, p, pat, seed, done)
}

// NewWorkloadContext is NewWorkload with its engine built by NewEngineContext
// under ctx.
func NewWorkloadContext(ctx context.Context, r Router, p Params, pat Pattern, seed uint64, done func(tag int, st JobStats)) (*Workload, error) {
	if pat == nil {
		return nil, errors.New("netsim: no communication pattern")
	}
	w := &Workload{pat: pat, seed: seed, done: done}
	eng, err := NewEngineContext(ctx, r, p, w.delivered)
	if err != nil {
		return nil, err
	}
	w.eng, w.net, w.send, w.ends, w.spec = eng, eng, func(m Message) { _ = eng.Send(m) }, r.Endpoints(), r.Spec()
	return w, nil
}

// NewFlitWorkload is NewWorkload on the flit engine (NewFlitEngine on machine m with
// configuration fc): each message is one packet of fc.PacketFlits flits.
func NewFlitWorkload(m topo.Machine, fc FlitConfig, pat Pattern, seed uint64, done func(tag int, st JobStats)) (*Workload, error) {
	if pat == nil {
		return nil, errors.New("netsim: no communication pattern")
	}
	if err := fc.CheckMachine(m); err != nil {
		return nil, err
	}
	n, err := NewFlitNetwork(m)
	if err != nil {
		return nil, err
	}
	return NewFlitWorkloadOn(n, fc, pat, seed, done)
}

// NewFlitWorkloadOn is NewFlitWorkload on the shared tables n of its machine
// (NewFlitEngineOn).
func NewFlitWorkloadOn(n *FlitNetwork, fc FlitConfig, pat Pattern, seed uint64, done func(tag int, st JobStats)) (*Workload, error) {
	if pat == nil {
		return nil, errors.New("netsim: no communication pattern")
	}
	w := &Workload{pat: pat, seed: seed, done: done}
	eng, err := NewFlitEngineOn(n, fc, w.delivered)
	if err != nil {
		return nil, err
	}
	m := n.m
	// Start has checked the endpoints: Send cannot fail.
	w.flit, w.net, w.send, w.ends, w.spec = eng, eng, func(m Message) { _ = eng.Send(m) }, eng.nterm, m.Spec()
	return w, nil
}

// Network is what a Workload runs on, the message engine (*Engine) or the flit
// engine (*FlitEngine): Run simulates up to a cycle (returning early when a job has
// finished), Now is the current cycle, Idle reports an empty network, Stop makes a
// running Run return after the current cycle.
type Network interface {
	Run(limit int64) error // simulates up to and including cycle limit, or until Stop
	Now() int64            // the current cycle
	Idle() bool            // no message queued or in flight
	Stop()                 // makes a running Run return after the current cycle
}

// Network returns the engine the workload runs on.
func (w *Workload) Network() Network { return w.net }

// Engine returns the workload's message engine (for Run, Now and Stats); nil on
// the flit engine (Flit).
func (w *Workload) Engine() *Engine { return w.eng }

// Flit returns the workload's flit engine; nil on the message engine.
func (w *Workload) Flit() *FlitEngine { return w.flit }

// WorkloadStats are a workload's network totals, from either engine.
type WorkloadStats struct {
	Delivered int64 // messages arrived
	Hops      int64 // links crossed by them
	// MaxLinkMessages is the most messages any one router-to-router link carried
	// (the flit engine: its flits over the message length, rounded down).
	MaxLinkMessages int64
}

// Stats returns the network's totals so far.
func (w *Workload) Stats() WorkloadStats {
	if w.flit != nil {
		st := w.flit.Stats()
		return WorkloadStats{Delivered: st.Delivered, Hops: st.Hops, MaxLinkMessages: st.MaxLinkFlits / int64(w.flit.cfg.PacketFlits)}
	}
	st := w.eng.Stats()
	return WorkloadStats{Delivered: st.Delivered, Hops: st.Hops, MaxLinkMessages: st.MaxChannelMessages}
}

// Start begins a job at the engine's current time: id identifies it (and seeds its
// random choices), nodes are its processors in allocation order, quota its number of
// messages. It returns the tag that done will report. A job with quota 0 is done at
// once: done is called before Start returns.
func (w *Workload) Start(id int, nodes []int, quota int64) (int, error) {
	if len(nodes) == 0 {
		return 0, fmt.Errorf("job %d: no processors", id)
	}
	if quota < 0 {
		return 0, fmt.Errorf("job %d: negative message quota %d", id, quota)
	}
	n := w.ends
	var tag int32
	if k := len(w.free); k > 0 {
		tag = w.free[k-1]
		w.free = w.free[:k-1]
	} else {
		w.jobs = append(w.jobs, jobState{})
		tag = int32(len(w.jobs) - 1)
	}
	j := &w.jobs[tag]
	*j = jobState{id: id, nodes: j.nodes[:0], quota: quota, rng: NewRand(w.seed, uint64(id)), live: true}
	for _, v := range nodes {
		if v < 0 || v >= n {
			w.free = append(w.free, tag)
			j.live = false
			return 0, fmt.Errorf("job %d: node %d is not an endpoint of %s", id, v, w.spec)
		}
		j.nodes = append(j.nodes, int32(v))
	}
	j.stats.End = w.net.Now()
	if quota == 0 {
		w.finish(tag)
		return int(tag), nil
	}
	w.startPhase(tag)
	return int(tag), nil
}

func (w *Workload) startPhase(tag int32) {
	j := &w.jobs[tag]
	p := len(j.nodes)
	var sent int64
	if p == 1 {
		w.send(Message{Src: j.nodes[0], Dst: j.nodes[0], Tag: tag})
		sent = 1
	} else {
		limit := j.quota
		nodes := j.nodes
		w.pat.Phase(p, j.phase, j.rng, func(s, d int) bool {
			if sent == limit {
				return false
			}
			sent++
			w.send(Message{Src: nodes[s], Dst: nodes[d], Tag: tag})
			return true
		})
		j = &w.jobs[tag]
		j.phase++
		if j.phase == w.pat.Phases(p) {
			j.phase = 0
		}
	}
	j.quota -= sent
	j.phaseLeft += sent
}

func (w *Workload) delivered(d *Delivery) {
	j := &w.jobs[d.Tag]
	j.stats.Messages++
	j.stats.Hops += int64(d.Hops)
	j.stats.Latency += d.Arrived - d.Queued
	j.stats.End = d.Arrived
	j.phaseLeft--
	if j.phaseLeft > 0 {
		return
	}
	if j.quota > 0 {
		w.startPhase(d.Tag)
		return
	}
	w.finish(d.Tag)
	w.net.Stop()
}

func (w *Workload) finish(tag int32) {
	j := &w.jobs[tag]
	j.live = false
	st := j.stats
	w.free = append(w.free, tag)
	if w.done != nil {
		w.done(int(tag), st)
	}
}
