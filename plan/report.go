package plan

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/internal/textin"
	"github.com/procalloc/procalloc/plot"
	"github.com/procalloc/procalloc/sim"
)

// Report is report.json: what was read, the ordering, every deployment's
// predicted placement quality, and the recommendation.
type Report struct {
	// Recommended is the deployment to apply: the supported one with the lowest
	// mean pairwise hops, or "current" when none gains Threshold over it.
	Recommended    string  `json:"recommended"`
	Recommendation string  `json:"recommendation"` // one sentence: the deployment and its gain, or why to keep the current one
	Threshold      float64 `json:"threshold"`      // Options.Threshold used: the least relative gain that recommends a change
	// TimeLimit is the plan's time limit (Options.TimeLimit), seconds; absent
	// without one. The ordering's share is Ordering.TimeLimit; when the replays
	// reach it, Workload.Stopped says how much of the workload they cover.
	TimeLimit float64 `json:"time_limit,omitempty"`
	// Caveats of the recommendation: what the emulation does not model, what the
	// change costs.
	Caveats            []string           `json:"caveats"`
	Machine            string             `json:"machine"`              // the network's spec (topo.Machine.Spec)
	Hosts              int                `json:"hosts"`                // compute hosts ordered and replayed on
	SlurmVersion       string             `json:"slurm_version"`        // Options.Version, e.g. "22.05"
	SlurmVersionSource string             `json:"slurm_version_source"` // Options.VersionSource
	Partitions         []string           `json:"partitions"`           // slurm.conf's partition names
	Workload           Workload           `json:"workload"`             // what was replayed
	Ordering           OrderingReport     `json:"ordering"`             // the ordering's certificate
	Deployments        []DeploymentReport `json:"deployments"`          // every deployment, in Kinds order
	// UnmatchedHosts are the network's hosts slurm.conf does not define (left out).
	UnmatchedHosts []string `json:"unmatched_hosts"`
	// MissingNodes are the slurm.conf nodes the network lacks (kept as they are).
	MissingNodes []string `json:"missing_nodes"`
	Warnings     []string `json:"warnings"` // inputs accepted that may be mistakes (unknown keys, unmatched hosts)
	Notes        []string `json:"notes"`    // what the plan assumed or left out (a synthetic workload, an unused topology.conf)
	// Files are the files written, relative to the output directory.
	Files []string `json:"files"`
}

// Workload says what was replayed.
type Workload struct {
	Source      string         `json:"source"`                // "trace" or "synthetic"
	Path        string         `json:"path,omitempty"`        // Options.TracePath; empty for the synthetic workload
	Jobs        int            `json:"jobs"`                  // jobs replayed
	Seed        uint64         `json:"seed,omitempty"`        // the synthetic workload's seed
	Sched       string         `json:"sched"`                 // the scheduler replayed: "as-run" for an sacct trace, else "easy"
	Description string         `json:"description,omitempty"` // how the synthetic workload is drawn (SyntheticDescription)
	Skipped     map[string]int `json:"skipped,omitempty"`     // sacct records not replayed, by reason (sim.Trace.Skipped)
	// DroppedUnknownHosts are the history's jobs dropped because they name a
	// host that is not a compute host (Options.DropUnknownHosts); Jobs are
	// those kept.
	DroppedUnknownHosts *sim.HostsDropped `json:"dropped_unknown_hosts,omitempty"`
	// Window is the history window (Options.From, Options.To) when one was
	// given: Jobs are the window's (without those DropUnknownHosts dropped).
	Window *HistoryWindow `json:"window,omitempty"`
	// Partitions are the jobs replayed in each partition, when the partitions
	// restrict the replays (some partition lacks a compute host): slurm.conf's
	// partitions in file order, then the unions of heterogeneous jobs and the
	// nodes of every partition (jobs that name none, without a default
	// partition); absent otherwise.
	Partitions []PartitionJobs `json:"partitions,omitempty"`
	// Stopped is set when the time limit stopped the replays before every
	// deployment had replayed all Jobs: the metrics, the predictions and the
	// recommendation then cover the workload's first Stopped.Jobs jobs only.
	Stopped *ReplayStop `json:"stopped,omitempty"`
}

// HistoryWindow is the window of the history replayed (Options.From,
// Options.To): its ends as given and in seconds from the history's start
// (its earliest Submit), and how many jobs the history has in all.
type HistoryWindow struct {
	From        string `json:"from,omitempty"` // Options.From as given ("" open)
	To          string `json:"to,omitempty"`   // Options.To as given ("" open)
	FromSeconds int64  `json:"from_seconds"`   // the window's start, seconds from the history's start
	ToSeconds   int64  `json:"to_seconds"`     // its end (0: open)
	Jobs        int    `json:"jobs"`           // the window's jobs (before Options.DropUnknownHosts)
	HistoryJobs int    `json:"history_jobs"`   // the jobs of the whole history (sim.Trace.Jobs)
}

