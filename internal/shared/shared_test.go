package shared

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFind(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "traces"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "traces", "x.swf"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(Env, dir)
	if p, err := Find("traces/x.swf"); err != nil || p != filepath.Join(dir, "traces", "x.swf") {
		t.Fatalf("Find = %q, %v", p, err)
	}
	_, err := Find("traces/missing.swf")
	if err == nil || !strings.Contains(err.Error(), "traces/missing.swf not found; looked in "+filepath.Join(dir, "traces", "missing.swf")) || !strings.Contains(err.Error(), "Parallel Workloads Archive") {
		t.Fatalf("missing: %v", err)
	}
	t.Setenv(Env, "")
	_, err = Find("no/such/file")
	if err == nil || !strings.Contains(err.Error(), filepath.Join("shared", "no", "such", "file")) || !strings.Contains(err.Error(), Env) {
		t.Fatalf("missing without %s: %v", Env, err)
	}
}
