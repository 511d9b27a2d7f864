package slurm

import (
	"cmp"
	"strconv"
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
	// Without MAX, an ID beyond COUNT tasks was shard 10 of 4 (FuzzArrayShard).
	env = map[string]string{"SLURM_ARRAY_TASK_ID": "10", "SLURM_ARRAY_TASK_COUNT": "4"}
	if i, n, _, err := ArrayShard(func(k string) string { return env[k] }); err == nil || !strings.Contains(err.Error(), "beyond the array's COUNT") {
		t.Fatalf("ID beyond COUNT: shard %d of %d, %v", i, n, err)
	}
}

// FuzzArrayShard fuzzes the array variables a sweep reads in a Slurm job array:
// outside an array (no ID) it is shard 0 of 1; a shard is in range and its ID is
// MIN plus i STEPs; a refusal quotes the variables.
func FuzzArrayShard(f *testing.F) {
	f.Add("8", "4", "8", "2", "3")
	f.Add("8", "4", "9", "2", "3")
	f.Add("10", "", "", "", "4")
	f.Add("0", "", "", "", "1")
	f.Add("4294967295", "0", "", "1", "4294967295")
	f.Add("", "1", "2", "3", "4")
	f.Add("3", "1", "", "0", "2")
	f.Fuzz(func(t *testing.T, id, lo, hi, step, count string) {
		env := map[string]string{"SLURM_ARRAY_TASK_ID": id, "SLURM_ARRAY_TASK_MIN": lo, "SLURM_ARRAY_TASK_MAX": hi, "SLURM_ARRAY_TASK_STEP": step, "SLURM_ARRAY_TASK_COUNT": count}
		i, n, ok, err := ArrayShard(func(k string) string { return env[k] })
		switch {
		case id == "":
			if i != 0 || n != 1 || ok || err != nil {
				t.Fatalf("outside an array: %d of %d, %v, %v", i, n, ok, err)
			}
		case err != nil:
			if ok || !strings.Contains(err.Error(), "SLURM_ARRAY_TASK_ID="+strconv.Quote(id)) {
				t.Fatalf("%v: %v, error does not quote the ID", env, ok)
			}
		default:
			if !ok || i < 0 || i >= n {
				t.Fatalf("%v: shard %d of %d, %v", env, i, n, ok)
			}
			v, _ := strconv.ParseInt(id, 10, 64)
			l, _ := strconv.ParseInt(cmp.Or(lo, "0"), 10, 64)
			s, _ := strconv.ParseInt(cmp.Or(step, "1"), 10, 64)
			if l+int64(i)*s != v {
				t.Fatalf("%v: shard %d is not ID %d", env, i, v)
			}
		}
	})
}