// Text says the window: "--from F --to T: the jobs arriving in [a s, b s)
// from the history's start, N of its M jobs" (the ends by procalloc plan's
// flags).
func (hw *HistoryWindow) Text() string {
	var ends []string
	if hw.From != "" {
		ends = append(ends, "--from "+hw.From)
	}
	if hw.To != "" {
		ends = append(ends, "--to "+hw.To)
	}
	span := fmt.Sprintf("in [%d s, %d s)", hw.FromSeconds, hw.ToSeconds)
	if hw.ToSeconds == 0 {
		span = fmt.Sprintf("%d s or later", hw.FromSeconds)
	}
	return fmt.Sprintf("%s: the jobs arriving %s from the history's start, %d of its %s", strings.Join(ends, " "), span, hw.Jobs, textin.CountNoun(hw.HistoryJobs, "job"))
}

// PartitionJobs is a partition's compute hosts and the jobs replayed in it.
type PartitionJobs struct {
	Name  string `json:"name"`  // the PartitionName (or the union's names)
	Hosts int    `json:"hosts"` // its compute hosts
	Jobs  int    `json:"jobs"`  // jobs replayed in it
}

// ReplayStop says where the time limit stopped the replays.
type ReplayStop struct {
	// Jobs is how many of the workload's jobs, from its first in trace order,
	// every deployment replayed: each deployment's metrics and predictions are
	// over these jobs, the same jobs for every one.
	Jobs   int    `json:"jobs"`
	Reason string `json:"reason"` // e.g. "plan time limit 10m0s reached"
	// During is when: "the replays", or "the deployments' builds" (some were not
	// built, Jobs is 0).
	During string `json:"during"`
}

// OrderingReport is the ordering's certificate: F of the ordering, its proven
// lower bound and gap, next to F of name order and of the best curve.
type OrderingReport struct {
	Weights     string      `json:"weights"`         // F's weights, e.g. "list:1,0.5" (curves.Weights.String)
	Objective   float64     `json:"objective"`       // F of the certified ordering
	Bound       *float64    `json:"bound"`           // proven lower bound on F; null when none
	Gap         *float64    `json:"gap"`             // (Objective - Bound) / Objective, a fraction; null without Bound
	Status      string      `json:"status"`          // the solve's status (order.Result.Status)
	BoundSource string      `json:"bound_source"`    // which bound proved Bound (order.Result.BoundSource)
	NameOrder   float64     `json:"name_order"`      // F of Slurm's name order, the order without configuration
	BestCurve   *CurveScore `json:"best_curve"`      // the curve of least F; null when none applies
	Seconds     float64     `json:"seconds"`         // the solve's wall-clock time
	TimeLimit   float64     `json:"time_limit"`      // 0: none
	Notes       []string    `json:"notes,omitempty"` // the solver's notes (order.Result.Notes)
}

// CurveScore is F of a named curve.
type CurveScore struct {
	Name      string  `json:"name"`      // the curve's name (curves.Names)
	Objective float64 `json:"objective"` // F of its ordering
}

// DeploymentReport is one deployment in report.json.
type DeploymentReport struct {
	Name         string   `json:"name"`             // the deployment's Kind
	Supported    bool     `json:"supported"`        // Deployment.Supported
	NeedsVersion string   `json:"needs_version"`    // the oldest Slurm that runs it, e.g. "23.11"; "" when any
	Reason       string   `json:"reason,omitempty"` // why not supported (Deployment.Why)
	Metrics      *Metrics `json:"metrics"`          // over all multi-node jobs; null when not Supported (not replayed)
	// ChangeVsCurrent and ChangeVsAsRun are the relative change of mean pairwise
	// hops against those deployments (-0.2: 20% fewer hops).
	ChangeVsCurrent *float64      `json:"change_vs_current"`
	ChangeVsAsRun   *float64      `json:"change_vs_as_run"` // null when either has no metrics (as-run needs an sacct trace)
	BySize          []SizeMetrics `json:"by_size"`          // by job-size class, smallest first
	// Pending counts jobs Slurm would leave pending under it (no switch or block
	// holds them).
	Pending int `json:"pending"`
	// Refused counts jobs Slurm refuses at submission under it (torus3d: no
	// placement of their size).
	Refused int `json:"refused"`
	// Waited counts jobs that found too few free nodes in their partition (or no
	// switch or block in it that holds them, where no fallback applies) when
	// production started them, and waited for a release as Slurm would have
	// kept them pending; only when partitions restrict the replays.
	Waited      int      `json:"waited,omitempty"`
	Settings    []string `json:"settings,omitempty"`    // slurm.conf settings it changes
	Notes       []string `json:"notes,omitempty"`       // its caveats, and the jobs left pending or refused
	Predictions string   `json:"predictions,omitempty"` // the per-job predictions file written, e.g. "predictions/tree.csv"
}

// Metrics are placement metrics over the jobs of two or more nodes: the mean over
// jobs of the mean hop distance between two of a job's nodes, the mean number of
// leaf switches a job spans and the percentage of jobs on one leaf (null on a
// network without leaf switches), and the mean wait (seconds).
type Metrics struct {
	Jobs              int      `json:"jobs"`                // jobs of two or more nodes measured
	MeanPairwiseHops  float64  `json:"mean_pairwise_hops"`  // hops between two of a job's nodes
	MeanLeavesSpanned *float64 `json:"mean_leaves_spanned"` // leaf switches per job; null without leaves
	PctOneLeaf        *float64 `json:"pct_one_leaf"`        // % of jobs under one leaf; null without leaves
	MeanWait          float64  `json:"mean_wait"`           // seconds, over all jobs of the replay
}

