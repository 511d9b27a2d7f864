package sim

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/internal/textin"
	"github.com/procalloc/procalloc/netsim"
	"github.com/procalloc/procalloc/topo"
	"github.com/procalloc/procalloc/topo/hostlist"
)

// Spec is one replay, every choice typed: the trace and how it is cut and scaled,
// the machine, the allocator, the scheduler and conventions, the network model and
// what is measured. It is what "procalloc sim" runs (its flags map onto it one to
// one), what compare runs once per allocator and load factor, and what a sweep item
// is. Start from DefaultSpec: its zero fields are not all defaults.
//
//	s := sim.DefaultSpec()
//	s.Trace, s.MachineSpec, s.Alloc = "LLNL-T3D-1996-2.converted.txt.gz", "mesh:16x16", "mc1x1"
//	s.Compat = alloc.CompatPReMAS
//	rep, err := s.Run(ctx)
type Spec struct {
	// Trace is the trace file's path (gzip read transparently); with TraceReader or
	// TraceData set it only names the trace in messages and in Report.Trace.
	Trace string
	// TraceReader, when set, is read instead of opening Trace (once: a Spec with a
	// reader runs once).
	TraceReader io.Reader
	// TraceData, when set, is replayed instead of reading a trace: several replays of
	// one trace (compare, a grid) read it once. It is not modified.
	TraceData *Trace
	// Networks, when set, shares the machine of MachineSpec and its routing (the
	// message engine's router, the flit engine's tables) among the replays given
	// the same Networks (a sweep's items): with Comm, each machine spec is built,
	// and its router's distance classes found, once while replays announced to it
	// (Networks.Expect) still need it.
	Networks *Networks
	// Stdin, when set, is what a file named "-" reads (GraphFile, NodeNameMap,
	// HostsFile), once; nil: "-" is a file's name.
	Stdin io.Reader
	// Dir is the directory relative file names are read from: Trace, GraphFile,
	// NodeNameMap, HostsFile, a ranking file SpanCurve or the allocator names, and
	// the allocator's topology files. Empty: the working directory. A sweep item's
	// is its sweep file's directory, so that every path a sweep file writes is read
	// from one place.
	Dir string
	// Format is the trace's format (FormatDetect: from its first record).
	Format Format
	// SkipBad skips and counts malformed trace lines instead of failing.
	SkipBad bool
	// MaxJobs bounds the jobs the trace may have (0: DefaultMaxJobs).
	MaxJobs int
	// TimeZone is the IANA zone an sacct trace's times are in ("": the zone of
	// TZ, time.Local); SWF traces name theirs in their header.
	TimeZone string
	// From and To keep the jobs arriving in [From, To) (Bunde et al. 2004 §3.1):
	// whole seconds from the trace's start, or dates YYYY-MM-DD[THH:MM:SS] in the
	// trace's time zone (SWF header); "" leaves that end open.
	From, To string
	// DropLarger drops jobs larger than the machine, and with SlurmConf those
	// larger than their partition (counted in the report), instead of failing on
	// them.
	DropLarger bool
	// DropUnknownHosts drops the jobs whose recorded NodeList names a host the
	// machine lacks (a history naming retired or renamed nodes), counted in the
	// report (DroppedUnknownHosts), instead of refusing the history; only when
	// NodeLists are read by name (an as-run allocator, or SlurmConf). It applies
	// to the jobs of the window (From, To), before DropLarger and partitions.
	DropUnknownHosts bool
	// Scale is the load scaling (work multiple, arrival contraction, replication).
	Scale Scale
	// LoadFactor, when not 0, contracts the scaled arrivals once more (compare
	// --loads: Bunde et al. 2004's load factors) and is reported as the summary's
	// load factor; when 0, Scale.Contract is reported.
	LoadFactor float64

	// Machine is the machine; when nil, MachineSpec (topo.ParseMachine) or
	// GraphFile names it.
	Machine     topo.Machine
	MachineSpec string // a machine spec (topo.ParseMachine), e.g. "mesh:16x16", when Machine is nil
	// GraphFile is a network file read as the machine (slurm.ReadGraphFormat: an
	// edge list, ibnetdiscover output, an OpenSM/ibdiagnet subnet.lst, opareport XML,
	// a topology.conf or topology.yaml), instead of MachineSpec. GraphFormat is its
	// format (slurm.GraphFormats; "": detected from the content), NodeNameMap a
	// node-name-map file naming its GUIDs (the three fabric dumps),
	// Topology which topology of a topology.yaml ("": its cluster_default).
	GraphFile, GraphFormat, NodeNameMap, Topology string

	// Hosts are the machine's host names in node-index order (alloc.Options.Names):
	// the names a slurm:tree/slurm:block topology.conf and an sacct trace's node
	// lists use, e.g. a mesh's nodes named node[0001-1024]. nil: a graph's own
	// names, node indices on a grid.
	Hosts []string
	// HostsFile (one name, or hostlist, per line: curves.ReadHostNames) or Hostlist
	// (one Slurm hostlist expression), when set, are read into Hosts by Prepare.
	HostsFile, Hostlist string

	// SlurmConf, when set, is a slurm.conf (its Include lines followed, a
	// relative name in its directory) whose partitions keep every job on its
	// partition's nodes (Config.Partitions): an sacct job in the partition it ran
	// in, a job naming none in the Default=YES partition (without one, on the
	// nodes of every partition, with a warning). Its nodes are matched
	// by name against Hosts (or a graph's names); a job of a partition it lacks is
	// an error naming the trace's line.
	SlurmConf string

	// Alloc is the allocator's spec in alloc's registry (alloc.Parse), e.g.
	// "bf:hilbert" or "mc1x1:tb=3,9,3,2".
	Alloc string
	// A CURVE argument of Alloc that is not a built-in curve names a ranking file,
	// and slurm:tree:FILE, slurm:block:FILE and slurm:ring:FILE name a
	// topology.conf or topology.yaml: the replay reads them (Files), host names matched against Hosts.
	// NoMemo makes the allocators search every decision anew (alloc.Options.NoMemo).
	NoMemo bool
	Sched  Sched  // the scheduler (SchedFCFS, the zero value, SchedEASY, SchedCplant, SchedAsRun)
	Compat Compat // whose conventions the replay and the allocator follow (Config.Compat, alloc.Options.Compat)

	// Comm, when not "", is the communication pattern (netsim.Patterns) whose
	// messages decide run times (Bunde et al. 2004 §3.2).
	Comm string
	// Pattern is the pattern of the static route metrics reported without Comm.
	Pattern string
	// Metrics are the metric groups computed (MetricSet; 0 means MetricsAll): the
	// scheduling metrics always, the pairwise distances, the route metrics and the
	// tie statistics unless left out (MetricsSched alone leaves out all three), in
	// which case the report has none (no zeros).
	Metrics MetricSet
	// Network is the wormhole model's message length, router delay and flit size.
	Network netsim.Params
	// MessagesPerSecond and CycleSeconds are Comm's message rate per second of trace
	// run time and the length of a network cycle in trace seconds; CommSeed seeds
	// the random pattern.
	MessagesPerSecond float64
	CycleSeconds      float64 // trace seconds per network cycle (Comm.CycleSeconds)
	CommSeed          uint64  // seeds the random pattern and TaskOrderRandom
	// Engine is Comm's network model: EngineMessage (the zero value and the
	// default) or EngineFlit, configured by Flit.
	Engine Engine
	Flit   FlitOptions // the flit engine's options, with Engine = EngineFlit
	// TaskOrder maps each job's tasks onto its nodes (TaskOrder; the zero value:
	// the order the allocator returns). TaskOrderRandom is seeded by CommSeed;
	// a curve:NAME is resolved as Alloc's curves are (Ranking).
	TaskOrder TaskOrder

	// SpanOrder and SpanName: the ordering spans are measured on (Config.SpanOrder).
	SpanOrder []int  // the node of each rank
	SpanName  string // the ordering's name in Summary.SpanOrder
	// SpanCurve, when set, names that ordering instead: a curve or a ranking file,
	// resolved by Prepare into SpanOrder and SpanName.
	SpanCurve string
	// Baseline, when set, solves every allocation decision exactly for comparison
	// (mean_ratio_to_optimal); it needs a grid without wraparound, or CompatPReMAS.
	Baseline *Baseline
	// PerJob keeps each job's record (Report.PerJob, with its nodes); else only the
	// summary is kept, and memory stays at the running jobs' nodes.
	PerJob bool
	// JobDone, when set, receives each job's record as the replay passes it on, in
	// trace order (Config.JobDone): per-job output written while the replay runs.
	JobDone func(r *JobResult) error
	// Progress, when set, is called with the jobs finished so far whenever that
	// number has changed (Config.Progress): keep it cheap.
	Progress func(done, total int)
}

