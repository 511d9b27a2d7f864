package sweep

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/internal/textin"
	"github.com/procalloc/procalloc/netsim"
	"github.com/procalloc/procalloc/sim"
	"github.com/procalloc/procalloc/topo"
	"go.yaml.in/yaml/v3"
)

// Spec is a sweep file. Every key but Name and Flags is a list; the sweep is their
// product. Keys left out take one default value (noted).
type Spec struct {
	// Name identifies the sweep in its results files (default: the file's base name
	// without extension); results of another sweep are refused.
	Name       string      `yaml:"name" json:"name"`
	Traces     []string    `yaml:"traces" json:"traces"`         // required
	Machines   []string    `yaml:"machines" json:"machines"`     // required
	Allocators []string    `yaml:"allocators" json:"allocators"` // required
	Schedulers []sim.Sched `yaml:"schedulers" json:"schedulers"` // default [fcfs]
	Contract   []float64   `yaml:"contract" json:"contract"`     // load factors, default [1]
	// Patterns are communication patterns (sim --comm); "none" replays without
	// communication. Default [none].
	Patterns []string `yaml:"patterns" json:"patterns"`
	Seeds    []uint64 `yaml:"seeds" json:"seeds"` // sim --seed and --comm-seed, default [1]
	// Engines are the network models of the patterns (sim --engine): message or
	// flit. Default [message]. The flit engine's configuration (--vcs, --vc-buffer,
	// ...) goes in Flags.
	Engines []sim.Engine `yaml:"engines" json:"engines"`
	// Flags are further sim flags given to every item, e.g. ["--from", "1996-10-01",
	// "--drop-larger"], written as on sim's command line (so that --list prints
	// each item as the command that replays it) and decoded by ApplyFlags onto the
	// sim.Spec fields they name.
	Flags []string `yaml:"flags" json:"flags"`
	// Dir is the directory relative file names are read from (the sweep file's):
	// traces, the files flags and allocators name (sim.Spec.Dir).
	Dir string `yaml:"-" json:"-"`
}

// keys lists the keys a sweep file may have, for the unknown-key message.
var keys = []string{"name", "traces", "machines", "allocators", "schedulers", "contract", "patterns", "seeds", "engines", "flags"}

// Caps on what a sweep reads, so that a wrong or endless input (/dev/zero, a
// gigabyte file given by mistake, a short file whose lists multiply to billions of
// items) is an error naming the cap rather than the machine running out of memory.
const (
	// MaxSpecBytes caps a sweep file: the largest real ones list a few hundred
	// traces or machines, some kilobytes.
	MaxSpecBytes = 4 << 20
	// MaxItems caps the items of a sweep (the product of its lists' lengths):
	// published grids have hundreds (Bunde et al. 2004: 360), a million replays is
	// more than a cluster runs in a week, and the items alone take some hundred
	// megabytes to list.
	MaxItems = 1_000_000
	// MaxLineBytes caps one line of a results file: a line holds one replay's
	// summary (sim --json), about 3 KB.
	MaxLineBytes = 16 << 20
	// MaxResultsBytes caps one results file: MaxItems lines of a few kilobytes,
	// with room for retried items.
	MaxResultsBytes = 8 << 30
	// MaxTypeErrors is the most of yaml.v3's per-entry decoding errors a sweep
	// file's error lists, the rest counted: a list of 100,000 wrong entries made
	// 100,000 lines (4.9 MB).
	MaxTypeErrors = 10
)

