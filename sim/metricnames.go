package sim

import "slices"

// The names of a replay's summary metrics: the JSON keys of Summary (sim --json),
// the columns of compare's table and CSV, the metrics of sweep results, merge's CSV
// and plot's --y. Defined once here; a test checks that they are Summary's JSON keys.
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
)

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
	}
	return true
}

// metrics backs Metrics; only this package changes it.
var metrics = []Metric{
	{MetricMeanTotalPairwiseL1, "mean total pairwise L1", 3, func(s *Summary) float64 { return distValue(s).MeanTotalPairwiseL1 }, MetricsDist},
	{MetricMeanAvgPairwiseL1, "mean avg pairwise L1", 4, func(s *Summary) float64 { return distValue(s).MeanAvgPairwiseL1 }, MetricsDist},
	{MetricMeanSpan, "mean span", 2, func(s *Summary) float64 { return s.MeanSpan }, MetricsSched},
	{MetricMeanRingSpan, "mean ring span", 2, func(s *Summary) float64 { return s.MeanRingSpan }, MetricsSched},
	{MetricMeanStretchSpan, "mean stretch-span", 3, func(s *Summary) float64 { return s.MeanStretchSpan }, MetricsSched},
	{MetricMeanBoxVolume, "mean bbox volume", 2, func(s *Summary) float64 { return s.MeanBoxVolume }, MetricsSched},
	{MetricMeanBoxSides, "mean bbox sides", 2, func(s *Summary) float64 { return s.MeanBoxSides }, MetricsSched},
	{MetricMeanComponents, "mean components", 3, func(s *Summary) float64 { return s.MeanComponents }, MetricsSched},
	{MetricPctContiguous, "% contiguous", 2, func(s *Summary) float64 { return s.PctContiguous }, MetricsSched},
	{MetricMeanWait, "mean wait (s)", 1, func(s *Summary) float64 { return s.MeanWait }, MetricsSched},
	{MetricMeanResponse, "mean response (s)", 1, func(s *Summary) float64 { return s.MeanResponse }, MetricsSched},
	{MetricMeanSlowdown, "mean slowdown", 3, func(s *Summary) float64 { return s.MeanSlowdown }, MetricsSched},
	{MetricMakespan, "makespan (s)", 0, func(s *Summary) float64 { return float64(s.Makespan) }, MetricsSched},
	{MetricUtilization, "utilization", 4, func(s *Summary) float64 { return s.Utilization }, MetricsSched},
	{MetricMeanMessageDistance, "mean message distance (hops)", 4, func(s *Summary) float64 { return routeValue(s).MeanMessageDistance }, MetricsRoute},
	{MetricMeanHopBytes, "mean hop-bytes", 1, func(s *Summary) float64 { return routeValue(s).MeanHopBytes }, MetricsRoute},
	{MetricMeanMaxShared, "mean max routes on a link", 3, func(s *Summary) float64 { return routeValue(s).MeanMaxShared }, MetricsRoute},
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
