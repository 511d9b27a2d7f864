// Package sweep expands a sweep file (lists of traces, machines, allocators,
// schedulers, load factors, communication patterns and seeds) into replay items in
// a fixed order, names each by a hash of its parameters, and keeps results as JSON
// lines that survive being killed: each finished item is appended whole, a rerun
// skips what is done, a torn last line is detected and its item redone. Items split
// into shards by index (i mod n), the way Slurm job arrays run them; merging the
// shards' files gives exactly the file of a single run.
//
// Replay grids of this kind are the experiments of Bunde, Leung and Mache,
// "Communication patterns and allocation strategies" (2004), §4 (2 meshes x 3
// patterns x 5 load factors x 12 allocators) and of Johnson et al. 2010's
// tie-breaking search.
package sweep

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Spec is a sweep file. Every key but Name and Flags is a list; the sweep is their
// product. Keys left out take one default value (noted).
type Spec struct {
	// Name identifies the sweep in its results files (default: the file's base name
	// without extension); results of another sweep are refused.
	Name       string    `yaml:"name" json:"name"`
	Traces     []string  `yaml:"traces" json:"traces"`         // required
	Machines   []string  `yaml:"machines" json:"machines"`     // required
	Allocators []string  `yaml:"allocators" json:"allocators"` // required
	Schedulers []string  `yaml:"schedulers" json:"schedulers"` // default [fcfs]
	Contract   []float64 `yaml:"contract" json:"contract"`     // load factors, default [1]
	// Patterns are communication patterns (sim --comm); "none" replays without
	// communication. Default [none].
	Patterns []string `yaml:"patterns" json:"patterns"`
	Seeds    []uint64 `yaml:"seeds" json:"seeds"` // sim --seed and --comm-seed, default [1]
	// Flags are further sim flags given to every item, e.g. ["--from", "1996-10-01",
	// "--drop-larger"].
	Flags []string `yaml:"flags" json:"flags"`
	// Dir is the directory relative trace paths are read from (the sweep file's).
	Dir string `yaml:"-" json:"-"`
}

// keys lists the keys a sweep file may have, for the unknown-key message.
var keys = []string{"name", "traces", "machines", "allocators", "schedulers", "contract", "patterns", "seeds", "flags"}

// Parse reads a sweep file (YAML, or JSON, which is YAML too). An unknown key is an
// error naming it and its line.
func Parse(data []byte, name string) (*Spec, error) {
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
	for i := 0; i < len(doc.Content); i += 2 {
		k := doc.Content[i]
		if !slices.Contains(keys, k.Value) {
			return nil, fmt.Errorf("sweep file: line %d: unknown key %q (valid: %s)", k.Line, k.Value, strings.Join(keys, ", "))
		}
		v := doc.Content[i+1]
		if k.Value != "name" && v.Kind != yaml.SequenceNode {
			return nil, fmt.Errorf("sweep file: line %d: %s must be a list, e.g. %s: [a, b]", v.Line, k.Value, k.Value)
		}
	}
	var s Spec
	if err := doc.Decode(&s); err != nil {
		return nil, fmt.Errorf("sweep file: %w", err)
	}
	if s.Name == "" {
		s.Name = strings.TrimSuffix(filepath.Base(name), filepath.Ext(name))
	}
	if len(s.Traces) == 0 || len(s.Machines) == 0 || len(s.Allocators) == 0 {
		return nil, errors.New("sweep file: traces, machines and allocators are required (lists with at least one entry)")
	}
	if len(s.Schedulers) == 0 {
		s.Schedulers = []string{"fcfs"}
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
	for _, l := range [][]string{s.Traces, s.Machines, s.Allocators, s.Schedulers, s.Patterns} {
		for i, v := range l {
			if strings.TrimSpace(v) == "" {
				return nil, fmt.Errorf("sweep file: entry %d of a list is empty", i+1)
			}
			if slices.Index(l, v) != i {
				return nil, fmt.Errorf("sweep file: %q is listed twice", v)
			}
		}
	}
	for _, c := range s.Contract {
		if !(c > 0) || c > 1e6 {
			return nil, fmt.Errorf("sweep file: load factor %v: must be in (0, 1e6]", c)
		}
	}
	return &s, nil
}

// ReadFile reads a sweep file; relative trace paths are taken from its directory.
func ReadFile(path string) (*Spec, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	s, err := Parse(data, path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	s.Dir = filepath.Dir(path)
	return s, nil
}

// Params are one item's parameters.
type Params struct {
	Trace    string   `json:"trace"`
	Machine  string   `json:"machine"`
	Alloc    string   `json:"alloc"`
	Sched    string   `json:"sched"`
	Contract float64  `json:"contract"`
	Pattern  string   `json:"pattern"`
	Seed     uint64   `json:"seed"`
	Flags    []string `json:"flags,omitempty"`
}

// Item is one replay of the sweep.
type Item struct {
	Index  int    `json:"index"`
	Key    string `json:"key"` // hash of Params
	Params Params `json:"params"`
}

// Items expands the sweep in its fixed order: traces, then machines, schedulers,
// load factors, patterns, seeds, and allocators innermost, so that the allocators
// compared on one configuration are neighbours (and land in different shards).
func (s *Spec) Items() []Item {
	var out []Item
	for _, t := range s.Traces {
		for _, m := range s.Machines {
			for _, sc := range s.Schedulers {
				for _, c := range s.Contract {
					for _, p := range s.Patterns {
						for _, seed := range s.Seeds {
							for _, a := range s.Allocators {
								pr := Params{Trace: t, Machine: m, Alloc: a, Sched: sc, Contract: c, Pattern: p, Seed: seed, Flags: s.Flags}
								out = append(out, Item{Index: len(out), Key: pr.Key(), Params: pr})
							}
						}
					}
				}
			}
		}
	}
	return out
}

// Key is the first 16 hex digits of the SHA-256 of the parameters' JSON.
func (p Params) Key() string {
	b, _ := json.Marshal(p)
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:8])
}

