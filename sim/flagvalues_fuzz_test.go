package sim

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/procalloc/procalloc/internal/textin"
)

// FuzzParseMetrics fuzzes --metrics (and a sweep file's metrics flag): an accepted
// list is a valid set holding sched whose canonical form (String) reads back to the
// same set and is its own canonical form; every group named in the input is in the
// set; a refusal quotes the input's offending group or says what is missing.
func FuzzParseMetrics(f *testing.F) {
	for _, s := range []string{"all", "sched", "sched,route", "sched, dist,ties", "route", "", "sched,,route", "sched,all", "0x10", "sched,bogus", " sched "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseMetrics(s)
		if err != nil {
			if m != 0 {
				t.Fatalf("%q: refused (%v) but returned %v", s, err, m)
			}
			msg := err.Error()
			if !strings.Contains(msg, "unknown metric group") && !strings.Contains(msg, "(sched) are always computed") {
				t.Fatalf("%q: error %q says neither the unknown group nor the missing sched", s, msg)
			}
			return
		}
		if m.check() != nil || !m.Has(MetricsSched) {
			t.Fatalf("%q: accepted an invalid set %v", s, m)
		}
		for _, g := range strings.Split(s, ",") {
			g = strings.TrimSpace(g)
			want := MetricsAll
			for _, n := range metricGroupNames {
				if n.name == g {
					want = n.set
				}
			}
			if !m.Has(want) {
				t.Fatalf("%q: group %q named but not in %v", s, g, m)
			}
		}
		back, err := ParseMetrics(m.String())
		if err != nil || back != m {
			t.Fatalf("%q: canonical form %q reads back as %v, %v", s, m.String(), back, err)
		}
		if back.String() != m.String() {
			t.Fatalf("%q: canonical form not idempotent: %q then %q", s, m.String(), back.String())
		}
	})
}

// FuzzParseTaskOrder fuzzes --task-order: an accepted order's String reads back to
// the same order (the zero value as "returned"), a curve order keeps its curve's
// name as given, and a refusal quotes the input (clipped as every error clips a
// long one, textin.Clip).
func FuzzParseTaskOrder(f *testing.F) {
	for _, s := range []string{"", "returned", "sorted", "allocator", "random", "curve:hilbert", "curve:", "curve", "Sorted", "curve:a:b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		o, err := ParseTaskOrder(s)
		if err != nil {
			if !strings.Contains(err.Error(), quoteGo(textin.Clip(s))) {
				t.Fatalf("%q: error %q does not quote the input", s, err)
			}
			return
		}
		back, err := ParseTaskOrder(o.String())
		if err != nil || back != o {
			t.Fatalf("%q: %q reads back as %q, %v", s, o.String(), back, err)
		}
		if name, ok := strings.CutPrefix(s, "curve:"); ok && o.Curve() != name {
			t.Fatalf("%q: curve %q, want %q", s, o.Curve(), name)
		}
		if o.Curve() == "" && strings.HasPrefix(string(o), "curve:") {
			t.Fatalf("%q: a curve order without a curve", s)
		}
	})
}

// quoteGo is strconv.Quote, as the errors' %q writes it.
func quoteGo(s string) string { return fmt.Sprintf("%q", s) }

// FuzzParseEnums fuzzes sim's named values (--sched, --format, --compat, --engine;
// which picks one): an accepted name's String reads back to the same value, and a
// refusal quotes the input.
func FuzzParseEnums(f *testing.F) {
	for _, s := range []string{"", "fcfs", "easy", "cplant", "as-run", "swf", "converted", "sacct", "detect", "premas", "sst", "default", "message", "flit", "FCFS", "flit "} {
		for which := range uint8(4) {
			f.Add(which, s)
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, s string) {
		var str, back string
		var err, err2 error
		switch which % 4 {
		case 0:
			str, back, err, err2 = roundTrip(ParseSched, s)
		case 1:
			str, back, err, err2 = roundTrip(ParseFormat, s)
		case 2:
			str, back, err, err2 = roundTrip(ParseCompat, s)
		case 3:
			str, back, err, err2 = roundTrip(ParseEngine, s)
		}
		if err != nil {
			if !strings.Contains(err.Error(), quoteGo(s)) {
				t.Fatalf("%d %q: error %q does not quote the input", which%4, s, err)
			}
			return
		}
		if err2 != nil || back != str {
			t.Fatalf("%d %q: %q reads back as %q, %v", which%4, s, str, back, err2)
		}
	})
}

