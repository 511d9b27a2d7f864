package sweep

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/sim"
)

// A sweep file's flags are written as sim's command-line flags (so that --list and
// merge print each item as the command that replays it, and the items' keys, which
// hash the flags as written, stay those of earlier runs), but they are decoded here,
// once per item, onto the fields of sim.Spec they name: the library runs a sweep
// with no command-line flag set. The table below is the set of sim's replay flags;
// each sets one typed field, as "procalloc sim" maps the same flag.

// ErrCommandFlag marks a flag of a sweep item that reads a machine or host names
// from files (--graph, --hosts, ...): the procalloc command maps those; the
// library alone does not read them.
var ErrCommandFlag = errors.New("the procalloc command's")

// CommandFlags are the sim flags a sweep item may give that the procalloc command
// maps (they read files or build a machine beyond a spec): see ErrCommandFlag.
var CommandFlags = []string{"graph", "graph-format", "node-name-map", "topology", "hosts", "hostlist", "span-curve"}

// replayFlag sets the field of sim.Spec one sim flag names, from its value.
type replayFlag struct {
	isBool bool
	set    func(s *sim.Spec, o *flagState, v string) error
}

// flagState is what a few flags need beyond the spec's fields: which were given
// (for the engine's checks) and the baseline's two flags, applied together.
type flagState struct {
	given         map[string]bool
	baseline      string
	baselineLimit time.Duration
}

func strFlag(set func(s *sim.Spec, v string)) replayFlag {
	return replayFlag{set: func(s *sim.Spec, _ *flagState, v string) error { set(s, v); return nil }}
}

