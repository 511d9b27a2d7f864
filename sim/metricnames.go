package sim

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
	Key   string
	Name  string
	Prec  int
	Value func(s *Summary) float64
}

// Metrics are the summary metrics tables show, in their order.
var Metrics = []Metric{
	{MetricMeanTotalPairwiseL1, "mean total pairwise L1", 3, func(s *Summary) float64 { return s.MeanTotalPairwiseL1 }},
	{MetricMeanAvgPairwiseL1, "mean avg pairwise L1", 4, func(s *Summary) float64 { return s.MeanAvgPairwiseL1 }},
	{MetricMeanSpan, "mean span", 2, func(s *Summary) float64 { return s.MeanSpan }},
	{MetricMeanRingSpan, "mean ring span", 2, func(s *Summary) float64 { return s.MeanRingSpan }},
	{MetricMeanStretchSpan, "mean stretch-span", 3, func(s *Summary) float64 { return s.MeanStretchSpan }},
	{MetricMeanBoxVolume, "mean bbox volume", 2, func(s *Summary) float64 { return s.MeanBoxVolume }},
	{MetricMeanBoxSides, "mean bbox sides", 2, func(s *Summary) float64 { return s.MeanBoxSides }},
	{MetricMeanComponents, "mean components", 3, func(s *Summary) float64 { return s.MeanComponents }},
	{MetricPctContiguous, "% contiguous", 2, func(s *Summary) float64 { return s.PctContiguous }},
	{MetricMeanWait, "mean wait (s)", 1, func(s *Summary) float64 { return s.MeanWait }},
	{MetricMeanResponse, "mean response (s)", 1, func(s *Summary) float64 { return s.MeanResponse }},
	{MetricMeanSlowdown, "mean slowdown", 3, func(s *Summary) float64 { return s.MeanSlowdown }},
	{MetricMakespan, "makespan (s)", 0, func(s *Summary) float64 { return float64(s.Makespan) }},
	{MetricUtilization, "utilization", 4, func(s *Summary) float64 { return s.Utilization }},
	{MetricMeanMessageDistance, "mean message distance (hops)", 4, func(s *Summary) float64 { return s.MeanMessageDistance }},
	{MetricMeanHopBytes, "mean hop-bytes", 1, func(s *Summary) float64 { return s.MeanHopBytes }},
	{MetricMeanMaxShared, "mean max routes on a link", 3, func(s *Summary) float64 { return s.MeanMaxShared }},
}

// MetricByKey returns the metric of Metrics with key k.
func MetricByKey(k string) (Metric, bool) {
	for _, m := range Metrics {
		if m.Key == k {
			return m, true
		}
	}
	return Metric{}, false
}