// DefaultSpec returns the defaults of a replay (those of "procalloc sim"): FCFS,
// procalloc's conventions, the trace as it is, every metric (MetricsAll), all-to-all route metrics, the
// default network, one message per second of run time, DefaultCycleSeconds.
func DefaultSpec() Spec {
	return Spec{
		Sched:             SchedFCFS,
		Scale:             Scale{Work: 1, Contract: 1, Replicate: 1, Seed: 1},
		Pattern:           "all-to-all",
		Metrics:           MetricsAll,
		Network:           netsim.DefaultParams(),
		MessagesPerSecond: 1,
		CycleSeconds:      DefaultCycleSeconds,
		CommSeed:          1,
	}
}

// MaxNodes and MaxJobBytes bound what a replay accepts, so that a typo in a machine
// spec or a replication factor is an error rather than an out-of-memory crash: the
// allocators keep several words per node, and a replay keeps for each job two Job
// records (the trace's and the scaled copy) and a JobResult.
const (
	MaxNodes    = 1 << 22
	MaxJobBytes = 8 << 30
)

// FieldError is a wrong value of one field of a Spec.
type FieldError struct {
	Field string // the Spec field, e.g. "Scale.Contract"
	Value string // the value as given (quoted when a string); "" when missing
	// Reason says what is wrong; another field it names is written {Field}, so that
	// a caller that calls fields otherwise (a command, by its flags) can render it
	// (ReasonWith).
	Reason string
	// Err is the error Reason was taken from, when there is one (an allocator spec
	// alloc.Parse refused, Replay.Config); nil otherwise.
	Err error
}

// Error returns the field, its value when given, and the reason.
func (e *FieldError) Error() string {
	if e.Value == "" {
		return e.Field + ": " + e.ReasonWith(nil)
	}
	return e.Field + " " + e.Value + ": " + e.ReasonWith(nil)
}

// ReasonWith is Reason with every {Field} it names (a Spec field name: capitalised
// words joined by dots) written as name(Field), or as the field's own name when name
// is nil or returns "".
func (e *FieldError) ReasonWith(name func(field string) string) string {
	return nameFields(e.Reason, name)
}

// nameFields is text with every {Field} it names written as name(Field), or as the
// field's own name when name is nil or returns "": the library's errors name its
// fields, a command's its flags (FieldError.ReasonWith, DeadlockError.Error).
func nameFields(text string, name func(field string) string) string {
	return fieldRef.ReplaceAllStringFunc(text, func(ref string) string {
		field := ref[1 : len(ref)-1]
		if name != nil && name(field) != "" {
			return name(field)
		}
		return field
	})
}

// Named is the error as a command says it, with the field and every field its
// Reason names called by name (a flag, "--perturb"; ReasonWith): "NAME VALUE:
// REASON", or "NAME: REASON" when no value was given. An Alloc error with a value is
// a sentence about that allocator ("--alloc as-run places each job on ..."); one
// without a value, or a field name gives no name for, is its Reason alone (an
// allocator spec's error names the spec itself).
func (e *FieldError) Named(name func(field string) string) string {
	n, reason := "", e.ReasonWith(name)
	if name != nil {
		n = name(e.Field)
	}
	switch {
	case e.Field == "Alloc" && e.Value != "" && n != "":
		return n + " " + e.Value + " " + reason
	case n == "" || e.Field == "Alloc":
		return reason
	case e.Value == "":
		return n + ": " + reason
	default:
		return n + " " + e.Value + ": " + reason
	}
}

// Unwrap returns Err, or nil: errors.Is and errors.As reach alloc.Parse's error
// (a *curves.UnknownCurveError, say) through the FieldError.
func (e *FieldError) Unwrap() error { return e.Err }

// fieldRef is a reference to a Spec field in a FieldError's Reason or a
// DeadlockError's WayOut.
var fieldRef = regexp.MustCompile(`\{[A-Z][A-Za-z]*(\.[A-Z][A-Za-z]*)*\}`)

func fieldErr(field, value, format string, a ...any) *FieldError {
	return &FieldError{Field: field, Value: value, Reason: fmt.Sprintf(format, a...)}
}