// Args are the sim command's arguments for the item; trace paths are resolved
// against dir.
func (p Params) Args(dir string) []string {
	trace := p.Trace
	if !filepath.IsAbs(trace) && trace != "-" && dir != "" {
		trace = filepath.Join(dir, trace)
	}
	args := []string{"--trace", trace, "--machine", p.Machine, "--alloc", p.Alloc, "--sched", p.Sched,
		"--contract", strconv.FormatFloat(p.Contract, 'g', -1, 64),
		"--seed", strconv.FormatUint(p.Seed, 10), "--comm-seed", strconv.FormatUint(p.Seed, 10)}
	if p.Pattern != "none" {
		args = append(args, "--comm", p.Pattern)
	}
	return append(args, p.Flags...)
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

// Line is one line of a results file.
type Line struct {
	Sweep  string          `json:"sweep"`
	Item                   // index, key, params
	Status string          `json:"status"` // "ok" or "failed"
	Error  string          `json:"error,omitempty"`
	Result json.RawMessage `json:"result,omitempty"` // the replay's JSON (sim --json)
	// Seconds is the item's wall-clock time; merged files leave it out, so that they
	// do not depend on the machine or the run.
	Seconds float64 `json:"seconds,omitempty"`
}

// Results is a results file open for appending.
type Results struct {
	f    *os.File
	Done map[string]Line // finished items by key (ok ones; failed ones are redone)
}

// ErrOtherSweep is wrapped when a results file holds lines of another sweep.
var ErrOtherSweep = errors.New("results of another sweep")

// OpenResults opens (or creates) a results file for sweep name: it reads the lines
// already there, cuts off a torn last line (a write that was interrupted) so that its
// item is redone, and refuses a file of another sweep.
func OpenResults(path, name string) (*Results, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o666)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		f.Close()
		return nil, err
	}
	r := &Results{f: f, Done: map[string]Line{}}
	good := 0
	for off := 0; off < len(data); {
		nl := bytes.IndexByte(data[off:], '\n')
		if nl < 0 {
			break // torn: no newline
		}
		var l Line
		if err := json.Unmarshal(data[off:off+nl], &l); err != nil || l.Key == "" {
			if off+nl+1 == len(data) {
				break // torn last line
			}
			f.Close()
			return nil, fmt.Errorf("%s: line %d is not a results line: %v", path, bytes.Count(data[:off], []byte("\n"))+1, err)
		}
		if l.Sweep != name {
			f.Close()
			return nil, fmt.Errorf("%s holds results of sweep %q, not %q: %w", path, l.Sweep, name, ErrOtherSweep)
		}
		if l.Status == "ok" {
			r.Done[l.Key] = l
		}
		off += nl + 1
		good = off
	}
	if good < len(data) {
		if err := f.Truncate(int64(good)); err != nil {
			f.Close()
			return nil, err
		}
	}
	if _, err := f.Seek(0, 2); err != nil {
		f.Close()
		return nil, err
	}
	return r, nil
}

