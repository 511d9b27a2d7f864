package sweep

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/sim"
)

const spec = `
name: t
traces: [a.txt, b.txt]
machines: [mesh:4x4, mesh:8x8]
allocators: [bf:hilbert, mc1x1, genalg]
contract: [1, 0.5]
patterns: [none, n-body]
`

func TestParseDefaultsAndOrder(t *testing.T) {
	s, err := Parse([]byte(spec), "x.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "t" || !slices.Equal(s.Schedulers, []sim.Sched{sim.SchedFCFS}) || !slices.Equal(s.Seeds, []uint64{1}) {
		t.Fatalf("defaults: %+v", s)
	}
	items := s.Items()
	if len(items) != 2*2*3*2*2 {
		t.Fatalf("%d items", len(items))
	}
	// allocators innermost, traces outermost
	if items[0].Params.Alloc != "bf:hilbert" || items[1].Params.Alloc != "mc1x1" || items[0].Params.Trace != "a.txt" || items[len(items)-1].Params.Trace != "b.txt" {
		t.Fatalf("order: %+v ... %+v", items[0].Params, items[len(items)-1].Params)
	}
	keys := map[string]bool{}
	for i, it := range items {
		if it.Index != i || keys[it.Key] || len(it.Key) != 16 {
			t.Fatalf("item %d: index %d key %q (dup %v)", i, it.Index, it.Key, keys[it.Key])
		}
		keys[it.Key] = true
	}
	// JSON is YAML too, and gives the same items
	js := `{"name":"t","traces":["a.txt","b.txt"],"machines":["mesh:4x4","mesh:8x8"],"allocators":["bf:hilbert","mc1x1","genalg"],"contract":[1,0.5],"patterns":["none","n-body"]}`
	s2, err := Parse([]byte(js), "x.json")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.EqualFunc(items, s2.Items(), func(a, b Item) bool { return a.Key == b.Key && a.Index == b.Index }) {
		t.Fatal("JSON and YAML sweeps differ")
	}
	// the name defaults to the file's
	s3, _ := Parse([]byte("traces: [a]\nmachines: [m]\nallocators: [x]\n"), "dir/grid.yaml")
	if s3.Name != "grid" {
		t.Fatalf("name %q", s3.Name)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"traces: [a]\nmachines: [m]\nallocator: [x]\n", `line 3: unknown key "allocator"`},
		{"traces: a\nmachines: [m]\nallocators: [x]\n", "traces must be a list"},
		{"traces: [a]\nmachines: [m]\n", "required"},
		{"traces: [a]\nmachines: [m, m]\nallocators: [x]\n", "listed twice"},
		{"traces: [a]\nmachines: [m]\nallocators: [x]\ncontract: [0]\n", "load factor 0"},
		{"- a\n- b\n", "want a mapping"},
		{"", "empty"},
	} {
		if _, err := Parse([]byte(tc.in), "s.yaml"); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err = %v, want %q", tc.in, err, tc.want)
		}
	}
}

func TestShardsPartitionTheItems(t *testing.T) {
	s, _ := Parse([]byte(spec), "x")
	items := s.Items()
	for n := 1; n <= 7; n++ {
		seen := map[int]int{}
		for i := range n {
			sh, err := Shard(items, i, n)
			if err != nil {
				t.Fatal(err)
			}
			for _, it := range sh {
				seen[it.Index]++
				if it.Index%n != i {
					t.Fatalf("item %d in shard %d/%d", it.Index, i, n)
				}
			}
		}
		if len(seen) != len(items) {
			t.Fatalf("n=%d: %d of %d items", n, len(seen), len(items))
		}
	}
	if _, err := Shard(items, 4, 4); err == nil {
		t.Fatal("shard 4/4 accepted")
	}
}

