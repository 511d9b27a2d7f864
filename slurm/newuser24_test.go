package slurm

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/internal/textin"
)

// A slurm.conf or topology.conf saved with a UTF-8 byte-order mark is refused, as
// Slurm 22.05 refuses it (sinfo: "Parse error in file slurm.conf line 1", fatal),
// saying what the invisible text is: it printed `"\ufeff" is not KEY=VALUE`, or
// quoted the first line's text after the mark. Without the mark both read.
func TestConfByteOrderMarkNamed(t *testing.T) {
	data, err := os.ReadFile("../plan/testdata/slurm.conf")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ReadConf(data); err != nil {
		t.Fatal(err)
	}
	_, err = ReadConf(append([]byte(textin.BOM), data...))
	var ce *ConfError
	if !errors.As(err, &ce) || ce.Line != 1 || !strings.Contains(ce.Msg, "starts with a UTF-8 byte-order mark") {
		t.Errorf("slurm.conf with a byte-order mark: %v, want line 1 naming the mark", err)
	}
	topo, err := os.ReadFile("../topo/testdata/topology.conf")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ReadTopologyConf(strings.NewReader(string(topo))); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadTopologyConf(strings.NewReader(textin.BOM + string(topo))); err == nil || !strings.Contains(err.Error(), "line 1: the file starts with a UTF-8 byte-order mark") {
		t.Errorf("topology.conf with a byte-order mark: %v, want line 1 naming the mark", err)
	}
}
