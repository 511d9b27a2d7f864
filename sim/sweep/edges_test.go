package sweep

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/procalloc/procalloc/internal/textin"
)

// okLine is a results line of item it whose result has a length that depends on the
// writer, so that two writers' lines overlap at different offsets.
func okLine(it Item, writer int) Line {
	return Line{Sweep: "t", Item: it, Status: "ok", Result: json.RawMessage(fmt.Sprintf(`{"w":"%s"}`, strings.Repeat("x", 1+writer*37+it.Index%5)))}
}

// Issue 24 row 1: two sweeps writing one results file at once spliced their lines
// (each wrote at the offset where it had found the end), and the file could then
// not be resumed. Two writers, each with its own descriptor, through OpenResults
// and Append as "procalloc sweep" uses them; the one refused (ErrLocked) retries,
// as a user rerunning it would. Before the lock and O_APPEND, 30 of 30 trials
// broke the file.
func TestSweepConcurrentWritersLeaveAResumableFileWithEachItemOnce(t *testing.T) {
	s, _ := Parse([]byte(spec), "x")
	items := s.Items()
	refused := 0
	var mu sync.Mutex
	for trial := range 30 {
		path := filepath.Join(t.TempDir(), "r.jsonl")
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for w := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					r, err := OpenResults(path, "t")
					if errors.Is(err, ErrLocked) {
						mu.Lock()
						refused++
						mu.Unlock()
						time.Sleep(time.Millisecond)
						continue
					}
					if err != nil {
						errs[w] = err
						return
					}
					for _, it := range items {
						if _, ok := r.Done[it.Key]; ok {
							continue
						}
						if err := r.Append(okLine(it, w)); err != nil {
							errs[w] = err
							break
						}
					}
					r.Close()
					return
				}
			}()
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		r, err := OpenResults(path, "t")
		if err != nil {
			t.Fatalf("trial %d: the file does not resume: %v", trial, err)
		}
		if len(r.Done) != len(items) || len(r.Damaged) != 0 || r.Cut != 0 {
			t.Fatalf("trial %d: %d of %d items done, damaged lines %v, cut %d", trial, len(r.Done), len(items), r.Damaged, r.Cut)
		}
		r.Close()
		count := map[string]int{}
		for _, raw := range bytes.Split(bytes.TrimSuffix(mustRead(t, path), []byte("\n")), []byte("\n")) {
			var l Line
			if err := json.Unmarshal(raw, &l); err != nil {
				t.Fatalf("trial %d: %q: %v", trial, raw, err)
			}
			count[l.Key]++
		}
		for _, it := range items {
			if count[it.Key] != 1 {
				t.Fatalf("trial %d: item %d has %d lines, want 1", trial, it.Index, count[it.Key])
			}
		}
	}
	t.Logf("%d opens refused while the other writer held the lock", refused)
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestSweepLockRefusesASecondWriterUntilTheFirstCloses(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.jsonl")
	a, err := OpenResults(path, "t")
	if err != nil {
		t.Fatal(err)
	}
	if a.NoLock != nil {
		t.Skipf("the test directory's file system has no flock: %v", a.NoLock)
	}
	if _, err := OpenResults(path, "t"); !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), path) {
		t.Fatalf("second open while locked: err = %v, want ErrLocked naming the file", err)
	}
	a.Close()
	b, err := OpenResults(path, "t")
	if err != nil {
		t.Fatalf("open after the first closed: %v", err)
	}
	b.Close()
}