// Validate returns every error of the spec that can be seen without reading the
// trace or building the machine and the allocator, each a *FieldError naming its
// field, joined (errors.Join) in field order; nil when there are none.
func (s *Spec) Validate() error {
	var errs []error
	add := func(e *FieldError) { errs = append(errs, e) }
	if s.Trace == "" && s.TraceReader == nil && s.TraceData == nil {
		add(fieldErr("Trace", "", "required: a trace file"))
	}
	if s.Format != FormatDetect && !slices.Contains(formats, s.Format) {
		add(fieldErr("Format", strconv.Quote(textin.Clip(string(s.Format))), "%s", wantChoice(string(s.Format), formats)))
	}
	errs = append(errs, windowErrors(s.From, s.To)...)
	for _, v := range []struct {
		field string
		val   float64
	}{{"Scale.Work", s.Scale.Work}, {"Scale.Contract", s.Scale.Contract}} {
		if !(v.val > 0) || v.val > 1e6 {
			add(fieldErr(v.field, fmt.Sprint(v.val), "must be a number greater than 0 and at most 1e6"))
		}
	}
	if s.MaxJobs < 0 {
		add(fieldErr("MaxJobs", strconv.Itoa(s.MaxJobs), "must not be negative (0: the default, %d)", DefaultMaxJobs))
	}
	if _, err := TimeZoneLocation(s.TimeZone); err != nil {
		errs = append(errs, err)
	}
	if s.Scale.Replicate < 1 {
		add(fieldErr("Scale.Replicate", strconv.Itoa(s.Scale.Replicate), "must be at least 1"))
	}
	if s.Scale.Perturb < 0 {
		add(fieldErr("Scale.Perturb", strconv.FormatInt(s.Scale.Perturb, 10), "must not be negative"))
	} else if s.Scale.Perturb >= 1<<62 {
		add(fieldErr("Scale.Perturb", strconv.FormatInt(s.Scale.Perturb, 10), "must be less than 2^62 seconds"))
	}
	if s.LoadFactor != 0 && (!(s.LoadFactor > 0) || s.LoadFactor > 1e6) {
		add(fieldErr("LoadFactor", fmt.Sprint(s.LoadFactor), "must be a load factor greater than 0 and at most 1e6 (or 0: none)"))
	}
	if s.Machine == nil && s.MachineSpec == "" && s.GraphFile == "" {
		add(fieldErr("Machine", "", "required: a machine, or a MachineSpec such as mesh:16x16, or a GraphFile"))
	}
	s.validateFiles(add)
	if s.Machine != nil && s.MachineSpec != "" && s.MachineSpec != s.Machine.Spec() {
		add(fieldErr("MachineSpec", strconv.Quote(textin.Clip(s.MachineSpec)), "names another machine than Machine (%s): give one of them", s.Machine.Spec()))
	}
	if s.Alloc == "" {
		add(fieldErr("Alloc", "", "required: an allocator spec such as mc1x1 or bf:hilbert"))
	} else if err := alloc.CheckFamily(s.Alloc); err != nil {
		add(fieldErr("Alloc", "", "%v", err))
	}
	if _, err := ParseSched(string(s.Sched)); err != nil && s.Sched != "" {
		add(fieldErr("Sched", strconv.Quote(textin.Clip(string(s.Sched))), "%s", wantChoice(string(s.Sched), scheds)))
	}
	if _, err := ParseCompat(string(s.Compat)); err != nil {
		add(fieldErr("Compat", strconv.Quote(textin.Clip(string(s.Compat))), "%s", WantCompat(string(s.Compat))))
	}
	if s.Sched == SchedAsRun && (s.Scale.Work != 1 || s.Scale.Contract != 1 || s.Scale.Replicate != 1 || s.From != "" || s.To != "" || (s.LoadFactor != 0 && s.LoadFactor != 1)) {
		add(fieldErr("Sched", string(s.Sched), "replays production's own schedule: work multiple, contraction, replication, load factor and window do not apply"))
	}
	if err := s.Network.Validate(); err != nil {
		// Name the field (and so the flag: --msg-flits, --router-delay,
		// --flit-bytes) whose value is out of range, each checked alone.
		named := false
		for _, f := range []struct {
			field string
			set   func(p *netsim.Params)
		}{
			{"Network.MessageFlits", func(p *netsim.Params) { p.MessageFlits = s.Network.MessageFlits }},
			{"Network.RouterDelay", func(p *netsim.Params) { p.RouterDelay = s.Network.RouterDelay }},
			{"Network.FlitBytes", func(p *netsim.Params) { p.FlitBytes = s.Network.FlitBytes }},
		} {
			p := netsim.DefaultParams()
			f.set(&p)
			if err := p.Validate(); err != nil {
				add(fieldErr(f.field, "", "%v", err))
				named = true
			}
		}
		if !named {
			add(fieldErr("Network", "", "%v", err))
		}
	}
	if _, err := netsim.ParsePattern(s.Pattern); err != nil {
		add(fieldErr("Pattern", "", "%v", err))
	}
	if s.Metrics != 0 {
		if err := s.Metrics.check(); err != nil {
			add(fieldErr("Metrics", strconv.Quote(textin.Clip(s.Metrics.String())), "%v", err))
		}
	}
	if s.Comm != "" {
		if !s.Metrics.Has(MetricsRoute) {
			add(fieldErr("Metrics", strconv.Quote(textin.Clip(s.Metrics.String())), "a communication model (Comm %q) measures the route metrics: include route", textin.Clip(s.Comm)))
		}
		if _, err := netsim.ParsePattern(s.Comm); err != nil {
			add(fieldErr("Comm", "", "%v", err))
		}
		if !(s.MessagesPerSecond > 0) || s.MessagesPerSecond > MaxMessagesPerSecond {
			add(fieldErr("MessagesPerSecond", fmt.Sprint(s.MessagesPerSecond), "must be a positive number of at most %g", MaxMessagesPerSecond))
		}
		if !(s.CycleSeconds >= MinCycleSeconds && s.CycleSeconds <= MaxCycleSeconds) {
			add(fieldErr("CycleSeconds", fmt.Sprint(s.CycleSeconds), "must be between %g and %g seconds", MinCycleSeconds, MaxCycleSeconds))
		}
		if s.Sched == SchedAsRun {
			add(fieldErr("Comm", strconv.Quote(textin.Clip(s.Comm)), "the as-run schedule keeps production's run times; it does not take a communication model"))
		}
	}
	s.validateEngine(add)
	if _, err := ParseTaskOrder(string(s.TaskOrder)); err != nil {
		add(fieldErr("TaskOrder", "", "%v", err))
	}
	return errors.Join(errs...)
}