// Append writes one line whole (one write call) and flushes it to disk.
func (r *Results) Append(l Line) error {
	b, err := json.Marshal(l)
	if err != nil {
		return err
	}
	if _, err := r.f.Write(append(b, '\n')); err != nil {
		return err
	}
	if l.Status == "ok" {
		r.Done[l.Key] = l
	}
	return r.f.Sync()
}

// Close closes the file.
func (r *Results) Close() error { return r.f.Close() }

// MergeReport says what a merge found.
type MergeReport struct {
	Lines []Line // one per item, by index
	// Missing are the items of the spec with no line; without a spec, the indices
	// below the highest one present that have no line (Key and Params then empty:
	// items after the highest cannot be known without the spec).
	Missing []Item
	Failed  []Line // items whose only lines are failures
	Extra   int    // lines of items the spec no longer has (left out)
}

// Merge reads results files and keeps one line per item (an ok line over failed ones),
// sorted by index, without timings. With spec, it also lists the spec's items that
// have no line. All files must be of one sweep.
func Merge(paths []string, spec *Spec) (*MergeReport, error) {
	best := map[string]Line{}
	sweepName := ""
	if spec != nil {
		sweepName = spec.Name
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		for i, raw := range bytes.Split(data, []byte("\n")) {
			if len(bytes.TrimSpace(raw)) == 0 {
				continue
			}
			var l Line
			if err := json.Unmarshal(raw, &l); err != nil || l.Key == "" {
				return nil, fmt.Errorf("%s: line %d is not a results line (torn? rerun its shard to redo it)", p, i+1)
			}
			if sweepName == "" {
				sweepName = l.Sweep
			}
			if l.Sweep != sweepName {
				return nil, fmt.Errorf("%s: line %d is of sweep %q, not %q: %w", p, i+1, l.Sweep, sweepName, ErrOtherSweep)
			}
			l.Seconds = 0
			if old, ok := best[l.Key]; !ok || (old.Status != "ok" && l.Status == "ok") {
				best[l.Key] = l
			}
		}
	}
	rep := &MergeReport{}
	if spec != nil {
		// Number the lines as the spec does now (an edited sweep file may have moved
		// items) and leave out those of items it no longer has.
		index := map[string]int{}
		for _, it := range spec.Items() {
			index[it.Key] = it.Index
		}
		for k, l := range best {
			j, ok := index[k]
			if !ok {
				rep.Extra++
				delete(best, k)
				continue
			}
			l.Index = j
			best[k] = l
		}
	}
	for _, l := range best {
		rep.Lines = append(rep.Lines, l)
		if l.Status != "ok" {
			rep.Failed = append(rep.Failed, l)
		}
	}
	slices.SortFunc(rep.Lines, func(a, b Line) int { return a.Index - b.Index })
	slices.SortFunc(rep.Failed, func(a, b Line) int { return a.Index - b.Index })
	if spec != nil {
		for _, it := range spec.Items() {
			if _, ok := best[it.Key]; !ok {
				rep.Missing = append(rep.Missing, it)
			}
		}
	} else if len(rep.Lines) > 0 {
		// The shards of one sweep together hold every index from 0 up: a gap is a
		// missing item (a shard not merged, or not finished).
		next := 0
		for _, l := range rep.Lines {
			for ; next < l.Index; next++ {
				rep.Missing = append(rep.Missing, Item{Index: next})
			}
			next = max(next, l.Index+1)
		}
	}
	return rep, nil
}
