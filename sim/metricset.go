package sim

import (
	"fmt"
	"strings"

	"github.com/procalloc/procalloc/internal/textin"
)

// MetricSet is the groups of summary metrics a replay computes (Spec.Metrics,
// Config.Metrics). The scheduling and allocation metrics (waits, spans, boxes,
// components, ...) are always computed; the pairwise hop distances of each job
// (PairwiseL1), the static route metrics (message distance, hop-bytes, routes on
// a link: RouteSummary) and the tie statistics of the allocators that count ties
// (Ties, JobResult.Ties: Johnson et al. 2010 Fig. 4; alloc.TieReporter) cost more
// than the replay itself on large machines and can be left out, in which case they
// are absent from the summary (Summary.PairwiseL1, Summary.RouteSummary or
// Summary.Ties nil, no JSON keys), never reported as zeros. Leaving the tie
// statistics out never changes the nodes a job gets (TestTiesOffSamePlacements).
// The zero value means MetricsAll.
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
	// MetricsAll are every group: the default.
	MetricsAll = MetricsSched | MetricsRoute | MetricsDist | MetricsTies
)

var metricGroupNames = []struct {
	set  MetricSet
	name string
}{{MetricsSched, "sched"}, {MetricsRoute, "route"}, {MetricsDist, "dist"}, {MetricsTies, "ties"}}

// ParseMetrics reads a comma-separated list of metric groups ("sched", "route",
// "dist", "ties", "all"); "sched" must be among them (it is always computed):
// "sched" alone leaves out the pairwise distances, the route metrics and the tie
// statistics.
func ParseMetrics(s string) (MetricSet, error) {
	var m MetricSet
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "all" {
			m |= MetricsAll
			continue
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