// windowErrors are the errors of a window's ends (Spec.From, Spec.To) seen
// without the trace, each a *FieldError.
func windowErrors(from, to string) []error {
	var errs []error
	for _, w := range []struct{ field, v string }{{"From", from}, {"To", to}} {
		if w.v != "" {
			if err := checkWindowTime(w.v); err != nil {
				errs = append(errs, fieldErr(w.field, "", "%v", err))
			}
		}
	}
	return errs
}

// CheckWindow returns the errors of a window's ends from and to, as Spec.From
// and Spec.To read them, that can be seen without the trace (neither seconds
// nor a date), each a *FieldError naming From or To, joined; nil when there
// are none. A command that windows a history outside a Spec (procalloc plan)
// checks its flags with it, and cuts the history with Trace.WindowBounds and
// Window.
func CheckWindow(from, to string) error { return errors.Join(windowErrors(from, to)...) }

// TimeZoneLocation is the time zone an sacct trace's times are read in
// (Spec.TimeZone, ReadOptions.Location): nil for "" (time.Local, the zone of
// TZ), else the IANA zone, or a *FieldError naming TimeZone.
func TimeZoneLocation(tz string) (*time.Location, error) {
	if tz == "" {
		return nil, nil
	}
	loc, err := time.LoadLocation(tz)
	if err != nil {
		return nil, fieldErr("TimeZone", strconv.Quote(textin.Clip(tz)), "is not a time zone (want an IANA name such as America/New_York, or UTC)")
	}
	return loc, nil
}

// checkWindowTime checks the syntax of a From or To value.
func checkWindowTime(s string) error {
	if v, err := strconv.ParseInt(s, 10, 64); err == nil {
		if v < 0 {
			return fmt.Errorf("%d: seconds from the trace's start cannot be negative", v)
		}
		return nil
	}
	for _, l := range windowLayouts {
		if _, err := time.Parse(l, s); err == nil {
			return nil
		}
	}
	return fmt.Errorf("%q is neither whole seconds from the trace's start nor a date YYYY-MM-DD[THH:MM:SS]", s)
}

var windowLayouts = []string{"2006-01-02", "2006-01-02T15:04:05", "2006-01-02 15:04:05"}

// WindowTime reads a window bound: seconds from the trace's start, or a date
// (YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS) in the trace's time zone, which needs the SWF
// header's UnixStartTime. A clock time a daylight-saving switch skips or repeats
// there is an error (it names no one instant).
func WindowTime(s string, tr *Trace) (int64, error) {
	if err := checkWindowTime(s); err != nil {
		return 0, err
	}
	if v, err := strconv.ParseInt(s, 10, 64); err == nil {
		return v, nil
	}
	if tr.UnixStart == 0 {
		return 0, fmt.Errorf("%q: a date needs the SWF header's UnixStartTime, which this trace lacks; give seconds from its start", s)
	}
	loc := time.UTC
	if tr.TimeZone != "" {
		l, err := time.LoadLocation(tr.TimeZone)
		if err != nil {
			return 0, fmt.Errorf("the trace's time zone %q: %w", tr.TimeZone, err)
		}
		loc = l
	}
	for _, layout := range windowLayouts {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			// A clock time skipped or repeated by a daylight-saving switch has no
			// instant, or two: Go picks one without a word, an hour of jobs in or
			// out of the window.
			wall, _ := time.Parse(layout, s) // the clock reading, in UTC
			const full = "2006-01-02T15:04:05"
			want := wall.Format(full)
			if t.In(loc).Format(full) != want {
				return 0, fmt.Errorf("%q does not exist in the trace's time zone %s (a daylight-saving switch skips it); give seconds from the trace's start", s, loc)
			}
			for _, d := range []time.Duration{-time.Hour, -30 * time.Minute, 30 * time.Minute, time.Hour} { // Lord Howe: 30 min
				if t.Add(d).In(loc).Format(full) == want {
					return 0, fmt.Errorf("%q occurs twice in the trace's time zone %s (a daylight-saving switch repeats it); give seconds from the trace's start", s, loc)
				}
			}
			return t.Unix() - tr.UnixStart, nil
		}
	}
	return 0, fmt.Errorf("%q is neither seconds nor a date YYYY-MM-DD[THH:MM:SS]", s)
}

// WindowBounds resolves a window's ends from and to, as Spec.From and Spec.To
// give them ("" an open end; WindowTime), to seconds from tr's start for
// Window (to 0: open). Errors are *FieldError values naming From or To: an end
// that is no time of tr, a window ending at or before the trace's start or
// its other end.
func (tr *Trace) WindowBounds(from, to string) (int64, int64, error) {
	f, t := int64(0), int64(0)
	var err error
	if from != "" {
		if f, err = WindowTime(from, tr); err != nil {
			return 0, 0, fieldErr("From", "", "%v", err)
		}
	}
	if to != "" {
		if t, err = WindowTime(to, tr); err != nil {
			return 0, 0, fieldErr("To", "", "%v", err)
		}
		if t <= 0 {
			return 0, 0, fieldErr("To", to, "the window must end after the trace's start")
		}
		if t <= f {
			return 0, 0, fieldErr("To", to, "the window must end after {From} %s (%d s <= %d s from the trace's start)", from, t, f)
		}
	}
	return f, t, nil
}

// ReadTrace reads the spec's trace: TraceData as it is, else TraceReader, else the
// file Trace, in Format, skipping bad lines when SkipBad.
func (s *Spec) ReadTrace() (*Trace, error) { return s.ReadTraceContext(context.Background()) }