// SizeMetrics are the metrics of one job-size class (nodes MinNodes..MaxNodes).
type SizeMetrics struct {
	Class    string   `json:"class"`     // e.g. "2", "3-4", "5-8"
	MinNodes int      `json:"min_nodes"` // smallest job size of the class
	MaxNodes int      `json:"max_nodes"` // largest
	Metrics  *Metrics `json:"metrics"`   // the class's jobs' metrics
}

func (p *Plan) reportOf(k Kind) *DeploymentReport {
	for i := range p.Report.Deployments {
		if p.Report.Deployments[i].Name == string(k) {
			return &p.Report.Deployments[i]
		}
	}
	return nil
}

// recommend fills the changes against current and as-run and picks the
// deployment.
func (p *Plan) recommend() {
	r := &p.Report
	cur, asrun := p.reportOf(KindCurrent), p.reportOf(KindAsRun)
	change := func(d, base *DeploymentReport) *float64 {
		if base == nil || base.Metrics == nil || d.Metrics == nil || base.Metrics.MeanPairwiseHops == 0 {
			return nil
		}
		c := d.Metrics.MeanPairwiseHops/base.Metrics.MeanPairwiseHops - 1
		return &c
	}
	for i := range r.Deployments {
		d := &r.Deployments[i]
		d.ChangeVsCurrent, d.ChangeVsAsRun = change(d, cur), change(d, asrun)
	}
	// best is the best deployment Slurm runs every job under; passed the best of
	// those it would not (jobs left pending or refused), named in the
	// recommendation when it beats best, so that a better figure in the table is
	// not passed over without a word.
	best, passed := (*DeploymentReport)(nil), (*DeploymentReport)(nil)
	for i := range r.Deployments {
		d := &r.Deployments[i]
		if !d.Supported || d.Metrics == nil || d.Name == string(KindCurrent) || d.Name == string(KindAsRun) {
			continue
		}
		if d.Pending > 0 || d.Refused > 0 {
			if passed == nil || d.Metrics.MeanPairwiseHops < passed.Metrics.MeanPairwiseHops {
				passed = d
			}
			continue
		}
		if best == nil || d.Metrics.MeanPairwiseHops < best.Metrics.MeanPairwiseHops {
			best = d
		}
	}
	r.Recommended = string(KindCurrent)
	stop := r.Workload.Stopped
	switch {
	case stop != nil && stop.Jobs == 0:
		r.Recommendation = "keep the current configuration: the time limit came before any job was replayed under every deployment"
	case best == nil:
		r.Recommendation = "keep the current configuration: no other deployment is supported here"
	case cur == nil || cur.Metrics == nil || cur.Metrics.Jobs == 0:
		r.Recommendation = "keep the current configuration: no multi-node jobs to compare on"
	case best.ChangeVsCurrent != nil && -*best.ChangeVsCurrent >= r.Threshold:
		r.Recommended = best.Name
		r.Recommendation = fmt.Sprintf("deploy %s: mean pairwise hops %.3f instead of %.3f (%+.1f%%) on %s", best.Name,
			best.Metrics.MeanPairwiseHops, cur.Metrics.MeanPairwiseHops, 100**best.ChangeVsCurrent, textin.CountNoun(best.Metrics.Jobs, "multi-node job"))
	default:
		gain := -100 * derefOr(best.ChangeVsCurrent, 0)
		if gain > 0 {
			r.Recommendation = fmt.Sprintf("keep the current configuration: the best deployment, %s, cuts mean pairwise hops by %.1f%%, less than the %.0f%% threshold", best.Name, gain, 100*r.Threshold)
		} else {
			r.Recommendation = fmt.Sprintf("keep the current configuration: no deployment cuts mean pairwise hops (the best, %s, changes them by %+.1f%%)", best.Name, -gain)
		}
	}
	if passed != nil && passed.ChangeVsCurrent != nil && (best == nil || passed.Metrics.MeanPairwiseHops < best.Metrics.MeanPairwiseHops) && (stop == nil || stop.Jobs > 0) {
		var why []string
		if passed.Pending > 0 {
			why = append(why, fmt.Sprintf("leave %d of its jobs pending", passed.Pending))
		}
		if passed.Refused > 0 {
			why = append(why, fmt.Sprintf("refuse %d of its jobs at submission", passed.Refused))
		}
		r.Recommendation += fmt.Sprintf("; %s (%+.1f%%) is not recommended: Slurm would %s (its notes in the report say why)", passed.Name, 100**passed.ChangeVsCurrent, strings.Join(why, " and "))
	}
	if d := r.Workload.DroppedUnknownHosts; d != nil {
		notCompute := "hosts that are not compute hosts were"
		if d.Hosts == 1 {
			notCompute = "host that is not a compute host was"
		}
		if d.Jobs > 1 {
			notCompute = strings.Replace(notCompute, " was", " were", 1)
		}
		r.Recommendation += fmt.Sprintf(" (on the %s of the history kept: %s naming %d %s dropped, --drop-unknown-hosts)", textin.CountNoun(r.Workload.Jobs, "job"), textin.CountNoun(d.Jobs, "job"), d.Hosts, notCompute)
	}
	if stop != nil && stop.Jobs > 0 {
		r.Recommendation += fmt.Sprintf(" (on the first %d of the workload's %d jobs: %s during %s)", stop.Jobs, r.Workload.Jobs, stop.Reason, stop.During)
	}
	if stop != nil {
		w := fmt.Sprintf("%s during %s: every deployment's metrics and predictions, and the recommendation, cover the workload's first %d of %d jobs (in trace order, the same jobs for each); give a longer time limit, or none, to replay all of them", stop.Reason, stop.During, stop.Jobs, r.Workload.Jobs)
		if len(p.unbuilt) > 0 {
			names := make([]string, len(p.unbuilt))
			for i, k := range p.unbuilt {
				names[i] = string(k)
			}
			w = fmt.Sprintf("%s during %s: %s not built (no metrics, no files) and no job replayed under any deployment, so nothing is compared; give a longer time limit, or none", stop.Reason, stop.During, strings.Join(names, ", "))
		}
		r.Warnings = append(r.Warnings, w)
		r.Caveats = append(r.Caveats, w)
	}
	if d := p.Deployment(Kind(r.Recommended)); d != nil {
		r.Caveats = append(r.Caveats, d.Notes...)
	}
	if len(r.MissingNodes) > 0 {
		r.Caveats = append(r.Caveats, fmt.Sprintf("the %d slurm.conf nodes the network lacks are not in the emulation: predictions assume jobs do not run on them", len(r.MissingNodes)))
	}
}

