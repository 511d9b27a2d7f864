package bench

import (
	"testing"

	"github.com/procalloc/procalloc/internal/choicetest"
)

func TestChoiceListsAreCopies(t *testing.T) {
	choicetest.Copies(t, "Quantiles", Quantiles, -1, nil)
	choicetest.Copies(t, "YoungFreeSetMachines", YoungFreeSetMachines, "spoiled", nil)
}