// ReadTraceContext is ReadTrace stopped when ctx ends (looked at before each read
// of the file: a standard workload's 10^5 lines take a few tenths of a second),
// returning ctx's cause, not an error naming the file.
func (s *Spec) ReadTraceContext(ctx context.Context) (*Trace, error) {
	if s.TraceData != nil {
		return s.TraceData, nil
	}
	r := s.TraceReader
	if r == nil {
		f, err := textin.Open(s.Path(s.Trace))
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	opt := ReadOptions{Format: s.Format, SkipBad: s.SkipBad, MaxJobs: s.MaxJobs}
	if s.Machine != nil {
		opt.MaxHosts = s.Machine.N() // resolved: NodeLists counted against it
		if alloc.IsAsRun(s.Alloc) || s.SlurmConf != "" {
			// Every job's recorded nodes are looked up by name (as-run places
			// them, AssignPartitions finds their partition): a host the
			// machine lacks is refused at its record (or skipped), not after
			// the whole history is read. With a window, a job outside it is
			// not replayed: the records are marked, and Prepare refuses (or
			// skips) those of the window, naming the record (Trace.notHosts;
			// a window in seconds counts from the earliest Submit, known at
			// the end).
			if names := s.nodeNames(s.Machine); names != nil {
				opt.Hosts, opt.HostsOf = hostlist.NewTable(names...), s.Machine.Spec()
				// With DropUnknownHosts, marked too: Prepare drops them.
				opt.MarkHosts = s.From != "" || s.To != "" || s.DropUnknownHosts
			}
		}
	}
	loc, err := TimeZoneLocation(s.TimeZone)
	if err != nil {
		return nil, err
	}
	opt.Location = loc
	tr, err := ReadTrace(textin.ContextReader(ctx, r), opt)
	if err != nil && ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Path(s.Trace), err)
	}
	if opt.MarkHosts && tr.Format == FormatSacct {
		tr.hostsRead, tr.hostsMax = opt.Hosts, opt.MaxHosts // Prepare's drop goes by the marks (dropMarked)
	}
	return tr, nil
}

// jobBytes estimates the memory of the job records of a replay of n jobs: per job
// the trace's record, the scaled copy and the result (node lists are not kept
// unless Spec.PerJob: a replay drops each job's when it has finished and JobDone has
// seen it). It undercounts the Go heap's overhead; it is meant to refuse the
// impossible, not to budget exactly.
func jobBytes(n int64) float64 {
	return float64(n) * float64(2*unsafe.Sizeof(Job{})+unsafe.Sizeof(JobResult{}))
}

// Replay is a Spec made ready to run: its machine built, its trace read, cut and
// scaled. Prepare once and Run with several allocators (Replay.Spec.Alloc) to
// replay one trace several times.
type Replay struct {
	Spec    Spec         // the spec as prepared (Hosts and SpanOrder resolved)
	Machine topo.Machine // the machine built from Spec
	Trace   *Trace       // the trace as read, before windowing and scaling
	// Jobs are the jobs replayed: windowed, without those DropLarger dropped
	// (DroppedLarger), scaled.
	Jobs          []Job
	DroppedLarger int // jobs larger than the machine or their partition dropped (Spec.DropLarger)
	// DroppedUnknownHosts are the jobs naming a host the machine lacks dropped
	// (Spec.DropUnknownHosts).
	DroppedUnknownHosts HostsDropped
	// lazy, when set, generates the replicated jobs instead of Jobs (nil then): a
	// replay without per-job records then holds the trace once, not its replicas.
	lazy *replicaStream
	// partitions are SlurmConf's (Config.Partitions, PartitionTiers); nil
	// without it
	partitions *confParts
	// badHosts is the number of the window's jobs skipped (SkipBad) because
	// their record names a host the machine lacks (Trace.notHosts), counted in
	// Report.BadLines with Trace.Bad.
	badHosts int
	// files reads the ranking and topology files the allocator names; copies of
	// the replay share it, so that each file's warnings are kept once.
	files *Files
	// router is the message engine's router (Comm.Router) or the flit engine's
	// tables (Comm.FlitNetwork), built on first use; copies of the replay
	// (compare's allocators) share them. nil without Spec.Comm.
	router *sharedRouter
}

// sharedRouter is a machine's routing built once for the replays that share it:
// the message engine's router, the flit engine's tables.
type sharedRouter struct {
	mu   sync.Mutex
	done bool // r and err are a build's that was not stopped by its context
	r    netsim.Router
	err  error

	flitOnce sync.Once
	flit     *netsim.FlitNetwork
	flitErr  error
}

// get returns the router of m, built under ctx on the first call. A build that
// ctx stopped is not kept: the next call builds it again (a later replay has its
// own context), and this one returns ctx's cause.
func (s *sharedRouter) get(ctx context.Context, m topo.Machine) (netsim.Router, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.done {
		r, err := netsim.NewRouterContext(ctx, m)
		if err != nil && ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		s.r, s.err, s.done = r, err, true
	}
	return s.r, s.err
}

// getFlit returns the flit engine's tables of m, built on the first call.
func (s *sharedRouter) getFlit(m topo.Machine) (*netsim.FlitNetwork, error) {
	s.flitOnce.Do(func() { s.flit, s.flitErr = netsim.NewFlitNetwork(m) })
	return s.flit, s.flitErr
}

// Networks shares machines, the message engine's routers and the flit engine's
// tables among replays (Spec.Networks): only those with Comm whose machine is a
// MachineSpec take part, the others build their own. A machine is kept until the
// last replay Expect announced for it has ended, or, when none was announced,
// until the Networks is dropped. The zero value is ready; safe for concurrent use.
type Networks struct {
	mu sync.Mutex
	by map[string]*sharedNet
}

// sharedNet is one machine spec's machine and router.
type sharedNet struct {
	mu     sync.Mutex // held while the machine is built
	m      topo.Machine
	router sharedRouter
	built  atomic.Bool // m is set
	// left is the number of replays announced (Expect) that have not ended;
	// the entry is dropped when it falls to 0.
	left int
}

// sharedKey is the key of s's machine in a Networks, or "" when s does not take
// part: no communication, or a machine not named by a spec.
func sharedKey(s *Spec) string {
	if s.Comm == "" || s.Machine != nil || s.GraphFile != "" {
		return ""
	}
	return s.MachineSpec
}

// entry returns key's entry, made when missing; n.mu is held.
func (n *Networks) entry(key string) *sharedNet {
	if n.by == nil {
		n.by = map[string]*sharedNet{}
	}
	sn := n.by[key]
	if sn == nil {
		sn = &sharedNet{}
		n.by[key] = sn
	}
	return sn
}

// Expect announces a replay of s to come and returns the function to call once
// it has ended (run, failed or never prepared): after the last announced replay of
// a machine has ended, the Networks drops that machine and its router, so that
// replays run in machine order (a sweep's items, on one trace) hold one machine at
// a time, not every one they used. A replay of the machine after that builds it
// again. For a replay that does not take part the function does nothing. Call
// Expect for every replay before the first is run; call each function once.
func (n *Networks) Expect(s *Spec) (done func()) {
	key := sharedKey(s)
	if key == "" {
		return func() {}
	}
	n.mu.Lock()
	n.entry(key).left++
	n.mu.Unlock()
	var once sync.Once
	return func() { once.Do(func() { n.release(key) }) }
}