// A torn last line is cut off, damaged lines elsewhere (as the unlocked writers of
// old left them, or a crash's zero bytes) are skipped and named: never fatal. A file
// without any results line is still refused: it is not a file sweep wrote.
func TestSweepDamagedAndTornLinesAreSkippedNotFatal(t *testing.T) {
	s, _ := Parse([]byte(spec), "x")
	items := s.Items()
	var b bytes.Buffer
	for i, it := range items[:8] {
		raw, _ := json.Marshal(okLine(it, 0))
		switch i {
		case 2: // spliced: another line written over its end
			raw = append(raw[:40:40], []byte(`{"sweep":"t","index":9`)...)
		case 4: // zero bytes where a write never reached the disk
			raw = bytes.Repeat([]byte{0}, 30)
		case 5: // the tail of a line a shorter one was written over (from a real run)
			raw = []byte(`nds":0.770875234}`)
		case 6: // the head of a line cut where another begins: valid JSON, no status
			raw = []byte(`{"sweep":"t","index":6,"key":"` + it.Key + `","params":{"sweep":"t","index":7}}`)
		}
		b.Write(raw)
		b.WriteByte('\n')
	}
	b.WriteString("\n") // a blank line is nothing
	b.WriteString(`{"sweep":"t","index":6,"key":"ab`)
	path := filepath.Join(t.TempDir(), "r.jsonl")
	os.WriteFile(path, b.Bytes(), 0o644)
	r, err := OpenResults(path, "t")
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(r.Damaged) != "[3 5 6 7]" || r.Cut != 10 || r.CutLines != 1 || len(r.Done) != 4 {
		t.Fatalf("damaged %v (want [3 5 6 7]), cut %d (want 10), %d done (want 4)", r.Damaged, r.Cut, len(r.Done))
	}
	for _, i := range []int{2, 4, 5, 6} {
		if _, ok := r.Done[items[i].Key]; ok {
			t.Fatalf("the item of a damaged line counts as done")
		}
	}
	if err := r.Append(okLine(items[2], 1)); err != nil {
		t.Fatal(err)
	}
	r.Close()
	data := mustRead(t, path)
	if !bytes.HasSuffix(data, []byte("}\n")) || bytes.Contains(data, []byte(`"key":"ab`)) {
		t.Fatalf("the torn line was not cut off before appending:\n%q", data[len(data)-80:])
	}
	rep, err := Merge([]string{path}, s)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Damaged) != 4 || !strings.HasSuffix(rep.Damaged[0], ": line 3") || len(rep.Lines) != 5 || len(rep.Missing) != len(items)-5 {
		t.Fatalf("merge: damaged %v, %d lines, %d missing", rep.Damaged, len(rep.Lines), len(rep.Missing))
	}
	// a torn last line that merge meets (a shard still running, or killed) is skipped
	os.WriteFile(path, append(data, `{"sweep":"t","ind`...), 0o644)
	if rep, err := Merge([]string{path}, nil); err != nil || len(rep.Damaged) != 5 {
		t.Fatalf("merge with a torn last line: %v, damaged %v", err, rep.Damaged)
	}
	// a whole line but its newline is torn too, as the sweep cuts it, whatever its sweep
	whole, _ := json.Marshal(okLine(items[7], 0))
	for _, last := range [][]byte{whole, []byte(`{"key":"0","status":"ok","result":{}}`)} {
		os.WriteFile(path, append(bytes.Clone(data), last...), 0o644)
		if rep, err := Merge([]string{path}, nil); err != nil || len(rep.Damaged) != 5 {
			t.Fatalf("merge with a last line %s without its newline: %v, damaged %v", last, err, rep.Damaged)
		}
	}
	// an index no sweep has (the gaps merge lists without a spec would be endless) is damage
	os.WriteFile(path, []byte(`{"sweep":"t","index":4611686018427387904,"key":"k","status":"ok"}`+"\n"), 0o644)
	if rep, err := Merge([]string{path}, nil); err != nil || len(rep.Damaged) != 1 || len(rep.Missing) != 0 {
		t.Fatalf("merge of a huge index: err = %v, damaged %v, %d missing", err, rep.Damaged, len(rep.Missing))
	}
	// a file without a results line: refused by both, and not cut
	csv := []byte("index,key\n0,abc\n")
	os.WriteFile(path, csv, 0o644)
	if _, err := OpenResults(path, "t"); err == nil || !strings.Contains(err.Error(), "line 1 is not a results line, and no line is") {
		t.Fatalf("a CSV as results file: err = %v", err)
	}
	if _, err := Merge([]string{path}, nil); err == nil || !strings.Contains(err.Error(), "line 1 is not a results line") {
		t.Fatalf("merge of a CSV: err = %v", err)
	}
	if !bytes.Equal(mustRead(t, path), csv) {
		t.Fatal("a file that is not a results file was changed")
	}
}

