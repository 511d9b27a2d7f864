package sweep

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/internal/textin"
	"github.com/procalloc/procalloc/netsim"
	"github.com/procalloc/procalloc/sim"
	"github.com/procalloc/procalloc/slurm"
)

// A sweep file's flags are written as sim's command-line flags (so that --list and
// merge print each item as the command that replays it, and the items' keys, which
// hash the flags as written, stay those of earlier runs), but they are decoded here,
// once per item, onto the fields of sim.Spec they name: the library runs a sweep
// with no command-line flag set. The table below is the set of sim's replay flags,
// each with its help text, its kind and its command-line default: "procalloc sim"
// and "procalloc compare" declare their flag sets from it (Flags) and map what was
// given with ApplyFlags, so a flag is named, described and decoded once.

// FlagKind is the type of a flag's value, as the command line declares it.
type FlagKind int

// The kinds of flag values, each named after the Go type its value decodes to
// (KindDuration: a time.Duration such as "90s").
const (
	KindString FlagKind = iota
	KindBool
	KindInt
	KindInt64
	KindUint64
	KindFloat64
	KindDuration
)

// Flag is one of sim's replay flags.
type Flag struct {
	Name string   // as on the command line, without dashes, e.g. "vcs"
	Kind FlagKind // the value's type, which ApplyFlags parses
	// Default is the command line's default, as its flag set prints it.
	Default string
	// Usage is the help text ("procalloc help sim"); a `WORD` in it names the value.
	Usage string
	// Field is the sim.Spec field the flag sets, as sim.FieldError names it
	// ("Scale.Work"); "" for the output flags, which set none.
	Field string
}

// replayFlag sets the field of sim.Spec one sim flag names, from its value.
type replayFlag struct {
	Flag
	set func(s *sim.Spec, o *flagState, v string) error
}

// flagState is what a few flags need beyond the spec's fields: which were given
// (for the engine's checks) and the baseline's two flags, applied together.
type flagState struct {
	given         map[string]bool
	baseline      string
	baselineLimit time.Duration
	files         []flagFile // the file names given (fileFlags), in order
}

func strFlag(set func(s *sim.Spec, v string)) replayFlag {
	return replayFlag{set: func(s *sim.Spec, _ *flagState, v string) error { set(s, v); return nil }}
}

// enumFlag is a flag whose value is one of a closed set, parsed when the flag is
// applied: a sweep file whose flags name none of them is refused by Spec.Check
// before any item runs, not item by item.
func enumFlag(set func(s *sim.Spec, v string) error) replayFlag {
	return replayFlag{set: func(s *sim.Spec, _ *flagState, v string) error { return set(s, v) }}
}

func boolFlag(set func(s *sim.Spec, v bool)) replayFlag {
	return replayFlag{Flag: Flag{Kind: KindBool, Default: "false"}, set: func(s *sim.Spec, _ *flagState, v string) error {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return errors.New("not true or false")
		}
		set(s, b)
		return nil
	}}
}

// intFlag, int64Flag, uint64Flag and floatFlag read numbers as Go's flag package
// does (base prefixes 0x, 0o, 0b for integers), so that a sweep file means what it
// meant when cmd's flag set read it.
func intFlag(set func(s *sim.Spec, v int)) replayFlag {
	return replayFlag{Flag: Flag{Kind: KindInt}, set: func(s *sim.Spec, _ *flagState, v string) error {
		n, err := strconv.ParseInt(v, 0, strconv.IntSize)
		if err != nil {
			return numErr(err)
		}
		set(s, int(n))
		return nil
	}}
}

func int64Flag(set func(s *sim.Spec, v int64)) replayFlag {
	return replayFlag{Flag: Flag{Kind: KindInt64}, set: func(s *sim.Spec, _ *flagState, v string) error {
		n, err := strconv.ParseInt(v, 0, 64)
		if err != nil {
			return numErr(err)
		}
		set(s, n)
		return nil
	}}
}