// release ends one announced replay of key's machine, dropping the machine with
// the last one.
func (n *Networks) release(key string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	sn := n.by[key]
	if sn == nil || sn.left == 0 {
		return
	}
	if sn.left--; sn.left == 0 {
		delete(n.by, key)
	}
}

// Machines is the number of machines the Networks holds now (built and not
// dropped).
func (n *Networks) Machines() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	k := 0
	for _, sn := range n.by {
		if sn.built.Load() {
			k++
		}
	}
	return k
}

// share gives s the shared machine of its MachineSpec and returns the router to
// share, or nil (s unchanged) when s does not take part, its spec is refused
// (Resolve then says why) or ctx ended while the machine was built (nothing is
// kept: the next replay builds it).
func (n *Networks) share(ctx context.Context, s *Spec) *sharedRouter {
	key := sharedKey(s)
	if key == "" {
		return nil
	}
	n.mu.Lock()
	sn := n.entry(key)
	n.mu.Unlock()
	sn.mu.Lock()
	defer sn.mu.Unlock()
	if sn.m == nil {
		m, err := topo.ParseMachineContext(ctx, s.MachineSpec, math.MaxInt)
		if err != nil {
			return nil
		}
		sn.m = m
		sn.built.Store(true)
	}
	s.Machine = sn.m
	return &sn.router
}

// Warnings returns what the files read so far (a GraphFile; the topology files of
// slurm:tree and slurm:block allocators, read by Config) hold that is accepted but
// worth saying, each file's once, in the order read.
func (rp *Replay) Warnings() []Warning {
	if rp.files == nil {
		return nil
	}
	return rp.files.Warnings()
}

// NumJobs is the number of jobs replayed.
func (rp *Replay) NumJobs() int {
	if rp.lazy != nil {
		return rp.lazy.len()
	}
	return len(rp.Jobs)
}

// AllJobs returns the jobs replayed (made now when they are generated).
func (rp *Replay) AllJobs() []Job {
	if rp.lazy == nil {
		return rp.Jobs
	}
	out := make([]Job, 0, rp.lazy.len())
	for it := rp.lazy.iter(); ; {
		j, ok := it.next()
		if !ok {
			return out
		}
		out = append(out, j)
	}
}

// Prepare validates the spec, builds its machine and reads, windows and scales its
// trace. Errors in the spec are *FieldError values (Validate's, joined).
func (s *Spec) Prepare() (*Replay, error) {
	return s.PrepareContext(context.Background())
}

// PrepareContext is Prepare stopped by ctx while it reads a GraphFile
// (ResolveContext); a cancelled ctx returns its cause.
func (s *Spec) PrepareContext(ctx context.Context) (*Replay, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	resolved := *s
	s = &resolved
	var shared *sharedRouter
	if s.Networks != nil {
		shared = s.Networks.share(ctx, s)
	}
	warnings, err := s.ResolveContext(ctx)
	if err != nil {
		return nil, err
	}
	files := &Files{Hosts: s.Hosts, Dir: s.Dir}
	files.keep("", warnings)
	m := s.Machine
	if s.Hosts != nil && len(s.Hosts) != m.N() {
		return nil, fieldErr("Hosts", "", "%d host names for the %d nodes of %s", len(s.Hosts), m.N(), m.Spec())
	}
	if s.Comm != "" && s.Engine == EngineFlit {
		if _, err := s.flitConfig(m); err != nil {
			return nil, err
		}
	}
	if _, err := newTaskOrdering(s.TaskOrder, m, s.CommSeed, files.Options(alloc.Options{Context: ctx}).Ranking); err != nil {
		return nil, fieldErr("TaskOrder", strconv.Quote(textin.Clip(string(s.TaskOrder))), "%v", err)
	}
	tr, err := s.ReadTraceContext(ctx)
	if err != nil {
		return nil, err
	}
	if err := asRunAllocOn(s.Alloc, s.Trace, tr); err != nil {
		return nil, err
	}
	if s.Sched == SchedAsRun && tr.Format != FormatSacct {
		return nil, fieldErr("Sched", string(s.Sched), "starts jobs when production did, which only an sacct trace records")
	}
	if len(tr.Jobs) == 0 {
		return nil, fmt.Errorf("%s: the trace has no jobs", s.Trace)
	}
	// In floating point: the product of the two counts overflows an int64 for a
	// huge factor (and then passed the bound and the replicas never ended).
	if n := float64(len(tr.Jobs)) * float64(s.Scale.Replicate); n*jobBytes(1) > MaxJobBytes {
		return nil, fieldErr("Scale.Replicate", strconv.Itoa(s.Scale.Replicate), "makes %.4g jobs, about %.3g GB of job records in memory; a replay takes at most %d GB: replicate less",
			n, n*jobBytes(1)/1e9, MaxJobBytes>>30)
	}
	rp := &Replay{Spec: *s, Machine: m, Trace: tr, Jobs: tr.Jobs, files: files}
	if rp.router = shared; shared == nil && s.Comm != "" {
		rp.router = &sharedRouter{}
	}
	rp.Spec.Machine = m
	if s.From != "" || s.To != "" {
		from, to, err := tr.WindowBounds(s.From, s.To)
		if err != nil {
			return nil, err
		}
		if rp.Jobs, err = Window(rp.Jobs, from, to); err != nil {
			return nil, fmt.Errorf("%s: %w", s.Trace, err)
		}
	}
	// The window's jobs naming a host the machine lacks, dropped
	// (DropUnknownHosts: those the read marked, ReadOptions.MarkHosts), else
	// refused or skipped (SkipBad) below.
	if names := s.nodeNames(m); s.DropUnknownHosts && (alloc.IsAsRun(s.Alloc) || s.SlurmConf != "") && names != nil {
		rp.Jobs, rp.DroppedUnknownHosts = tr.dropMarked(rp.Jobs, func() func(string) bool {
			known := make(map[string]bool, len(names))
			for _, h := range names {
				known[h] = true
			}
			return func(h string) bool { return known[h] }
		})
		rp.DroppedUnknownHosts.Lacking = m.Spec()
		if len(rp.Jobs) == 0 {
			return nil, fmt.Errorf("%s: no job left to replay: %s", s.Trace, rp.DroppedUnknownHosts.Note())
		}
	}
	if rp.Jobs, rp.badHosts, err = tr.notHosts(rp.Jobs, s.SkipBad); err != nil {
		return nil, fmt.Errorf("%s: %w", s.Path(s.Trace), err)
	}
	if len(rp.Jobs) == 0 {
		return nil, fmt.Errorf("%s: every job of the window names a host %s lacks (skipped: --skip-bad)", s.Trace, m.Spec())
	}
	if s.DropLarger {
		rp.Jobs, rp.DroppedLarger = DropLarger(rp.Jobs, m.N())
		if len(rp.Jobs) == 0 {
			return nil, fmt.Errorf("%s: every job is larger than %s", s.Trace, m.Spec())
		}
	}
	// Each job's partition (AssignPartitions), for the jobs replayed: those of
	// the window, without the ones larger than the machine that were dropped.
	if s.SlurmConf != "" {
		before := len(rp.Jobs)
		if rp.Jobs, rp.partitions, err = s.readPartitions(ctx, m, rp.Jobs); err != nil {
			return nil, err
		}
		rp.DroppedLarger += before - len(rp.Jobs)
		if len(rp.Jobs) == 0 {
			return nil, fmt.Errorf("%s: every job is larger than its partition", s.Trace)
		}
	}
	// The jobs their partition's state or limits would have kept from running,
	// before scaling (the history's own sizes and limits).
	files.keep("SlurmConf default", rp.partitions.defaultWarnings())
	files.keep("SlurmConf limits", rp.partitions.limitWarnings(rp.Jobs))
	if s.Scale.Replicate > 1 && !s.PerJob && s.Comm == "" && s.Sched != SchedAsRun {
		// Replicas generated as the replay goes (same jobs, same order, the
		// same partitions).
		rs, err := newReplicaStream(rp.Jobs, s.Scale, s.LoadFactor)
		if err != nil {
			return nil, fieldErr("Scale", "", "%v", err)
		}
		if rs != nil {
			rp.Jobs, rp.lazy = nil, rs
			return rp, nil
		}
	}
	if rp.Jobs, err = s.Scale.Apply(rp.Jobs); err != nil {
		return nil, fieldErr("Scale", "", "%v", err)
	}
	if s.LoadFactor != 0 {
		if rp.Jobs, err = (Scale{Contract: s.LoadFactor}).Apply(rp.Jobs); err != nil {
			return nil, fieldErr("LoadFactor", "", "%v", err)
		}
	}
	return rp, nil
}