// roundTrip parses s, then the accepted value's name again: the name, the name
// read back, and the two errors.
func roundTrip[T fmt.Stringer](parse func(string) (T, error), s string) (str, back string, err, err2 error) {
	v, err := parse(s)
	w, err2 := parse(v.String())
	return v.String(), w.String(), err, err2
}

// A window bound on a clock time a daylight-saving switch skips or repeats has no
// instant or two; it was read as one of them without a word (1996-04-07 02:30 in
// US/Pacific as 03:30 PDT, 1996-10-27 01:30 as PDT, an hour from PST).
func TestWindowTimeDaylightSaving(t *testing.T) {
	tr := &Trace{UnixStart: 820483200, TimeZone: "America/Los_Angeles"} // 1996-01-01 PST
	if _, err := time.LoadLocation(tr.TimeZone); err != nil {
		t.Skip("no time zone data:", err)
	}
	for s, want := range map[string]string{"1996-04-07T02:30:00": "does not exist", "1996-04-07 02:00:00": "does not exist", "1996-10-27T01:30:00": "occurs twice"} {
		if v, err := WindowTime(s, tr); err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "America/Los_Angeles") {
			t.Errorf("%s: %d, %v; want %q", s, v, err, want)
		}
	}
	for s, want := range map[string]int64{"1996-01-01": 0, "1996-04-07T01:59:59": 97*86400 - 1 + 2*3600, "1996-04-07T03:00:00": 97*86400 + 2*3600, "1996-10-27": 300*86400 - 3600, "1996-10-27T02:00:00": 300*86400 + 2*3600, "3600": 3600} {
		if v, err := WindowTime(s, tr); err != nil || v != want {
			t.Errorf("%s: %d, %v; want %d", s, v, err, want)
		}
	}
}

// FuzzWindowTime fuzzes sim's --from and --to: seconds read as themselves; a date
// read in the trace's time zone is the one instant whose clock shows it there (the
// result, formatted back, is the input); a refusal quotes the input.
func FuzzWindowTime(f *testing.F) {
	for _, s := range []string{"0", "3600", "-1", "+5", "1996-04-07T02:30:00", "1996-10-27T01:30:00", "1996-10-27 01:30:00", "1996-10-27", "2026-03-29T02:30:00", "1996-13-01", "1996-02-30", "99999999999999999999", "1996-01-01T24:00:00"} {
		f.Add(s, uint8(0))
		f.Add(s, uint8(2))
	}
	zones := []string{"America/Los_Angeles", "UTC", "Europe/Berlin", "Australia/Lord_Howe", ""}
	f.Fuzz(func(t *testing.T, s string, z uint8) {
		tr := &Trace{UnixStart: 820483200, TimeZone: zones[int(z)%len(zones)]}
		loc, err := time.LoadLocation(tr.TimeZone)
		if err != nil {
			t.Skip("no time zone data:", err)
		}
		v, err := WindowTime(s, tr)
		if err != nil {
			if !strings.Contains(err.Error(), quoteGo(s)) && !strings.Contains(err.Error(), "seconds from the trace's start cannot be negative") {
				t.Fatalf("%q: error %q does not quote the input", s, err)
			}
			return
		}
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			if n != v {
				t.Fatalf("%q: %d seconds", s, v)
			}
			return
		}
		at := time.Unix(tr.UnixStart+v, 0).In(loc)
		for _, layout := range windowLayouts {
			// The clock reading the input gives (Go's layouts take "0:00:00" for
			// 00:00:00), in UTC, written out in full.
			if wall, err := time.Parse(layout, s); err == nil {
				const full = "2006-01-02T15:04:05"
				if at.Format(full) != wall.Format(full) {
					t.Fatalf("%q in %s: %d s is %s", s, tr.TimeZone, v, at.Format(full))
				}
				for _, d := range []time.Duration{-30 * time.Minute, 30 * time.Minute, -time.Hour, time.Hour} {
					if at.Add(d).Format(full) == wall.Format(full) {
						t.Fatalf("%q in %s: also %s", s, tr.TimeZone, at.Add(d))
					}
				}
				return
			}
		}
		t.Fatalf("%q accepted as %d but is neither seconds nor a date", s, v)
	})
}
