package sim

import (
	"encoding/json"
	"slices"
)

// The names of a replay's summary metrics: the JSON keys of Summary (sim --json),
// the columns of compare's table and CSV, the metrics of sweep results, merge's CSV
// and plot's --y. Defined once here; a test checks that they are Summary's JSON keys
// (the comm group's, the keys of its comm object with the prefix "comm_":
// SummaryNumbers).
const (
	MetricMeanTotalPairwiseL1 = "mean_total_pairwise_l1"
	MetricMeanAvgPairwiseL1   = "mean_avg_pairwise_l1"
	MetricMeanSpan            = "mean_span"
	MetricMeanRingSpan        = "mean_ring_span"
	MetricMeanStretchSpan     = "mean_stretch_span"
	MetricMeanBoxVolume       = "mean_bbox_volume"
	MetricMeanBoxSides        = "mean_bbox_sides"
	MetricMeanComponents      = "mean_components"
	MetricPctContiguous       = "pct_contiguous"
	MetricMeanWait            = "mean_wait"
	MetricMeanResponse        = "mean_response"
	MetricMeanSlowdown        = "mean_slowdown"
	MetricMaxWait             = "max_wait"
	MetricMakespan            = "makespan"
	MetricUtilization         = "utilization"
	MetricMeanMessageDistance = "mean_message_distance"
	MetricMeanHopBytes        = "mean_hop_bytes"
	MetricMeanMaxShared       = "mean_max_routes_on_a_link"
	// The network's figures of a replay with a communication model (CommSummary:
	// the JSON's comm object, whose keys they are after "comm_").
	MetricCommMessages        = "comm_messages"
	MetricCommMeanLatency     = "comm_mean_latency_cycles"
	MetricCommMaxLinkMessages = "comm_max_link_messages"
	MetricCommMaxLinkLoad     = "comm_max_link_load"
	MetricCommRunTimeFraction = "comm_run_time_fraction"
)

// commPrefix starts the name of a number of the JSON's comm object as a metric
// (SummaryNumbers).
const commPrefix = "comm_"

// Better is which way a metric is better, when one is: compare marks the best
// value of each metric that has a direction.
type Better int8

const (
	// Neither: no value is better in itself (utilization: under a communication
	// model a higher one means longer run times; the messages delivered are the
	// jobs' quotas whatever the allocator).
	Neither Better = iota
	Lower          // lower is better (waits, distances, latency)
	Higher         // higher is better (% contiguous)
)

// String is "lower", "higher" or "neither".
func (b Better) String() string {
	switch b {
	case Lower:
		return "lower"
	case Higher:
		return "higher"
	}
	return "neither"
}

// Metric is one summary metric: its key (a Metric* constant), its name for people,
// the decimals tables print it with, and its value in a summary.
type Metric struct {
	Key   string                   // the Metric* constant, e.g. "mean_wait", as --metrics and the JSON name it
	Name  string                   // the column heading for people, with the unit, e.g. "mean wait (s)"
	Prec  int                      // decimals tables print
	Value func(s *Summary) float64 // reads the metric from a summary (meaningless unless Has)
	// Group is the metric group it belongs to (MetricSet): a summary without the
	// group's metrics has no value for it (Has).
	Group MetricSet
	// Better is which way the metric is better (Neither when no way is).
	Better Better
}

// Has reports whether summary s holds the metric's value: its group was computed,
// and for the bounding-box metrics, the machine has coordinates.
func (m Metric) Has(s *Summary) bool {
	if s.NoCoordinates && (m.Key == MetricMeanBoxVolume || m.Key == MetricMeanBoxSides) {
		return false // no bounding box on a graph (Summary.NoCoordinates)
	}
	switch m.Group {
	case MetricsRoute:
		return s.RouteSummary != nil
	case MetricsDist:
		return s.PairwiseL1 != nil
	case MetricsComm:
		return s.Comm != nil
	}
	return true
}

