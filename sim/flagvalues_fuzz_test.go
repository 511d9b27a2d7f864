package sim

import (
	"fmt"
	"github.com/procalloc/procalloc/alloc"
	"strings"
	"testing"
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
// name as given, and a refusal quotes the input.
func FuzzParseTaskOrder(f *testing.F) {
	for _, s := range []string{"", "returned", "sorted", "allocator", "random", "curve:hilbert", "curve:", "curve", "Sorted", "curve:a:b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		o, err := ParseTaskOrder(s)
		if err != nil {
			if !strings.Contains(err.Error(), quoteGo(s)) {
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
			var v, w Sched
			v, err = ParseSched(s)
			w, err2 = ParseSched(v.String())
			str, back = v.String(), w.String()
		case 1:
			var v, w Format
			v, err = ParseFormat(s)
			w, err2 = ParseFormat(v.String())
			str, back = v.String(), w.String()
		case 2:
			var v, w alloc.Compat
			v, err = ParseCompat(s)
			w, err2 = ParseCompat(v.String())
			str, back = v.String(), w.String()
		case 3:
			var v, w Engine
			v, err = ParseEngine(s)
			w, err2 = ParseEngine(v.String())
			str, back = v.String(), w.String()
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
