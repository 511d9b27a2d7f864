package netsim

import (
	"testing"

	"github.com/procalloc/procalloc/internal/choicetest"
)

func TestChoiceListsAreCopies(t *testing.T) {
	choicetest.Copies(t, "Patterns", Patterns, "spoiled", func(name string) error { _, err := ParsePattern(name); return err })
	choicetest.Copies(t, "SyntheticKinds", SyntheticKinds, "spoiled", func(name string) error {
		if name == "hotspot" {
			name = "hotspot:0" // the one kind that needs its nodes
		}
		_, err := ParseSynthetic(name)
		return err
	})
}