func derefOr(p *float64, d float64) float64 {
	if p == nil {
		return d
	}
	return *p
}

// files makes the output files (Plan.Files): ordering.pairs, the recommended
// deployment's slurm.conf and topology file, those of Options.Deployment in a
// directory of its name, apply.txt, report.json, report.html.
func (p *Plan) files() error {
	// Where apply.txt installs the files, and why: in the report too.
	if dir, source := p.SlurmConfDir(); dir != "" {
		p.Report.Notes = append(p.Report.Notes, fmt.Sprintf("apply.txt installs the files in %s, slurm.conf's directory (%s)", dir, source))
	} else {
		p.Report.Notes = append(p.Report.Notes, fmt.Sprintf("slurm.conf's directory is not known (%s): apply.txt installs the files in $SLURM_CONF_DIR, to be set first; give --slurm-conf-dir DIR to name it", source))
	}
	var pairs bytes.Buffer
	meta := curves.RankingMeta{Machine: p.Machine.Spec(), Curve: fmt.Sprintf("optimal-F %s (%s)", p.Report.Ordering.Weights, p.Report.Ordering.Status)}
	if err := curves.WriteRanking(&pairs, curves.FormatPairs, p.Order, meta, p.Names); err != nil {
		return err
	}
	var hosts bytes.Buffer
	if err := curves.WriteRanking(&hosts, curves.FormatHosts, p.Order, meta, p.Names); err != nil {
		return err
	}
	files := []File{{Name: "ordering.pairs", Data: pairs.Bytes()}, {Name: "ordering.hosts", Data: hosts.Bytes()}}
	rec := p.Deployment(Kind(p.Report.Recommended))
	files = append(files, p.deploymentFiles(rec, "")...)
	// DIR/NAME/ is written even when NAME is the recommendation: a script that
	// asked for NAME's files finds them there whatever the replays recommend.
	if k := p.opt.Deployment; k != "" {
		d := p.Deployment(k)
		if !d.Supported {
			return fmt.Errorf("--deployment %s: %s", k, d.Why)
		}
		files = append(files, p.deploymentFiles(d, string(k)+"/")...)
		// NAME's own steps beside its files: the top apply.txt is the
		// recommendation's, and NAME's files need other steps (a restart, not a
		// reconfigure) when NAME is not the recommendation.
		files = append(files, File{Name: string(k) + "/apply.txt", Data: []byte(p.applyText(d))})
	}
	files = append(files, p.Files...) // predictions
	files = append(files, File{Name: "apply.txt", Data: []byte(p.applyText(rec))})
	for _, f := range files {
		p.Report.Files = append(p.Report.Files, f.Name)
	}
	p.Report.Files = append(p.Report.Files, "report.json", "report.html")
	var js bytes.Buffer
	enc := json.NewEncoder(&js)
	enc.SetIndent("", "  ")
	if err := enc.Encode(&p.Report); err != nil {
		return err
	}
	var hb bytes.Buffer
	if err := p.writeHTML(&hb); err != nil {
		return err
	}
	p.Files = append(files, File{Name: "report.json", Data: js.Bytes()}, File{Name: "report.html", Data: hb.Bytes()})
	return nil
}

func (p *Plan) deploymentFiles(d *Deployment, dir string) []File {
	var out []File
	if d.SlurmConf != nil {
		out = append(out, File{Name: dir + "slurm.conf", Data: d.SlurmConf})
		out = append(out, p.changedIncludedFiles(d, dir)...)
	}
	if d.Topology != nil {
		out = append(out, File{Name: dir + d.TopologyName, Data: d.Topology})
	}
	return out
}