// Issue 24 rows 2 and 24: a results path that is not a regular file is written
// through: /dev/null takes every line (nothing to sync, nothing to resume),
// /dev/full fails at the first line with "no space left on device", and every
// later line fails with the same error.
func TestSweepResultsOnDevices(t *testing.T) {
	s, _ := Parse([]byte(spec), "x")
	items := s.Items()
	r, err := OpenResults(os.DevNull, "t")
	if err != nil {
		t.Fatal(err)
	}
	if !r.Stream {
		t.Fatal("/dev/null not written through")
	}
	for _, it := range items[:3] {
		if err := r.Append(okLine(it, 0)); err != nil {
			t.Fatalf("/dev/null: %v", err)
		}
	}
	r.Close()
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	r, err = OpenResults("/dev/full", "t")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	err1 := r.Append(okLine(items[0], 0))
	err2 := r.Append(okLine(items[1], 0))
	if !errors.Is(err1, syscall.ENOSPC) || !strings.Contains(err1.Error(), "no space left on device") || err2 != err1 {
		t.Fatalf("/dev/full: %v, then %v", err1, err2)
	}
}

// zeros is an endless input, like /dev/zero.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// endlessLines is an endless input of short damaged lines.
type endlessLines struct{}

func (endlessLines) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = "{\"sweep\n"[i%8]
	}
	return len(p), nil
}

// Issue 24 row 2: every input is read with a cap, named in the error.
func TestSweepReadsAreCapped(t *testing.T) {
	if _, err := Read(zeros{}, "/dev/zero"); err == nil || !strings.Contains(err.Error(), "4 MiB") {
		t.Fatalf("endless sweep file: %v", err)
	}
	if _, err := MergeInputs([]Input{{"/dev/zero", zeros{}}}, nil); err == nil || !strings.Contains(err.Error(), "line 1 is longer than 16 MiB") {
		t.Fatalf("endless line: %v", err)
	}
	lr := newLineReader(endlessLines{}, "yes")
	lr.maxTotal = 1 << 20
	var err error
	for err == nil {
		_, _, err = lr.next()
	}
	if !strings.Contains(err.Error(), "yes: longer than 1 MiB, the most a results file may be") {
		t.Fatalf("endless file: %v", err)
	}
	// the line cap itself: a line of exactly maxLine bytes passes, one more fails
	for _, tc := range []struct {
		in   string
		fail bool
	}{{"abcd\n", false}, {"abcd", false}, {"abcde\n", true}, {"abcde", true}} {
		lr := newLineReader(strings.NewReader(tc.in), "f")
		lr.maxLine = 4
		if _, _, err := lr.next(); (err != nil) != tc.fail {
			t.Errorf("%q with lines capped at 4: err = %v", tc.in, err)
		}
	}
	if got := textin.Size(MaxResultsBytes); got != "8 GiB" {
		t.Errorf("textin.Size(MaxResultsBytes) = %q", got)
	}
}

