package alloc

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/procalloc/procalloc/topo/hostlist"
)

// Clock measures the time an allocator spends inside its own calls (Allocate,
// Place, Release), apart from whatever the caller does around them (a replay's
// metrics, a benchmark's checks). It is the one place where allocator time is
// taken: sim's replays report it in their summaries and package bench reads its
// per-decision latencies.
//
// The time is wall-clock time on the monotonic clock, read just before and just
// after the call (two clock reads, about 20-50 ns, are part of each figure). A nil
// *Clock calls through without measuring. With Record set, the latency of every
// allocation is kept (8 bytes per decision) for percentiles; the counts and totals
// are kept always. A Clock may be read (Snapshot) from another goroutine while
// one goroutine calls through it.
type Clock struct {
	// Record keeps every allocation's latency (Snapshot's Latencies).
	Record bool

	mu       sync.Mutex
	allocs   int64
	releases int64
	allocNs  int64
	relNs    int64
	lat      []int64
}

// ClockReading is what a Clock has measured so far.
type ClockReading struct {
	Allocations, Releases int64         // calls made (successful or not)
	Allocate, Release     time.Duration // total time inside them
	// Latencies are the allocations' times in nanoseconds, in call order (with
	// Clock.Record only).
	Latencies []int64
}

// Allocate calls a.Allocate(k) and measures it.
func (c *Clock) Allocate(a Allocator, k int) ([]int, error) {
	if c == nil {
		return a.Allocate(k)
	}
	t0 := time.Now()
	nodes, err := a.Allocate(k)
	c.addAlloc(time.Since(t0))
	return nodes, err
}

// AllocateContext is Allocate through a's AllocateContext (ContextAllocator) when
// it has one. A call that ctx stopped (an error, with ctx ended) made no decision
// (the allocator's state is unchanged) and is neither counted nor timed: its part
// of a decision would be read as a whole one (bench's latencies under a time
// limit, a replay's time per decision when it is interrupted).
func (c *Clock) AllocateContext(ctx context.Context, a Allocator, k int) ([]int, error) {
	if c == nil {
		return AllocateContext(ctx, a, k)
	}
	t0 := time.Now()
	nodes, err := AllocateContext(ctx, a, k)
	if err != nil && context.Cause(ctx) != nil {
		return nodes, err
	}
	c.addAlloc(time.Since(t0))
	return nodes, err
}

// Place calls p.Place(list), an allocation by a recorded node list, and measures it
// as an allocation.
func (c *Clock) Place(p Placer, list hostlist.List) ([]int, error) {
	if c == nil {
		return p.Place(list)
	}
	t0 := time.Now()
	nodes, err := p.Place(list)
	c.addAlloc(time.Since(t0))
	return nodes, err
}

// Release calls a.Release(nodes) and measures it.
func (c *Clock) Release(a Allocator, nodes []int) error {
	if c == nil {
		return a.Release(nodes)
	}
	t0 := time.Now()
	err := a.Release(nodes)
	d := time.Since(t0)
	c.mu.Lock()
	c.releases++
	c.relNs += int64(d)
	c.mu.Unlock()
	return err
}

func (c *Clock) addAlloc(d time.Duration) {
	c.mu.Lock()
	c.allocs++
	c.allocNs += int64(d)
	if c.Record {
		c.lat = append(c.lat, int64(d))
	}
	c.mu.Unlock()
}

// Snapshot returns what the clock has measured so far (a copy; nil: zero).
func (c *Clock) Snapshot() ClockReading {
	if c == nil {
		return ClockReading{}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return ClockReading{Allocations: c.allocs, Releases: c.releases,
		Allocate: time.Duration(c.allocNs), Release: time.Duration(c.relNs), Latencies: slices.Clone(c.lat)}
}

// Reserve makes room for n latencies (with Record), so that keeping them does
// not allocate during a measurement.
func (c *Clock) Reserve(n int) {
	c.mu.Lock()
	c.lat = slices.Grow(c.lat, n)
	c.mu.Unlock()
}
