package ilp

import (
	"testing"

	"github.com/procalloc/procalloc/internal/choicetest"
)

func TestChoiceListsAreCopies(t *testing.T) {
	choicetest.Copies(t, "Formulations", Formulations, Formulation("spoiled"), CheckFormulation)
}