// Issue 24 rows 3, 8, 11 and 12.
func TestSweepParseRefusesWhatWouldMisleadLater(t *testing.T) {
	base := "traces: [a]\nmachines: [m]\nallocators: [x]\n"
	many := func(prefix string, n int) string {
		var l []string
		for i := range n {
			l = append(l, fmt.Sprintf("%s%d", prefix, i))
		}
		return "[" + strings.Join(l, ", ") + "]"
	}
	for _, tc := range []struct{ in, want string }{
		{base + "contract: [1, 1.0, 0.5]\n", "contract: 1 is listed twice (entries 1 and 2, written 1 and 1.0)"},
		{base + "seeds: [1, 1]\n", "seeds: 1 is listed twice (entries 1 and 2)"},
		{base + "seeds: [7, 0x7]\n", "written 7 and 0x7"},
		{base + "seeds: [18446744073709551616]\n", `seeds: "18446744073709551616" is not a seed (an integer from 0 to 18446744073709551615)`},
		{base + "seeds: [1.5]\n", `seeds: "1.5" is not a seed`},
		{base + "seeds: [-1]\n", `seeds: "-1" is not a seed`},
		{base + "seeds: [\"3\"]\n", `seeds: "3" is not a seed`},
		{`{"traces":["a"],"machines":["m"],"allocators":["x"],"seeds":[18446744073709551616]}`, "is not a seed"},
		{base + "name: \"evil\\ntouch /tmp/PWNED\"\n", `name "evil\ntouch /tmp/PWNED": control character U+000A not allowed`},
		{base + "patterns: [\"a\\tb\"]\n", "patterns entry 1"},
		{base + "flags: [--from, \"x\\ry\"]\n", "flags entry 2"},
		{"traces: [a]\nmachines: [m, m]\nallocators: [x]\n", `machines: "m" is listed twice`},
		{"traces: " + many("t", 30) + "\nmachines: " + many("m", 30) + "\nallocators: " + many("a", 30) + "\ncontract: " + many("0.1", 9) + "\nseeds: " + many("", 100) + "\n",
			"30 traces x 30 machines x 1 schedulers x 9 load factors x 1 patterns x 100 seeds x 30 allocators is more than 1000000 items"},
	} {
		if _, err := Parse([]byte(tc.in), "s.yaml"); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%.80q: err = %v, want %q", tc.in, err, tc.want)
		}
	}
	// lists whose product overflows 64 bits are refused, not wrapped around
	big := "traces: " + many("t", 1000) + "\nmachines: " + many("m", 1000) + "\nallocators: " + many("a", 1000) + "\nschedulers: " + many("s", 1000) +
		"\npatterns: " + many("p", 1000) + "\nseeds: " + many("", 1000) + "\ncontract: " + many("1", 1000) + "\n"
	if _, err := Parse([]byte(big), "s.yaml"); err == nil || !strings.Contains(err.Error(), "more than 1000000 items") {
		t.Fatalf("10^21 items: %v", err)
	}
	s, err := Parse([]byte(base+"seeds: [18446744073709551615, 0, 0x10]\n"), "s.yaml")
	if err != nil || fmt.Sprint(s.Seeds) != "[18446744073709551615 0 16]" {
		t.Fatalf("valid seeds: %v, %v", err, s)
	}
	if s, err := Parse([]byte(base), "-"); err != nil || s.Name != "stdin" {
		t.Fatalf("sweep from stdin: name %q, %v", s.Name, err)
	}
}