// A results file this run created and could not write a line to (a full disk) is
// removed on Close, as an -o file is: "procalloc sweep -o FULL/r.jsonl" left an
// empty r.jsonl. A file that was there before is kept, empty or not.
func TestResultsFailedFirstWriteLeavesNothing(t *testing.T) {
	s, _ := Parse([]byte(spec), "x")
	it := s.Items()[0]
	for _, existed := range []bool{false, true} {
		path := filepath.Join(t.TempDir(), "r.jsonl")
		if existed {
			os.WriteFile(path, nil, 0o644)
		}
		r, err := OpenResults(path, "t")
		if err != nil {
			t.Fatal(err)
		}
		r.f.Close() // the injected failure: every write fails
		if err := r.Append(Line{Sweep: "t", Item: it, Status: "ok", Result: []byte(`{"x":1}`)}); err == nil {
			t.Fatal("a write to a closed file succeeded")
		}
		r.Close()
		if _, err := os.Stat(path); existed != (err == nil) {
			t.Fatalf("existed before %v: after the failed write Stat says %v", existed, err)
		}
	}
	// Created, one line written, then a failure: the line stays.
	path := filepath.Join(t.TempDir(), "r.jsonl")
	r, err := OpenResults(path, "t")
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Append(Line{Sweep: "t", Item: it, Status: "ok", Result: []byte(`{"x":1}`)}); err != nil {
		t.Fatal(err)
	}
	r.f.Close()
	r.Append(Line{Sweep: "t", Item: s.Items()[1], Status: "ok", Result: []byte(`{"x":1}`)})
	r.Close()
	if r, err := OpenResults(path, "t"); err != nil || len(r.Done) != 1 {
		t.Fatalf("the line written before the failure: %v", err)
	} else {
		r.Close()
	}
}

func TestResultsResumeAndTornLine(t *testing.T) {
	s, _ := Parse([]byte(spec), "x")
	items := s.Items()
	path := filepath.Join(t.TempDir(), "r.jsonl")
	r, err := OpenResults(path, "t")
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range items[:3] {
		if err := r.Append(Line{Sweep: "t", Item: it, Status: "ok", Result: []byte(`{"x":1}`)}); err != nil {
			t.Fatal(err)
		}
	}
	r.Append(Line{Sweep: "t", Item: items[3], Status: "failed", Error: "boom"})
	r.Close()
	// a write cut short by a kill
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"sweep":"t","index":4,"key":"`)
	f.Close()
	r, err = OpenResults(path, "t")
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Done) != 3 {
		t.Fatalf("%d done, want 3 (the failed one and the torn one are redone)", len(r.Done))
	}
	r.Close()
	data, _ := os.ReadFile(path)
	if strings.Count(string(data), "\n") != 4 || !strings.HasSuffix(string(data), "\n") {
		t.Fatalf("torn line not cut off: %q", data)
	}
	if _, err := OpenResults(path, "other"); !errors.Is(err, ErrOtherSweep) {
		t.Fatalf("other sweep: err = %v", err)
	}
	// merge: the ok lines, the failed one reported, the rest missing
	rep, err := Merge([]string{path}, s)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Lines) != 4 || len(rep.Failed) != 1 || len(rep.Missing) != len(items)-4 {
		t.Fatalf("merge: %d lines, %d failed, %d missing", len(rep.Lines), len(rep.Failed), len(rep.Missing))
	}
}

func TestArgs(t *testing.T) {
	p := Params{Trace: "t.swf", Machine: "mesh:4x4", Alloc: "mc1x1", Sched: "easy", Contract: 0.5, Pattern: "n-body", Seed: 3, Flags: []string{"--drop-larger"}}
	got := strings.Join(p.Args("/data"), " ")
	want := "--trace /data/t.swf --machine mesh:4x4 --alloc mc1x1 --sched easy --contract 0.5 --seed 3 --comm-seed 3 --comm n-body --drop-larger"
	if got != want {
		t.Fatalf("args\n%s\nwant\n%s", got, want)
	}
}