// metrics backs Metrics; only this package changes it.
var metrics = []Metric{
	{MetricMeanTotalPairwiseL1, "mean total pairwise L1", 3, func(s *Summary) float64 { return distValue(s).MeanTotalPairwiseL1 }, MetricsDist, Lower},
	{MetricMeanAvgPairwiseL1, "mean avg pairwise L1", 4, func(s *Summary) float64 { return distValue(s).MeanAvgPairwiseL1 }, MetricsDist, Lower},
	{MetricMeanSpan, "mean span", 2, func(s *Summary) float64 { return s.MeanSpan }, MetricsSched, Lower},
	{MetricMeanRingSpan, "mean ring span", 2, func(s *Summary) float64 { return s.MeanRingSpan }, MetricsSched, Lower},
	{MetricMeanStretchSpan, "mean stretch-span", 3, func(s *Summary) float64 { return s.MeanStretchSpan }, MetricsSched, Lower},
	{MetricMeanBoxVolume, "mean bbox volume", 2, func(s *Summary) float64 { return s.MeanBoxVolume }, MetricsSched, Lower},
	{MetricMeanBoxSides, "mean bbox sides", 2, func(s *Summary) float64 { return s.MeanBoxSides }, MetricsSched, Lower},
	{MetricMeanComponents, "mean components", 3, func(s *Summary) float64 { return s.MeanComponents }, MetricsSched, Lower},
	{MetricPctContiguous, "% contiguous", 2, func(s *Summary) float64 { return s.PctContiguous }, MetricsSched, Higher},
	{MetricMeanWait, "mean wait (s)", 1, func(s *Summary) float64 { return s.MeanWait }, MetricsSched, Lower},
	{MetricMeanResponse, "mean response (s)", 1, func(s *Summary) float64 { return s.MeanResponse }, MetricsSched, Lower},
	{MetricMeanSlowdown, "mean slowdown", 3, func(s *Summary) float64 { return s.MeanSlowdown }, MetricsSched, Lower},
	{MetricMakespan, "makespan (s)", 0, func(s *Summary) float64 { return float64(s.Makespan) }, MetricsSched, Lower},
	{MetricUtilization, "utilization", 4, func(s *Summary) float64 { return s.Utilization }, MetricsSched, Neither},
	{MetricMeanMessageDistance, "mean message distance (hops)", 4, func(s *Summary) float64 { return routeValue(s).MeanMessageDistance }, MetricsRoute, Lower},
	{MetricMeanHopBytes, "mean hop-bytes", 1, func(s *Summary) float64 { return routeValue(s).MeanHopBytes }, MetricsRoute, Lower},
	{MetricMeanMaxShared, "mean max routes on a link", 3, func(s *Summary) float64 { return routeValue(s).MeanMaxShared }, MetricsRoute, Lower},
	{MetricCommMessages, "messages delivered", 0, func(s *Summary) float64 { return float64(commValue(s).Messages) }, MetricsComm, Neither},
	{MetricCommMeanLatency, "mean message latency (cycles)", 2, func(s *Summary) float64 { return commValue(s).MeanLatency }, MetricsComm, Lower},
	{MetricCommMaxLinkMessages, "busiest link: messages", 0, func(s *Summary) float64 { return float64(commValue(s).MaxLinkMessages) }, MetricsComm, Lower},
	// The load is over the replay's length, which the allocator changes too: a
	// slower replay lowers it.
	{MetricCommMaxLinkLoad, "busiest link: load", 4, func(s *Summary) float64 { return commValue(s).MaxLinkLoad }, MetricsComm, Neither},
	{MetricCommRunTimeFraction, "run time / trace's (node-seconds)", 4, func(s *Summary) float64 { return commValue(s).RunTimeFraction }, MetricsComm, Lower},
}

// Metrics returns the summary metrics tables show, in their order.
// Each call returns a new slice: changing it changes nothing in the package.
func Metrics() []Metric { return slices.Clone(metrics) }

// MetricByKey returns the metric of Metrics with key k.
func MetricByKey(k string) (Metric, bool) {
	for _, m := range metrics {
		if m.Key == k {
			return m, true
		}
	}
	return Metric{}, false
}

// routeValue returns s's route metrics, zeros when they were not computed (Metric.Has
// tells).
func routeValue(s *Summary) *RouteSummary {
	if s.RouteSummary == nil {
		return &RouteSummary{}
	}
	return s.RouteSummary
}

// distValue returns s's pairwise distances, zeros when they were not computed
// (Metric.Has tells).
func distValue(s *Summary) *PairwiseL1 {
	if s.PairwiseL1 == nil {
		return &PairwiseL1{}
	}
	return s.PairwiseL1
}

// commValue returns s's network figures, zeros when the replay had no
// communication model (Metric.Has tells).
func commValue(s *Summary) *CommSummary {
	if s.Comm == nil {
		return &CommSummary{}
	}
	return s.Comm
}

// SummaryNumbers reads the numbers of a summary's JSON (sim --json, a sweep
// result, a run of compare --json): its numeric top-level keys, and those of its
// comm object with the prefix "comm_", so that each metric of Metrics present is
// there under its key. Nil when b is not a JSON object.
func SummaryNumbers(b []byte) map[string]float64 {
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return nil
	}
	out := map[string]float64{}
	for k, v := range m {
		if f, ok := v.(float64); ok {
			out[k] = f
		}
	}
	if c, ok := m["comm"].(map[string]any); ok {
		for k, v := range c {
			if f, ok := v.(float64); ok {
				out[commPrefix+k] = f
			}
		}
	}
	return out
}