// FuzzSweepParse: any sweep file is refused with an error or gives at most MaxItems
// items, with distinct keys, in their index order, and names without control
// characters.
func FuzzSweepParse(f *testing.F) {
	f.Add([]byte(spec))
	f.Add([]byte("traces: [a]\nmachines: [m]\nallocators: [x]\ncontract: [1, 1.0]\n"))
	f.Add([]byte("traces: [a]\nmachines: [m]\nallocators: [x]\nseeds: [18446744073709551616, 1]\nname: \"a\\nb\"\n"))
	f.Add([]byte(`{"traces":["a"],"machines":["m"],"allocators":["x","y"],"seeds":[1,2],"flags":["--drop-larger"]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse(data, "f.yaml")
		if err != nil {
			return
		}
		n, err := s.Count()
		if err != nil || n > MaxItems {
			t.Fatalf("accepted a sweep of %d items: %v", n, err)
		}
		if n > 10000 {
			return // large but valid: expanding it is slow, not wrong
		}
		items := s.Items()
		keys := map[string]bool{}
		for i, it := range items {
			if it.Index != i || keys[it.Key] {
				t.Fatalf("item %d: index %d, key %s repeated: %v", i, it.Index, it.Key, keys[it.Key])
			}
			keys[it.Key] = true
		}
		if len(items) != n {
			t.Fatalf("%d items, Count %d", len(items), n)
		}
		if strings.ContainsFunc(s.Name, func(r rune) bool { return r < ' ' || r == 0x7f }) {
			t.Fatalf("name %q accepted", s.Name)
		}
	})
}

// FuzzSweepResultsFile: whatever a results file holds, opening it is an error or leaves a
// file that takes a new line and opens again with that item done; merge reads the
// same file without panicking, and reads it whenever the sweep could.
func FuzzSweepResultsFile(f *testing.F) {
	s, _ := Parse([]byte(spec), "x")
	items := s.Items()
	var good bytes.Buffer
	for _, it := range items[:3] {
		raw, _ := json.Marshal(okLine(it, 0))
		good.Write(raw)
		good.WriteByte('\n')
	}
	f.Add(good.Bytes())
	f.Add(append(bytes.Clone(good.Bytes()), `{"sweep":"t","in`...))
	f.Add(append(append([]byte(`{"sweep":"t","index":1`), good.Bytes()...), 0, 0, '\n'))
	f.Add([]byte("not,a,results,file\n"))
	f.Add([]byte(`{"sweep":"other","index":0,"key":"k","status":"ok"}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "r.jsonl")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, mergeErr := MergeInputs([]Input{{"r", bytes.NewReader(data)}}, s)
		r, err := OpenResults(path, "t")
		if err != nil {
			if errors.Is(err, ErrLocked) {
				t.Fatal(err)
			}
			return
		}
		if mergeErr != nil {
			t.Fatalf("the sweep resumes the file but merge refuses it: %v", mergeErr)
		}
		it := items[len(items)-1]
		if err := r.Append(okLine(it, 1)); err != nil {
			t.Fatal(err)
		}
		r.Close()
		r, err = OpenResults(path, "t")
		if err != nil {
			t.Fatalf("the file does not open again after a line was appended: %v\n%q", err, mustRead(t, path))
		}
		if _, ok := r.Done[it.Key]; !ok || r.Cut != 0 {
			t.Fatalf("the appended line was not read back (cut %d)", r.Cut)
		}
		r.Close()
		if _, err := Merge([]string{path}, s); err != nil {
			t.Fatalf("merge after the append: %v", err)
		}
	})
}

var _ io.Reader = zeros{}

// Issue 31 minor: a torn block of three lines at the end is cut off whole and
// reported as three lines (it was reported as one).
func TestTornTrailingBlockIsCountedWhole(t *testing.T) {
	s, _ := Parse([]byte(spec), "x")
	items := s.Items()
	var b bytes.Buffer
	for _, it := range items[:2] {
		l, _ := json.Marshal(okLine(it, 1))
		b.Write(append(l, '\n'))
	}
	good := b.Len()
	b.WriteString(`{"sweep":"t","index":2,"ke` + "\n" + `{"sweep":"t","in` + "\n" + `{"swe`)
	path := filepath.Join(t.TempDir(), "r.jsonl")
	os.WriteFile(path, b.Bytes(), 0o644)
	r, err := OpenResults(path, "t")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.Cut != 3 || r.CutLines != 3 || len(r.Damaged) != 0 || len(r.Done) != 2 {
		t.Fatalf("cut %d (want 3), %d lines (want 3), damaged %v, %d done", r.Cut, r.CutLines, r.Damaged, len(r.Done))
	}
	if fi, _ := os.Stat(path); fi.Size() != int64(good) {
		t.Fatalf("file %d bytes after the cut, want %d", fi.Size(), good)
	}
}