// applyText is apply.txt: the exact steps to deploy d, run in the directory of d's
// files. TestApplyStepsOnSlurm runs them on a real Slurm.
func (p *Plan) applyText(d *Deployment) string {
	var b strings.Builder
	r := &p.Report
	if string(d.Kind) != r.Recommended {
		fmt.Fprintf(&b, "# procalloc plan --deployment %s (the plan's recommendation: %s)\n", d.Kind, r.Recommendation)
	} else {
		fmt.Fprintf(&b, "# procalloc plan: %s\n", r.Recommendation)
	}
	fmt.Fprintf(&b, "# Slurm %s (%s)\n", r.SlurmVersion, r.SlurmVersionSource)
	dir, source := p.SlurmConfDir()
	if dir != "" {
		fmt.Fprintf(&b, "# slurm.conf's directory: %s (%s); slurmctld reads topology.conf and relative Include names there.\n"+
			"# If slurmctld reads another slurm.conf (its -f, else SLURM_CONF, else its built-in path; scontrol show config | grep SLURM_CONF), plan again with --slurm-conf-dir DIR.\n\n", dir, source)
	} else {
		fmt.Fprintf(&b, "# slurm.conf's directory: not known (%s).\n"+
			"# Set SLURM_CONF_DIR to the directory of the slurm.conf slurmctld reads (its -f, else SLURM_CONF, else its built-in path,\n"+
			"# e.g. /etc/slurm for Debian's packages; scontrol show config | grep SLURM_CONF prints it) before the steps, or plan again with --slurm-conf-dir DIR.\n\n", source)
	}
	if d.Kind == KindCurrent {
		b.WriteString("Nothing to change: keep the current slurm.conf")
		if d.Topology != nil {
			b.WriteString(" and " + d.TopologyName)
		}
		if d.SlurmConf != nil {
			b.WriteString(". (slurm.conf here is the current one, unchanged.)\n")
		} else { // not built: the time limit came first
			b.WriteString(".\n")
		}
		return b.String()
	}
	fmt.Fprintf(&b, "Deployment %s:\n", d.Kind)
	for _, s := range d.Settings {
		fmt.Fprintf(&b, "  - %s\n", s)
	}
	at := func(name string) string { return p.confDirArg() + "/" + name }
	// The site's topology.conf is replaced: back it up (a site without one has
	// none to back up).
	backupTopology := d.TopologyName == "topology.conf" && p.opt.TopologyConf != nil && p.topoYAML == nil
	// A site's topology.yaml is replaced (torus3d) or must go (tree, block:
	// Slurm reads topology.yaml when it exists, and then neither
	// TopologyPlugin nor topology.conf).
	siteYAML := p.topoYAML != nil && d.Kind != KindWeights
	b.WriteString("\nSteps (on the controller, as root, in the directory of this file):\n")
	fmt.Fprintf(&b, "  1. Back up the current files:\n       cp -p %s %s\n", at("slurm.conf"), at("slurm.conf.before-procalloc"))
	for _, f := range d.allIncluded() {
		if f.Changed {
			fmt.Fprintf(&b, "       cp -p %s %s.before-procalloc\n", p.destArg(f), p.destArg(f))
		}
	}
	if backupTopology {
		fmt.Fprintf(&b, "       cp -p %s %s\n", at("topology.conf"), at("topology.conf.before-procalloc"))
	}
	if siteYAML {
		fmt.Fprintf(&b, "       cp -p %s %s\n", at("topology.yaml"), at("topology.yaml.before-procalloc"))
	}
	step := 2
	fmt.Fprintf(&b, "  %d. Copy the new slurm.conf to every host that reads it (controller, compute nodes; or the configless server):\n       install -m 644 slurm.conf %s\n", step, at("slurm.conf"))
	step++
	if changed := p.changedIncludedFiles(d, ""); len(changed) > 0 {
		// slurm.conf and topology.conf keep their Include lines: each changed
		// file goes where slurmctld reads it (a relative name beside slurm.conf).
		fmt.Fprintf(&b, "  %d. Copy the included files it changes to where their Include lines name them (a file shared with other clusters or tools changes for them too):\n", step)
		for _, f := range d.allIncluded() {
			if f.Changed {
				fmt.Fprintf(&b, "       install -m 644 %s %s\n", textin.ShellWord(p.IncludedName(f)), p.destArg(f))
			}
		}
		step++
	}
	if same := unchangedIncluded(d); len(same) > 0 {
		fmt.Fprintf(&b, "     Unchanged, keep as they are: %s\n", strings.Join(same, " "))
	}
	if siteYAML && d.TopologyName != "topology.yaml" {
		fmt.Fprintf(&b, "  %d. Remove the site's topology.yaml (backed up above): Slurm reads it when it exists, and then neither TopologyPlugin nor topology.conf:\n       rm %s\n", step, at("topology.yaml"))
		step++
	}
	if d.Topology != nil {
		fmt.Fprintf(&b, "  %d. Copy %s next to slurm.conf:\n       install -m 644 %s %s\n", step, d.TopologyName, d.TopologyName, at(d.TopologyName))
		if d.TopologyIncluded == nil && d.TopologyName == "topology.conf" && len(p.siteTopologyIncluded) > 0 {
			var names []string
			for _, f := range p.siteTopologyIncluded {
				names = append(names, f.Path)
			}
			fmt.Fprintf(&b, "     It is written whole from the network and replaces the site's topology.conf, whose Include lines named %s: Slurm no longer reads those files.\n", strings.Join(names, " "))
		}
		step++
	}
	switch d.Kind {
	case KindWeights:
		fmt.Fprintf(&b, "  %d. Weights change with a reconfigure:\n       scontrol reconfigure\n", step)
		b.WriteString("     slurmctld then logs \"error: Node NAME Weight(OLD) differ from slurm.conf\" once for each node\n" +
			"     whose weight changed, and takes slurm.conf's weight (a slurmctld restarted with -R keeps the old).\n")
		step++
		fmt.Fprintf(&b, "  %d. Check: scontrol show node %s | grep -o 'Weight=[0-9]*'   # Weight=1: the ordering's first node\n", step, d.names[p.Order[0]])
	case KindNames:
		fmt.Fprintf(&b, "  %d. Renaming nodes needs a restart of every daemon, with no jobs running on the renamed nodes:\n       scontrol update nodename=ALL state=drain reason=procalloc-rename   # wait for jobs to end\n       systemctl restart slurmctld; then on every node: systemctl restart slurmd\n", step)
		step++
		fmt.Fprintf(&b, "  %d. Rename the nodes in gres.conf, cgroup and reservation settings, scripts and monitoring too.\n", step)
	default:
		fmt.Fprintf(&b, "  %d. A topology plugin change needs a restart of slurmctld and the slurmd daemons:\n       systemctl restart slurmctld; then on every node: systemctl restart slurmd\n", step)
		step++
		fmt.Fprintf(&b, "  %d. Check: scontrol show topology\n", step)
	}
	// ordering.hosts names the network's hosts; after renaming, Slurm's node names
	// are in ordering order themselves.
	b.WriteString("\nA job's tasks along the ordering (optional, in a batch script; one task per node):\n")
	copyHosts := ""
	if d.Kind == KindNames {
		b.WriteString("       scontrol show hostnames \"$SLURM_JOB_NODELIST\" > hosts.$SLURM_JOB_ID   # the new names are in ordering order\n")
	} else {
		b.WriteString("       scontrol show hostnames \"$SLURM_JOB_NODELIST\" | grep -Fxf - ordering.hosts > hosts.$SLURM_JOB_ID\n")
		copyHosts = "put the plan's ordering.hosts where the job can read it; "
	}
	fmt.Fprintf(&b, "       SLURM_HOSTFILE=hosts.$SLURM_JOB_ID srun --distribution=arbitrary -n \"$SLURM_NNODES\" PROGRAM\n"+
		"     (%stask r on line r; without -n srun starts one task per line of the file;\n"+
		"     a --nodelist keeps no order: Slurm sorts it)\n", copyHosts)
	if len(r.Caveats) > 0 {
		b.WriteString("\nCaveats:\n")
		for _, c := range r.Caveats {
			fmt.Fprintf(&b, "  - %s\n", c)
		}
	}
	return b.String()
}

