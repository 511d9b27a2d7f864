package sweep

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/internal/buildid"
	"github.com/procalloc/procalloc/sim"
)

// wantBuilds is MergeReport.Builds computed from the plain definition: every line
// of every file, its build ("" is buildid.Unknown), the files in the order given.
func wantBuilds(files []string, lines [][]Line) []BuildSource {
	by := map[string]*BuildSource{}
	for i, ls := range lines {
		for _, l := range ls {
			name := l.Build
			if name == "" {
				name = buildid.Unknown
			}
			b := by[name]
			if b == nil {
				b = &BuildSource{Build: name}
				by[name] = b
			}
			b.Lines++
			if !slices.Contains(b.Files, files[i]) {
				b.Files = append(b.Files, files[i])
			}
		}
	}
	var out []BuildSource
	for _, b := range by {
		out = append(out, *b)
	}
	slices.SortFunc(out, func(a, b BuildSource) int { return strings.Compare(a.Build, b.Build) })
	return out
}

func encodeLines(t *testing.T, ls []Line) []byte {
	t.Helper()
	var b bytes.Buffer
	for _, l := range ls {
		raw, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(append(raw, '\n'))
	}
	return b.Bytes()
}

// Shards run by two builds (and one written before lines named their build) merge,
// the report naming each build with its files and line count; the lines kept keep
// their build, so a merged file merged again still tells the builds apart; a line
// without one stays without one (old files merge to what they did).
func TestMergeNamesTheBuildsOfTheShards(t *testing.T) {
	s, _ := Parse([]byte(spec), "x")
	items := s.Items()
	files := []string{"shard-0.jsonl", "shard-1.jsonl", "old.jsonl", "shard-2.jsonl"}
	lines := make([][]Line, len(files))
	for _, it := range items {
		l := okLine(it, 0)
		switch it.Index % 3 {
		case 0:
			l.Build = "git:aaaaaaaaaaaa"
		case 1:
			l.Build = "git:bbbbbbbbbbbb+dirty:0123456789ab"
		}
		lines[it.Index%3] = append(lines[it.Index%3], l)
	}
	// shard-2.jsonl: item 2 failed under build a; its ok line (no build) is in old.jsonl.
	failed := Line{Sweep: "t", Item: items[2], Status: StatusFailed, Error: "x", Build: "git:aaaaaaaaaaaa"}
	lines[3] = []Line{failed}
	var ins []Input
	for i, f := range files {
		ins = append(ins, Input{f, bytes.NewReader(encodeLines(t, lines[i]))})
	}
	rep, err := MergeInputs(ins, s)
	if err != nil {
		t.Fatal(err)
	}
	if want := wantBuilds(files, lines); !reflect.DeepEqual(rep.Builds, want) {
		t.Fatalf("Builds = %+v, want %+v", rep.Builds, want)
	}
	if len(rep.Builds) != 3 {
		t.Fatalf("%d builds, want 3 (a, b, unknown): %+v", len(rep.Builds), rep.Builds)
	}
	if len(rep.Lines) != len(items) || len(rep.Missing) != 0 || len(rep.Failed) != 0 {
		t.Fatalf("%d lines, %d missing, %d failed; want %d, 0, 0", len(rep.Lines), len(rep.Missing), len(rep.Failed), len(items))
	}
	for _, l := range rep.Lines {
		if want := lines[l.Index%3][l.Index/3].Build; l.Build != want {
			t.Errorf("item %d kept build %q, want %q (its ok line's)", l.Index, l.Build, want)
		}
	}
	// The merged lines merged again: the same builds, with the merged file's name.
	again, err := MergeInputs([]Input{{"merged.jsonl", bytes.NewReader(encodeLines(t, rep.Lines))}}, s)
	if err != nil {
		t.Fatal(err)
	}
	if want := wantBuilds([]string{"merged.jsonl"}, [][]Line{rep.Lines}); !reflect.DeepEqual(again.Builds, want) {
		t.Fatalf("merged again: Builds = %+v, want %+v", again.Builds, want)
	}
	// An old file alone: one build, unknown, and its lines as they were.
	old := encodeLines(t, lines[2])
	rep, err = MergeInputs([]Input{{"old.jsonl", bytes.NewReader(old)}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []BuildSource{{Build: buildid.Unknown, Files: []string{"old.jsonl"}, Lines: len(lines[2])}}; !reflect.DeepEqual(rep.Builds, want) {
		t.Fatalf("old file: Builds = %+v, want %+v", rep.Builds, want)
	}
	if !bytes.Contains(old, []byte(`"sweep":"t","index"`)) || bytes.Contains(encodeLines(t, rep.Lines), []byte(`"build"`)) {
		t.Fatalf("a line without a build gained one in the merge")
	}
}

// Spec.Run names the running build in every line it hands over.
func TestRunLinesNameTheBuild(t *testing.T) {
	s, _ := Parse([]byte(spec), "x")
	items := s.Items()[:4]
	var got []string
	err := s.Run(context.Background(), items, Runner{Workers: 2,
		Replay: func(it Item) (sim.Runner, error) {
			return nil, fmt.Errorf("item %d: %w", it.Index, errors.ErrUnsupported)
		},
		Done: func(l Line) error { got = append(got, l.Build); return nil }})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(items) {
		t.Fatalf("%d lines, want %d", len(got), len(items))
	}
	for _, b := range got {
		if b != buildid.ID() || b == "" {
			t.Fatalf("line build %q, want %q", b, buildid.ID())
		}
	}
}