func uint64Flag(set func(s *sim.Spec, v uint64)) replayFlag {
	return replayFlag{Flag: Flag{Kind: KindUint64}, set: func(s *sim.Spec, _ *flagState, v string) error {
		n, err := strconv.ParseUint(v, 0, 64)
		if err != nil {
			return numErr(err)
		}
		set(s, n)
		return nil
	}}
}

func floatFlag(set func(s *sim.Spec, v float64)) replayFlag {
	return replayFlag{Flag: Flag{Kind: KindFloat64}, set: func(s *sim.Spec, _ *flagState, v string) error {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return numErr(err)
		}
		set(s, f)
		return nil
	}}
}

func numErr(err error) error {
	if errors.Is(err, strconv.ErrRange) {
		return errors.New("value out of range")
	}
	return errors.New("not a number")
}

// flitFlag is a flit engine flag: given, it needs --engine flit and a value of at
// least 1 (0 is the library's "default", spelt by leaving the flag out).
func flitFlag(set func(f *sim.FlitOptions, v int)) replayFlag {
	return intFlag(func(s *sim.Spec, v int) { set(&s.Flit, v) })
}

// flitFlags backs FlitFlags; only this package changes it.
var flitFlags = []string{"vcs", "vc-buffer", "routing-delay", "vc-alloc-delay", "sw-alloc-delay", "st-delay", "link-delay", "hop-classes"}

// FlitFlags returns the flags of the flit engine's configuration (sim.FlitOptions).
// Each call returns a new slice: changing it changes nothing in the package.
func FlitFlags() []string { return slices.Clone(flitFlags) }

// with sets a table entry's sim.Spec field, its help text and, when given, its
// default.
func (f replayFlag) with(field, usage string, def ...any) replayFlag {
	f.Field, f.Usage = field, usage
	if len(def) > 0 {
		switch v := def[0].(type) {
		case float64:
			f.Default = strconv.FormatFloat(v, 'g', -1, 64)
		default:
			f.Default = fmt.Sprint(v)
		}
	} else if f.Kind != KindBool && f.Kind != KindString {
		f.Default = "0"
	}
	return f
}

// hostsUse says what sim's host names are for (the help of --hosts).
const hostsUse = "the names of the machine's nodes in slurm:tree/slurm:block topology files, sacct node lists and host ranking files; they replace a --graph's own"

// fileFlags are the replay flags whose value names a file (--span-curve: when it
// is no built-in curve; --trace, which Parse refuses in a sweep file's flags, for
// the items a program makes).
var fileFlags = map[string]bool{"trace": true, "graph": true, "node-name-map": true, "hosts": true, "span-curve": true, "slurm-conf": true}

// flagFile is a file name given to a flag of fileFlags: flags[at] is prefix
// ("--hosts=" or "") and the name.
type flagFile struct {
	flag, name, prefix string
	at                 int
}

// flagFiles are the file names flags give (those of fileFlags), as applyFlags
// reads them (up to a flag it refuses, which Check names).
func flagFiles(flags []string) []flagFile {
	sp := Params{Engine: sim.EngineFlit}.Spec("")
	st, _ := applyFlags(&sp, flags)
	return st.files
}

// flagFilesIn is flags with their file names (flagFiles) taken from dir (Args):
// the names a replay of the item reads from its sweep file's directory.
func flagFilesIn(flags []string, dir string) []string {
	out := slices.Clone(flags)
	for _, f := range flagFiles(flags) {
		out[f.at] = f.prefix + inDir(dir, f.name)
	}
	return out
}

