package slurm

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/procalloc/procalloc/topo"
)

// GraphFormats are the --graph-format names ReadGraphFormat accepts: topo's
// (edges, ibnetdiscover) and Slurm's topology.conf and topology.yaml.
var GraphFormats = append(slices.Clone(topo.GraphFormats), "slurm-topology", "slurm-topology-yaml")

// GraphReadOptions are the settings of ReadGraphFormat.
type GraphReadOptions struct {
	Format      string           // one of GraphFormats, or "" to detect it
	NodeNameMap topo.NodeNameMap // ibnetdiscover: GUID -> name
	Topology    string           // topology.yaml: which topology ("" = cluster_default)
}

// ReadGraphFormat reads a network in any of GraphFormats; with an empty Format it is
// detected from the content (DetectGraphFormat) and an undecidable file is an error.
// Slurm's formats are read here, the others by topo.ReadGraphFormat (topo knows
// nothing of Slurm).
func ReadGraphFormat(r io.Reader, opt GraphReadOptions) (*topo.Graph, error) {
	data, err := topo.ReadLimited(r, 256<<20)
	if err != nil {
		return nil, err
	}
	f := opt.Format
	if f == "" {
		if f, err = DetectGraphFormat(data); err != nil {
			return nil, err
		}
	}
	if opt.NodeNameMap != nil && f != "ibnetdiscover" {
		return nil, fmt.Errorf("a node-name-map applies to ibnetdiscover output, not %s", f)
	}
	switch f {
	case "slurm-topology":
		return ReadTopologyConf(bytes.NewReader(data))
	case "slurm-topology-yaml":
		return ReadTopologyYAML(bytes.NewReader(data), opt.Topology)
	}
	if !slices.Contains(topo.GraphFormats, f) {
		return nil, fmt.Errorf("unknown graph format %q (want %s)", f, strings.Join(GraphFormats, ", "))
	}
	return topo.ReadGraphFormat(bytes.NewReader(data), topo.GraphReadOptions{Format: f, NodeNameMap: opt.NodeNameMap})
}

// DetectGraphFormat names the format of a network file from its first meaningful
// line: a SwitchName=/BlockName= line (topology.conf), "- topology:" (topology.yaml),
// else what topo.DetectGraphFormat says (ibnetdiscover, an edge list). Anything else
// is an error asking for --graph-format.
func DetectGraphFormat(data []byte) (string, error) {
	t := topo.FirstMeaningfulLine(data)
	low := strings.ToLower(t)
	switch {
	case strings.HasPrefix(low, "switchname="), strings.HasPrefix(low, "blockname="), strings.HasPrefix(low, "blocksizes="):
		return "slurm-topology", nil
	case strings.HasPrefix(t, "- topology:"), strings.HasPrefix(t, "-") && strings.Contains(t, "topology:"):
		return "slurm-topology-yaml", nil
	}
	f, err := topo.DetectGraphFormat(data)
	var u *topo.UndetectedFormatError
	if errors.As(err, &u) {
		return "", &topo.UndetectedFormatError{Line: u.Line, Formats: GraphFormats}
	}
	return f, err
}