// Parse reads a sweep file (YAML, or JSON, which is YAML too). An unknown key is an
// error naming it and its line; so are a value listed twice, a seed that is not an
// integer from 0 to 2^64-1, a control character (a newline) in a name, list entry
// or flag, and a sweep of more than MaxItems items. A sweep read from standard input
// (name "-") is named "stdin" unless it says otherwise.
func Parse(data []byte, name string) (*Spec, error) {
	if err := textin.CheckStart(string(data[:min(len(data), textin.StartLen)])); err != nil {
		return nil, fmt.Errorf("sweep file: %w", err) // yaml said "control characters are not allowed"
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, fmt.Errorf("sweep file: %w", err)
	}
	if len(root.Content) == 0 {
		return nil, errors.New("sweep file: empty")
	}
	doc := root.Content[0]
	if doc.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("sweep file: line %d: want a mapping of keys (traces:, machines:, ...)", doc.Line)
	}
	nodes := map[string]*yaml.Node{}
	for i := 0; i < len(doc.Content); i += 2 {
		k := doc.Content[i]
		if !slices.Contains(keys, k.Value) {
			return nil, fmt.Errorf("sweep file: line %d: unknown key %q%s (valid: %s)", k.Line, textin.Clip(k.Value), textin.DidYouMean(k.Value, keys), strings.Join(keys, ", "))
		}
		v := doc.Content[i+1]
		for v.Kind == yaml.AliasNode && v.Alias != nil {
			v = v.Alias
		}
		if k.Value != "name" && v.Kind != yaml.SequenceNode {
			return nil, fmt.Errorf("sweep file: line %d: %s must be a list, e.g. %s: [a, b]", v.Line, k.Value, k.Value)
		}
		nodes[k.Value] = v
	}
	// yaml turns an integer too large for 64 bits into a float, and a float into
	// an unsigned integer by truncation: 18446744073709551616 would become
	// 9223372036854775808 and 1.5 would become 1 without a word. A seed must be
	// written as an integer that fits.
	if n := nodes["seeds"]; n != nil {
		for _, e := range n.Content {
			for e.Kind == yaml.AliasNode && e.Alias != nil {
				e = e.Alias
			}
			if e.Kind != yaml.ScalarNode || e.ShortTag() != "!!int" || strings.HasPrefix(strings.TrimSpace(e.Value), "-") {
				return nil, fmt.Errorf("sweep file: line %d: seeds: %q is not a seed (an integer from 0 to %d)", e.Line, textin.Clip(e.Value), uint64(math.MaxUint64))
			}
		}
	}
	// Engines, schedulers and patterns are closed sets: a wrong name is said
	// with its line and entry, before any item runs (a misspelt scheduler used to
	// pass --list and fail each of its items at the end of a cluster's run).
	// Engines are checked before decoding, which would refuse them without the
	// line; schedulers and patterns after the checks of every list (control
	// characters, the number of items).
	checkChoices := func(key string, check func(string) error) error {
		n := nodes[key]
		if n == nil {
			return nil
		}
		for i, e := range n.Content {
			for e.Kind == yaml.AliasNode && e.Alias != nil {
				e = e.Alias
			}
			err := check(e.Value)
			if err == nil && e.Kind == yaml.ScalarNode {
				continue
			}
			why := "want a name"
			if err != nil {
				// sim's choice errors begin with the value quoted, said once here.
				why = strings.TrimPrefix(err.Error(), strconv.Quote(e.Value)+": ")
			}
			return fmt.Errorf("sweep file: line %d: %s: entry %d %q: %s", e.Line, key, i+1, textin.Clip(e.Value), why)
		}
		return nil
	}
	if err := checkChoices("engines", func(v string) error {
		if _, err := sim.ParseEngine(v); err != nil || v == "" {
			return fmt.Errorf("want %s", sim.Choices(sim.Engines()))
		}
		return nil
	}); err != nil {
		return nil, err
	}
	var s Spec
	if err := doc.Decode(&s); err != nil {
		return nil, fmt.Errorf("sweep file: %w", capTypeErrors(err))
	}
	if s.Name == "" {
		if name == "-" {
			s.Name = "stdin"
		} else {
			s.Name = strings.TrimSuffix(filepath.Base(name), filepath.Ext(name))
		}
	}
	if len(s.Traces) == 0 || len(s.Machines) == 0 || len(s.Allocators) == 0 {
		return nil, errors.New("sweep file: traces, machines and allocators are required (lists with at least one entry)")
	}
	if len(s.Schedulers) == 0 {
		s.Schedulers = []sim.Sched{sim.SchedFCFS}
	}
	if len(s.Contract) == 0 {
		s.Contract = []float64{1}
	}
	if len(s.Patterns) == 0 {
		s.Patterns = []string{"none"}
	}
	if len(s.Seeds) == 0 {
		s.Seeds = []uint64{1}
	}
	if len(s.Engines) == 0 {
		s.Engines = []sim.Engine{sim.EngineMessage}
	}
	for i, e := range s.Engines {
		if j := slices.Index(s.Engines, e); j != i {
			return nil, fmt.Errorf("sweep file: engines: %q is listed twice (entries %d and %d): each value once, else two items are the same replay", e.String(), j+1, i+1)
		}
	}
	if slices.Contains(s.Engines, sim.EngineFlit) && slices.Contains(s.Patterns, "none") {
		return nil, errors.New("sweep file: engines: flit runs the messages of a pattern; patterns lists none (a replay without communication has no network engine)")
	}
	// Names, list entries and flags end up on command lines, in --list's
	// tab-separated lines and in sbatch scripts: a newline there would start a new
	// line (in a script, a new command).
	if err := printable("name", s.Name); err != nil {
		return nil, err
	}
	// Before the checks of single entries, which would name its pieces.
	if err := errors.Join(append(flowSplit("machines", s.Machines), flowSplit("allocators", s.Allocators)...)...); err != nil {
		return nil, err
	}
	for _, l := range []struct {
		key  string
		list []string
	}{{"traces", s.Traces}, {"machines", s.Machines}, {"allocators", s.Allocators}, {"schedulers", schedNames(s.Schedulers)}, {"patterns", s.Patterns}, {"flags", s.Flags}} {
		for i, v := range l.list {
			if err := printable(fmt.Sprintf("%s entry %d", l.key, i+1), v); err != nil {
				return nil, err
			}
			if l.key == "flags" {
				continue
			}
			if strings.TrimSpace(v) == "" {
				return nil, fmt.Errorf("sweep file: %s: entry %d is empty", l.key, i+1)
			}
			if j := slices.Index(l.list, v); j != i {
				return nil, fmt.Errorf("sweep file: %s: %q is listed twice (entries %d and %d): each value once, else two items are the same replay", l.key, textin.Clip(v), j+1, i+1)
			}
		}
	}
	// A pattern's other spellings (nbody for n-body) are the same replay too.
	canon := make([]string, len(s.Patterns))
	for i, p := range s.Patterns {
		canon[i] = p
		if pat, err := netsim.ParsePattern(p); err == nil {
			canon[i] = pat.Name()
		}
		if j := slices.Index(canon[:i], canon[i]); j >= 0 {
			return nil, fmt.Errorf("sweep file: patterns: %q and %q are one pattern, %s (entries %d and %d): each once, else two items are the same replay", textin.Clip(s.Patterns[j]), textin.Clip(p), canon[i], j+1, i+1)
		}
	}
	if err := checkKeyFlags(s.Flags); err != nil {
		return nil, err
	}
	for i, c := range s.Contract {
		if !(c > 0) || c > 1e6 {
			return nil, fmt.Errorf("sweep file: load factor %v: must be in (0, 1e6]", c)
		}
		if j := slices.Index(s.Contract, c); j != i {
			return nil, fmt.Errorf("sweep file: contract: %s is listed twice (entries %d and %d%s): each value once, else two items are the same replay",
				strconv.FormatFloat(c, 'g', -1, 64), j+1, i+1, asWritten(nodes["contract"], j, i))
		}
	}
	for i, v := range s.Seeds {
		if j := slices.Index(s.Seeds, v); j != i {
			return nil, fmt.Errorf("sweep file: seeds: %d is listed twice (entries %d and %d%s): each value once, else two items are the same replay",
				v, j+1, i+1, asWritten(nodes["seeds"], j, i))
		}
	}
	if _, err := s.Count(); err != nil {
		return nil, fmt.Errorf("sweep file: %w", err)
	}
	if err := checkChoices("schedulers", func(v string) error {
		_, err := sim.ParseSched(v)
		return err
	}); err != nil {
		return nil, err
	}
	if err := checkChoices("patterns", func(v string) error {
		if v == "none" {
			return nil
		}
		_, err := netsim.ParsePattern(v)
		return err
	}); err != nil {
		return nil, err
	}
	return &s, nil
}