// writeHTML writes report.html: one self-contained page (inline CSS and SVG, no
// script, no network).
func (p *Plan) writeHTML(w io.Writer) error {
	r := &p.Report
	e := html.EscapeString
	fmt.Fprintf(w, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>procalloc plan: %s</title>\n", e(r.Machine))
	io.WriteString(w, `<style>body{font-family:sans-serif;max-width:60em;margin:2em auto;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #bbb;padding:.25em .6em;text-align:right}
th{background:#eee}td:first-child,th:first-child,.deploy td:nth-child(2),.deploy th:nth-child(2){text-align:left}.rec{background:#e8f4e8;border:1px solid #6a6;padding:.8em}
.warn{color:#a40}</style></head><body>
`)
	fmt.Fprintf(w, "<h1>procalloc plan</h1>\n<p class=\"rec\" id=\"recommendation\"><b>Recommendation:</b> %s</p>\n", e(r.Recommendation))
	if len(r.Caveats) > 0 {
		io.WriteString(w, "<h2>Caveats</h2><ul>\n")
		for _, c := range r.Caveats {
			fmt.Fprintf(w, "<li>%s</li>\n", e(c))
		}
		io.WriteString(w, "</ul>\n")
	}
	fmt.Fprintf(w, "<p>Network %s: %s. Slurm %s (%s). Workload: %s, %s, schedule %s.</p>\n",
		e(r.Machine), textin.CountNoun(r.Hosts, "compute host"), e(r.SlurmVersion), e(r.SlurmVersionSource), e(r.Workload.Source), textin.CountNoun(r.Workload.Jobs, "job"), e(r.Workload.Sched))
	if hw := r.Workload.Window; hw != nil {
		fmt.Fprintf(w, "<p>History window: %s.</p>\n", e(hw.Text()))
	}
	if len(r.Workload.Partitions) > 0 {
		var ps []string
		for _, pt := range r.Workload.Partitions {
			ps = append(ps, fmt.Sprintf("%s: %s on %s", pt.Name, textin.CountNoun(pt.Jobs, "job"), textin.CountNoun(pt.Hosts, "host")))
		}
		fmt.Fprintf(w, "<p>Each job replayed in its partition: %s.</p>\n", e(strings.Join(ps, "; ")))
	}
	if r.Workload.Description != "" {
		fmt.Fprintf(w, "<p>%s</p>\n", e(r.Workload.Description))
	}
	if st := r.Workload.Stopped; st != nil {
		fmt.Fprintf(w, "<p class=\"warn\"><b>Partial replays:</b> %s; every figure below is over the workload's first %d of %d jobs only.</p>\n", e(st.Reason+" during "+st.During), st.Jobs, r.Workload.Jobs)
	}
	waited := false // a column only when partitions made jobs wait (Waited)
	for _, d := range r.Deployments {
		waited = waited || d.Waited > 0
	}
	io.WriteString(w, "<h2>Deployments</h2>\n<table class=\"deploy\"><tr><th>deployment</th><th>supported</th><th>mean pairwise hops</th><th>mean leaves spanned</th><th>% jobs on one leaf</th><th>vs current</th><th>vs as-run</th><th>pending</th><th>refused</th>")
	if waited {
		io.WriteString(w, "<th>waited</th>")
	}
	io.WriteString(w, "</tr>\n")
	var labels []string
	var vals, oneLeaf []float64
	noLeaves := false // a replay without leaf metrics: the network has no leaf switches
	for _, d := range r.Deployments {
		sup := "yes"
		if !d.Supported {
			sup = "no: " + d.Reason
		}
		cells := []string{"", "", "", "", "", "", ""}
		if waited {
			cells = append(cells, "")
		}
		if m := d.Metrics; m != nil {
			cells[0] = fmt.Sprintf("%.3f", m.MeanPairwiseHops)
			if m.MeanLeavesSpanned != nil {
				cells[1] = fmt.Sprintf("%.2f", *m.MeanLeavesSpanned)
				cells[2] = fmt.Sprintf("%.1f", *m.PctOneLeaf)
			} else {
				cells[1], cells[2] = "–", "–"
				noLeaves = true
			}
			labels, vals = append(labels, d.Name), append(vals, m.MeanPairwiseHops)
			if m.PctOneLeaf != nil {
				oneLeaf = append(oneLeaf, *m.PctOneLeaf)
			}
		}
		if d.ChangeVsCurrent != nil {
			cells[3] = fmt.Sprintf("%+.1f%%", 100**d.ChangeVsCurrent)
		}
		if d.ChangeVsAsRun != nil {
			cells[4] = fmt.Sprintf("%+.1f%%", 100**d.ChangeVsAsRun)
		}
		if d.Metrics != nil {
			cells[5], cells[6] = fmt.Sprint(d.Pending), fmt.Sprint(d.Refused)
			if waited {
				cells[7] = fmt.Sprint(d.Waited)
			}
		}
		fmt.Fprintf(w, "<tr><td>%s</td><td>%s</td>", e(d.Name), e(sup))
		for _, c := range cells {
			fmt.Fprintf(w, "<td>%s</td>", e(c))
		}
		io.WriteString(w, "</tr>\n")
	}
	io.WriteString(w, "</table>\n")
	jobs := "the jobs of two or more nodes"
	if cur := p.reportOf(KindCurrent); cur != nil && cur.Metrics != nil {
		jobs = fmt.Sprintf("the %s of two or more nodes", textin.CountNoun(cur.Metrics.Jobs, "job"))
	}
	fmt.Fprintf(w, "<p>Metrics over %s. Pending: jobs Slurm would leave pending under the deployment (no switch or block holds them; replayed on the lowest free nodes so that every deployment runs the same schedule); refused: jobs Slurm would refuse at submission; a deployment with either is not recommended.", e(jobs))
	if waited {
		io.WriteString(w, " Waited: jobs that found too few free nodes in their partition when production started them and waited for a release.")
	}
	io.WriteString(w, " Each deployment's settings and notes are below the charts.</p>\n")
	if noLeaves {
		io.WriteString(w, "<p>–: the network has no leaf switches (a grid), so no leaf metrics.</p>\n")
	}
	if len(vals) > 0 {
		if err := barChartSVG(w, "mean pairwise hops of a job's nodes (lower is better)", labels, vals, "%.3f"); err != nil {
			return err
		}
	}
	if len(oneLeaf) == len(vals) && len(vals) > 0 {
		if err := barChartSVG(w, "% of multi-node jobs inside one leaf switch (higher is better)", labels, oneLeaf, "%.1f"); err != nil {
			return err
		}
	}
	p.writeSizeTable(w)
	// Each deployment's settings and notes (why jobs were pending, what was
	// emulated how): report.json has them, and the figures above need them.
	io.WriteString(w, "<h2>Deployments' settings and notes</h2>\n<dl>\n")
	for _, d := range r.Deployments {
		if len(d.Settings) == 0 && len(d.Notes) == 0 && d.Reason == "" {
			continue
		}
		fmt.Fprintf(w, "<dt><b>%s</b></dt><dd><ul>\n", e(d.Name))
		if d.Reason != "" {
			fmt.Fprintf(w, "<li>not supported: %s</li>\n", e(d.Reason))
		}
		htmlItems(w, "", "setting: ", d.Settings)
		htmlItems(w, "", "", d.Notes)
		io.WriteString(w, "</ul></dd>\n")
	}
	io.WriteString(w, "</dl>\n")
	o := &r.Ordering
	io.WriteString(w, "<h2>Ordering</h2>\n<table><tr><th>ordering</th><th>F</th></tr>\n")
	fmt.Fprintf(w, "<tr><td>certified ordering (%s)</td><td>%s</td></tr>\n", e(o.Status), fmtF(o.Objective))
	if o.Bound != nil {
		fmt.Fprintf(w, "<tr><td>proven lower bound (%s), gap %.3g%%</td><td>%s</td></tr>\n", e(o.BoundSource), 100**o.Gap, fmtF(*o.Bound))
	}
	fmt.Fprintf(w, "<tr><td>Slurm's name order</td><td>%s</td></tr>\n", fmtF(o.NameOrder))
	if o.BestCurve != nil {
		fmt.Fprintf(w, "<tr><td>best curve (%s)</td><td>%s</td></tr>\n", e(o.BestCurve.Name), fmtF(o.BestCurve.Objective))
	}
	limit := "no time limit"
	if o.TimeLimit > 0 {
		limit = fmt.Sprintf("a %.0f s limit", o.TimeLimit)
		if r.TimeLimit > 0 {
			limit += fmt.Sprintf(" (the ordering's share of the plan's %.0f s)", r.TimeLimit)
		}
	}
	fmt.Fprintf(w, "</table>\n<p>F = sum over host pairs of w(rank difference) &times; hops, weights %s; solved in %.2f s of %s.</p>\n", e(o.Weights), o.Seconds, limit)
	if len(r.Warnings) > 0 || len(r.Notes) > 0 {
		io.WriteString(w, "<h2>Warnings and notes</h2><ul>\n")
		htmlItems(w, ` class="warn"`, "", r.Warnings)
		htmlItems(w, "", "", r.Notes)
		io.WriteString(w, "</ul>\n")
	}
	io.WriteString(w, "<h2>Files</h2><ul>\n")
	htmlItems(w, "", "", r.Files)
	_, err := io.WriteString(w, "</ul>\n</body></html>\n")
	return err
}

// htmlItems writes an <li> (with attr) of prefix and each item, escaped.
func htmlItems(w io.Writer, attr, prefix string, items []string) {
	for _, s := range items {
		fmt.Fprintf(w, "<li%s>%s</li>\n", attr, html.EscapeString(prefix+s))
	}
}

// writeSizeTable writes mean pairwise hops per job-size class (rows) and
// deployment (columns).
func (p *Plan) writeSizeTable(w io.Writer) {
	r := &p.Report
	var ds []*DeploymentReport
	classes := map[string]int{}
	var order []string
	for i := range r.Deployments {
		d := &r.Deployments[i]
		if d.Metrics == nil {
			continue
		}
		ds = append(ds, d)
		for _, sm := range d.BySize {
			if _, ok := classes[sm.Class]; !ok {
				classes[sm.Class] = sm.MinNodes
				order = append(order, sm.Class)
			}
		}
	}
	if len(order) == 0 {
		return
	}
	slices.SortFunc(order, func(a, b string) int { return classes[a] - classes[b] })
	io.WriteString(w, "<h2>By job size</h2>\n<p>Mean pairwise hops (jobs) per size class.</p>\n<table><tr><th>nodes</th>")
	for _, d := range ds {
		fmt.Fprintf(w, "<th>%s</th>", html.EscapeString(d.Name))
	}
	io.WriteString(w, "</tr>\n")
	for _, c := range order {
		fmt.Fprintf(w, "<tr><td>%s</td>", html.EscapeString(c))
		for _, d := range ds {
			cell := ""
			for _, sm := range d.BySize {
				if sm.Class == c {
					cell = fmt.Sprintf("%.3f (%d)", sm.Metrics.MeanPairwiseHops, sm.Metrics.Jobs)
				}
			}
			fmt.Fprintf(w, "<td>%s</td>", cell)
		}
		io.WriteString(w, "</tr>\n")
	}
	io.WriteString(w, "</table>\n")
}

func fmtF(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return fmt.Sprintf("%.0f", f)
	}
	return fmt.Sprintf("%.6g", f)
}

// barChartSVG draws one horizontal bar per label, inline SVG in the style of
// procalloc compare --svg (package plot's bar chart, narrower labels), each value
// written in format, the format of its column in the deployments table.
func barChartSVG(w io.Writer, title string, labels []string, vals []float64, format string) error {
	c := plot.BarChart{Title: title, LabelWidth: 120, TextWidth: 80, Inline: true}
	for i, v := range vals {
		c.Bars = append(c.Bars, plot.Bar{Label: labels[i], Value: v, Text: fmt.Sprintf(format, v)})
	}
	return c.WriteSVG(w)
}
