package slurm

import (
	"errors"
	"testing"
)

// slurmDuration reads sacct's Elapsed and Timelimit, [DD-[HH:]]MM:SS: the values by
// hand, the malformed ones refused, and the limit held at its edge, including a day
// count within the limit whose hours push the total past it.
func TestSlurmDuration(t *testing.T) {
	for _, c := range []struct {
		in    string
		limit int64
		want  int64 // -1: a format error; -2: ErrRange
	}{
		{"00:00", 1 << 40, 0},
		{"1:02", 1 << 40, 62},
		{"01:02:03", 1 << 40, 3723},
		{"2-01:00:00", 1 << 40, 2*86400 + 3600},
		{"0-00:00:07", 1 << 40, 7},
		{"16:40", 1000, 1000},
		{"16:41", 1000, -2},
		{"00:16:41", 1000, -2},
		{"2-00:00:00", 2 * 86400, 2 * 86400},
		{"2-00:00:01", 2 * 86400, -2},
		{"1-23:59:59", 2 * 86400, 2*86400 - 1},
		{"1-00:00:00", 86399, -2},
		{"42", 1 << 40, -1},
		{"1:2:3:4", 1 << 40, -1},
		{"", 1 << 40, -1},
		{"-1:00", 1 << 40, -1},
		{"1-", 1 << 40, -1},
		{"x-00:00", 1 << 40, -1},
		{"00:x", 1 << 40, -1},
		{"00:-5", 1 << 40, -1},
	} {
		got, err := slurmDuration(c.in, c.limit)
		switch {
		case c.want == -2:
			if !errors.Is(err, ErrRange) {
				t.Errorf("%q, limit %d: %d, %v; want ErrRange", c.in, c.limit, got, err)
			}
		case c.want == -1:
			if err == nil || errors.Is(err, ErrRange) {
				t.Errorf("%q: %d, %v; want a format error", c.in, got, err)
			}
		case err != nil || got != c.want:
			t.Errorf("%q, limit %d: %d, %v; want %d", c.in, c.limit, got, err, c.want)
		}
	}
}
