package sim

import (
	"fmt"
	"slices"
	"strings"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/internal/textin"
)

// Sched names a scheduler: which queued job starts next. The zero value is FCFS.
type Sched string

// The schedulers (docs/sim.md).
const (
	// SchedFCFS starts jobs strictly in arrival order.
	SchedFCFS Sched = "fcfs"
	// SchedEASY is EASY backfilling: a later job may start early when it does not
	// delay the first queued job's reservation.
	SchedEASY Sched = "easy"
	// SchedCplant sorts the queue by size, then by requested time.
	SchedCplant Sched = "cplant"
	// SchedAsRun starts every job when production did (Job.Started; sacct traces).
	SchedAsRun Sched = "as-run"
)

// scheds backs Scheds; only this package changes it.
var scheds = []Sched{SchedFCFS, SchedEASY, SchedCplant, SchedAsRun}

// Scheds returns every scheduler, in the order help texts name them.
// Each call returns a new slice: changing it changes nothing in the package.
func Scheds() []Sched { return slices.Clone(scheds) }

// String returns the scheduler's name; the zero value is "fcfs".
func (s Sched) String() string {
	if s == "" {
		return string(SchedFCFS)
	}
	return string(s)
}

// ParseSched reads a scheduler's name.
func ParseSched(s string) (Sched, error) {
	for _, v := range scheds {
		if string(v) == s {
			return v, nil
		}
	}
	return "", unknownChoice(s, scheds)
}

// Choices names the values of a closed set for a message, from its table (Scheds,
// Formats, Engines): "fcfs, easy, cplant or as-run", "message or flit".
func Choices[T fmt.Stringer](vs []T) string {
	names := make([]string, len(vs))
	for i, v := range vs {
		names[i] = v.String()
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// unknownChoice refuses s, not one of vs: `"S": want A, B or C (did you mean B?)`.
func unknownChoice[T fmt.Stringer](s string, vs []T) error {
	return fmt.Errorf("%q: %s", s, wantChoice(s, vs))
}

// wantChoice says what s, not one of vs, should be: "want A, B or C", and the
// nearest name when s is a near miss (" (did you mean B?)", textin.Nearest).
func wantChoice[T fmt.Stringer](s string, vs []T) string {
	names := make([]string, len(vs))
	for i, v := range vs {
		names[i] = v.String()
	}
	return "want " + Choices(vs) + textin.DidYouMean(s, names)
}

// Format names a trace format. The zero value, FormatDetect, detects it from the
// first record (ReadOptions.Format).
type Format string

// The trace formats (ReadTrace).
const (
	FormatDetect    Format = ""
	FormatSWF       Format = "swf"       // Standard Workload Format 2.2
	FormatConverted Format = "converted" // the 4-column "arrival procs runtime estimate"
	FormatSacct     Format = "sacct"     // sacct -P output (SacctFields)
)

// formats backs Formats; only this package changes it.
var formats = []Format{FormatSWF, FormatConverted, FormatSacct}

// Formats returns the trace formats a trace may be named in (FormatDetect, the
// default, finds one of them).
// Each call returns a new slice: changing it changes nothing in the package.
func Formats() []Format { return slices.Clone(formats) }

// String returns the format's name, "detect" for the zero value.
func (f Format) String() string {
	if f == FormatDetect {
		return "detect"
	}
	return string(f)
}

// ParseFormat reads a trace format's name; "" (and "detect") is FormatDetect.
func ParseFormat(s string) (Format, error) {
	if f := Format(s); f == FormatDetect || slices.Contains(formats, f) {
		return f, nil
	}
	if s == "detect" {
		return FormatDetect, nil
	}
	return "", unknownChoice(s, formats)
}

// ParseCompat reads a compat mode: "premas", "sst", or "" (and "default") for
// procalloc's own conventions.
func ParseCompat(s string) (Compat, error) {
	switch s {
	case "", "default":
		return alloc.CompatDefault, nil
	case string(alloc.CompatPReMAS):
		return alloc.CompatPReMAS, nil
	case string(alloc.CompatSST):
		return alloc.CompatSST, nil
	}
	return "", fmt.Errorf("%q: %s", s, WantCompat(s))
}

// WantCompat says what s, not a compat mode, should be: "want premas, sst or
// empty", and the nearest name when s is a near miss (" (did you mean premas?)").
func WantCompat(s string) string {
	return "want premas, sst or empty" + textin.DidYouMean(s, []string{string(alloc.CompatPReMAS), string(alloc.CompatSST), "default"})
}

// Engine names the network model of a replay with communication (Spec.Comm). Its one
// Go spelling of the default is the zero value, EngineMessage; as text (flags, sweep
// files, JSON) it is "message" (String, MarshalText, UnmarshalText, ParseEngine).
type Engine string

// The network models (docs/comm.md).
const (
	// EngineMessage is the message-level wormhole model (netsim.Engine): a message
	// holds its whole path, no buffers; dateline channels on tori and distance
	// classes on graphs whose routes could deadlock. It is the replays'
	// default: about ten times faster per hop than the flit engine, and the model
	// the published replays (docs/comm-bunde2004.md) were run and pinned with.
	EngineMessage Engine = ""
	// EngineFlit is the flit-level model of BookSim2's input-queued virtual-channel
	// router (netsim.FlitEngine), validated against BookSim2 in docs/comm.md.
	EngineFlit Engine = "flit"
)

// engines backs Engines; only this package changes it.
var engines = []Engine{EngineMessage, EngineFlit}

// Engines returns the network models, in the order help texts name them.
// Each call returns a new slice: changing it changes nothing in the package.
func Engines() []Engine { return slices.Clone(engines) }

// String returns the engine's name: "message" or "flit".
func (e Engine) String() string {
	if e == EngineMessage {
		return "message"
	}
	return string(e)
}

// ParseEngine reads a network model's name: "message" (or "", the zero value) or
// "flit".
func ParseEngine(s string) (Engine, error) {
	switch s {
	case "", "message":
		return EngineMessage, nil
	case string(EngineFlit):
		return EngineFlit, nil
	}
	return "", unknownChoice(s, engines)
}

// MarshalText writes the engine's name (String).
func (e Engine) MarshalText() ([]byte, error) { return []byte(e.String()), nil }

// UnmarshalText reads "message" or "flit" (a name must be given: "" is refused).
func (e *Engine) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		return fmt.Errorf("%q: want %s", "", Choices(engines))
	}
	v, err := ParseEngine(string(b))
	if err != nil {
		return err
	}
	*e = v
	return nil
}