// Check finds what would make every item of a machine or an allocator fail, before
// the first item runs: a machine spec ParseMachine refuses (checked without
// building the machine), an allocator of no known family, flags ApplyFlags
// refuses whatever the item's engine (an unknown flag, a value that does not
// parse, a value outside a closed set such as --compat's), an allocator that does not apply to a machine (checkPairs) and seeds no
// item uses (checkSeeds). A sweep's items fail one at a time otherwise, each
// recorded as failed: a typo cost a whole Slurm array. What depends on files (a
// trace, a ranking, --graph) or on the item (a flit engine flag where some items
// run the message engine) is left to the items. Values the flags set that the
// replay's spec refuses (sim.Spec.Validate: --perturb -5) are refused when no item
// would run (checkFlagValues).
func (s *Spec) Check() error {
	var errs []error
	if len(s.Flags) > 0 {
		engines := s.Engines
		if len(engines) == 0 {
			engines = []sim.Engine{sim.EngineMessage}
		}
		var first error
		for _, eng := range engines {
			sp := Params{Engine: eng}.Spec("")
			err := ApplyFlags(&sp, s.Flags)
			if err == nil {
				first = nil
				break
			}
			if first == nil {
				first = err
			}
		}
		if first != nil {
			errs = append(errs, fmt.Errorf("sweep file: every item would fail: %w", first))
		} else if err := s.checkFlagValues(); err != nil {
			errs = append(errs, err)
		}
	}
	for i, m := range s.Machines {
		if err := topo.CheckMachineSpec(m); err != nil {
			errs = append(errs, fmt.Errorf("sweep file: machines: entry %d: %w", i+1, err))
		}
	}
	for i, a := range s.Allocators {
		if err := alloc.CheckFamily(a); err != nil {
			errs = append(errs, fmt.Errorf("sweep file: allocators: entry %d %q: %w", i+1, textin.Clip(a), err))
		}
	}
	errs = append(errs, s.checkPairs(), s.checkSeeds())
	return errors.Join(errs...)
}

