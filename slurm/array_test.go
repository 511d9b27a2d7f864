package slurm

import (
	"strings"
	"testing"
)

// ArrayShard numbers the tasks of --array=MIN-MAX:STEP from 0 (the sweep CLI's tests
// cover the environments Slurm sets in detail).
func TestArrayShard(t *testing.T) {
	env := map[string]string{"SLURM_ARRAY_TASK_ID": "8", "SLURM_ARRAY_TASK_MIN": "4", "SLURM_ARRAY_TASK_MAX": "8", "SLURM_ARRAY_TASK_STEP": "2", "SLURM_ARRAY_TASK_COUNT": "3"}
	if i, n, ok, err := ArrayShard(func(k string) string { return env[k] }); i != 2 || n != 3 || !ok || err != nil {
		t.Fatalf("%d of %d, %v, %v", i, n, ok, err)
	}
	env["SLURM_ARRAY_TASK_MAX"] = "9" // --array=4,6,9
	if _, _, _, err := ArrayShard(func(k string) string { return env[k] }); err == nil || !strings.Contains(err.Error(), "not one range") {
		t.Fatalf("a list array: %v", err)
	}
	if i, n, ok, err := ArrayShard(func(string) string { return "" }); i != 0 || n != 1 || ok || err != nil {
		t.Fatal("outside an array task")
	}
}
