package curves

import (
	"testing"

	"github.com/procalloc/procalloc/internal/choicetest"
)

func TestChoiceListsAreCopies(t *testing.T) {
	parse := func(f Format) error { _, err := ParseFormat(string(f)); return err }
	choicetest.Copies(t, "Formats", Formats, Format("spoiled"), parse)
	choicetest.Copies(t, "SchedulerFormats", SchedulerFormats, Format("spoiled"), parse)
	choicetest.Copies(t, "StripWidths", StripWidths, -1, nil)
}