// checkFlagValues refuses flags whose values every item's replay refuses
// (sim.Spec.Validate: --perturb -5; --from with schedulers [as-run] only), with the
// first item's errors named by flag. An item whose replay validates ends the search:
// the items fail one by one only when none would run.
func (s *Spec) checkFlagValues() error {
	var first error
	for _, it := range s.Items() {
		_, err := it.Params.Replay("")
		if err == nil {
			return nil
		}
		if first == nil {
			first = err
		}
	}
	if first == nil {
		return nil
	}
	var msgs []string
	for _, e := range joined(first) {
		var fe *sim.FieldError
		if !errors.As(e, &fe) {
			msgs = append(msgs, e.Error())
			continue
		}
		msgs = append(msgs, fe.Named(FieldFlag))
	}
	return fmt.Errorf("sweep file: every item would fail: flags: %s", strings.Join(msgs, "; "))
}

// joined is the errors errors.Join put together in err, or err alone.
func joined(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// flowSplit finds the specs of a machines or allocators list that YAML's flow
// list ([a, b]) split at their commas: an entry that starts like a number continues
// the one before it (alloc.ContinuesSpec, the rule of the command line's --alloc
// lists). Each split spec is one error that shows it quoted.
func flowSplit(key string, list []string) []error {
	continues := alloc.ContinuesSpec
	var errs []error
	for i := 1; i < len(list); i++ {
		if !continues(list[i]) || continues(list[i-1]) {
			continue
		}
		first, last := i-1, i
		for last+1 < len(list) && continues(list[last+1]) {
			last++
		}
		errs = append(errs, fmt.Errorf("sweep file: %s: entries %d-%d are one spec that the list split at its commas (YAML reads [a,b] as two entries): quote it, [%q]",
			key, first+1, last+1, strings.Join(list[first:last+1], ",")))
		i = last
	}
	return errs
}

// keyFlags are the sim flags that the keys of a sweep file set for each item
// (Params.Spec), with the key.
var keyFlags = []struct{ flag, key string }{
	{"trace", "traces"}, {"machine", "machines"}, {"alloc", "allocators"}, {"sched", "schedulers"},
	{"contract", "contract"}, {"comm", "patterns"}, {"seed", "seeds"}, {"comm-seed", "seeds"}, {"engine", "engines"},
}

// checkKeyFlags refuses flags that set what a key sets: the replay would take the
// flag's value while the item's parameters (its results line, --list, merge's CSV,
// plot's series) name the key's entry. --machine may be given empty, beside
// --graph: a sweep over a network file (the machines entry is then a placeholder).
// Flags ApplyFlags refuses are left to Check, which names them.
func checkKeyFlags(flags []string) error {
	if len(flags) == 0 {
		return nil
	}
	sp := Params{Engine: sim.EngineFlit}.Spec("")
	st, _ := applyFlags(&sp, flags)
	for _, kf := range keyFlags {
		if st.given[kf.flag] && (kf.flag != "machine" || sp.MachineSpec != "") {
			return fmt.Errorf("sweep file: flags: --%s sets what %s: sets for each item; the results would still name the %s entry: list the values under %s: instead", kf.flag, kf.key, kf.key, kf.key)
		}
	}
	return nil
}

// CheckFiles finds, before any item runs, the files the items name that cannot
// be opened or are directories (a typo in traces:, a --hosts file that is not
// where the sweep file is): each item would fail on it, one at a time. It looks at
// the traces, the files the flags name (--graph, --node-name-map, --hosts, a
// ranking file as --span-curve) and those of the allocators (a ranking file, a
// topology.conf), relative names taken from the sweep file's directory as the
// replays take them. Check leaves files out, since a script for a cluster
// (--sbatch) may be written where they are not; the run looks at the files of its
// own items (its shard's).
func (s *Spec) CheckFiles(items []Item) error {
	seen := map[string]bool{}
	var errs []error
	check := func(what, name, kind string) {
		if seen[what+"\x00"+name] || name == "-" {
			return
		}
		seen[what+"\x00"+name] = true
		if st, err := os.Stat(inDir(s.Dir, name)); err != nil {
			errs = append(errs, fmt.Errorf("sweep file: %s %q: %w%s", what, textin.Clip(name), err, s.relativeHint(name, err)))
		} else if st.IsDir() {
			errs = append(errs, fmt.Errorf("sweep file: %s %q: a directory, not a %s", what, textin.Clip(name), kind))
		}
	}
	for _, it := range items {
		check(fmt.Sprintf("traces: entry %d", slices.Index(s.Traces, it.Params.Trace)+1), it.Params.Trace, "trace file")
		alloc.MapSpecFiles(it.Params.Alloc, func(name string) string {
			check(fmt.Sprintf("allocators: entry %d %q: file", slices.Index(s.Allocators, it.Params.Alloc)+1, textin.Clip(it.Params.Alloc)), name, "file")
			return name
		})
		for _, f := range flagFiles(it.Params.Flags) {
			check("flags: "+f.flag, f.name, "file")
		}
	}
	return errors.Join(errs...)
}

// relativeHint says, for a relative name that is not where the sweep file's
// directory puts it but is there from the current directory, how to write it
// (the user wrote it as on sim's command line); "" otherwise.
func (s *Spec) relativeHint(name string, err error) string {
	if !errors.Is(err, fs.ErrNotExist) || s.Dir == "" || filepath.IsAbs(name) {
		return ""
	}
	if _, err := os.Stat(name); err != nil {
		return ""
	}
	abs, err1 := filepath.Abs(name)
	dir, err2 := filepath.Abs(s.Dir)
	if err1 != nil || err2 != nil {
		return ""
	}
	rel, err := filepath.Rel(dir, abs)
	if err != nil {
		return ""
	}
	return fmt.Sprintf(" (names in a sweep file are relative to its directory %s; %q is there from the current directory: write %q or an absolute name)", dir, name, rel)
}

// asWritten quotes entries i and j of a list node as the file writes them when they
// differ (1 and 1.0), for the message about a value listed twice.
func asWritten(n *yaml.Node, i, j int) string {
	if n == nil || i >= len(n.Content) || j >= len(n.Content) || n.Content[i].Value == n.Content[j].Value {
		return ""
	}
	return fmt.Sprintf(", written %s and %s", n.Content[i].Value, n.Content[j].Value)
}

// printable refuses control characters (a newline, a tab, an escape) in a value.
func printable(field, v string) error {
	for _, r := range v {
		if unicode.IsControl(r) {
			return fmt.Errorf("sweep file: %s %q: control character %U not allowed (one line of printable text)", field, textin.Clip(v), r)
		}
	}
	if !utf8.ValidString(v) {
		return fmt.Errorf("sweep file: %s %q: not valid UTF-8", field, textin.Clip(v))
	}
	return nil
}

// Count is the number of items of the sweep, the product of its lists' lengths,
// computed without overflow; it is an error above MaxItems, naming the lists.
func (s *Spec) Count() (int, error) {
	lens := []int{len(s.Traces), len(s.Machines), len(s.Schedulers), len(s.Contract), len(s.Patterns), len(s.Seeds), len(s.Allocators), max(1, len(s.Engines))}
	n := 1
	for _, l := range lens {
		if l == 0 {
			return 0, nil
		}
		if n > MaxItems/l {
			engines := ""
			if lens[7] > 1 {
				engines = fmt.Sprintf(" x %d engines", lens[7])
			}
			return 0, fmt.Errorf("%d traces x %d machines x %d schedulers x %d load factors x %d patterns x %d seeds x %d allocators%s is more than %d items, the most a sweep may have: split it into several sweep files",
				lens[0], lens[1], lens[2], lens[3], lens[4], lens[5], lens[6], engines, MaxItems)
		}
		n *= l
	}
	return n, nil
}

// Read reads a sweep file of at most MaxSpecBytes from r; name is its path ("-" for
// standard input), for messages and the default name. Relative trace paths are
// taken from Dir, which the caller sets.
func Read(r io.Reader, name string) (*Spec, error) {
	data, err := io.ReadAll(io.LimitReader(textin.Decompress(r), MaxSpecBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(data) > MaxSpecBytes {
		return nil, fmt.Errorf("%s: larger than %d MiB, the most a sweep file may be", name, MaxSpecBytes>>20)
	}
	s, err := Parse(data, name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return s, nil
}

// ReadFile reads a sweep file; relative file names in it are read from its directory.
func ReadFile(path string) (*Spec, error) {
	f, err := textin.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	s, err := Read(f, path)
	if err != nil {
		return nil, err
	}
	s.Dir = filepath.Dir(path)
	return s, nil
}

// Params are one item's parameters.
type Params struct {
	Trace    string    `json:"trace"`    // one of Spec.Traces, as written
	Machine  string    `json:"machine"`  // one of Spec.Machines (topo.ParseMachine)
	Alloc    string    `json:"alloc"`    // one of Spec.Allocators (alloc.Parse)
	Sched    sim.Sched `json:"sched"`    // one of Spec.Schedulers
	Contract float64   `json:"contract"` // one of Spec.Contract: the load factor
	Pattern  string    `json:"pattern"`  // one of Spec.Patterns; "none": no communication
	Seed     uint64    `json:"seed"`     // one of Spec.Seeds: sim --seed and --comm-seed
	// Engine is "flit" for the flit engine; "" (left out of the key, so that the
	// keys of sweeps written before engines existed stay valid) is the message engine.
	Engine sim.Engine `json:"engine,omitempty"`
	Flags  []string   `json:"flags,omitempty"` // Spec.Flags, the same for every item
}

// Item is one replay of the sweep.
type Item struct {
	Index  int    `json:"index"`  // position in Items' order, from 0
	Key    string `json:"key"`    // hash of Params
	Params Params `json:"params"` // what the item replays
}

// Items expands the sweep in its fixed order: traces, then machines, schedulers,
// load factors, patterns, seeds, engines, and allocators innermost, so that the allocators
// compared on one configuration are neighbours (and land in different shards).
//
// The spec must be one Parse accepted (at most MaxItems items); a Spec built by
// hand should be checked with Count first.
func (s *Spec) Items() []Item {
	n, err := s.Count()
	if err != nil {
		return nil
	}
	out := make([]Item, 0, n)
	engines := s.Engines
	if len(engines) == 0 {
		engines = []sim.Engine{sim.EngineMessage}
	}
	for _, t := range s.Traces {
		for _, m := range s.Machines {
			for _, sc := range s.Schedulers {
				for _, c := range s.Contract {
					for _, p := range s.Patterns {
						for _, seed := range s.Seeds {
							for _, eng := range engines {
								for _, a := range s.Allocators {
									pr := Params{Trace: t, Machine: m, Alloc: a, Sched: sc, Contract: c, Pattern: p, Seed: seed, Engine: eng, Flags: s.Flags}
									out = append(out, Item{Index: len(out), Key: pr.Key(), Params: pr})
								}
							}
						}
					}
				}
			}
		}
	}
	return out
}

// ID identifies the sweep's grid: the first 16 hex digits of the SHA-256 of its
// name and its items' keys in order. Results lines carry it (Line.SweepID), so
// that a merge without the spec refuses shards of two sweeps of one name.
func (s *Spec) ID() string {
	h := sha256.New()
	h.Write([]byte(s.Name))
	for _, it := range s.Items() {
		h.Write([]byte{0})
		h.Write([]byte(it.Key))
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// Key is the first 16 hex digits of the SHA-256 of the parameters' JSON.
func (p Params) Key() string {
	b, _ := json.Marshal(p)
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:8])
}

// Args are the item's parameters as the sim command's flags (what --list and
// merge print), run from the working directory: the relative file names of the
// trace, the allocator and the flags are taken from dir, as the item's replay
// reads them (Spec: sim.Spec.Dir).
func (p Params) Args(dir string) []string {
	in := func(name string) string { return inDir(dir, name) }
	args := []string{"--trace", p.tracePath(dir), "--machine", p.Machine, "--alloc", alloc.MapSpecFiles(p.Alloc, in), "--sched", string(p.Sched),
		"--contract", strconv.FormatFloat(p.Contract, 'g', -1, 64),
		"--seed", strconv.FormatUint(p.Seed, 10), "--comm-seed", strconv.FormatUint(p.Seed, 10)}
	if p.Pattern != "none" {
		args = append(args, "--comm", p.Pattern)
	}
	if p.Engine != sim.EngineMessage {
		args = append(args, "--engine", p.Engine.String())
	}
	return append(args, flagFilesIn(p.Flags, dir)...)
}

// Spec is the replay of the item: its trace (relative file names, the trace's
// and those of the allocator and the flags, are read from dir: sim.Spec.Dir),
// machine, allocator, scheduler, load factor (arrival contraction), seed (of the
// replicas and of the communication pattern) and communication pattern ("none":
// without communication), on sim.DefaultSpec, before its flags: Replay applies
// them.
func (p Params) Spec(dir string) sim.Spec {
	s := sim.DefaultSpec()
	s.Trace, s.Dir = p.Trace, dir
	s.MachineSpec = p.Machine
	s.Alloc = p.Alloc
	s.Sched = p.Sched
	s.Scale.Contract = p.Contract
	s.Scale.Seed, s.CommSeed = p.Seed, p.Seed
	if p.Pattern != "none" {
		s.Comm = p.Pattern
	}
	s.Engine = p.Engine
	return s
}

func (p Params) tracePath(dir string) string {
	return inDir(dir, p.Trace)
}

// inDir is the path a replay with Dir dir reads the file name from.
func inDir(dir, name string) string {
	s := sim.Spec{Dir: dir}
	return s.Path(name)
}

func schedNames(s []sim.Sched) []string {
	out := make([]string, len(s))
	for i, v := range s {
		out[i] = string(v)
	}
	return out
}

// Shard returns the items of shard i of n: those with index mod n = i.
func Shard(items []Item, i, n int) ([]Item, error) {
	if n < 1 || i < 0 || i >= n {
		return nil, fmt.Errorf("shard %d/%d: want 0 <= i < n", i, n)
	}
	var out []Item
	for _, it := range items {
		if it.Index%n == i {
			out = append(out, it)
		}
	}
	return out, nil
}

// capTypeErrors is err with at most MaxTypeErrors of a *yaml.TypeError's lines, the
// rest counted.
func capTypeErrors(err error) error {
	var te *yaml.TypeError
	if !errors.As(err, &te) || len(te.Errors) <= MaxTypeErrors {
		return err
	}
	kept := append(te.Errors[:MaxTypeErrors:MaxTypeErrors], fmt.Sprintf("%d more errors not listed", len(te.Errors)-MaxTypeErrors))
	return &yaml.TypeError{Errors: kept}
}
