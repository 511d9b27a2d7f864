package plan

import (
	"testing"

	"github.com/procalloc/procalloc/internal/choicetest"
)

func TestChoiceListsAreCopies(t *testing.T) {
	choicetest.Copies(t, "Kinds", Kinds, Kind("spoiled"), func(k Kind) error { _, err := ParseKind(string(k)); return err })
}

// TestDefaultWeightsAreCopies: a caller that changes the default weights it got
// (a plan scales or extends its Options.Weights) leaves the next plan's default as
// it was. As an exported variable it did not.
func TestDefaultWeightsAreCopies(t *testing.T) {
	choicetest.Copies(t, "DefaultWeights", func() []float64 { return DefaultWeights() }, -1, nil)
}
