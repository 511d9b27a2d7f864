package slurm

import (
	"cmp"
	"fmt"
	"strconv"
)

// MaxArraySize is the most tasks a Slurm job array can have: MaxArraySize is at most
// 4000001 (slurm.conf(5)), task IDs 0 to 4000000.
const MaxArraySize = 4_000_001

// ArrayShard returns the shard of a Slurm array task, read through getenv (os.Getenv).
// Slurm numbers the tasks of --array=MIN-MAX:STEP as MIN, MIN+STEP, ..., MAX and
// tells each task its SLURM_ARRAY_TASK_ID, and the array's SLURM_ARRAY_TASK_MIN,
// _MAX, _STEP and _COUNT; the task is shard (ID - MIN) / STEP of COUNT. Outside an
// array task (no SLURM_ARRAY_TASK_ID) ok is false and n is 1. An array that is not
// one evenly stepped range (--array=1,3,7: MAX is not MIN + (COUNT-1) STEP) has no
// such numbering and is an error quoting the variables. MIN defaults to 0 and STEP
// to 1 when unset.
func ArrayShard(getenv func(string) string) (i, n int, ok bool, err error) {
	id := getenv("SLURM_ARRAY_TASK_ID")
	if id == "" {
		return 0, 1, false, nil
	}
	vars := fmt.Sprintf("SLURM_ARRAY_TASK_ID=%q, SLURM_ARRAY_TASK_MIN=%q, SLURM_ARRAY_TASK_MAX=%q, SLURM_ARRAY_TASK_STEP=%q, SLURM_ARRAY_TASK_COUNT=%q",
		id, getenv("SLURM_ARRAY_TASK_MIN"), getenv("SLURM_ARRAY_TASK_MAX"), getenv("SLURM_ARRAY_TASK_STEP"), getenv("SLURM_ARRAY_TASK_COUNT"))
	// Slurm's task IDs and counts are 32-bit; parsed as such, the arithmetic below
	// cannot overflow.
	num := func(s string) (int64, bool) {
		v, err := strconv.ParseUint(s, 10, 32)
		return int64(v), err == nil
	}
	v, ok1 := num(id)
	lo, ok2 := num(cmp.Or(getenv("SLURM_ARRAY_TASK_MIN"), "0"))
	step, ok3 := num(cmp.Or(getenv("SLURM_ARRAY_TASK_STEP"), "1"))
	cnt, ok4 := num(getenv("SLURM_ARRAY_TASK_COUNT"))
	if !ok1 || !ok2 || !ok3 || !ok4 || cnt < 1 || step < 1 {
		return 0, 0, false, fmt.Errorf("inside a Slurm array task but %s do not give a shard", vars)
	}
	if hiStr := getenv("SLURM_ARRAY_TASK_MAX"); hiStr != "" {
		if hi, ok := num(hiStr); !ok || hi != lo+(cnt-1)*step {
			return 0, 0, false, fmt.Errorf("inside a Slurm array task but %s: the array is not one range MIN-MAX:STEP of COUNT tasks (a list such as --array=1,3,7?), so its tasks cannot be numbered as shards", vars)
		}
	}
	if v < lo || (v-lo)%step != 0 {
		return 0, 0, false, fmt.Errorf("inside a Slurm array task but %s: the ID is not MIN plus a multiple of STEP", vars)
	}
	if (v-lo)/step >= cnt { // without MAX nothing above bounds the ID
		return 0, 0, false, fmt.Errorf("inside a Slurm array task but %s: the ID is beyond the array's COUNT tasks from MIN", vars)
	}
	return int((v - lo) / step), int(cnt), true, nil
}