// Issue 12 item 7: a merge without the sweep file still reports a missing shard: the
// indices the other shards hold leave gaps where its items were.
func TestMergeWithoutSpecReportsGaps(t *testing.T) {
	s, _ := Parse([]byte(spec), "x")
	items := s.Items()
	if len(items) < 6 {
		t.Fatalf("the test spec has %d items", len(items))
	}
	dir := t.TempDir()
	var paths []string
	for i := range 3 { // shards 0/3 and 2/3 only
		if i == 1 {
			continue
		}
		path := filepath.Join(dir, fmt.Sprintf("r.%d.jsonl", i))
		r, err := OpenResults(path, "t")
		if err != nil {
			t.Fatal(err)
		}
		sh, _ := Shard(items, i, 3)
		for _, it := range sh {
			r.Append(Line{Sweep: "t", Item: it, Status: "ok", Result: []byte(`{"x":1}`)})
		}
		r.Close()
		paths = append(paths, path)
	}
	rep, err := Merge(paths, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []int
	for _, it := range rep.Missing {
		got = append(got, it.Index)
	}
	var want []int
	last := rep.Lines[len(rep.Lines)-1].Index
	for j := 1; j < last; j += 3 {
		want = append(want, j)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("missing %v, want %v", got, want)
	}
	if rep, _ := Merge(paths[:1], nil); len(rep.Missing) == 0 {
		t.Fatal("shard 0/3 alone: nothing missing")
	}
}

// paramsOf is the inverse of Params.Spec (without Flags, which the caller applies).
func paramsOf(s sim.Spec) Params {
	p := Params{Trace: s.Trace, Machine: s.MachineSpec, Alloc: s.Alloc, Sched: s.Sched, Contract: s.Scale.Contract, Seed: s.Scale.Seed, Pattern: "none"}
	if s.Comm != "" {
		p.Pattern = s.Comm
	}
	return p
}

// Every item of a sweep maps onto a valid replay and back: the same parameters, the
// same key; what the item does not set is sim.DefaultSpec's.
func TestItemSpecRoundTrip(t *testing.T) {
	s, err := Parse([]byte(`
traces: [a.txt, /abs/b.swf]
machines: [mesh:4x4, torus:4x4x4]
allocators: [mc1x1, bf:hilbert, genalg]
schedulers: [fcfs, easy, cplant]
contract: [1, 0.5]
patterns: [none, n-body]
seeds: [1, 7]
`), "x.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir := "/sweeps"
	for _, it := range s.Items() {
		sp := it.Params.Spec(dir)
		if err := sp.Validate(); err != nil {
			t.Fatalf("item %d: %v", it.Index, err)
		}
		back := paramsOf(sp)
		if !reflect.DeepEqual(back, it.Params) || back.Key() != it.Key {
			t.Fatalf("item %d: %+v -> %+v", it.Index, it.Params, back)
		}
		if sp.Dir != dir || (it.Params.Trace == "a.txt") != (sp.Path(sp.Trace) == "/sweeps/a.txt") {
			t.Errorf("item %d: trace %s read from %s", it.Index, it.Params.Trace, sp.Path(sp.Trace))
		}
		if sp.CommSeed != it.Params.Seed {
			t.Errorf("item %d: comm seed %d, want the item's seed %d", it.Index, sp.CommSeed, it.Params.Seed)
		}
		d := sim.DefaultSpec()
		if sp.Scale.Work != d.Scale.Work || sp.Scale.Replicate != d.Scale.Replicate || sp.Network != d.Network || sp.Pattern != d.Pattern ||
			sp.MessagesPerSecond != d.MessagesPerSecond || sp.CycleSeconds != d.CycleSeconds || sp.Compat != d.Compat {
			t.Errorf("item %d: a field the item does not set is not the default: %+v", it.Index, sp)
		}
	}
}

func TestStatus(t *testing.T) {
	for _, s := range []Status{StatusOK, StatusFailed} {
		if v, err := ParseStatus(s.String()); err != nil || v != s {
			t.Errorf("ParseStatus(%q) = %q, %v", s, v, err)
		}
	}
	if _, err := ParseStatus("done"); err == nil {
		t.Error("ParseStatus accepted done")
	}
}

// A result is the report's JSON without its seconds, top-level keys sorted, each
// value as the report writes it; a failed item has an error and no result.
func TestResultJSON(t *testing.T) {
	s := sim.DefaultSpec()
	s.Trace, s.MachineSpec, s.Alloc, s.Comm, s.MessagesPerSecond = "t", "mesh:4x4", "mc1x1", "n-body", 0.1
	s.TraceData = &sim.Trace{Format: sim.FormatConverted, Jobs: []sim.Job{
		{ID: 1, Arrival: 0, Procs: 4, Runtime: 100, Estimate: -1}, {ID: 2, Arrival: 5, Procs: 16, Runtime: 50, Estimate: 60}}}
	rep, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	rep.Seconds = 1.25
	l := NewLine("x", Item{Index: 3, Key: "k"}, rep, nil, 2)
	if l.Status != StatusOK || l.Error != "" || l.Seconds != 2 {
		t.Fatalf("line %+v", l)
	}
	full, _ := json.Marshal(rep)
	var want map[string]json.RawMessage
	json.Unmarshal(full, &want)
	dec := json.NewDecoder(bytes.NewReader(l.Result))
	dec.Token() // {
	var keys []string
	for dec.More() {
		k, _ := dec.Token()
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k.(string))
		if string(v) != string(want[k.(string)]) {
			t.Errorf("key %s: %s, report has %s", k, v, want[k.(string)])
		}
	}
	if !slices.IsSorted(keys) || slices.Contains(keys, "seconds") || slices.Contains(keys, "alloc_time") || len(keys) != len(want)-2 || !slices.Contains(keys, "comm") {
		t.Errorf("result keys %v (report has %d keys)", keys, len(want))
	}
	f := NewLine("x", Item{}, nil, errors.New("boom"), 1)
	if f.Status != StatusFailed || f.Error != "boom" || f.Result != nil {
		t.Errorf("failed line %+v", f)
	}
}
