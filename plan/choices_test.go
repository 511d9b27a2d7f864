package plan

import (
	"testing"

	"github.com/procalloc/procalloc/internal/choicetest"
)

func TestChoiceListsAreCopies(t *testing.T) {
	choicetest.Copies(t, "Kinds", Kinds, Kind("spoiled"), func(k Kind) error { _, err := ParseKind(string(k)); return err })
}