func boolFlag(set func(s *sim.Spec, v bool)) replayFlag {
	return replayFlag{isBool: true, set: func(s *sim.Spec, _ *flagState, v string) error {
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
	return replayFlag{set: func(s *sim.Spec, _ *flagState, v string) error {
		n, err := strconv.ParseInt(v, 0, strconv.IntSize)
		if err != nil {
			return numErr(err)
		}
		set(s, int(n))
		return nil
	}}
}

func int64Flag(set func(s *sim.Spec, v int64)) replayFlag {
	return replayFlag{set: func(s *sim.Spec, _ *flagState, v string) error {
		n, err := strconv.ParseInt(v, 0, 64)
		if err != nil {
			return numErr(err)
		}
		set(s, n)
		return nil
	}}
}

func uint64Flag(set func(s *sim.Spec, v uint64)) replayFlag {
	return replayFlag{set: func(s *sim.Spec, _ *flagState, v string) error {
		n, err := strconv.ParseUint(v, 0, 64)
		if err != nil {
			return numErr(err)
		}
		set(s, n)
		return nil
	}}
}

func floatFlag(set func(s *sim.Spec, v float64)) replayFlag {
	return replayFlag{set: func(s *sim.Spec, _ *flagState, v string) error {
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

var flitFlags = []string{"vcs", "vc-buffer", "routing-delay", "vc-alloc-delay", "sw-alloc-delay", "st-delay", "link-delay", "hop-classes"}

// replayFlags are sim's replay flags, each mapped onto its sim.Spec field as
// "procalloc sim" maps it (cmd/procalloc/cmd_sim.go, simFlags.spec).
var replayFlags = map[string]replayFlag{
	"trace":   strFlag(func(s *sim.Spec, v string) { s.Trace = v }),
	"machine": strFlag(func(s *sim.Spec, v string) { s.Machine, s.MachineSpec = nil, v }),
	"alloc":   strFlag(func(s *sim.Spec, v string) { s.Alloc = v }),
	"sched":   strFlag(func(s *sim.Spec, v string) { s.Sched = sim.Sched(v) }),
	"compat": strFlag(func(s *sim.Spec, v string) {
		if s.Compat = sim.Compat(v); v == "default" {
			s.Compat = alloc.CompatDefault
		}
	}),
	"format":      strFlag(func(s *sim.Spec, v string) { s.Format = sim.Format(v) }),
	"skip-bad":    boolFlag(func(s *sim.Spec, v bool) { s.SkipBad = v }),
	"max-jobs":    {set: setMaxJobs},
	"tz":          strFlag(func(s *sim.Spec, v string) { s.TimeZone = v }),
	"no-memo":     boolFlag(func(s *sim.Spec, v bool) { s.NoMemo = v }),
	"work":        floatFlag(func(s *sim.Spec, v float64) { s.Scale.Work = v }),
	"contract":    floatFlag(func(s *sim.Spec, v float64) { s.Scale.Contract = v }),
	"replicate":   intFlag(func(s *sim.Spec, v int) { s.Scale.Replicate = v }),
	"perturb":     int64Flag(func(s *sim.Spec, v int64) { s.Scale.Perturb = v }),
	"seed":        uint64Flag(func(s *sim.Spec, v uint64) { s.Scale.Seed = v }),
	"from":        strFlag(func(s *sim.Spec, v string) { s.From = v }),
	"to":          strFlag(func(s *sim.Spec, v string) { s.To = v }),
	"drop-larger": boolFlag(func(s *sim.Spec, v bool) { s.DropLarger = v }),
	"comm":        strFlag(func(s *sim.Spec, v string) { s.Comm = v }),
	"pattern":     strFlag(func(s *sim.Spec, v string) { s.Pattern = v }),
	"metrics": {set: func(s *sim.Spec, _ *flagState, v string) error {
		m, err := sim.ParseMetrics(v)
		if err != nil {
			return err
		}
		s.Metrics = m
		return nil
	}},
	"msg-flits":       int64Flag(func(s *sim.Spec, v int64) { s.Network.MessageFlits = v }),
	"router-delay":    int64Flag(func(s *sim.Spec, v int64) { s.Network.RouterDelay = v }),
	"flit-bytes":      int64Flag(func(s *sim.Spec, v int64) { s.Network.FlitBytes = v }),
	"cycle-seconds":   floatFlag(func(s *sim.Spec, v float64) { s.CycleSeconds = v }),
	"msgs-per-second": floatFlag(func(s *sim.Spec, v float64) { s.MessagesPerSecond = v }),
	"comm-seed":       uint64Flag(func(s *sim.Spec, v uint64) { s.CommSeed = v }),
	"engine": strFlag(func(s *sim.Spec, v string) {
		if s.Engine = sim.Engine(v); v != "" { // a wrong name: Validate says so
			if e, err := sim.ParseEngine(v); err == nil {
				s.Engine = e
			}
		}
	}),
	"vcs":            flitFlag(func(f *sim.FlitOptions, v int) { f.VCs = v }),
	"vc-buffer":      flitFlag(func(f *sim.FlitOptions, v int) { f.VCBuffer = v }),
	"routing-delay":  flitFlag(func(f *sim.FlitOptions, v int) { f.RoutingDelay = v }),
	"vc-alloc-delay": flitFlag(func(f *sim.FlitOptions, v int) { f.VCAllocDelay = v }),
	"sw-alloc-delay": flitFlag(func(f *sim.FlitOptions, v int) { f.SwitchAllocDelay = v }),
	"st-delay":       flitFlag(func(f *sim.FlitOptions, v int) { f.SwitchDelay = v }),
	"link-delay":     flitFlag(func(f *sim.FlitOptions, v int) { f.LinkDelay = v }),
	"hop-classes":    boolFlag(func(s *sim.Spec, v bool) { s.Flit.HopClasses = v }),
	"task-order": strFlag(func(s *sim.Spec, v string) {
		if s.TaskOrder = sim.TaskOrder(v); v == "returned" {
			s.TaskOrder = sim.TaskOrderReturned
		}
	}),
	"baseline": {set: func(_ *sim.Spec, o *flagState, v string) error { o.baseline = v; return nil }},
	"baseline-time-limit": {set: func(_ *sim.Spec, o *flagState, v string) error {
		d, err := time.ParseDuration(v)
		if err != nil {
			return errors.New("not a duration (e.g. 500ms, 2s)")
		}
		o.baselineLimit = d
		return nil
	}},
	// sim's output flags: an item's result is sim's JSON, breakdown by size included.
	"json":    boolFlag(func(*sim.Spec, bool) {}),
	"by-size": boolFlag(func(*sim.Spec, bool) {}),
}

func setMaxJobs(s *sim.Spec, _ *flagState, v string) error {
	n, err := strconv.ParseInt(v, 0, strconv.IntSize)
	if err != nil {
		return numErr(err)
	}
	if n < 1 {
		return errors.New("must be at least 1")
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
	Reason string
	Err    error // ErrCommandFlag for the command's flags; else nil
}

func (e *FlagError) Error() string {
	if e.Flag == "" {
		return "flags: " + e.Reason
	}
	return "flags: " + e.Flag + ": " + e.Reason
}

func (e *FlagError) Unwrap() error { return e.Err }

// ApplyFlags sets the fields of s that flags name (sim's replay flags, as a sweep
// file writes them: --name value, --name=value, a bare --name for a switch; one or
// two leading dashes; -- ends them), in order, so that a later flag changes what an
// earlier one, or the item's own parameters, set. An unknown flag, a missing or
// malformed value, a flit engine flag without --engine flit, and a stray argument
// are a *FlagError naming the flag; a flag that reads files (CommandFlags) is one
// wrapping ErrCommandFlag.
func ApplyFlags(s *sim.Spec, flags []string) error {
	st := flagState{given: map[string]bool{}, baselineLimit: time.Second}
	for i := 0; i < len(flags); i++ {
		a := flags[i]
		if a == "--" {
			if i+1 < len(flags) {
				return &FlagError{Reason: fmt.Sprintf("unexpected arguments %q", flags[i+1:])}
			}
			break
		}
		if len(a) < 2 || a[0] != '-' {
			return &FlagError{Reason: fmt.Sprintf("unexpected arguments %q", flags[i:])}
		}
		name := strings.TrimPrefix(a[1:], "-")
		if name == "" || name[0] == '-' || name[0] == '=' {
			return &FlagError{Flag: a, Reason: "bad flag syntax"}
		}
		value, hasValue := "", false
		if k, v, ok := strings.Cut(name, "="); ok {
			name, value, hasValue = k, v, true
		}
		written := "--" + name
		f, ok := replayFlags[name]
		if !ok {
			for _, c := range CommandFlags {
				if c == name {
					return &FlagError{Flag: written, Reason: "reads files through the procalloc command (procalloc sweep maps it; the library alone does not)", Err: ErrCommandFlag}
				}
			}
			return &FlagError{Flag: written, Reason: "not one of sim's replay flags (a sweep item takes sim's replay flags; --convert and -o do not apply, and --per-job is the sweep's own, a directory)"}
		}
		switch {
		case f.isBool && !hasValue:
			value = "true"
		case !hasValue:
			if i+1 >= len(flags) {
				return &FlagError{Flag: written, Reason: "needs a value"}
			}
			i++
			value = flags[i]
		}
		if err := f.set(s, &st, value); err != nil {
			return &FlagError{Flag: written, Reason: fmt.Sprintf("%q: %v", value, err)}
		}
		st.given[name] = true
	}
	engine := s.Engine
	flitValues := []int{s.Flit.VCs, s.Flit.VCBuffer, s.Flit.RoutingDelay, s.Flit.VCAllocDelay, s.Flit.SwitchAllocDelay, s.Flit.SwitchDelay, s.Flit.LinkDelay}
	for i, name := range flitFlags {
		if !st.given[name] {
			continue
		}
		if engine != sim.EngineFlit {
			return &FlagError{Flag: "--" + name, Reason: "configures the flit engine: add --engine flit"}
		}
		if i < len(flitValues) && flitValues[i] < 1 { // hop-classes, last, is a switch
			return &FlagError{Flag: "--" + name, Reason: fmt.Sprintf("%d: must be at least 1", flitValues[i])}
		}
	}
	if engine == sim.EngineFlit && st.given["router-delay"] {
		return &FlagError{Flag: "--router-delay", Reason: "is the message engine's; the flit engine's stages are --routing-delay, --vc-alloc-delay, --sw-alloc-delay, --st-delay and --link-delay"}
	}
	switch st.baseline {
	case "":
		if st.given["baseline-time-limit"] {
			return &FlagError{Flag: "--baseline-time-limit", Reason: "needs --baseline exact"}
		}
	case "exact":
		s.Baseline = &sim.Baseline{TimeLimit: st.baselineLimit}
	default:
		return &FlagError{Flag: "--baseline", Reason: fmt.Sprintf("%q: want exact", st.baseline)}
	}
	return nil
}

// FlagNames are the names (without dashes) of the sim flags ApplyFlags maps, sorted.
func FlagNames() []string {
	names := make([]string, 0, len(replayFlags))
	for n := range replayFlags {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}
