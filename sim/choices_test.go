package sim

import (
	"slices"
	"testing"

	"github.com/procalloc/procalloc/internal/choicetest"
)

func TestChoiceListsAreCopies(t *testing.T) {
	choicetest.Copies(t, "Scheds", Scheds, Sched("spoiled"), func(s Sched) error { _, err := ParseSched(string(s)); return err })
	choicetest.Copies(t, "Formats", Formats, Format("spoiled"), func(f Format) error { _, err := ParseFormat(string(f)); return err })
	choicetest.Copies(t, "Engines", Engines, Engine("spoiled"), func(e Engine) error { _, err := ParseEngine(string(e)); return err })
	// Metric holds a func, so it is not comparable: its keys stand for it, and the
	// spoiled copy is overwritten whole.
	keys := func() []string {
		var k []string
		for _, m := range Metrics() {
			k = append(k, m.Key)
		}
		return k
	}
	want := keys()
	got := Metrics()
	for i := range got {
		got[i] = Metric{Key: "spoiled"}
	}
	if k := keys(); !slices.Equal(k, want) {
		t.Errorf("Metrics after a caller overwrote its copy: %v, want %v", k, want)
	}
	for _, k := range want {
		if _, ok := MetricByKey(k); !ok {
			t.Errorf("MetricByKey(%q) fails after a caller overwrote its copy of Metrics", k)
		}
	}
}
