package curves

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/procalloc/procalloc/topo"
)

// Resolve gives a built-in curve, a ranking file, or an *UnknownCurveError (a
// mistake in the name) for a name that is neither, or a curve that does not apply.
func TestResolve(t *testing.T) {
	m, err := topo.ParseMachine("mesh:4x4")
	if err != nil {
		t.Fatal(err)
	}
	want, err := Generate("hilbert", m)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Resolve(context.Background(), "hilbert", m, nil)
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("hilbert: %v, %v", got, err)
	}
	path := filepath.Join(t.TempDir(), "h.order")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteRanking(f, FormatOrder, want, RankingMeta{}, nil); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if got, err := Resolve(context.Background(), path, m, nil); err != nil || !slices.Equal(got, want) {
		t.Fatalf("ranking file: %v, %v", got, err)
	}
	var ue *UnknownCurveError
	for _, name := range []string{"no-such-curve", "hilbert3d"} {
		if _, err := Resolve(context.Background(), name, m, nil); !errors.As(err, &ue) || ue.Name != name {
			t.Errorf("%s: got %v, want an UnknownCurveError", name, err)
		}
	}
	// A file that exists but is no ranking is a failure reading it, not a name.
	bad := filepath.Join(t.TempDir(), "bad.order")
	os.WriteFile(bad, []byte("not a ranking\n"), 0o644)
	if _, err := Resolve(context.Background(), bad, m, nil); err == nil || errors.As(err, &ue) {
		t.Errorf("bad ranking file: got %v", err)
	}
}
