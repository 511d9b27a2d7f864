package netsim

import (
	"context"
	"sync"
)

// Distance classes of the message engine on graphs (Dally and Towles 2004
// §14.1.2, after Günther 1981; the flit engine's FlitConfig.HopClasses is the same
// idea on virtual channels). Minimal routes on a dragonfly and shortest paths on a
// ring wait for each other in a cycle under load with one channel per link; with
// classes, a message's h-th router-to-router link (h from 0) is channel class
// min(h, C-1) of that link, C the most router-to-router links of any route, so
// the class a message holds grows at every hop and no cycle of waiting channels
// can form. The links of a pendant host (a host with one link) keep one channel:
// a host's link to its switch is only ever a route's first channel and the
// switch's link to it a route's last before the ejection channel, so neither can
// be on a cycle.
//
// Classes are on exactly when the routing's channel dependency graph (a channel
// c1 -> c2 when some route takes c2 right after c1) has a cycle (Dally and Seitz
// 1987: a deterministic routing is deadlock-free when that graph is acyclic), so a
// fat tree's up/down routes and the grids keep their channels and their results.
// Each class is a channel of full bandwidth, as the torus's two dateline channels
// are (GridRouter): the message model has no flit-level rate to share.

// depRouter is a router whose routes can wait in a cycle: the graph routers.
type depRouter interface {
	Router
	// chanLayout returns the channels' layout: channel off[v]+i goes from vertex
	// v to its i-th neighbour head[off[v]+i]; vertices below n are hosts.
	chanLayout() (off, head []int32, n int)
	// chanDeps calls dep(c1, c2) for pairs of router-to-router channels that some
	// route takes one right after the other (every such pair at least once), and
	// returns the most router-to-router channels of any one route; when ctx ends
	// it stops, returning ctx's cause.
	chanDeps(ctx context.Context, dep func(c1, c2 int32)) (int, error)
	// classes returns the router's memo of its distance classes.
	classes() *classMemo
}

// classMemo holds a router's distance classes, found on first use: the cycle
// check is a function of the router alone (~0.4 s on a dragonfly of 102,400
// hosts), so every engine on one router (compare's allocators, a sweep's items)
// shares one result. Safe for concurrent use.
type classMemo struct {
	mu   sync.Mutex
	done bool
	h    *hopClasses
}

// of returns the distance classes of r (whose memo m is), nil when it needs
// none; the engines only read them. When ctx ends before they are found it
// returns ctx's cause and keeps nothing, so that a later call finds them (a
// sync.Once would have kept the stopped search's nil: no classes).
func (m *classMemo) of(ctx context.Context, r depRouter) (*hopClasses, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.done {
		return m.h, nil
	}
	h, err := newHopClasses(ctx, r)
	if err != nil {
		return nil, err
	}
	m.h, m.done = h, true
	return h, nil
}

// hopClasses maps a route's channels to their distance-class channels. Class 0 of
// a link is the router's own channel id; class k >= 1 of router-to-router channel
// c is links + (k-1)*nrr + rr[c]: ids stay compact, links + (C-1) x the
// router-to-router channels.
type hopClasses struct {
	classes int32   // C >= 2
	links   int32   // the router's channels
	nrr     int32   // router-to-router channels
	rr      []int32 // per channel: its index among the router-to-router ones, or -1
}

// hopClassEvery is how many channels newHopClasses handles between looks at its
// context: a dragonfly of 2 x 10^5 hosts has 2.2 million router-to-router
// channels and about 200 million dependency bits, seconds of work under load.
const hopClassEvery = 1 << 12

// newHopClasses returns the distance classes routing r needs, nil when its
// channel dependency graph is acyclic (it cannot deadlock). When ctx ends it
// returns ctx's cause.
func newHopClasses(ctx context.Context, r depRouter) (*hopClasses, error) {
	off, head, n := r.chanLayout()
	nv := len(off) - 1
	pendant := func(v int32) bool { return int(v) < n && off[v+1]-off[v] == 1 }
	h := &hopClasses{links: int32(len(head)), rr: make([]int32, len(head))}
	// base[rr[c]]: the first bit of c's dependencies, one bit per channel leaving
	// c's head (O(sum over vertices of router-to-router in-degree x degree)).
	var base []int64
	var bits int64
	for v := range nv {
		if v%hopClassEvery == 0 && ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		for c := off[v]; c < off[v+1]; c++ {
			w := head[c]
			if pendant(int32(v)) || pendant(w) {
				h.rr[c] = -1
				continue
			}
			h.rr[c] = h.nrr
			h.nrr++
			base = append(base, bits)
			bits += int64(off[w+1] - off[w])
		}
	}
	base = append(base, bits)
	set := make([]uint64, (bits+63)/64)
	longest, err := r.chanDeps(ctx, func(c1, c2 int32) {
		b := base[h.rr[c1]] + int64(c2-off[head[c1]])
		set[b>>6] |= 1 << (b & 63)
	})
	if err != nil {
		return nil, err
	}
	if longest < 2 {
		return nil, nil
	}
	// Kahn's algorithm: the graph is acyclic when every channel can be removed.
	// The queue holds channels; indeg is by router-to-router index.
	each := func(c int32, f func(c2 int32)) {
		k, o := h.rr[c], off[head[c]]
		for b := base[k]; b < base[k+1]; b++ {
			if set[b>>6]&(1<<(b&63)) != 0 {
				f(o + int32(b-base[k]))
			}
		}
	}
	indeg := make([]int32, h.nrr)
	for c, k := range h.rr {
		if c%hopClassEvery == 0 && ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		if k >= 0 {
			each(int32(c), func(c2 int32) { indeg[h.rr[c2]]++ })
		}
	}
	queue := make([]int32, 0, h.nrr)
	for c, k := range h.rr {
		if k >= 0 && indeg[k] == 0 {
			queue = append(queue, int32(c))
		}
	}
	for i := 0; i < len(queue); i++ {
		if i%hopClassEvery == 0 && ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		each(queue[i], func(c2 int32) {
			if k2 := h.rr[c2]; indeg[k2] > 1 {
				indeg[k2]--
			} else {
				indeg[k2] = 0
				queue = append(queue, c2)
			}
		})
	}
	if len(queue) == int(h.nrr) {
		return nil, nil
	}
	h.classes = int32(longest)
	return h, nil
}

// channels is the number of network channels with the classes.
func (h *hopClasses) channels() int { return int(h.links) + int(h.classes-1)*int(h.nrr) }

// apply replaces route's channels, in place, by their classes' channels.
func (h *hopClasses) apply(route []int32) {
	k := int32(0)
	for i, c := range route {
		j := h.rr[c]
		if j < 0 {
			continue
		}
		if k > 0 {
			route[i] = h.links + (min(k, h.classes-1)-1)*h.nrr + j
		}
		k++
	}
}

// classChannels calls f with each class channel of router channel c beyond class
// 0 (none for a pendant host's link).
func (h *hopClasses) classChannels(c int32, f func(int32)) {
	if j := h.rr[c]; j >= 0 {
		for k := int32(1); k < h.classes; k++ {
			f(h.links + (k-1)*h.nrr + j)
		}
	}
}