// replayFlags are sim's replay flags, each mapped onto its sim.Spec field.
var replayFlags = func() map[string]replayFlag {
	d := netsim.DefaultParams()
	t := map[string]replayFlag{
		"trace": strFlag(func(s *sim.Spec, v string) { s.Trace = v }).
			with("Trace", "workload trace `FILE`: SWF 2.2 or the 4-column converted format, gzip, bzip2 or plain ('-' for stdin)"),
		"machine": strFlag(func(s *sim.Spec, v string) { s.Machine, s.MachineSpec = nil, v }).
			with("MachineSpec", "machine `SPEC`, e.g. mesh:16x16, torus:8x8x8, mesh:8x8x5:wrap=yz, fattree:4,4:8"),
		"graph": strFlag(func(s *sim.Spec, v string) { s.GraphFile = v }).
			with("GraphFile", "network `FILE` instead of --machine ('-' for stdin): edge list, ibnetdiscover, subnet.lst, opareport XML, topology.conf or topology.yaml"),
		"graph-format": strFlag(func(s *sim.Spec, v string) { s.GraphFormat = v }).
			with("GraphFormat", "format of --graph: "+strings.Join(slurm.GraphFormats(), ", ")+" (default: detected from the content)"),
		"node-name-map": strFlag(func(s *sim.Spec, v string) { s.NodeNameMap = v }).
			with("NodeNameMap", "node-name-map `FILE` (GUID \"name\" per line) naming the hosts and switches of an ibnetdiscover, subnet.lst or opareport file"),
		"topology": strFlag(func(s *sim.Spec, v string) { s.Topology = v }).
			with("Topology", "which topology of a topology.yaml `NAME` (default: the one with cluster_default: true)"),
		"hosts": strFlag(func(s *sim.Spec, v string) { s.HostsFile = v }).
			with("HostsFile", HostsUsage(hostsUse)),
		"hostlist": strFlag(func(s *sim.Spec, v string) { s.Hostlist = v }).
			with("Hostlist", HostlistUsage),
		"slurm-conf": strFlag(func(s *sim.Spec, v string) { s.SlurmConf = v }).
			with("SlurmConf", "slurm.conf `FILE` whose partitions keep each job on its partition's nodes (an sacct job in the one it ran in, others in the Default=YES one, else on every partition's nodes with a warning; nodes matched by name: --hosts, --hostlist or --graph's names); fcfs, cplant, easy and as-run replay jobs of several partitions"),
		"span-curve": strFlag(func(s *sim.Spec, v string) { s.SpanCurve = v }).
			with("SpanCurve", "measure span, ring span and stretch-span on the ranks of `CURVE` (a curve or ranking file; default: a curve allocator's own ordering, else node indices)"),
		"alloc": strFlag(func(s *sim.Spec, v string) { s.Alloc = v }).
			with("Alloc", "allocator `SPEC`: "+strings.Join(alloc.Names(), ", ")+" (e.g. bf:hilbert, mc1x1:tb=3,9,3,2)", "mc1x1"),
		"sched": enumFlag(func(s *sim.Spec, v string) error {
			if v == "" { // the default, fcfs
				s.Sched = ""
				return nil
			}
			c, err := sim.ParseSched(v)
			if err != nil {
				var names []string
				for _, c := range sim.Scheds() {
					names = append(names, c.String())
				}
				return fmt.Errorf("want %s%s", sim.Choices(sim.Scheds()), textin.DidYouMean(v, names))
			}
			s.Sched = c
			return nil
		}).
			with("Sched", "scheduler: fcfs (strict), easy (EASY backfilling), cplant (queue sorted by size, then requested time) or as-run (each job at its recorded start; sacct traces)", "fcfs"),
		"compat": enumFlag(func(s *sim.Spec, v string) error {
			c, err := sim.ParseCompat(v) // "default" among its spellings
			if err != nil {
				return errors.New(sim.WantCompat(v))
			}
			s.Compat = c
			return nil
		}).with("Compat", "conventions: premas (the published PReMAS tables), sst (SST's scheduler element), or empty for procalloc's defaults"),
		"format": enumFlag(func(s *sim.Spec, v string) error {
			c, err := sim.ParseFormat(v)
			if err != nil {
				return fmt.Errorf("want %s, or empty to detect it", sim.Choices(sim.Formats()))
			}
			s.Format = c
			return nil
		}).
			with("Format", "trace format: swf, converted, sacct (sacct -P output), or empty to detect it"),
		"skip-bad": boolFlag(func(s *sim.Spec, v bool) { s.SkipBad = v }).
			with("SkipBad", "skip and count malformed trace lines instead of failing on the first"),
		"max-jobs": replayFlag{Flag: Flag{Kind: KindInt}, set: setMaxJobs}.
			with("MaxJobs", "refuse a trace of more than `N` jobs (a cap on memory: about 200 bytes per job replayed)", sim.DefaultMaxJobs),
		"tz": strFlag(func(s *sim.Spec, v string) { s.TimeZone = v }).
			with("TimeZone", "time `ZONE` of an sacct trace's times, an IANA name such as America/New_York (default: $TZ, else the system's zone; sacct prints local times)"),
		"no-memo": boolFlag(func(s *sim.Spec, v bool) { s.NoMemo = v }).
			with("NoMemo", "search every allocation decision anew: MM, Gen-Alg, MM+Inc and MC1x1 otherwise remember their answer for a request and free node set met before (same results; for timing the search itself)"),
		"work": floatFlag(func(s *sim.Spec, v float64) { s.Scale.Work = v }).
			with("Scale.Work", "work multiple: run times and estimates are multiplied by it", 1.0),
		"contract": floatFlag(func(s *sim.Spec, v float64) { s.Scale.Contract = v }).
			with("Scale.Contract", "arrival contraction: arrival times are multiplied by it (< 1 raises the load)", 1.0),
		"replicate": intFlag(func(s *sim.Spec, v int) { s.Scale.Replicate = v }).
			with("Scale.Replicate", "replication factor: each job appears this many times, replicas with perturbed arrivals", 1),
		"perturb": int64Flag(func(s *sim.Spec, v int64) { s.Scale.Perturb = v }).
			with("Scale.Perturb", "largest arrival offset of a replica, in seconds (0: mean inter-arrival time)"),
		"seed": uint64Flag(func(s *sim.Spec, v uint64) { s.Scale.Seed = v }).
			with("Scale.Seed", "seed of the replica perturbation", 1),
		"from": strFlag(func(s *sim.Spec, v string) { s.From = v }).
			with("From", "keep jobs arriving at or after `TIME`: seconds from the trace's start, or a date YYYY-MM-DD[THH:MM:SS] in the trace's time zone (SWF header)"),
		"to": strFlag(func(s *sim.Spec, v string) { s.To = v }).
			with("To", "keep jobs arriving before `TIME` (as --from; after --from, else a usage error)"),
		"drop-larger": boolFlag(func(s *sim.Spec, v bool) { s.DropLarger = v }).
			with("DropLarger", "drop jobs larger than the machine, and with --slurm-conf those larger than their partition (counted and reported), instead of failing"),
		"drop-unknown-hosts": boolFlag(func(s *sim.Spec, v bool) { s.DropUnknownHosts = v }).
			with("DropUnknownHosts", "drop the jobs whose recorded NodeList names a host the machine lacks (retired or renamed nodes; with an as-run allocator or --slurm-conf), counted and reported, instead of refusing the history"),
		"comm": strFlag(func(s *sim.Spec, v string) { s.Comm = v }).
			with("Comm", "let communication decide run times: each job sends --msgs-per-second messages per second of trace run time in `PATTERN` ("+strings.Join(netsim.Patterns(), ", ")+") over the routed network and ends when they have arrived"),
		"pattern": strFlag(func(s *sim.Spec, v string) { s.Pattern = v }).
			with("Pattern", "`PATTERN` of the static route metrics (message distance, hop-bytes, routes on a link) reported without --comm", "all-to-all"),
		"metrics": replayFlag{set: func(s *sim.Spec, _ *flagState, v string) error {
			m, err := sim.ParseMetrics(v)
			if err != nil {
				return err
			}
			s.Metrics = m
			return nil
		}}.with("Metrics", "metric `GROUPS` to compute, comma-separated: sched (scheduling and allocation metrics, always computed), dist (each job's pairwise hop distances: mean total and average pairwise L1), route (static route metrics: message distance, hop-bytes, routes on a link), ties (the MC1x1 family's tie statistics, Johnson 2010 Fig. 4: counting ties makes their decisions tens of times slower on large machines and never changes the nodes chosen), compact (Liu et al.'s D, free power-of-two squares, and Lemma 1's spatial compactness of the machine's free set after each allocation, on 2^m x 2^n meshes: kept up to date at every start and end, a few microseconds a job on 16,384 nodes), or all; --metrics sched leaves dist, route, ties and compact out: they are then absent from the output (no JSON keys, the JSON's metrics_not_computed names them; '-' or \"not computed\" in tables, empty per-job cells), not zeros", "all"),
		"msg-flits": int64Flag(func(s *sim.Spec, v int64) { s.Network.MessageFlits = v }).
			with("Network.MessageFlits", "message length in flits (one flit crosses a link per cycle)", d.MessageFlits),
		"router-delay": int64Flag(func(s *sim.Spec, v int64) { s.Network.RouterDelay = v }).
			with("Network.RouterDelay", "cycles a message header takes per hop", d.RouterDelay),
		"flit-bytes": int64Flag(func(s *sim.Spec, v int64) { s.Network.FlitBytes = v }).
			with("Network.FlitBytes", "bytes per flit (for hop-bytes)", d.FlitBytes),
		"cycle-seconds": floatFlag(func(s *sim.Spec, v float64) { s.CycleSeconds = v }).
			with("CycleSeconds", "length of one network cycle in trace seconds (with --comm; 1e-9 to 1e6)", sim.DefaultCycleSeconds),
		"msgs-per-second": floatFlag(func(s *sim.Spec, v float64) { s.MessagesPerSecond = v }).
			with("MessagesPerSecond", "messages a job sends per second of its trace run time (with --comm; at most 1e6)", 1.0),
		"comm-seed": uint64Flag(func(s *sim.Spec, v uint64) { s.CommSeed = v }).
			with("CommSeed", "seed of the random pattern's choices", 1),
		"engine": strFlag(func(s *sim.Spec, v string) {
			if s.Engine = sim.Engine(v); v != "" { // a wrong name: Validate says so
				if e, err := sim.ParseEngine(v); err == nil {
					s.Engine = e
				}
			}
		}).with("Engine", "network model of --comm: message (message-level wormhole, the default: about 10 times faster) or flit (BookSim2's virtual-channel router, docs/comm.md)", "message"),
		"vcs": flitFlag(func(f *sim.FlitOptions, v int) { f.VCs = v }).
			with("Flit.VCs", "flit engine: virtual channels per port `V` (default 1 on meshes and graphs, 2 on tori; a torus needs at least 2; an odd number overlaps its dateline classes as in BookSim2)"),
		"vc-buffer": flitFlag(func(f *sim.FlitOptions, v int) { f.VCBuffer = v }).
			with("Flit.VCBuffer", "flit engine: buffer per virtual channel in flits `B` (default 8; at least the credit round trip, 5 with the default delays on a mesh, 7 on a torus)"),
		"routing-delay": flitFlag(func(f *sim.FlitOptions, v int) { f.RoutingDelay = v }).
			with("Flit.RoutingDelay", "flit engine: routing stage, cycles (default 1)"),
		"vc-alloc-delay": flitFlag(func(f *sim.FlitOptions, v int) { f.VCAllocDelay = v }).
			with("Flit.VCAllocDelay", "flit engine: virtual-channel allocation stage, cycles (default 1)"),
		"sw-alloc-delay": flitFlag(func(f *sim.FlitOptions, v int) { f.SwitchAllocDelay = v }).
			with("Flit.SwitchAllocDelay", "flit engine: switch allocation stage, cycles (default 1)"),
		"st-delay": flitFlag(func(f *sim.FlitOptions, v int) { f.SwitchDelay = v }).
			with("Flit.SwitchDelay", "flit engine: switch traversal stage, cycles (default 1)"),
		"link-delay": flitFlag(func(f *sim.FlitOptions, v int) { f.LinkDelay = v }).
			with("Flit.LinkDelay", "flit engine: router-to-router link latency in cycles (default BookSim2's: 1 on meshes and graphs, 2 on tori)"),
		"hop-classes": boolFlag(func(s *sim.Spec, v bool) { s.Flit.HopClasses = v }).
			with("Flit.HopClasses", "flit engine, graphs: a packet's h-th link uses VC min(h, V-1) only (deadlock-free with --vcs at least the longest route)"),
		"task-order": strFlag(func(s *sim.Spec, v string) {
			if s.TaskOrder = sim.TaskOrder(v); v == "returned" {
				s.TaskOrder = sim.TaskOrderReturned
			}
		}).with("TaskOrder", "which node gets which task of a job's pattern: returned (as the allocator returns them, the default), sorted (node index), allocator (the order it collected them: curve order, MC/MC1x1 shells, L1 from the center for MM and Gen-Alg), curve:NAME, or random (seeded by --comm-seed)", "returned"),
		"baseline": replayFlag{set: func(_ *sim.Spec, o *flagState, v string) error { o.baseline = v; return nil }}.
			with("Baseline", "`exact`: bound every allocation decision's optimum on the nodes free at that moment (proven lower bound, exact where it can) and report each job's ratio to the optimum with a certified interval (mesh, torus, fat tree, dragonfly)"),
		"baseline-time-limit": replayFlag{Flag: Flag{Kind: KindDuration}, set: func(_ *sim.Spec, o *flagState, v string) error {
			d, err := time.ParseDuration(v)
			if err != nil {
				return errors.New("not a duration (e.g. 500ms, 2s)")
			}
			if d < 0 {
				return errors.New("must not be negative (0: no limit)")
			}
			o.baselineLimit = d
			return nil
		}}.with("Baseline.TimeLimit", "time limit of each baseline decision; proofs then depend on the machine's speed, the fraction proven is reported (0: no limit, every decision searched to its end, the same on every machine)", time.Second),
		// sim's output flags: an item's result is sim's JSON, breakdown by size included.
		"json":    boolFlag(func(*sim.Spec, bool) {}).with("", "print JSON"),
		"by-size": boolFlag(func(*sim.Spec, bool) {}).with("", "also print the breakdown by job size"),
	}
	for name, f := range t {
		f.Name = name
		t[name] = f
	}
	return t
}()