// asRunAllocOn refuses the as-run allocator on a trace that does not record where
// production ran each job (only sacct traces do).
func asRunAllocOn(spec, name string, tr *Trace) error {
	if alloc.IsAsRun(spec) && tr.Format != FormatSacct {
		return fieldErr("Alloc", "as-run", "places each job on its recorded nodes, which only an sacct trace records (NodeList); %s is a %s trace", name, tr.Format)
	}
	return nil
}

// Config returns the replay's configuration with a fresh allocator, built under
// ctx (alloc.Options.Context: a curve's ordering, a topology or ranking file read,
// Slurm's emulator built). Errors in the allocator or the baseline are *FieldError
// values, but for a file the allocator names that cannot be read or whose content
// is refused (*alloc.FileError, *fs.PathError): a failure of the run; and a
// cancelled ctx returns alloc.Parse's error, which names the allocator and wraps
// ctx's cause, not a *FieldError.
func (rp *Replay) Config(ctx context.Context) (Config, error) {
	s, m := &rp.Spec, rp.Machine
	if err := asRunAllocOn(s.Alloc, s.Trace, rp.Trace); err != nil {
		return Config{}, err
	}
	if rp.files == nil {
		rp.files = &Files{Hosts: s.Hosts, Dir: s.Dir}
	}
	opt := rp.files.Options(alloc.Options{Compat: s.Compat, NoMemo: s.NoMemo, Names: s.Hosts, Context: ctx})
	a, err := alloc.Parse(s.Alloc, m, opt)
	if err != nil && ctx.Err() != nil {
		return Config{}, err // interrupted: the spec is not at fault
	}
	if err != nil {
		// A file the allocator names that cannot be read (a missing topology.conf
		// or ranking file), or whose content is refused, is a failure of the run,
		// not a mistake in the spec.
		if pe, fe := (*fs.PathError)(nil), (*alloc.FileError)(nil); errors.As(err, &pe) || errors.As(err, &fe) {
			return Config{}, err
		}
		return Config{}, &FieldError{Field: "Alloc", Reason: err.Error(), Err: err}
	}
	// What slurmctld logs about the configuration on this machine (nodes in no
	// block), once per allocator spec.
	if sw, ok := a.(interface{ Warnings() []string }); ok {
		var ws []Warning
		for _, w := range sw.Warnings() {
			ws = append(ws, Warning{Field: "Alloc", File: s.Alloc, Text: w})
		}
		rp.files.keep("alloc "+s.Alloc, ws)
	}
	cfg := Config{Machine: m, Alloc: a, Sched: s.Sched, Compat: s.Compat, MessageBytes: s.Network.MessageFlits * s.Network.FlitBytes,
		SpanOrder: s.SpanOrder, SpanName: s.SpanName, Progress: s.Progress, DropNodes: !s.PerJob, NoPerJob: !s.PerJob, JobDone: s.JobDone, Metrics: s.Metrics,
		TaskOrder: s.TaskOrder, TaskSeed: s.CommSeed, TaskRanking: opt.Ranking}
	if rp.partitions != nil {
		cfg.Partitions, cfg.PartitionTiers = rp.partitions.nodes, rp.partitions.tiers
	}
	if cfg.Pattern, err = netsim.ParsePattern(s.Pattern); err != nil {
		return Config{}, fieldErr("Pattern", "", "%v", err)
	}
	if s.Comm != "" {
		pat, err := netsim.ParsePattern(s.Comm)
		if err != nil {
			return Config{}, fieldErr("Comm", "", "%v", err)
		}
		cfg.Comm = &Comm{Pattern: pat, Params: s.Network, MessagesPerSecond: s.MessagesPerSecond, CycleSeconds: s.CycleSeconds, Seed: s.CommSeed}
		if s.Engine == EngineFlit {
			fc, err := s.flitConfig(m)
			if err != nil {
				return Config{}, err
			}
			cfg.Comm.Engine, cfg.Comm.Flit = EngineFlit, fc
			if rp.router != nil {
				// A machine the engine cannot model: runComm says so.
				cfg.Comm.FlitNetwork, _ = rp.router.getFlit(m)
			}
		} else if rp.router != nil {
			// A machine without a router: runComm says so, as without sharing.
			cfg.Comm.Router, _ = rp.router.get(ctx, m)
		}
	}
	if s.Baseline != nil {
		if err := checkBaseline(m); err != nil {
			return Config{}, fieldErr("Baseline", "exact", "%v", err)
		}
		b := *s.Baseline
		cfg.Baseline = &b
	}
	return cfg, nil
}

