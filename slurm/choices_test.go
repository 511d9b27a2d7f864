package slurm

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/internal/choicetest"
)

// A caller's change to its copy of GraphFormats does not make GraphFile.Read refuse
// --graph-format edges.
func TestChoiceListsAreCopies(t *testing.T) {
	path := filepath.Join(t.TempDir(), "net.txt")
	if err := os.WriteFile(path, []byte("0 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	choicetest.Copies(t, "GraphFormats", GraphFormats, "spoiled", func(f string) error {
		if f != "edges" {
			return nil
		}
		_, _, err := GraphFile{Path: path, Format: f}.Read()
		return err
	})
	choicetest.Copies(t, "NetworkFormats", NetworkFormats, curves.Format("spoiled"), nil)
}