// HostlistUsage is the help of --hostlist, wherever a command declares it.
const HostlistUsage = "host names as one Slurm hostlist `EXPR` in node-index order, e.g. node[0001-1024] (instead of --hosts FILE)"

// HostsUsage is the help of --hosts for names used as use says.
func HostsUsage(use string) string {
	return "host names `FILE`, one per line in node-index order (" + use + "; a line may be a hostlist such as node[001-128])"
}

// Flags returns sim's replay flags, sorted by name.
func Flags() []Flag {
	out := make([]Flag, 0, len(replayFlags))
	for _, f := range replayFlags {
		out = append(out, f.Flag)
	}
	slices.SortFunc(out, func(a, b Flag) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Lookup returns the replay flag name.
func Lookup(name string) (Flag, bool) {
	f, ok := replayFlags[name]
	return f.Flag, ok
}

// FieldFlag names the flag that sets a sim.Spec field, as an error names it
// ("--perturb" for Scale.Perturb; sim.FieldError.Named): the flags of the table
// (Flags), and for the fields several flags set, all of them ("--hosts/--hostlist"
// for Hosts, "--engine flit" for Flit). "" for a field no replay flag sets.
func FieldFlag(field string) string { return fieldFlags[field] }

var fieldFlags = func() map[string]string {
	m := map[string]string{"Machine": "--machine", "Flit": "--engine flit", "Hosts": "--hosts/--hostlist", "SpanOrder": "--span-curve"}
	for _, f := range replayFlags {
		if f.Field != "" {
			m[f.Field] = "--" + f.Name
		}
	}
	return m
}()

// Usage is the help text of the replay flag name ("" for none).
func Usage(name string) string { return replayFlags[name].Usage }

func setMaxJobs(s *sim.Spec, _ *flagState, v string) error {
	n, err := strconv.ParseInt(v, 0, strconv.IntSize)
	if err != nil {
		return numErr(err)
	}
	if n < 1 {
		return &FlagError{Value: strconv.FormatInt(n, 10), Reason: "must be at least 1"}
	}
	if s.MaxJobs = int(n); n == sim.DefaultMaxJobs {
		s.MaxJobs = 0 // the spec's spelling of the default
	}
	return nil
}

// FlagError is a flag of a sweep item that cannot be applied: unknown, without its
// value, malformed, or given where it does not apply.
type FlagError struct {
	Flag   string // as written, e.g. "--vcs"
	Value  string // the value as shown in the message (quoted when a string); "" for none
	Reason string // what is wrong
}

// Error returns "flags: FLAG: VALUE: REASON", leaving out the parts that are empty.
func (e *FlagError) Error() string {
	switch {
	case e.Flag == "":
		return "flags: " + e.Reason
	case e.Value != "":
		return "flags: " + e.Flag + ": " + e.Value + ": " + e.Reason
	}
	return "flags: " + e.Flag + ": " + e.Reason
}

// CommandLine is the error as a command line words it: "--vcs 0: must be at least
// 1", "--vcs configures the flit engine: add --engine flit".
func (e *FlagError) CommandLine() string {
	switch {
	case e.Flag == "":
		return e.Reason
	case e.Value != "":
		return e.Flag + " " + e.Value + ": " + e.Reason
	}
	return e.Flag + " " + e.Reason
}

// ApplyFlags sets the fields of s that flags name (sim's replay flags, as a sweep
// file writes them: --name value, --name=value, a bare --name for a switch; one or
// two leading dashes; -- ends them), in order, so that a later flag changes what an
// earlier one, or the item's own parameters, set (a sweep file's flags may not set
// what its keys set: Parse refuses them). An unknown flag, a missing or
// malformed value, a flit engine flag without --engine flit, and a stray argument
// are a *FlagError naming the flag. The files flags name (--graph, --hosts,
// --span-curve, ...) are read when the spec is prepared (sim.Spec.Resolve).
func ApplyFlags(s *sim.Spec, flags []string) error {
	_, err := applyFlags(s, flags)
	return err
}

// applyFlags is ApplyFlags, also returning what it met: the names of the flags
// it set and the file names they give (those before the first error, if any).
func applyFlags(s *sim.Spec, flags []string) (st flagState, err error) {
	st = flagState{given: map[string]bool{}, baselineLimit: time.Second}
	for i := 0; i < len(flags); i++ {
		a := flags[i]
		if a == "--" {
			if i+1 < len(flags) {
				return st, &FlagError{Reason: fmt.Sprintf("unexpected arguments %q", flags[i+1:])}
			}
			break
		}
		if len(a) < 2 || a[0] != '-' {
			return st, &FlagError{Reason: fmt.Sprintf("unexpected arguments %q", flags[i:])}
		}
		name := strings.TrimPrefix(a[1:], "-")
		if name == "" || name[0] == '-' || name[0] == '=' {
			return st, &FlagError{Flag: a, Reason: "bad flag syntax"}
		}
		value, hasValue := "", false
		if k, v, ok := strings.Cut(name, "="); ok {
			name, value, hasValue = k, v, true
		}
		written := "--" + name
		f, ok := replayFlags[name]
		if !ok {
			if flag, value, ok := strings.Cut(name, " "); ok && replayFlags[flag].Usage != "" {
				// flags: [--vcs 2], one entry, where the list wants two.
				return st, &FlagError{Flag: written, Reason: fmt.Sprintf("a flag and its value are two entries of the list: [--%s, %s]", flag, strings.TrimSpace(value))}
			}
			hint := textin.DidYouMean(name, slices.Sorted(maps.Keys(replayFlags)), func(n string) string { return "--" + n })
			return st, &FlagError{Flag: written, Reason: "not one of sim's replay flags" + hint + " (a sweep item takes sim's replay flags; --convert and -o do not apply, and --per-job is the sweep's own, a directory)"}
		}
		switch {
		case f.Kind == KindBool && !hasValue:
			value = "true"
		case !hasValue:
			if i+1 >= len(flags) {
				return st, &FlagError{Flag: written, Reason: "needs a value"}
			}
			i++
			value = flags[i]
		}
		if fileFlags[name] && value != "" && (name != "span-curve" || curves.Summary(value) == "") {
			prefix := ""
			if hasValue {
				prefix = a[:len(a)-len(value)]
			}
			st.files = append(st.files, flagFile{flag: written, name: value, prefix: prefix, at: i})
		}
		if err := f.set(s, &st, value); err != nil {
			if fe, ok := err.(*FlagError); ok { // a number out of the flag's range, as it reads
				fe.Flag = written
				return st, fe
			}
			return st, &FlagError{Flag: written, Value: strconv.Quote(value), Reason: err.Error()}
		}
		st.given[name] = true
	}
	if err := CheckEngineFlags(s.Engine, s.Flit, func(name string) bool { return st.given[name] }); err != nil {
		return st, err
	}
	switch st.baseline {
	case "":
		if st.given["baseline-time-limit"] {
			return st, &FlagError{Flag: "--baseline-time-limit", Reason: "needs --baseline exact"}
		}
	case "exact":
		s.Baseline = &sim.Baseline{TimeLimit: st.baselineLimit}
	default:
		return st, &FlagError{Flag: "--baseline", Value: strconv.Quote(st.baseline), Reason: "want exact"}
	}
	return st, nil
}

// CheckEngineFlags is the rule for the network engine's flags given together
// (given says which were): a flit engine flag (FlitFlags) needs the flit engine
// and, but for --hop-classes, a value of at least 1 (0 is the library's "default",
// spelt by leaving the flag out); --router-delay is the message engine's. A
// breach is a *FlagError naming the flag.
func CheckEngineFlags(engine sim.Engine, flit sim.FlitOptions, given func(name string) bool) error {
	flitValues := []int{flit.VCs, flit.VCBuffer, flit.RoutingDelay, flit.VCAllocDelay, flit.SwitchAllocDelay, flit.SwitchDelay, flit.LinkDelay}
	for i, name := range flitFlags {
		if !given(name) {
			continue
		}
		if engine != sim.EngineFlit {
			return &FlagError{Flag: "--" + name, Reason: "configures the flit engine: add --engine flit"}
		}
		if i < len(flitValues) && flitValues[i] < 1 { // hop-classes, last, is a switch
			return &FlagError{Flag: "--" + name, Value: strconv.Itoa(flitValues[i]), Reason: "must be at least 1"}
		}
	}
	if engine == sim.EngineFlit && given("router-delay") {
		return &FlagError{Flag: "--router-delay", Reason: "is the message engine's; the flit engine's stages are --routing-delay, --vc-alloc-delay, --sw-alloc-delay, --st-delay and --link-delay"}
	}
	return nil
}
