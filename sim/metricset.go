package sim

import (
	"fmt"
	"strings"

	"github.com/procalloc/procalloc/internal/textin"
)

// MetricSet is the groups of summary metrics a replay computes (Spec.Metrics,
// Config.Metrics). The scheduling and allocation metrics (waits, spans, boxes,
// components, ...: each a function of a job's own times and nodes) are always
// computed; the pairwise hop distances of each job (PairwiseL1), the static route
// metrics (message distance, hop-bytes, routes on a link: RouteSummary), the tie
// statistics of the allocators that count ties (Ties, JobResult.Ties: Johnson et
// al. 2010 Fig. 4; alloc.TieReporter) and Liu et al.'s compactness of the
// machine's free set after each allocation (D and Lemma 1: Compactness,
// JobResult.FreeSquares) cost more than the replay itself on large machines, or
// as much, and can be left out, in which case they are absent from the summary
// (Summary.PairwiseL1, Summary.RouteSummary, Summary.Ties or Summary.Compactness
// nil, no JSON keys; Summary.NotComputed names the groups), never reported as
// zeros. Leaving a group out never changes the nodes a job gets
// (TestTiesOffSamePlacements, TestMetricsSchedLeavesOutD). The zero value means
// MetricsAll.
type MetricSet uint8

const (
	// MetricsSched are the scheduling and allocation metrics (always computed).
	MetricsSched MetricSet = 1 << iota
	// MetricsRoute are the static route metrics of the jobs' pattern.
	MetricsRoute
	// MetricsDist are the jobs' pairwise hop (L1) distances (PairwiseL1).
	MetricsDist
	// MetricsTies are the tie statistics (Ties, JobResult.Ties) of an allocator
	// that counts ties (alloc.TieReporter: the MC1x1 family); without them the
	// replay does not turn tie counting on (alloc.TieReporter.CountTies), which
	// is what makes MC1x1's decisions slow on large machines.
	MetricsTies
	// MetricsCompact are Liu et al.'s D (free power-of-two squares) and Lemma 1's
	// condition of the machine's free set after each allocation (Compactness,
	// JobResult.FreeSquares; on 2^m x 2^n meshes only): a measure of the whole
	// free set, kept up to date at every start and end (alloc.Compactness), not
	// of the job, so not a scheduling metric.
	MetricsCompact
	// MetricsAll are every group: the default.
	MetricsAll = MetricsSched | MetricsRoute | MetricsDist | MetricsTies | MetricsCompact
	// MetricsComm are the network's figures of a replay with a communication
	// model (Summary.Comm: messages, latency, busiest link, run time fraction). A
	// metric group of Metric.Group but not one of the set: a replay computes them
	// whenever it has a communication model (Config.Comm) and cannot without one,
	// so no set chooses them (ParseMetrics refuses "comm", saying so); without a
	// model they are absent, not listed in Summary.NotComputed, as ties are with
	// an allocator that counts none.
	MetricsComm MetricSet = 1 << 7
)

var metricGroupNames = []struct {
	set  MetricSet
	name string
}{{MetricsSched, "sched"}, {MetricsRoute, "route"}, {MetricsDist, "dist"}, {MetricsTies, "ties"}, {MetricsCompact, "compact"}}

// ParseMetrics reads a comma-separated list of metric groups ("sched", "route",
// "dist", "ties", "compact", "all"); "sched" must be among them (it is always
// computed): "sched" alone leaves out the pairwise distances, the route metrics,
// the tie statistics and the compactness (D).
func ParseMetrics(s string) (MetricSet, error) {
	var m MetricSet
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "all" {
			m |= MetricsAll
			continue
		}
		if f == "comm" {
			return 0, fmt.Errorf("metric group comm: the network's figures are computed whenever the replay has a communication model (sim --comm) and cannot be without one; no metric group chooses them")
		}
		found := false
		for _, g := range metricGroupNames {
			if g.name == f {
				m |= g.set
				found = true
			}
		}
		if !found {
			var names []string
			for _, g := range metricGroupNames {
				names = append(names, g.name)
			}
			return 0, fmt.Errorf("unknown metric group %q%s (want a list of %s, or all)", f, textin.DidYouMean(f, append(names, "all")), strings.Join(names, ", "))
		}
	}
	if err := m.check(); err != nil {
		return 0, err
	}
	return m, nil
}

// check reports a set that is not a valid (non-zero) set.
func (m MetricSet) check() error {
	if m&^MetricsAll != 0 {
		return fmt.Errorf("unknown metric groups %#x", uint8(m&^MetricsAll))
	}
	if m&MetricsSched == 0 {
		return fmt.Errorf("%s: the scheduling metrics (sched) are always computed; list them", m)
	}
	return nil
}

// Or returns the set, MetricsAll for the zero value.
func (m MetricSet) Or() MetricSet {
	if m == 0 {
		return MetricsAll
	}
	return m
}

// Has reports whether the set (the zero value meaning MetricsAll) holds every
// group of g.
func (m MetricSet) Has(g MetricSet) bool { return m.Or()&g == g }

// LeftOut names the groups the set (the zero value meaning MetricsAll) leaves
// out, in the order of String; nil when it leaves out none.
func (m MetricSet) LeftOut() []string {
	var names []string
	for _, g := range metricGroupNames {
		if !m.Has(g.set) {
			names = append(names, g.name)
		}
	}
	return names
}

// String lists the set's groups, e.g. "sched,route" (the zero value: "all").
func (m MetricSet) String() string {
	if m == 0 {
		return "all"
	}
	var names []string
	for _, g := range metricGroupNames {
		if m&g.set != 0 {
			names = append(names, g.name)
		}
	}
	if m&^MetricsAll != 0 {
		names = append(names, fmt.Sprintf("%#x", uint8(m&^MetricsAll)))
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ",")
}