// Report is a finished replay: its summary (with per-size rows, Summary.BySize)
// and what was read. Its JSON is "procalloc sim --json".
type Report struct {
	Summary         // the replay's figures, as sim.Run returns them
	Trace    string `json:"trace"`            // Spec.Trace: the trace's path or name
	BadLines int    `json:"bad_lines"`        // malformed lines skipped (Trace.Bad)
	Filtered int    `json:"filtered_records"` // well-formed SWF records the conversion rules dropped (Trace.Filtered)
	// Skipped counts sacct records not replayed, by reason.
	Skipped map[string]int `json:"skipped_records,omitempty"`
	// Impossible counts sacct records not replayed because their times contradict
	// each other or their state is unknown, by reason (Trace.Impossible).
	Impossible map[string]int `json:"impossible_records,omitempty"`
	// TimeZone is the zone an sacct trace's times were read in (Spec.TimeZone, or
	// "Local": the system's zone, TZ unset): the same trace read in another zone
	// replays differently when it spans a daylight-saving change. Empty for SWF and
	// converted traces, whose times do not depend on the reader's zone.
	TimeZone string `json:"time_zone,omitempty"`
	// DroppedLarger counts the jobs Spec.DropLarger removed.
	DroppedLarger int `json:"dropped_larger"`
	// DroppedUnknownHosts counts the jobs Spec.DropUnknownHosts removed.
	DroppedUnknownHosts int `json:"dropped_unknown_hosts"`
	// UnknownHosts counts the distinct hosts the machine lacks that the
	// dropped jobs name.
	UnknownHosts int `json:"unknown_hosts"`
	// Seconds is the replay's wall-clock time.
	Seconds float64 `json:"seconds"`
	// PerJob are the jobs' records, with Spec.PerJob.
	PerJob []JobResult `json:"-"`
	// Warnings are what the replay's files hold that is accepted but worth saying
	// (Replay.Warnings).
	Warnings []Warning `json:"-"`
}

// Run replays the prepared trace with a fresh allocator. Interrupted (ctx ended),
// it returns the report of the jobs replayed so far, marked Interrupted (see
// sim.Run), with ctx's cause as the error; without the slurm:consec replay of
// BlockWaits.
func (rp *Replay) Run(ctx context.Context) (*Report, error) {
	cfg, err := rp.Config(ctx)
	if err != nil {
		return nil, err
	}
	if cfg.Clock == nil {
		cfg.Clock = &alloc.Clock{}
	}
	t0 := time.Now()
	var res *Result
	if rp.lazy != nil && cfg.NoPerJob && cfg.Comm == nil && cfg.Sched != SchedAsRun {
		res, err = run(ctx, nil, rp.lazy, cfg)
	} else {
		res, err = Run(ctx, rp.AllJobs(), cfg)
	}
	if err != nil && (res == nil || !res.Interrupted) {
		return nil, err
	}
	secs := time.Since(t0).Seconds()
	rep := &Report{Summary: res.Summary, Trace: rp.Spec.Trace, BadLines: rp.Trace.Bad + rp.badHosts, Filtered: rp.Trace.Filtered, Skipped: rp.Trace.Skipped,
		Impossible: rp.Trace.Impossible, DroppedLarger: rp.DroppedLarger,
		DroppedUnknownHosts: rp.DroppedUnknownHosts.Jobs, UnknownHosts: rp.DroppedUnknownHosts.Hosts, Seconds: secs}
	if rp.Trace.Format == FormatSacct {
		rep.TimeZone = rp.Trace.TimeZone
	}
	rep.AllocTime = newAllocTime(cfg.Clock.Snapshot())
	rep.LoadFactor = rp.Spec.Scale.Contract
	if rp.Spec.LoadFactor != 0 {
		rep.LoadFactor = rp.Spec.LoadFactor
	}
	if rp.Spec.PerJob {
		rep.PerJob = res.PerJob
	}
	rep.Warnings = rp.Warnings()
	if err != nil { // interrupted: the jobs replayed so far (Run), and the cause
		return rep, err
	}
	if bw := rep.BlockWaits; bw != nil && cfg.Comm == nil && cfg.Sched != SchedAsRun {
		w, err := rp.consecMeanWait(ctx)
		if err != nil {
			return nil, fmt.Errorf("the slurm:consec replay that the extra wait for blocks is measured against: %w", err)
		}
		extra := rep.MeanWait - w
		bw.ConsecMeanWait, bw.ExtraMeanWait = &w, &extra
	}
	return rep, nil
}

// consecMeanWait replays the same jobs on the same machine under the same
// scheduler with slurm:consec (Slurm's selection without topology, which places
// every job that fits by count) and returns their mean wait: the wait the jobs
// would have had without waiting for blocks. Only the scheduling metrics are
// computed, without D.
func (rp *Replay) consecMeanWait(ctx context.Context) (float64, error) {
	c := *rp
	c.Spec.Alloc = "slurm:consec"
	c.Spec.Metrics = MetricsSched
	c.Spec.PerJob, c.Spec.JobDone, c.Spec.Progress = false, nil, nil
	c.Spec.Baseline, c.Spec.SpanOrder, c.Spec.TaskOrder = nil, nil, ""
	cfg, err := c.Config(ctx)
	if err != nil {
		return 0, err
	}
	cfg.noD = true
	var res *Result
	if c.lazy != nil {
		res, err = run(ctx, nil, c.lazy, cfg)
	} else {
		res, err = Run(ctx, c.Jobs, cfg)
	}
	if err != nil {
		return 0, err
	}
	return res.MeanWait, nil
}

// Run prepares and runs the replay; ctx stops both.
func (s *Spec) Run(ctx context.Context) (*Report, error) {
	rp, err := s.PrepareContext(ctx)
	if err != nil {
		return nil, err
	}
	return rp.Run(ctx)
}
