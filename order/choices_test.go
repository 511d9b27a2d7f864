package order

import (
	"testing"

	"github.com/procalloc/procalloc/internal/choicetest"
)

func TestChoiceListsAreCopies(t *testing.T) {
	choicetest.Copies(t, "Methods", Methods, Method("spoiled"), func(m Method) error { _, err := ParseMethod(string(m)); return err })
}
