package sim

import "github.com/procalloc/procalloc/alloc"

// AllocTime is the allocator's own time in a replay: the time spent inside its
// Allocate (or Place) and Release calls, measured by an alloc.Clock around each
// call, apart from the replay's scheduling and metrics (Summary.Seconds is the
// whole replay). Like Seconds it depends on the machine and the moment, not on the
// replay's input.
type AllocTime struct {
	Decisions       int64   `json:"decisions"`        // allocations
	Releases        int64   `json:"releases"`         // releases made
	AllocateSeconds float64 `json:"allocate_seconds"` // total inside Allocate (or Place), seconds
	ReleaseSeconds  float64 `json:"release_seconds"`  // total inside Release, seconds
	TotalSeconds    float64 `json:"total_seconds"`    // allocate + release
	// Per decision, in microseconds: Allocate alone, Release (per release) and
	// both together over the decisions.
	AllocateMicros float64 `json:"allocate_us_per_decision"`
	ReleaseMicros  float64 `json:"release_us_per_release"` // ReleaseSeconds over Releases, µs
	TotalMicros    float64 `json:"total_us_per_decision"`  // TotalSeconds over Decisions, µs
}

// newAllocTime summarizes a clock's reading for Summary.AllocTime.
func newAllocTime(r alloc.ClockReading) *AllocTime {
	t := &AllocTime{Decisions: r.Allocations, Releases: r.Releases,
		AllocateSeconds: r.Allocate.Seconds(), ReleaseSeconds: r.Release.Seconds()}
	t.TotalSeconds = t.AllocateSeconds + t.ReleaseSeconds
	if t.Decisions > 0 {
		t.AllocateMicros = 1e6 * t.AllocateSeconds / float64(t.Decisions)
		t.TotalMicros = 1e6 * t.TotalSeconds / float64(t.Decisions)
	}
	if t.Releases > 0 {
		t.ReleaseMicros = 1e6 * t.ReleaseSeconds / float64(t.Releases)
	}
	return t
}
