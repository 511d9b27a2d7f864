package sim

import (
	"errors"
	"strings"
	"testing"
)

// An empty window says when the trace's jobs do arrive, so that the user can cut a
// window that holds some (an SWF log's first job may arrive days after its start);
// a window that holds jobs returns them in order.
func TestWindowEmptySaysWhenJobsArrive(t *testing.T) {
	jobs := []Job{{ID: 1, Arrival: 599850, Procs: 1}, {ID: 2, Arrival: 600022, Procs: 1}, {ID: 3, Arrival: 700000, Procs: 1}}
	_, err := Window(jobs, 0, 100000)
	if !errors.Is(err, ErrEmptyWindow) || !strings.Contains(err.Error(), "(they arrive from 599850 s to 700000 s)") {
		t.Fatalf("empty window: %v", err)
	}
	got, err := Window(jobs, 600000, 700001)
	if err != nil || len(got) != 2 || got[0].ID != 2 || got[1].ID != 3 {
		t.Fatalf("window [600000, 700001): %v, %v", got, err)
	}
}
